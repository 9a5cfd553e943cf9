"""``sskernels run --backend dask --scheduler ADDRESS`` against a scheduler and two workers
started as separate processes (``python -m dask scheduler``, ``python -m dask worker
--nworkers 2``: two single-threaded worker processes, as the hint for a worker with threads
says), the way a lab runs it on several machines: the records and summaries are those of
``--jobs 1`` (run by the CLI's ``main`` in this process: the reference needs no process of
its own).

The processes are started by the test and stopped at its end; the scheduler writes its address
to a scheduler file, and the run starts once both workers have registered (a wait with a
generous deadline, not a race: nothing is decided by how long anything takes).  Skipped when
Dask's ``distributed`` cannot be imported.
"""

import os
import subprocess
import sys

import pytest

pytest.importorskip(
    "distributed",
    reason="--backend dask needs Dask's 'distributed' package (pip install 'sskernels[dask]')",
)

from test_dask_backend import (  # noqa: E402
    FREE_PORT,
    records,
    run,
    run_in_process,
    summary,
    write_spec,
)
from test_spec_cli import REPO, cli_env  # noqa: E402


def _wait_for_file(path, proc, deadline=120.0):
    import time

    t0 = time.monotonic()
    while not path.exists():
        if proc.poll() is not None:
            raise RuntimeError(f"the scheduler exited ({proc.returncode}) before writing {path}")
        if time.monotonic() - t0 > deadline:
            raise TimeoutError(f"no scheduler file after {deadline} s")
        time.sleep(0.2)


@pytest.fixture
def separate_cluster(tmp_path):
    """A scheduler and two single-threaded workers, each its own process (one ``dask worker``
    command starts both, each under its nanny); yields the address and the two commands'
    processes."""
    import json

    from distributed import Client

    sched_file = tmp_path / "scheduler.json"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OMP_NUM_THREADS": "1",
        "DASK_DISTRIBUTED__SCHEDULER__ACTIVE_MEMORY_MANAGER__START": "False",
    }
    dask = [sys.executable, "-m", "dask"]
    logs = [open(tmp_path / f"{name}.log", "w") for name in ("scheduler", "workers")]
    procs = [
        subprocess.Popen(
            [
                *dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--dashboard-address",  # its HTTP server: test_dask_backend.FREE_PORT
                FREE_PORT,
                "--scheduler-file",
                str(sched_file),
            ],
            env=env,
            cwd=tmp_path,
            stdout=logs[0],
            stderr=subprocess.STDOUT,
        )
    ]
    try:
        _wait_for_file(sched_file, procs[0])
        address = json.loads(sched_file.read_text())["address"]
        for log in logs[1:]:
            procs.append(
                subprocess.Popen(
                    [
                        *dask,
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "2",
                        "--no-dashboard",
                        "--host",
                        "127.0.0.1",
                    ],
                    env=env,
                    cwd=tmp_path,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            assert len(client.scheduler_info()["workers"]) == 2
        yield address, procs
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in logs:
            log.close()


def test_separate_scheduler_and_workers_give_the_records_of_one_job(
    tmp_path, separate_cluster, monkeypatch
):
    address, procs = separate_cluster
    spec1, out1 = write_spec(tmp_path, "jobs1")
    code, err = run_in_process([spec1], tmp_path, monkeypatch)
    assert code == 0, err
    env = cli_env(tmp_path)
    spec2, out2 = write_spec(tmp_path, "separate")
    res = run([spec2, "--backend", "dask", "--scheduler", address], env, tmp_path)
    assert res.returncode == 0, res.stderr
    assert len(records(out2)) == 12
    assert records(out2) == records(out1)
    assert summary(out2) == summary(out1)
    assert all(p.poll() is None for p in procs)  # the cluster is left running
