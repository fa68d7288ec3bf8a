"""Notebook 9's checkers accept a right answer and reject a wrong one with a hint."""

import pytest
import torch
import torch.nn as nn

from utils import corpus
from utils.exercises import nb09 as exercises
from utils.vocab import build_vocab

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


def test_zebra_learned(zebra_initial, capsys):
    assert exercises.check_zebra_learned(_trained(_with("zebra")), zebra_initial, CORPUS_VOCAB)
    assert capsys.readouterr().out == ("correct: zebra's row moved, its three nearest words are animals, and the "
                                       "other words kept their categories\n")
    assert exercises.check_zebra_learned(_trained(_with("zebra", "dog", 5)), zebra_initial, CORPUS_VOCAB)


def test_zebra_learned_rejects_a_model_that_never_saw_zebra(zebra_initial):
    with pytest.raises(exercises.ExerciseError, match="zebra's row is exactly as at the start"):
        exercises.check_zebra_learned(_trained(ZEBRA_CORPUS.sentences), zebra_initial, CORPUS_VOCAB)  # section 4's
    torch.manual_seed(0)
    untrained = _CBOW(len(CORPUS_VOCAB), 8)
    with pytest.raises(exercises.ExerciseError, match="exactly the one it started from: train it"):
        exercises.check_zebra_learned(untrained, zebra_initial, CORPUS_VOCAB)
    torch.manual_seed(1)
    with pytest.raises(exercises.ExerciseError, match=r"only \d+ of 34 words have a nearest neighbour"):
        exercises.check_zebra_learned(_CBOW(len(CORPUS_VOCAB), 8), zebra_initial, CORPUS_VOCAB)  # another seed


def test_zebra_learned_rejects_zebra_in_the_wrong_slot(zebra_initial):
    with pytest.raises(exercises.ExerciseError, match="zebra's nearest words are .*not all of them animals"):
        exercises.check_zebra_learned(_trained(_with("zebra", "bread")), zebra_initial, CORPUS_VOCAB)


def test_zebra_learned_rejects_what_is_not_a_trained_model(zebra_initial):
    for typed in ("cat", ["cat", "dog", "goat"], zebra_initial):  # an answer typed in, or the table itself
        with pytest.raises(exercises.ExerciseError, match="zebra_model must be the trained model"):
            exercises.check_zebra_learned(typed, zebra_initial, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"table is \[42, 2\], expected \[42, 8\]"):
        exercises.check_zebra_learned(_trained(_with("zebra"), dim=2), zebra_initial, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="one nn.Embedding"):
        exercises.check_zebra_learned(nn.Linear(2, 2), zebra_initial, CORPUS_VOCAB)


def _unmoved(before, after):
    return [v for v in range(before.shape[0]) if torch.equal(before[v], after[v])]

def test_unmoved_rows(capsys):
    before = torch.randn(len(CORPUS_VOCAB), 4, generator=torch.Generator().manual_seed(1))
    after = before + 0.5
    after[[0, 1, 41]] = before[[0, 1, 41]]
    assert exercises.check_unmoved_rows(_unmoved, before, after, CORPUS_VOCAB)
    assert capsys.readouterr().out == ("correct: unmoved_rows agrees with the checker's comparison on this notebook's "
                                       "tables and on two tables of its own\n")
    assert exercises.check_unmoved_rows(lambda a, b: (a == b).all(dim=1).nonzero().flatten(), before, after,
                                        CORPUS_VOCAB)  # a tensor of ids is fine too

    def close(a, b):
        return [v for v in range(a.shape[0]) if torch.allclose(a[v], b[v])]

    with pytest.raises(exercises.ExerciseError, match="row 3 changed in its last bit only.*not torch.allclose"):
        exercises.check_unmoved_rows(close, before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"you returned \[1, 3, 5\], expected \[0, 2, 4, 5\]"):
        exercises.check_unmoved_rows(lambda a, b: [v for v in range(a.shape[0]) if v % 2], before, after,
                                     CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"on the notebook.s table you returned \[0, 1\] \(<pad>, <unk>"):
        exercises.check_unmoved_rows(lambda a, b: _unmoved(a, b)[:2] if len(a) > 6 else _unmoved(a, b),
                                     before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"compared with a copy of itself you returned \[\]"):
        exercises.check_unmoved_rows(lambda a, b: _unmoved(a, b) if len(a) != 4 else [], before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="return a list of row ids"):
        exercises.check_unmoved_rows(lambda a, b: {0, 2}, before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_unmoved_rows([0, 1], before, after, CORPUS_VOCAB)

@pytest.fixture(scope="module")
def cbow_data():
    return corpus.context_windows(corpus.generate_sentences(40, 0), CORPUS_VOCAB)

def _cbow(dim, steps, data):
    return _trained_on(data, steps, dim)

def test_narrow_tables(cbow_data, capsys):
    trained = {dim: _cbow(dim, 300, cbow_data) for dim in (1, 2, 8)}
    assert exercises.check_narrow_tables(trained, *cbow_data)
    assert capsys.readouterr().out == ("correct: narrow holds trained CBOW models of widths 1 and 2; the checker "
                                       "measured each one's loss on the corpus\n")

    with pytest.raises(exercises.ExerciseError, match=r"models\[2\] has a loss of .* has it been trained"):
        exercises.check_narrow_tables({**trained, 2: _cbow(2, 0, cbow_data)}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match="do not fall as d grows"):
        exercises.check_narrow_tables({**trained, 8: _cbow(8, 20, cbow_data)}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match=r"models\[1\] has a table of width 2, not 1"):
        exercises.check_narrow_tables({**trained, 1: trained[2]}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match=r"has the widths \[1, 8\]; expected 1, 2 and"):
        exercises.check_narrow_tables({1: trained[1], 8: trained[8]}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match="must be a model with one nn.Embedding"):
        exercises.check_narrow_tables({**trained, 2: "model"}, *cbow_data)
    with pytest.raises(exercises.ExerciseError, match="must be a dict"):
        exercises.check_narrow_tables([trained[1]], *cbow_data)


def test_checkers_leave_the_global_rng_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    table = torch.zeros(42, 2)
    exercises.check_unmoved_rows(lambda a, b: (a == b).all(dim=1).nonzero().flatten(), table, table,
                                 build_vocab(" ".join(f"w{i}" for i in range(38))))
    assert torch.equal(torch.rand(3), expected)
