"""Find and start the Chromium that the browser tests drive (with Playwright).

The tests use the system's Chromium (Debian: ``apt-get install chromium``), never a
browser that Playwright downloads. :func:`unavailable_reason` says why the browser
tests cannot run here (they skip with that reason, or fail under CI).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

#: Set this to a Chromium or Chrome executable to use instead of the default search.
CHROMIUM_ENV = "COURSE_CHROMIUM"
#: Searched in order: Debian's path first, then these names on PATH.
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Headless, no sandbox (containers, root), and nothing that talks to Google's servers.
LAUNCH_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
)


def find_chromium(environ: dict[str, str] | None = None) -> str | None:
    """The Chromium executable to drive, or None: ``$COURSE_CHROMIUM`` when set (it must then name an
    executable file), else the first of :data:`CHROMIUM_CANDIDATES` found."""
    chosen = (os.environ if environ is None else environ).get(CHROMIUM_ENV)
    if chosen and not (Path(chosen).is_file() and os.access(chosen, os.X_OK)):
        raise FileNotFoundError(f"{CHROMIUM_ENV}={chosen!r} is not an executable file; unset it or point it at "
                                "a Chromium or Chrome executable")
    return chosen or next(filter(None, map(shutil.which, CHROMIUM_CANDIDATES)), None)


def unavailable_reason(environ: dict[str, str] | None = None) -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "the Python package playwright is missing (pip install -r requirements.txt -c constraints.txt)"
    if find_chromium(environ) is None:
        return (f"no Chromium found (looked for {', '.join(CHROMIUM_CANDIDATES)}; or set {CHROMIUM_ENV}). "
                "Install it with `sudo apt-get install chromium` (Debian/Ubuntu); never `playwright install`")
    return None


def verdict(environ: dict[str, str] | None = None) -> tuple[str, str] | None:
    """None when the browser tests can run; else ``("skip", reason)`` on a learner's machine or, under CI
    (``$CI`` set to a true value; CI must prove the course in a real browser), ``("fail", reason)``."""
    reason = unavailable_reason(environ)
    if reason is None:
        return None
    under_ci = (os.environ if environ is None else environ).get("CI", "").strip().lower() in {"1", "true", "yes"}
    return ("fail", f"the browser tests must run under CI, but {reason}") if under_ci else ("skip", reason)


def launch(playwright, executable: str | None = None):
    """Start headless Chromium through a started Playwright (``sync_playwright().start()``)."""
    executable = executable or find_chromium()
    if executable is None:
        raise FileNotFoundError(unavailable_reason() or "no Chromium found")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=list(LAUNCH_ARGS))
