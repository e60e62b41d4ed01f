"""The app lists every sweep it finds: a student picks one in the sidebar, and the widget and the
claims page compare two ("your GPU vs the shipped H200")."""
import shutil
from pathlib import Path

import pytest
from conftest import open_page

from runtime_core.recordings import store

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "sweep_fixturegpu.json"


@pytest.fixture
def two_recordings(tmp_path, monkeypatch):
    for path in (ROOT / "lessons" / "recordings").glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    shutil.copy(FIXTURE, tmp_path / FIXTURE.name)
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))


def test_the_widget_lists_both_and_shows_the_one_picked(two_recordings):
    at = open_page("pages/6_Launch_overhead_killer.py")
    pick = at.sidebar.selectbox(key="rec_pick")
    assert any("sweep_h200.json" in o for o in pick.options) and any(FIXTURE.name in o for o in pick.options)
    assert any("NVIDIA H200" in c.value for c in at.caption)
    at = pick.select(FIXTURE.name).run()
    assert not at.exception
    assert any("FixtureGPU" in c.value for c in at.caption)
    assert "Compare recordings" in [t.label for t in at.tabs]
    from pages.ui.tables import plain
    compared = [plain(r) for r in at.table[-1].value["recording"]]  # the last tab's table: one row per recording
    assert any("FixtureGPU" in r for r in compared) and any("H200" in r for r in compared)


def test_the_claims_page_compares_two_recordings(two_recordings):
    at = open_page("pages/11_Claims.py")
    box = at.selectbox(key="cl_compare")
    at = box.select(FIXTURE.name).run()
    assert not at.exception
    assert any("On FixtureGPU" in m.value for m in at.markdown)
