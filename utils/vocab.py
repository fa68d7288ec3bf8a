"""A deterministic word-level vocabulary.

Ids must not change between runs or machines, so the vocabulary keeps words in the
order they first occur in the text (never the order of a Python ``set``, which
depends on the per-process hash seed). The special tokens come first:
``<pad>`` = 0, ``<unk>`` = 1, ``<sos>`` = 2, ``<eos>`` = 3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only encode needs PyTorch: building a vocabulary starts no torch import (a second or so)
    import torch

SPECIAL_TOKENS: tuple[str, ...] = ("<pad>", "<unk>", "<sos>", "<eos>")
PAD, UNK, SOS, EOS = SPECIAL_TOKENS

# a word (letters, digits, apostrophes) or a single punctuation mark
_TOKEN_RE = re.compile(r"[a-z0-9']+|[^\sa-z0-9']")


def tokenize(text: str) -> list[str]:
    """Lower-case ``text`` and split it into words and punctuation marks.

    Taught in notebook 1.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return _TOKEN_RE.findall(text.lower())


@dataclass(frozen=True)
class Vocab:
    """Token <-> id maps. ``itos[i]`` is the token with id ``i``.

    Returned by build_vocab (notebook 1 writes the same maps, itos and stoi, by hand).
    """

    itos: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(set(self.itos)) != len(self.itos):
            raise ValueError("vocabulary tokens must be unique")

    @property
    def stoi(self) -> dict[str, int]:
        return {tok: i for i, tok in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: object) -> bool:
        return token in self.itos

    @property
    def unk_id(self) -> int:
        return self.itos.index(UNK)

    def encode(self, text: str) -> torch.Tensor:
        """``text`` -> ids, shape ``(T,)`` int64; unknown words become ``<unk>``."""
        import torch

        stoi = self.stoi
        unk = self.unk_id
        return torch.tensor([stoi.get(tok, unk) for tok in tokenize(text)], dtype=torch.long)

    def decode(self, ids: torch.Tensor | list[int]) -> list[str]:
        """ids ``(T,)`` -> tokens. Raises ``ValueError`` for an id outside the vocabulary."""
        values = ids.tolist() if hasattr(ids, "tolist") else list(ids)  # a tensor, or any sequence of ints
        out = []
        for i in values:
            if not isinstance(i, int) or isinstance(i, bool):
                raise TypeError(f"ids must be integers, got {i!r} of type {type(i).__name__}")
            if not 0 <= i < len(self.itos):
                raise ValueError(
                    f"token id {i} is out of range for a vocabulary of {len(self.itos)} "
                    f"(valid ids: 0..{len(self.itos) - 1})"
                )
            out.append(self.itos[i])
        return out


def build_vocab(text: str, specials: tuple[str, ...] = SPECIAL_TOKENS, *, sort: bool = False) -> Vocab:
    """Build a vocabulary from ``text``: ``specials`` first, then each new word.

    Words are kept in first-occurrence order, or alphabetically with ``sort=True``;
    both are stable across runs. ``specials`` must include ``<unk>``.

    Used in notebooks 2, 4 and 7 (notebook 1 writes the same code out in its cells).
    """
    if UNK not in specials:
        raise ValueError(f"specials must include {UNK!r} (out-of-vocabulary words map to it); got {specials}")
    words = [tok for tok in dict.fromkeys(tokenize(text)) if tok not in specials]
    if sort:
        words.sort()
    return Vocab(tuple(specials) + tuple(words))
