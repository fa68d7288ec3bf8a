import pytest
import torch

from utils.vocab import SPECIAL_TOKENS, Vocab, build_vocab, tokenize

TEXT = "The cat sat on the mat. The dog sat."


def test_tokenize_lowercases_and_splits_punctuation():
    assert tokenize("The cat, sat.") == ["the", "cat", ",", "sat", "."]
    assert tokenize("") == []


def test_tokenize_rejects_non_strings():
    with pytest.raises(TypeError, match="text must be a str, got list"):
        tokenize(["the", "cat"])


def test_specials_come_first_then_first_occurrence_order():
    vocab = build_vocab(TEXT)
    assert vocab.itos[:4] == SPECIAL_TOKENS == ("<pad>", "<unk>", "<sos>", "<eos>")
    assert vocab.itos[4:] == ("the", "cat", "sat", "on", "mat", ".", "dog")
    assert vocab.stoi["the"] == 4 and len(vocab) == 11


def test_sorted_order_and_repeatability():
    assert build_vocab(TEXT, sort=True).itos[4:] == (".", "cat", "dog", "mat", "on", "sat", "the")
    assert build_vocab(TEXT) == build_vocab(TEXT)


def test_encode_maps_unknown_words_to_unk():
    vocab = build_vocab(TEXT)
    ids = vocab.encode("the zebra sat")
    assert ids.dtype == torch.long
    assert ids.tolist() == [4, vocab.unk_id, 6]
    assert vocab.unk_id == 1
    assert vocab.encode("").shape == (0,)


def test_decode_round_trip_and_errors():
    vocab = build_vocab(TEXT)
    assert vocab.decode(vocab.encode("the cat")) == ["the", "cat"]
    with pytest.raises(ValueError, match=r"token id 11 is out of range for a vocabulary of 11 \(valid ids: 0..10\)"):
        vocab.decode([11])
    with pytest.raises(ValueError, match="token id -1 is out of range"):
        vocab.decode([-1])
    with pytest.raises(TypeError, match="ids must be integers, got 1.5"):
        vocab.decode([1.5])


def test_vocab_rejects_duplicates_and_missing_unk():
    with pytest.raises(ValueError, match="unique"):
        Vocab(("<pad>", "<unk>", "a", "a"))
    with pytest.raises(ValueError, match="specials must include '<unk>'"):
        build_vocab(TEXT, specials=("<pad>",))


def test_words_that_equal_a_special_token_are_not_duplicated():
    vocab = build_vocab("<unk> cat")  # tokenize splits "<unk>" into "<", "unk", ">"
    assert len(set(vocab.itos)) == len(vocab)
