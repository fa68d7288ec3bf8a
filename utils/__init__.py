"""Helpers for the nn.Embedding course: what the notebooks import, one topic per module.

- ``devices``     picking the device a notebook runs on
- ``checks``      argument checks with one wording; ``expect_error``, to show the error a mistake meets
- ``vocab``       a deterministic word-level vocabulary
- ``corpus``      a generated corpus whose word categories are known (notebook 9)
- ``lookup``      one-hot vectors, the lookup, id and weight checks, operation counts
- ``positions``   the sinusoidal position table
- ``init_stats``  what the default initialisations draw, and what that does downstream
- ``distributed`` a vocabulary-parallel embedding on torch.distributed
- ``launcher``    starting P processes in one process group; timeouts, failures, injected faults
- ``figures``     diagrams drawn from real tensors
- ``exercises``   checkers for the exercises at the end of each notebook
- ``bench``       ``python -m utils.bench``: lookup vs one-hot products, timed, with a memory guard
- ``env_check``   ``python -m utils.env_check``: is this environment right?

The programs that maintain the course (the manifest, ``make sync``, ``make run``, the
translations, the practice copies, the web site) are in ``tools/``; nothing here imports them.
"""
