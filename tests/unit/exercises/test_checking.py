"""The lines every checker shares: a wrong answer in one line, an answer not written yet in one line."""

import pytest

from utils.exercises import checking, nb02, nb05
from utils.exercises.checking import AnswerTypeError, AnswerValueError, ExerciseError


@pytest.mark.parametrize("error_class", [ExerciseError, AnswerTypeError, AnswerValueError])
def test_a_wrong_answer_renders_as_its_hint_alone(error_class):
    """IPython shows ``_render_traceback_`` in place of the traceback: one line, nothing of the checker's code."""
    error = error_class("shape_cat = (3, 5) is off. Hint: count the tokens")
    assert error._render_traceback_() == ["incorrect: shape_cat = (3, 5) is off. Hint: count the tokens"]
    assert isinstance(error, (AssertionError, TypeError, ValueError))  # still the error its kind calls for


def stub(padded, embedding, pad_id):
    raise NotImplementedError(checking.STUB.format(number="2.1"))


def test_a_stub_gets_one_line_and_no_error(capsys):
    assert nb02.check_mean_of_real_tokens(stub) is None
    assert capsys.readouterr().out == (
        "not answered yet: write mean_of_real_tokens in the cell above, then run this cell again\n")


def test_another_not_implemented_error_is_the_learners_to_see(capsys):
    """PyTorch raises NotImplementedError for an operation a device lacks: that is no stub, and its traceback helps."""
    def missing_operation(padded, embedding, pad_id):
        raise NotImplementedError("The operator 'aten::foo' is not currently implemented for the MPS device")

    with pytest.raises(NotImplementedError, match="aten::foo"):
        nb02.check_mean_of_real_tokens(missing_operation)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(("message", "is_stub"), [
    ("Exercise 2.1: your code here", True), ("Exercise 10.12: your code here", True),
    ("Exercise 2.1: your code here, please", False), ("your code here", False),
    ("", True)])  # nbgrader's stub: raise NotImplementedError()
def test_the_stub_is_known_by_its_message(message, is_stub):
    assert checking.is_stub(NotImplementedError(message)) is is_stub
    assert checking.is_stub(RuntimeError(message)) is False


def test_answered_names_what_is_still_none(capsys):
    assert checking.answered(a=1, b=None, c=None) is False
    assert capsys.readouterr().out == "not answered yet: fill in b and c above, then run this cell again\n"
    assert checking.answered(a=1, b=0) is True
    assert capsys.readouterr().out == ""


def test_a_function_written_and_a_value_not_yet(capsys):
    """Exercise 5.2 asks for a function and a value: with the function written, the value still None is named."""
    from tests.unit.exercises.test_nb05_exercises import measure_logit_std

    nb05.check_logit_std_function(measure_logit_std, None)
    assert capsys.readouterr().out.splitlines() == [
        "not answered yet: fill in weight_std_for_unit_logits above, then run this cell again"]


def test_of_two_functions_the_stub_met_is_named(capsys):
    """Exercise 0.3 asks for two functions, checked in one cell: one line, for the first stub the checker meets."""
    from utils.exercises import nb00

    def grad_by_hand(ids, grad_out, V):
        return grad_out.new_zeros(V, grad_out.shape[1]).index_add_(0, ids, grad_out)

    def bias_grad_by_hand(ids, grad_out):
        raise NotImplementedError(checking.STUB.format(number="0.2"))

    def stub(*args):
        raise NotImplementedError(checking.STUB.format(number="0.2"))

    nb00.check_grads_by_hand(grad_by_hand, bias_grad_by_hand)
    assert capsys.readouterr().out.splitlines()[-1] == (
        "not answered yet: write bias_grad_by_hand in the cell above, then run this cell again")
    nb00.check_grads_by_hand(stub, stub)
    assert capsys.readouterr().out.splitlines() == [
        "not answered yet: write grad_by_hand and bias_grad_by_hand in the cell above, then run this cell again"]


def test_when_graded_an_answer_not_written_yet_is_wrong(monkeypatch, capsys):
    """Under nbgrader's autograde (COURSE_GRADING set), a stub or a guess still None must score no point."""
    monkeypatch.setenv(checking.GRADING, "1")
    with pytest.raises(ExerciseError, match="not answered yet: write mean_of_real_tokens"):
        nb02.check_mean_of_real_tokens(stub)
    with pytest.raises(ExerciseError, match="not answered yet: fill in b above"):
        checking.answered(a=1, b=None)
    assert capsys.readouterr().out == ""
    monkeypatch.setenv(checking.GRADING, "")  # empty: as if unset
    assert checking.answered(a=1, b=None) is False
