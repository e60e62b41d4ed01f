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


def sidebar_nav() -> None:
    """Links to every page, the current one highlighted (call inside `with st.sidebar`)."""
    import streamlit as st
    st.page_link(HOME[0], label=HOME[1])
    for path, label in numbered_pages():
        st.page_link(path, label=label)
