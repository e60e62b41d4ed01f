"""A lesson's JSON file, parsed once per version: read again when it changes, so a class server
that pulls new texts while it runs never pairs a new page with old texts (a key the page asks for
would be missing). A version is the file's modification time and size: two writes within one clock
tick still differ in size."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path


def load(path: Path) -> dict:
    st = path.stat()
    return _parse(str(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _parse(path: str, mtime_ns: int, size: int) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
