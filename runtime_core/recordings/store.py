"""Reading and writing recordings: validate on load, write atomically.

    load(path)        -> Recording, or RecordingError naming the file and the field
    scan(kind)        -> every recording of a kind in lessons/recordings/, and the files skipped
    best(kind)        -> the one a page shows: complete before partial, a real GPU before the
                         simulator, then the newest
    write(path, doc)  -> validate, then write through a temporary file and a rename

A file is checked against schemas/<kind>.schema.json with `jsonschema` (pinned in
requirements.txt). Where it is not installed (a bare GPU machine), a recording is read with only
its header checked and written unvalidated, with one line on stderr saying so; it is validated
wherever it is read with jsonschema present.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import sys
from functools import lru_cache
from pathlib import Path

from ..constants import Constants
from ..errors import RecordingError, UsageError
from ..safe_read import check_numbers, read_json
from ..words import a_kind
from .types import KINDS, SCHEMA_VERSION, Meta, Point, Recording

RECORDINGS_DIR = Path(__file__).resolve().parents[2] / "lessons" / "recordings"
DIR_ENV = "RUNTIME_RECORDINGS_DIR"  # another folder of recordings (tests, a student's own runs)
SCHEMAS_DIR = Path(__file__).resolve().parent / "schemas"


# ---- loading --------------------------------------------------------------------------------
def load(path: str | Path, kind: str | None = None) -> Recording:
    """Read and validate one recording.

    Args:
        path: the JSON file.
        kind: if given, the file must be a recording of this kind.
    Raises:
        RecordingError: unreadable, not JSON, foreign, incomplete, or of another kind.
    """
    path = Path(path)
    doc = read_json(path)  # bounded: a regular file under 50 MB, no NaN, not nested deep
    validate(doc, path.name)
    if kind is not None and doc["meta"]["kind"] != kind:
        raise RecordingError(f"{path.name}: meta.kind is {doc['meta']['kind']!r}, expected {a_kind(kind)} recording")
    try:
        return from_doc(doc, path)
    except (KeyError, TypeError, ValueError, AttributeError) as e:  # unvalidated: no jsonschema here
        raise RecordingError(f"{path.name}: {_one_line(repr(e))}") from None


def from_doc(doc: dict, path: Path | None = None) -> Recording:
    """Build the typed Recording from a validated document."""
    m = doc["meta"]
    meta = Meta(kind=m["kind"], schema_version=m["schema_version"], device_name=m["device_name"],
                torch_version=m["torch_version"], recorded_at=m["recorded_at"], backend=m["backend"],
                complete=m["complete"],
                calibration=Constants.from_dict(m["calibration"]) if m.get("calibration") else None,
                intrinsic_tax_us=m.get("intrinsic_tax_us"), file=path.name if path else "")
    points = [Point.from_dict(p) for p in doc["points"]] if meta.kind == "sweep" else []
    return Recording(meta=meta, points=points, timelines=doc.get("timelines") or {},
                     labs=doc.get("labs") or {}, data=doc, path=path)


def check_header(doc, name: str = "recording") -> dict:
    """The checks that need no jsonschema: an object whose meta names a kind and a version this
    app reads. Returns `doc`."""
    shape = '{"meta": {"kind": ..., "schema_version": ...}, ...}'
    if not isinstance(doc, dict):
        raise RecordingError(f"{name}: not a recording: its top level is {_json_type(doc)}, "
                             f"a recording is an object {shape}")
    meta = doc.get("meta")
    if meta is None:
        raise RecordingError(f"{name}: not a recording: it has no meta (a recording is {shape})")
    if not isinstance(meta, dict):
        raise RecordingError(f"{name}: meta: expected an object, got {_json_type(meta)}")
    version = meta.get("schema_version")
    if version is None:
        raise RecordingError(f"{name}: meta.schema_version is missing (this app reads {SCHEMA_VERSION})")
    if version != SCHEMA_VERSION:
        raise RecordingError(f"{name}: meta.schema_version: {version!r}, this app reads {SCHEMA_VERSION}")
    kind = meta.get("kind")
    if kind not in KINDS:
        raise RecordingError(f"{name}: meta.kind: {kind!r} is not a recording kind ({', '.join(KINDS)})")
    return doc


def _json_type(value) -> str:
    """What JSON calls `value`'s type: an array, a string, a number, ... (not Python's names)."""
    names = {list: "an array", str: "a string", bool: "true or false", int: "a number", float: "a number",
             dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def validate(doc, name: str = "recording") -> bool:
    """Check `doc` against the schema of its kind; RecordingError names the field.

    Returns False (only the header checked) where jsonschema is not installed."""
    check_header(doc, name)
    check_numbers(doc, name)  # finite and sane, in every kind (a schema cannot reject NaN)
    jsonschema = _jsonschema()
    if jsonschema is None:
        return False
    errors = list(_validator(doc["meta"]["kind"]).iter_errors(doc))
    if errors:
        e = jsonschema.exceptions.best_match(errors)
        raise RecordingError(f"{name}: {_where(e.absolute_path)}: {_one_line(e.message)}")
    return True


def _jsonschema():
    try:
        import jsonschema
    except ImportError:
        return None
    return jsonschema


def _where(path) -> str:
    return ".".join(str(p) for p in path) or "top level"


@lru_cache(maxsize=None)
def _schemas() -> dict:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in SCHEMAS_DIR.glob("*.schema.json")}


@lru_cache(maxsize=None)
def _validator(kind: str):
    import jsonschema
    from referencing import Registry, Resource
    registry = Registry().with_resources((name, Resource.from_contents(s)) for name, s in _schemas().items())
    return jsonschema.Draft202012Validator(_schemas()[f"{kind}.schema.json"], registry=registry)


def _one_line(e) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 160 else text[:157] + "..."


# ---- finding ---------------------------------------------------------------------------------
def recordings_dir() -> Path:
    """lessons/recordings/, or the folder named by $RUNTIME_RECORDINGS_DIR (if it is one: else
    the shipped folder, and env_check.notices says so)."""
    from ..env_check import recordings_dir as checked
    folder, _ = checked()
    return folder if os.environ.get(DIR_ENV) else RECORDINGS_DIR


SKIPPED: dict[str, None] = {}  # every skipped file's line this process met, in order (the CLI prints them)


def scan(kind: str, directory: Path | None = None) -> tuple[list[Recording], list[str]]:
    """Every valid recording of `kind` in `directory` (default: recordings_dir()), and one line
    for each file skipped. Files of other kinds are ignored; a file that fails to load is reported
    (and kept in SKIPPED, which `python -m runtime_core` prints on stderr: a page shows its own).
    """
    found, skipped = [], []
    for path in sorted(Path(directory or recordings_dir()).glob("*.json")):
        try:
            rec = _load_cached(str(path), _mtime(path))
        except RecordingError as e:
            skipped.append(str(e))
            SKIPPED[str(e)] = None
            continue
        if rec.meta.kind == kind:
            found.append(rec)
    return found, skipped


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError as e:  # a dangling symlink, a file gone since the listing
        raise RecordingError(f"{path.name}: cannot read it ({e.strerror or e})") from None


@lru_cache(maxsize=64)
def _load_cached(path: str, mtime_ns: int) -> Recording:
    return load(path)  # parsed once per file version, however many pages and sessions ask


def rank(rec: Recording) -> tuple:
    """Sort key, best last: a lesson's own grid over a validation set (meta.set "external": public
    networks, shown only where asked for), complete over partial, a real device over the
    simulator, then newer."""
    validation = (rec.data.get("meta") or {}).get("set") == "external"
    return (not validation, rec.meta.complete, not rec.meta.simulated, rec.meta.recorded_at)


def best(kind: str, directory: Path | None = None) -> Recording | None:
    """The recording of `kind` a page shows by default (see `rank`), or None."""
    found, _ = scan(kind, directory)
    return max(found, key=rank, default=None)


# ---- writing ---------------------------------------------------------------------------------
def now_utc() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_meta(kind: str, device_name: str, torch_version: str, backend: str, **extra) -> dict:
    """The meta block every writer starts from."""
    return {"kind": kind, "schema_version": SCHEMA_VERSION, "device_name": device_name,
            "torch_version": torch_version, "recorded_at": now_utc(), "backend": backend,
            "complete": True, **extra}


# Paths this process may replace (write_own): checked with force (--force, or --resume and the like,
# which edit the file in place), or written by it already.
_MAY_REPLACE: set[str] = set()


def _key(path: str | Path) -> str:
    return os.path.realpath(path)


def check_target(path: str | Path, force: bool = False) -> Path:
    """Fail before any work if `path` can't be written (or exists and `force` is off): see
    atomic.check_target (name lengths with the temporary suffix, FIFOs, dangling symlinks).
    With `force`, write_own may replace the file later in this process."""
    from .. import atomic
    out = atomic.check_target(path, force)
    if force:
        _MAY_REPLACE.add(_key(path))
    else:  # a new run without force: what an earlier run in this process wrote is not its to replace
        _MAY_REPLACE.discard(_key(path))
    return out


def write_own(path: str | Path, doc: dict, check: bool = True) -> Path:
    """store.write for a recorder: it replaces only a file that check_target allowed it to (with
    force) or that this process wrote itself. A file that appeared at `path` during a run of
    minutes, after check_target looked, is refused (UsageError) and left as it is."""
    out = write(path, doc, check=check, overwrite=_key(path) in _MAY_REPLACE)
    _MAY_REPLACE.add(_key(path))
    return out


def write(path: str | Path, doc: dict, check: bool = True, overwrite: bool = True) -> Path:
    """Write `doc` to `path` atomically (a temporary file in the same folder, then a rename), so
    a reader or a kill mid-write sees the old file or the new one, never half of one.

    With `overwrite=False` an existing file is never replaced, even one that appeared after
    `check_target` looked (UsageError, the old file untouched). See runtime_core/atomic.py.
    """
    from .. import atomic
    path = Path(path)
    if check and not validate(doc, path.name):
        print(f"{path.name}: written unvalidated (jsonschema is not installed here); it is validated "
              "where it is read with jsonschema", file=sys.stderr)
    return atomic.write_json(path, doc, indent=1, overwrite=overwrite)
