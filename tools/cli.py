"""What every program in tools/ does with bad input: one line, no traceback (a bad command line is
:class:`utils.cli.OneLineParser`'s). Standard library only, for tools/bootstrap.py before .venv exists; so the
course's one digest is here too."""

import errno
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from utils.language import _

#: the errors of a folder the learner cannot write in (a read-only mount, a folder of another user)
READ_ONLY = {errno.EACCES, errno.EPERM, errno.EROFS}


def read_only_line(root: Path) -> str:
    """What to do in a read-only copy of the course (lab machines mount course folders read-only)."""
    copy = f"`xcopy /e /i {root} %USERPROFILE%\\{root.name}`" if os.name == "nt" else f"`cp -r {root} ~/{root.name}`"
    return _("{root} is read-only, so the course cannot install or write its results there: copy it to a folder of "
             "yours ({copy}) and run the command in the copy").format(root=root, copy=copy)


def ensure_writable(folder: Path, root: Path) -> Path:
    """``folder`` made if missing; a read-only one is a ValueError saying so (and where to copy the course)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        if error.errno in READ_ONLY:
            raise ValueError(read_only_line(root)) from None
        raise
    return folder


def guard(main: Callable[[], int], prog: str) -> int:
    """``main()``'s exit status; bad input (ValueError, FileNotFoundError) is one line on stderr and 2."""
    try:
        return main()
    except (ValueError, FileNotFoundError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2


def digest(*parts: bytes | str) -> str:
    """The course's one digest (sha256, hex; text as UTF-8): of what an install depends on, of a practice copy."""
    return hashlib.sha256(b"".join(p.encode("utf-8") if isinstance(p, str) else p for p in parts)).hexdigest()
