"""Every notebook, as stored: well-formed, executed, self-checking, leaking nothing.

nbval (configured in pyproject.toml) re-executes each English notebook and compares outputs;
tests/clients/ runs each once more as learners do (with papermill's parameters, alone as on
Colab, in JupyterLab). This file checks the stored notebooks of both editions without a
kernel: the English ones and their Chinese twins in notebooks/zh/ (same code and outputs,
which the translation check proves, and translated prose).
"""

import ast
import getpass
import re

import nbformat
import papermill
import pytest
import torch
from IPython.core.inputtransformer2 import TransformerManager

from tools.generated import EXERCISES, GENERATED_IDS, GOING_DEEPER, headed, is_checker, is_worked_answer
from tools.kernels import AsyncIPCKernelManager
from tools.manifest import NOTEBOOK_DIR, NOTEBOOKS
from tools.pytest_course import EXECUTIONS
from tools.run import check_all_cells_executed
from tools.translations import comment_tokens
from utils.language import translations

CHINESE = translations("zh")

# Outputs must not leak the machine they ran on.
LEAKS = re.compile(r"(/root\b|/home/\w|/Users/\w|/tmp/|/work/|[A-Za-z]:\\\\|\bat 0x[0-9a-f]{6,})")
FIGURE_REPR = re.compile(r"<Figure size \d+x\d+ with (\d+) Axes>")
#: a cell's source as Python that ast reads: IPython's magics and !shell lines become the calls they make
python_source = TransformerManager().transform_cell

# every notebook in both editions: English (notebooks/) and Chinese (notebooks/zh/)
EDITIONS = [*NOTEBOOKS, *(nb.zh for nb in NOTEBOOKS)]
ids = [nb.stem if nb.edition == "en" else f"{nb.edition}/{nb.stem}" for nb in EDITIONS]


def _read(entry):
    return nbformat.read(entry.path, as_version=4)


def _code(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _text(output):
    if output.output_type == "stream":
        return output.text
    return "\n".join(str(value) for key, value in output.get("data", {}).items() if key.startswith("text/"))


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_notebook_is_valid_and_uses_the_python3_kernel(entry):
    nb = _read(entry)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    cell_ids = [cell.id for cell in nb.cells]
    assert len(cell_ids) == len(set(cell_ids)), "cell ids must be unique (translations refer to them)"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_stored_outputs_come_from_one_clean_run(entry):
    nb = _read(entry)
    check_all_cells_executed(nb, entry.filename)  # code cells executed in order 1..n
    for cell in _code(nb):
        for output in cell.outputs:
            assert output.output_type != "error", f"cell {cell.id} stored an error: {output.get('ename')}"
            assert not (output.output_type == "stream" and output.name == "stderr"), \
                f"cell {cell.id} wrote to stderr (a warning?): {output.text[:200]}"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_outputs_hold_no_paths_user_names_or_addresses(entry):
    user = getpass.getuser()
    for cell in _code(_read(entry)):
        for output in cell.outputs:
            text = _text(output)
            leak = LEAKS.search(text)
            assert leak is None, f"cell {cell.id} output contains {leak.group(0)!r}"
            if len(user) >= 4 and user != "root":
                assert user not in text, f"cell {cell.id} output contains the user name"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_every_image_is_a_drawn_figure(entry):
    for cell in _code(_read(entry)):
        for output in cell.outputs:
            data = output.get("data", {})
            match = FIGURE_REPR.search(data.get("text/plain", ""))
            if "image/png" in data:
                assert match and int(match.group(1)) >= 1, f"cell {cell.id}: an image/png that is not a figure"
            elif match:
                pytest.fail(f"cell {cell.id}: a figure printed as text without an image ({match.group(0)})")


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_claims_are_asserted(entry):
    trees = [ast.parse(python_source(cell.source)) for cell in _code(_read(entry))]
    asserts = sum(isinstance(node, ast.Assert) for tree in trees for node in ast.walk(tree))
    assert asserts >= 3, f"only {asserts} assert statements: every claim in the prose needs one"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_notebook_has_the_course_structure(entry):
    nb = _read(entry)
    headings = [line for cell in nb.cells if cell.cell_type == "markdown" for line in cell.source.splitlines()
                if line.startswith("#")]
    sections = {"en": ("## What you will learn", "## Summary", "## Exercises"),
                "zh": ("## 你将学到什么", "## 小结", "## 练习")}
    for heading in sections[entry.edition]:
        assert heading in headings, f"missing section {heading!r}"
    parameters = [cell for cell in _code(nb) if "parameters" in cell.metadata.get("tags", [])]
    assert len(parameters) == 1, "exactly one code cell tagged `parameters` (papermill)"
    assert entry.default_device in ("cpu", "auto"), "the parameters cell sets device = 'cpu' (a lesson) or 'auto'"
    solutions = [cell for cell in _code(nb) if is_worked_answer(cell)]
    checks = re.findall(r"exercises\.check_\w+", "\n".join(cell.source for cell in _code(nb)))
    assert len(solutions) >= 2 and len(checks) >= len(solutions), "each exercise: a solution cell and a checker"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA; the test is for machines without it")
def test_asking_for_cuda_without_a_gpu_stops_at_once(tmp_path, record_property):
    entry = NOTEBOOKS[0]
    record_property(EXECUTIONS, f"refusal: {entry.stem}")
    output = tmp_path / entry.filename
    with pytest.raises(papermill.PapermillExecutionError) as info:
        papermill.execute_notebook(
            str(entry.path), str(output), parameters={"device": "cuda"},
            kernel_name="python3", cwd=str(NOTEBOOK_DIR), progress_bar=False,
            kernel_manager_class=AsyncIPCKernelManager,
        )
    assert info.value.ename == "RuntimeError"
    assert "device='cuda' was requested, but CUDA is not available here" in info.value.evalue
    # at once: in the first cell that uses the device, and no cell after it ran
    ran = [cell for cell in _code(nbformat.read(output, as_version=4)) if cell.execution_count is not None]
    assert "resolve_device(device" in ran[-1].source and ran[-1].outputs[-1].output_type == "error"
    assert not any("DEVICE" in cell.source for cell in ran[:-1]), "the device was used before it was checked"


# --- what every lesson keeps: a main path a learner can finish, depth after it, no answer before it is asked
# for, no talk of the test harness. English editions (the Chinese notebooks have the same cells).

ENGLISH = list(NOTEBOOKS)
english_ids = [entry.stem for entry in ENGLISH]
#: the main path: at most this many cells, from the title up to `## Summary` ...
MAIN_PATH_CELLS = 30
#: ... and this many words of prose in its markdown cells (`\w+` tokens, the generated header included)
MAIN_PATH_WORDS = 1_200
#: Words a learner's cell never uses: they are about the test harness, not the lesson.
HARNESS_TALK = re.compile(r"\bnbval\b|\bstderr\b|tagged `solution`|checked by an `assert`|\btests/|\bCI\b")


def main_path(nb):
    """The cells from the title (index 0, the generated header) up to, not including, the `## Summary` cell."""
    end = next((i for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
                and cell.source.startswith("## Summary")), None)
    assert end is not None, "no markdown cell starts with `## Summary`"
    return nb.cells[:end]


def prose_words(cells):
    return sum(len(re.findall(r"\w+", cell.source)) for cell in cells if cell.cell_type == "markdown")


@pytest.mark.parametrize("entry", ENGLISH, ids=english_ids)
def test_main_path_fits(entry):
    """A learner who stops at the summary has the argument: at most 30 cells and 1,200 words to get there."""
    cells = main_path(_read(entry))
    words = prose_words(cells)
    assert len(cells) <= MAIN_PATH_CELLS and words <= MAIN_PATH_WORDS, (
        f"{entry.filename}: the main path (title to `## Summary`) has {len(cells)} cells and {words} words; "
        f"at most {MAIN_PATH_CELLS} and {MAIN_PATH_WORDS}: move a deep dive to `## Going deeper`")


def going_deeper(nb):
    """The index of the `## Going deeper` cell, or None; the test below checks there is at most one."""
    found = [i for i, cell in enumerate(nb.cells) if headed(cell, GOING_DEEPER)]
    return found[0] if found else None


@pytest.mark.parametrize("entry", ENGLISH, ids=english_ids)
def test_going_deeper_comes_last(entry):
    """Depth after the path: one `## Going deeper` part, after the last exercise's checker and before the
    footer, its first cell the one with id `going-deeper`; and the summary's last bullet names it. A checker inside
    it checks a prediction of its own part (notebook 1's scaled rows), its guess cell just before it."""
    nb = _read(entry)
    found = [i for i, cell in enumerate(nb.cells) if headed(cell, GOING_DEEPER)]
    if not found:
        return
    assert len(found) == 1, f"`{GOING_DEEPER}` appears {len(found)} times: once, after the exercises"
    start = found[0]
    exercises = next(i for i, cell in enumerate(nb.cells) if headed(cell, EXERCISES))
    checks = [i for i, cell in enumerate(nb.cells) if is_checker(cell)]
    assert exercises < start and max(i for i in checks if i < start) > exercises, "Going deeper after the exercises"
    # a checker inside Going deeper is a prediction of its own part: the code cell just before it holds the guess
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    for i in (i for i in checks if i > start):
        guess = max(j for j in code if j < i)
        assert guess > start and "= None  # your guess" in nb.cells[guess].source, "a checker in Going deeper: no guess"
    assert nb.cells[start].id == "going-deeper" and nb.cells[start].source.startswith(GOING_DEEPER)
    assert nb.cells[-1].id == "course-footer" and start < len(nb.cells) - 1
    assert not any(cell.cell_type == "markdown" and re.match(r"## (?!#)", cell.source)
                   for cell in nb.cells[start + 1:-1]), "Going deeper's parts are `###` headings"
    summary = next(cell for cell in nb.cells if cell.cell_type == "markdown" and cell.source.startswith("## Summary"))
    bullets = [line for line in summary.source.splitlines() if line.startswith("- ")]
    assert bullets and bullets[-1].startswith("- *Going deeper*, after the exercises: "), \
        "the summary ends with the bullet '*Going deeper*, after the exercises: ...' naming its parts"


def _bound_names(tree):
    """Names a cell binds at any depth: assignments, `for` and `with` targets, defs, classes, imports."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def _loaded_names(tree):
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


@pytest.mark.parametrize("entry", ENGLISH, ids=english_ids)
def test_main_path_does_not_use_going_deeper(entry):
    """The main path and the exercises never need a name first bound in Going deeper: a learner who stops
    before it has everything the notebook used. (Running order already fails a fresh run where one does;
    this catches a cell moved by hand, whose stored run came before the move.)"""
    nb = _read(entry)
    start = going_deeper(nb)
    if start is None:
        return
    code = [(i, ast.parse(python_source(cell.source))) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    before = [tree for i, tree in code if i < start]
    bound_before = set().union(*(_bound_names(tree) for tree in before))
    only_deeper = set().union(*(_bound_names(tree) for i, tree in code if i > start)) - bound_before
    used = set().union(*(_loaded_names(tree) for tree in before)) & only_deeper
    assert not used, f"cells before `{GOING_DEEPER}` use names first bound in it: {sorted(used)}"


@pytest.mark.parametrize("entry", EDITIONS, ids=ids)
def test_worked_answers_print_only_their_checkers_verdict(entry):
    """No answer before it is asked for: a worked answer (tagged `solution`) ends by running its checker, and stores
    what the checker printed (what it checked, never the answer) and nothing else."""
    verdicts = ("correct: ", "recorded: ", "your prediction: ")  # the last: exercise 4.5's report on the guess
    if entry.edition == "zh":  # the same lines in Chinese (the interface catalog's)
        verdicts = (*(CHINESE.gettext(line).partition("{")[0] for line in ("correct: {what_was_checked}",
                                                                         "recorded: {what_was_recorded}")), "你的预测")
    shown = [f"{cell.id}: {line}" for cell in _code(_read(entry)) if is_worked_answer(cell)
             for output in cell.outputs for line in (_text(output).splitlines() or [output.output_type])
             if output.output_type != "stream" or not line.startswith(verdicts)]
    assert not shown, f"worked answers with stored outputs beyond their checker's lines: {shown}"


@pytest.mark.parametrize("entry", ENGLISH, ids=english_ids)
def test_no_harness_talk(entry):
    """A learner's cells talk about the lesson: not nbval, stderr, tags, tests/ or CI ("every claim is an
    `assert`" is said once, in the README). Markdown and code comments; the generated cells are the tools'."""
    found = []
    for cell in _read(entry).cells:
        if cell.get("id") in GENERATED_IDS:
            continue
        text = cell.source if cell.cell_type == "markdown" else "\n".join(t for *_, t in comment_tokens(cell.source))
        found += [f"{cell.id}: {match.group(0)!r}" for match in HARNESS_TALK.finditer(text)]
    assert not found, f"talk of the test harness in a learner's cell: {found}"


# --- an exercise names what its checker reads: a learner who writes their own answer must know what to call it

#: a checker call in a checker cell: `exercises.check_...(...)`
CHECKER_PREFIX = "check_"


def _top_level_bound_names(tree):
    """Names a cell binds for the cells after it: as `_bound_names`, but not the locals of its functions,
    classes, lambdas and comprehensions."""
    names, todo = set(), list(ast.iter_child_nodes(tree))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            todo += node.decorator_list  # (a decorator may bind, with :=)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        todo += ast.iter_child_nodes(node)
    return names


def _checker_calls(tree):
    """`(checker name, names read by its arguments)` for each `exercises.check_*(...)` call in a cell."""
    calls = []
    for node in ast.walk(tree):
        function = node.func if isinstance(node, ast.Call) else None
        if (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name)
                and function.value.id == "exercises" and function.attr.startswith(CHECKER_PREFIX)):
            arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
            calls.append((function.attr, {name for argument in arguments for name in _loaded_names(argument)}))
    return calls


def _code_span_names(markdown):
    """Every identifier inside a code span or code block (`...`, ```...```) of a markdown text."""
    spans = [match.group(2) for match in re.finditer(r"(`+)(.+?)\1", markdown, re.S)]
    return {name for span in spans for name in re.findall(r"[A-Za-z_]\w*", span)}


def unnamed_checker_inputs(nb):
    """Names a checker cell passes to its checker that its worked answer defines first, and that the exercise's
    text does not name in backticks: a learner who writes their own answer cannot know to define them.

    An exercise is the markdown after the previous checker cell (or after the `## Exercises` heading) up to its
    worked answer (the cell tagged `solution`); its checker cell is the next cell that calls `exercises.check_*`.
    Returns one message per such name."""
    found, bound_before, text, answer = [], set(), [], None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if headed(cell, EXERCISES):
                text = []
            text.append(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        tree = ast.parse(python_source(cell.source))
        if is_worked_answer(cell):
            answer = (cell, _top_level_bound_names(tree) - bound_before, "\n".join(text))
        calls = _checker_calls(tree)
        if calls and answer is not None and not is_worked_answer(cell):
            solution, first_bound, exercise = answer
            named = _code_span_names(exercise)
            for checker, read in calls:
                found += [f"{cell.id}: `{name}`, passed to exercises.{checker}, is first defined in the worked answer "
                          f"{solution.id} but never named in backticks in the exercise's text"
                          for name in sorted(read & first_bound - named)]
            text, answer = [], None
        bound_before |= _top_level_bound_names(tree)
    return found


@pytest.mark.parametrize("entry", ENGLISH, ids=english_ids)
def test_exercises_name_what_their_checkers_read(entry):
    """A name the checker reads that only the worked answer defines must be in the exercise's text, in backticks."""
    found = unnamed_checker_inputs(_read(entry))
    assert not found, "exercises that do not say what to call the answer:\n" + "\n".join(found)


def _exercise(text, answer, check, before="V = 11"):
    """A made-up notebook: one data cell, then an exercise, its worked answer and its checker."""
    solution = nbformat.v4.new_code_cell(answer, id="ex1-solution")
    solution.metadata["tags"] = ["solution"]
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(before, id="data"),
        nbformat.v4.new_markdown_cell(f"## Exercises\n\n**Exercise 1.** {text}", id="exercises-intro"),
        solution,
        nbformat.v4.new_code_cell(check, id="ex1-check"),
    ])


def test_an_exercise_that_never_names_its_answer_is_caught():
    answer = ("import torch\ntable = torch.zeros(V, 4)\nhelper = 2\n\n"
              "def lookup(ids):\n    rows = table[ids]\n    return rows")
    check = "assert exercises.check_lookup(lookup, table, V)"
    bad = _exercise("Write a function that looks up rows of a `[V, 4]` table.", answer, check)
    assert unnamed_checker_inputs(bad) == [
        "ex1-check: `lookup`, passed to exercises.check_lookup, is first defined in the worked answer ex1-solution "
        "but never named in backticks in the exercise's text",
        "ex1-check: `table`, passed to exercises.check_lookup, is first defined in the worked answer ex1-solution "
        "but never named in backticks in the exercise's text"]
    plain = _exercise("Write lookup(ids), returning rows of a table of zeros `[V, 4]`.", answer, check)
    assert len(unnamed_checker_inputs(plain)) == 2  # named, but not as code
    good = _exercise("Build `table = torch.zeros(V, 4)` and write `lookup(ids)` returning its rows.", answer, check)
    assert unnamed_checker_inputs(good) == []  # V is defined before the answer: the exercise may leave it unnamed
    only_table = ["ex1-check: `lookup`, passed to exercises.check_lookup, is first defined in the worked answer "
                  "ex1-solution but never named in backticks in the exercise's text"]
    for nested in ("{**{1: lookup}, 2: table}", "f=lookup, t=table"):  # inside an expression; as a keyword
        call = _exercise("Build `table`, then the function.", answer, f"assert exercises.check_lookup({nested})")
        assert unnamed_checker_inputs(call) == only_table


def test_notebook_6s_summary_describes_its_stored_run():
    """Notebook 6's summary states section 5's finding in words, backed by an assert on the main path (at the
    preset's sizes), in its own folded cell right after the folded answer (the asserts after the reveal; a learner
    who stops after the exercises has run it), and quotes no stored time (a run on a busy machine can print other
    times)."""
    nb = nbformat.read(NOTEBOOKS[6].path, as_version=4)
    cells = {cell.get("id"): cell for cell in nb.cells}
    printed = {name: "".join(output.get("text", "") for output in cells[name].outputs)
               for name in ("vocab-step", "step-answer")}
    summary = cells["summary"].source
    grew = cells["vocab-again"].source  # the cell that prints the dense time's growth against V's
    assert "the dense time's growth from V" in grew and "verdict" in grew  # growth against V's, round by round
    assert printed["vocab-step"] == ""  # both leads wait for a guess: the cells print nothing before it
    assert printed["step-answer"] == ""  # the end part too: no answer before the guess
    assert "the lookup's lead falls below √300 ≈ 17 in every round, nearest 3 (asserted in section 5)" in summary
    assert "At the preset's sizes (`V` of 50,257 or more, `d = 768`)" in summary  # the answer holds there
    checks = cells["step-checked"]  # on every run at the preset's sizes, so on the stored run; below the folded answer
    assert "\nif last >= 50_257:" in checks.source and "    assert max(leads) < 300 ** 0.5" in checks.source
    assert checks.metadata.jupyter.source_hidden  # folded: its bound would answer the question above it
    assert "assert" not in cells["vocab-step"].source + cells["step-answer"].source  # no bound above the answer
    ends = cells["step-answer"]
    assert ends.source.startswith("#@title The measured answers") and ends.metadata.jupyter.source_hidden
    ids = [cell.get("id") for cell in nb.cells]
    order = ["step-guess", "vocab-step", "step-why", "step-checked", "summary"]
    assert [ids.index(name) for name in order] == sorted(ids.index(name) for name in order)
    assert "thousand" not in summary and "writes `V·d` numbers" not in summary  # no hint at the prediction's answer


@pytest.mark.parametrize("entry", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_papermill_reads_every_setting_of_the_parameters_cell(entry):
    """`papermill --help-notebook` lists the settings a learner or a course run may pass; a comment papermill cannot
    parse (">=" did, in notebook 9's `seed`) hides that setting from the listing, with only a warning."""
    nb = nbformat.read(entry.path, as_version=4)
    cell = next(cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", []))
    assigned = [target.id for node in ast.parse(cell.source).body if isinstance(node, ast.Assign)
                for target in node.targets]
    assert list(papermill.inspect_notebook(str(entry.path))) == assigned
