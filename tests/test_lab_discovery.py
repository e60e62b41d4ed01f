"""One lab, one file: a module that declares LAB (plus its entry in a labs.json) is listed by the
registry, runs from the CLI's run_lab, and appears on the page and in the panel it names."""
import json
import textwrap

import pytest

from runtime_core import labs

TOY = textwrap.dedent('''
    """A toy lab for the discovery test: counts to three."""
    LAB = dict(name="toy", summary="a toy lab that counts to three",
               page="pages/4_CUDA_graphs.py", panel="graph_bugs",
               renderer="pages.ui.lab_panels:rows_table", text_key="toy_counts")


    def run(backend="sim"):
        return {"lab": "toy", "backend": "sim", "source": "simulated", "device_name": "SimDevice (toy)",
                "signal": True, "verdict": "The toy counted to three.",
                "rows": [{"step": i, "count": i} for i in (1, 2, 3)]}
''')


@pytest.fixture
def toy_lab(tmp_path, monkeypatch):
    (tmp_path / "toy.py").write_text(TOY)
    (tmp_path / "labs.json").write_text(json.dumps({"failure_modes": [
        {"id": "toy_counts", "title": "A toy that counts", "lab": "toy", "look_for": "three rows"}]}))
    monkeypatch.setenv(labs.DIRS_ENV, str(tmp_path))
    return tmp_path


def test_every_shipped_lab_declares_its_page_renderer_and_text():
    found = labs.discover()
    texts = {fm["id"] for fm in labs.failure_modes()}
    assert {"overlap", "sync", "stale", "no_warmup", "reduce_overhead"} <= set(found)
    for info in found.values():
        assert info.page and info.panel and ":" in info.renderer
        assert info.text_key is None or info.text_key in texts, info.name


def test_a_toy_lab_in_a_folder_is_listed_with_its_page_and_panel(toy_lab):
    info = labs.discover()["toy"]
    assert (info.page, info.panel, info.text_key) == ("pages/4_CUDA_graphs.py", "graph_bugs", "toy_counts")
    assert "toy" in labs.LABS and info in labs.labs_on("pages/4_CUDA_graphs.py", "graph_bugs")
    assert labs.run_lab("toy", "sim")["rows"][-1]["count"] == 3


def test_without_the_folder_the_toy_lab_is_gone(toy_lab, monkeypatch):
    monkeypatch.delenv(labs.DIRS_ENV)
    assert "toy" not in labs.discover()


def test_the_page_draws_the_toy_lab_in_its_panel(toy_lab):
    from conftest import open_page
    at = open_page("pages/4_CUDA_graphs.py")
    assert "**A toy that counts**" in [m.value for m in at.markdown]
    at = at.button(key="lab_run_toy_s4").click().run()
    assert not at.exception, at.exception
    assert any("The toy counted to three" in w.value for w in at.warning)
    from conftest import tables_of
    assert any(list(df.get("count", [])) == ["1", "2", "3"] for df in tables_of(at))
