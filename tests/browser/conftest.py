"""The browser tests' setup: the app served once, one headless Chromium, one browser context per
screen size, and the folder the screenshots go to.

Runs with `make browser-test` (CI does), with Debian's Chromium (/usr/bin/chromium); never
`playwright install`. Skipped when playwright or Chromium is missing.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from screen_checks import SIZES

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
SHOTS_DIR = Path(os.environ.get("BROWSER_SHOTS_DIR") or ROOT / "tests" / "browser" / "artifacts")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Name the screenshots' folder last, so CI's log says where to find them."""
    if SHOTS_DIR.exists() and any(SHOTS_DIR.rglob("*.png")):
        terminalreporter.write_line(f"browser screenshots: {SHOTS_DIR}")


@pytest.fixture(scope="session")
def playwright_api():
    api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    return api


@contextlib.contextmanager
def serve(extra_env: dict | None = None, log_name: str = "streamlit.log"):
    """The app served on a free port (headless, no usage statistics), with `extra_env` set for it;
    yields its URL. The server's output goes to `log_name` beside the screenshots."""
    port = _free_port()
    env = dict(os.environ, STREAMLIT_SERVER_PORT=str(port), STREAMLIT_SERVER_HEADLESS="true",
               STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", **(extra_env or {}))
    SHOTS_DIR.mkdir(parents=True, exist_ok=True)
    log = open(SHOTS_DIR / log_name, "w")  # the server's output, kept with the screenshots
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py"], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):  # up to a minute for the server to answer its health check
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("streamlit did not answer /_stcore/health within a minute")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def server(playwright_api):
    """The app, served once for every browser test."""
    with serve() as url:
        yield url


@pytest.fixture(scope="session")
def browser(playwright_api):
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def page_at(browser):
    """page_at("400x900"): one tab per screen size, opened on first use and reused after."""
    tabs = {}

    def get(size: str):
        if size not in tabs:
            ctx = browser.new_context(**SIZES[size])
            ctx.set_default_timeout(60_000)
            tabs[size] = ctx.new_page()
        return tabs[size]

    yield get
    for tab in tabs.values():
        tab.context.close()


@pytest.fixture(scope="session")
def shots_dir() -> Path:
    SHOTS_DIR.mkdir(parents=True, exist_ok=True)
    return SHOTS_DIR
