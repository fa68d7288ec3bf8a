"""``python -m utils.bench``: what the lookup saves, measured (notebook 6). Furniture: the harness, not the lesson.

The lesson's counts (FLOPs, bytes) are in ``utils.lookup``; this package measures them, one module per job:

- ``measure``   the settings, the methods (lookup, dense and sparse one-hot products), checked, then timed
                with ``torch.utils.benchmark.Timer`` in interleaved rounds; the sweeps of sizes
- ``bandwidth`` the lookup against a plain copy of the same bytes: its limit, and the regimes by size
- ``tables``    speed-ups, text tables, the noise verdict, CSV and JSON files
- ``plots``     the notebook's figures
- ``__main__``  the command line: ``sweep``, ``bandwidth`` and ``regimes``

Import the module you need (``from utils.bench import measure``); the package itself exports nothing.
"""
