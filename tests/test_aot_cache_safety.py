"""The AOT cache never deletes what is not ours: RUNTIME_CORE_AOT_CACHE set to "", ".", "~", "/",
a home directory, a folder holding .git or a folder of someone else's files is refused in one
line, by `aot clear-cache` and by the page's "clear cache" button, and nothing is deleted."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import open_page

ROOT = Path(__file__).resolve().parents[1]
ENV = "RUNTIME_CORE_AOT_CACHE"


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _victim(tmp_path: Path) -> Path:
    """A folder that looks like a user's work: files, a subfolder and a .git."""
    v = tmp_path / "work"
    (v / ".git").mkdir(parents=True)
    (v / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (v / "notes.txt").write_text("precious\n")
    (v / "src").mkdir()
    (v / "src" / "a.py").write_text("x = 1\n")
    return v


def _clear_cli(value: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, ENV: value, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "runtime_core", "aot", "clear-cache", "--json"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("value", ["", "  ", ".", "~", "./cache", "/", "HOME", "CWD", "VICTIM", "VICTIM_NO_GIT"])
def test_clear_cache_cli_refuses_folders_that_are_not_ours_and_deletes_nothing(tmp_path, value):
    victim = _victim(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("years of work\n")
    plain = tmp_path / "plain"  # someone's folder, no .git, no marker
    plain.mkdir()
    (plain / "data.csv").write_text("1,2\n")
    real = {"HOME": str(home), "CWD": str(victim), "VICTIM": str(victim), "VICTIM_NO_GIT": str(plain)}.get(value, value)
    before = (_tree(victim), _tree(home), _tree(plain))
    r = _clear_cli(real, cwd=victim, home=home)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert ENV in r.stderr or "cache" in r.stderr
    assert (_tree(victim), _tree(home), _tree(plain)) == before


def test_clear_cache_empties_only_a_folder_it_created(tmp_path, monkeypatch):
    from runtime_core.aot import paths
    root = tmp_path / "aot"
    monkeypatch.setenv(ENV, str(root))
    sub = paths.cache_dir("packages")
    (sub / "model.pt2").write_bytes(b"x" * 100)
    assert (root / paths.MARKER).is_file()
    assert paths.clear_cache() == 100
    assert not (root / "packages").exists() and (root / paths.MARKER).is_file()


def test_a_marker_removed_after_creation_stops_the_clear(tmp_path, monkeypatch):
    from runtime_core.aot import paths
    from runtime_core.errors import UsageError
    root = tmp_path / "aot2"
    monkeypatch.setenv(ENV, str(root))
    paths.cache_dir("packages")
    (root / "keep.txt").write_text("someone put this here\n")
    (root / paths.MARKER).unlink()
    with pytest.raises(UsageError):
        paths.clear_cache()
    assert (root / "keep.txt").exists()


@pytest.mark.parametrize("kind", ["file", "under_file", "dev_null"])
def test_a_cache_path_that_is_no_folder_is_one_line(tmp_path, kind):
    f = tmp_path / "f.txt"
    f.write_text("x")
    value = {"file": str(f), "under_file": str(f / "cache"), "dev_null": "/dev/null"}[kind]
    r = _clear_cli(value, cwd=tmp_path, home=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f.read_text() == "x"


def test_page_clear_button_with_a_checkout_as_cache_deletes_nothing(tmp_path, monkeypatch):
    """From the page, RUNTIME_CORE_AOT_CACHE="" once deleted the whole working copy."""
    victim = _victim(tmp_path)
    before = _tree(victim)
    for value in ("", str(victim), "."):
        monkeypatch.setenv(ENV, value)
        at = open_page("pages/5_AOT_and_serving.py")
        assert not at.exception
        assert any("Live AOT measuring is off" in w.value for w in at.warning)
        assert not [b for b in at.button if b.key == "aot_clear"]  # no button to press
    assert _tree(victim) == before


def test_messages_name_the_cache_folder_in_use(tmp_path, monkeypatch):
    """The page's status lines said ".cache/aot/" even when RUNTIME_CORE_AOT_CACHE put the cache
    elsewhere: they name the folder in use."""
    from runtime_core import cache_paths
    monkeypatch.delenv("RUNTIME_CORE_AOT_CACHE", raising=False)
    assert cache_paths.shown_root() == ".cache/aot/"
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "elsewhere"))
    assert cache_paths.shown_root() == f"{(tmp_path / 'elsewhere').as_posix()}/"
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", "relative/path")
    assert cache_paths.shown_root() == "the AOT cache folder"
