"""utils.bench in a fresh interpreter: what importing it prints, and its command line."""

import subprocess
import sys

from tools.manifest import ROOT


def test_importing_the_benchmark_prints_nothing():
    """It imports PyTorch's Timer (torch.utils.benchmark), whose import of torch.utils.cpp_extension writes "No
    CUDA runtime is found" to stderr on a CUDA build of PyTorch without a GPU: the notebook would show it.
    utils.bench holds that one line back."""
    code = "import sys, utils.bench.measure; print('torch.utils.benchmark' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == "True" and result.stderr == ""


#: A stand-in for torch.utils.benchmark that, as it is imported, writes what PyTorch's CUDA builds write on a
#: machine without a GPU: the notice printed (torch < 2.4) or logged (torch >= 2.4), and a line of its own.
FAKE_TIMER = """
import importlib.abc, importlib.util, logging, sys

class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        return importlib.util.spec_from_loader(name, self) if name == "torch.utils.benchmark" else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        sys.stderr.write("No CUDA runtime is found, using CUDA_HOME='/usr/local'\\n")
        logging.getLogger("torch.utils.cpp_extension").warning("No CUDA runtime is found, using CUDA_HOME='/usr'")
        sys.stderr.write("something else\\n")
        module.Timer = object

sys.meta_path.insert(0, Finder())
import utils.bench.measure
"""


def test_the_cuda_runtime_notice_alone_is_held_back():
    result = subprocess.run([sys.executable, "-c", FAKE_TIMER], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stderr == "something else\n"


def test_the_command_line_runs_as_a_module_and_a_bad_argument_gets_one_line():
    result = subprocess.run([sys.executable, "-m", "utils.bench", "sweep", "--help"], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0 and "GPT-2's sizes (V=50257, d=768, n=2048)" in result.stdout
    result = subprocess.run([sys.executable, "-m", "utils.bench", "bandwidth", "--min-run-time", "nan"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("python -m utils.bench bandwidth: argument --min-run-time: expected a positive, "
                             "finite number, got 'nan' (see --help)\n")
