"""``course.py run``: each notebook executed headless with papermill into ``build/notebooks/`` (a failed run kept
in ``failed/``, never over a good copy), then a table of results, seconds and peak memory, and the machine.
``course.py execute`` (maintainers): nbclient re-executes the committed notebooks and stores their outputs.
"""

import contextlib
import os
import platform
import re
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from unittest import mock

from utils.language import _

from . import manifest
from .manifest import NOTEBOOK_DIR, ROOT, Notebook

# Jupyter's modules take seconds to import: imported where a notebook runs, after the command line is read.

#: only the kernels' critical log lines: jupyter_client interrupts each kernel as it shuts it down, and ipykernel
#: logs "KeyboardInterrupt caught in kernel" among the progress bar's lines (a cell's warnings reach the notebook)
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=CRITICAL"]


class NotExecutedError(RuntimeError):
    """A run that finished without executing every code cell (the execution guard)."""


def check_all_cells_executed(nb_node, name: str) -> int:
    """Raise unless every code cell ran, in order 1..n, and there is at least one. Returns n."""
    counts = [cell.get("execution_count") for cell in nb_node.cells if cell.cell_type == "code"]
    if not counts:
        raise NotExecutedError(f"{name}: the notebook has no code cells; nothing was executed")
    if counts != list(range(1, len(counts) + 1)):
        raise NotExecutedError(f"{name}: expected code cells executed in order 1..{len(counts)}, got execution "
                               f"counts {counts}")
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


#: Asked of the kernel, silently, once the notebook is done: its peak resident memory in bytes (not its
#: children's: on Linux a child's peak counts the memory of the kernel it was forked from).
PEAK_IMPORTS = "import sys\nif sys.platform == 'win32': import psutil\nelse: import resource"
PEAK_MEMORY = ("psutil.Process().memory_info().peak_wset if sys.platform == 'win32' else "
               "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == 'darwin' else 1024)")


def register_engine() -> None:
    """Register papermill's engine ``course``: its nbclient engine, asking the kernel for its peak memory
    after the last cell; the number goes into the executed copy's metadata, ``course.peak_memory``."""
    from papermill import engines

    class Client(engines.PapermillNotebookClient):
        def papermill_execute_cells(self):
            super().papermill_execute_cells()
            with contextlib.suppress(Exception):  # a kernel that died or timed out: no number, and the run goes on
                reply = self.wait_for_reply(self.kc.execute(PEAK_IMPORTS, silent=True, store_history=False,
                                                            user_expressions={"peak": PEAK_MEMORY}))
                peak = reply["content"]["user_expressions"]["peak"]["data"]["text/plain"]
                self.nb.metadata["course"] = {"peak_memory": int(peak)}

    class PeakMemoryEngine(engines.NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            # papermill's own steps, with this client in the place of its own (runs are one at a time)
            with mock.patch.object(engines, "PapermillNotebookClient", Client):
                return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    engines.papermill_engines.register("course", PeakMemoryEngine)


def machine() -> str:
    """The machine a run's numbers come from: CPU, cores, memory, system, PyTorch."""
    import psutil

    cpu = platform.processor() or platform.machine()
    if Path("/proc/cpuinfo").is_file():  # Linux: the model's name
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
        cpu = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), cpu)
    return (f"{cpu}, {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}, torch {metadata.version('torch')}")


#: tqdm's text progress bar, e.g. ``benchmark:  40%|####      | 4/10 [00:01<00:02, 2.9measurement/s]``
PROGRESS_BAR = re.compile(r"^[^\n]*\d+%\|[^\n]*\|[^\n]*$")


def stderr_outputs(nb_node) -> list[tuple[int, str]]:
    """``(execution count, text)`` of every stderr output a learner would see (a warning, a log line);
    progress bars (tqdm writes them to stderr) do not count."""
    return [(cell.execution_count, output.text) for cell in nb_node.cells if cell.cell_type == "code"
            for output in cell.outputs if output.output_type == "stream" and output.name == "stderr"
            and not all(PROGRESS_BAR.match(line.strip()) for line in re.split(r"[\r\n]+", output.text) if line.strip())]


def run_with_papermill(entry: Notebook, out_dir: Path, device: str | None = None) -> RunResult:
    """Execute one notebook with papermill into ``out_dir`` (``device``: its parameter, None keeps the notebook's
    own); never raises for a cell error. A failed run's copy goes to ``out_dir/failed/``, not over a good one."""
    import papermill

    from .generated import read_notebook
    from .kernels import AsyncIPCKernelManager

    register_engine()
    out_dir.mkdir(parents=True, exist_ok=True)
    partial, start = out_dir / f".{entry.stem}.running.ipynb", time.perf_counter()
    result = RunResult(entry, "FAILED", 0.0)
    try:
        executed = papermill.execute_notebook(
            str(entry.path), str(partial), parameters={} if device is None else {"device": device},
            kernel_name="python3", cwd=str(NOTEBOOK_DIR), progress_bar=False, engine_name="course",
            kernel_manager_class=AsyncIPCKernelManager, extra_arguments=KERNEL_ARGUMENTS,
            # written once, not after every cell (each write validates and serialises the whole notebook)
            request_save_on_cell_execute=False,
        )
        result.cells = check_all_cells_executed(executed, entry.filename)
        if warnings := stderr_outputs(executed):
            result.failed_cell, text = warnings[0]
            result.error = f"cell In [{result.failed_cell}] wrote to stderr: {text.strip().splitlines()[0]}"
        else:
            result.status = "ok"
    except Exception as error:  # noqa: BLE001 - reported in the table, then the run fails
        result.failed_cell = getattr(error, "exec_count", None)
        where = "a cell" if result.failed_cell is None else f"cell In [{result.failed_cell}]"
        result.error = f"{where}: {getattr(error, 'ename', type(error).__name__)}: {getattr(error, 'evalue', error)}"
    result.seconds = time.perf_counter() - start
    failed_copy = out_dir / "failed" / entry.filename
    if result.status == "ok":
        failed_copy.unlink(missing_ok=True)  # an older failure, now fixed
    if partial.is_file():  # a failed run never replaces a good copy
        result.peak_bytes = read_notebook(partial).metadata.get("course", {}).get("peak_memory")
        target = out_dir / entry.filename if result.status == "ok" else failed_copy
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, target)
    return result


def execute_in_place(entry: Notebook) -> RunResult:
    """Re-execute a committed notebook with nbclient and store its outputs in it."""
    from nbclient import NotebookClient

    from .generated import dumps_notebook, read_notebook
    from .kernels import AsyncIPCKernelManager

    nb_node, start = read_notebook(entry.path), time.perf_counter()
    # coalesce_streams: one stream output per cell, as nbval compares them, so re-runs do not churn
    NotebookClient(nb_node, timeout=600, kernel_name="python3", record_timing=False, coalesce_streams=True,
                   kernel_manager_class=AsyncIPCKernelManager, extra_arguments=KERNEL_ARGUMENTS,
                   resources={"metadata": {"path": str(NOTEBOOK_DIR)}}).execute()
    cells = check_all_cells_executed(nb_node, entry.filename)
    entry.path.write_text(dumps_notebook(nb_node), encoding="utf-8")
    return RunResult(entry, "ok", time.perf_counter() - start, cells=cells)


def _megabytes(count: int | None) -> str:
    return f"{count / 2**20:,.0f} MB" if count else "-"


def format_table(results: list[RunResult]) -> str:
    """The run's table: each notebook's result (``ok, 25 cells``, ``FAILED at In [4]``), seconds and peak memory."""
    rows = [("notebook", "result", "seconds", "peak memory")] + [(
        r.notebook.stem, f"ok, {r.cells} cells" if r.status == "ok" else
        "FAILED" + (f" at In [{r.failed_cell}]" if r.failed_cell is not None else ""),
        f"{r.seconds:.1f}", _megabytes(r.peak_bytes)) for r in results]
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    return "\n".join(f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:>{widths[2]}}  {d:>{widths[3]}}" for a, b, c, d in rows)


def markdown_table(results: list[RunResult]) -> str:
    """The run's table of what each notebook takes, in markdown (the course commits none: timings are the machine's)."""
    return "\n".join(["| # | Notebook | Seconds | Peak memory |", "| ---: | --- | ---: | ---: |"] + [
        f"| {r.notebook.number} | {r.notebook.title} | {r.seconds:.0f} | {_megabytes(r.peak_bytes)} |"
        for r in results])


def run_notebooks(numbers: list[str], device: str | None = None, out: Path = ROOT / "build" / "notebooks",
                  in_place: bool = False, markdown: bool = False, edition: str = "en") -> int:
    """Execute the notebooks numbered ``numbers`` (all when none) of ``edition``, print the table; 1 if any failed.
    A ``device`` that is not there (``cuda`` without a GPU) is a ValueError before any kernel starts."""
    chosen = [manifest.notebook(int(number)) for number in numbers] if numbers else manifest.NOTEBOOKS
    entries = [entry.in_edition(edition) for entry in chosen]
    if device is not None:
        from utils.devices import resolve_device

        try:
            resolve_device(device)
        except RuntimeError as error:
            raise ValueError(error) from None
    from tqdm.auto import tqdm

    results = []
    with tqdm(entries, unit="notebook", desc="executing", file=sys.stdout) as bar:
        for entry in bar:
            bar.set_postfix_str(entry.stem)
            results.append(execute_in_place(entry) if in_place else run_with_papermill(entry, out, device))
            if results[-1].error:
                tqdm.write(f"FAILED {entry.filename}: {results[-1].error}", file=sys.stdout)
    print(f"\n{format_table(results)}\non {machine()}")
    if markdown:
        print(f"\n{markdown_table(results)}")
    out = out.resolve()
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    if failed := [r for r in results if r.status != "ok"]:
        print("\n" + "\n".join(f"FAILED: {r.notebook.repo_path}, {r.error}" for r in failed))
        print(_("The failed runs are in {failed}; {folder} keeps the last good copies.").format(
            failed=shown / "failed", folder=shown))
        return 1
    print("\n" + (_("all {count} notebook(s) executed in place") if in_place else
                  _("all {count} notebook(s) executed into {folder}")).format(count=len(results), folder=shown))
    return 0
