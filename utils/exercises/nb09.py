"""Notebook 9, what the table learns: the checkers of its exercises."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..corpus import category_of, labelled_words
from ..vocab import Vocab
from .checking import ExerciseError, correct, require_function

#: Exercise 9.1: the word that no sentence of the corpus mentions, and how many of its nearest words must be animals
ZEBRA_EXERCISE_WORD = "zebra"
ZEBRA_EXERCISE_NEIGHBOURS = 3
#: ... and the share of the other words whose nearest neighbour must be of their own category (a trained model)
ZEBRA_EXERCISE_TRAINED_SHARE = 0.9


def _nearest(table: torch.Tensor, vocab: Vocab, word: str, k: int) -> list[str]:
    """The ``k`` labelled words whose rows have the highest cosine similarity with ``word``'s row."""
    others = [w for w in labelled_words() if w != word]
    unit = torch.nn.functional.normalize(table, dim=1)
    cosines = unit[[vocab.stoi[w] for w in others]] @ unit[vocab.stoi[word]]
    return [others[i] for i in cosines.topk(k).indices.tolist()]


def check_zebra_learned(zebra_model: torch.nn.Module, initial: torch.Tensor, vocab: Vocab) -> bool:
    """Exercise 9.1: a CBOW trained on the corpus plus sentences that mention zebra.

    ``zebra_model``: the trained model, with one ``nn.Embedding`` ``[V, d]``; ``initial``: the
    table ``[V, d]`` the notebook's model started from (the same seed); ``vocab``: the corpus's
    vocabulary. The checker measures the model's table itself: zebra's row moved (it was
    looked up), zebra's :data:`ZEBRA_EXERCISE_NEIGHBOURS` nearest words are animals, and at
    least :data:`ZEBRA_EXERCISE_TRAINED_SHARE` of the other words have a nearest neighbour of
    their own category (the model was trained).
    """
    word = ZEBRA_EXERCISE_WORD
    if not isinstance(zebra_model, torch.nn.Module):
        raise ExerciseError(f"zebra_model must be the trained model (CBOW(V, DIM) after training), "
                            f"got {type(zebra_model).__name__}")
    tables = [m for m in zebra_model.modules() if isinstance(m, torch.nn.Embedding)]
    if len(tables) != 1:
        raise ExerciseError(f"zebra_model must have one nn.Embedding (the CBOW of the notebook), it has {len(tables)}")
    table, start = tables[0].weight.detach().cpu().float(), initial.detach().cpu().float()
    if table.shape != start.shape:
        raise ExerciseError(f"zebra_model's table is {list(table.shape)}, expected {list(start.shape)}: "
                            "build it as CBOW(V, DIM)")
    zebra = vocab.stoi[word]
    if torch.equal(table, start):
        raise ExerciseError("zebra_model's table is exactly the one it started from: train it, for steps Adam steps")
    if torch.equal(table[zebra], start[zebra]):
        raise ExerciseError(f"{word}'s row is exactly as at the start: none of the windows the model trained on "
                            f"contained {word}. Hint: add your sentences to the corpus's before building the windows, "
                            "and train on those windows")
    words = [w for w in labelled_words() if w != word]
    hits = sum(category_of(_nearest(table, vocab, w, 1)[0]) == category_of(w) for w in words)
    if hits < ZEBRA_EXERCISE_TRAINED_SHARE * len(words):
        raise ExerciseError(f"only {hits} of {len(words)} words have a nearest neighbour of their own category: "
                            "train the model for steps Adam steps on the corpus's sentences plus yours, starting from "
                            "torch.manual_seed(seed)")
    neighbours = _nearest(table, vocab, word, ZEBRA_EXERCISE_NEIGHBOURS)
    if any(category_of(w) != category_of(word) for w in neighbours):
        raise ExerciseError(f"{word}'s nearest words are {', '.join(neighbours)}, not all of them animals. Hint: "
                            f"{word} must stand where an animal stands: copy whole sentences and replace the "
                            f"animal (cat) by {word}")
    return correct("zebra's row moved, its three nearest words are animals, and the other words kept their categories")


def check_unmoved_rows(unmoved_rows: Callable[[torch.Tensor, torch.Tensor], list[int]], before: torch.Tensor,
                       after: torch.Tensor, vocab: Vocab) -> bool:
    """Exercise 9.2: ``unmoved_rows(before, after)`` -> sorted ids of the rows that are exactly equal.

    Tried on two small tables of the checker's own first (one row changed only in its last
    bit; no row changed), then on the notebook's table ``before`` and ``after`` training
    (``[V, d]`` each).
    """
    require_function("unmoved_rows", unmoved_rows)

    def call(a: torch.Tensor, b: torch.Tensor) -> list[int]:
        got = unmoved_rows(a, b)
        got = got.tolist() if isinstance(got, torch.Tensor) else got
        if not isinstance(got, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool) for v in got):
            raise ExerciseError(f"return a list of row ids (ints), got {got!r}")
        return list(got)

    small = torch.randn(6, 3, generator=torch.Generator().manual_seed(9))
    moved = small.clone()
    moved[1] += 1.0
    moved[3, 2] = torch.nextafter(moved[3, 2], torch.tensor(float("inf")))  # one bit of one number
    got = call(small, moved)
    if got != [0, 2, 4, 5]:
        hint = ("row 3 changed in its last bit only: it moved. Compare with == or torch.equal, not torch.allclose"
                if 3 in got else "a row is unmoved when every one of its numbers is exactly as before")
        raise ExerciseError(f"on a 6-row table where rows 1 and 3 changed, you returned {got}, expected [0, 2, 4, 5]. "
                            f"Hint: {hint}")
    same = torch.randn(4, 5, generator=torch.Generator().manual_seed(10))
    got = call(same, same.clone())
    if got != [0, 1, 2, 3]:
        raise ExerciseError(f"on a 4-row table compared with a copy of itself you returned {got}, expected "
                            "[0, 1, 2, 3]: no row changed")
    before, after = before.detach().cpu(), after.detach().cpu()
    expected = [v for v in range(before.shape[0]) if torch.equal(before[v], after[v])]
    got = call(before, after)
    if got != expected:
        tokens = [vocab.itos[v] for v in got if 0 <= v < len(vocab.itos)]
        raise ExerciseError(f"on the notebook's table you returned {got} ({', '.join(tokens)}), expected the sorted "
                            f"ids of the {len(expected)} rows that are exactly as before")
    return correct("unmoved_rows agrees with the checker's comparison on this notebook's tables and on two tables "
                   "of its own")


def check_narrow_tables(models: dict[int, torch.nn.Module], contexts: torch.Tensor, targets: torch.Tensor) -> bool:
    """Exercise 9.3: trained models with tables of width ``d = 1`` and ``d = 2`` (and a wider one), keyed by ``d``.

    The checker measures each model's loss on ``contexts`` ``(N, 2w)`` -> ``targets`` ``(N,)``
    itself: it must fall as ``d`` grows, and stay below the uniform guess's ``ln V``.
    """
    if not isinstance(models, dict) or not all(isinstance(d, int) for d in models):
        raise ExerciseError(f"models must be a dict from the width d (an int) to a trained model, got {models!r}")
    if not {1, 2} <= set(models) or max(models) <= 2:
        raise ExerciseError(f"models has the widths {sorted(models)}; expected 1, 2 and the notebook's wider model")
    losses = {}
    for dim in sorted(models):
        model = models[dim]
        tables = [m for m in model.modules() if isinstance(m, torch.nn.Embedding)] \
            if isinstance(model, torch.nn.Module) else []
        if len(tables) != 1:
            raise ExerciseError(f"models[{dim}] must be a model with one nn.Embedding (the CBOW of the notebook), "
                                f"got {type(model).__name__}")
        if tables[0].embedding_dim != dim:
            raise ExerciseError(f"models[{dim}] has a table of width {tables[0].embedding_dim}, not {dim}: "
                                f"build it as CBOW(V, {dim})")
        with torch.no_grad():
            losses[dim] = torch.nn.functional.cross_entropy(model(contexts), targets).item()
        uniform = math.log(tables[0].num_embeddings)
        if not losses[dim] < 0.75 * uniform:
            raise ExerciseError(f"models[{dim}] has a loss of {losses[dim]:.3f}, close to the uniform guess "
                                f"ln V = {uniform:.3f}: has it been trained (train(model, optimizer, steps))?")
    dims = sorted(losses)
    if not all(losses[a] > losses[b] for a, b in zip(dims, dims[1:], strict=False)):
        raise ExerciseError(f"the losses {', '.join(f'{losses[d]:.3f} (d={d})' for d in dims)} do not fall as d "
                            "grows. Hint: train every model for the same number of steps, from the same seed")
    return correct("narrow holds trained CBOW models of widths 1 and 2; the checker measured each one's loss "
                   "on the corpus")
