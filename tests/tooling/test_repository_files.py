"""What a learner and an instructor look for in a course repository, each where they look for it (issue 34):
the first screen of the README, who the course is for and how long each notebook takes to read, PyTorch's
pages and further reading, a version and a changelog that agree, a code of conduct, a question form
beside the bug form, and a way into the command-line programs that PowerShell's default policy allows."""

import json
import re

import yaml

from tools import generated, manifest
from tools.manifest import NOTEBOOKS, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
README_ZH = (ROOT / "README.zh.md").read_text(encoding="utf-8")


def _section(text, heading):
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def test_the_first_screen_says_what_this_is_and_how_to_start():
    """The verdict first, right under the title and the other edition's link; then the answer's example in one
    picture, with a sentence; then the Start block (generated), in both editions: one line and a list of the three
    ways in, before the first `##` section."""
    for text in (README, README_ZH):
        above = text[:text.index(generated.ANSWER.start)].strip().split("\n\n")
        assert len(above) == 2 and above[0].startswith("# "), above  # the title, the other edition's link
        after = text[text.index(generated.ANSWER.end) + len(generated.ANSWER.end):]
        first_screen = after[:after.index("\n## ")].strip().split("\n\n")
        assert len(first_screen) == 3, first_screen  # the picture's sentence, the picture, the Start paragraph
        sentence, picture, start = first_screen
        assert "id 2" in sentence and len(sentence.splitlines()) <= 3, sentence
        assert picture.startswith("![") and picture.endswith("(images/one_hot_product.png)"), picture
        assert start.startswith(generated.START.start) and start.endswith(generated.START.end), start
        start = generated.START.pattern.search(start).group(1)
        intro, *routes = start.splitlines()
        assert intro.startswith("**") and len(routes) == 3 and all(r.startswith("- ") for r in routes), start
        for route, words in zip(routes, (("Colab",), ("git clone", "course.py lab", "py course.py lab", "Jupyter"),
                                         ("Binder",)), strict=True):
            assert all(word in route for word in words), (route, words)


def test_the_start_paragraph_links_notebook_0_from_the_manifest():
    """Its addresses are written by sync from the manifest's REPO_SLUG, never by hand."""
    for text, edition in ((README, manifest.ENGLISH), (README_ZH, manifest.CHINESE)):
        start = generated.START.pattern.search(text).group(1)
        assert start == generated.readme_start(edition)
        assert f"({NOTEBOOKS[0].in_edition(edition.code).colab_url})" in start
        assert f"({manifest.binder_url(edition.repo_dir)})" in start


def _reading_minutes(entry):
    """(the lesson and its exercises, Going deeper), in minutes: prose at 200 words a minute, code at 10
    lines a minute (blank lines left out, comments counted), the cells that sync writes left out."""
    cells = json.loads(entry.path.read_text(encoding="utf-8"))["cells"]
    words, lines, part = [0, 0], [0, 0], 0
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and source.startswith("## Going deeper"):
            part = 1
        if any(word in cell.get("id", "") for word in ("course-setup", "header", "footer", "nav")):
            continue
        if cell["cell_type"] == "markdown":
            words[part] += len(re.findall(r"\w+", re.sub(r"\(http[^)]*\)|`[^`]*`|\$[^$]*\$", " x ", source)))
        else:
            code = [line.strip() for line in source.splitlines()]
            lines[part] += len([line for line in code if line and not line.startswith(("#@", "### "))])
    return [words[i] / 200 + lines[i] / 10 for i in (0, 1)]


def test_the_reading_times_are_the_notebooks_lengths():
    """Each time in the table of notebooks is within 5 minutes of an estimate from the notebook as it is now (sync
    writes them; the estimate here is counted on its own), and the section says how they are counted."""
    section = _section(README, "The notebooks")
    table = generated.TABLE.pattern.search(section).group(1)
    rows = {int(n): (int(lesson), int(deeper or 0)) for n, lesson, deeper in
            re.findall(r"^\| (\d+) \| .*? \| (\d+)(?: \+ (\d+))? min \|", table, re.M)}
    assert sorted(rows) == [entry.number for entry in NOTEBOOKS]
    for entry in NOTEBOOKS:
        lesson, deeper = _reading_minutes(entry)
        stated_lesson, stated_deeper = rows[entry.number]
        assert abs(stated_lesson - lesson) <= 5, (entry.number, lesson)
        assert (stated_deeper == 0) == (deeper == 0), (entry.number, deeper)
        assert abs(stated_deeper - deeper) <= 5, (entry.number, deeper)
    prose = " ".join(section.split())
    assert f"{generated.WORDS_A_MINUTE} words a minute" in prose
    assert f"{generated.LINES_A_MINUTE} lines of code a minute" in prose
    chinese = _section(README_ZH, "笔记本")
    assert re.findall(r"^\| \d+ \|.*分钟 \|", chinese, re.M) and "200" in chinese


def test_what_to_know_first_and_the_plain_path_for_an_environment_of_ones_own():
    who = _section(README, "Who the course is for")
    assert "**What to know first:**" in who and "No GPU is" in who
    start = _section(README, "Run it on your machine")
    assert "**Your own environment**" in start and "pip install -r requirements.txt" in start
    assert "conda env create -f environment.yml" in start
    zh_start = _section(README_ZH, "在自己的电脑上运行")
    assert "pip install -r requirements.txt" in zh_start and "conda env create -f environment.yml" in zh_start


PYTORCH_PAGES = ("torch.nn.Embedding.html", "torch.nn.Linear.html", "torch.nn.functional.one_hot.html",
                 "benchmark_utils.html")
PAPERS = ("1301.3781", "1608.05859", "1706.03762", "1909.08053")


def test_further_reading_links_pytorchs_pages_and_the_papers():
    for text, heading in ((README, "Further reading"), (README_ZH, "延伸阅读")):
        section = _section(text, heading)
        for page in PYTORCH_PAGES:
            assert f"(https://docs.pytorch.org/docs/stable/{'generated/' if page != 'benchmark_utils.html' else ''}" \
                   f"{page})" in section, page
        for paper in PAPERS:
            assert f"(https://arxiv.org/abs/{paper})" in section, paper
        assert "rasbt/LLMs-from-scratch" in section and "karpathy/makemore" in section


def test_the_version_is_the_changelogs_newest():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\d+\.\d+\.\d+) \((\d{4}-\d\d-\d\d)\)$", changelog, re.M)
    assert newest, "CHANGELOG.md has no `## X.Y.Z (YYYY-MM-DD)` heading"
    assert (cff["version"], str(cff["date-released"])) == newest.groups()
    assert f"version {cff['version']}" in README


def test_the_code_of_conduct_is_the_contributor_covenant():
    text = (ROOT / "CODE_OF_CONDUCT.md").read_text(encoding="utf-8")
    assert text.startswith("# Contributor Covenant Code of Conduct\n")
    assert "version 2.1" in text and "## Enforcement\n" in text and "[INSERT" not in text


def test_a_question_form_stands_beside_the_bug_form(check_jsonschema):
    forms = ROOT / ".github" / "ISSUE_TEMPLATE"
    check_jsonschema("vendor.github-issue-forms", forms / "question.yml")
    question = yaml.safe_load((forms / "question.yml").read_text(encoding="utf-8"))
    assert question["labels"] == ["question"] and (forms / "bug_report.yml").is_file()
    assert yaml.safe_load((forms / "config.yml").read_text(encoding="utf-8"))["blank_issues_enabled"] is True
    assert "*A question about the course*" in README and question["name"] == "A question about the course"


def test_the_programs_need_no_activation():
    """PowerShell's default execution policy blocks `.venv\\Scripts\\activate`; `.venv\\Scripts\\python` runs."""
    for text in (README, README_ZH, (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")):
        assert "source .venv/bin/activate" not in text
        blocked = re.findall(r"`[^`\n]*\\activate`", text)
        assert blocked in ([], ["`.venv\\Scripts\\activate`"]), "named only as what the policy blocks"
    for heading, text in (("Going further: two command-line programs", README),
                          ("进一步探索：两个命令行程序", README_ZH)):
        assert ".venv\\Scripts\\python" in _section(text, heading)
