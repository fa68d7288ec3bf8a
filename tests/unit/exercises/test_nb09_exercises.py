"""Notebook 9's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import pytest
import torch
import torch.nn as nn

from utils import corpus
from utils.exercises import nb09 as exercises

CORPUS_VOCAB = corpus.corpus_vocab()

class _CBOW(nn.Module):  # notebook 9's model
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, context):
        return self.head(self.embed(context).sum(dim=1) / (context != 0).sum(dim=1, keepdim=True))


ZEBRA_CORPUS = corpus.build_corpus(200, 0)


def _trained(sentences, steps=100, dim=8):
    return _trained_on(corpus.context_windows(sentences, CORPUS_VOCAB, window=2), steps, dim)


def _trained_on(windows, steps, dim):
    contexts, targets = windows
    torch.manual_seed(0)
    model = _CBOW(len(CORPUS_VOCAB), dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(contexts), targets).backward()
        optimizer.step()
    return model


@pytest.fixture(scope="module")
def zebra_initial():
    torch.manual_seed(0)
    return _CBOW(len(CORPUS_VOCAB), 8).embed.weight.detach().clone()


def _with(word, replaced="cat", n=20):
    copies = [s.replace(f" {replaced} ", f" {word} ") for s in ZEBRA_CORPUS.sentences if f" {replaced} " in s][:n]
    return list(ZEBRA_CORPUS.sentences) + copies


NARROW_RIGHT = ([1, 2, 8], {-1, 1})  # Exercise 9.2's predictions: the loss falls as d grows; cosines of +-1
RIGHT = ("animal", True)  # Exercise 9.1's predictions: zebra's nearest words are animals, cat the nearest


@pytest.fixture(scope="module")
def zebra_models(zebra_initial):
    """The models of Exercise 9.1's answers, by what they were trained on (and typed-in answers)."""
    torch.manual_seed(0)
    untrained = _CBOW(len(CORPUS_VOCAB), 8)
    torch.manual_seed(1)
    return {"zebra in cat's sentences": _trained(_with("zebra")), "zebra in dog's": _trained(_with("zebra", "dog", 5)),
            "zebra in bread's": _trained(_with("zebra", "bread")), "the corpus alone": _trained(ZEBRA_CORPUS.sentences),
            "untrained": untrained, "untrained, another seed": _CBOW(len(CORPUS_VOCAB), 8),
            "width 2": _trained(_with("zebra"), dim=2), "a linear layer": nn.Linear(2, 2),
            "typed in": "cat", "a list": ["cat", "dog", "goat"], "the table": zebra_initial}


@pytest.mark.parametrize(("predictions", "model", "expected"), [
    (RIGHT, "zebra in cat's sentences", "pass"),
    (("animal", False), "zebra in dog's", "pass"),  # dog, not cat, is its nearest
    (("food", True), "zebra in cat's sentences", "your predicted_category, 'food', is not the category"),
    (("animal", False), "zebra in cat's sentences", "every context your sentences give zebra is a context of cat"),
    (("animals", True), "untrained", (ValueError, "predicted_category must be one of")),
    (("animal", "yes"), "untrained", "predicted_cat_nearest must look like True"),
    (RIGHT, "the corpus alone", "zebra's row is exactly as at the start"),  # section 4's model
    (RIGHT, "untrained", "exactly the one it started from: train it"),
    (RIGHT, "untrained, another seed", r"only \d+ of 34 words have a nearest neighbour"),
    (RIGHT, "zebra in bread's", "zebra's nearest words are .*not all of them animals"),
    (RIGHT, "typed in", "zebra_model must be the trained model"),
    (RIGHT, "a list", "zebra_model must be the trained model"),
    (RIGHT, "the table", "zebra_model must be the trained model"),
    (RIGHT, "width 2", r"table is \[42, 2\], expected \[42, 8\]"),
    (RIGHT, "a linear layer", "one nn.Embedding"),
])
def test_zebra_learned(judge, zebra_models, zebra_initial, predictions, model, expected):
    judge(exercises.check_zebra_learned, (*predictions, zebra_models[model], zebra_initial, CORPUS_VOCAB), expected,
          never=("'animal'",) if predictions[0] == "food" else ())  # never the answer


@pytest.mark.parametrize(("category", "cat_nearest", "expected"), [
    *[(category, cat_nearest, "pass") for category in ("animal", "food") for cat_nearest in (True, False)],
    ("animals", True, (ValueError, "predicted_category must be one of")),
    ("animal", "yes", "predicted_cat_nearest must look like True, got str"),
])
def test_zebra_predictions(judge, category, cat_nearest, expected):
    """Recorded before the training, judged after it (test_zebra_learned)."""
    judge(exercises.check_zebra_predictions, (category, cat_nearest), expected)


@pytest.fixture(scope="module")
def cbow_data():
    return corpus.context_windows(corpus.generate_sentences(40, 0), CORPUS_VOCAB)


@pytest.fixture(scope="module")
def narrow(cbow_data):
    """Exercise 9.2's models, trained, and wrong ones by name."""
    return {dim: _trained_on(cbow_data, 300, dim) for dim in (1, 2, 8)} | {
        "untrained 2": _trained_on(cbow_data, 0, 2), "8, trained less": _trained_on(cbow_data, 20, 8)}


@pytest.mark.parametrize(("models", "predictions", "expected"), [
    ({1: 1, 2: 2, 8: 8}, NARROW_RIGHT, "pass"),
    ({1: 1, 2: "untrained 2", 8: 8}, NARROW_RIGHT, r"models\[2\] has a loss of .* has it been trained"),
    ({1: 1, 2: 2, 8: "8, trained less"}, NARROW_RIGHT, "do not fall as d grows"),
    ({1: 2, 2: 2, 8: 8}, NARROW_RIGHT, r"models\[1\] has a table of width 2, not 1"),
    ({1: 1, 8: 8}, NARROW_RIGHT, r"has the widths \[1, 8\]; expected 1, 2 and"),
    ({1: 1, 2: "model", 8: 8}, NARROW_RIGHT, "must be a model with one nn.Embedding"),
    ([1], NARROW_RIGHT, "must be a dict"),
    ({1: 1, 2: 2, 8: 8}, ([8, 2, 1], {-1, 1}), r"predicted_loss_order, \[8, 2, 1\], is not the order"),
    ({1: 1, 2: 2, 8: 8}, ([1, 2, 8], {-1, 0, 1}), r"d1_possible_cosines, \[-1, 0, 1\], are not the values"),
    ({1: 1, 2: 2, 8: 8}, ([1, 2], {-1, 1}), (TypeError, "must list the widths")),
])
def test_narrow_tables(judge, narrow, cbow_data, models, predictions, expected):
    models = {d: narrow.get(name, name) for d, name in models.items()} if isinstance(models, dict) else \
        [narrow[name] for name in models]
    judge(exercises.check_narrow_tables, (models, *cbow_data, *predictions), expected)


def test_narrow_tables_prints_what_it_measured(narrow, cbow_data, capsys):
    assert exercises.check_narrow_tables({dim: narrow[dim] for dim in (1, 2, 8)}, *cbow_data, *NARROW_RIGHT)
    out = capsys.readouterr().out  # the losses, measured, then what was checked
    assert out.startswith("the checker's losses on the corpus: d = 1: ") and ", d = 8: " in out
    assert "the cosine similarities between two rows of the d = 1 table: -1.0, +1.0\n" in out


@pytest.mark.parametrize(("order", "cosines", "expected"), [
    ([1, 2, 8], {-1, 1}, "pass"),
    ((8, 2, 1), [1.0, -1.0, 0.0], "pass"),  # wrong, but recorded: the training judges
    ([1, 2], {-1, 1}, (TypeError, "must list the widths")),
    ([1, 2, 8], "1", (TypeError, "must be a set of numbers")),
])
def test_narrow_predictions(judge, order, cosines, expected):
    judge(exercises.check_narrow_predictions, (order, cosines), expected)


def test_checkers_leave_the_global_rng_alone(zebra_models):
    torch.manual_seed(123)
    expected = torch.rand(3)
    model = zebra_models["zebra in cat's sentences"]
    torch.manual_seed(123)
    exercises.check_zebra_learned(*RIGHT, model, model.embed.weight.detach() + 1, CORPUS_VOCAB)
    assert torch.equal(torch.rand(3), expected)
