"""Notebook 8's cells and utils/vocab_parallel.py hold the same layer, statement for statement.

The learner reads ``AllReduceSum``, ``all_reduce_sum`` and ``VocabParallelEmbedding`` in notebook
8's cells; the worker processes cannot import a notebook, so they run the copy in
``utils/vocab_parallel.py``. The two are compared as syntax trees without docstrings (the
module documents what the cells explain in prose) and without comments (which the Chinese
edition translates): code, annotations and defaults must agree. An edit to either side alone
fails here, with a diff of the two. (The notebook asserts the same in its kernel, with
:func:`utils.distributed.vocab_parallel_run.code_differences`, on the classes its cells define.)
"""

import ast
import linecache

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from tools.manifest import NOTEBOOKS
from utils.distributed.vocab_parallel_run import (
    MODULE_PATH,
    SHARED_NAMES,
    code_differences,
    definition_differences,
    definitions,
)

NOTEBOOK = next(entry for entry in NOTEBOOKS if entry.number == 8)
#: a cell's source as Python that ast reads: IPython's magics and !shell lines become the calls they make
python_source = TransformerManager().transform_cell


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


def _run_as_a_cell(source, name):
    """Run ``source`` as a kernel runs a cell: compiled from a name whose lines only linecache holds."""
    filename = f"<cell {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (the test's own source)
    return namespace


def test_code_differences_reads_the_classes_a_cell_defined():
    """What the notebook asserts in its kernel: the objects its cells define hold the module's code."""
    imports = ("from typing import Any\nimport torch\nimport torch.distributed as dist\nimport torch.nn as nn\n"
               "from utils.lookup import check_ids\nfrom utils.vocab_parallel import local_lookup, shard_of\n\n")
    sources = [python_source(cell.source) for cell in notebook_cells()]
    shared = [ast.get_source_segment(source, node) for source in sources for node in ast.parse(source).body
              if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in SHARED_NAMES]  # comments kept
    assert len(shared) == len(SHARED_NAMES)
    namespace = _run_as_a_cell(imports + "\n\n".join(shared), "notebook-8")
    objects = [namespace[name] for name in SHARED_NAMES]
    assert code_differences(*objects) == []
    edited = _run_as_a_cell("def all_reduce_sum(partial, group=None):\n    return partial\n", "edited")
    found = code_differences(edited["all_reduce_sum"])
    assert len(found) == 1 and found[0].startswith("all_reduce_sum differs") and "-    return partial" in found[0]
    with pytest.raises(ValueError, match="the source of 'len' cannot be found"):
        code_differences(len)
