"""Notebook 9, what the table learns: the checkers of its exercises."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..corpus import HELD_OUT, category_of
from ..vocab import Vocab
from .checking import ExerciseError, correct

#: Exercise 9.1: the word, and the words whose rows may end closest to its row after training
CLOSEST_EXERCISE_WORD = "cat"
CLOSEST_EXERCISE_CANDIDATES = ("dog", "bread", "park", "eats", "zebra")


def _cosines_to(table: torch.Tensor, vocab: Vocab, word: str, others: tuple[str, ...]) -> dict[str, float]:
    unit = torch.nn.functional.normalize(table.detach().cpu().float(), dim=1)
    return {other: float(unit[vocab.stoi[other]] @ unit[vocab.stoi[word]]) for other in others}


def check_closest_to_cat(answer: str, trained: torch.Tensor, vocab: Vocab) -> bool:
    """Exercise 9.1: which of :data:`CLOSEST_EXERCISE_CANDIDATES` has the row closest to ``cat``'s in ``trained``.

    ``trained``: the table ``[V, d]`` after training; ``vocab``: the corpus's vocabulary.
    """
    word, candidates = CLOSEST_EXERCISE_WORD, CLOSEST_EXERCISE_CANDIDATES
    if not isinstance(answer, str) or answer not in candidates:
        raise ExerciseError(f"answer must be one of the words {list(candidates)}, got {answer!r}")
    cosines = _cosines_to(trained, vocab, word, candidates)
    best = max(cosines, key=cosines.get)
    if answer != best:
        if answer in HELD_OUT:
            hint = (f"{answer} is in the category {category_of(answer)!r}, but no sentence mentions it: its row was "
                    "never looked up, so it is as random as at the start")
        else:
            hint = (f"{answer} is in the category {category_of(answer)!r}, {word} in {category_of(word)!r}: "
                    "they fill different slots of the sentences, so they have different neighbours")
        raise ExerciseError(f"{answer}: cosine similarity {cosines[answer]:+.2f} with {word}, but {best} has "
                            f"{cosines[best]:+.2f}. Hint: {hint}")
    unseen = [w for w in candidates if w in HELD_OUT]
    also = (f"; {unseen[0]} ({cosines[unseen[0]]:+.2f}) is in the category {category_of(unseen[0])!r} too, but its "
            "row never moved") if unseen else ""
    return correct(f"{best} ({cosines[best]:+.2f}) fills the same slots as {word}, so training pulled their rows "
                    f"together{also}")


def check_unmoved_rows(unmoved_rows: Callable[[torch.Tensor, torch.Tensor], list[int]], before: torch.Tensor,
                       after: torch.Tensor, vocab: Vocab) -> bool:
    """Exercise 9.2: ``unmoved_rows(before, after)`` -> sorted ids of the rows that are exactly equal.

    Tried on a small table first (one row changed only in its last bit), then on the
    notebook's table ``before`` and ``after`` training (``[V, d]`` each).
    """
    if not callable(unmoved_rows):
        raise ExerciseError(f"pass your function itself, not its result; got {type(unmoved_rows).__name__}")

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
    before, after = before.detach().cpu(), after.detach().cpu()
    expected = [v for v in range(before.shape[0]) if torch.equal(before[v], after[v])]
    got = call(before, after)
    if got != expected:
        raise ExerciseError(f"on the notebook's table you returned {got}, expected {expected} (sorted row ids)")
    tokens = [vocab.itos[v] for v in expected]
    return correct(f"rows {expected}: {', '.join(tokens)}. All were never looked up except <pad>, which fills "
                    "many contexts: padding_idx keeps its gradient at zero")


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
    listed = ", ".join(f"{losses[d]:.3f} (d={d})" for d in dims)
    return correct(f"final loss {listed}: a narrower table fits the corpus less well. With d = 1 a row is one "
                    "number, so any two rows have cosine similarity +1 or -1: the sign is all that is left")
