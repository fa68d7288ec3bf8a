"""Notebook 9's checkers: the worked answer passes, and each listed wrong answer fails with its hint."""

import re

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


def _with(word, replaced="cat", n=None):
    copies = [s.replace(f" {replaced} ", f" {word} ") for s in ZEBRA_CORPUS.sentences if f" {replaced} " in s][:n]
    return list(ZEBRA_CORPUS.sentences) + copies


RIGHT = "food"  # Exercise 9.1's prediction: zebra in bread's place ends nearest a food, whatever the grammar says


@pytest.fixture(scope="module")
def zebra_models(zebra_initial):
    """The models of Exercise 9.1's answers, by what they were trained on (and typed-in answers)."""
    torch.manual_seed(0)
    untrained = _CBOW(len(CORPUS_VOCAB), 8)
    torch.manual_seed(1)
    return {"zebra in bread's sentences": _trained(_with("zebra", "bread")),
            "zebra in rice's": _trained(_with("zebra", "rice")),
            "zebra in cat's": _trained(_with("zebra")), "the corpus alone": _trained(ZEBRA_CORPUS.sentences),
            "untrained": untrained, "untrained, another seed": _CBOW(len(CORPUS_VOCAB), 8),
            "width 2": _trained(_with("zebra", "bread"), dim=2), "a linear layer": nn.Linear(2, 2),
            "typed in": "cat", "a list": ["cat", "dog", "goat"], "the table": zebra_initial}


@pytest.mark.parametrize(("predicted", "model", "expected"), [
    (RIGHT, "zebra in bread's sentences", "pass"),
    (RIGHT, "zebra in rice's", "pass"),  # another food's sentences: the same category
    ("animal", "zebra in bread's sentences", "your zebra_category, 'animal', is not the category"),
    ("animals", "untrained", (ValueError, "zebra_category must be one of")),
    (RIGHT, "the corpus alone", "zebra's row is exactly as at the start: this model never looked zebra up"),
    (RIGHT, "untrained", "exactly the one it started from: run the experiment cell above"),
    (RIGHT, "untrained, another seed", r"only \d+ of 34 words have a nearest neighbour .* not trained"),
    (RIGHT, "zebra in cat's", "your zebra_category, 'food', is not the category of zebra's nearest word"),
    ("animal", "zebra in cat's", "pass"),  # the checker judges the guess by the table it is given
    (RIGHT, "typed in", "zebra_model must be the trained model"),
    (RIGHT, "a list", "zebra_model must be the trained model"),
    (RIGHT, "the table", "zebra_model must be the trained model"),
    (RIGHT, "width 2", r"table is \[42, 2\], expected \[42, 8\]"),
    (RIGHT, "a linear layer", "one nn.Embedding"),
])
def test_zebra_learned(judge, zebra_models, zebra_initial, predicted, model, expected):
    judge(exercises.check_zebra_learned, (predicted, zebra_models[model], zebra_initial, CORPUS_VOCAB), expected,
          never=("'food'",) if predicted == "animal" else ())  # a wrong category's hint never names the answer


@pytest.mark.parametrize(("category", "expected"), [
    *[(category, "pass") for category in ("animal", "food")],
    ("animals", (ValueError, "zebra_category must be one of")),
])
def test_zebra_prediction(judge, category, expected):
    """Recorded before the training, judged after it (test_zebra_learned)."""
    judge(exercises.check_zebra_prediction, (category,), expected)


@pytest.fixture(scope="module")
def cbow_data():
    return corpus.context_windows(corpus.generate_sentences(40, 0), CORPUS_VOCAB)


@pytest.fixture(scope="module")
def narrow(cbow_data):
    """Exercise 9.2's model, trained, and wrong ones by name."""
    return {"trained": _trained_on(cbow_data, 300, 1), "untrained": _trained_on(cbow_data, 0, 1),
            "width 2": _trained_on(cbow_data, 300, 2), "a linear layer": nn.Linear(1, 1), "typed in": "model"}


def _worked_hits(model):
    """Exercise 9.2's worked answer, as the notebook writes it: WORDS' numbers, nearest by |a - b|."""
    words = [w for w in corpus.labelled_words() if w != "zebra"]
    rows = model.embed.weight.detach()[[CORPUS_VOCAB.stoi[w] for w in words], 0]
    nearest_k = (rows[:, None] - rows[None, :]).abs().fill_diagonal_(torch.inf).argmin(dim=1).tolist()
    return sum(corpus.category_of(words[k]) == corpus.category_of(w) for w, k in zip(words, nearest_k, strict=True))


def _cosine_hits(model):
    """A wrong measurement: nearest by cosine, which at d = 1 ties every word of one sign."""
    words = [w for w in corpus.labelled_words() if w != "zebra"]
    rows = model.embed.weight.detach()[[CORPUS_VOCAB.stoi[w] for w in words], 0]
    cosines = (rows[:, None].sign() * rows[None, :].sign()).fill_diagonal_(-2)
    nearest_k = cosines.argmax(dim=1).tolist()
    return sum(corpus.category_of(words[k]) == corpus.category_of(w) for w, k in zip(words, nearest_k, strict=True))


def test_the_wrong_measurements_differ_from_the_worked_one(narrow):
    """The hint cases below are wrong answers on this model, not the right one by chance."""
    right = _worked_hits(narrow["trained"])
    assert right > 20 and _cosine_hits(narrow["trained"]) != right and _worked_hits(narrow["untrained"]) != right


@pytest.mark.parametrize(("model", "answer", "expected"), [
    ("trained", "worked", "pass"),
    ("untrained", "untrained's", "pass"),  # the count on whatever width-1 table it is given
    ("trained", "by cosine", r"d1_hits = \d+ is not what narrow's table gives. Hint: each row is one number"),
    ("trained", "untrained's", r"d1_hits = \d+ is not what narrow's table gives"),
    ("trained", 35, r"d1_hits = 35 is not a count of the 34 words"),
    ("trained", -1, r"d1_hits = -1 is not a count of the 34 words"),
    ("width 2", "worked", r"narrow has a table of width 2, not 1"),
    ("a linear layer", "worked", "must be a model with one nn.Embedding"),
    ("typed in", "worked", "must be a model with one nn.Embedding"),
    ("trained", 30.0, (TypeError, "d1_hits must be a whole number")),
    ("trained", True, (TypeError, "d1_hits must be a whole number")),
])
def test_narrow_hits(judge, narrow, model, answer, expected):
    answers = {"worked": _worked_hits(narrow["trained"]), "untrained's": _worked_hits(narrow["untrained"]),
               "by cosine": _cosine_hits(narrow["trained"])}
    count = answers.get(answer, answer)
    kept = isinstance(count, int) and count > 17  # the prediction that agrees with the count: over half of 34 words
    judge(exercises.check_narrow_hits, (kept, count, narrow[model], CORPUS_VOCAB), expected)


def test_the_untrained_table_loses_the_categories(narrow):
    """So that the cases below judge a prediction of each kind against a count."""
    assert _worked_hits(narrow["untrained"]) <= 17 < _worked_hits(narrow["trained"])


@pytest.mark.parametrize(("model", "predicted", "expected"), [
    ("trained", True, "pass"),
    ("trained", False, r"d1_hits is right, but your prediction, d1_keeps_categories = False, is not what it shows"),
    ("untrained", False, "pass"),
    ("untrained", True, r"d1_hits is right, but your prediction, d1_keeps_categories = True, is not what it shows"),
    ("trained", "yes", "d1_keeps_categories must look like True"),
    ("trained", 1, "d1_keeps_categories must look like True"),
])
def test_narrow_hits_judges_the_prediction(judge, narrow, model, predicted, expected):
    judge(exercises.check_narrow_hits, (predicted, _worked_hits(narrow[model]), narrow[model], CORPUS_VOCAB),
          expected, never=(str(_worked_hits(narrow[model])),))  # the count is the learner's; never printed back


@pytest.mark.parametrize(("predicted", "expected"), [
    (True, "pass"),
    (False, "pass"),
    ("no", "d1_keeps_categories must look like True"),
    (0, "d1_keeps_categories must look like True"),
])
def test_narrow_prediction(judge, predicted, expected):
    """Recorded before the training, judged after it (test_narrow_hits_judges_the_prediction)."""
    judge(exercises.check_narrow_prediction, (predicted,), expected)


def test_narrow_hits_prints_what_it_checked_never_what_it_measured(narrow, capsys):
    exercises.check_narrow_hits(True, _worked_hits(narrow["trained"]), narrow["trained"], CORPUS_VOCAB)
    out = capsys.readouterr().out  # one line: correct, and what was checked
    assert out.startswith("correct: ") and out.count("\n") == 1
    assert not re.search(r"\b\d+\b", out)  # not the count: the stored page shows this line


@pytest.mark.parametrize(("checker", "guesses", "named"), [
    (exercises.check_zebra_prediction, (None,), "zebra_category"),
    (exercises.check_zebra_learned, (None, "a model", "a table", "a vocabulary"), "zebra_category"),
    (exercises.check_narrow_prediction, (None,), "d1_keeps_categories"),
    (exercises.check_narrow_hits, (None, None, "a model", "a vocabulary"), "d1_keeps_categories and d1_hits"),
    (exercises.check_narrow_hits, (True, None, "a model", "a vocabulary"), "d1_hits"),
])
def test_no_guess_yet_judges_nothing(capsys, checker, guesses, named):
    """Run top to bottom before the learner guesses: one line asking for the guess, no verdict, no failure."""
    assert checker(*guesses) is None
    assert capsys.readouterr().out == f"not answered yet: fill in {named} above, then run this cell again\n"


def test_checkers_leave_the_global_rng_alone(zebra_models):
    torch.manual_seed(123)
    expected = torch.rand(3)
    model = zebra_models["zebra in bread's sentences"]
    torch.manual_seed(123)
    exercises.check_zebra_learned(RIGHT, model, model.embed.weight.detach() + 1, CORPUS_VOCAB)
    assert torch.equal(torch.rand(3), expected)
