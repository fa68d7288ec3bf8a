"""Notebook 9's checkers: the worked answer passes, and each listed wrong answer (a typed-in one among them)
fails with its hint, never the answer itself."""

import functools
import re

import torch
import torch.nn as nn

from tests.unit.exercises.checker_table import checker_tests
from utils import corpus
from utils.exercises import nb09 as exercises
from utils.exercises.checking import ExerciseError as E

VOCAB = corpus.corpus_vocab()
ZEBRA_CORPUS = corpus.build_corpus(200, 0)
RIGHT = ("animal", True)  # Exercise 9.1's predictions: zebra's nearest words are animals, cat the nearest


class CBOW(nn.Module):  # notebook 9's model
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, context):
        return self.head(self.embed(context).sum(dim=1) / (context != 0).sum(dim=1, keepdim=True))


def untrained(dim=8, seed=0):
    torch.manual_seed(seed)
    return CBOW(len(VOCAB), dim)


def trained_on(windows, steps, dim):
    contexts, targets = windows
    model = untrained(dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(contexts), targets).backward()
        optimizer.step()
    return model


@functools.cache
def zebra_model(word="zebra", replaced="cat", n=20, dim=8):
    """A model trained for 100 steps on the corpus plus ``n`` of its sentences with ``replaced`` turned into ``word``
    (``word=None``: the corpus alone, as in section 4)."""
    copies = [s.replace(f" {replaced} ", f" {word} ") for s in ZEBRA_CORPUS.sentences if f" {replaced} " in s][:n]
    sentences = list(ZEBRA_CORPUS.sentences) + (copies if word else [])
    return trained_on(corpus.context_windows(sentences, VOCAB, window=2), 100, dim)


def zebra(model=None, predictions=RIGHT):
    return (*predictions, zebra_model() if model is None else model, untrained().embed.weight.detach(), VOCAB)


@functools.cache
def narrow(dim, steps=300):
    return trained_on(corpus.context_windows(corpus.generate_sentences(40, 0), VOCAB), steps, dim)


def narrow_tables(changes=None, widths=(1, 2, 8)):
    models = {dim: narrow(dim) for dim in widths}
    return ({**models, **(changes or {})}, *corpus.context_windows(corpus.generate_sentences(40, 0), VOCAB))


WORKED = [
    ("check_zebra_learned", zebra),
    ("check_zebra_learned", lambda: zebra(zebra_model("zebra", "dog", 5), ("animal", False))),  # dog is the nearest
    ("check_narrow_tables", narrow_tables),
]
WRONG = [
    ("check_zebra_learned", lambda: zebra(predictions=("food", True)), E,
     "your predicted_category, 'food', is not the category"),
    ("check_zebra_learned", lambda: zebra(predictions=("animal", False)), E,
     "every context your sentences give zebra is a context of cat"),
    ("check_zebra_learned", lambda: zebra(None, ("animals", True)), TypeError,
     "predicted_category must be one of the names"),
    ("check_zebra_learned", lambda: zebra(None, ("animal", "yes")), TypeError,
     "predicted_cat_nearest must be True or False"),
    ("check_zebra_learned", lambda: zebra(zebra_model(None)), E, "zebra's row is exactly as at the start"),
    ("check_zebra_learned", lambda: zebra(untrained()), E, "exactly the one it started from: train it"),
    ("check_zebra_learned", lambda: zebra(untrained(seed=1)), E, r"only \d+ of 34 words have a nearest neighbour"),
    ("check_zebra_learned", lambda: zebra(zebra_model("zebra", "bread")), E,
     "zebra's nearest words are .*not all of them animals"),
    ("check_zebra_learned", lambda: zebra("cat"), E, "zebra_model must be the trained model"),  # typed in
    ("check_zebra_learned", lambda: zebra(["cat", "dog", "goat"]), E, "zebra_model must be the trained model"),
    ("check_zebra_learned", lambda: zebra(untrained().embed.weight.detach()), E, "zebra_model must be the trained"),
    ("check_zebra_learned", lambda: zebra(zebra_model(dim=2)), E, r"table is \[42, 2\], expected \[42, 8\]"),
    ("check_zebra_learned", lambda: zebra(nn.Linear(2, 2)), E, "one nn.Embedding"),
    ("check_narrow_tables", lambda: narrow_tables({2: narrow(2, 0)}), E,
     r"models\[2\] has a loss of .* has it been trained"),
    ("check_narrow_tables", lambda: narrow_tables({8: narrow(8, 20)}), E, "do not fall as d grows"),
    ("check_narrow_tables", lambda: narrow_tables({1: narrow(2)}), E, r"models\[1\] has a table of width 2, not 1"),
    ("check_narrow_tables", lambda: narrow_tables(widths=(1, 8)), E, r"has the widths \[1, 8\]; expected 1, 2 and"),
    ("check_narrow_tables", lambda: narrow_tables({2: "model"}), E, "must be a model with one nn.Embedding"),
    ("check_narrow_tables", lambda: ([narrow(1)], *narrow_tables()[1:]), E, "must be a dict"),
]


#: what no message may show: the category or the nearest word, in the success line or a hint
ANSWERS = [re.compile(r"correct: .*\b(cat|animals?)\b"), re.compile(r"Hint:.*'animal'")]
test_the_worked_answer_passes, test_a_wrong_answer_fails_with_its_hint = checker_tests(exercises, WORKED, WRONG,
                                                                                       ANSWERS)


def test_the_checker_leaves_the_learners_generator_alone():
    answer = zebra()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    exercises.check_zebra_learned(*answer)
    assert torch.equal(torch.rand(3), expected)
