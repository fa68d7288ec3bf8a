"""Helpers for the nn.Embedding course.

The notebooks import from here instead of repeating code. Modules, one topic each:

- ``course``     the manifest: notebooks in order, titles, the repository address
- ``devices``    picking the device a notebook runs on
- ``vocab``      a deterministic word-level vocabulary
- ``corpus``     a generated corpus whose word categories are known (notebook 9)
- ``lookup``     one-hot vectors, the lookup, id checks, operation counts
- ``positions``  the sinusoidal position table
- ``distributed`` a vocabulary-parallel embedding on torch.distributed
- ``launcher``   starting P processes in one process group; timeouts, failures, injected faults
- ``figures``    diagrams drawn from real tensors (also saved into ``images/``)
- ``exercises``  checkers for the exercises at the end of each notebook
- ``bench``      ``python -m utils.bench``: lookup vs one-hot products, timed, with a memory guard
- ``env_check``  ``python -m utils.env_check``: is this environment right?
- ``sync``       ``python -m utils.sync``: regenerate headers, README table, images
- ``run``        ``python -m utils.run``: execute every notebook headless
- ``versions``   ``python -m utils.versions``: every notebook in the pinned, oldest, Colab or newest versions
- ``editions``   the English notebooks and their translations (``notebooks/zh/``)
- ``practice``   ``python -m utils.practice``: practice copies with stubbed exercise answers
- ``website``    ``python -m utils.website``: the executed notebooks as an offline web site
- ``browser``    finding and starting the Chromium that the browser tests drive
"""
