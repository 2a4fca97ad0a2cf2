"""The web page in real headless Chromium (Debian's chromium + chromedriver, driven by Selenium) against the
real app served by uvicorn on a free loopback port, over a small real store: one CC BY PDF, 40 real arXiv
records of the demo corpus (tagged by the topic assigner, as the demo load does: 16 of the 40 with its topic),
one record whose title is markup, and the demo topic's cited overview."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant.overview import OverviewService
from ingest.service import ingest_papers
from ingest.sources import arxiv_papers, pdf_papers
from papertalk.demo import DEMO_TOPIC
from papertalk.settings import Settings
from storage.store import Store
from storage.topics import slugify
from tests.conftest import S2ORC_PDF, demo_records

CHROMIUM = os.environ.get("WEB_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("WEB_CHROMEDRIVER", "/usr/bin/chromedriver")
HOSTILE_ID = "2401.99999"
HOSTILE_TITLE = "Agents <script>alert(1)</script> that <b>plan</b>"


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (scripts/test.sh installs the dev extra)"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).exists() or shutil.which(path)):
            return f"{path} is missing: scripts/test.sh installs Debian's chromium and chromium-driver when run as root"
    return None


def hostile_record() -> dict[str, Any]:
    record = dict(demo_records(1)[0])
    record.update(id=HOSTILE_ID, title=HOSTILE_TITLE, abstract="An abstract with <img src=x onerror=alert(2)> inside.")
    return record


@pytest.fixture(scope="session")
def web_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("web")
    given = os.environ.get("WEB_DATA_DIR")  # another store (scripts/screenshots.sh: the full demo), copied
    if given:
        shutil.copytree(given, root / "data")
        return root / "data"
    records = root / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in [*demo_records(40), hostile_record()]))
    store = Store(Settings(_env_file=None, data_dir=root / "data"))  # type: ignore[call-arg]
    assert not ingest_papers(store, pdf_papers([S2ORC_PDF])).failed  # as the demo load: the assigner tags papers
    assert not ingest_papers(store, arxiv_papers(records)).failed
    assert len(store.topics.paper_ids(slugify(DEMO_TOPIC))) >= 10  # a page of latest papers
    OverviewService(store).build(DEMO_TOPIC)  # the topic page shows its cited overview
    store.close()
    return root / "data"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server(web_data: Path) -> Iterator[str]:
    """The real app over `web_data`, served by uvicorn in a thread; yields its base address."""
    yield from serve(web_data)


def serve(data_dir: Path) -> Iterator[str]:
    """The real app over `data_dir`, served by uvicorn in a thread; yields its base address."""
    import uvicorn

    from api.app import create_app

    app = create_app(Settings(_env_file=None, data_dir=data_dir))  # type: ignore[call-arg]
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def make_driver(width: int = 1280, height: int = 900) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


@pytest.fixture(scope="session")
def browser(server: str) -> Iterator[Any]:
    driver = make_driver()
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def shots() -> Path | None:
    """Where to save screenshots: WEB_SCREENSHOTS (e.g. docs/screenshots), or nowhere."""
    where = os.environ.get("WEB_SCREENSHOTS")
    if not where:
        return None
    path = Path(where).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path
