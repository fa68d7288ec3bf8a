"""A generated corpus whose word categories are known before any training (notebook 9).

Every sentence comes from one of two rules,

    the COLOUR ANIMAL EATING FOOD .
    the COLOUR ANIMAL MOVING to the PLACE .

with each capitalised slot filled by a word of that category, drawn uniformly by
``random.Random(seed)``: the same seed gives the same sentences on every machine.
Words of one category fill the same slots, so a model that learns from the neighbours
of a word should end up with similar vectors for them; which words belong together is
known in advance and can be asserted. ``HELD_OUT`` words are in the vocabulary but in
no sentence: their rows of an embedding table are never looked up.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from .checks import check_int
from .vocab import PAD, Vocab, build_vocab, tokenize

#: category -> its words. Verbs of eating are followed by a food, verbs of moving by "to the" and a place.
CATEGORIES: dict[str, tuple[str, ...]] = {
    "animal": ("cat", "dog", "horse", "cow", "sheep", "goat"),
    "colour": ("red", "green", "blue", "yellow", "white", "black"),
    "eating": ("eats", "chews", "tastes", "nibbles", "likes"),
    "food": ("bread", "rice", "cheese", "soup", "cake", "grass"),
    "moving": ("walks", "runs", "goes", "hurries", "wanders"),
    "place": ("park", "garden", "field", "market", "river", "barn"),
}

#: the words that hold a sentence together; they belong to no category
FUNCTION_WORDS: tuple[str, ...] = ("the", "to", ".")

#: word -> its category: in the vocabulary, never in a sentence (an animal the corpus never mentions)
HELD_OUT: dict[str, str] = {"zebra": "animal"}

#: the two rules, as ``(category or literal word, ...)``; a category name stands for one of its words
RULES: tuple[tuple[str, ...], ...] = (
    ("the", "colour", "animal", "eating", "food", "."),
    ("the", "colour", "animal", "moving", "to", "the", "place", "."),
)


def category_of(word: str) -> str | None:
    """The category of ``word`` (held-out words included), or ``None`` for a function word or a special token.

    Taught in notebook 9.
    """
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    for category, words in CATEGORIES.items():
        if word in words:
            return category
    return HELD_OUT.get(word)


def labelled_words() -> list[str]:
    """Every word that has a category, grouped by category in :data:`CATEGORIES` order; a held-out word comes
    after the other words of its category.

    Taught in notebook 9.
    """
    return [word for category, words in CATEGORIES.items()
            for word in (*words, *(w for w, c in HELD_OUT.items() if c == category))]


def generate_sentences(num_sentences: int, seed: int) -> list[str]:
    """``num_sentences`` sentences from :data:`RULES`, each rule and word drawn uniformly with ``seed``.

    Used by build_corpus (notebook 9).
    """
    check_int("num_sentences", num_sentences)
    check_int("seed", seed, minimum=0)
    rng = random.Random(seed)  # its own generator: the global random state is left alone
    sentences = []
    for _ in range(num_sentences):
        rule = RULES[rng.randrange(len(RULES))]
        words = [rng.choice(CATEGORIES[slot]) if slot in CATEGORIES else slot for slot in rule]
        sentences.append(" ".join(words))
    return sentences


def corpus_vocab() -> Vocab:
    """The vocabulary of the grammar: the special tokens, the function words, then each category's words in
    :data:`CATEGORIES` order, then the held-out words. The same for every seed and size of corpus.

    Used by build_corpus (notebook 9).
    """
    words = [*FUNCTION_WORDS, *(w for ws in CATEGORIES.values() for w in ws), *HELD_OUT]
    return build_vocab(" ".join(words))


@dataclass(frozen=True)
class Corpus:
    """Sentences of the grammar, with the vocabulary that covers them and every word's category.

    Returned by build_corpus (notebook 9).
    """

    sentences: tuple[str, ...]
    vocab: Vocab

    def counts(self) -> dict[str, int]:
        """How often each token of the vocabulary occurs in the sentences (0 for tokens that never do)."""
        counts = dict.fromkeys(self.vocab.itos, 0)
        for sentence in self.sentences:
            for token in tokenize(sentence):
                counts[token] += 1
        return counts


def build_corpus(num_sentences: int, seed: int) -> Corpus:
    """``num_sentences`` generated sentences and :func:`corpus_vocab`; see :func:`generate_sentences`.

    Taught in notebook 9.
    """
    return Corpus(tuple(generate_sentences(num_sentences, seed)), corpus_vocab())


def context_windows(sentences: list[str] | tuple[str, ...], vocab: Vocab,
                    window: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    """Every word of every sentence with the ``window`` words on each side of it (CBOW's examples).

    Returns ``contexts`` ``(N, 2 * window)`` int64 (left neighbours, then right ones) and
    ``targets`` ``(N,)`` int64, one row per word of the corpus. Neighbours beyond the
    ends of a sentence are ``<pad>``. Every word must be in ``vocab`` (no ``<unk>``).

    Taught in notebook 9.
    """
    check_int("window", window)
    if isinstance(sentences, str) or not all(isinstance(s, str) for s in sentences):
        raise TypeError("sentences must be a list of strings (one sentence each), not a single string")
    if PAD not in vocab:
        raise ValueError(f"the vocabulary must have {PAD!r}: it fills the window beyond a sentence's ends")
    pad = vocab.stoi[PAD]
    contexts, targets = [], []
    for sentence in sentences:
        missing = [token for token in tokenize(sentence) if token not in vocab]
        if missing:
            raise ValueError(f"{missing[0]!r} in sentence {sentence!r} is not in the vocabulary; "
                             "expected sentences of the corpus's grammar")
        ids = vocab.encode(sentence).tolist()
        padded = [pad] * window + ids + [pad] * window
        for t, target in enumerate(ids):
            centre = t + window  # where ids[t] sits in padded
            contexts.append(padded[centre - window:centre] + padded[centre + 1:centre + 1 + window])
            targets.append(target)
    if not targets:
        raise ValueError("the sentences hold no words; expected at least one sentence with words")
    return torch.tensor(contexts, dtype=torch.long), torch.tensor(targets, dtype=torch.long)
