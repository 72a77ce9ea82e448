"""Headless Debian Chromium for the browser tests (`make test-site` installs it when missing).

The tests install nothing: they drive /usr/bin/chromium through /usr/bin/chromedriver with
Selenium, never through a downloaded browser or Selenium Manager.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from lab_server import PATIENCE
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
# Where the tests leave a screenshot of every page they open.
SCREENSHOTS = Path(os.environ.get("SITE_SCREENSHOTS", ROOT / "build" / "site-screenshots"))

# The flags headless Chromium needs here: as root (no sandbox), no GPU, and no background
# connections, which a closed network refuses.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
]


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The screenshot folder, emptied of an earlier run's pictures."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()
    return SCREENSHOTS


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], webdriver.Chrome]]:
    """A factory of headless Chromium sessions, each with a fresh profile; all quit at the end."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.is_file():
            pytest.fail(f"{path} is missing: `make test-site` installs Debian's {package}")
    drivers: list[webdriver.Chrome] = []

    def start() -> webdriver.Chrome:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        profile = tmp_path_factory.mktemp("chromium-profile")
        for flag in [*FLAGS, f"--user-data-dir={profile}"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
        driver.set_page_load_timeout(PATIENCE)
        drivers.append(driver)
        return driver

    yield start
    for driver in drivers:
        driver.quit()
