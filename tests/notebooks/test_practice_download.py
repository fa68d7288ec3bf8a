"""The site's practice zip (tools/website.py) on its own: unzipped in a folder outside the repository, a copy
runs with the course's helpers from the zip, as a learner who never cloned runs it, and fetches nothing."""

import os
import zipfile

import nbformat
import pytest
from nbclient import NotebookClient

from tools import generated, manifest, website
from tools.kernels import AsyncIPCKernelManager
from tools.pytest_course import count_execution

ENTRY = manifest.notebook(1)


@pytest.fixture(scope="module")
def unzipped(tmp_path_factory):
    """The practice zip, as the site offers it, unzipped into a folder of its own."""
    site, out = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("download")
    website.write_practice_downloads(site)
    with zipfile.ZipFile(site / website.PRACTICE_ZIP) as bundle:
        bundle.extractall(out)
    return out / f"{manifest.REPO_NAME}-practice"


@pytest.mark.parametrize("edition", manifest.EDITIONS, ids=lambda edition: edition.code)
def test_a_practice_copy_runs_through_from_the_unzipped_download(unzipped, edition, record_property):
    """Every cell, as the learner gets it: the set-up cell finds `utils/` in the unzipped folder (a folder above for
    the Chinese copies in `zh/`), the course's repository, which a fetch would need, is an address that does not
    exist, and each exercise's checker says, without an error, that it is not answered yet."""
    count_execution(record_property, f"practice zip: {edition.code}/{ENTRY.stem}")
    path = unzipped / edition.subdir / ENTRY.filename
    nb = nbformat.read(path, as_version=4)
    probe = nbformat.v4.new_code_cell("import pathlib, utils\nprint(pathlib.Path(utils.__file__).resolve().parent)")
    nb.cells = [*nb.cells, probe]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env[generated.REPO_OVERRIDE_ENV] = (unzipped.parent / "no-course-here").as_uri()
    NotebookClient(nb, timeout=600, kernel_name="python3", kernel_manager_class=AsyncIPCKernelManager,
                   resources={"metadata": {"path": str(path.parent)}}).execute(env=env)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    texts = ["".join(out.get("text", "") for out in cell.outputs) for cell in code]
    assert texts[0] == "Set-up: the course is in a folder above; nothing fetched\n"
    assert texts[-1] == f"{(unzipped / 'utils').resolve()}\n"  # the helpers of the zip, not of this repository
    checkers = [text for cell, text in zip(code, texts, strict=True) if "exercises.check_" in cell.source]
    assert len(checkers) >= 3 and all(text.startswith("not answered yet: ") for text in checkers), checkers
