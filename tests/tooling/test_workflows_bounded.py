"""Every CI job is bounded in time, and no job that uses no GPU downloads PyPI's CUDA build of PyTorch
(about 5 GB installed on Linux, too much for a hosted runner's disk)."""

import yaml

from tools.manifest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"


def _jobs():
    for path in WORKFLOWS:
        for name, job in yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"].items():
            yield f"{path.name}: {name}", job


def test_every_job_has_a_time_limit():
    jobs = dict(_jobs())
    assert len(jobs) >= 7
    for name, job in jobs.items():
        assert isinstance(job.get("timeout-minutes"), int) and 0 < job["timeout-minutes"] <= 90, name


def test_the_linux_jobs_without_a_gpu_install_pytorchs_cpu_wheels():
    for name, job in _jobs():
        runner = job.get("runs-on")
        installs = any("course.py" in step.get("run", "") or "make " in step.get("run", "") for step in job["steps"])
        if runner == "ubuntu-latest" and installs:
            assert job.get("env", {}).get("PIP_EXTRA_INDEX_URL") == CPU_WHEELS, name
    versions = dict(_jobs())["ci.yml: versions"]
    assert versions["env"]["PIP_EXTRA_INDEX_URL"] == versions["env"]["UV_EXTRA_INDEX_URL"] == CPU_WHEELS
