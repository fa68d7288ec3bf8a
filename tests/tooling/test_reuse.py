"""Reuse allowed: the licences say what they cover, CITATION.cff is valid and points at the course,
CONTRIBUTING.md holds what the README no longer does, and the README stays for learners."""

import re

import yaml

from tools import generated, manifest
from tools.manifest import ROOT


def test_each_licence_has_its_own_file_which_github_can_detect():
    """One file per licence, as d2l keeps them: GitHub's licence detection (licensee) reads `LICENSE` as MIT
    only when it holds MIT's text alone."""
    mit = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert mit.startswith("MIT License\n\nCopyright (c) 2026 The nn-embedding-course authors\n")
    assert "Permission is hereby granted, free of charge" in mit and mit.rstrip().endswith("SOFTWARE.")
    assert "Creative Commons" not in mit and len(mit) < 1200  # nothing but MIT's own words
    cc = (ROOT / "LICENSE-CC-BY-4.0").read_text(encoding="utf-8")
    assert cc.startswith("Attribution 4.0 International\n")
    for words in ("Creative Commons Attribution 4.0 International Public License", "Section 1 -- Definitions.",
                  "Section 8 -- Interpretation.", "Creative Commons may be contacted at creativecommons.org."):
        assert words in cc, words


def test_the_readmes_say_which_licence_covers_what():
    english = (ROOT / "README.md").read_text(encoding="utf-8")
    licences = (r"code is under the MIT License \(\[LICENSE\]\(LICENSE\)\); the prose, the notebooks' text and the "
                r"images are\s+under CC BY 4\.0 \(\[LICENSE-CC-BY-4\.0\]\(LICENSE-CC-BY-4\.0\)\)")
    assert re.search(licences, english)
    scope = english[english.index("## Reuse, citation and contributing"):]
    for covered in ("`utils/`", "`tools/`", "code cells", "markdown cells", "`images/`", "translation"):
        assert covered in scope, covered
    assert "](CITATION.cff)" in english and "](CONTRIBUTING.md)" in english
    chinese = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    assert "MIT" in chinese and "CC BY 4.0" in chinese
    for text in (english, chinese):
        for name in ("LICENSE", "LICENSE-CC-BY-4.0", "CHANGELOG.md", "CODE_OF_CONDUCT.md"):
            assert f"]({name})" in text, name


def test_the_citation_file_is_valid_and_points_at_the_course(check_jsonschema):
    path = ROOT / generated.CITATION
    check_jsonschema("vendor.citation-file-format", path)
    cff = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert cff["repository-code"] == manifest.repo_url() and cff["url"] == manifest.site_url()
    assert cff["license"] == ["MIT", "CC-BY-4.0"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", cff["version"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", str(cff["date-released"]))


def test_the_citation_addresses_are_written_by_sync():
    text = "cff-version: 1.2.0\nrepository-code: \"https://example.org/old\"\nurl: x\n"
    assert generated.sync_citation(text) == (f'cff-version: 1.2.0\nrepository-code: "{manifest.repo_url()}"\n'
                                             f'url: "{manifest.site_url()}"\n')
    try:
        generated.sync_citation("cff-version: 1.2.0\n")
    except ValueError as error:
        assert "CITATION.cff has no 'repository-code:' line" in str(error)
    else:
        raise AssertionError("a citation without its address lines was accepted")


def test_contributing_holds_the_maintainers_manual():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for heading in ("## Changing or adding a notebook", "## The Chinese edition", "## The test suite",
                    "### The browser tests", "## Other versions: oldest, Colab, newest", "## What CI runs"):
        assert heading in text, heading
    for command in ("python course.py execute", "tools.translations check", "test tests/unit",
                    "requirements-dev.txt"):
        assert command in text, command


def test_the_readme_is_for_learners():
    """Its first screen: title, introduction, the answer, how to start; then who it is for, the notebooks, the fine
    print, and how to run it on one's own machine; nothing for maintainers; read in about five minutes (issue 42: at
    most about 1,500 words; 1,315 as `wc -w` counts them when this cap was set)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[:4] == ["Who the course is for", "The notebooks", "The fine print", "Run it on your machine"]
    assert len(text.split()) <= 1_320, f"README.md has {len(text.split())} words: move detail to a page of its own"
    assert headings[-2:] == ["When something does not work", "Reuse, citation and contributing"]
    for maintainers in ("nbval", "tools.translations", "translations/", "make execute", "make lock", "tiers"):
        assert maintainers not in text, maintainers
    first_screen = text[:text.index("\n## ")]
    assert "Colab" in first_screen and "Binder" in first_screen
    start = text[text.index("## Run it on your machine"):text.index("## Going further")]
    for command in ("python3 course.py run", "python3 course.py test", "py course.py run", "py course.py test",
                    "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu"):
        assert command in start, command
    assert "environment.yml" in start
    assert "pip install -r requirements.txt" in start and "UV_TORCH_BACKEND=cu130 python3 course.py install" in start


def test_every_command_the_documents_offer_exists():
    """`course.py <command> [--option]`, `make <target>` and `python -m <module>` in the READMEs and
    CONTRIBUTING.md name commands, options, targets and modules that are there (and that run as programs)."""
    from tools import commands as table

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.search(r"^\.PHONY: (.*)$", makefile, re.M).group(1).split())
    _, parsers = table.parser()
    passed_on = {"lab": {"--port", "--no-browser"}, "check": {"--dev"}}  # JupyterLab's, utils.env_check's
    for name in ("README.md", "README.zh.md", "CONTRIBUTING.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        commands = re.findall(r"course\.py (\w+)((?: --?[\w-]+)*)", text)
        assert commands, name
        for command, flags in commands:
            assert command in table.COMMANDS, f"{name}: course.py {command}"
            own = {option for action in parsers[command]._actions for option in action.option_strings}
            for flag in flags.split():
                if flag.startswith("--") and command != "test":  # pytest's options pass through
                    assert flag in own | passed_on.get(command, set()), f"{name}: course.py {command} {flag}"
        for target in re.findall(r"`make (\w+)", text):
            assert target in targets, f"{name}: make {target}"
        for module in re.findall(r"python -m ((?:tools|utils)\b[.\w]*)", text):
            path = ROOT / module.replace(".", "/")  # a program, or a package run by its __main__
            assert (path / "__main__.py").is_file() or 'if __name__ == "__main__"' in path.with_suffix(".py").read_text(
                encoding="utf-8"), f"{name}: python -m {module}"
