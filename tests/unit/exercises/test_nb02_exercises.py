"""Notebook 2's checkers accept a right answer and reject wrong ones, and a typed-in one, with a hint."""


import pytest
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

from utils.exercises import nb02 as exercises
from utils.vocab import build_vocab


def embed_batch(sentences, vocab, embedding):
    ids = pad_sequence([vocab.encode(s) for s in sentences], batch_first=True, padding_value=vocab.stoi["<pad>"])
    return embedding(ids.to(embedding.weight.device))


def test_embed_batch(capsys):
    assert exercises.check_embed_batch(embed_batch)
    assert capsys.readouterr().out == \
        "correct: embed_batch matched the checker's padded lookup on 2 batches of its own sentences\n"

    def padded_with_unk(sentences, vocab, embedding):
        return embedding(pad_sequence([vocab.encode(s) for s in sentences], batch_first=True, padding_value=1))

    def summed(sentences, vocab, embedding):
        return embed_batch(sentences, vocab, embedding).sum(-1)

    wrong = [
        (lambda s, v, e: [e(v.encode(x)) for x in s], "returned a list; pad the ids"),
        (lambda s, v, e: pad_sequence([v.encode(x) for x in s], batch_first=True), "returned integers"),
        (summed, r"the ids' shape \(B, T\)"),
        (padded_with_unk, r"padding positions are wrong: pad with vocab.stoi\['<pad>'\] \(id 0\)"),
        (lambda s, v, e: e(pad_sequence([v.encode(x)[:2] for x in s], batch_first=True)),
         r"3 sentence\(s\) the result has shape \(3, 2, 6\); a padded batch gives \(B, T, d\)"),
        (lambda s, v, e: torch.randn(len(s), 5, 6), "differ from embedding"),
        ("embed_batch", "pass your function itself"),
    ]
    for function, hint in wrong:
        with pytest.raises(exercises.ExerciseError, match=hint) as raised:
            exercises.check_embed_batch(function)
        assert "(3, 5, 6)" not in str(raised.value)  # the shape the exercise asks to predict: never given away
    typed = embed_batch(["the cat", "the zebra sat on the", "the dog sat ."], *_checker_vocab_and_layer())

    with pytest.raises(exercises.ExerciseError, match=r"1 sentence\(s\) the result has shape \(3, 5, 6\)"):
        exercises.check_embed_batch(lambda *args: typed)  # the first batch's answer, whatever the batch
    with pytest.raises(exercises.ExerciseError) as raised:
        exercises.check_embed_batch(lambda *args: typed)
    assert "(1, 7, 6)" not in str(raised.value)  # nor the second batch's shape


def _checker_vocab_and_layer():
    vocab = build_vocab("The cat sat on the mat. The dog sat on the log.")
    torch.manual_seed(0)
    return vocab, nn.Embedding(len(vocab), 6, padding_idx=0)


def test_pretrained_embedding():
    vectors = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    right = nn.Embedding.from_pretrained(vectors.clone(), freeze=False, padding_idx=0)
    assert exercises.check_pretrained_embedding(right, vectors)

    with pytest.raises(exercises.ExerciseError, match="frozen.*freeze=False"):
        exercises.check_pretrained_embedding(nn.Embedding.from_pretrained(vectors.clone(), padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="shares memory.*clone"):
        exercises.check_pretrained_embedding(
            nn.Embedding.from_pretrained(vectors, freeze=False, padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="padding_idx is None, expected 0"):
        exercises.check_pretrained_embedding(nn.Embedding.from_pretrained(vectors.clone(), freeze=False), vectors)
    with pytest.raises(exercises.ExerciseError, match="does not hold the pretrained vectors"):
        exercises.check_pretrained_embedding(nn.Embedding(6, 3, padding_idx=0), vectors)
    with pytest.raises(exercises.ExerciseError, match="expected an nn.Embedding, got Tensor"):
        exercises.check_pretrained_embedding(vectors, vectors)

def checked_lookup(embedding, ids):
    bad = (ids < 0) | (ids >= embedding.num_embeddings)
    if bad.any():
        raise ValueError(f"token id {ids[bad][0].item()} is out of range")
    return embedding(ids)


def test_checked_lookup(capsys):
    assert exercises.check_checked_lookup(checked_lookup)
    assert capsys.readouterr().out == ("correct: checked_lookup returned the rows for valid int64 and int32 ids, and "
                                       "raised ValueError for 7 and -1 before the layer saw them\n")

    def too_late(embedding, ids):
        out = embedding(ids.clamp(0, embedding.num_embeddings - 1))
        checked_lookup(embedding, ids)
        return out

    def only_too_large(embedding, ids):
        if (ids >= embedding.num_embeddings).any():
            raise ValueError(f"token id {ids.max().item()} is too large")
        return embedding(ids)

    wrong = [
        (lambda embedding, ids: embedding(ids), "raised the layer's IndexError: check before the layer sees the ids"),
        (lambda embedding, ids: embedding(ids.clamp(0, 4)), r"tensor\(\[0, 7\]\)\) raised nothing"),
        (only_too_large, r"tensor\(\[-1\]\)\) raised the layer's IndexError"),
        (too_late, r"for ids \[0, 7\] the layer was called before the ValueError"),
        (lambda embedding, ids: embedding.weight[ids.long()].flip(0), r"for the valid torch.int64 ids"),
        (checked_lookup(nn.Embedding(5, 3), torch.tensor([1])), "pass your function itself"),
    ]
    for function, hint in wrong:
        with pytest.raises(exercises.ExerciseError, match=hint):
            exercises.check_checked_lookup(function)

    def raises_vaguely(embedding, ids):
        if ((ids < 0) | (ids >= 5)).any():
            raise ValueError("bad id")
        return embedding(ids)

    with pytest.raises(exercises.ExerciseError, match=r"raised ValueError\('bad id'\): name the bad id, 7"):
        exercises.check_checked_lookup(raises_vaguely)
    typed = checked_lookup(nn.Embedding(5, 3), torch.tensor([[0, 4], [4, 1]]))
    with pytest.raises(exercises.ExerciseError, match=r"for the valid torch.int64 ids"):
        exercises.check_checked_lookup(lambda embedding, ids: typed)  # rows of another table
