"""Write a file so that a reader, a crash or a SIGKILL mid-write sees the old file or the new one.

    write_bytes(path, data)            bytes through a temporary file in the same folder, fsync, rename
    write_text(path, text)             the same for text (UTF-8)
    write_json(path, obj)              the same for JSON
    publish(tmp, path)                 rename a finished temporary file (say a compiler's output) into place
    temp_path(path)                    a fresh temporary name next to `path`, unique per process and thread

The temporary file lives in the target's folder, so the final os.replace is a rename within one
file system (atomic on POSIX). Its name starts with "." and ends in ".tmp", so nothing takes it
for the real file; a writer killed before the rename leaves only such a file behind.
`overwrite=False` refuses to replace an existing file, atomically too: the finished temporary
file is hard-linked to the target name, which fails if that name exists.
"""
from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
from pathlib import Path

from .errors import UsageError

TMP_SUFFIX = ".tmp"


def _default_mode() -> int:
    """0o666 less the umask. Linux shows the umask in /proc; elsewhere it can only be read by
    setting it (briefly 0 for the whole process, so that is the fallback, done once at import)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


DEFAULT_MODE = _default_mode()  # what open() would give a new file; mkstemp's own is 0600


def temp_path(path: str | Path, suffix: str = "") -> Path:
    """A temporary name beside `path`: ".<name>.<pid>-<thread id>-<random>.tmp<suffix>" (not
    created). `suffix` is for tools that insist on one (AOTInductor wants ".pt2").

    The process id and the thread id are in the name because every Streamlit session is a
    thread of one process: a name made from the pid alone is shared by all of them.
    """
    path = Path(path)
    token = secrets.token_hex(4)
    return path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}-{token}{TMP_SUFFIX}{suffix}")


def write_bytes(path: str | Path, data: bytes, mode: int | None = None, overwrite: bool = True) -> Path:
    """Write `data` to `path` atomically. `mode` defaults to the existing file's mode, else to
    what open() would give a new file.

    Raises:
        UsageError: `overwrite` is False and `path` exists (it is left as it was).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        publish(tmp, path, mode=mode, overwrite=overwrite)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | Path, text: str, **kw) -> Path:
    return write_bytes(path, text.encode("utf-8"), **kw)


def write_json(path: str | Path, obj, indent: int | None = 1, **kw) -> Path:
    return write_text(path, json.dumps(obj, indent=indent, default=str), **kw)


def publish(tmp: str | Path, path: str | Path, mode: int | None = None, overwrite: bool = True) -> Path:
    """Give the finished file `tmp` its mode, then rename it to `path` (same folder).

    The mode is set before the rename, so the name never points at a file without it (an
    executable never appears without its execute bit).
    """
    tmp, path = Path(tmp), Path(path)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = DEFAULT_MODE
    os.chmod(tmp, mode)
    if overwrite:
        os.replace(tmp, path)
    else:
        try:
            os.link(tmp, path)  # fails if `path` exists: no clobbering, even in a race
        except FileExistsError:
            raise UsageError(f"{path} exists; pass --force to replace it") from None
        finally:
            tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
    return path


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (a power cut, not a kill, could otherwise lose it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
