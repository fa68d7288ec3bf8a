"""Finding the browser for the browser tests, and when they skip or fail."""

import stat

import pytest

from tools import browser


def _executable(path):
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_environment_variable_wins(tmp_path):
    chrome = _executable(tmp_path / "my-chrome")
    assert browser.find_chromium({browser.CHROMIUM_ENV: str(chrome)}) == str(chrome)


def test_a_wrong_environment_variable_is_explained(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"COURSE_CHROMIUM='.*nothing' is not an executable file"):
        browser.find_chromium({browser.CHROMIUM_ENV: str(tmp_path / "nothing")})


def test_candidates_are_searched_on_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(browser, "CHROMIUM_CANDIDATES", ("chromium", "google-chrome"))
    assert browser.find_chromium({}) is None
    assert "no Chromium found (looked for chromium, google-chrome" in browser.unavailable_reason({})
    assert "apt-get install chromium" in browser.unavailable_reason({})
    chrome = _executable(tmp_path / "google-chrome")
    assert browser.find_chromium({}) == str(chrome)
    assert browser.unavailable_reason({}) is None


def test_launch_arguments_keep_the_browser_offline():
    for flag in ("--headless", "--no-sandbox", "--disable-background-networking", "--disable-component-update"):
        assert flag in browser.LAUNCH_ARGS


def test_without_a_browser_the_tests_skip_for_a_learner_and_fail_under_ci(monkeypatch):
    monkeypatch.setattr(browser, "find_chromium", lambda environ=None: None)
    action, reason = browser.verdict({})
    assert action == "skip" and reason.startswith("no Chromium found")
    for ci in ("true", "1", " Yes"):
        action, reason = browser.verdict({"CI": ci})
        assert action == "fail" and reason.startswith("the browser tests must run under CI, but no Chromium found")
    assert browser.verdict({"CI": "false"})[0] == "skip"
    monkeypatch.setattr(browser, "find_chromium", lambda environ=None: "/usr/bin/chromium")
    assert browser.verdict({"CI": "true"}) is None
