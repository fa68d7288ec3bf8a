"""Notebook 2, nn.Embedding is a lookup table: the checkers of its exercises."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

from ..vocab import build_vocab
from .checking import ExerciseError, correct, require_function

#: Exercise 2.1: the checker's own corpus, and its batches: sentences of 2, 5 and 4 tokens ("zebra" is unknown),
#: then a single sentence ("a" is unknown)
_CORPUS = "The cat sat on the mat. The dog sat on the log."
_BATCHES = (["the cat", "the zebra sat on the", "the dog sat ."], ["a dog sat on the mat ."])


def check_embed_batch(embed_batch: Callable) -> bool:
    """Exercise 2.1: ``embed_batch(sentences, vocab, embedding)`` -> the ``(B, T, d)`` vectors of the padded batch.

    The checker calls it with a vocabulary and an ``nn.Embedding(V, 6, padding_idx=0)`` of its own, on two
    batches, and compares with its own padded lookup, bit for bit.
    """
    require_function("embed_batch", embed_batch)
    vocab = build_vocab(_CORPUS)
    pad_id = vocab.stoi["<pad>"]
    torch.manual_seed(0)
    embedding = nn.Embedding(len(vocab), 6, padding_idx=pad_id)
    for sentences in _BATCHES:
        ids = pad_sequence([vocab.encode(s) for s in sentences], batch_first=True, padding_value=pad_id)
        with torch.no_grad():
            expected = embedding(ids)
            got = embed_batch(list(sentences), vocab, embedding)
        if isinstance(got, (list, tuple)):
            raise ExerciseError(f"embed_batch returned a {type(got).__name__}; pad the ids into one (B, T) tensor "
                                "first (torch.nn.utils.rnn.pad_sequence), then look the whole batch up at once")
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"embed_batch returned {type(got).__name__}; return embedding(ids), a tensor")
        got = got.detach().cpu()
        if not got.is_floating_point():
            raise ExerciseError("embed_batch returned integers: those are the ids. Return embedding(ids), the vectors")
        if got.shape == ids.shape:
            raise ExerciseError(f"the result has shape {tuple(got.shape)}, the ids' shape (B, T): the lookup adds "
                                "a last axis of size embedding_dim")
        if got.shape != expected.shape:
            raise ExerciseError(f"for {len(sentences)} sentence(s) the result has shape {tuple(got.shape)}; a padded "
                                "batch gives (B, T, d): B sentences, T the longest sentence's number of tokens, and d "
                                "the embedding's width")
        if not torch.equal(got, expected):
            at_padding = ids == pad_id
            if torch.equal(got[~at_padding], expected[~at_padding]):
                raise ExerciseError(f"the vectors at the padding positions are wrong: pad with vocab.stoi['<pad>'] "
                                    f"(id {pad_id}), whose row padding_idx keeps at zero")
            raise ExerciseError("the vectors differ from embedding(ids) of the padded batch. Hint: encode each "
                                "sentence with vocab.encode, then pad_sequence(batch_first=True, padding_value=...)")
    return correct("embed_batch matched the checker's padded lookup on 2 batches of its own sentences")


def check_pretrained_embedding(embedding: object, vectors: torch.Tensor) -> bool:
    """Exercise 2.2: ``vectors`` as a trainable embedding, id 0 as padding, with its own copy of the numbers."""
    if not isinstance(embedding, nn.Embedding):
        raise ExerciseError(f"expected an nn.Embedding, got {type(embedding).__name__}")
    if tuple(embedding.weight.shape) != tuple(vectors.shape):
        raise ExerciseError(f"weight has shape {tuple(embedding.weight.shape)}, expected {tuple(vectors.shape)}")
    if not torch.equal(embedding.weight.detach().cpu(), vectors.detach().cpu()):
        raise ExerciseError(
            "the weight does not hold the pretrained vectors. Hint: nn.Embedding.from_pretrained keeps them as they "
            "are (padding_idx does not zero a pretrained row)."
        )
    if not embedding.weight.requires_grad:
        raise ExerciseError("the weight is frozen (requires_grad is False). Hint: from_pretrained(..., freeze=False)")
    if embedding.padding_idx != 0:
        raise ExerciseError(f"padding_idx is {embedding.padding_idx}, expected 0")
    if embedding.weight.data_ptr() == vectors.data_ptr():
        raise ExerciseError(
            "the weight shares memory with `vectors`: training would overwrite them. "
            "Hint: pass vectors.clone() to from_pretrained."
        )
    return correct("trainable, padding id 0, the pretrained numbers in memory of its own")


class _Watched(nn.Embedding):
    """An embedding that records the ids it is asked to look up (to tell whether a bad id reached it)."""

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        self.seen = ids
        return super().forward(ids)


def check_checked_lookup(checked_lookup: Callable) -> bool:
    """Exercise 2.3: ``checked_lookup(embedding, ids)``: the rows for valid ids; a ``ValueError`` naming the first bad
    id (negative, or not below ``num_embeddings``) before the layer sees it."""
    require_function("checked_lookup", checked_lookup)
    torch.manual_seed(0)
    embedding = _Watched(5, 3)
    for dtype in (torch.int64, torch.int32):
        ids = torch.tensor([[0, 4], [4, 1]], dtype=dtype)
        got = checked_lookup(embedding, ids)
        if not (isinstance(got, torch.Tensor) and torch.equal(got, embedding.weight[ids.long()])):
            raise ExerciseError(f"for the valid {dtype} ids {ids.tolist()}, return embedding(ids), the rows")
    for bad, first in (([0, 7], 7), ([-1], -1)):
        embedding.seen = None
        try:
            checked_lookup(embedding, torch.tensor(bad))
        except ValueError as error:
            if str(first) not in str(error):
                raise ExerciseError(f"checked_lookup(embedding, tensor({bad})) raised ValueError({str(error)!r}): "
                                    f"name the bad id, {first}") from None
            if embedding.seen is not None:
                raise ExerciseError(f"for ids {bad} the layer was called before the ValueError: check the ids "
                                    "first, so that a bad id never reaches the layer") from None
            continue
        except IndexError:
            raise ExerciseError(f"checked_lookup(embedding, tensor({bad})) raised the layer's IndexError: check "
                                "before the layer sees the ids, and raise a ValueError that names the bad id") from None
        raise ExerciseError(f"checked_lookup(embedding, tensor({bad})) raised nothing: {first} is not a row of a "
                            "5-row table; raise a ValueError")
    return correct("checked_lookup returned the rows for valid int64 and int32 ids, and raised ValueError for 7 and "
                   "-1 before the layer saw them")
