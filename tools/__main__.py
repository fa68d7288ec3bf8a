"""``python -m tools COMMAND``: the course's commands (tools/commands.py), as course.py runs them inside .venv."""

import sys

from .commands import main

sys.exit(main())
