"""The pages' prose lives in lessons/page_text.json: every text renders its fields, and the
allocator page's driver-call figures come from the simulator's parameter and the recording."""
import json
import re

from runtime_core.lesson import figures
from runtime_core.lesson.page_text import PAGE_TEXT, text
from runtime_core.recordings import best


def test_every_page_text_renders_its_fields():
    for page, texts in json.loads(PAGE_TEXT.read_text()).items():
        for key in texts:
            names = set(re.findall(r"(?<!\{)\{(\w+)\}(?!\})", texts[key]))
            out = text(page, key, **{n: "X" for n in names})
            assert "{{" not in out and figures.NOT_RECORDED not in out, (page, key, out)


def test_the_allocator_page_cites_the_simulators_driver_call_and_the_recorded_pair():
    badge = text("caching_allocator", "hot_path_badge", markdown=False)
    raw = best("alloc").labs["alloc"]["allocators"]["raw"]["alloc_free_us"]
    assert f"costs {raw / 2:.0f} µs" in badge  # the simulator prices the recording's own pair
    assert f"~{raw:.0f} µs per cudaMalloc+cudaFree pair" in badge


def _paragraphs(path):
    """String literals (docstrings aside) in a page file that hold more than one sentence."""
    import ast
    tree = ast.parse(path.read_text())
    skip = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    skip |= {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    sentence_break = re.compile(r"[.!?:](?:\*\*|\*|\))?\s+[A-Z*(]")
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            s = node.value
        elif isinstance(node, ast.JoinedStr):
            s = "".join(v.value if isinstance(v, ast.Constant) else "X" for v in node.values)
        else:
            continue
        if len(s) > 80 and sentence_break.search(s):
            yield f"{path.name}:{node.lineno}: {s[:60]}..."


def test_no_paragraph_of_prose_is_left_in_the_pages():
    from pathlib import Path
    pages = Path(__file__).resolve().parents[1] / "pages"
    found = [p for path in sorted(pages.rglob("*.py")) for p in _paragraphs(path)]
    assert not found, "prose belongs in lessons/page_text.json:\n" + "\n".join(found)


def test_texts_edited_while_the_server_runs_are_read_again(tmp_path, monkeypatch):
    """A class server that pulls new texts while it runs reruns the new page scripts: the texts
    they ask for must be read again, not served from the first read (a KeyError on page 7)."""
    import os
    from runtime_core.lesson import page_text
    copy = tmp_path / "page_text.json"
    copy.write_text(json.dumps({"p": {"a": "first"}}), encoding="utf-8")
    monkeypatch.setattr(page_text, "PAGE_TEXT", copy)
    assert text("p", "a") == "first"
    copy.write_text(json.dumps({"p": {"a": "second", "b": "new"}}), encoding="utf-8")
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns + 1_000_000))  # a coarse clock
    assert text("p", "a") == "second" and text("p", "b") == "new"


def test_lab_texts_edited_while_the_server_runs_are_read_again(tmp_path, monkeypatch):
    import os
    from runtime_core.lesson import lab_text
    copy = tmp_path / "labs.json"
    copy.write_text(json.dumps({"lab_texts": {"x": {"intro": "old"}}}), encoding="utf-8")
    monkeypatch.setattr(lab_text, "LABS_JSON", copy)
    assert lab_text.text("x", "intro") == "old"
    copy.write_text(json.dumps({"lab_texts": {"x": {"intro": "new text"}}}), encoding="utf-8")
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns))   # same clock tick: the size differs
    assert lab_text.text("x", "intro") == "new text"
