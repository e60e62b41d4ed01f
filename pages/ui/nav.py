"""Find a page file from the short names lesson data uses ("CUDA_graphs" -> pages/4_CUDA_graphs.py)."""
from __future__ import annotations

from pathlib import Path

PAGES = Path(__file__).resolve().parents[1]


def page_for(name: str) -> str | None:
    """"pages/<k>_<name>.py" for the page whose file name ends in `name`, or None if none does."""
    hits = sorted(PAGES.glob(f"*_{name}.py"))
    return f"pages/{hits[0].name}" if hits else None


def page_title(path: str) -> str:
    """"pages/4_CUDA_graphs.py" -> "CUDA graphs"."""
    return Path(path).stem.split("_", 1)[1].replace("_", " ")


# The sidebar's own list of pages (Streamlit's is switched off in .streamlit/config.toml, since it
# names the landing page after its file, "app"): the landing page, then the pages in their order.
HOME = ("app.py", "Start here")


def numbered_pages() -> list[tuple[str, str]]:
    """("pages/4_CUDA_graphs.py", "4. CUDA graphs") for every page, in its number's order."""
    files = sorted(PAGES.glob("[0-9]*_*.py"), key=lambda p: int(p.stem.split("_", 1)[0]))
    return [(f"pages/{f.name}", f"{f.stem.split('_', 1)[0]}. {page_title(f.name)}") for f in files]


# Streamlit's own page list closes the sidebar once a page is picked where the sidebar covers the page
# (narrower than its "md" breakpoint, 768 px); st.page_link does not, so on a phone the picked page
# opened hidden under the sidebar. One listener (added once per browser tab) does the same for ours.
MOBILE_MAX_WIDTH_PX = 767
CLOSE_ON_PICK_JS = """<script>
if (!window.__runtimeNavCloses) {
  window.__runtimeNavCloses = true;
  document.addEventListener("click", (e) => {
    const picked = e.target.closest('[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]');
    if (!picked || window.innerWidth > %d) return;
    setTimeout(() => document.querySelector('[data-testid="stSidebarCollapseButton"] button')?.click(), 0);
  }, true);
}
</script>""" % MOBILE_MAX_WIDTH_PX


def sidebar_nav() -> None:
    """Links to every page, the current one highlighted (call inside `with st.sidebar`), each
    carrying the knobs' setting and the checkpoint's progress (knobs.link_params); on a phone,
    picking one closes the sidebar (CLOSE_ON_PICK_JS)."""
    import streamlit as st

    from pages.ui.knobs import link_params
    carried = link_params()  # once for the twelve links, not once each
    app_link(HOME[0], label=HOME[1], carried=carried)
    for path, label in numbered_pages():
        app_link(path, label=label, carried=carried)
    st.html(CLOSE_ON_PICK_JS, unsafe_allow_javascript=True)


def app_link(page: str, *, label: str, icon: str | None = None, container=None, carried: dict | None = None):
    """st.page_link (or `container`.page_link) to another page of the app that carries the knobs'
    setting and the checkpoint's progress (knobs.link_params, or `carried` where the caller has
    it already): the page it opens finds its URL already written, so a visit is one browser
    history entry, not two, and Back goes back."""
    import streamlit as st

    from pages.ui.knobs import link_params
    return (container or st).page_link(page, label=label, icon=icon,
                                       query_params=link_params() if carried is None else carried)
