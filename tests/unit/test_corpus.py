import json
import math
import random
from pathlib import Path

import pytest
import torch

from utils import corpus
from utils.vocab import SPECIAL_TOKENS, build_vocab, tokenize

NOTEBOOK_9 = Path(__file__).resolve().parents[2] / "notebooks" / "09_what_the_table_learns.ipynb"


def test_the_same_seed_gives_the_same_sentences_and_another_seed_others():
    assert corpus.generate_sentences(50, 3) == corpus.generate_sentences(50, 3)
    assert corpus.generate_sentences(50, 3) != corpus.generate_sentences(50, 4)
    assert corpus.generate_sentences(5, 3) == corpus.generate_sentences(50, 3)[:5]  # a longer corpus extends it


def test_the_global_random_state_is_left_alone():
    random.seed(1)
    expected = random.random()
    random.seed(1)
    corpus.generate_sentences(20, 0)
    assert random.random() == expected


def test_every_sentence_follows_a_rule_with_words_of_the_right_category():
    for sentence in corpus.generate_sentences(100, 0):
        words = sentence.split()
        rules = [rule for rule in corpus.RULES if len(rule) == len(words)]
        assert len(rules) == 1, sentence
        for slot, word in zip(rules[0], words, strict=True):
            assert word in corpus.CATEGORIES[slot] if slot in corpus.CATEGORIES else word == slot
        assert tokenize(sentence) == words  # one token per word: "." is split off by the spaces already


def test_both_rules_and_every_word_occur_in_a_corpus_of_200():
    data = corpus.build_corpus(200, 0)
    counts = data.counts()
    assert {len(s.split()) for s in data.sentences} == {len(rule) for rule in corpus.RULES}
    assert all(counts[w] > 0 for words in corpus.CATEGORIES.values() for w in words)
    assert [t for t, n in counts.items() if n == 0] == [*SPECIAL_TOKENS, *corpus.HELD_OUT]


def test_the_vocabulary_comes_from_the_grammar_in_a_fixed_order():
    vocab = corpus.corpus_vocab()
    assert vocab.itos[:4] == SPECIAL_TOKENS
    assert vocab.itos[4:7] == corpus.FUNCTION_WORDS
    assert vocab.itos[7:13] == corpus.CATEGORIES["animal"]
    assert vocab.itos[-1] == "zebra" and "zebra" not in " ".join(corpus.generate_sentences(500, 0)).split()
    assert vocab == corpus.build_corpus(10, 1).vocab == corpus.build_corpus(30, 2).vocab
    assert vocab == build_vocab(" ".join(vocab.itos[4:]))


def test_categories_are_disjoint_and_every_word_has_one():
    words = [w for ws in corpus.CATEGORIES.values() for w in ws]
    assert len(words) == len(set(words))
    assert corpus.category_of("cat") == "animal" and corpus.category_of("barn") == "place"
    assert corpus.category_of("zebra") == "animal"  # held out of the text, not out of its category
    assert corpus.category_of("the") is None and corpus.category_of("<pad>") is None
    labelled = corpus.labelled_words()
    assert labelled[:7] == [*corpus.CATEGORIES["animal"], "zebra"] and labelled[7:] == words[6:]


def test_context_windows_are_padded_at_the_ends_of_each_sentence():
    vocab = corpus.corpus_vocab()
    contexts, targets = corpus.context_windows(["the red cat eats bread .", "the cat"], vocab, window=2)
    assert contexts.dtype == targets.dtype == torch.long
    assert contexts.shape == (8, 4) and targets.shape == (8,)
    assert vocab.decode(targets) == ["the", "red", "cat", "eats", "bread", ".", "the", "cat"]
    assert vocab.decode(contexts[0]) == ["<pad>", "<pad>", "red", "cat"]
    assert vocab.decode(contexts[3]) == ["red", "cat", "bread", "."]
    assert vocab.decode(contexts[5]) == ["eats", "bread", "<pad>", "<pad>"]
    assert vocab.decode(contexts[6]) == ["<pad>", "<pad>", "cat", "<pad>"]  # sentences do not see each other
    wide, _ = corpus.context_windows(["the red cat"], vocab, window=3)
    assert wide.shape == (3, 6)


def test_both_rules_cost_notebook_9s_floor_per_sentence():
    per_sentence = 3 * math.log(6) + math.log(5)  # notebook 9, section 4: three slots of 6 words, one of 5
    for rule in corpus.RULES:
        assert math.isclose(sum(math.log(len(corpus.CATEGORIES.get(slot, "x"))) for slot in rule), per_sentence)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_context_windows_is_the_loop_of_notebook_9s_windows_cell(seed):
    # the notebook writes the loop out (cell `windows`), then uses this copy for fresh sentences (cell `held-out`):
    # they must agree
    nb = json.loads(NOTEBOOK_9.read_text(encoding="utf-8"))
    source = "".join(next(c["source"] for c in nb["cells"] if c.get("id") == "windows"))
    data = corpus.build_corpus(200, seed)
    namespace = {"data": data, "vocab": data.vocab, "torch": torch, "DEVICE": "cpu", "print": lambda *a, **k: None}
    exec(source, namespace)  # noqa: S102 (the course's own notebook)
    expected = corpus.context_windows(data.sentences, data.vocab, window=2)
    assert torch.equal(namespace["contexts"], expected[0]) and torch.equal(namespace["targets"], expected[1])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: corpus.generate_sentences(0, 0), ValueError, "num_sentences must be >= 1, got 0"),
        (lambda: corpus.generate_sentences(10, -1), ValueError, "seed must be >= 0, got -1"),
        (lambda: corpus.generate_sentences(2.5, 0), TypeError, "num_sentences must be an int, got float"),
        (lambda: corpus.build_corpus("10", 0), TypeError, "num_sentences must be an int, got str"),
        (lambda: corpus.category_of(3), TypeError, "word must be a str, got int"),
        (lambda: corpus.context_windows("the cat", corpus.corpus_vocab()), TypeError, "list of strings"),
        (lambda: corpus.context_windows(["the cat"], corpus.corpus_vocab(), window=0), ValueError,
         "window must be >= 1, got 0"),
        (lambda: corpus.context_windows(["the zebu eats"], corpus.corpus_vocab()), ValueError,
         "'zebu' in sentence 'the zebu eats' is not in the vocabulary"),
        (lambda: corpus.context_windows([""], corpus.corpus_vocab()), ValueError, "hold no words"),
        (lambda: corpus.context_windows(["the cat"], build_vocab("the cat", specials=("<unk>",))), ValueError,
         "must have '<pad>'"),
    ],
)
def test_bad_arguments_say_what_was_expected(call, error, message):
    with pytest.raises(error, match=message):
        call()
