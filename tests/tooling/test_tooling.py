"""Lint, workflow schemas and the CI entry point."""

import os
import subprocess
import sys

import pytest

from tools import manifest
from tools.manifest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True)


def test_ruff_passes_on_the_entry_point_utils_tools_tests_and_notebooks():
    result = _run("ruff", "check", "--no-cache", "course.py", "utils", "tools", "tests", "notebooks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_catches_a_comparison_that_is_never_asserted(tmp_path):
    """B015 is on: `x == y` as a statement checks nothing."""
    sample = tmp_path / "sample.py"
    sample.write_text("def check(x):\n    x == 1\n")
    result = _run("ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(sample))
    assert result.returncode == 1 and "B015" in result.stdout, result.stdout


def test_there_are_workflows():
    names = {path.name for path in WORKFLOWS}
    assert {"ci.yml", "gpu.yml", "platforms.yml", "pages.yml"} <= names


def test_the_workflows_validate_against_the_github_actions_schema(check_jsonschema):
    check_jsonschema("vendor.github-workflows", *WORKFLOWS)  # one call for every file: the report names the one


def test_a_file_that_breaks_its_schema_fails_the_check(check_jsonschema):
    with pytest.raises(AssertionError, match=r"CITATION\.cff::\$: 'body' is a required property"):
        check_jsonschema("vendor.github-issue-forms", ROOT / "CITATION.cff")


def test_the_bug_report_form_validates_and_asks_where_the_course_ran(check_jsonschema):
    form = ROOT / ".github" / "ISSUE_TEMPLATE" / "bug_report.yml"
    check_jsonschema("vendor.github-issue-forms", form)
    text = form.read_text()
    assert "Google Colab" in text and "Operating system" in text and "utils.env_check" in text


def test_ci_entry_point_runs_the_test_command():
    script = ROOT / ".ci" / "run"
    assert os.access(script, os.X_OK), ".ci/run must be executable"
    lines = [line.strip() for line in script.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert "set -euo pipefail" in lines
    assert lines[-1] == "python3 course.py test"


def test_ci_entry_point_installs_the_browser_before_make_test():
    """Under CI the browser tests fail without Chromium: .ci/run installs it (make test never runs apt)."""
    from tools.browser import CHROMIUM_CANDIDATES

    script = (ROOT / ".ci" / "run").read_text()
    install = script.index("apt-get install -y -q chromium")
    assert install < script.rindex("course.py test")
    for candidate in CHROMIUM_CANDIDATES:  # it looks for the browser where the tests look
        assert f"command -v {candidate.rsplit('/', 1)[-1]} " in script
    makefile = (ROOT / "Makefile").read_text() + (ROOT / "course.py").read_text()
    assert "apt-get" not in makefile and "playwright install" not in makefile + script


def test_the_makefile_is_one_line_wrappers_of_course_py():
    import re

    text = (ROOT / "Makefile").read_text()
    phony = set(re.search(r"^\.PHONY: (.*)$", text, re.M).group(1).split())
    recipes = dict(re.findall(r"^([a-z]+): ; (.*)$", text, re.M))
    assert set(recipes) == phony and {"run", "test", "lab", "practice", "site"} <= phony
    for target, recipe in recipes.items():
        command = "install" if target == "install" else target
        assert recipe.startswith(f"$(COURSE) {command}"), f"make {target}: {recipe}"
    assert re.search(r"^COURSE = \$\(PYTHON\) course\.py ", text, re.M)
    assert "PYTHON ?= py -3" in text  # Windows: the launcher, never the Microsoft Store's python3 alias
    for word in ("test -x", "touch", "python -c", "/bin/"):  # what cmd.exe breaks, and POSIX venv paths
        assert word not in text, word


def _workflow(name):
    import yaml

    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())


def test_windows_and_macos_run_the_course_and_the_unit_tier():
    job = _workflow("platforms.yml")["jobs"]["course"]
    assert job["strategy"]["matrix"]["os"] == ["windows-latest", "macos-latest"]
    runs = [step.get("run", "") for step in job["steps"]]
    assert "python course.py run" in runs and "python course.py test tests/unit" in runs
    nbval = next(step for step in job["steps"] if step.get("run") == "python course.py test notebooks")
    assert nbval["if"] == "runner.os == 'macOS'"  # the stored outputs against ARM's CPU kernels
    assert not any("make " in run or ".venv/bin" in run for run in runs)  # neither exists on Windows


def test_the_site_is_published_from_main_with_the_practice_branch():
    workflow = _workflow("pages.yml")
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"]
    assert {"pages": "write", "id-token": "write", "contents": "write"} == workflow["permissions"]
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    runs = [step.get("run", "") for step in build["steps"]]
    assert "python course.py site" in runs and any("-m tools practice --branch build/practice-branch" in run
                                                    for run in runs)
    push = next(step for step in workflow["jobs"]["build"]["steps"] if "actions-gh-pages" in step.get("uses", ""))
    assert push["with"]["publish_dir"] == "build/practice-branch" and push["with"]["force_orphan"] is True
    assert push["with"]["publish_branch"].split("#")[0].strip() == manifest.PRACTICE_REF
    upload = next(step for step in build["steps"] if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "build/site"
    assert deploy["needs"] == "build" and deploy["steps"][0]["uses"].startswith("actions/deploy-pages")
