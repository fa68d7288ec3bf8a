"""Every notebook, as stored: well-formed, executed, self-checking, leaking nothing.

nbval (configured in pyproject.toml) re-executes each English notebook and compares outputs;
tests/clients/ runs each once more as learners do (with papermill's parameters, alone as on
Colab, in JupyterLab). This file checks the stored notebooks of both editions without a
kernel: the English ones and their Chinese twins in notebooks/zh/ (same code and outputs,
which the translation check proves, and translated prose).
"""

import ast
import getpass
import re
import time

import nbformat
import papermill
import pytest
import torch

from tools.course import NOTEBOOK_DIR, NOTEBOOKS
from tools.kernels import AsyncIPCKernelManager
from tools.pytest_course import count_execution
from tools.run import check_all_cells_executed
from tools.translations import SECTION_HEADINGS_ZH

# Outputs must not leak the machine they ran on.
LEAKS = re.compile(r"(/root\b|/home/\w|/Users/\w|/tmp/|/work/|[A-Za-z]:\\\\|\bat 0x[0-9a-f]{6,})")
FIGURE_REPR = re.compile(r"<Figure size \d+x\d+ with (\d+) Axes>")

# every notebook in both editions: English (notebooks/) and Chinese (notebooks/zh/)
EDITIONS = [*NOTEBOOKS, *(nb.zh for nb in NOTEBOOKS)]
ids = [nb.stem if nb.edition == "en" else f"{nb.edition}/{nb.stem}" for nb in EDITIONS]


def _read(entry):
    return nbformat.read(entry.path, as_version=4)


def _code(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _python_source(cell):
    """Cell source without IPython magics, for ast."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in cell.source.splitlines())


def _text(output):
    if output.output_type == "stream":
        return output.text
    return "\n".join(str(value) for key, value in output.get("data", {}).items() if key.startswith("text/"))


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_notebook_is_valid_and_uses_the_python3_kernel(entry):
    nb = _read(entry)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    cell_ids = [cell.id for cell in nb.cells]
    assert len(cell_ids) == len(set(cell_ids)), "cell ids must be unique (translations refer to them)"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_stored_outputs_come_from_one_clean_run(entry):
    nb = _read(entry)
    check_all_cells_executed(nb, entry.filename)  # code cells executed in order 1..n
    for cell in _code(nb):
        for output in cell.outputs:
            assert output.output_type != "error", f"cell {cell.id} stored an error: {output.get('ename')}"
            assert not (output.output_type == "stream" and output.name == "stderr"), \
                f"cell {cell.id} wrote to stderr (a warning?): {output.text[:200]}"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_outputs_hold_no_paths_user_names_or_addresses(entry):
    user = getpass.getuser()
    for cell in _code(_read(entry)):
        for output in cell.outputs:
            text = _text(output)
            leak = LEAKS.search(text)
            assert leak is None, f"cell {cell.id} output contains {leak.group(0)!r}"
            if len(user) >= 4 and user != "root":
                assert user not in text, f"cell {cell.id} output contains the user name"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_every_image_is_a_drawn_figure(entry):
    for cell in _code(_read(entry)):
        for output in cell.outputs:
            data = output.get("data", {})
            match = FIGURE_REPR.search(data.get("text/plain", ""))
            if "image/png" in data:
                assert match and int(match.group(1)) >= 1, f"cell {cell.id}: an image/png that is not a figure"
            elif match:
                pytest.fail(f"cell {cell.id}: a figure printed as text without an image ({match.group(0)})")


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_claims_are_asserted(entry):
    trees = [ast.parse(_python_source(cell)) for cell in _code(_read(entry))]
    asserts = sum(isinstance(node, ast.Assert) for tree in trees for node in ast.walk(tree))
    assert asserts >= 3, f"only {asserts} assert statements: every claim in the prose needs one"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_notebook_has_the_course_structure(entry):
    nb = _read(entry)
    headings = [line for cell in nb.cells if cell.cell_type == "markdown" for line in cell.source.splitlines()
                if line.startswith("#")]
    for heading in ("## What you will learn", "## Summary", "## Exercises"):
        heading = SECTION_HEADINGS_ZH[heading] if entry.edition == "zh" else heading
        assert heading in headings, f"missing section {heading!r}"
    parameters = [cell for cell in _code(nb) if "parameters" in cell.metadata.get("tags", [])]
    assert len(parameters) == 1, "exactly one code cell tagged `parameters` (papermill)"
    assert re.search(rf'^device = "{entry.default_device}"', parameters[0].source, re.M), \
        f"the parameters cell must set device = {entry.default_device!r} (the manifest's default_device)"
    solutions = [cell for cell in _code(nb) if "solution" in cell.metadata.get("tags", [])]
    checks = re.findall(r"exercises\.check_\w+", "\n".join(cell.source for cell in _code(nb)))
    assert len(solutions) >= 2 and len(checks) >= len(solutions), "each exercise: a solution cell and a checker"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA; the test is for machines without it")
def test_asking_for_cuda_without_a_gpu_stops_at_once(tmp_path, record_property):
    entry = NOTEBOOKS[0]
    count_execution(record_property, f"refusal: {entry.stem}")
    start = time.perf_counter()
    with pytest.raises(papermill.PapermillExecutionError) as info:
        papermill.execute_notebook(
            str(entry.path), str(tmp_path / entry.filename), parameters={"device": "cuda"},
            kernel_name="python3", cwd=str(NOTEBOOK_DIR), progress_bar=False,
            kernel_manager_class=AsyncIPCKernelManager,
        )
    assert info.value.ename == "RuntimeError"
    assert "device='cuda' was requested, but CUDA is not available here" in info.value.evalue
    assert time.perf_counter() - start < 60
