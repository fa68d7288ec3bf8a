"""A checker's success line says what was checked, never the answer: every ``correct(...)`` call in
utils/exercises/ passes a string constant (marked for the catalog: ``correct(_("..."))``), which can hold neither
the learner's values nor the expected ones;
and each one is the line its notebook's stored run shows."""

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
MODULES = sorted((ROOT / "utils" / "exercises").glob("*.py"))


#: the lines a checker prints when it passes: a verdict, or a prediction recorded to be judged later
SUCCESS = ("correct", "recorded")


def _message(call):
    """The string constant a ``correct(_("..."))`` call passes (None for anything else)."""
    args = call.args
    if len(args) == 1 and isinstance(args[0], ast.Call) and getattr(args[0].func, "id", "") == "_":
        args = args[0].args
    return args[0] if len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str) else None


def _calls_of_correct(tree):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and (getattr(node.func, "id", None) in SUCCESS or getattr(node.func, "attr", None) in SUCCESS)]


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.stem)
def test_success_messages_say_what_was_checked(path):
    calls = _calls_of_correct(ast.parse(path.read_text(encoding="utf-8")))
    computed = [f"line {call.lineno}: correct({ast.unparse(call.args[0]) if call.args else ''})" for call in calls
                if call.keywords or _message(call) is None]
    assert not computed, (f"utils/exercises/{path.name}: a success message must be a string constant that says "
                          f"what was checked (an f-string can give the answer away): {computed}")


def test_the_check_finds_computed_messages():
    tree = ast.parse('correct("x == y, bit for bit")\ncorrect(f"rows {rows}")\nchecking.correct("a" + b)\n'
                     'correct(_("x == y"))\ncorrect(_("rows {rows}").format(rows=rows))')
    calls = _calls_of_correct(tree)
    assert [_message(call) is not None for call in calls] == [True, False, False, True, False]


@pytest.mark.parametrize("path", [path for path in MODULES if path.stem.startswith("nb")], ids=lambda path: path.stem)
def test_each_success_line_is_the_one_its_notebook_shows_under_a_worked_answer(path):
    """A reworded message would fail nbval on the stored outputs: caught here, without running the notebook. On the
    stored page a verdict sits under a (folded) worked answer only; each checker cell of the learner's, run before
    they have answered, shows one line that says so."""
    notebook, = (ROOT / "notebooks").glob(f"{path.stem[2:]}_*.ipynb")
    cells = [cell for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
    lines = {id(cell): [line for output in cell.get("outputs", [])
                        for line in "".join(output.get("text", "")).splitlines()] for cell in cells}
    messages = {f"{getattr(call.func, 'id', None) or call.func.attr}: {_message(call).value}"
                for call in _calls_of_correct(ast.parse(path.read_text("utf-8")))}
    verdicts = [line for cell in cells for line in lines[id(cell)] if line.startswith(("correct: ", "recorded: "))]
    assert verdicts and set(verdicts) <= messages
    for cell in cells:
        worked = "solution" in cell.get("metadata", {}).get("tags", [])
        if worked:
            assert "exercises.check_" in "".join(cell["source"]), f"{cell['id']}: a worked answer runs its checker"
        elif "exercises.check_" in "".join(cell["source"]):
            assert len(lines[id(cell)]) == 1 and lines[id(cell)][0].startswith("not answered yet: "), \
                f"{cell['id']}: run before the learner answers, a checker says so in one line; got {lines[id(cell)]}"
            assert not [output for output in cell.get("outputs", []) if output["output_type"] == "error"]
