"""The layout: utils/ is what the notebooks import, tools/ what maintainers run, and no import circles."""

import ast
import re

import nbformat

from tools.course import NOTEBOOKS, ROOT

PACKAGES = ("utils", "tools")


def _imports(path, package):
    """The modules of utils/ and tools/ that one module imports (relative imports resolved)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = f"{package}.{node.module}" if node.level == 1 and node.module else node.module or package
            if base in PACKAGES:  # `from . import x` or `from utils import x`
                found |= {f"{base}.{alias.name}" for alias in node.names}
            elif base.split(".")[0] in PACKAGES:
                found.add(base)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] in PACKAGES}
    return found


def import_graph():
    return {f"{package}.{path.stem}": _imports(path, package) - {f"{package}.{path.stem}"}
            for package in PACKAGES for path in sorted((ROOT / package).glob("*.py")) if path.stem != "__init__"}


def test_utils_never_imports_tools():
    graph = import_graph()
    wrong = {module: sorted(d for d in deps if d.startswith("tools.")) for module, deps in graph.items()
             if module.startswith("utils.") and any(d.startswith("tools.") for d in deps)}
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
            visit(dependency)
        path.pop()
        done.add(module)

    for module in graph:
        visit(module)


def test_the_notebooks_import_only_utils():
    for entry in NOTEBOOKS:
        code = "\n".join(c.source for c in nbformat.read(entry.path, as_version=4).cells if c.cell_type == "code")
        assert re.search(r"^from utils\b", code, re.M), f"{entry.filename} imports no helper from utils/"
        assert not re.search(r"^\s*(from|import) tools\b", code, re.M), f"{entry.filename} imports tools/"


def test_every_program_in_tools_has_a_line_in_its_readme():
    readme = (ROOT / "tools" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(\w+)\.py` \|", readme, re.M))
    programs = {path.stem for path in (ROOT / "tools").glob("*.py")} - {"__init__"}
    assert listed == programs, f"tools/README.md lists {sorted(listed)}, tools/ has {sorted(programs)}"
