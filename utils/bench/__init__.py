"""``python -m utils.bench``: what the lookup saves, measured (notebook 6). Furniture: the harness, not the lesson.

- ``measure``   the methods (lookup, dense and sparse one-hot products, a copy), checked, then timed
- ``bandwidth`` the lookup against a plain copy of the same bytes, by tokens per call: the regimes
- ``tables``    speed-ups, text tables, CSV and JSON files
- ``plots``     the notebook's figures: time, speed-up, memory and bandwidth over the sweeps
- ``__main__``  the command line

The package's names are also importable from it directly (``from utils import bench``;
``bench.run_sweeps(...)``), as notebook 6 uses them.
"""

from .bandwidth import *  # noqa: F403
from .measure import *  # noqa: F403
from .tables import *  # noqa: F403
