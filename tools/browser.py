"""The Chromium the browser tests drive: the system's (Debian: ``apt-get install chromium``), never a
browser that Playwright downloads. pytest-playwright launches it (tests/conftest.py's ``browser_type_launch_args``).
"""

import os
import shutil
from pathlib import Path

import pytest

#: Set this to a Chromium or Chrome executable to use instead of the default search.
CHROMIUM_ENV = "COURSE_CHROMIUM"
#: Searched in order: Debian's path first, then these names on PATH.
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: No sandbox (containers, root), and nothing that talks to Google's servers (headless is Playwright's default).
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run", "--disable-quic"]


def find_chromium(environ) -> str:
    """``$COURSE_CHROMIUM`` (an executable file) when set, else the first of :data:`CHROMIUM_CANDIDATES` found.
    Without one the browser tests skip, or, under CI (which must prove the course in a real browser), fail."""
    chosen = environ.get(CHROMIUM_ENV)
    if chosen and not (Path(chosen).is_file() and os.access(chosen, os.X_OK)):
        raise FileNotFoundError(f"{CHROMIUM_ENV}={chosen!r} is not an executable file; unset it or point it at "
                                "a Chromium or Chrome executable")
    if found := chosen or next(filter(None, map(shutil.which, CHROMIUM_CANDIDATES)), None):
        return found
    reason = (f"no Chromium found (looked for {', '.join(CHROMIUM_CANDIDATES)}; or set {CHROMIUM_ENV}). Install it "
              "with `sudo apt-get install chromium` (Debian/Ubuntu); never `playwright install`")
    if environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
        pytest.fail(f"the browser tests must run under CI, but {reason}", pytrace=False)
    pytest.skip(reason)
