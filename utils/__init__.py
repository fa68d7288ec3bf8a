"""The course's helpers: what the notebooks teach, one topic per module, each function saying where.

The lessons' ideas, written once for every notebook and test; each public function and class
names the notebook that teaches it.

- ``vocab``          a word-level vocabulary whose ids never change (notebook 1)
- ``lookup``         one-hot rows, the product that only selects, the lookup, what each costs (1, 2, 3)
- ``init_stats``     what the layers' default initialisations draw, and what that does downstream (5)
- ``positions``      the sinusoidal position table (7)
- ``vocab_parallel`` one embedding table split by rows over processes (8)
- ``corpus``         a generated corpus whose word categories are known (9)
- ``checks``         argument checks with one wording; ``expect_error``, to show the error a mistake meets
- ``devices``        the device a notebook runs on
- ``env_check``      ``python -m utils.env_check``: is this environment right for the course?
- ``cli``            the one argument parser of every command-line program (one line for a bad argument)
- ``setup_cell``     what every notebook's set-up cell does once the course is importable (Colab's install)

The furniture, which the notebooks call but do not teach, stands apart in subpackages:
``figures`` and ``exercises`` (one module per notebook), ``bench`` (``python -m utils.bench``,
notebook 6's measurements) and ``distributed`` (``python -m utils.distributed``, notebook 8's
processes). Nothing in these lesson modules imports them, and nothing here imports the
maintainers' programs in ``tools/``.
"""
