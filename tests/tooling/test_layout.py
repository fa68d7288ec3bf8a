"""The layout: utils/ holds the lesson, its subpackages the furniture, tools/ what maintainers run; no import circles.

- The lesson modules (``utils/*.py``) import neither the furniture (``utils/figures``,
  ``utils/exercises``, ``utils/bench``, ``utils/distributed``) nor ``tools/``, and stay short.
- Each public function and class of a lesson module says which notebook teaches it, and that
  notebook's code uses it.
- Nothing imports inside a function, except where a line below says why.
- Each notebook imports the lesson and its own furniture on separate lines.
"""

import ast
import re

import nbformat
import pytest

from tools.manifest import NOTEBOOKS, ROOT

UTILS = ROOT / "utils"
LESSON_MODULES = sorted(path for path in UTILS.glob("*.py") if path.stem != "__init__")
FURNITURE = ("figures", "exercises", "bench", "distributed")
#: about 1,500 lines: what a learner reads when they open utils/ to read the helpers
LESSON_LINES = 1_500
#: imports made inside a function, each with its reason
INNER_IMPORTS = {
    ("utils/distributed/launcher.py", "multiprocessing"): "its forkserver module exists on POSIX only",
    ("utils/env_check.py", "torch"): "the check must run, and say so, where PyTorch is missing",
    ("utils/env_check.py", "utils.devices"): "it imports torch: the same reason",
    ("utils/env_check.py", "jupyter_client.kernelspec"): "asked only to compare the kernel's Python; may be missing",
    ("utils/env_check.py", "IPython"): "asked only to learn whether it runs inside a kernel; may be missing",
    ("utils/vocab.py", "torch"): "only encode needs it: notebook 1 builds vocabularies in fresh processes, 1 s each",
    ("utils/setup_cell.py", "google.colab"): "only Colab has it: the import is the question",
    ("utils/setup_cell.py", "tomllib"): "Python 3.11 and newer: asked on Colab only (3.12), never on the oldest 3.10",
}


def _module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """The modules of utils/ and tools/ that one module imports (relative imports resolved)."""
    package = _module_name(path) if path.stem == "__init__" else _module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: `..lookup` from utils/figures/nb01.py is utils.lookup
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.split(".")[0] in ("utils", "tools")}


def _is_module(name):
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def import_graph():
    paths = [*UTILS.rglob("*.py"), *(ROOT / "tools").glob("*.py")]
    return {_module_name(path): _imports(path) - {_module_name(path)} for path in sorted(paths)}


def test_the_lesson_imports_no_furniture_and_no_tools():
    graph = import_graph()
    furniture = tuple(f"utils.{name}" for name in FURNITURE)
    wrong = {}
    for path in LESSON_MODULES:
        module = _module_name(path)
        bad = sorted(d for d in graph[module] if d.startswith(("tools",) + furniture))
        if bad:
            wrong[module] = bad
    assert not wrong, f"the lesson modules of utils/ must not need the furniture or tools/: {wrong}"


def test_utils_never_imports_tools():
    wrong = {m: sorted(d for d in deps if d.startswith("tools")) for m, deps in import_graph().items()
             if m.startswith("utils") and any(d.startswith("tools") for d in deps)}
    assert not wrong, f"utils/ is what learners import; it must not need tools/: {wrong}"


def test_no_import_circles():
    graph = import_graph()
    done, path = set(), []

    def visit(module):
        assert module not in path, f"an import circle: {' -> '.join(path[path.index(module):] + [module])}"
        if module in done:
            return
        path.append(module)
        for dependency in sorted(graph.get(module, ())):
            if dependency != module.rpartition(".")[0]:  # a package's own __init__ is not a circle
                visit(dependency)
        path.pop()
        done.add(module)

    for module in graph:
        visit(module)


def test_the_lesson_is_short():
    counts = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in UTILS.glob("*.py")}
    assert sum(counts.values()) <= LESSON_LINES, f"utils/*.py holds {sum(counts.values())} lines: {counts}"


def test_no_fault_injection_or_main_module_tricks_in_utils():
    for path in UTILS.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "class Fault" not in text, f"{path}: fault injection belongs to tests/"
        assert "__spec__ = None" not in text, f"{path}: workers must import their module normally"


def test_no_imports_inside_functions_without_a_reason():
    found = set()
    for path in UTILS.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(function):
                    if isinstance(node, ast.Import):
                        found |= {(str(path.relative_to(ROOT)), alias.name) for alias in node.names}
                    elif isinstance(node, ast.ImportFrom):
                        module = node.module if not node.level else f"utils.{node.module}"
                        found.add((str(path.relative_to(ROOT)), module))
    unexplained = sorted(found - set(INNER_IMPORTS))
    assert not unexplained, f"imports inside functions (hoist them, or give the reason in INNER_IMPORTS): {unexplained}"


def _where(node):
    doc = ast.get_docstring(node) or ""
    return doc.strip().splitlines()[-1] if doc.strip() else ""


def _code(number):
    entry = next(nb for nb in NOTEBOOKS if nb.number == number)
    return "\n".join(c.source for c in nbformat.read(entry.path, as_version=4).cells if c.cell_type == "code")


# env_check is left out: a command for learners (python -m utils.env_check), taught by the README
@pytest.mark.parametrize("path", [p for p in LESSON_MODULES if p.stem != "env_check"], ids=lambda path: path.stem)
def test_each_lesson_function_says_which_notebook_teaches_it(path):
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
            continue
        where = _where(node)
        taught = re.fullmatch(r"Taught in notebooks? ([\d, and]+)\.", where)
        if taught:
            for number in map(int, re.findall(r"\d+", taught.group(1))):
                assert re.search(rf"\b{node.name}\b", _code(number)), \
                    f"{path.stem}.{node.name} says notebook {number} teaches it, but that notebook's code never uses it"
        else:
            assert re.fullmatch(r"(Used|Returned|Run) (by|in) .+\.", where), \
                f"{path.stem}.{node.name}: end its docstring with 'Taught in notebook N.' or 'Used by ...'"


@pytest.mark.parametrize("entry", NOTEBOOKS, ids=lambda entry: entry.stem)
def test_each_notebook_imports_its_own_furniture_on_lines_of_their_own(entry):
    code = "\n".join(c.source for c in nbformat.read(entry.path, as_version=4).cells if c.cell_type == "code")
    assert re.search(r"^from utils\b", code, re.M), f"{entry.filename} imports no helper from utils/"
    assert not re.search(r"^\s*(from|import) tools\b", code, re.M), f"{entry.filename} imports tools/"
    assert f"from utils.exercises import nb{entry.number:02d} as exercises" in code
    assert (UTILS / "exercises" / f"nb{entry.number:02d}.py").is_file()
    for line in re.findall(r"^from utils import .*$", code, re.M):
        names = {name.strip().split(" as ")[0] for name in line.split(" import ")[1].split(",")}
        assert names <= set(FURNITURE) or not names & set(FURNITURE), \
            f"{entry.filename}: the lesson and the furniture on one line: {line!r}"


def test_every_program_in_tools_has_a_line_in_its_readme():
    readme = (ROOT / "tools" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(\w+)\.py` \|", readme, re.M))
    programs = {path.stem for path in (ROOT / "tools").glob("*.py")} - {"__init__"}
    assert listed == programs, f"tools/README.md lists {sorted(listed)}, tools/ has {sorted(programs)}"


def test_every_package_folder_has_an_init():
    folders = [path for path in UTILS.rglob("*") if path.is_dir() and path.name != "__pycache__"
               and "locale" not in path.relative_to(UTILS).parts]  # the compiled catalogs: data, not code
    assert folders and [f for f in folders if not (f / "__init__.py").is_file()] == []
