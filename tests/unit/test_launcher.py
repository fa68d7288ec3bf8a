"""The launcher's checks and its error reports, without starting worker processes.

Real runs, and real failures injected into them, are in tests/processes/.
"""

import json
import sys
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from utils.distributed import launcher as L


def rank_of(rank, world_size):
    """A worker function at the top level of a module: the launches below are rejected before one starts."""
    return rank


def test_backend_for():
    assert L.backend_for("cpu", 4) == "gloo"
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda', got 'tpu'"):
        L.backend_for("tpu", 2)
    if torch.cuda.device_count() < 64:
        with pytest.raises(ValueError, match="device='cuda' needs one GPU per process: world_size 64"):
            L.backend_for("cuda", 64)


def test_process_group_rejects_a_bad_timeout():
    with pytest.raises(ValueError, match="timeout_s must be a positive, finite number of seconds, got 0"):
        with L.process_group(0, 1, timeout_s=0):
            pass
    assert not dist.is_initialized()


def test_process_group_is_destroyed_when_its_block_raises(tmp_path):
    """The guard a failing worker relies on: the group goes down with the error, so no peer waits on it."""
    with pytest.raises(RuntimeError, match="the worker failed"):
        with L.process_group(0, 1, init_method=f"file://{tmp_path / 'rendezvous'}", timeout_s=30):
            assert dist.is_initialized() and dist.get_world_size() == 1
            raise RuntimeError("the worker failed")
    assert not dist.is_initialized()


def test_worker_functions_must_be_importable():
    def local_worker(rank, world_size):
        return rank

    with pytest.raises(ValueError, match="must be defined at the top level of an importable module"):
        L.launch(local_worker, 1)
    with pytest.raises(TypeError, match="fn must be a function, got int"):
        L.launch(3, 1)


def test_unknown_start_method_is_rejected():
    with pytest.raises(ValueError, match="start_method must be 'spawn' or 'forkserver', got 'fork'"):
        L.launch(rank_of, 1, start_method="fork")


def test_bad_timeouts_are_rejected():
    with pytest.raises(ValueError, match="timeout_s must be a positive, finite number of seconds, got -1"):
        L.launch(rank_of, 1, timeout_s=-1)
    with pytest.raises(TypeError, match="join_timeout_s must be a number of seconds, got str"):
        L.launch(rank_of, 1, join_timeout_s="10")
    with pytest.raises(ValueError, match="join_timeout_s must be a positive, finite number of seconds, got nan"):
        L.launch(rank_of, 1, join_timeout_s=float("nan"))


def test_prepare_workers_picks_a_start_method():
    assert L.prepare_workers("spawn") == "spawn"
    assert L.prepare_workers() in ("forkserver", "spawn")
    assert L.prepare_workers() == L.prepare_workers()  # a second call changes nothing


def test_prepare_workers_in_a_kernel_starts_nothing_elsewhere(monkeypatch):
    """Notebook 8's kernel starts the server as it imports vocab_parallel_run; a script, a test, the server
    and the workers (which import that module too) never do."""
    calls = []
    monkeypatch.setattr(L, "prepare_workers", lambda start_method=None, modules=(): calls.append(modules) or "spawn")
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: None))
    assert L.prepare_workers_in_a_kernel(("a.module",)) is None  # IPython imported, but no shell: not a kernel
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: "a shell"))
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    assert L.prepare_workers_in_a_kernel(("a.module",)) is None  # a terminal IPython: not a kernel
    monkeypatch.setitem(sys.modules, "ipykernel", SimpleNamespace())
    assert L.prepare_workers_in_a_kernel(("a.module",)) == "spawn"
    assert calls == [("a.module",)]


def _processes(*codes):
    return [SimpleNamespace(exitcode=code) for code in codes]


def _note(folder, rank, time, error):
    (folder / f"rank{rank}.error.json").write_text(json.dumps({"time": time, "error": error, "traceback": "Trace"}))


def test_first_failure_is_a_process_that_died_on_its_own(tmp_path):
    error = L._first_failure(_processes(0, 3), tmp_path, 2)
    assert str(error) == "rank 1 of 2 exited with code 3; the other processes were stopped"
    error = L._first_failure(_processes(None, -9, 1), tmp_path, 3)
    assert str(error) == "rank 1 of 3 was killed by signal SIGKILL; the other processes were stopped"
    assert str(L._first_failure(_processes(2), tmp_path, 1)) == "rank 0 of 1 exited with code 2"
    # its peer's exception came after it went away, so the crash is the cause
    _note(tmp_path, 1, 5.0, "RuntimeError: Connection closed by peer")
    error = L._first_failure(_processes(-9, 1), tmp_path, 2)
    assert (error.rank, str(error)) == (0, "rank 0 of 2 was killed by signal SIGKILL; the other processes were stopped")


def test_first_failure_is_the_earliest_exception(tmp_path):
    _note(tmp_path, 0, 12.5, "RuntimeError: Connection closed by peer")
    _note(tmp_path, 1, 12.25, "ValueError: bad row")
    # rank 2 was stopped by the launcher's SIGTERM: not a cause
    error = L._first_failure(_processes(1, 1, -15), tmp_path, 3)
    assert (error.rank, error.world_size) == (1, 3)
    assert str(error) == "rank 1 of 3 failed: ValueError: bad row; the other processes were stopped"
    assert error.details == "Trace"


def test_a_note_is_written_whole(tmp_path):
    try:
        raise ValueError("bad row")
    except ValueError as error:
        L._write_note(tmp_path, 1, error)
    assert [path.name for path in tmp_path.iterdir()] == ["rank1.error.json"]  # no partial file left behind
    note = json.loads((tmp_path / "rank1.error.json").read_text())
    assert note["error"] == "ValueError: bad row" and "Traceback" in note["traceback"] and note["time"] > 0


@pytest.mark.parametrize(("platform", "preset", "expected"), [
    ("win32", None, "0"),  # PyTorch 2.4+ on Windows lacks libuv: the store's older backend (pytorch#139990)
    ("win32", "1", "1"),  # a setting of the learner's own is kept
    ("linux", None, None),  # elsewhere nothing is set
    ("darwin", None, None),
])
def test_process_group_runs_without_libuv_on_windows(monkeypatch, platform, preset, expected):
    """What init_process_group sees on each platform, without Windows: the platform and the call are stubbed."""
    seen = {}

    def init_process_group(backend, **kwargs):
        seen["USE_LIBUV"] = L.os.environ.get("USE_LIBUV")

    monkeypatch.setattr(L.sys, "platform", platform)
    monkeypatch.setattr(L.dist, "init_process_group", init_process_group)
    monkeypatch.setattr(L.dist, "destroy_process_group", lambda: None)
    monkeypatch.delenv("USE_LIBUV", raising=False)
    if preset is not None:
        monkeypatch.setenv("USE_LIBUV", preset)
    with L.process_group(0, 1, init_method="tcp://127.0.0.1:1", timeout_s=30):
        pass
    assert seen == {"USE_LIBUV": expected}
