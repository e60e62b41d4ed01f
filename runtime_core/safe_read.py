"""Read a JSON file that came from somewhere else (a recording, a trace) without hanging or blowing up.

    read_json(path, what="recording")  -> the parsed document, or ReadRefused (one line, names the file)
    check_numbers(doc, name)           -> RecordingError on a non-finite number or an absurd magnitude

Before a byte is read, the path must be a regular file (not a FIFO, which blocks forever, a device
such as /dev/zero, which never ends, or a folder) of at most MAX_BYTES. It is opened non-blocking
(a FIFO swapped in after the check cannot block either), checked again on the open descriptor,
and read to at most MAX_BYTES + 1 bytes. JSON's NaN, Infinity and -Infinity literals, and numbers
that overflow a float (1e400), are refused at parse time, and nesting deeper than MAX_DEPTH is
refused, so a 200,000-deep file gives one line instead of a RecursionError.
"""
from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

from .errors import RecordingError

MAX_BYTES = 50 * 1024 * 1024  # the largest shipped recording is under 1 MB
MAX_DEPTH = 64  # the deepest shipped recording nests 7 levels
MAX_MAGNITUDE = 2.0 ** 63  # any count, size, address or time in µs of ours is far below this


class ReadRefused(RecordingError):
    """A file that is not read at all, or not parsed: not a regular file, too large, not JSON,
    too deeply nested, or holding a number JSON does not have."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words (for a one-line refusal)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB"


def read_bytes(path: str | Path, max_bytes: int = MAX_BYTES, what: str = "recording") -> bytes:
    """The file's bytes, if it is a regular file of at most `max_bytes` (ReadRefused otherwise)."""
    path = Path(path)
    name = path.name or str(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise ReadRefused(f"{name}: cannot read it ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ReadRefused(f"{name}: {file_kind(st.st_mode)}, not a {what} file; give a regular JSON file")
    if st.st_size > max_bytes:
        raise ReadRefused(f"{name}: {_mb(st.st_size)}, larger than the {_mb(max_bytes)} a {what} may be")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise ReadRefused(f"{name}: cannot read it ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)  # what was opened, which may not be what was checked
        if not stat.S_ISREG(st.st_mode):
            raise ReadRefused(f"{name}: {file_kind(st.st_mode)}, not a {what} file; give a regular JSON file")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as e:
        raise ReadRefused(f"{name}: cannot read it ({e.strerror or e})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # it grew after the check
        raise ReadRefused(f"{name}: larger than the {_mb(max_bytes)} a {what} may be")
    return data


class _Number(ValueError):
    """A number we refuse while parsing (raised from inside json.loads)."""


def _no_constant(text: str):
    raise _Number(f"{text} is not a number JSON allows")


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise _Number(f"{text[:40]} is too large for a number")
    return x


def parse(text: str | bytes, name: str = "recording", max_depth: int = MAX_DEPTH, finite: bool = True):
    """json.loads, refusing deep nesting and (with `finite`) NaN/Infinity literals and overflowing
    numbers. Our own caches may hold Infinity (a result that did not match): finite=False."""
    hooks = {"parse_constant": _no_constant, "parse_float": _finite_float} if finite else {}
    if isinstance(text, bytes) and text[:2] == b"\x1f\x8b":  # gzip's magic number
        raise ReadRefused(f"{name}: gzip-compressed, not JSON: unzip it first (gunzip -k)")
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        doc = json.loads(text, **hooks)
    except RecursionError:
        raise ReadRefused(f"{name}: JSON nested deeper than {max_depth} levels") from None
    except UnicodeDecodeError as e:
        raise ReadRefused(f"{name}: not JSON, maybe truncated ({_one_line(e)})") from None
    except _Number as e:
        raise ReadRefused(f"{name}: {e}; a recording holds finite numbers only") from None
    except ValueError as e:  # JSONDecodeError, an int of more than 4300 digits
        raise ReadRefused(f"{name}: not JSON, maybe truncated ({_one_line(e)})") from None
    if depth(doc, max_depth) > max_depth:
        raise ReadRefused(f"{name}: JSON nested deeper than {max_depth} levels")
    return doc


def read_json(path: str | Path, what: str = "recording", max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH,
              finite: bool = True):
    """Read and parse `path` within the bounds above."""
    path = Path(path)
    return parse(read_bytes(path, max_bytes, what), path.name or str(path), max_depth, finite)


def depth(doc, stop: int = MAX_DEPTH) -> int:
    """How deep `doc` nests (a scalar is 0), without recursion; stops counting past `stop`."""
    deepest, todo = 0, [(doc, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, dict):
            x = x.values()
        elif not isinstance(x, list):
            continue
        deepest = max(deepest, d)
        if d > stop:
            return d
        todo.extend((v, d + 1) for v in x if isinstance(v, (dict, list)))
    return deepest


def check_numbers(doc, name: str = "recording", limit: float = MAX_MAGNITUDE) -> None:
    """Every number in `doc` finite and of magnitude below `limit`, else RecordingError naming the
    field. JSON Schema cannot say this: NaN compares false with every bound, so it passes them all."""
    todo = [(doc, ())]
    while todo:
        x, where = todo.pop()
        if isinstance(x, dict):
            todo.extend((v, where + (k,)) for k, v in x.items())
        elif isinstance(x, list):
            todo.extend((v, where + (i,)) for i, v in enumerate(x))
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            bad = (isinstance(x, float) and not math.isfinite(x)) or abs(x) >= limit
            if bad:
                field = ".".join(map(str, where)) or "top level"
                shown = (repr(x) if isinstance(x, float) or x.bit_length() < 200
                         else f"a number of about {int(x.bit_length() * 0.30103)} digits")
                raise RecordingError(f"{name}: {field}: {shown} is not a finite number below {limit:.3g}")


def _one_line(e) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 160 else text[:157] + "..."
