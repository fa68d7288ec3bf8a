"""Notebook 6's sweep helpers: the table and the figure."""

from utils.figures import nb06

SECONDS = {1_000: {"lookup": 8e-6, "dense": 8e-4}, 50_257: {"lookup": 9e-6, "dense": 8e-2}}


def test_the_table_has_a_row_per_vocabulary_size_and_no_verdict():
    table = nb06.sweep_table(SECONDS, 768).splitlines()
    assert len(table) == 3 and table[1].split()[0] == "1,000" and table[2].endswith("8,889x")  # one sweep: no verdict


def test_the_table_prints_times_in_ms_from_1000_us_up():  # the benchmark's format_time, three figures
    table = nb06.sweep_table(SECONDS, 768).splitlines()
    assert "800 µs" in table[1] and "80 ms" in table[2] and "9 µs" in table[2]


def test_the_figure_draws_both_methods_and_the_guide():
    assert len(nb06.sweep_figure(SECONDS, 64, 768).axes[0].lines) == 3


def test_a_ratio_per_round_gives_its_range_and_median_and_no_verdict():
    assert nb06.per_round("r", [0.934, 0.881, 0.9]) == "r: 0.881x to 0.934x, median 0.9x"
    assert nb06.per_round("r", [1_234.6, 2_000.0]) == "r: 1,235x to 2,000x, median 1,617x"


def test_a_ratio_prints_at_three_significant_figures_and_whole_from_100():
    assert [nb06.ratio(r) for r in (0.9312, 77.48, 1_831.7, 99.96)] == ["0.931x", "77.5x", "1,832x", "100x"]
