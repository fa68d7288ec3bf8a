"""Execute every notebook of the course headless: ``python -m tools.run`` (``python course.py run``).

By default each notebook in the manifest runs with papermill into ``build/notebooks/``
(the committed notebooks stay untouched), with its ``device`` parameter set, and a
table is printed at the end: each notebook's result, seconds and peak memory (its kernel
process's), and the machine it ran on (``--markdown`` prints it as the
README's table). Exits 1 if any notebook failed, naming the notebook and the failing cell.
A device that is not there (``--device cuda`` without a GPU) stops the run before any
kernel starts. A failed run never replaces a good executed copy: it is kept in
``build/notebooks/failed/``.

``--in-place`` is for maintainers: it re-executes the committed notebooks with nbclient
and stores the fresh outputs in them (what nbval then compares against).
"""

from __future__ import annotations

import ast
import os
import platform
import re
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import nbformat
import psutil
from tqdm.auto import tqdm

from utils.cli import OneLineParser

from . import manifest
from .cli import guard
from .generated import dumps_notebook, read_notebook
from .kernels import AsyncIPCKernelManager
from .manifest import NOTEBOOK_DIR, ROOT, Notebook

BUILD_DIR = ROOT / "build" / "notebooks"
#: the command the learner typed, for the messages (course.py sets it: `python3 course.py run`)
PROG = os.environ.get("COURSE_COMMAND", "python -m tools.run")
#: where a failed run's executed copy goes (the good copy in BUILD_DIR stays)
FAILED_DIR = "failed"
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
    failed_cell: int | None = None  # the execution count of the cell that failed (In [n])
    peak_bytes: int | None = None  # the kernel process's peak resident memory (not the processes it starts)


# --- peak memory, asked of the kernel after the last cell ---------------------------------

#: Run silently in the kernel once the notebook is done (no output, no execution count): its
#: peak resident memory in bytes. (Not its children's: on Linux a child's peak counts the memory
#: of the kernel it was forked from, so a tiny `python -c` would read as large as the kernel.)
PEAK_MEMORY_CODE = """\
def _course_peak_memory():
    import sys
    if sys.platform == "win32":  # the peak working set
        import psutil
        return psutil.Process().memory_info().peak_wset
    import resource  # ru_maxrss: bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
"""


def _peak_memory_engine():
    """papermill's nbclient engine, asking the kernel for its peak memory after the last cell.

    The number goes into the executed copy's metadata, ``course.peak_memory``."""
    from papermill import engines
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine

    class Client(PapermillNotebookClient):
        def papermill_execute_cells(self):
            super().papermill_execute_cells()
            try:
                msg_id = self.kc.execute(PEAK_MEMORY_CODE, silent=True, store_history=False,
                                         user_expressions={"peak": "_course_peak_memory()"})
                reply = self.wait_for_reply(msg_id)
                peak = ast.literal_eval(reply["content"]["user_expressions"]["peak"]["data"]["text/plain"])
                self.nb.metadata["course"] = {"peak_memory": int(peak)}
            except Exception:  # noqa: BLE001 - a kernel that died or timed out: no number, and the run goes on
                pass

    class Engine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            # papermill's own steps, with this client in the place of its own (runs are one at a time)
            original, engines.PapermillNotebookClient = engines.PapermillNotebookClient, Client
            try:
                return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
            finally:
                engines.PapermillNotebookClient = original

    return Engine


def machine() -> str:
    """The machine a run's numbers come from: CPU, cores, memory, system, PyTorch."""
    cpu = platform.processor() or platform.machine()
    if Path("/proc/cpuinfo").is_file():  # Linux: the model's name
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
        cpu = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), cpu)
    return (f"{cpu}, {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}, torch {metadata.version('torch')}")


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


def _peak(nb_node: nbformat.NotebookNode) -> int | None:
    return nb_node.metadata.get("course", {}).get("peak_memory")


def run_with_papermill(entry: Notebook, out_dir: Path, device: str | None = None) -> RunResult:
    """Execute one notebook with papermill into ``out_dir``; never raises for a cell error.

    ``device``: the value for the notebook's ``device`` parameter; None keeps the notebook's
    own default (the CPU for the lessons, ``"auto"`` for notebooks 6 and 8). The executed
    copy replaces ``out_dir/<name>`` only when the run succeeded; a failed one goes to
    ``out_dir/failed/<name>``.
    """
    import papermill
    from papermill.engines import papermill_engines

    papermill_engines.register("course", _peak_memory_engine())
    out_dir.mkdir(parents=True, exist_ok=True)
    output, failed = out_dir / entry.filename, out_dir / FAILED_DIR / entry.filename
    partial = out_dir / f".{entry.stem}.running.ipynb"
    start = time.perf_counter()
    try:
        executed = papermill.execute_notebook(
            str(entry.path), str(partial), parameters={} if device is None else {"device": device}, kernel_name=KERNEL,
            cwd=str(NOTEBOOK_DIR), progress_bar=False, kernel_manager_class=AsyncIPCKernelManager,
            extra_arguments=KERNEL_ARGUMENTS, engine_name="course",
            # write the executed copy once, at the end or at the failing cell, not after every
            # cell (each write validates and serialises the whole notebook, figures included)
            request_save_on_cell_execute=False,
        )
        cells = check_all_cells_executed(executed, entry.filename)
    except Exception as error:  # noqa: BLE001 - reported in the table, then the run fails
        peak = _peak(read_notebook(partial)) if partial.is_file() else None
        _keep_failed(partial, failed)
        return RunResult(entry, "FAILED", time.perf_counter() - start, error=_describe_papermill_error(error),
                         failed_cell=getattr(error, "exec_count", None), peak_bytes=peak)
    seconds = time.perf_counter() - start
    peak = _peak(executed)
    warnings = stderr_outputs(executed)
    if warnings:
        count, text = warnings[0]
        first_line = text.strip().splitlines()[0]
        _keep_failed(partial, failed)
        return RunResult(entry, "FAILED", seconds, cells, f"cell In [{count}] wrote to stderr: {first_line}",
                         failed_cell=count, peak_bytes=peak)
    os.replace(partial, output)
    failed.unlink(missing_ok=True)  # an older failure, now fixed
    return RunResult(entry, "ok", seconds, cells=cells, peak_bytes=peak)


def _keep_failed(partial: Path, failed: Path) -> None:
    """Move a failed run's executed copy aside, where it cannot replace a good one."""
    if partial.is_file():
        failed.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, failed)


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


def _megabytes(count: int | None) -> str:
    return f"{count / 2**20:,.0f} MB" if count else "-"


def result_text(result: RunResult) -> str:
    """``ok, 25 cells`` or ``FAILED at In [4]``."""
    if result.status == "ok":
        return f"ok, {result.cells} cells"
    return f"FAILED at In [{result.failed_cell}]" if result.failed_cell is not None else "FAILED"


def format_table(results: list[RunResult]) -> str:
    """The run's table: each notebook's result, seconds and peak memory (its kernel's)."""
    rows = [("notebook", "result", "seconds", "peak memory")]
    rows += [(r.notebook.stem, result_text(r), f"{r.seconds:.1f}", _megabytes(r.peak_bytes)) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  " + "  ".join(
        f"{cell:>{w}}" for cell, w in zip(row[2:], widths[2:], strict=True)) for row in rows)


def markdown_table(results: list[RunResult]) -> str:
    """The README's table of what each notebook takes, from this run."""
    lines = ["| # | Notebook | Seconds | Peak memory |", "| ---: | --- | ---: | ---: |"]
    for r in results:
        lines.append(f"| {r.notebook.number} | {r.notebook.title} | {r.seconds:.0f} | {_megabytes(r.peak_bytes)} |")
    return "\n".join(lines)


def select(numbers: list[int | str] | None) -> list[Notebook]:
    if not numbers:
        return list(manifest.NOTEBOOKS)
    by_number = {str(nb.number): nb for nb in manifest.NOTEBOOKS}
    unknown = [str(n) for n in numbers if str(n) not in by_number]
    if unknown:
        first, last = manifest.NOTEBOOKS[0].number, manifest.NOTEBOOKS[-1].number
        raise SystemExit(f"{PROG}: no notebook {', '.join(unknown)}; the notebooks are {first} to {last}, "
                         f"e.g. `{PROG} {first} {last}`")
    return [by_number[str(n)] for n in numbers]


def check_device(device: str | None) -> str | None:
    """Why ``device`` cannot run here (one line), or None. Asked once, before any kernel starts."""
    if device is None:
        return None
    from utils.devices import resolve_device

    try:
        resolve_device(device, option="--device")
    except (RuntimeError, ValueError, TypeError) as error:
        return str(error)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--device", help="value for each notebook's `device` parameter: auto, cpu, cuda or mps "
                        "(default: each notebook's own, the CPU for the lessons and auto for notebooks 6 and 8)")
    parser.add_argument("--out", type=Path, default=BUILD_DIR, help="folder for the executed copies")
    parser.add_argument("--in-place", action="store_true", help="re-execute the committed notebooks and store outputs")
    parser.add_argument("--markdown", action="store_true", help="also print the table as the README's markdown")
    parser.add_argument("notebooks", nargs="*", help="notebook numbers (default: all)")
    args = parser.parse_args(argv)

    entries = select(args.notebooks)
    problem = check_device(args.device)
    if problem:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 2
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
    print(f"on {machine()}")
    if args.markdown:
        print()
        print(markdown_table(results))
    failed = [r for r in results if r.status != "ok"]
    out = args.out.resolve()
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    if failed:
        print()
        for r in failed:
            print(f"FAILED: {r.notebook.repo_path}, {r.error}")
        if not args.in_place:
            print(f"The failed runs are in {shown / FAILED_DIR}; {shown} keeps the last good copies.")
        return 1
    where = "in place" if args.in_place else f"into {shown}"
    print(f"\nall {len(results)} notebook(s) executed {where}")
    return 0


if __name__ == "__main__":
    sys.exit(guard(main, "python -m tools.run"))
