"""utils.bench in a fresh interpreter: what importing it loads and prints, and its command line."""

import subprocess
import sys

from tools.course import ROOT


def test_importing_the_benchmark_prints_nothing():
    """torch.utils.benchmark imports torch.utils.cpp_extension, which logs "No CUDA runtime is found"
    to stderr on a CUDA build of PyTorch without a GPU (PyPI's default Linux build): the notebook
    would show it. utils.bench must not import either."""
    code = ("import sys, utils.bench; print(sorted(m for m in sys.modules"
            " if m.startswith(('torch.utils.benchmark', 'torch.utils.cpp_extension'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == "[]" and result.stderr == ""


def test_cli_runs_as_a_module():
    result = subprocess.run([sys.executable, "-m", "utils.bench", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0 and "GPT-2's sizes (V=50257, d=768, n=2048)" in result.stdout
