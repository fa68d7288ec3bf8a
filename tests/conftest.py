"""Fixtures shared by the browser tests (JupyterLab and the static site)."""

import pytest

from utils import browser as course_browser
from utils.course import ROOT

SCREENSHOTS = ROOT / "build" / "screenshots"


def require_browser():
    """Skip (on a learner's machine) or fail (under CI) when the browser tests cannot run."""
    reason = course_browser.unavailable_reason()
    if reason is None:
        return
    if course_browser.running_under_ci():
        pytest.fail(f"the browser tests must run under CI, but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium():
    """Headless Chromium driven by Playwright; one per test module, always closed."""
    require_browser()
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = course_browser.launch(playwright)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@pytest.fixture(scope="session")
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
