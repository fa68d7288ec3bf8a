"""``python -m tools COMMAND``: the course's commands (tools/commands.py), as course.py runs them inside .venv."""

from .commands import main

raise SystemExit(main())
