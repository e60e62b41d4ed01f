"""The widget in a real browser: serve the app, open the page in headless Chromium, click a mode.

Runs with `make browser-test` (CI does), which installs playwright and uses Debian's Chromium
(/usr/bin/chromium); never `playwright install`. Skipped when either is missing.
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    env = dict(os.environ, STREAMLIT_SERVER_PORT=str(port), STREAMLIT_SERVER_HEADLESS="true",
               STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):  # up to a minute for the server to answer its health check
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("streamlit did not answer /_stcore/health within a minute")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


def test_widget_renders_and_switching_to_eager_shows_720_us(server, tmp_path):
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(server + "/Launch_overhead_killer?mode=graph", wait_until="networkidle")
        page.get_by_text("Side by side").wait_for(timeout=60_000)
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        metric = page.locator('[data-testid="stMetricValue"]').first
        assert metric.inner_text().strip() == "6.0 µs"  # textbook graph overhead: one launch
        page.locator('[data-testid="stRadio"]').get_by_text("eager", exact=True).click()
        page.locator('[data-testid="stMetricValue"]').filter(has_text="720 µs").first.wait_for(timeout=30_000)
        page.wait_for_url("**mode=eager**", timeout=30_000)
        page.screenshot(path=str(tmp_path / "widget.png"))
        browser.close()
