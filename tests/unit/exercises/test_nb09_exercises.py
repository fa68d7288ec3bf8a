"""Notebook 9's checkers accept a right answer and reject a wrong one with a hint."""

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


def _with(word, replaced="cat", n=20):
    copies = [s.replace(f" {replaced} ", f" {word} ") for s in ZEBRA_CORPUS.sentences if f" {replaced} " in s][:n]
    return list(ZEBRA_CORPUS.sentences) + copies


NARROW_RIGHT = ([1, 2, 8], {-1, 1})  # Exercise 9.2's predictions: the loss falls as d grows; cosines of +-1
RIGHT = ("animal", True)  # Exercise 9.1's predictions: zebra's nearest words are animals, cat the nearest


def test_zebra_learned(zebra_initial, capsys):
    assert exercises.check_zebra_learned(*RIGHT, _trained(_with("zebra")), zebra_initial, CORPUS_VOCAB)
    out = capsys.readouterr().out
    assert out.startswith("correct: zebra's row moved") and not re.search(r"\b(cat|animals?)\b", out)  # no answer
    dog_like = _trained(_with("zebra", "dog", 5))  # zebra in dog's sentences: dog, not cat, is its nearest
    assert exercises.check_zebra_learned("animal", False, dog_like, zebra_initial, CORPUS_VOCAB)


@pytest.mark.parametrize(("predictions", "hint"), [
    (("food", True), "your predicted_category, 'food', is not the category"),
    (("animal", False), "every context your sentences give zebra is a context of cat"),
])
def test_zebra_learned_rejects_a_wrong_prediction(zebra_initial, predictions, hint):
    with pytest.raises(exercises.ExerciseError, match=hint) as error:
        exercises.check_zebra_learned(*predictions, _trained(_with("zebra")), zebra_initial, CORPUS_VOCAB)
    assert "'animal'" not in str(error.value)


def test_zebra_learned_rejects_a_prediction_of_the_wrong_kind(zebra_initial):
    with pytest.raises(TypeError, match="predicted_category must be one of the names"):
        exercises.check_zebra_learned("animals", True, None, zebra_initial, CORPUS_VOCAB)
    with pytest.raises(TypeError, match="predicted_cat_nearest must be True or False"):
        exercises.check_zebra_learned("animal", "yes", None, zebra_initial, CORPUS_VOCAB)


def test_zebra_learned_rejects_a_model_that_never_saw_zebra(zebra_initial):
    with pytest.raises(exercises.ExerciseError, match="zebra's row is exactly as at the start"):
        exercises.check_zebra_learned(*RIGHT, _trained(ZEBRA_CORPUS.sentences), zebra_initial, CORPUS_VOCAB)  # sec. 4
    torch.manual_seed(0)
    untrained = _CBOW(len(CORPUS_VOCAB), 8)
    with pytest.raises(exercises.ExerciseError, match="exactly the one it started from: train it"):
        exercises.check_zebra_learned(*RIGHT, untrained, zebra_initial, CORPUS_VOCAB)
    torch.manual_seed(1)
    with pytest.raises(exercises.ExerciseError, match=r"only \d+ of 34 words have a nearest neighbour"):
        exercises.check_zebra_learned(*RIGHT, _CBOW(len(CORPUS_VOCAB), 8), zebra_initial, CORPUS_VOCAB)  # another seed


def test_zebra_learned_rejects_zebra_in_the_wrong_slot(zebra_initial):
    with pytest.raises(exercises.ExerciseError, match="zebra's nearest words are .*not all of them animals"):
        exercises.check_zebra_learned(*RIGHT, _trained(_with("zebra", "bread")), zebra_initial, CORPUS_VOCAB)


def test_zebra_learned_rejects_what_is_not_a_trained_model(zebra_initial):
    for typed in ("cat", ["cat", "dog", "goat"], zebra_initial):  # an answer typed in, or the table itself
        with pytest.raises(exercises.ExerciseError, match="zebra_model must be the trained model"):
            exercises.check_zebra_learned(*RIGHT, typed, zebra_initial, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"table is \[42, 2\], expected \[42, 8\]"):
        exercises.check_zebra_learned(*RIGHT, _trained(_with("zebra"), dim=2), zebra_initial, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="one nn.Embedding"):
        exercises.check_zebra_learned(*RIGHT, nn.Linear(2, 2), zebra_initial, CORPUS_VOCAB)


@pytest.fixture(scope="module")
def cbow_data():
    return corpus.context_windows(corpus.generate_sentences(40, 0), CORPUS_VOCAB)

def _cbow(dim, steps, data):
    return _trained_on(data, steps, dim)

def test_narrow_tables(cbow_data, capsys):
    trained = {dim: _cbow(dim, 300, cbow_data) for dim in (1, 2, 8)}
    assert exercises.check_narrow_tables(trained, *cbow_data, *NARROW_RIGHT)
    out = capsys.readouterr().out  # the losses, measured, then what was checked
    assert out.startswith("the checker's losses on the corpus: d = 1: ") and ", d = 8: " in out
    assert out.endswith("correct: narrow holds trained CBOW models of widths 1 and 2; the checker measured each "
                        "one's loss on the corpus, and both your predictions match what it measured\n")
    assert "the cosine similarities between two rows of the d = 1 table: -1.0, +1.0\n" in out

    with pytest.raises(exercises.ExerciseError, match=r"models\[2\] has a loss of .* has it been trained"):
        exercises.check_narrow_tables({**trained, 2: _cbow(2, 0, cbow_data)}, *cbow_data, *NARROW_RIGHT)
    with pytest.raises(exercises.ExerciseError, match="do not fall as d grows"):
        exercises.check_narrow_tables({**trained, 8: _cbow(8, 20, cbow_data)}, *cbow_data, *NARROW_RIGHT)
    with pytest.raises(exercises.ExerciseError, match=r"models\[1\] has a table of width 2, not 1"):
        exercises.check_narrow_tables({**trained, 1: trained[2]}, *cbow_data, *NARROW_RIGHT)
    with pytest.raises(exercises.ExerciseError, match=r"has the widths \[1, 8\]; expected 1, 2 and"):
        exercises.check_narrow_tables({1: trained[1], 8: trained[8]}, *cbow_data, *NARROW_RIGHT)
    with pytest.raises(exercises.ExerciseError, match="must be a model with one nn.Embedding"):
        exercises.check_narrow_tables({**trained, 2: "model"}, *cbow_data, *NARROW_RIGHT)
    with pytest.raises(exercises.ExerciseError, match="must be a dict"):
        exercises.check_narrow_tables([trained[1]], *cbow_data, *NARROW_RIGHT)


def test_checkers_leave_the_global_rng_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    model = _trained(_with("zebra"))
    torch.manual_seed(123)
    exercises.check_zebra_learned(*RIGHT, model, model.embed.weight.detach() + 1, CORPUS_VOCAB)
    assert torch.equal(torch.rand(3), expected)


def test_zebra_predictions(capsys):
    """Recorded before the training, judged after it (test_zebra_learned_rejects_a_wrong_prediction)."""
    for category in ("animal", "food"):
        for cat_nearest in (True, False):
            assert exercises.check_zebra_predictions(category, cat_nearest)
    assert capsys.readouterr().out.startswith("correct: both predictions are recorded; the training below")
    with pytest.raises(TypeError, match="predicted_category must be one of the names"):
        exercises.check_zebra_predictions("animals", True)
    with pytest.raises(TypeError, match="predicted_cat_nearest must be True or False"):
        exercises.check_zebra_predictions("animal", "yes")


def test_narrow_predictions(capsys):
    assert exercises.check_narrow_predictions([1, 2, 8], {-1, 1})
    assert exercises.check_narrow_predictions((8, 2, 1), [1.0, -1.0, 0.0])  # wrong, but recorded: the training judges
    assert capsys.readouterr().out.startswith("correct: both predictions are recorded; the training below")
    with pytest.raises(TypeError, match="must list the widths"):
        exercises.check_narrow_predictions([1, 2], {-1, 1})
    with pytest.raises(TypeError, match="must be a set of numbers"):
        exercises.check_narrow_predictions([1, 2, 8], "1")


def test_narrow_predictions_judged_by_the_training(cbow_data):
    trained = {dim: _cbow(dim, 300, cbow_data) for dim in (1, 2, 8)}
    with pytest.raises(exercises.ExerciseError, match=r"predicted_loss_order, \[8, 2, 1\], is not the order"):
        exercises.check_narrow_tables(trained, *cbow_data, [8, 2, 1], {-1, 1})
    with pytest.raises(exercises.ExerciseError, match=r"d1_possible_cosines, \[-1, 0, 1\], are not the values"):
        exercises.check_narrow_tables(trained, *cbow_data, [1, 2, 8], {-1, 0, 1})
