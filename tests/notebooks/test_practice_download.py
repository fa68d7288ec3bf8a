"""The site's practice zip (tools/website.py) on its own: unzipped in a folder outside the repository, a copy
runs with the course's helpers from the zip, as a learner who never cloned runs it, and fetches nothing."""

import os
import zipfile

import nbformat
import pytest
from nbclient import NotebookClient

from tools import generated, manifest, website
from tools.kernels import AsyncIPCKernelManager
from tools.pytest_course import EXECUTIONS
from tools.translations import comment_tokens

ENTRY = manifest.notebook(1)
EN, ZH = manifest.EDITIONS
PROBE = "import pathlib, utils\nprint(pathlib.Path(utils.__file__).resolve().parent)"


@pytest.fixture(scope="module")
def unzipped(tmp_path_factory):
    """The practice zip, as the site offers it, unzipped into a folder of its own."""
    site, out = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("download")
    website.write_practice_downloads(site)
    with zipfile.ZipFile(site / website.PRACTICE_ZIP) as bundle:
        bundle.extractall(out)
    return out / f"{manifest.REPO_NAME}-practice"


def _code_cells(unzipped, edition) -> list[nbformat.NotebookNode]:
    nb = nbformat.read(unzipped / edition.subdir / ENTRY.filename, as_version=4)
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _run(unzipped, edition, cells) -> list[str]:
    """Run ``cells`` and then a probe that prints where ``utils`` came from, in the unzipped copy's folder, with the
    course's repository (which a fetch would need) an address that does not exist; what each printed."""
    folder = unzipped / edition.subdir
    nb = nbformat.v4.new_notebook(cells=[*cells, nbformat.v4.new_code_cell(PROBE)])
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env[generated.REPO_OVERRIDE_ENV] = (unzipped.parent / "no-course-here").as_uri()
    NotebookClient(nb, timeout=600, kernel_name="python3", kernel_manager_class=AsyncIPCKernelManager,
                   resources={"metadata": {"path": str(folder)}}).execute(env=env)
    texts = ["".join(out.get("text", "") for out in cell.outputs) for cell in nb.cells]
    setup = next(i for i, cell in enumerate(cells) if cell.get("id") == generated.SETUP_ID)
    assert texts[setup] == "Set-up: the course is in a folder above; nothing fetched\n"
    assert texts[-1] == f"{(unzipped / 'utils').resolve()}\n"  # the helpers of the zip, not of this repository
    return texts[:-1]


def test_a_practice_copy_runs_through_from_the_unzipped_download(unzipped, record_property):
    """Every cell of the English copy, as the learner gets it: the set-up cell finds `utils/` in the unzipped
    folder and fetches nothing, and each exercise's checker says, without an error, that it is not answered yet."""
    record_property(EXECUTIONS, f"practice zip: {EN.code}/{ENTRY.stem}")
    code = _code_cells(unzipped, EN)
    texts = _run(unzipped, EN, code)
    checkers = [text for cell, text in zip(code, texts, strict=True) if "exercises.check_" in cell.source]
    assert len(checkers) >= 3 and all(text.startswith("not answered yet: ") for text in checkers), checkers


def _without_comments(source: str) -> str:
    lines = source.split("\n")
    for row, start, _, _ in comment_tokens(source):
        lines[row] = lines[row][:start].rstrip()
    return "\n".join(lines)


def test_the_chinese_practice_copy_is_the_english_code_and_finds_the_helpers_a_folder_above(unzipped):
    """The Chinese copy, in `zh/`: its code cells are the English copy's but for the comments, so the English run
    above stands for all of them; what differs is the folder, so its set-up cell runs there (with the probe) and
    finds `utils/` a folder above. (Running every cell again would execute the same code a second time.) Its set-up
    cell asks for the checkers' lines in Chinese and words its own error, and the reasons it gives, in Chinese."""
    english, chinese = _code_cells(unzipped, EN), _code_cells(unzipped, ZH)
    setup = next(i for i, cell in enumerate(english) if cell.get("id") == generated.SETUP_ID)
    english_setup = _without_comments(english.pop(setup).source)
    chinese_setup = chinese.pop(setup)
    assert english_setup.endswith("fetched)")
    assert _without_comments(chinese_setup.source) == generated.setup_in_edition(english_setup, "zh")
    assert [_without_comments(cell.source) for cell in chinese] == [_without_comments(cell.source) for cell in english]
    _run(unzipped, ZH, [chinese_setup])
