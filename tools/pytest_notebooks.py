"""nbval's run of each course notebook, set up so that one kernel run checks four things.

Loaded by tools/pytest_course.py. When nbval collects an English notebook of the course,
:class:`ClientNotebook` takes the place of nbval's collector, and the notebook runs once:

- **nbval, strict**: every code cell's output is compared with the stored one (the set-up
  cell's with the line it prints on Colab, below), as nbval does for any notebook;
- **alone and offline**: the notebook runs in an empty folder (inside ``build/``, so that its
  set-up cell finds the course in a folder above, as in a clone), with no network: git may
  use only local files, Python sockets may reach only the loopback, and a stand-in ``pip``
  fails if anything tries to install. Colab itself (a fake ``google.colab``, the set-up
  cell fetching the course from a local origin) is simulated once, for the set-up cell
  that is the same generated text in every notebook: tests/notebooks/test_colab.py;
- **papermill**: its ``device`` parameter is injected by papermill's own steps before it
  runs a notebook (``load_notebook_node`` and ``parameterize_notebook``);
- **the practice copy** (``make practice``), which is the notebook without its worked answers:
  each exercise's checker cell, run on the answer cell as given, says in one line that the
  exercise is not answered yet and raises nothing; then the worked answer passes the same checker.

The last item of each notebook, ``clients``, checks what nbval does not: papermill's cell,
the practice copy's cells, and (under ``--nbval-lax``, as in the GPU job with
``COURSE_DEVICE=cuda``) that no cell wrote a warning.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import tempfile
from collections import defaultdict
from functools import cache
from pathlib import Path

import nbformat
import pytest
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, RunningKernel, start_new_kernel
from nbval.plugin import IPyNbCell, IPyNbFile, find_comment_markers, find_metadata_tags
from papermill.iorw import load_notebook_node
from papermill.parameterize import parameterize_notebook

from tools import manifest
from tools.generated import is_checker, is_worked_answer
from tools.run import stderr_outputs

#: the ``device`` parameter: unset, each notebook's default; the GPU job sets COURSE_DEVICE=cuda
DEVICE_ENV = "COURSE_DEVICE"
#: how a checker cell of the learner's begins its one line, run before they have answered
NOT_ANSWERED = "not answered yet: "
#: nbval waits 5 s for each output message once a cell has replied, and fails the cell if one is later,
#: which a busy machine can make it (the cell itself is bounded by --nbval-cell-timeout)
OUTPUT_TIMEOUT_S = 60
#: What this run sets beyond the device: notebook 6 times each case in one round instead of five (the
#: timings' outputs are not compared, and one round runs the whole mechanism, in seconds less).
SUITE_PARAMETERS = {6: {"repeats": 1}}

# Stand-ins put first on the kernel's PYTHONPATH.
FAKE_MODULES = {
    # `python -m pip` must not run: the packages are all here
    "pip/__init__.py": "",
    "pip/__main__.py": "import sys\nsys.exit('the set-up cell ran pip although every package is installed')\n",
    # no network: Python sockets may connect to the loopback only
    "sitecustomize.py": '''\
import ipaddress
import socket

_connect = socket.socket.connect


def _loopback_only(sock, address):
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            loopback = ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            raise OSError(f"network access is blocked in this test (tried {address})")
    return _connect(sock, address)


socket.socket.connect = _loopback_only
''',
}


def device(entry: manifest.Notebook) -> str:
    return os.environ.get(DEVICE_ENV) or entry.default_device


@cache
def scratch() -> Path:
    """This process's scratch folder, inside the course (removed at exit by :func:`remove_scratch`)."""
    (manifest.ROOT / "build").mkdir(exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="notebook-runs-", dir=manifest.ROOT / "build"))


def remove_scratch() -> None:
    if scratch.cache_info().currsize:
        shutil.rmtree(scratch(), ignore_errors=True)


@cache
def fake_modules() -> Path:
    folder = scratch() / "fake-modules"
    for name, text in FAKE_MODULES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def offline_environment() -> dict[str, str]:
    """The kernel's environment: the stand-ins first, no network."""
    env = {name: value for name, value in os.environ.items() if name.lower() != "no_proxy"}
    env.update({
        "PYTHONPATH": str(fake_modules()),
        "GIT_ALLOW_PROTOCOL": "file",  # git may not fetch over the network
        "PIP_NO_INDEX": "1",
    })
    for proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        env[proxy] = "http://127.0.0.1:9"  # discard port: nothing answers
    return env


def _errors(cell: nbformat.NotebookNode) -> list:
    return [output for output in cell.outputs if output.output_type == "error"]


def client_notebook(entry: manifest.Notebook) -> nbformat.NotebookNode:
    """The notebook as this run executes it: papermill's parameters injected."""
    original = load_notebook_node(str(entry.path))  # as papermill reads it: every cell has metadata.tags
    parameters = {"device": device(entry), **SUITE_PARAMETERS.get(entry.number, {})}
    nb = parameterize_notebook(original, parameters, kernel_name="python3", language="python")
    for cell in nb.cells:
        if "injected-parameters" in cell.metadata.tags:
            cell.id = "injected-parameters"  # papermill's is random: the test's name must be the same in every worker
            cell.execution_count = 1  # compared, as every stored cell is: it prints nothing
    return nb


def _stream_text(cell: nbformat.NotebookNode) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def check_practice_section(nb: nbformat.NotebookNode) -> None:
    """The practice copy is the notebook without its worked answers (``solution`` cells). So every checker cell
    outside them, run on the answer cell as given, printed one line, that the exercise is not answered yet, and
    raised nothing; and every worked answer runs a checker, whose verdict nbval compares."""
    learners = [cell for cell in nb.cells if is_checker(cell) and not is_worked_answer(cell)]
    worked = [cell for cell in nb.cells if is_worked_answer(cell)]
    assert len(worked) >= 2, "a worked answer per exercise"
    for cell in worked:
        assert is_checker(cell), f"the worked answer {cell.id} runs no checker"
    for cell in learners:
        assert not _errors(cell), f"the checker {cell.id} raised {_errors(cell)[0].ename} on an answer not written yet"
        lines = _stream_text(cell).splitlines()
        assert len(lines) == 1 and lines[0].startswith(NOT_ANSWERED), \
            f"the checker {cell.id}, before an answer, printed {lines} instead of one line {NOT_ANSWERED!r}..."


class FolderKernel(RunningKernel):
    """nbval's kernel, started in ``cwd`` with the environment ``env``."""

    def __init__(self, kernel_name: str, cwd: Path, env: dict[str, str], startup_timeout: float):
        self.km, self.kc = start_new_kernel(startup_timeout=startup_timeout, kernel_name=kernel_name,
                                            stderr=subprocess.DEVNULL, cwd=str(cwd), env=env)
        self._ensure_iopub_up()


class ClientNotebook(IPyNbFile):
    """One course notebook: nbval's items for the cells of :func:`client_notebook`, run in an
    empty folder, offline, then :class:`ClientChecks`."""

    entry: manifest.Notebook

    def collect(self):
        self.nb = client_notebook(self.entry)
        self.cell_items = []
        code = [cell for cell in self.nb.cells if cell.cell_type == "code"]
        for number, cell in enumerate(code):
            options = defaultdict(bool, find_metadata_tags(cell.metadata))  # as nbval reads a cell's tags
            options.update(find_comment_markers(cell.source))
            options.setdefault("check", self.compare_outputs)
            item = IPyNbCell.from_parent(self, name=f"Cell {number} ({cell.id})", cell_num=number, cell=cell,
                                         options=options)
            item.output_timeout = OUTPUT_TIMEOUT_S
            self.cell_items.append(item)
            yield item
        yield ClientChecks.from_parent(self, name="clients")

    def setup(self):
        # a folder empty but for the notebook
        self.folder = Path(tempfile.mkdtemp(prefix=f"{self.entry.stem}-", dir=scratch()))
        nbformat.write(self.nb, self.folder / self.entry.filename)
        options = self.config.option
        if options.nbval_current_env:  # as nbval chooses the kernel
            kernel_name = CURRENT_ENV_KERNEL_NAME
        else:
            kernel_name = options.nbval_kernel_name or self.nb.metadata.get("kernelspec", {}).get("name", "python3")
        self.kernel = FolderKernel(kernel_name, self.folder, offline_environment(),
                                  startup_timeout=options.nbval_kernel_startup_timeout)
        self.setup_sanitize_files()

    def executed_notebook(self) -> nbformat.NotebookNode:
        """The notebook with the outputs of this run (KeyError for a cell that did not run)."""
        nb = copy.deepcopy(self.nb)
        outputs = {item.cell.id: getattr(item, "test_outputs", None) for item in self.cell_items}
        for cell in nb.cells:
            if cell.cell_type == "code":
                if outputs[cell.id] is None:
                    raise KeyError(cell.id)
                cell.outputs = outputs[cell.id]
        return nb


class ClientChecks(pytest.Item):
    """What one run of the notebook shows beyond nbval's comparison."""

    def runtest(self):
        parent: ClientNotebook = self.parent
        try:
            nb = parent.executed_notebook()
        except KeyError as missing:
            pytest.skip(f"cell {missing} did not run (deselected?): these checks need the whole notebook")
        injected = [i for i, cell in enumerate(nb.cells) if "injected-parameters" in cell.metadata.get("tags", [])]
        parameters = [i for i, cell in enumerate(nb.cells) if "parameters" in cell.metadata.get("tags", [])]
        assert len(injected) == 1 and injected[0] == parameters[0] + 1, "papermill's cell follows the parameters cell"
        assert f'device = "{device(parent.entry)}"' in nb.cells[injected[0]].source
        warnings = stderr_outputs(nb)
        assert not warnings, f"a warning reached the learner's output: {warnings[0]}"
        check_practice_section(nb)

    def reportinfo(self):
        return self.path, None, f"{self.parent.entry.stem}: papermill's parameters, the practice copy"


def course_notebook(path: Path) -> manifest.Notebook | None:
    """The manifest's English notebook at ``path``, if it is one."""
    return next((entry for entry in manifest.NOTEBOOKS if entry.path == Path(path).resolve()), None)
