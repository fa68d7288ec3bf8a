import pytest
import torch
from matplotlib.figure import Figure

from utils import figures


def test_one_hot_product_figure_is_drawn_from_the_tensors():
    weight = torch.randn(7, 3, generator=torch.Generator().manual_seed(0))
    fig = figures.one_hot_product_figure(2, weight, token="cat")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    product_image = fig.axes[2].images[0].get_array()
    assert product_image.shape == (1, 3)
    assert torch.equal(torch.from_numpy(product_image.data).float(), weight[[2]])


def test_one_hot_product_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="token id 9 is out of range for a vocabulary of 7"):
        figures.one_hot_product_figure(9, torch.zeros(7, 3))
    with pytest.raises(
            ValueError, match=r"weight must be 2-D with shape \[num_embeddings, embedding_dim\], got shape \(7,\)"
    ):
        figures.one_hot_product_figure(0, torch.zeros(7))


# --- Notebooks 2 and 3 ------------------------------------------------------------------


def test_embedding_lookup_figure_shows_the_looked_up_rows():
    weight = torch.randn(4, 5, generator=torch.Generator().manual_seed(123))
    ids = torch.tensor([[2, 3, 1], [1, 0, 2]])
    fig = figures.embedding_lookup_figure(ids, weight)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    output_image = torch.from_numpy(fig.axes[2].images[0].get_array().data).float()
    assert torch.equal(output_image, weight[ids].reshape(6, 5))
    assert len(fig.axes[1].patches) == len(set(ids.flatten().tolist()))  # one frame per distinct row
    assert figures.embedding_lookup_figure(torch.tensor([0, 0]), weight).axes[2].images[0].get_array().shape == (2, 5)


def test_embedding_lookup_figure_rejects_bad_input():
    weight = torch.zeros(4, 5)
    with pytest.raises(ValueError, match="token id 4 is out of range for a vocabulary of 4"):
        figures.embedding_lookup_figure(torch.tensor([[4]]), weight)
    with pytest.raises(TypeError, match="integer dtype"):
        figures.embedding_lookup_figure(torch.tensor([[1.0]]), weight)
    with pytest.raises(ValueError, match="V must be <= 10; got V=11"):
        figures.embedding_lookup_figure(torch.tensor([[1]]), torch.zeros(11, 2))
    with pytest.raises(ValueError, match=r"1 to 12 ids, got shape \(2, 7\)"):
        figures.embedding_lookup_figure(torch.zeros(2, 7, dtype=torch.long), weight)
    with pytest.raises(ValueError, match=r"weight must be a 2-D tensor \[V, d\]"):
        figures.embedding_lookup_figure(torch.tensor([0]), torch.zeros(4))


def test_linear_embedding_transpose_figure():
    weight = torch.randn(8, 4, generator=torch.Generator().manual_seed(3))
    fig = figures.linear_embedding_transpose_figure(weight, weight.T, 5)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    arrays = [torch.from_numpy(ax.images[0].get_array().data).float() for ax in fig.axes]
    assert arrays[0].shape == (8, 4) and arrays[1].shape == (4, 8)
    assert torch.equal(arrays[1], weight.T) and torch.equal(arrays[2], weight[[5]])


def test_linear_embedding_transpose_figure_rejects_an_untransposed_weight():
    weight = torch.randn(8, 4, generator=torch.Generator().manual_seed(3))
    with pytest.raises(ValueError, match=r"must have shape \[out_features=4, in_features=8\], got \(8, 4\)"):
        figures.linear_embedding_transpose_figure(weight, weight, 5)
    with pytest.raises(ValueError, match="is not embedding_weight transposed"):
        figures.linear_embedding_transpose_figure(weight, weight.T + 1, 5)
    with pytest.raises(ValueError, match="token id 8 is out of range"):
        figures.linear_embedding_transpose_figure(weight, weight.T, 8)


# --- Notebooks 4 and 5 ------------------------------------------------------------------


def test_gradient_rows_figure_draws_the_real_gradient():
    ids = torch.tensor([1, 3, 3])
    grad_out = torch.randn(3, 2, generator=torch.Generator().manual_seed(0))
    grad = torch.zeros(5, 2).index_add_(0, ids, grad_out)
    fig = figures.gradient_rows_figure(ids, grad_out, grad)
    assert len(fig.axes) == 2
    shown = torch.from_numpy(fig.axes[1].images[0].get_array().data).float()
    assert torch.equal(shown, grad)
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()][3] == "row 3: looked up 2×"


def test_gradient_rows_figure_rejects_a_wrong_gradient():
    ids = torch.tensor([1, 3, 3])
    grad_out = torch.ones(3, 2)
    assigned = torch.zeros(5, 2)
    assigned[ids] = grad_out  # overwrites instead of adding
    with pytest.raises(AssertionError, match="grad is not one_hot"):
        figures.gradient_rows_figure(ids, grad_out, assigned)
    with pytest.raises(ValueError, match=r"grad_out must have shape \(T=3, d=2\), got \(2, 2\)"):
        figures.gradient_rows_figure(ids, torch.ones(2, 2), assigned)
    with pytest.raises(ValueError, match=r"expected ids \(T,\)"):
        figures.gradient_rows_figure(ids[None], grad_out, assigned)


def test_moved_rows_figure():
    moved = {"SGD": torch.tensor([False, True, False]), "AdamW": torch.tensor([True, True, True])}
    fig = figures.moved_rows_figure(moved, {"looked up": [1], "never": [0, 2]})
    grid = fig.axes[0].images[0].get_array()
    assert grid.tolist() == [[0.0, 1.0, 0.0], [1.0, 1.0, 1.0]]
    with pytest.raises(ValueError, match="same V"):
        figures.moved_rows_figure({"a": torch.ones(3, dtype=torch.bool), "b": torch.ones(4, dtype=torch.bool)}, {})
    with pytest.raises(ValueError, match="at least one optimizer"):
        figures.moved_rows_figure({}, {})


def test_loss_curves_figure_plots_every_run():
    fig = figures.loss_curves_figure({"a": [3.0, 2.0, 1.5], "b": [3.0, 2.0, 1.5]})
    lines = fig.axes[0].get_lines()
    assert [list(line.get_ydata()) for line in lines] == [[3.0, 2.0, 1.5]] * 2
    with pytest.raises(ValueError, match="at least one run"):
        figures.loss_curves_figure({})


def test_loss_curves_figure_draws_a_baseline():
    fig = figures.loss_curves_figure({"a": [3.0, 2.0]}, xlabel="Adam step", baseline=("ln V", 3.5))
    ax = fig.axes[0]
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[3.0, 2.0], [3.5, 3.5]]
    assert ax.get_xlabel() == "Adam step"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "ln V"]


def test_weight_histograms_figure_overlays_the_density():
    from utils import init_stats

    values = torch.randn(20_000, generator=torch.Generator().manual_seed(0))
    expected = init_stats.embedding_init()
    fig = figures.weight_histograms_figure({"N(0, 1)": [("draws", values, expected)]}, bins=40, zoom=(-1, 1))
    ax = fig.axes[0]
    heights = ax.patches[0].get_data().values  # the filled StepPatch
    assert abs(heights.max() - 0.4) < 0.03  # the normal density's peak, 1/sqrt(2 pi)
    observed = float(values.double().std())
    assert ax.get_legend().get_texts()[0].get_text() == f"draws: std {observed:.4f} (expected 1.0000)"
    assert len(fig.axes) == 1 and len(ax.child_axes) == 1  # the panel and its zoom inset
    with pytest.raises(TypeError, match="expected must be an init_stats.Expected or None"):
        figures.weight_histograms_figure({"x": [("draws", values, 1.0)]})
    with pytest.raises(ValueError, match="has no histograms"):
        figures.weight_histograms_figure({"x": []})


def test_sorted_probabilities_figure():
    logits = {"flat": torch.zeros(50), "peaked": torch.arange(50.0)}
    fig = figures.sorted_probabilities_figure(logits)
    flat, peaked = fig.axes[0].get_lines()[:2]
    assert list(flat.get_xdata()) == list(range(1, 51))  # every rank when V is small
    assert abs(flat.get_ydata() - 1 / 50).max() < 1e-12
    assert list(peaked.get_ydata()) == sorted(peaked.get_ydata(), reverse=True)
    assert "entropy 3.91 nats" in fig.axes[0].get_legend().get_texts()[0].get_text()  # ln 50
    with pytest.raises(ValueError, match="same V"):
        figures.sorted_probabilities_figure({"a": torch.zeros(3), "b": torch.zeros(4)})
    with pytest.raises(ValueError, match="at least one row"):
        figures.sorted_probabilities_figure({})


# --- Notebook 6: benchmark figures --------------------------------------------------------

from utils import bench  # noqa: E402


def _bench_row(method, pass_, V, d=16, n=64, time_s=1e-3, status="ok"):
    case = bench.Case(V, d, n)
    row = {field: None for field in bench.FIELDS}
    row.update(method=method, vocab_size=V, embedding_dim=d, num_tokens=n, dtype="float32", device="cpu",
               device_name="cpu", threads=1, torch_version=torch.__version__, status=status, reason="",
               time_s=time_s if status == "ok" else None, input_bytes=bench.input_bytes(method, case),
               peak_bytes=bench.peak_bytes_estimate(method, pass_, case) if status == "ok" else None,
               peak_source="computed", flops=bench.flops(method, pass_, case))
    row["pass"] = pass_
    return row


def _vocab_rows():
    rows = []
    for V in (1_000, 4_000, 16_000):
        for pass_ in bench.PASSES:
            for method, seconds in (("lookup", 1e-5), ("dense", V * 1e-7), ("sparse", 3e-5), ("copy", 5e-6)):
                if pass_ == "forward" or method != "copy":
                    rows.append(_bench_row(method, pass_, V, time_s=seconds * (2 if pass_ == "backward" else 1)))
    return rows


def test_benchmark_time_figure_plots_the_measured_times():
    rows = _vocab_rows()
    fig = figures.benchmark_time_figure(rows, "vocab_size")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    forward = fig.axes[0]
    assert forward.get_xscale() == "log" and forward.get_yscale() == "log"
    dense = next(line for line in forward.lines if line.get_label() == figures.METHOD_STYLE["dense"]["label"])
    assert list(dense.get_xdata()) == [1_000, 4_000, 16_000]
    assert list(dense.get_ydata()) == pytest.approx([1e-4, 4e-4, 1.6e-3])
    labels = {line.get_label() for line in fig.axes[1].lines}
    assert figures.METHOD_STYLE["copy"]["label"] not in labels  # no backward for the copy


def test_benchmark_speedup_and_memory_figures():
    rows = _vocab_rows()
    speed = figures.benchmark_speedup_figure(rows)
    dense_forward = speed.axes[0].lines[0]
    assert list(dense_forward.get_ydata()) == pytest.approx([10, 40, 160])  # dense time / lookup time
    memory = figures.benchmark_memory_figure(rows)
    assert len(memory.axes) == 2
    dense_input = memory.axes[0].lines[1]
    assert list(dense_input.get_ydata()) == [64 * V * 4 for V in (1_000, 4_000, 16_000)]


def test_benchmark_scaling_figure_has_a_panel_per_sweep():
    by_d = [_bench_row(m, "forward", 2_000, d=d, time_s=t * d) for d in (16, 64) for m, t in
            (("lookup", 1e-6), ("dense", 1e-4))]
    by_n = [_bench_row(m, "forward", 2_000, n=n, time_s=t * n) for n in (64, 256) for m, t in
            (("lookup", 1e-6), ("dense", 1e-4))]
    fig = figures.benchmark_scaling_figure({"embedding_dim": by_d, "num_tokens": by_n})
    assert len(fig.axes) == 2 and fig.axes[1].get_xlabel() == "tokens per batch n"
    with pytest.raises(ValueError, match="unknown pass 'sideways'"):
        figures.benchmark_scaling_figure({"embedding_dim": by_d}, "sideways")
    with pytest.raises(ValueError, match="sweeps must be a non-empty dict"):
        figures.benchmark_scaling_figure({})


def test_bandwidth_regimes_figure_draws_each_variant_over_the_regimes():
    def row(n, gbs):
        return {"status": "ok", "num_tokens": n, "bytes_moved": n * 100, "cache_bytes": 10_000, "vocab_size": 50,
                "embedding_dim": 12, "dtype": "float32", "device_name": "cpu",
                **{f"{v}_gbs": gbs * k for k, v in enumerate(("lookup", "lookup_into", "copy_cold", "copy_cached"), 1)}}
    rows = [row(1, 1.0), row(50, 5.0), row(1_000, 2.0)]
    fig = figures.bandwidth_regimes_figure(rows, ["per-call overhead", "cache-resident", "DRAM-bound"])
    (ax,) = fig.axes
    into = next(line for line in ax.lines if line.get_label() == "lookup into a preallocated output")
    assert list(into.get_xdata()) == [100, 5_000, 100_000] and list(into.get_ydata()) == [2.0, 10.0, 4.0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="one regime per row: got 3 rows and 1 regimes"):
        figures.bandwidth_regimes_figure(rows, ["DRAM-bound"])
    with pytest.raises(ValueError, match="at least two measured rows"):
        figures.bandwidth_regimes_figure(rows[:1], ["DRAM-bound"])


def test_benchmark_figures_reject_rows_they_cannot_draw():
    rows = _vocab_rows()
    with pytest.raises(ValueError, match="unknown axis 'V'"):
        figures.benchmark_time_figure(rows, "V")
    with pytest.raises(ValueError, match=r"the rows vary in \['vocab_size'\] as well as num_tokens"):
        figures.benchmark_time_figure(rows, "num_tokens")
    skipped = [dict(r, status="skipped") for r in rows]
    with pytest.raises(ValueError, match="no measured rows"):
        figures.benchmark_memory_figure(skipped)
    with pytest.raises(ValueError, match="unknown axis"):
        figures.axis_symbol("x")


# --- Notebooks 7 and 8 ------------------------------------------------------------------


def test_multi_hot_bag_figure_is_drawn_from_the_tensors():
    weight = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    fig = figures.multi_hot_bag_figure(torch.tensor([1, 4, 1]), weight, tokens=list("abcdef"))
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    counts = torch.from_numpy(fig.axes[0].images[0].get_array().data)
    assert counts.tolist() == [[0, 2, 0, 0, 1, 0]]
    product = torch.from_numpy(fig.axes[2].images[0].get_array().data).float()
    assert torch.allclose(product, (2 * weight[1] + weight[4])[None], atol=1e-6)


def test_multi_hot_bag_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="token id 6 is out of range for a vocabulary of 6"):
        figures.multi_hot_bag_figure(torch.tensor([6]), torch.zeros(6, 3))
    with pytest.raises(ValueError, match="bag_ids must be a 1-D tensor"):
        figures.multi_hot_bag_figure(torch.tensor([[1]]), torch.zeros(6, 3))
    with pytest.raises(ValueError, match=r"weight must be 2-D with shape \[num_embeddings, embedding_dim\]"):
        figures.multi_hot_bag_figure(torch.tensor([1]), torch.zeros(6))


def test_sinusoidal_positions_figure():
    from utils.positions import sinusoidal_positions

    table = sinusoidal_positions(20, 8)
    fig = figures.sinusoidal_positions_figure(table, columns=(0, 3))
    heat, curves = fig.axes[0], fig.axes[1]
    assert torch.equal(torch.from_numpy(heat.images[0].get_array().data), table)
    assert len(curves.lines) == 2
    with pytest.raises(ValueError, match=r"columns \[8\] are out of range for a table with 8 columns"):
        figures.sinusoidal_positions_figure(table, columns=(8,))
    with pytest.raises(ValueError, match="table must be 2-D"):
        figures.sinusoidal_positions_figure(table[0])


def test_vocab_parallel_figure_shows_each_rank_and_the_sum():
    weight = torch.randn(11, 4, generator=torch.Generator().manual_seed(0))
    ids = torch.tensor([4, 9, 0, 6, 4])
    fig = figures.vocab_parallel_figure(weight, ids, world_size=3)
    assert len(fig.axes) == 5  # the table, three partial results, the sum
    total = torch.from_numpy(fig.axes[-1].images[0].get_array().data)
    assert torch.equal(total, weight[ids])
    rank1 = torch.from_numpy(fig.axes[2].images[0].get_array().data)  # rows 4..7: ids 4, 6, 4
    assert torch.equal(rank1[[0, 3, 4]], weight[[4, 6, 4]]) and not rank1[[1, 2]].any()
    with pytest.raises(ValueError, match="ids must be a 1-D tensor"):
        figures.vocab_parallel_figure(weight, ids[None], 2)
    with pytest.raises(ValueError, match="at most 8 processes"):
        figures.vocab_parallel_figure(weight, ids, 9)
    with pytest.raises(ValueError, match="world_size 12 is larger than vocab_size 11"):
        figures.vocab_parallel_figure(weight, ids, 12)


# --- Notebook 9 -------------------------------------------------------------------------

_WORDS = ["cat", "dog", "zebra", "red", "blue", "park"]
_CATEGORIES = ["animal", "animal", "animal", "colour", "colour", "place"]


def test_pca_2d_is_an_svd_of_the_centred_points():
    points = torch.randn(20, 5, generator=torch.Generator().manual_seed(0)) * torch.tensor([5.0, 3.0, 1, 1, 1])
    coords, explained = figures.pca_2d(points)
    centred = (points - points.mean(dim=0)).double()
    _, singular, vh = torch.linalg.svd(centred, full_matrices=False)
    assert coords.shape == (20, 2) and explained.shape == (2,)
    assert torch.allclose(coords.double().abs(), (centred @ vh[:2].T).abs(), atol=1e-5)  # up to each axis's sign
    assert torch.allclose(explained.double(), singular[:2] ** 2 / (singular**2).sum(), atol=1e-6)
    assert torch.equal(figures.pca_2d(points)[0], coords)  # deterministic: no random projection
    mirrored, _ = figures.pca_2d(-points)  # the same axes (largest loading > 0), so a mirrored picture
    assert torch.allclose(mirrored, -coords, atol=1e-5)
    with pytest.raises(ValueError, match=r"points must be a 2-D tensor \(n, d\) with n >= 2 and d >= 2, got \(1, 5\)"):
        figures.pca_2d(points[:1])


def test_embedding_pca_figure_draws_the_projected_rows():
    points = torch.randn(6, 4, generator=torch.Generator().manual_seed(1))
    fig = figures.embedding_pca_figure({"before": points, "after": 2 * points}, _WORDS, _CATEGORIES,
                                       held_out=("zebra",))
    assert len(fig.axes) == 2
    coords, _ = figures.pca_2d(points)
    animals, colours, places, unseen = fig.axes[0].collections  # one per category, then the held-out words
    assert torch.allclose(torch.from_numpy(animals.get_offsets().data).float(), coords[[0, 1]])
    assert torch.allclose(torch.from_numpy(unseen.get_offsets().data).float(), coords[[2]])
    assert [t.get_text() for t in fig.axes[0].texts] == _WORDS
    assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["animal", "colour", "place",
                                                                            "never in a sentence"]
    with pytest.raises(ValueError, match=r"panel 'before': expected points of shape \(6, d\)"):
        figures.embedding_pca_figure({"before": points[:5]}, _WORDS, _CATEGORIES)
    with pytest.raises(ValueError, match="same length"):
        figures.embedding_pca_figure({"before": points}, _WORDS, _CATEGORIES[:5])


def test_similarity_matrix_figure_shows_the_cosines():
    points = torch.randn(6, 4, generator=torch.Generator().manual_seed(2))
    fig = figures.similarity_matrix_figure({"before": points, "after": points}, _WORDS, _CATEGORIES,
                                           held_out=("zebra",))
    image = torch.from_numpy(fig.axes[0].images[0].get_array().data)
    unit = torch.nn.functional.normalize(points, dim=1)
    assert torch.allclose(image, unit @ unit.T, atol=1e-6)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["animal", "colour", "place",
                                                                     "zebra (never seen)"]
    with pytest.raises(ValueError, match="next to each other"):
        figures.similarity_matrix_figure({"x": points}, _WORDS, ["animal", "colour"] * 3)
    with pytest.raises(ValueError, match="at least one"):
        figures.similarity_matrix_figure({}, _WORDS, _CATEGORIES)
