"""Notebook 9, what the table learns: the checkers of its exercises."""

from __future__ import annotations

import math

import torch

from ..corpus import CATEGORIES, category_of, labelled_words
from ..vocab import Vocab
from .checking import correct, require

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


def _table(name: str, model: object, what: str) -> torch.Tensor:
    """The weight of ``model``'s one ``nn.Embedding``, detached, as float32 on the CPU."""
    tables = [m for m in model.modules() if isinstance(m, torch.nn.Embedding)] \
        if isinstance(model, torch.nn.Module) else []
    require(len(tables) == 1, f"{name} must be a model with one nn.Embedding ({what}); "
            + (f"it has {len(tables)}" if isinstance(model, torch.nn.Module) else f"got {type(model).__name__}"))
    return tables[0].weight.detach().cpu().float()


def check_zebra_learned(predicted_category: str, predicted_cat_nearest: bool, zebra_model: torch.nn.Module,
                        initial: torch.Tensor, vocab: Vocab) -> bool:
    """Exercise 9.1: a CBOW trained on the corpus plus sentences that mention zebra, and two predictions
    recorded before the training: the category of zebra's nearest words, and whether ``cat`` is the nearest.

    ``zebra_model``: the trained model, with one ``nn.Embedding`` ``[V, d]``; ``initial``: the
    table ``[V, d]`` the notebook's model started from (the same seed); ``vocab``: the corpus's
    vocabulary. The checker measures the model's table itself: zebra's row moved (it was
    looked up), zebra's :data:`ZEBRA_EXERCISE_NEIGHBOURS` nearest words are animals, and at
    least :data:`ZEBRA_EXERCISE_TRAINED_SHARE` of the other words have a nearest neighbour of
    their own category (the model was trained).
    """
    word = ZEBRA_EXERCISE_WORD
    if predicted_category not in CATEGORIES:
        raise TypeError(f"predicted_category must be one of the names {list(CATEGORIES)}, got {predicted_category!r}")
    if not isinstance(predicted_cat_nearest, bool):
        raise TypeError(f"predicted_cat_nearest must be True or False, got {predicted_cat_nearest!r}")
    require(isinstance(zebra_model, torch.nn.Module), "zebra_model must be the trained model (CBOW(V, DIM) after "
            f"training), got {type(zebra_model).__name__}")
    table = _table("zebra_model", zebra_model, "the CBOW of the notebook")
    start = initial.detach().cpu().float()
    require(table.shape == start.shape, f"zebra_model's table is {list(table.shape)}, expected {list(start.shape)}: "
            "build it as CBOW(V, DIM)")
    zebra = vocab.stoi[word]
    require(not torch.equal(table, start),
            "zebra_model's table is exactly the one it started from: train it, for steps Adam steps")
    require(not torch.equal(table[zebra], start[zebra]), f"{word}'s row is exactly as at the start: none of the "
            f"windows the model trained on contained {word}. Hint: add your sentences to the corpus's before building "
            "the windows, and train on those windows")
    words = [w for w in labelled_words() if w != word]
    hits = sum(category_of(_nearest(table, vocab, w, 1)[0]) == category_of(w) for w in words)
    require(hits >= ZEBRA_EXERCISE_TRAINED_SHARE * len(words), f"only {hits} of {len(words)} words have a nearest "
            "neighbour of their own category: train the model for steps Adam steps on the corpus's sentences plus "
            "yours, starting from torch.manual_seed(seed)")
    neighbours = _nearest(table, vocab, word, ZEBRA_EXERCISE_NEIGHBOURS)
    require(all(category_of(w) == category_of(word) for w in neighbours), f"{word}'s nearest words are "
            f"{', '.join(neighbours)}, not all of them animals. Hint: {word} must stand where an animal stands: copy "
            f"whole sentences and replace the animal (cat) by {word}")
    require(predicted_category == category_of(word), f"your model is right, but your predicted_category, "
            f"{predicted_category!r}, is not the category of {word}'s nearest words. Hint: training moves {word}'s "
            "row towards the rows of words that appear in the same contexts")
    why = ("every context your sentences give zebra is a context of cat" if not predicted_cat_nearest
           else "look at which words share zebra's contexts in the sentences you made")
    require(predicted_cat_nearest == (neighbours[0] == "cat"), "your model is right, but your predicted_cat_nearest, "
            f"{predicted_cat_nearest}, does not match the checker's measurement. Hint: {why}")
    return correct("zebra's row moved, the category and the nearest word you predicted match the checker's "
                   "measurement of zebra's nearest words, and the other words kept their categories")


def check_narrow_tables(models: dict[int, torch.nn.Module], contexts: torch.Tensor, targets: torch.Tensor) -> bool:
    """Exercise 9.2: trained models with tables of width ``d = 1`` and ``d = 2`` (and a wider one), keyed by ``d``.

    The checker measures each model's loss on ``contexts`` ``(N, 2w)`` -> ``targets`` ``(N,)``
    itself: it must fall as ``d`` grows, and stay below the uniform guess's ``ln V``.
    """
    require(isinstance(models, dict) and all(isinstance(d, int) for d in models),
            f"models must be a dict from the width d (an int) to a trained model, got {models!r}")
    require({1, 2} <= set(models) and max(models) > 2,
            f"models has the widths {sorted(models)}; expected 1, 2 and the notebook's wider model")
    losses = {}
    for dim in sorted(models):
        table = _table(f"models[{dim}]", models[dim], "the CBOW of the notebook")
        require(table.shape[1] == dim,
                f"models[{dim}] has a table of width {table.shape[1]}, not {dim}: build it as CBOW(V, {dim})")
        with torch.no_grad():
            losses[dim] = torch.nn.functional.cross_entropy(models[dim](contexts), targets).item()
        uniform = math.log(table.shape[0])
        require(losses[dim] < 0.75 * uniform, f"models[{dim}] has a loss of {losses[dim]:.3f}, close to the uniform "
                f"guess ln V = {uniform:.3f}: has it been trained (train(model, optimizer, steps))?")
    dims = sorted(losses)
    require(all(losses[a] > losses[b] for a, b in zip(dims, dims[1:], strict=False)),
            f"the losses {', '.join(f'{losses[d]:.3f} (d={d})' for d in dims)} do not fall as d grows. Hint: train "
            "every model for the same number of steps, from the same seed")
    return correct("narrow holds trained CBOW models of widths 1 and 2; the checker measured each one's loss "
                   "on the corpus")
