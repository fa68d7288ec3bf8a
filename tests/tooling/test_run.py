"""The headless runner behind `make run`, and its execution guard."""

import nbformat
import pytest

from tools import manifest, run
from tools.manifest import Notebook


def _notebook(*sources, executed=True):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in sources]
    if executed:
        for count, cell in enumerate(nb.cells, start=1):
            cell.execution_count = count
    return nb


def test_execution_guard_accepts_cells_run_in_order():
    assert run.check_all_cells_executed(_notebook("1", "2"), "x.ipynb") == 2


def test_execution_guard_rejects_unexecuted_or_empty_runs():
    with pytest.raises(run.NotExecutedError, match=r"x.ipynb: expected code cells executed in order 1..2, got "
                                                   r"execution counts \[None, None\]"):
        run.check_all_cells_executed(_notebook("1", "2", executed=False), "x.ipynb")
    with pytest.raises(run.NotExecutedError, match="no code cells; nothing was executed"):
        run.check_all_cells_executed(nbformat.v4.new_notebook(), "x.ipynb")
    skipped = _notebook("1", "2", "3")
    skipped.cells[1].execution_count = None
    with pytest.raises(run.NotExecutedError, match=r"\[1, None, 3\]"):
        run.check_all_cells_executed(skipped, "x.ipynb")


def test_format_table_names_the_failing_cell_and_the_peak_memory():
    first, second = manifest.NOTEBOOKS[:2]
    table = run.format_table([run.RunResult(first, "ok", 3.14159, cells=20, peak_bytes=300 * 2**20),
                              run.RunResult(second, "FAILED", 1.0, failed_cell=4)])
    header, ok, failed = table.splitlines()
    assert header.split() == ["notebook", "result", "seconds", "peak", "memory"]
    assert len({len(line) for line in (header, ok, failed)}) == 1  # the columns line up
    assert ok.split() == [first.stem, "ok,", "20", "cells", "3.1", "300", "MB"]
    assert failed.split() == [second.stem, "FAILED", "at", "In", "[4]", "1.0", "-"]
    assert run.markdown_table([run.RunResult(first, "ok", 3.6, cells=20, peak_bytes=300 * 2**20)]).splitlines()[-1] \
        == f"| {first.number} | {first.title} | 4 | 300 MB |"


def test_no_page_of_the_course_quotes_a_run_table():
    """The course commits no timings (BENCHMARKS.md: they are the machine's); a run table pasted into a page would
    be one, and go stale unseen."""
    header = run.markdown_table([]).splitlines()[0]
    pasted = [path.name for path in manifest.ROOT.glob("*.md") if header in path.read_text(encoding="utf-8")]
    assert not pasted, f"{pasted} quote a table of `course.py run --markdown`; point to the command instead"


def test_a_device_that_is_not_there_stops_the_run_before_any_kernel(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(run, "run_with_papermill", lambda *a: pytest.fail("a kernel was started"))
    with pytest.raises(ValueError, match=r"^device='cuda' was requested, but CUDA is not available here"):
        run.run_notebooks([], device="cuda")
    with pytest.raises(ValueError, match=r"^unknown device 'gpu'; expected one of"):
        run.run_notebooks([], device="gpu")


def test_an_unknown_number_is_refused_before_any_kernel(monkeypatch):
    monkeypatch.setattr(run, "run_with_papermill", lambda *a: pytest.fail("a kernel was started"))
    with pytest.raises(ValueError, match=r"^there is no notebook 99 in the manifest"):
        run.run_notebooks(["99"])


@pytest.fixture
def scratch_course(tmp_path, monkeypatch):
    """A one-notebook course in tmp_path whose second cell fails."""
    entry = Notebook(1, "01_broken", "A notebook that fails")
    nb = _notebook('device = "auto"', "raise ValueError('boom')", executed=False)
    nb.cells[0].metadata["tags"] = ["parameters"]
    (tmp_path / entry.filename).write_text(nbformat.writes(nb))
    monkeypatch.setattr(manifest, "NOTEBOOK_DIR", tmp_path)
    monkeypatch.setattr(run, "NOTEBOOK_DIR", tmp_path)
    monkeypatch.setattr(manifest, "NOTEBOOKS", (entry,))
    return entry


def test_a_failing_notebook_is_reported_with_its_cell_and_keeps_the_good_copy(scratch_course, tmp_path, capsys):
    out_dir = tmp_path / "out"
    good = out_dir / scratch_course.filename
    good.parent.mkdir()
    good.write_text("the last good executed copy")
    result = run.run_with_papermill(scratch_course, out_dir, "cpu")
    assert result.status == "FAILED" and result.failed_cell == 3
    assert result.error == "cell In [3]: ValueError: boom"  # papermill's injected-parameters cell is In [2]
    assert good.read_text() == "the last good executed copy"
    failed = nbformat.read(out_dir / "failed" / scratch_course.filename, as_version=4)
    assert failed.cells[-1].outputs[0].ename == "ValueError"  # the failed run, kept aside
    assert result.peak_bytes > 10 * 2**20  # the kernel's peak memory, asked after the failure

    assert run.run_notebooks([], out=out_dir) == 1  # no device: nothing injected, the notebook's default
    out = capsys.readouterr().out
    assert "FAILED: notebooks/01_broken.ipynb, cell In [2]: ValueError: boom" in out
    assert "01_broken  FAILED at In [2]" in out
    assert f"The failed runs are in {out_dir / 'failed'}; {out_dir} keeps the last good copies." in out
    assert good.read_text() == "the last good executed copy" and not list(out_dir.glob(".*"))


def test_stderr_is_a_failure_but_a_progress_bar_is_not(tmp_path, monkeypatch):
    bar = "import sys; sys.stderr.write('benchmark:  40%|####      | 4/10 [00:01<00:02, 2.90it/s]\\r')"
    warning = "import warnings; warnings.warn('this API is deprecated')"
    entry = Notebook(1, "01_noisy", "A notebook that warns")
    nb = _notebook('device = "auto"', bar, warning, executed=False)
    nb.cells[0].metadata["tags"] = ["parameters"]
    (tmp_path / entry.filename).write_text(nbformat.writes(nb))
    monkeypatch.setattr(manifest, "NOTEBOOK_DIR", tmp_path)
    monkeypatch.setattr(run, "NOTEBOOK_DIR", tmp_path)

    result = run.run_with_papermill(entry, tmp_path / "out", "cpu")
    assert result.status == "FAILED"
    assert result.error.startswith("cell In [4] wrote to stderr: ")
    assert "UserWarning: this API is deprecated" in result.error
    executed = nbformat.read(tmp_path / "out" / "failed" / entry.filename, as_version=4)  # kept aside
    assert [count for count, _ in run.stderr_outputs(executed)] == [4]  # the progress bar (In [3]) is not listed
