"""nbval's run of each course notebook (tools/pytest_course.py puts :class:`ClientNotebook` in the place of nbval's
collector): every output compared with the stored one, in an empty folder inside ``build/`` (its set-up cell finds
the course in a folder above, as in a clone) with no network and no ``pip`` (Colab itself: once, in
tests/notebooks/test_colab.py), with its ``device`` parameter injected by papermill's own steps. Its last item,
``clients``, checks papermill's cell, that no cell wrote a warning (which ``--nbval-lax``, as in the GPU job, would
not compare), and the practice copy: each checker, run on the answer cell as given, says in one line that the
exercise is not answered yet and raises nothing.
"""

import atexit
import copy
import os
import shutil
import tempfile
from collections import defaultdict
from functools import cache
from pathlib import Path
from unittest import mock

import nbformat
import nbval.kernel
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile, find_comment_markers, find_metadata_tags
from papermill.iorw import load_notebook_node
from papermill.parameterize import parameterize_notebook

from tools import manifest
from tools.generated import is_checker, is_worked_answer
from tools.kernels import IPCKernelManager
from tools.run import stderr_outputs

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
    """The ``device`` parameter: ``$COURSE_DEVICE`` (the GPU job sets cuda), else the notebook's default."""
    return os.environ.get("COURSE_DEVICE") or entry.default_device


@cache
def scratch() -> Path:
    """This process's scratch folder, inside the course (removed at exit), with the stand-ins in ``fake-modules/``."""
    (manifest.ROOT / "build").mkdir(exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="notebook-runs-", dir=manifest.ROOT / "build"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for name, text in FAKE_MODULES.items():
        (folder / "fake-modules" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / "fake-modules" / name).write_text(text)
    return folder


def offline_environment() -> dict[str, str]:
    """The kernel's environment: the stand-ins first, no network (git may fetch only over ``file://``)."""
    env = {name: value for name, value in os.environ.items() if name.lower() != "no_proxy"}
    env |= dict.fromkeys(("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"),
                         "http://127.0.0.1:9")  # the discard port: nothing answers
    return env | {"PYTHONPATH": str(scratch() / "fake-modules"), "GIT_ALLOW_PROTOCOL": "file", "PIP_NO_INDEX": "1"}


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


def check_practice_section(nb: nbformat.NotebookNode) -> None:
    """Every checker cell outside the worked answers (``solution`` cells, which the practice copy leaves out) printed
    one line, that the exercise is not answered yet, and raised nothing; every worked answer runs a checker."""
    learners = [cell for cell in nb.cells if is_checker(cell) and not is_worked_answer(cell)]
    worked = [cell for cell in nb.cells if is_worked_answer(cell)]
    assert len(worked) >= 2, "a worked answer per exercise"
    for cell in worked:
        assert is_checker(cell), f"the worked answer {cell.id} runs no checker"
    for cell in learners:
        errors = [output.ename for output in cell.outputs if output.output_type == "error"]
        assert not errors, f"the checker {cell.id} raised {errors[0]} on an answer not written yet"
        lines = "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream").splitlines()
        assert len(lines) == 1 and lines[0].startswith(NOT_ANSWERED), \
            f"the checker {cell.id}, before an answer, printed {lines} instead of one line {NOT_ANSWERED!r}..."


class ClientNotebook(IPyNbFile):
    """nbval's items for the cells of :func:`client_notebook`, run in an empty folder, offline; then the checks."""

    entry: manifest.Notebook

    def collect(self):
        self.nb = client_notebook(self.entry)
        self.cell_items = []
        for number, cell in enumerate(cell for cell in self.nb.cells if cell.cell_type == "code"):
            options = defaultdict(bool, find_metadata_tags(cell.metadata))  # as nbval reads a cell's tags
            options.update(find_comment_markers(cell.source))
            options.setdefault("check", self.compare_outputs)
            self.cell_items.append(IPyNbCell.from_parent(self, name=f"Cell {number} ({cell.id})", cell_num=number,
                                                         cell=cell, options=options))
            self.cell_items[-1].output_timeout = OUTPUT_TIMEOUT_S
        return [*self.cell_items, ClientChecks.from_parent(self, name="clients")]

    def setup(self):
        self.folder = Path(tempfile.mkdtemp(prefix=f"{self.entry.stem}-", dir=scratch()))  # empty but for the notebook
        nbformat.write(self.nb, self.folder / self.entry.filename)
        options = self.config.option  # the kernel chosen as nbval chooses it
        name = nbval.kernel.CURRENT_ENV_KERNEL_NAME if options.nbval_current_env else (
            options.nbval_kernel_name or self.nb.metadata.get("kernelspec", {}).get("name", "python3"))
        with (mock.patch.dict(os.environ, offline_environment(), clear=True),  # the kernel inherits it
              mock.patch.object(nbval.kernel, "KernelManager", IPCKernelManager)):
            self.kernel = nbval.kernel.RunningKernel(name, str(self.folder), options.nbval_kernel_startup_timeout)
        self.setup_sanitize_files()


class ClientChecks(pytest.Item):
    """What one run of the notebook shows beyond nbval's comparison."""

    def runtest(self):
        parent: ClientNotebook = self.parent
        nb = copy.deepcopy(parent.nb)  # with the outputs of this run
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        for item in parent.cell_items:
            if item.test_outputs is None:
                pytest.skip(f"cell {item.cell.id!r} did not run (deselected?): these checks need the whole notebook")
            code[item.cell_num].outputs = item.test_outputs
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
