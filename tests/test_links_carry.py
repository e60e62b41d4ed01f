"""Every link from one page of the app to another goes through nav.app_link, which carries the
knobs' setting and the checkpoint's progress: a bare st.page_link opened its page on a bare URL,
which the page then wrote, two browser history entries for one visit (Back seemed to do nothing)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_page_links_to_another_page_but_through_app_link():
    files = [ROOT / "app.py", *sorted((ROOT / "pages").rglob("*.py"))]
    bare = [f"{f.relative_to(ROOT)}:{i}" for f in files if f.name != "nav.py"
            for i, line in enumerate(f.read_text().splitlines(), 1) if re.search(r"\.page_link\(", line)]
    assert not bare, "use nav.app_link: " + ", ".join(bare)
    assert "query_params=link_params()" in (ROOT / "pages/ui/nav.py").read_text()
