"""Test setup: the repo root on sys.path, and `gpu` tests skipped where torch sees no CUDA."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The server freezes its heap after each new set of imports (pages/ui/server_heap.py); a test
# session imports all session long, and frozen garbage is never freed: off here.
os.environ.setdefault("RUNTIME_GC_FREEZE", "0")


def _cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _one_component_scan() -> None:
    """Each new AppTest scans every installed distribution for Streamlit v2 component manifests
    (streamlit/components/v2/manifest_scanner.py: about 0.16 s of CPU, hundreds of times a session);
    the served app scans once, when its Runtime starts. The installed packages do not change within
    a test session, so the scan runs once per test process and each AppTest gets its answer (a fresh
    list each time). What the pages render is unchanged (this app ships no such component)."""
    from streamlit.components.v2 import manifest_scanner
    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "_once_per_session", False):
        return
    found = []

    def once(max_workers=None):
        if not found:
            found.append(scan(max_workers))
        return list(found[0])
    once._once_per_session = True
    manifest_scanner.scan_component_manifests = once


def cli_here(capsys, *args):
    """`python -m runtime_core ARGS` run in this process, as a CompletedProcess (returncode, stdout,
    stderr): runtime_core.cli.main is all the module runs (its __main__ passes main's status to
    sys.exit), so the status and both streams are a child's, without seconds of torch's import.
    Tests that use it keep a child-process run of the same subcommand elsewhere."""
    import subprocess
    from runtime_core.cli import main
    capsys.readouterr()
    rc = main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), rc, out, err)


def open_page(page: str | None = None, query: dict | None = None, timeout_s: int = 90):
    """AppTest the way the app runs: start at app.py (the entry point), then switch to `page`.
    Page links only resolve that way. `query` sets URL query parameters first."""
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest
    _one_component_scan()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout_s)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    if page:
        at.switch_page(page).run()
        assert not at.exception, at.exception
    return at


def tables_of(at) -> list:
    """Every st.table on the page as a DataFrame of the text a reader sees (pages/ui/tables.py
    escapes cells and adds break points; `plain` undoes both)."""
    from pages.ui.tables import plain
    out = []
    for t in at.table:
        df = t.value.copy()
        df.columns = [plain(str(c)) for c in df.columns]
        out.append(df.map(lambda v: plain(v) if isinstance(v, str) else v))
    return out


@pytest.fixture(scope="session")
def shared_aot_cache(tmp_path_factory) -> Path:
    """One AOT cache folder for the tests that build the real packages (RUNTIME_CORE_AOT_CACHE).
    test_aot_class.py empties it and leaves it full; test_aot_cli.py asks for it warm
    (warm_aot_cache), which then costs nothing. Either test is right on its own."""
    return tmp_path_factory.mktemp("aot-cache") / "aot"


@pytest.fixture(scope="session")
def warm_aot_cache(shared_aot_cache) -> Path:
    """shared_aot_cache with a finished CPU measurement in it (packages, the C++ runner and the warm
    Inductor cache), made once per session by whichever test asks first: free after
    test_aot_class.py, which leaves it full; one cold measurement when a test runs alone."""
    from runtime_core.aot import coldwarm
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RUNTIME_CORE_AOT_CACHE", str(shared_aot_cache))
        if coldwarm.cached_results("cpu") is None:
            coldwarm.measure("cpu")
    return shared_aot_cache


def recordings_without(folder: Path, labs) -> Path:
    """The shipped recordings copied into `folder`, with the labs named in `labs` taken out of
    every file that holds them (what the app shows before their GPU recording ships). Point
    store.DIR_ENV at the folder it returns."""
    import json
    for path in (ROOT / "lessons" / "recordings").glob("*.json"):
        doc = json.loads(path.read_text())
        held = doc.get("labs") if isinstance(doc.get("labs"), dict) else {}
        parts = (doc.get("meta") or {}).get("parts_recorded_at") or {}
        for name in labs:
            held.pop(name, None)
            parts.pop(name, None)
        (folder / path.name).write_text(json.dumps(doc))
    return folder
