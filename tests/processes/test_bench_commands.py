"""utils.bench in a fresh interpreter: its command line, run for real at small sizes, and what importing it prints.

The parser's answers (help, a bad argument, a run that skips everything) and the import's held-back notice are unit
tests (tests/unit/test_bench.py): they need no new interpreter."""

import subprocess
import sys

from tools.manifest import ROOT

#: against a hang only, under pytest-timeout's 600 s (so the run is killed, and named): the run takes about 5 s of
#: CPU, 3.5 of them importing PyTorch, and at a load average of 28 on 2 cores it took over 120 s
HANG_S = 500
#: d: rows of 1 KiB (256 float32). The cold copy spans 4 x the cache in slices of n rows, each a view that the study
#: makes: at d = 16 that was 16 x as many views, 10.3 s of CPU for the run where d = 256 takes 4.8 s.
DIM = "256"


def test_the_command_line_measures_and_prints_nothing_on_stderr():
    """`python -m utils.bench regimes` at small sizes, for real: a table and the verdict on stdout, and nothing on
    stderr (importing PyTorch's Timer can write "No CUDA runtime is found" there; utils.bench holds it back)."""
    result = subprocess.run(
        [sys.executable, "-m", "utils.bench", "regimes", "--vocab-size", "1000", "--dim", DIM, "--tokens", "16,64",
         "--repeats", "2", "--min-run-time", "0.001", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].startswith("device cpu, float32, 1 thread, torch ")
    assert [line.split()[0] for line in lines if line.split()[0] in ("16", "64")] == ["16", "64"]
    assert lines[-1].startswith(("no spread over 25% ", "noisy: "))

