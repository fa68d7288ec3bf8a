"""Notebook 9's checkers accept a right answer and reject a wrong one with a hint."""

import re

import pytest
import torch
import torch.nn as nn

from utils import corpus
from utils.exercises import nb09 as exercises
from utils.vocab import build_vocab

CORPUS_VOCAB = corpus.corpus_vocab()

def _table_with_cat_close_to(word):
    table = torch.randn(len(CORPUS_VOCAB), 8, generator=torch.Generator().manual_seed(0))
    stoi = CORPUS_VOCAB.stoi
    table[stoi[word]] = table[stoi["cat"]] + 0.01
    return table

def test_closest_to_cat(capsys):
    assert exercises.check_closest_to_cat("dog", _table_with_cat_close_to("dog"), CORPUS_VOCAB)
    assert "dog (+1.00) fills the same slots as cat" in capsys.readouterr().out
    table = _table_with_cat_close_to("dog")
    with pytest.raises(exercises.ExerciseError, match="zebra: cosine similarity .* never looked up"):
        exercises.check_closest_to_cat("zebra", table, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="bread is in the category 'food', cat in 'animal'"):
        exercises.check_closest_to_cat("bread", table, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"answer must be one of the words \['dog', 'bread'"):
        exercises.check_closest_to_cat("horse", table, CORPUS_VOCAB)
    # the checker measures the table it is given: if zebra's random row happened to be closest, zebra is right
    assert exercises.check_closest_to_cat("zebra", _table_with_cat_close_to("zebra"), CORPUS_VOCAB)

def _unmoved(before, after):
    return [v for v in range(before.shape[0]) if torch.equal(before[v], after[v])]

def test_unmoved_rows(capsys):
    before = torch.randn(len(CORPUS_VOCAB), 4, generator=torch.Generator().manual_seed(1))
    after = before + 0.5
    after[[0, 1, 41]] = before[[0, 1, 41]]
    assert exercises.check_unmoved_rows(_unmoved, before, after, CORPUS_VOCAB)
    assert "rows [0, 1, 41]: <pad>, <unk>, zebra" in capsys.readouterr().out
    assert exercises.check_unmoved_rows(lambda a, b: (a == b).all(dim=1).nonzero().flatten(), before, after,
                                        CORPUS_VOCAB)  # a tensor of ids is fine too

    def close(a, b):
        return [v for v in range(a.shape[0]) if torch.allclose(a[v], b[v])]

    with pytest.raises(exercises.ExerciseError, match="row 3 changed in its last bit only.*not torch.allclose"):
        exercises.check_unmoved_rows(close, before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"you returned \[1, 3, 5\], expected \[0, 2, 4, 5\]"):
        exercises.check_unmoved_rows(lambda a, b: [v for v in range(a.shape[0]) if v % 2], before, after,
                                     CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match=r"on the notebook's table you returned \[0, 1\]"):
        exercises.check_unmoved_rows(lambda a, b: _unmoved(a, b)[:2] if len(a) > 6 else _unmoved(a, b),
                                     before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="return a list of row ids"):
        exercises.check_unmoved_rows(lambda a, b: {0, 2}, before, after, CORPUS_VOCAB)
    with pytest.raises(exercises.ExerciseError, match="pass your function itself"):
        exercises.check_unmoved_rows([0, 1], before, after, CORPUS_VOCAB)

class _CBOW(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, context):
        return self.head(self.embed(context).sum(dim=1) / (context != 0).sum(dim=1, keepdim=True))

@pytest.fixture(scope="module")
def cbow_data():
    return corpus.context_windows(corpus.generate_sentences(40, 0), CORPUS_VOCAB)

def _cbow(dim, steps, data):
    contexts, targets = data
    torch.manual_seed(0)
    model = _CBOW(len(CORPUS_VOCAB), dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(contexts), targets).backward()
        optimizer.step()
    return model

def test_narrow_tables(cbow_data, capsys):
    trained = {dim: _cbow(dim, 300, cbow_data) for dim in (1, 2, 8)}
    assert exercises.check_narrow_tables(trained, *cbow_data)
    assert re.search(r"final loss \d\.\d{3} \(d=1\), \d\.\d{3} \(d=2\), \d\.\d{3} \(d=8\)", capsys.readouterr().out)

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
