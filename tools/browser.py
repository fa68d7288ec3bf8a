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
    """The Chromium executable to drive, or None if there is none.

    ``$COURSE_CHROMIUM`` wins when set (it must then name an executable file);
    otherwise the first of :data:`CHROMIUM_CANDIDATES` found.
    """
    environ = os.environ if environ is None else environ
    chosen = environ.get(CHROMIUM_ENV)
    if chosen:
        path = Path(chosen)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise FileNotFoundError(f"{CHROMIUM_ENV}={chosen!r} is not an executable file; unset it or point it at "
                                    "a Chromium or Chrome executable")
        return str(path)
    for candidate in CHROMIUM_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def unavailable_reason(environ: dict[str, str] | None = None) -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "the Python package playwright is missing (pip install -r requirements.txt -c constraints.txt)"
    if find_chromium(environ) is None:
        names = ", ".join(CHROMIUM_CANDIDATES)
        return (f"no Chromium found (looked for {names}; or set {CHROMIUM_ENV}). "
                "Install it with `sudo apt-get install chromium` (Debian/Ubuntu); never `playwright install`")
    return None


def running_under_ci(environ: dict[str, str] | None = None) -> bool:
    """True when ``$CI`` is set to a true value (CI services set CI=true)."""
    environ = os.environ if environ is None else environ
    return environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def verdict(environ: dict[str, str] | None = None) -> tuple[str, str] | None:
    """None when the browser tests can run; else ``("skip", reason)`` or, under CI, ``("fail", reason)``.

    On a learner's machine a missing browser skips the browser tests (with the reason);
    under CI it fails them: CI must prove the course in a real browser.
    """
    reason = unavailable_reason(environ)
    if reason is None:
        return None
    if running_under_ci(environ):
        return "fail", f"the browser tests must run under CI, but {reason}"
    return "skip", reason


def launch(playwright, executable: str | None = None):
    """Start headless Chromium through a started Playwright (``sync_playwright().start()``)."""
    executable = executable or find_chromium()
    if executable is None:
        raise FileNotFoundError(unavailable_reason() or "no Chromium found")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=list(LAUNCH_ARGS))
