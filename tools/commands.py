"""The course's commands (``python3 course.py COMMAND``): one table of functions, one parser. course.py parses
with the system's Python (a mistyped command costs no install), so only the standard library is imported at the
top; each command imports what it needs when it runs, inside .venv."""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from utils import language
from utils.cli import COURSE as PROG  # how the learner runs the commands: ``py course.py`` on Windows
from utils.cli import OneLineParser, did_you_mean
from utils.language import N_, _

from .cli import ensure_writable, guard

ROOT = Path(__file__).resolve().parent.parent
#: what ``run`` and ``execute`` take, said when a word is none of them
NOTEBOOK_WORDS = N_("a notebook's number (1 or 01), a range (1-3) or its file (notebooks/01_one_hot_matmul.ipynb)")


def notebook_numbers(words: list[str], folder: Path = ROOT / "notebooks") -> list[str]:
    """The numbers of the notebooks ``words`` name (:data:`NOTEBOOK_WORDS`, a file from any folder), or a ValueError."""
    files = {path.name: int(path.name.partition("_")[0]) for path in folder.glob("[0-9]*_*.ipynb")}
    numbers: list[int] = []
    for word in words:
        path = Path(word)
        if word.endswith(".ipynb") and path.name in files and path.parent.name != "zh":
            numbers.append(files[path.name])
        elif found := re.fullmatch(r"(\d+)(?:-(\d+))?", word):
            first, last = int(found[1]), int(found[2] or found[1])
            if any(number not in files.values() for number in (first, last)) or first > last:
                raise ValueError(_("no notebook {word}; the notebooks are {first} to {last}: give {words}").format(
                    word=word, first=min(files.values()), last=max(files.values()), words=_(NOTEBOOK_WORDS)))
            numbers.extend(range(first, last + 1))
        else:
            raise ValueError(_("{word!r} names no notebook: give {words}").format(word=word, words=_(NOTEBOOK_WORDS)))
    return [str(number) for number in dict.fromkeys(numbers)]


def run(args, extra: list[str]) -> int:
    from .run import run_notebooks

    out = ensure_writable(args.out or ROOT / "build" / "notebooks" / ("zh" if args.zh else ""), ROOT)
    return run_notebooks(args.notebooks, device=args.device, out=out, markdown=args.markdown,
                         edition="zh" if args.zh else "en")


def execute(args, extra: list[str]) -> int:
    from .run import run_notebooks
    from .sync import sync

    return run_notebooks(args.notebooks, in_place=True) or sync()


def lab_option_problem(extra: list[str], known: set[str]) -> str:
    """The one line for a ``--`` option that neither ``lab`` nor JupyterLab has (``""`` if none)."""
    # lab's own, and those of JupyterLab's app that it does not list as flags or aliases
    options = {"practice", "zh", "help", "help-all", "version"} | {name.replace("_", "-") for name in known}
    for arg in extra:
        name = arg[2:].partition("=")[0].replace("_", "-")
        if arg.startswith("--") and name and "." not in name and name not in options:  # --ServerApp.token=...
            close = difflib.get_close_matches(name, sorted(options), 1, 0.75)
            return _("unknown option {option}{did_you_mean} (`{prog} lab --help` lists JupyterLab's options)").format(
                option=arg, did_you_mean=_("; did you mean {close}?").format(close=f"--{close[0]}") if close else ";",
                prog=PROG)
    return ""


def lab_arguments(practice_copies: bool, code: str = "en") -> list[str]:
    """JupyterLab's arguments: the repository as the server's root, so that every relative link of the notebooks
    resolves (``../README.md``, the other edition, the worked notebooks), and notebook 0 of the edition ``code``."""
    from .manifest import NOTEBOOKS, edition
    from .practice import PRACTICE_DIR

    entry = NOTEBOOKS[0].in_edition(code)
    first = PRACTICE_DIR / edition(code).subdir / entry.filename if practice_copies else entry.path
    return [f"--ServerApp.root_dir={ROOT}", str(first)]


def lab(args, extra: list[str]) -> int:
    """JupyterLab, in this process; its own options pass through (``--allow-root`` is added for root)."""
    from jupyterlab.labapp import LabApp

    known = {name for key in [*LabApp.flags, *LabApp.aliases] for name in (key if isinstance(key, tuple) else (key,))}
    if problem := lab_option_problem(extra, known):
        raise ValueError(problem)
    arguments = lab_arguments(args.practice, "zh" if args.zh else "en")
    if args.practice and not Path(arguments[-1]).is_file():
        practice(argparse.Namespace(out=ROOT / "build" / "practice", branch=None, zh=args.zh), [])
    if os.name == "posix" and os.geteuid() == 0 and "--allow-root" not in extra:
        extra = [*extra, "--allow-root"]
        print(_("Running as root: passing --allow-root to JupyterLab (it refuses to start as root otherwise)."))
    LabApp.launch_instance([*arguments, *extra])
    return 0


def test(args, extra: list[str]) -> int:
    import pytest

    return int(pytest.main(extra))


def practice(args, extra: list[str]) -> int:
    from .practice import PRACTICE_DIR, edited_copies, write_branch, write_practice

    if args.branch:
        print(_("wrote {count} files of the practice branch into {folder}").format(
            count=len(write_branch(args.branch)), folder=args.branch))
        return 0
    out = ensure_writable(args.out.resolve(), ROOT)
    kept, written = edited_copies(out), write_practice(out, codes=("zh",) if args.zh else None)
    for path in written:
        print(_("wrote {path}").format(path=path))
    for path in kept:
        print(_("kept {path}: you have worked in it (move it away, or delete it, for a fresh copy)").format(path=path))
    print(_("{count} practice copies: outputs cleared, worked answers left out").format(count=len(written)))
    if out == PRACTICE_DIR:
        print(_("Open them in JupyterLab: {command}").format(command=f"{PROG} lab --practice{' --zh' * args.zh}"))
    return 0


def site(args, extra: list[str]) -> int:
    from .website import INDEX, build

    start, out = time.perf_counter(), args.out.resolve()
    pages = sum(path.suffix == ".html" for path in build(out)) - 1
    print(f"wrote {pages} notebook page(s), the index and the practice copies in {time.perf_counter() - start:.1f} s; "
          f"open {(out / INDEX).as_uri()}")
    return 0


def check(args, extra: list[str]) -> int:
    from utils import env_check

    return env_check.main(extra, prog=f"{PROG} check")


def install(args, extra: list[str]) -> int:
    print(f"{sys.prefix} is ready: {sys.executable}")
    return 0


def sync(args, extra: list[str]) -> int:
    from .sync import sync

    return sync(check=args.check)


def versions(args, extra: list[str]) -> int:
    """noxfile.py's session for the environment named first; the rest are notebook numbers."""
    if not extra:
        raise ValueError("versions needs an environment: pinned, oldest, colab or newest")
    return subprocess.run([sys.executable, "-m", "nox", "-s", extra[0], "--", *extra[1:]], cwd=ROOT).returncode


def lock(args, extra: list[str]) -> int:
    """constraints.txt pinned anew for every supported Python (uv's universal resolver), torch held; its header kept."""
    constraints, build = ROOT / "constraints.txt", ROOT / "build"
    text = constraints.read_text(encoding="utf-8")
    torch_pin = next(line.split(";")[0].strip() for line in text.splitlines() if line.startswith("torch=="))
    build.mkdir(exist_ok=True)
    (build / "torch-pin.txt").write_text(torch_pin + "\n", encoding="utf-8")
    for step in (["-m", "pip", "install", "--quiet", "uv"],
                 ["-m", "uv", "pip", "compile", "requirements-dev.txt", "-c", "build/torch-pin.txt", "--universal",
                  "--python-version", "3.10", "--no-header", "--quiet", "-o", "build/constraints.body.txt"]):
        if code := subprocess.run([sys.executable, *step], cwd=ROOT).returncode:
            return code
    header = "".join(text.splitlines(keepends=True)[:3])
    constraints.write_text(header + (build / "constraints.body.txt").read_text(encoding="utf-8"), encoding="utf-8")
    return 0


def clean(args, extra: list[str]) -> int:
    for name in ("build", ".pytest_cache", ".ruff_cache"):
        shutil.rmtree(ROOT / name, ignore_errors=True)
    for folder in ROOT.rglob("__pycache__"):
        if ".venv" not in folder.relative_to(ROOT).parts:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


#: each command: its function, what it needs from .venv ("" nothing, "learner": requirements.txt, "dev":
#: requirements-dev.txt too), whether other arguments pass through to the program it runs, and its help
COMMANDS = {
    "run": (run, "learner", False, "run the notebooks 0 to 9 (or those numbered) headless, then print a table"),
    "lab": (lab, "learner", True, "open the notebooks (or the practice copies) in JupyterLab; JupyterLab's own "
                                  "options pass through, e.g. --port 8899 --no-browser"),
    "test": (test, "dev", True, "run the test suite; pytest's options pass through, e.g. tests/unit, or a file"),
    "practice": (practice, "learner", False, "write the practice copies into build/practice/"),
    "site": (site, "learner", False, "write the offline web site into build/site/"),
    "check": (check, "learner", True, "check the environment (python -m utils.env_check; --dev for the test tools)"),
    "install": (install, "learner", False, "only set up .venv (--dev: the test suite's tools too)"),
    "sync": (sync, "dev", False, "maintainers: regenerate the generated cells, README blocks, images and the "
                                 "Chinese edition"),
    "execute": (execute, "dev", False, "maintainers: re-execute notebooks in place, then sync"),
    "versions": (versions, "dev", True, "maintainers: run every notebook in another environment: pinned, "
                                            "oldest, colab or newest"),
    "lock": (lock, "dev", False, "maintainers: pin constraints.txt anew"),
    "clean": (clean, "", False, "remove build/ and the caches (.venv stays)"),
}


def parser() -> tuple[OneLineParser, dict[str, OneLineParser]]:
    """The command line, and each command's own parser."""
    top = OneLineParser(prog=PROG, allow_abbrev=False, description="The course's commands (README.md, Start).")
    top.add_argument("--venv", type=Path, default=ROOT / ".venv", help="the virtual environment (default: .venv)")
    top.add_argument("--constraints", default="constraints.txt",
                     help="the pins to install with (default: constraints.txt; '' for the newest releases)")
    table = top.add_subparsers(dest="command", metavar="command", title="commands", parser_class=OneLineParser)
    commands = {name: table.add_parser(name, help=text, description=text, allow_abbrev=False, add_help=not through)
                for name, (_, _, through, text) in COMMANDS.items()}
    commands["run"].add_argument("--device", help="each notebook's `device`: auto, cpu, cuda or mps (default: each "
                                 "notebook's own, the CPU)")
    commands["run"].add_argument("--out", type=Path, help="folder for the executed copies (default: "
                                 "build/notebooks, build/notebooks/zh for --zh)")
    commands["run"].add_argument("--markdown", action="store_true", help="also print the table as markdown")
    for name in ("run", "execute"):
        commands[name].add_argument("notebooks", nargs="*", help=f"{NOTEBOOK_WORDS}; several (default: all)")
    commands["lab"].add_argument("--practice", action="store_true", help="the practice copies (made when missing)")
    for name in ("run", "lab", "practice"):
        commands[name].add_argument("--zh", action="store_true", help="the Chinese edition (notebooks/zh/), with "
                                    "course.py's messages in Chinese")
    for name in ("practice", "site"):
        commands[name].add_argument("--out", type=Path, default=ROOT / "build" / name,
                                    help=f"where to write (default: build/{name})")
    commands["practice"].add_argument("--branch", type=Path, metavar="FOLDER", help="instead, write the practice "
                                      "branch's tree (the copies for learners who never clone) into FOLDER")
    commands["install"].add_argument("--dev", action="store_true", help="the test suite's tools too")
    commands["sync"].add_argument("--check", action="store_true", help="write nothing; exit 1 if a run would "
                                  "change files")
    return top, commands


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The command and the arguments that pass through to its program; a bad command line is one line, exit 2."""
    top, commands = parser()
    options, index = top._option_string_actions, 0
    while index < len(argv) and argv[index].startswith("-"):  # (argparse would take --vnev's value for the command)
        name = argv[index].partition("=")[0]
        if name not in options:
            top.error(_("unrecognized argument {argument}").format(argument=name) + did_you_mean(name, options))
        index += 1 if "=" in argv[index] or options[name].nargs == 0 else 2
    args, extra = top.parse_known_args(argv)
    if args.command is None:
        top.exit(2, _("{prog} needs a command; to start, `{prog} lab` opens the notebooks in JupyterLab.").format(
            prog=PROG) + f"\n\n{top.format_help()}")
    command = commands[args.command]
    if extra and not COMMANDS[args.command][2]:
        command.error(_("unrecognized argument {argument}").format(argument=extra[0])
                      + did_you_mean(extra[0].partition("=")[0], command._option_string_actions))
    if hasattr(args, "notebooks"):
        try:
            args.notebooks = notebook_numbers(args.notebooks)
        except ValueError as error:
            command.error(str(error))
    if args.constraints and not (ROOT / args.constraints).is_file():
        top.error(f"no constraints file {args.constraints!r}")
    return args, extra


def needs(args: argparse.Namespace) -> str:
    """What the command needs from .venv: "", "learner" or "dev"."""
    return "dev" if args.command == "install" and args.dev else COMMANDS[args.command][1]


def call(args: argparse.Namespace, extra: list[str]) -> int:
    """Run the command; bad input (ValueError, FileNotFoundError) is one line on stderr and exit status 2."""
    return guard(lambda: COMMANDS[args.command][0](args, extra), f"{PROG} {args.command}")


def choose_language(argv: list[str]) -> None:
    """course.py's messages in Chinese where the command line asks for the Chinese edition (``--zh``)."""
    if "--zh" in argv:
        language.use("zh")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    choose_language(argv)
    return call(*parse(argv))
