"""Write a file so that a reader, a crash or a SIGKILL mid-write sees the old file or the new one.

    write_bytes(path, data)            bytes through a temporary file in the same folder, fsync, rename
    write_text(path, text)             the same for text (UTF-8)
    write_json(path, obj)              the same for JSON
    publish(tmp, path)                 rename a finished temporary file (say a compiler's output) into place
    temp_path(path)                    a fresh temporary name next to `path`, unique per process and thread
    check_target(path, force)          refuse, before any work, a path that could not be written

The temporary file lives in the target's folder, so the final os.replace is a rename within one
file system (atomic on POSIX). Its name starts with "." and ends in ".tmp", so nothing takes it
for the real file; a writer killed before the rename leaves only such a file behind.
`overwrite=False` refuses to replace an existing file, atomically too: the finished temporary
file is hard-linked to the target name, which fails if that name exists.
"""
from __future__ import annotations

import errno
import json
import os
import secrets
import stat
import tempfile
import threading
from pathlib import Path

from .errors import UsageError
from .safe_read import file_kind

TMP_SUFFIX = ".tmp"
TEMP_EXTRA = len("..") + 8 + len(TMP_SUFFIX)  # write_bytes' temporary name: ".<name>.XXXXXXXX.tmp"
NAME_MAX, PATH_MAX = 255, 4096  # Linux's; pathconf() asks the folder's file system where it can
# the errors a full, read-only or forbidden disk gives a writer: one line, not a traceback
DISK_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG,
               errno.ENAMETOOLONG, errno.EIO,
               errno.ENOENT}  # a folder that takes no new files (/proc), or one removed while writing


class WriteFailed(UsageError):
    """The disk refused a write (full, read-only, forbidden); the old file, if any, is unchanged."""


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

    A symbolic link is written through: the file it points to is replaced, and the link stays
    (renaming over the link replaced the link with a file and left its target as it was).
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
        try:
            try:
                view = memoryview(data)
                while view:  # os.write, not a buffered file: a short write is finished, an error seen
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            publish(tmp, path, mode=mode, overwrite=overwrite)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        if e.errno not in DISK_ERRORS:
            raise
        kept = "the old file is unchanged" if path.exists() else "nothing was written"
        raise WriteFailed(f"{path}: cannot write it ({e.strerror or e}); {kept}") from None
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


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return NAME_MAX


def _short(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 100 else f"{text[:60]}...{text[-30:]}"


def check_target(path: str | Path, force: bool = False) -> Path:
    """Refuse, before any work, an output path that a writer of this module could not use:
    a name too long (each component, and the file's name with its temporary suffix), a folder
    missing or not writable, a folder or a FIFO or a device at the path, a dangling symlink, or
    an existing file without `force`. UsageError, one line naming the path."""
    path = Path(path)
    if not path.name:
        raise UsageError(f"{path}: give a file path such as ./recording.json")
    parent = path.parent if str(path.parent) else Path(".")
    limit = _name_max(parent) if parent.is_dir() else NAME_MAX
    for part in path.parts:
        n = len(os.fsencode(part))
        if n > limit:
            raise UsageError(f"{_short(path)}: the name {part[:24]}... is {n} bytes; a file system allows {limit}")
    n = len(os.fsencode(path.name))
    if n + TEMP_EXTRA > limit:
        raise UsageError(f"{_short(path)}: the file name is {n} bytes; at most {limit - TEMP_EXTRA} fit "
                         f"(its temporary file adds {TEMP_EXTRA} to the {limit} a file system allows)")
    if len(os.fsencode(os.path.abspath(path))) + TEMP_EXTRA >= PATH_MAX:
        raise UsageError(f"{_short(path)}: the path is longer than the {PATH_MAX} bytes a file system allows")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:  # a path under a file (ENOTDIR), a symlink loop
        raise UsageError(f"{path}: cannot write there ({e.strerror or e})") from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(path)
        except OSError:
            raise UsageError(f"{path} is a symlink to nothing (dangling); give another path") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{path} is a directory; give a file path such as {path}/recording.json")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path} is {file_kind(st.st_mode)}, not a file; give a regular file path")
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise UsageError(f"{path}: the folder {parent} does not exist or is not writable")
    if st is not None and not force:
        raise UsageError(f"{path} exists; pass --force to replace it")
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
