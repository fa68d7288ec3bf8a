"""Notebook 6's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""


import pytest
import torch

from utils.exercises import nb06 as exercises

FORWARD = 2 * 32 * 2_000 * 8  # one (32, 2000) @ (2000, 8) product, in FLOPs
CONSTANT, LEARNED = 2 * FORWARD, 3 * FORWARD  # the one-hot constant; the one-hot requiring a gradient too
ENTRY = 8 + 4 * 768  # one entry of the sparse gradient at GPT-2's width: an int64 id, 768 float32 values
LARGEST = 50_257 * ENTRY  # at most V distinct ids, one entry each after .coalesce()
FEWEST = 50_127  # the fewest distinct ids whose entries take more bytes than the dense 50,257 x 768 x 4
coalesced = exercises.check_largest_coalesced
largest_batch, predicted_flops = exercises.check_largest_batch, exercises.check_predicted_flops


@pytest.mark.parametrize(("checker", "answer", "expected"), [
    (coalesced, (LARGEST, FEWEST), "pass"),
    (coalesced, (LARGEST, FEWEST - 1), "largest_coalesced is right, but fewest_ids is not"),
    (coalesced, (LARGEST, 50_257), "largest_coalesced is right, but fewest_ids is not"),
    (coalesced, (LARGEST, "no"), (TypeError, "fewest_ids must be a whole number of ids, got str")),
    (coalesced, (154_791_560.0, FEWEST), (TypeError, "a whole number of bytes, got float")),
    (coalesced, (50_257 * 768 * 4, FEWEST), "the dense gradient's size: each entry of the sparse one also stores"),
    (coalesced, (50_257 * (8 + 768), FEWEST), "d values are float32, 4 bytes each"),
    (coalesced, (2 * LARGEST, FEWEST), "no two entries share an id"),
    (coalesced, (1_000, FEWEST), "how many entries can remain"),
    (largest_batch, (153,), "pass"),
    (largest_batch, (256,), "the answer for float32: .* F.one_hot still returns int64"),
    (largest_batch, (768,), "counts the bfloat16 one-hot alone: .* the int64 one-hot"),
    (largest_batch, (192,), "counts the int64 one-hot alone: .* bfloat16 copy"),
    (largest_batch, (152,), "one short"),
    (largest_batch, (50_257,), "Hint: write both sizes in bytes"),
    (largest_batch, (153.0,), (TypeError, "a whole number of tokens, got float")),
    (predicted_flops, (LEARNED,), "pass"),
    (predicted_flops, (CONSTANT,), r"predicted_flops is not the counter's count. Hint: X requires a gradient now"),
    (predicted_flops, (LEARNED // 2,), "a multiply-add counts as 2 FLOPs"),
    (predicted_flops, (CONSTANT + 2 * 32 * 8 * 8,),
     "X's gradient, grad @ W.T, is \\(n, d\\) @ \\(d, V\\): its inner size is d"),  # (n, d) @ (d, d), a guess
    (predicted_flops, (CONSTANT + 32 * 2_000,), "its inner size is d, but count its FLOPs"),  # one FLOP a value
    (predicted_flops, (4 * FORWARD,), "one product per gradient it computes, W's and X's, and the forward one more"),
    (predicted_flops, (1,), "to section 1's count, with a constant one-hot, add X's gradient"),
    (predicted_flops, ("3",), (TypeError, r"predicted_flops must be a number \(a count of FLOPs\), got str")),
    (predicted_flops, ({"constant": CONSTANT, "requires_grad": LEARNED},),
     (TypeError, "predicted_flops must be a number")),  # the old form of the exercise, a dict of two counts
])
def test_checker(judge, checker, answer, expected):
    judge(checker, answer, expected, never=(f"{LARGEST:,}", str(LARGEST), "153", f"{CONSTANT:,}", str(CONSTANT),
                                            f"{LEARNED:,}", str(LEARNED)))


def test_no_guess_yet_judges_nothing(capsys):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert predicted_flops(None) is None
    assert capsys.readouterr().out == "not answered yet: fill in predicted_flops above, then run this cell again\n"


def test_the_flop_checker_counts_with_the_counter_at_its_sizes():
    """The checker's counts are FlopCounterMode's on the meta device, the same as on real tensors: a constant
    one-hot, then one requiring a gradient; and they are the worked answer's 2 and 3 products of 2·n·V·d."""
    from torch.utils.flop_counter import FlopCounterMode

    n, V, d = exercises.FLOP_SIZES
    counts = {}
    for name, requires_grad in (("constant", False), ("requires_grad", True)):
        weight = torch.randn(V, d, requires_grad=True)
        one_hot = torch.nn.functional.one_hot(torch.randint(0, V, (n,)), V).float().requires_grad_(requires_grad)
        with FlopCounterMode(display=False) as counter:
            (one_hot @ weight).backward(torch.ones(n, d))
        counts[name] = counter.get_total_flops()
    assert exercises._count(exercises.FLOP_SIZES) == counts == {"constant": CONSTANT, "requires_grad": LEARNED}


def test_the_largest_coalesced_gradient_is_what_a_real_backward_gives_when_every_id_appears():
    """largest_coalesced_bytes against a real nn.Embedding(..., sparse=True): a long batch that holds every id of a
    small table, some many times, coalesces to one entry per id."""
    V, d = 37, 6
    embedding = torch.nn.Embedding(V, d, sparse=True)
    embedding(torch.cat([torch.arange(V), torch.randint(0, V, (500,))])).sum().backward()
    grad = embedding.weight.grad.coalesce()
    assert grad._indices().nbytes + grad._values().nbytes == exercises.largest_coalesced_bytes(V, d)


def test_the_fewest_ids_are_where_the_coalesced_gradient_passes_the_dense_one():
    assert (FEWEST - 1) * ENTRY <= 50_257 * 768 * 4 < FEWEST * ENTRY


def test_the_largest_batch_is_where_a_real_one_hot_and_its_copy_reach_the_tables_bytes():
    V, d = 50, exercises.WIDTH
    table = torch.zeros(V, d, dtype=torch.bfloat16)

    def peak(n):  # the int64 one-hot and its bfloat16 copy, as they both exist in F.one_hot(ids, V).to(bfloat16)
        one_hot = torch.nn.functional.one_hot(torch.zeros(n, dtype=torch.long), V)
        return one_hot.nbytes + one_hot.to(torch.bfloat16).nbytes

    assert peak(153) <= table.nbytes < peak(154)
