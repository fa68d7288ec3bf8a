import math

import pytest

from utils.checks import check_int, check_positive, expect_error


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


def test_expect_error_prints_the_first_line_of_the_expected_error(capsys):
    with expect_error(ValueError, "99", "expected"):
        raise ValueError("id 99 is out of range\nexpected ids in [0, 10)")
    assert capsys.readouterr().out == "ValueError: id 99 is out of range\n"
    with expect_error((KeyError, IndexError)) as caught:
        [][0]
    assert capsys.readouterr().out == "IndexError: list index out of range\n"
    assert caught.message == "list index out of range"  # the whole message, for an assert after the block


def test_expect_error_fails_when_nothing_is_raised_or_the_message_lacks_a_text():
    with pytest.raises(AssertionError, match="expected ValueError, but the code ran without one"):
        with expect_error(ValueError):
            pass
    with pytest.raises(AssertionError, match=r"the ValueError message lacks \['99'\]"):
        with expect_error(ValueError, "99"):
            raise ValueError("id 7 is out of range")


def test_expect_error_lets_another_error_through_and_checks_its_arguments():
    with pytest.raises(KeyError):
        with expect_error(ValueError):
            raise KeyError("k")
    with pytest.raises(TypeError, match="error_type must be an exception class"):
        with expect_error("ValueError"):
            pass
    with pytest.raises(TypeError, match="contains must be strings"):
        with expect_error(ValueError, 99):
            pass
