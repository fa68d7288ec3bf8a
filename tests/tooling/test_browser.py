"""Finding the browser for the browser tests (tools/browser.py), and when they skip or fail."""

import os
import stat

import pytest

from tools.browser import CHROMIUM_ENV, LAUNCH_ARGS, find_chromium


def _executable(path):
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_environment_variable_wins(tmp_path):
    chrome = _executable(tmp_path / "my-chrome")
    assert find_chromium({CHROMIUM_ENV: str(chrome)}) == str(chrome)


def test_a_wrong_environment_variable_is_explained(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"COURSE_CHROMIUM='.*nothing' is not an executable file"):
        find_chromium({CHROMIUM_ENV: str(tmp_path / "nothing")})


def test_candidates_are_searched_on_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("tools.browser.CHROMIUM_CANDIDATES", ("chromium", "google-chrome"))
    with pytest.raises(pytest.skip.Exception) as skipped:
        find_chromium({})
    assert "no Chromium found (looked for chromium, google-chrome" in str(skipped.value)
    assert "apt-get install chromium" in str(skipped.value)
    chrome = _executable(tmp_path / "google-chrome")
    assert find_chromium({}) == str(chrome)


def test_launch_arguments_keep_the_browser_offline():
    for flag in ("--no-sandbox", "--disable-background-networking", "--disable-component-update"):
        assert flag in LAUNCH_ARGS


def test_without_a_browser_the_tests_skip_for_a_learner_and_fail_under_ci(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("tools.browser.CHROMIUM_CANDIDATES", ("chromium",))
    for environ in ({}, {"CI": "false"}):
        with pytest.raises(pytest.skip.Exception, match="^no Chromium found"):
            find_chromium(environ)
    for ci in ("true", "1", " Yes"):
        with pytest.raises(pytest.fail.Exception, match="^the browser tests must run under CI, but no Chromium found"):
            find_chromium({"CI": ci})
    _executable(tmp_path / "chromium")
    assert find_chromium({"CI": "true"}) == str(tmp_path / "chromium")


def test_pytest_playwright_launches_the_system_chromium(browser_type_launch_args):
    assert browser_type_launch_args["executable_path"] == find_chromium(os.environ)
    assert browser_type_launch_args["args"] == LAUNCH_ARGS and "channel" not in browser_type_launch_args
