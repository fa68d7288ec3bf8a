import math

import pytest

from utils.checks import check_int, check_positive


def test_check_int():
    assert check_int("n", 3) == 3
    assert check_int("n", 0, minimum=0) == 0
    with pytest.raises(ValueError, match="n must be >= 1, got 0"):
        check_int("n", 0)
    with pytest.raises(TypeError, match="n must be an int, got float"):
        check_int("n", 1.0)
    with pytest.raises(TypeError, match="n must be an int, got bool"):
        check_int("n", True)


def test_check_positive():
    assert check_positive("t", 2) == 2.0
    with pytest.raises(ValueError, match="t must be a positive, finite number of seconds, got 0"):
        check_positive("t", 0, unit="seconds")
    with pytest.raises(ValueError, match="t must be a positive, finite number, got inf"):
        check_positive("t", math.inf)
    with pytest.raises(TypeError, match="t must be a number, got str"):
        check_positive("t", "1")
