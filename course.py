#!/usr/bin/env python3
"""The course's commands on Linux, macOS and Windows: ``python3 course.py run`` (``py course.py run`` on Windows).

For learners and maintainers; it needs only Python 3.10 or newer (no make, no shell). It makes sure the
virtual environment ``.venv`` has the tested versions (``requirements.txt`` with the pins of
``constraints.txt``; ``test`` adds ``requirements-dev.txt``), then runs the command inside it: on Linux and
macOS it becomes ``.venv/bin/python -m tools COMMAND ...`` (the same process), on Windows it starts
``.venv\\Scripts\\python.exe -m tools COMMAND ...`` once and exits with its status. The commands, their
options and their help are in tools/commands.py (``python3 course.py --help`` lists them); the
Makefile's targets are one-line wrappers of them. Later runs reinstall only when those files change.

PyTorch's build is chosen for the machine: where PyTorch's own index answers, uv installs it with
``--torch-backend auto`` (the CUDA build where it finds an NVIDIA driver, the CPU-only build where it
finds none; ``UV_TORCH_BACKEND`` chooses another); elsewhere, or where ``PIP_INDEX_URL`` or
``PIP_EXTRA_INDEX_URL`` is set, pip installs from the indexes pip is configured with (PyPI's build).
"""

# This file is read by whatever Python the learner has: Python 2.7 and 3.6 must be able to parse it (no
# f-strings, no annotations) to reach the check below and print its line instead of a SyntaxError.
import sys

MIN_PYTHON = (3, 10)


def too_old(version=sys.version_info):
    """The one line for a Python older than MIN_PYTHON (None for a new enough one)."""
    if tuple(version) >= MIN_PYTHON:
        return None
    return ("course.py: the course needs Python {0} or newer; this is {1} ({2}). Run it with a newer one, e.g. "
            "`py -3.12 course.py run` on Windows or `python3.12 course.py run`.").format(
        ".".join(map(str, MIN_PYTHON)), sys.version.split()[0], sys.executable)


if __name__ == "__main__":
    if too_old():
        sys.stderr.write(too_old() + "\n")
        sys.exit(2)
    from tools.bootstrap import main

    sys.exit(main())
