"""What a learner sees in a real kernel: a wrong answer is one line, the hint, with no traceback and none of the
checker's code (IPython shows an exception's ``_render_traceback_`` instead); an answer cell run as the notebook
gives it (a stub, or a guess still None) gets one line from its checker, that the exercise is not answered yet,
and no error; the learner's own bug keeps its traceback. In the Chinese edition (its set-up cell chooses Chinese)
each of these lines is Chinese, from the interface catalog."""

import inspect
import re

import nbformat
import pytest

from tools.kernels import IPCKernelManager
from tools.manifest import NOTEBOOKS, ROOT
from utils.exercises import checking, nb01, nb02, nb05

NOT_ANSWERED = {"en": "not answered yet: ", "zh": "还没有作答。"}
INCORRECT = {"en": "incorrect: ", "zh": "回答有误。"}


def choose(edition: str) -> str:
    """What a notebook's set-up cell does for its edition's language (utils.setup_cell.finish)."""
    return f"from utils import language\nlanguage.use({edition!r})\n"


@pytest.fixture(scope="module")
def kernel():
    """An IPython kernel of this environment, in the repository root (so that ``utils`` imports)."""
    manager = IPCKernelManager(kernel_name="python3")
    manager.start_kernel(cwd=str(ROOT))
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def run(client, code: str) -> tuple[str, list[dict]]:
    """Run ``code`` as a cell: what it printed, and its error messages (``ename``, ``evalue``, ``traceback``)."""
    printed, errors = [], []

    def output(message):
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])
        elif message["msg_type"] == "error":
            errors.append(message["content"])

    reply = client.execute_interactive(code, output_hook=output, timeout=300)
    assert reply["content"]["status"] == ("error" if errors else "ok"), reply["content"]
    return "".join(printed), errors


def cell(number: int, cell_id: str, edition: str = "en") -> str:
    entry = NOTEBOOKS[number] if edition == "en" else NOTEBOOKS[number].zh
    nb = nbformat.read(entry.path, as_version=4)
    return next(cell.source for cell in nb.cells if cell.id == cell_id)


def stored_output(number: int, cell_id: str, edition: str) -> str:
    entry = NOTEBOOKS[number] if edition == "en" else NOTEBOOKS[number].zh
    nb = nbformat.read(entry.path, as_version=4)
    return "".join(output.get("text", "") for cell in nb.cells if cell.id == cell_id for output in cell.outputs)


def checker_lines() -> set[str]:
    """Lines of the checkers' source: none may reach the learner's screen."""
    return {line.strip() for module in (checking, nb01, nb02, nb05)
            for line in inspect.getsource(module).splitlines() if len(line.strip()) > 20}


WRONG = {  # exercise -> (edition, set-up, the learner's wrong answer and the checker cell, what the hint says)
    "2.1, a function": (
        "en", "import torch\nfrom utils.exercises import nb02 as exercises",
        "def mean_of_real_tokens(padded, embedding, pad_id):\n    return embedding(padded).mean(dim=1)\n\n"
        "exercises.check_mean_of_real_tokens(mean_of_real_tokens)",
        "the pad positions were counted"),
    "1.2, a prediction": (
        "en", "from utils.exercises import nb01 as exercises",
        'flops_per_copied = 50_257 / 64\ngrows_with = {"V"}\n\n'
        "exercises.check_flops_prediction(flops_per_copied, grows_with)",
        "two FLOPs for each multiply-add"),
    "5.3, a prediction": (
        "en", "from utils.exercises import nb05 as exercises",
        "predicted_max = 4.7\n\nexercises.check_max_prediction(predicted_max)",
        "Hint"),
    "5.3, a prediction of the wrong kind": (
        "en", "from utils.exercises import nb05 as exercises",
        'predicted_max = "about 2"\n\nexercises.check_max_prediction(predicted_max)',
        "predicted_max must be a number"),
    "2.1, in Chinese": (
        "zh", "import torch\nfrom utils.exercises import nb02 as exercises",
        "def mean_of_real_tokens(padded, embedding, pad_id):\n    return embedding(padded).mean(dim=1)\n\n"
        "exercises.check_mean_of_real_tokens(mean_of_real_tokens)",
        "填充位置也算进去了"),
    "1.2, in Chinese": (
        "zh", "from utils.exercises import nb01 as exercises",
        'flops_per_copied = 50_257 / 64\ngrows_with = {"V"}\n\n'
        "exercises.check_flops_prediction(flops_per_copied, grows_with)",
        "每次乘加算两个 FLOP"),
    "5.3, of the wrong kind, in Chinese": (
        "zh", "from utils.exercises import nb05 as exercises",
        'predicted_max = "about 2"\n\nexercises.check_max_prediction(predicted_max)',
        "predicted_max 应当是一个数（你的预测，一个数），收到的是 str"),
}


@pytest.mark.parametrize(("edition", "setup", "answer", "hint"), WRONG.values(), ids=WRONG)
def test_a_wrong_answer_is_one_line_with_no_checker_code(kernel, edition, setup, answer, hint):
    assert run(kernel, choose(edition) + setup) == ("", [])
    printed, errors = run(kernel, answer)
    assert printed == "" and len(errors) == 1
    traceback = errors[0]["traceback"]
    assert len(traceback) == 1 and "\n" not in traceback[0], f"more than the hint: {traceback}"
    assert traceback[0].startswith(INCORRECT[edition]) and hint in traceback[0]
    if edition == "zh":
        assert not re.search("[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}", traceback[0]), f"English in the hint: {traceback}"
    assert not [line for line in checker_lines() if line in traceback[0]], "the checker's code reached the learner"


STUBS = {  # edition, notebook, its answer cell and its checker cell, as the notebook gives them -> the line
    "2.1, a function": ("en", 2, "ex1-yours", "ex1-check", "write mean_of_real_tokens in the cell above"),
    "2.1, in Chinese": ("zh", 2, "ex1-yours", "ex1-check", "请先在上面的单元格里写好 mean_of_real_tokens"),
    "1.1, in Chinese": ("zh", 1, "ex1-guess", "ex1-check", "请先在上面给 multipliable 赋值"),
    "0.3, two functions": ("en", 0, "ex3-yours", "ex3-check",
                           "write grad_by_hand and bias_grad_by_hand in the cell above"),  # both stubs
    "1.1, a prediction": ("en", 1, "ex1-guess", "ex1-check", "fill in multipliable above"),
    "6.3, a prediction": ("en", 6, "ex3-guess", "ex3-check", "fill in predicted_flops above"),
}


@pytest.mark.parametrize(("edition", "number", "answer", "check", "line"), STUBS.values(), ids=STUBS)
def test_an_answer_cell_as_given_gets_one_line_and_no_error(kernel, edition, number, answer, check, line):
    setup = choose(edition) + (f"from utils.exercises import nb{number:02d} as exercises\nimport torch\n"
                               "from torch import nn\nencode, W = None, None")  # the names 1.1's checker cell passes on
    assert run(kernel, setup) == ("", [])
    assert run(kernel, cell(number, answer, edition)) == ("", [])
    printed, errors = run(kernel, cell(number, check, edition))
    assert errors == [] and printed.splitlines() == [printed.strip()]
    assert printed.startswith(NOT_ANSWERED[edition] + line)
    assert printed == stored_output(number, check, edition)  # the page shows what a run prints, in its language


def test_the_learners_own_bug_keeps_its_traceback(kernel):
    run(kernel, choose("en") + "from utils.exercises import nb02 as exercises")
    printed, errors = run(kernel, "def mean_of_real_tokens(padded, embedding, pad_id):\n"
                                  "    return padded.no_such_method()\n\n"
                                  "exercises.check_mean_of_real_tokens(mean_of_real_tokens)")
    assert errors[0]["ename"] == "AttributeError" and len(errors[0]["traceback"]) > 1
    assert "no_such_method" in "".join(errors[0]["traceback"])
