"""Execute every notebook of the course headless: ``python -m tools.run``.

By default each notebook in the manifest runs with papermill into ``build/notebooks/``
(the committed notebooks stay untouched), with its ``device`` parameter set, and a
table of notebook, status and seconds is printed at the end. Exits 1 if any notebook
failed, naming the notebook and the failing cell.

``--in-place`` is for maintainers: it re-executes the committed notebooks with nbclient
and stores the fresh outputs in them (what nbval then compares against).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from tqdm.auto import tqdm

from .course import NOTEBOOK_DIR, NOTEBOOKS, ROOT, Notebook
from .generated import dumps_notebook, read_notebook
from .kernels import AsyncIPCKernelManager

BUILD_DIR = ROOT / "build" / "notebooks"
KERNEL = "python3"
#: jupyter_client interrupts every kernel as it shuts it down; when the interrupt lands between
#: two requests, ipykernel logs "KeyboardInterrupt caught in kernel" to the terminal, between the
#: progress bar's updates. The kernels' own log is for debugging Jupyter, not the course: only
#: its critical lines are shown. (A cell's errors and warnings reach the notebook, not this log.)
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=CRITICAL"]


class NotExecutedError(RuntimeError):
    """A run that finished without executing every code cell (the execution guard)."""


def check_all_cells_executed(nb_node: nbformat.NotebookNode, name: str) -> int:
    """Raise unless every code cell ran, in order 1..n, and there is at least one. Returns n."""
    counts = [cell.get("execution_count") for cell in nb_node.cells if cell.cell_type == "code"]
    if not counts:
        raise NotExecutedError(f"{name}: the notebook has no code cells; nothing was executed")
    if counts != list(range(1, len(counts) + 1)):
        raise NotExecutedError(
            f"{name}: expected code cells executed in order 1..{len(counts)}, got execution counts {counts}"
        )
    return len(counts)


@dataclass
class RunResult:
    notebook: Notebook
    status: str  # "ok" or "FAILED"
    seconds: float
    cells: int = 0
    error: str = ""


#: tqdm's text progress bar, e.g. ``benchmark:  40%|####      | 4/10 [00:01<00:02, 2.9measurement/s]``
PROGRESS_BAR = re.compile(r"^[^\n]*\d+%\|[^\n]*\|[^\n]*$")


def stderr_outputs(nb_node: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """``(execution count, text)`` of every stderr output a learner would see: a warning, a log line.

    Progress bars (tqdm writes them to stderr) do not count.
    """
    found = []
    for cell in nb_node.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if output.output_type != "stream" or output.name != "stderr":
                continue
            lines = [line.strip() for line in re.split(r"[\r\n]+", output.text) if line.strip()]
            if not all(PROGRESS_BAR.match(line) for line in lines):
                found.append((cell.execution_count, output.text))
    return found


def _describe_papermill_error(error: Exception) -> str:
    cell = getattr(error, "exec_count", None)
    ename, evalue = getattr(error, "ename", type(error).__name__), getattr(error, "evalue", str(error))
    where = f"cell In [{cell}]" if cell is not None else "a cell"
    return f"{where}: {ename}: {evalue}"


def run_with_papermill(entry: Notebook, out_dir: Path, device: str | None = None) -> RunResult:
    """Execute one notebook with papermill into ``out_dir``; never raises for a cell error.

    ``device``: the value for the notebook's ``device`` parameter; None keeps the notebook's
    own default (the CPU for the lessons, ``"auto"`` for notebooks 6 and 8).
    """
    import papermill

    out_dir.mkdir(parents=True, exist_ok=True)
    output = out_dir / entry.filename
    start = time.perf_counter()
    try:
        executed = papermill.execute_notebook(
            str(entry.path), str(output), parameters={} if device is None else {"device": device}, kernel_name=KERNEL,
            cwd=str(NOTEBOOK_DIR), progress_bar=False, kernel_manager_class=AsyncIPCKernelManager,
            extra_arguments=KERNEL_ARGUMENTS,
            # write the executed copy once, at the end or at the failing cell, not after every
            # cell (each write validates and serialises the whole notebook, figures included)
            request_save_on_cell_execute=False,
        )
        cells = check_all_cells_executed(executed, entry.filename)
    except Exception as error:  # noqa: BLE001 - reported in the table, then the run fails
        return RunResult(entry, "FAILED", time.perf_counter() - start, error=_describe_papermill_error(error))
    seconds = time.perf_counter() - start
    warnings = stderr_outputs(executed)
    if warnings:
        count, text = warnings[0]
        first_line = text.strip().splitlines()[0]
        return RunResult(entry, "FAILED", seconds, cells, f"cell In [{count}] wrote to stderr: {first_line}")
    return RunResult(entry, "ok", seconds, cells=cells)


def execute_in_place(entry: Notebook) -> RunResult:
    """Re-execute a committed notebook with nbclient and store its outputs in it."""
    from nbclient import NotebookClient

    nb_node = read_notebook(entry.path)
    start = time.perf_counter()
    # coalesce_streams: one stream output per cell, as nbval compares them, so re-runs do not churn
    NotebookClient(nb_node, timeout=600, kernel_name=KERNEL, record_timing=False, coalesce_streams=True,
                   kernel_manager_class=AsyncIPCKernelManager, extra_arguments=KERNEL_ARGUMENTS,
                   resources={"metadata": {"path": str(NOTEBOOK_DIR)}}).execute()
    cells = check_all_cells_executed(nb_node, entry.filename)
    entry.path.write_text(dumps_notebook(nb_node), encoding="utf-8")
    return RunResult(entry, "ok", time.perf_counter() - start, cells=cells)


def format_table(results: list[RunResult]) -> str:
    width = max(len(r.notebook.stem) for r in results)
    lines = [f"{'notebook':<{width}}  {'status':<6}  {'cells':>5}  {'seconds':>7}"]
    for r in results:
        lines.append(f"{r.notebook.stem:<{width}}  {r.status:<6}  {r.cells:>5}  {r.seconds:>7.1f}")
    return "\n".join(lines)


def select(numbers: list[int] | None) -> list[Notebook]:
    if not numbers:
        return list(NOTEBOOKS)
    by_number = {nb.number: nb for nb in NOTEBOOKS}
    unknown = [n for n in numbers if n not in by_number]
    if unknown:
        raise SystemExit(f"unknown notebook number(s) {unknown}; the manifest has {sorted(by_number)}")
    return [by_number[n] for n in numbers]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", help="value for each notebook's `device` parameter: auto, cpu, cuda or mps "
                        "(default: each notebook's own, the CPU for the lessons and auto for notebooks 6 and 8)")
    parser.add_argument("--out", type=Path, default=BUILD_DIR, help="folder for the executed copies")
    parser.add_argument("--in-place", action="store_true", help="re-execute the committed notebooks and store outputs")
    parser.add_argument("notebooks", nargs="*", type=int, help="notebook numbers (default: all)")
    args = parser.parse_args(argv)

    entries = select(args.notebooks)
    results = []
    with tqdm(entries, unit="notebook", desc="executing", file=sys.stdout) as bar:
        for entry in bar:
            bar.set_postfix_str(entry.stem)
            if args.in_place:
                result = execute_in_place(entry)
            else:
                result = run_with_papermill(entry, args.out, args.device)
            results.append(result)
            if result.error:
                tqdm.write(f"FAILED {entry.filename}: {result.error}", file=sys.stdout)

    print()
    print(format_table(results))
    failed = [r for r in results if r.status != "ok"]
    if failed:
        print()
        for r in failed:
            print(f"FAILED: {r.notebook.repo_path}, {r.error}")
        return 1
    out = args.out.resolve()
    where = "in place" if args.in_place else f"into {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}"
    print(f"\nall {len(results)} notebook(s) executed {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
