"""Notebook 1's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch
import torch.nn.functional as F

from utils.exercises import nb01 as exercises
from utils.vocab import build_vocab

VOCAB = build_vocab("The cat sat on the mat. The dog sat on the log. The cat saw the dog, and the dog saw the cat.")
#: Exercise 1.1's worked answer: only the sentences that hold id 14 ("and") give rows as wide as W has rows
MULTIPLIABLE = {"c", "d"}
#: Exercise 1.2's worked answer: 2·B·V·d FLOPs (one multi-hot row per bag) over B·k·d numbers copied, so 2·V/k,
#: which grows with V alone
FLOPS_PER_COPIED, GROWS_WITH = 2 * 50_257 / 64, {"V"}
WEIGHT = torch.randn(6, 3, generator=torch.Generator().manual_seed(1))
ONE_HOT = torch.nn.functional.one_hot(torch.tensor([3, 0, 3, 5]), 6).float()
#: notebook 1's sentence and vocabulary size, for tables other than its own
IDS = torch.tensor([4, 5, 6, 7, 4, 1, 9])
ONE_HOT_15 = torch.nn.functional.one_hot(IDS, 15).float()
WEIGHT_15 = torch.randn(15, 4, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize(("multipliable", "expected"), [
    (MULTIPLIABLE, "pass"),
    (frozenset(MULTIPLIABLE), "pass"),
    ({"c"}, r"not right about 1 of the four sentences. Hint for d: .*'a sofa, and a log'.*<unk>"),
    ({"a", "b", "c", "d"}, r"not right about 2 of the four sentences. Hint for a: .*'the cat sat'"),
    (set(), "not right about 2 of the four sentences"),
    ({"C", "d"}, r"multipliable holds \['C'\]: use the letters"),
    (["c", "d"], "multipliable must look like"),
    (..., "record your prediction in multipliable first"),
])
def test_one_hot_products(judge, multipliable, expected):
    judge(exercises.check_one_hot_products, (multipliable, VOCAB.encode, WEIGHT_15), expected,
          never=("{'c', 'd'}", "{'d', 'c'}"))


@pytest.mark.parametrize(("ratio", "grows", "expected"), [
    (FLOPS_PER_COPIED, GROWS_WITH, "pass"),
    (float(FLOPS_PER_COPIED), frozenset(GROWS_WITH), "pass"),
    (50_257 / 64, GROWS_WITH, "two FLOPs for each multiply-add"),  # multiply-adds, not FLOPs
    (2 * 50_257, GROWS_WITH, "one id per row"),  # section 5's one-hot ratio, recalled
    (50_257, GROWS_WITH, "one id per row"),
    (64 / (2 * 50_257), GROWS_WITH, "the other way up"),
    (3, GROWS_WITH, r"flops_per_copied = 3 is not.*per bag, how many FLOPs"),
    (FLOPS_PER_COPIED, {"V", "d"}, r"grows_with is not right about d.*cancel"),
    (FLOPS_PER_COPIED, {"B", "k", "V"}, "grows_with is not right about B"),
    (FLOPS_PER_COPIED, {"V", "k"}, "grows_with is not right about k"),
    (FLOPS_PER_COPIED, set(), "grows_with is not right about V"),
    (FLOPS_PER_COPIED, {"v"}, r"grows_with holds \['v'\]: use the names"),
    (FLOPS_PER_COPIED, ["V"], "grows_with must look like"),
    ("2V", GROWS_WITH, "flops_per_copied must look like"),
    (True, GROWS_WITH, "flops_per_copied must look like"),
    (..., GROWS_WITH, "record your prediction in flops_per_copied first"),
])
def test_flops_prediction(judge, ratio, grows, expected):
    judge(exercises.check_flops_prediction, (ratio, grows), expected,
          never=(str(FLOPS_PER_COPIED), f"{FLOPS_PER_COPIED:,}", "2·V/k", "{'V'}"))  # a hint, never the answer


def test_the_ratio_is_the_hand_count():
    """What the checker compares with: 2·V·d FLOPs per bag for the product, k·d numbers copied per bag."""
    assert exercises._flops_per_copied(**exercises.FLOP_SIZES) == FLOPS_PER_COPIED
    assert exercises._flops_per_copied(2, 3, 15, 4) == 2 * 15 / 3
    assert exercises._flops_per_copied(2, 1, 15, 4) == 2 * 15  # one id per bag: section 5's one-hot rows


#: the worked answer: a factor of 2**100 leaves the rows exact; a factor of 3, a rounded 0.1 and float16 do not
EXACT = {"c"}


@pytest.mark.parametrize(("exact", "expected"), [
    (EXACT, "pass"),
    (frozenset(EXACT), "pass"),
    (set(), r"not right about 1 of the four\. Hint for c: .*power of two"),
    ({"a", "c"}, r"not right about 1 of the four\. Hint for a: multiplying by 2.*by 3"),
    ({"b", "c"}, r"not right about 1 of the four\. Hint for b: .*1/10"),
    ({"c", "d"}, r"not right about 1 of the four\. Hint for d: .*float16"),
    ({"a"}, r"not right about 2 of the four\. Hint for a: "),
    ({"a", "b", "c", "d"}, r"not right about 3 of the four\. Hint for a: "),
    ({"A", "c"}, r"exact holds \['A'\]: use the letters"),
    (["c"], "exact must look like"),
])
def test_exact_expressions(judge, exact, expected):
    judge(exercises.check_exact_expressions, (exact, ONE_HOT, WEIGHT), expected, never=("{'c'}",))


def test_sure_to_means_every_table_tried(judge, monkeypatch):
    """The checker judges "sure to" on 200 tables (its success line says so), not on the notebook's W alone: with
    only W tried, a guess that names a (exact on this W) would pass; with 200, its hint names a, and no count."""
    lucky = next(weight for seed in range(1000)
                 if torch.equal(exercises.EXPRESSIONS["a"](ONE_HOT, weight := torch.randn(WEIGHT.shape,
                                generator=torch.Generator().manual_seed(seed))), weight[ONE_HOT.argmax(dim=1)]))
    judge(exercises.check_exact_expressions, ({"a", "c"}, ONE_HOT, lucky),
          r"not right about 1 of the four\. Hint for a: multiplying", never=("200", "tables"))
    monkeypatch.setattr(exercises, "EXACT_TABLES", 1)
    judge(exercises.check_exact_expressions, ({"a", "c"}, ONE_HOT, lucky), "pass")


def test_the_success_line_names_the_number_of_tables(capsys):
    exercises.check_exact_expressions(EXACT, ONE_HOT, WEIGHT)
    assert f"on {exercises.EXACT_TABLES} tables" in capsys.readouterr().out


def test_the_worked_answer_holds_for_other_tables():
    """Not a property of one table: over 20 seeds, c is exact, a, b and d are not."""
    for seed in range(20):
        weight = torch.randn(15, 4, generator=torch.Generator().manual_seed(seed))
        rows = weight[IDS]
        measured = {letter for letter, f in exercises.EXPRESSIONS.items() if torch.equal(f(ONE_HOT_15, weight), rows)}
        assert measured == EXACT, seed


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: the notebook's x and W are on its DEVICE")
def test_exact_expressions_with_tensors_on_a_gpu(judge):
    judge(exercises.check_exact_expressions, (EXACT, ONE_HOT.cuda(), WEIGHT.cuda()), "pass")


@pytest.mark.parametrize(("checker", "guesses", "named"), [
    (exercises.check_one_hot_products, (None, VOCAB.encode, WEIGHT_15), "multipliable"),
    (exercises.check_flops_prediction, (None, GROWS_WITH), "flops_per_copied"),
    (exercises.check_flops_prediction, (None, None), "flops_per_copied and grows_with"),
    (exercises.check_exact_expressions, (None, ONE_HOT, WEIGHT), "exact"),
])
def test_no_guess_yet_judges_nothing(capsys, checker, guesses, named):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert checker(*guesses) is None
    assert capsys.readouterr().out == f"not answered yet: fill in {named} above, then run this cell again\n"


# --- Section 4's prediction ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("guess", "expected"), [
    ([1], "pass"),
    ([], "2·3e38"),
    ([0, 1, 2, 3, 4, 5, 6], "2·3e38"),
    ("1", "must look like"),
])
def test_changed_guess(judge, guess, expected):
    ids = torch.tensor([4, 5, 6, 7, 4, 1, 9])  # seven tokens; position 1 alone picks row 5
    table = torch.randn(15, 4, generator=torch.Generator().manual_seed(5))
    table[5, 0] = 3e38
    judge(exercises.check_changed_guess, (guess, F.one_hot(ids, 15).float(), table), expected)


def test_changed_guess_judges_nothing_yet(capsys):
    assert exercises.check_changed_guess(None, ONE_HOT, WEIGHT) is None
    assert capsys.readouterr().out.startswith("not answered yet")
