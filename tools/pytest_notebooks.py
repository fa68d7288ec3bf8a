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
- **the practice copy** (``make practice``): its exercise section, stubs instead of answers,
  runs just before the worked one. Each stub raises and each checker rejects it; then the
  worked answers, whose stored outputs nbval compares, must pass.

The last item of each notebook, ``clients``, checks what nbval does not: papermill's cell,
the practice section, and (under ``--nbval-lax``, as in the GPU job with
``COURSE_DEVICE=cuda``) that no cell wrote a warning.
"""

from __future__ import annotations

import copy
import os
import re
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

from tools import generated, manifest, practice
from tools.run import stderr_outputs

#: the ``device`` parameter: unset, each notebook's default; the GPU job sets COURSE_DEVICE=cuda
DEVICE_ENV = "COURSE_DEVICE"
PRACTICE_SUFFIX = "-practice"
#: nbval waits 5 s for each output message once a cell has replied, and fails the cell if one is later,
#: which a busy machine can make it (the cell itself is bounded by --nbval-cell-timeout)
OUTPUT_TIMEOUT_S = 60
#: What this run sets beyond the device: notebook 6 times each case in one round instead of five (the
#: timings' outputs are not compared, and one round runs the whole mechanism, in seconds less).
SUITE_PARAMETERS = {6: {"repeats": 1}}
#: the heading of the part after the exercises that the lesson never needs
GOING_DEEPER = "## Going deeper"

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


def _has_heading(cell: nbformat.NotebookNode, heading: str) -> bool:
    return cell.cell_type == "markdown" and any(line.strip() == heading for line in cell.source.splitlines())


def _errors(cell: nbformat.NotebookNode) -> list:
    return [output for output in cell.outputs if output.output_type == "error"]


def _exercises_start(nb: nbformat.NotebookNode) -> int:
    return next(i for i, cell in enumerate(nb.cells) if _has_heading(cell, "## Exercises"))


def _exercises_end(nb: nbformat.NotebookNode, start: int) -> int:
    """Where the exercises end: at a ``## Going deeper`` part (which the drills need not run twice), else the footer."""
    for i in range(start + 1, len(nb.cells)):
        if nb.cells[i].get("id") == generated.FOOTER_ID or _has_heading(nb.cells[i], GOING_DEEPER):
            return i
    raise ValueError("the notebook has no footer cell after its exercises; run `make sync`")


def _unchecked(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A cell that nbval runs without comparing: no stored count, no stored outputs."""
    cell.execution_count = None
    cell.outputs = []
    return cell


def client_notebook(entry: manifest.Notebook) -> nbformat.NotebookNode:
    """The notebook as this run executes it: papermill's parameters injected, and the practice copy's
    exercise section (ids suffixed, errors allowed) before the worked one."""
    original = load_notebook_node(str(entry.path))  # as papermill reads it: every cell has metadata.tags
    parameters = {"device": device(entry), **SUITE_PARAMETERS.get(entry.number, {})}
    nb = parameterize_notebook(original, parameters, kernel_name="python3", language="python")
    for cell in nb.cells:
        if "injected-parameters" in cell.metadata.tags:
            cell.id = "injected-parameters"  # papermill's is random: the test's name must be the same in every worker
            cell.execution_count = 1  # compared, as every stored cell is: it prints nothing
    copy_ = practice.practice_notebook(original, entry, manifest.ENGLISH, entry.path.parent)
    start = _exercises_start(copy_)
    drills = copy_.cells[start:_exercises_end(copy_, start)]  # the copy is this function's own: no deepcopy
    for cell in drills:
        cell.id += PRACTICE_SUFFIX
        if cell.cell_type == "code":
            _unchecked(cell).metadata.tags.append("raises-exception")  # nbval goes on after an error
    start = _exercises_start(nb)
    nb.cells = [*nb.cells[:start], *drills, *nb.cells[start:]]
    return nb


def _stream_text(cell: nbformat.NotebookNode) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def check_practice_section(nb: nbformat.NotebookNode) -> None:
    """Each stub raises ``NotImplementedError("Exercise N.M: ...")``, at once or from a function of it that the
    checker calls, and the checker after it rejects it."""
    drills = [cell for cell in nb.cells if cell.get("id", "").endswith(PRACTICE_SUFFIX)]
    stubs = [i for i, cell in enumerate(drills) if practice.SOLUTION_TAG in cell.metadata.get("tags", [])]
    assert len(stubs) >= 2, "the practice section has a stub per exercise"
    for index in stubs:
        stub, after = drills[index], drills[index + 1:index + 2]
        # the checker follows the worked answer and must reject its stub; a prediction's comes before it (guess,
        # checker, worked answer) and, with the guess still None, must judge nothing
        judges_stub = bool(after) and re.search(r"exercises\.check_\w+", after[0].source) is not None
        checker = after[0] if judges_stub else drills[index - 1]
        assert re.search(r"exercises\.check_\w+", checker.source), f"cell {checker.id}: expected a checker"
        if judges_stub:
            assert _errors(checker), f"the checker {checker.id} accepted the stub of {stub.id}"
        else:
            assert _stream_text(checker).startswith("no guess yet"), f"the checker {checker.id} judged no guess"
        hint = re.search(r'raise NotImplementedError\("(Exercise \d+\.\d+:)', stub.source)
        assert hint, f"cell {stub.id}: expected a stub that raises NotImplementedError(\"Exercise N.M: ...\")"
        if _errors(stub):  # a stub that raises at once
            error = _errors(stub)[0]
            assert error.ename == "NotImplementedError" and error.evalue.startswith(hint.group(1)), \
                f"cell {stub.id} raised {error.ename}: {error.evalue}"
        else:  # a function of the stub raised when the checker called it: the learner sees that error as it is
            error = _errors(checker)[0]
            assert error.ename == "NotImplementedError" and error.evalue.startswith(hint.group(1)), \
                f"the checker {checker.id} answered the stub of {stub.id} with {error.ename}: {error.evalue}"
    assert "correct:" not in "".join(_stream_text(cell) for cell in drills if cell.cell_type == "code")


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
        lesson = copy.copy(nb)
        lesson.cells = [cell for cell in nb.cells if not cell.get("id", "").endswith(PRACTICE_SUFFIX)]
        warnings = stderr_outputs(lesson)
        assert not warnings, f"a warning reached the learner's output: {warnings[0]}"
        check_practice_section(nb)

    def reportinfo(self):
        return self.path, None, f"{self.parent.entry.stem}: papermill's parameters, the practice copy"


def course_notebook(path: Path) -> manifest.Notebook | None:
    """The manifest's English notebook at ``path``, if it is one."""
    return next((entry for entry in manifest.NOTEBOOKS if entry.path == Path(path).resolve()), None)
