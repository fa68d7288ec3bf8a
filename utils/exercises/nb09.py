"""Notebook 9, what the table learns: the checkers of its exercises."""

from __future__ import annotations

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
    return correct(_("zebra's row moved, its nearest word is of the category you predicted, and most other words' "
                      "nearest words are still of their own category"))


def _hits_by_distance(table: torch.Tensor, vocab: Vocab) -> int:
    """How many words with a category (zebra left out) have their nearest other word, by distance between rows,
    in their own category."""
    words = [w for w in labelled_words() if w != ZEBRA_EXERCISE_WORD]
    rows = table.detach().cpu().double()[[vocab.stoi[w] for w in words]]
    distances = torch.cdist(rows, rows).fill_diagonal_(torch.inf)
    return sum(category_of(words[k]) == category_of(w) for w, k in zip(words, distances.argmin(dim=1).tolist(),
                                                                          strict=True))


def check_narrow_prediction(d1_keeps_categories: bool | None) -> None:
    """Exercise 9.2's prediction, read before any training: does the table of width ``d = 1`` keep the six
    categories (``True``: more than half of the words with a category, zebra left out, have their nearest other
    word in their own category)?

    ``None`` (no guess yet) judges nothing. Otherwise only its kind is checked now: :func:`check_narrow_hits`
    compares it with the measured count.
    """
    if not answered(d1_keeps_categories=d1_keeps_categories):
        return
    prediction("d1_keeps_categories", d1_keeps_categories, bool, "True")
    return recorded(_("your prediction; the count below will test it"))


def check_narrow_hits(d1_keeps_categories: bool | None, d1_hits: int | None, narrow: torch.nn.Module,
                      vocab: Vocab) -> None:
    """Exercise 9.2: the prediction recorded before the training, ``d1_keeps_categories``, and the learner's
    measurement on the trained model ``narrow``, whose table has width ``d = 1``: ``d1_hits``, how many words with
    a category (zebra left out) have their nearest other word by distance ``|a - b|`` in their own category.

    The checker measures the same count on ``narrow``'s table itself and compares; then it compares the
    prediction with that count (kept: more than half of the words). It does not print the count (the notebook's
    last part does).
    """
    if not answered(d1_keeps_categories=d1_keeps_categories, d1_hits=d1_hits):
        return
    prediction("d1_keeps_categories", d1_keeps_categories, bool, "True")
    if not isinstance(d1_hits, int) or isinstance(d1_hits, bool):
        raise AnswerTypeError(_("d1_hits must be a whole number (a count of words), got {d1_hits!r}").format(
            d1_hits=d1_hits))
    tables = _tables(narrow)
    require(len(tables) == 1, _("narrow must be a model with one nn.Embedding (the CBOW of the notebook), got "
                                "{type}").format(type=type(narrow).__name__))
    require(tables[0].embedding_dim == 1, _("narrow has a table of width {embedding_dim}, not 1: build it as "
                                            "CBOW(V, 1)").format(embedding_dim=tables[0].embedding_dim))
    n_words = len(labelled_words()) - 1
    require(0 <= d1_hits <= n_words, _("d1_hits = {d1_hits} is not a count of the {n_words} words").format(
        d1_hits=d1_hits, n_words=n_words))
    require(d1_hits == _hits_by_distance(tables[0].weight, vocab),
            _("d1_hits = {d1_hits} is not what narrow's table gives. Hint: each row is one number, so the distance "
              "of two rows is |a - b|. For each word of WORDS, find the other word whose number is closest, and "
              "count the words for which that word shares their category").format(d1_hits=d1_hits))
    require(d1_keeps_categories == (d1_hits > n_words / 2),
            _("d1_hits is right, but your prediction, d1_keeps_categories = {d1_keeps_categories}, is not what it "
              "shows: True means that more than half of the {n_words} words have their nearest word in their own "
              "category").format(d1_keeps_categories=d1_keeps_categories, n_words=n_words))
    return correct(_("you counted the words whose nearest other word, by the distance between their one-number "
                      "rows, is of their own category, and your prediction agrees with that count"))
