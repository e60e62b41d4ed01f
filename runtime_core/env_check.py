"""The documented environment variables, checked once at start: a junk value gives one line.

    live_setting()      -> (on, notice)        RUNTIME_LIVE: 1/true/yes/on, 0/false/no/off
    prebuild_setting()  -> (on, notice)        RUNTIME_PREBUILD_AOT: the same words; off by default
    queue_cap()         -> (cap, notice)       RUNTIME_QUEUE_CAP: a whole number, 1..1000
    gc_freeze()         -> (on, notice)        RUNTIME_GC_FREEZE: 1/true/yes/on, 0/false/no/off
    recordings_dir()    -> (folder, notice)    RUNTIME_RECORDINGS_DIR: an existing folder
    aot_cache_notice()  -> notice              RUNTIME_CORE_AOT_CACHE (cache_paths checks it)
    core_pin()          -> (mode, notice)      RUNTIME_CORE_PIN: middle or fastest (engine/cores.py)
    port_problem()      -> line or None        STREAMLIT_SERVER_PORT: 1..65535 (make run, before Streamlit)
    notices()           -> every notice above that applies, one line each (the pages' sidebar)
    cli_notices()       -> those of RUNTIME_RECORDINGS_DIR and RUNTIME_CORE_PIN (the CLI's stderr)

`python -m runtime_core.env_check` prints each notice on stderr and exits 2 when the app cannot
start (a junk port); the other values only say what the app uses instead. `make run` runs it first.
A notice quotes the value shortened and with repr(), so it is plain text wherever it is shown.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

LIVE_ENV, CAP_ENV, DIR_ENV, PORT_ENV = "RUNTIME_LIVE", "RUNTIME_QUEUE_CAP", "RUNTIME_RECORDINGS_DIR", "STREAMLIT_SERVER_PORT"
GC_ENV = "RUNTIME_GC_FREEZE"
LIVE_ON, LIVE_OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
PREBUILD_ENV = "RUNTIME_PREBUILD_AOT"
PIN_ENV, PIN_MODES = "RUNTIME_CORE_PIN", ("middle", "fastest")
DEFAULT_CAP, MAX_CAP = 8, 1000
SHIPPED_RECORDINGS = Path(__file__).resolve().parents[1] / "lessons" / "recordings"


def _quote(raw: str) -> str:
    return repr(raw if len(raw) <= 60 else raw[:57] + "...")


def _switch(name: str, default: bool, junk_means: str) -> tuple[bool, str | None]:
    """An on/off variable: unset or blank -> `default`; one of LIVE_ON / LIVE_OFF -> on / off; any
    other value -> off, with one line saying so (`junk_means`: what "off" means for this one)."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default, None
    v = raw.strip().lower()
    if v in LIVE_ON or v in LIVE_OFF:
        return v in LIVE_ON, None
    return False, f"{name}={_quote(raw)} is not one of {'/'.join(LIVE_ON)} or {'/'.join(LIVE_OFF)}: {junk_means}"


def live_setting() -> tuple[bool, str | None]:
    """Live measuring on (the default) or off. A value in neither list switches it off: an
    instructor who set the variable most likely meant to turn live measuring off."""
    return _switch(LIVE_ENV, True, "live measuring is off, the recorded numbers are shown")


def prebuild_setting() -> tuple[bool, str | None]:
    """The AOT prebuild at server start (aot/prebuild.py): off unless switched on. A value in
    neither list leaves it off (it costs minutes of CPU: it must be asked for)."""
    return _switch(PREBUILD_ENV, False, "the AOT packages are not prebuilt at server start")


def gc_freeze() -> tuple[bool, str | None]:
    """The server freezing its heap after a page's first imports (pages/ui/server_heap.py): on by
    default. A value in neither list switches it off, as for RUNTIME_LIVE."""
    return _switch(GC_ENV, True, "the server's heap is not frozen")


def queue_cap() -> tuple[int, str | None]:
    """How many live measurements may wait for the GPU (the running one included)."""
    raw = os.environ.get(CAP_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_CAP, None
    try:
        cap = int(raw.strip())
    except ValueError:
        cap = 0
    if 1 <= cap <= MAX_CAP:
        return cap, None
    return DEFAULT_CAP, (f"{CAP_ENV}={_quote(raw)} is not a whole number from 1 to {MAX_CAP}: "
                         f"the GPU's queue holds {DEFAULT_CAP}")


def recordings_dir() -> tuple[Path, str | None]:
    """The folder of recordings: $RUNTIME_RECORDINGS_DIR if it is a folder, else the shipped one."""
    raw = os.environ.get(DIR_ENV)
    if raw is None:
        return SHIPPED_RECORDINGS, None
    if raw.strip() and Path(raw).is_dir():
        return Path(raw), None
    why = "is set but empty" if not raw.strip() else "is not a folder"
    return SHIPPED_RECORDINGS, f"{DIR_ENV}={_quote(raw)} {why}: the shipped recordings are shown"


def aot_cache_notice() -> str | None:
    """cache_paths' own check of RUNTIME_CORE_AOT_CACHE, without creating anything."""
    from .cache_paths import ENV, _parse, forbidden_reason
    from .errors import UsageError
    raw = os.environ.get(ENV)
    if raw is None:
        return None
    try:
        why = forbidden_reason(_parse(raw))
    except UsageError as e:
        return f"{e}; the AOT pages will not compile or cache"
    return f"{ENV}={_quote(raw)} cannot be the AOT cache: {why}; the AOT pages will not compile or cache" if why else None


def core_pin() -> tuple[str, str | None]:
    """Which core timings run on (engine/cores.py): "middle" (the default) or "fastest". Any other
    value times on the middle core, with one line saying so."""
    raw = os.environ.get(PIN_ENV)
    if raw is None or not raw.strip():
        return PIN_MODES[0], None
    if raw.strip().lower() in PIN_MODES:
        return raw.strip().lower(), None
    return PIN_MODES[0], f"{PIN_ENV}={_quote(raw)} is not one of {'/'.join(PIN_MODES)}: timings run on the middle core"


def port_problem() -> str | None:
    raw = os.environ.get(PORT_ENV)
    if raw is None or raw == "":
        return None
    try:
        port = int(raw.strip())
    except ValueError:
        port = -1
    if 1 <= port <= 65535:
        return None
    return f"{PORT_ENV}={_quote(raw)} is not a port: give a whole number from 1 to 65535 (or unset it for 8501)"


def cli_notices() -> list[str]:
    """The notices of the variables the command line reads and would otherwise replace in silence
    (the recordings' folder, the timing core): `python -m runtime_core` names each on stderr, as
    the pages do. (A junk RUNTIME_CORE_AOT_CACHE needs no note: the aot commands refuse it.)"""
    return [n for n in (recordings_dir()[1], core_pin()[1]) if n]


def notices() -> list[str]:
    """One line for each documented variable holding a value the app does not use as given."""
    out = [live_setting()[1], prebuild_setting()[1], queue_cap()[1], gc_freeze()[1], recordings_dir()[1], aot_cache_notice(),
           core_pin()[1]]
    return [n for n in out if n]


def main() -> int:
    fatal = port_problem()
    for line in notices():
        print(f"runtime_core: note: {line}", file=sys.stderr)
    if fatal:
        print(f"runtime_core: error: {fatal}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
