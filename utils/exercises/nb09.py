"""Notebook 9, what the table learns: the checkers of its exercises."""

from __future__ import annotations

import math

import torch

from ..corpus import CATEGORIES, category_of, labelled_words
from ..language import _
from ..vocab import Vocab
from .checking import AnswerTypeError, answered, correct, one_of, prediction, recorded, require

#: Exercise 9.1: the word that no sentence of the corpus mentions (the grammar files it under the animals) ...
ZEBRA_EXERCISE_WORD = "zebra"
#: ... and the share of the other words whose nearest neighbour must be of their own category: a trained model
#: (section 4's reaches 0.9 and more; an untrained one about 0.2; with zebra's copies, 28 of 34 words or more over
#: seeds 0 to 299 at 100, 250 and 400 steps)
ZEBRA_EXERCISE_TRAINED_SHARE = 0.75


def _nearest(table: torch.Tensor, vocab: Vocab, word: str, k: int) -> list[str]:
    """The ``k`` labelled words whose rows have the highest cosine similarity with ``word``'s row."""
    others = [w for w in labelled_words() if w != word]
    unit = torch.nn.functional.normalize(table, dim=1)
    cosines = unit[[vocab.stoi[w] for w in others]] @ unit[vocab.stoi[word]]
    return [others[i] for i in cosines.topk(k).indices.tolist()]


def check_zebra_prediction(zebra_category: str | None) -> None:
    """Exercise 9.1's prediction, read before any training: the category of zebra's nearest word once zebra
    stands where bread stands (a name of :data:`~utils.corpus.CATEGORIES`).

    ``None`` (no guess yet) judges nothing. Otherwise only its kind is checked now: the
    experiment tells whether it holds, and the checker after it, :func:`check_zebra_learned`,
    compares it with its measurement.
    """
    if not answered(zebra_category=zebra_category):
        return
    one_of("zebra_category", zebra_category, tuple(CATEGORIES))
    return recorded(_("your prediction; the experiment below will test it"))


def _tables(model: object) -> list[torch.nn.Embedding]:
    """The model's embedding tables (none if it is not a model)."""
    return [m for m in model.modules() if isinstance(m, torch.nn.Embedding)] if isinstance(model, torch.nn.Module) \
        else []


def check_zebra_learned(zebra_category: str, zebra_model: torch.nn.Module, initial: torch.Tensor,
                        vocab: Vocab) -> None:
    """Exercise 9.1: a CBOW trained on the corpus plus copies of its sentences with zebra in bread's place, and
    the prediction recorded before the training: the category of zebra's nearest word.

    ``zebra_model``: the trained model, with one ``nn.Embedding`` ``[V, d]``; ``initial``: the
    table ``[V, d]`` the notebook's model started from (the same seed); ``vocab``: the corpus's
    vocabulary. The checker measures the model's table itself: zebra's row moved (it was
    looked up) and at least :data:`ZEBRA_EXERCISE_TRAINED_SHARE` of the other words have a
    nearest neighbour of their own category (the model was trained). Then it compares the
    prediction with the category of zebra's nearest word in that table (by cosine similarity,
    among the labelled words), which it does not print.
    """
    if not answered(zebra_category=zebra_category):
        return
    word = ZEBRA_EXERCISE_WORD
    one_of("zebra_category", prediction("zebra_category", zebra_category, str, '"colour"'), tuple(CATEGORIES))
    require(isinstance(zebra_model, torch.nn.Module), _("zebra_model must be the trained model (CBOW(V, "
                                                         "DIM) after training), got {type}").format(
                                                          type=type(zebra_model).__name__))
    tables = _tables(zebra_model)
    require(len(tables) == 1,
            _("zebra_model must have one nn.Embedding (the CBOW of the notebook), it has {n_tables}").format(
                n_tables=len(tables)))
    table, start = tables[0].weight.detach().cpu().float(), initial.detach().cpu().float()
    require(table.shape == start.shape, _("zebra_model's table is {shape}, expected {expected}: build it as "
                                           "CBOW(V, DIM)").format(shape=list(table.shape), expected=list(start.shape)))
    require(not torch.equal(table, start),
            _("zebra_model's table is exactly the one it started from: run the experiment cell above, then "
              "this one"))
    zebra = vocab.stoi[word]
    require(not torch.equal(table[zebra], start[zebra]), _("{word}'s row is exactly as at the start: this "
                                                            "model never looked {word} up. Pass the model "
                                                            "that the experiment cell above trains on the "
                                                            "sentences with {word}").format(word=word))
    words = [w for w in labelled_words() if w != word]
    hits = sum(category_of(_nearest(table, vocab, w, 1)[0]) == category_of(w) for w in words)
    require(hits >= ZEBRA_EXERCISE_TRAINED_SHARE * len(words), _("only {hits} of {n_words} words have a "
                                                                  "nearest neighbour of their own category, "
                                                                  "so this model is not trained: pass the model "
                                                                  "that the experiment cell above trains").format(
                                                                   hits=hits, n_words=len(words)))
    nearest = _nearest(table, vocab, word, 1)[0]  # the hint below never names it: it is the answer
    require(zebra_category == category_of(nearest), _("the model is right, but your zebra_category, "
                                                       "{zebra_category!r}, is not the category of "
                                                       "{word}'s nearest word. Hint: the model never "
                                                       "reads the grammar's categories; training moves "
                                                       "{word}'s row towards the rows of the words that "
                                                       "fill the same slots in the same contexts").format(
                                                        zebra_category=zebra_category, word=word))
    return correct(_("zebra's row moved, its nearest word is of the category you predicted, and the other words "
                      "kept their categories"))


def check_narrow_prediction(d1_groups: int | None) -> None:
    """Exercise 9.2's prediction, read before any training: into how many groups at most cosine similarity sorts
    the rows of a ``d = 1`` table.

    ``None`` (no guess yet) judges nothing. Otherwise only its kind is checked now:
    :func:`check_narrow_table`, after the experiment, compares it with the answer.
    ``TypeError`` for a value that is not a whole number.
    """
    if not answered(d1_groups=d1_groups):
        return
    _check_narrow_prediction_kind(d1_groups)
    return recorded(_("your prediction; the experiment below will test it"))


def _check_narrow_prediction_kind(d1_groups: int) -> None:
    if not isinstance(d1_groups, int) or isinstance(d1_groups, bool):
        raise AnswerTypeError(_("d1_groups must be a whole number, got {d1_groups!r}").format(d1_groups=d1_groups))


def _loss(model: torch.nn.Module, contexts: torch.Tensor, targets: torch.Tensor) -> float:
    with torch.no_grad():
        return torch.nn.functional.cross_entropy(model(contexts), targets).item()


def check_narrow_table(narrow: torch.nn.Module, contexts: torch.Tensor, targets: torch.Tensor,
                       d1_groups: int) -> None:
    """Exercise 9.2: the trained model ``narrow``, whose table has width ``d = 1``, and the prediction that
    :func:`check_narrow_prediction` recorded before the training.

    The checker measures ``narrow``'s loss on ``contexts`` ``(N, 2w)`` -> ``targets`` ``(N,)`` itself: it must stay
    below the uniform guess's ``ln V`` by a margin (a trained model). It then compares ``d1_groups`` with the most
    groups the signs of one number allow (2), without printing that number (a stored output must not show an
    answer).
    """
    if not answered(d1_groups=d1_groups):
        return
    _check_narrow_prediction_kind(d1_groups)
    tables = _tables(narrow)
    require(len(tables) == 1, _("narrow must be a model with one nn.Embedding (the CBOW of the notebook), got "
                                "{type}").format(type=type(narrow).__name__))
    require(tables[0].embedding_dim == 1, _("narrow has a table of width {embedding_dim}, not 1: build it as "
                                            "CBOW(V, 1)").format(embedding_dim=tables[0].embedding_dim))
    uniform = math.log(tables[0].num_embeddings)
    loss = _loss(narrow, contexts, targets)
    require(loss < 0.75 * uniform, _("narrow has a loss of {loss:.3f}, close to the uniform guess ln V = "
                                     "{uniform:.3f}, so it is not trained: pass the model that the "
                                     "experiment cell above trains").format(loss=loss, uniform=uniform))
    require(d1_groups == 2, _("d1_groups = {d1_groups} is not the most groups cosine similarity can make of a "
                              "d = 1 table. Why: cos(a, b) = a·b / (|a| |b|), with a and b numbers").format(
                                  d1_groups=d1_groups))
    return correct(_("narrow is a trained CBOW model of width 1, and your prediction matches the most groups "
                      "cosine similarity can make of its rows"))
