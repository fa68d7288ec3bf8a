"""Notebook 8's cells and utils/vocab_parallel.py hold the same layer, statement for statement.

The learner reads ``local_lookup``, ``AllReduceSum``, ``all_reduce_sum`` and ``VocabParallelEmbedding`` in notebook
8's cells; the worker processes cannot import a notebook, so they run the copy in
``utils/vocab_parallel.py``. The two are compared as syntax trees without docstrings (the
module documents what the cells explain in prose) and without comments (which the Chinese
edition translates): code, annotations and defaults must agree. An edit to either side alone
fails here, with a diff of the two.
"""

import ast
import difflib
from collections.abc import Iterable
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from tools.manifest import NOTEBOOKS
from utils import vocab_parallel

NOTEBOOK = next(entry for entry in NOTEBOOKS if entry.number == 8)
#: a cell's source as Python that ast reads: IPython's magics and !shell lines become the calls they make
python_source = TransformerManager().transform_cell


#: where the worker processes import the layer from
MODULE_PATH = Path(vocab_parallel.__file__)
#: what notebook 8 writes in its cells and the workers import from utils/vocab_parallel.py
SHARED_NAMES = ("local_lookup", "AllReduceSum", "all_reduce_sum", "VocabParallelEmbedding")


def without_docstrings(node: ast.stmt) -> ast.stmt:
    """A copy of ``node`` with the docstring of every function and class removed, at every depth."""
    node = ast.parse(ast.unparse(node)).body[0]  # a copy
    for inner in ast.walk(node):
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(inner):
            inner.body = inner.body[1:] or [ast.Pass()]
    return node


def definitions(tree: ast.Module, name: str) -> list[ast.stmt]:
    """The top-level classes and functions called ``name`` in ``tree``."""
    return [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name]


def definition_differences(cells: ast.Module, module: ast.Module, names: Iterable[str] = SHARED_NAMES) -> list[str]:
    """What differs between the definitions of ``names`` in ``cells`` (notebook 8's) and in ``module``
    (utils/vocab_parallel.py), docstrings and comments aside, as readable messages with a diff; none when
    the two hold the same code. Each name must be defined once on each side."""
    found = []
    for name in names:
        in_cells, in_module = definitions(cells, name), definitions(module, name)
        if len(in_cells) != 1 or len(in_module) != 1:
            found.append(f"{name} is defined {len(in_cells)} time(s) in notebook 8's cells and "
                         f"{len(in_module)} time(s) in utils/vocab_parallel.py; expected once in each")
            continue
        a, b = without_docstrings(in_cells[0]), without_docstrings(in_module[0])
        if ast.dump(a) != ast.dump(b):
            diff = difflib.unified_diff(ast.unparse(a).splitlines(), ast.unparse(b).splitlines(),
                                        "notebook 8's cells", "utils/vocab_parallel.py", lineterm="")
            found.append(f"{name} differs (docstrings and comments aside); make both sides the same:\n"
                         + "\n".join(diff))
    return found


def notebook_cells(path=NOTEBOOK.path):
    return [cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]


def notebook_tree(path=NOTEBOOK.path):
    """The top-level statements of every code cell of the notebook, as one module."""
    body = [node for cell in notebook_cells(path) for node in ast.parse(python_source(cell.source)).body]
    return ast.Module(body=body, type_ignores=[])


def module_tree(path=MODULE_PATH):
    return ast.parse(path.read_text(encoding="utf-8"))


def test_the_cells_and_the_module_hold_the_same_code():
    found = definition_differences(notebook_tree(), module_tree())
    assert not found, "\n\n".join(found)


@pytest.mark.parametrize("side", ["notebook", "module"])
def test_an_edit_to_either_side_alone_is_caught_with_a_diff(side):
    notebook, module = notebook_tree(), module_tree()
    edited = notebook if side == "notebook" else module
    layer = definitions(edited, "VocabParallelEmbedding")[0]
    forward = next(node for node in layer.body if isinstance(node, ast.FunctionDef) and node.name == "forward")
    ret = forward.body[-1]
    assert ast.unparse(ret) == "return all_reduce_sum(partial, self.group)"
    ret.value = ast.parse("partial * world_size").body[0].value  # a slip in one copy only
    found = definition_differences(notebook, module)
    assert len(found) == 1 and found[0].startswith("VocabParallelEmbedding differs")
    removed, added = ("-", "+") if side == "notebook" else ("+", "-")
    assert f"{removed}        return partial * world_size" in found[0]
    assert f"{added}        return all_reduce_sum(partial, self.group)" in found[0]


def test_docstrings_and_comments_may_differ_but_nothing_else():
    cell = 'def all_reduce_sum(partial, group=None):\n    # a comment\n    return partial\n'
    module = 'def all_reduce_sum(partial, group=None):\n    """A docstring."""\n    return partial\n'
    assert definition_differences(ast.parse(cell), ast.parse(module), ("all_reduce_sum",)) == []
    default = module.replace("group=None", "group=0")
    assert "differs" in definition_differences(ast.parse(cell), ast.parse(default), ("all_reduce_sum",))[0]
    twice = ast.parse(cell + cell)
    assert definition_differences(twice, ast.parse(module), ("all_reduce_sum",)) == [
        "all_reduce_sum is defined 2 time(s) in notebook 8's cells and 1 time(s) in utils/vocab_parallel.py; "
        "expected once in each"]


def test_the_notebooks_one_line_check_tells_a_copy_from_a_changed_one(tmp_path):
    """``holds_the_code_of``, which notebook 8 calls in section 5: true for the same code with other comments and
    docstrings, false for a changed statement."""
    import importlib.util

    source = ast.unparse(definitions(module_tree(), "local_lookup")[0])
    variants = {"same": "# a comment the cells may translate\n" + source,
                "changed": source.replace("ids[owned] - start", "ids[owned] - start + 1")}
    assert variants["changed"] != source
    found = {}
    for name, text in variants.items():
        path = tmp_path / f"{name}.py"
        path.write_text("import torch\n" + text + "\n", encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        copy = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(copy)
        found[name] = vocab_parallel.holds_the_code_of(copy.local_lookup)
    assert found == {"same": True, "changed": False}



def test_the_notebooks_copy_check_is_silent_when_it_holds_and_raises_on_a_changed_copy(tmp_path, capsys):
    """``check_the_copy``, in notebook 8's section 5: the module's own definitions (a class counts by its methods) hold,
    and a function whose statements differ from the module's raises."""
    import importlib.util

    vocab_parallel.check_the_copy(vocab_parallel.local_lookup, vocab_parallel.AllReduceSum,
                                  vocab_parallel.all_reduce_sum, vocab_parallel.VocabParallelEmbedding)
    assert capsys.readouterr().out == ""  # silent: section 5 prints its results first
    path = tmp_path / "changed.py"
    path.write_text("def all_reduce_sum(partial, group=None):\n    return partial\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("changed", path)
    changed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(changed)
    with pytest.raises(AssertionError, match="same edit in utils/vocab_parallel.py, then restart the Jupyter kernel"):
        vocab_parallel.check_the_copy(changed.all_reduce_sum)
