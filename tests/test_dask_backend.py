"""``sskernels run --backend dask``: the same records and summaries as ``--jobs 1``.

A Liu et al. Table 3-like spec (wine, the harmonic function and TSK, 6 splits) is run once
with ``--jobs 1``, then on Dask: on the local cluster the CLI starts itself (``--jobs 2``),
and on a cluster this test starts (``--scheduler``), one of whose two workers is killed
mid-run; then records are deleted and the run resumed.  Everything but the timings must be
identical.  Skipped when Dask's ``distributed`` cannot be imported.
"""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="--backend dask needs Dask's 'distributed' package "
                                          "(pip install 'sskernels[dask]')")

from test_spec_cli import (REPO, WINE_SPEC, assert_one_error_line, cli_env,  # noqa: E402
                           sskernels)

# the wine spec of the CLI tests (harmonic and TSK), with a name per run and 6 splits
SPEC = WINE_SPEC.replace("name: wine_small", "name: {name}").replace("n_splits: 2",
                                                                      "n_splits: 6")
N_RECORDS = 12


def write_spec(tmp, name):
    path = tmp / f"{name}.yaml"
    path.write_text(SPEC.format(name="wine_dask", output=tmp / name))
    return path, tmp / name


def run(args, env, cwd):
    # --no-reuse: the sibling output folders hold the same keys; every record is computed
    return sskernels(["run", *args, "--no-reuse", "--no-progress"], env, cwd, timeout=240)


def records(out):
    """``{relative path: record}`` without the fit time (``seconds``)."""
    found = {}
    for p in sorted((out / "records").rglob("split_*.json")):
        rec = json.loads(p.read_text())
        rec.pop("seconds")
        found[str(p.relative_to(out))] = rec
    return found


def summary(out):
    """summary.csv without its ``seconds`` column and summary.md up to its timing table."""
    rows = list(csv.reader((out / "summary.csv").read_text().splitlines()))
    col = rows[0].index("seconds")
    md = (out / "summary.md").read_text().split("seconds per split")[0]
    return [r[:col] + r[col + 1:] for r in rows], md


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dask")
    env = cli_env(tmp)
    spec, out = write_spec(tmp, "jobs1")
    res = run([spec], env, tmp)
    assert res.returncode == 0, res.stderr
    assert len(records(out)) == N_RECORDS
    return {"tmp": tmp, "env": env, "out": out}


def test_local_dask_cluster_gives_the_records_and_summaries_of_one_job(reference):
    tmp, env = reference["tmp"], reference["env"]
    spec, out = write_spec(tmp, "dask_local")
    res = run([spec, "--backend", "dask", "--jobs", "2"], env, tmp)
    assert res.returncode == 0, res.stderr
    assert records(out) == records(reference["out"])
    assert summary(out) == summary(reference["out"])


@pytest.fixture
def cluster():
    """A LocalCluster of two single-threaded worker processes, as ``dask worker`` would run."""
    import dask
    from distributed import Client, LocalCluster

    # a result not yet gathered from a killed worker is recomputed elsewhere once the
    # scheduler and the driver give up connecting to it: 30 s by default, 3 s here.  The
    # spec's state is scattered to every worker (broadcast); the Active Memory Manager's
    # ReduceReplicas may drop all but one copy within seconds, and if the killed worker held
    # that one the run stops with "scattered data were lost ... rerun to resume" (a loud
    # error, not a wrong answer; docs/distributed.md).  This test is about a replaced worker
    # and a resumed run, so its cluster keeps the replicas, as docs/distributed.md advises.
    with dask.config.set({"distributed.comm.timeouts.connect": "3s",
                          "distributed.scheduler.active-memory-manager.start": False}):
        cl = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None, env={"PYTHONPATH": str(REPO)})
        client = Client(cl)
        yield cl.scheduler_address, client
        client.close()
        cl.close()


def test_a_killed_worker_is_replaced_and_a_rerun_resumes(reference, cluster):
    address, client = cluster
    tmp, env = reference["tmp"], dict(reference["env"])
    env["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "3s"      # as the cluster's
    spec, out = write_spec(tmp, "dask_remote")
    args = ["run", spec, "--backend", "dask", "--scheduler", address, "--no-reuse",
            "--no-progress"]
    proc = subprocess.Popen([sys.executable, "-m", "sskernels", *map(str, args)], env=env,
                            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list((out / "records").rglob("split_*.json")):
        time.sleep(0.05)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    at_kill = len(list((out / "records").rglob("split_*.json")))
    os.kill(victim, signal.SIGKILL)          # mid-run: its task is rescheduled elsewhere
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    assert 1 <= at_kill < N_RECORDS
    assert victim not in client.run(os.getpid).values()
    assert records(out) == records(reference["out"])
    assert summary(out) == summary(reference["out"])

    # resume: only the deleted records are computed again, and the summary is the same
    files = sorted((out / "records").rglob("split_*.json"))
    before = {p: p.stat().st_mtime_ns for p in files}
    gone = [files[1], files[-1]]
    for p in gone:
        p.unlink()
    res = run([spec, "--backend", "dask", "--scheduler", address], env, tmp)
    assert res.returncode == 0, res.stderr
    after = {p: p.stat().st_mtime_ns for p in sorted((out / "records").rglob("split_*.json"))}
    assert set(after) == set(before)
    assert sorted(p for p in after if after[p] != before[p]) == sorted(gone)
    assert records(out) == records(reference["out"])
    assert summary(out) == summary(reference["out"])


def cli_error(monkeypatch, capsys, args):
    """``sskernels ARGS`` in this process (its ``main``, which turns a UserError into one
    line): ``(exit code, stderr)``; the options are checked before any spec is read."""
    from sskernels.cli import main

    monkeypatch.setattr(sys, "argv", ["sskernels", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        main()
    return exc.value.code, capsys.readouterr().err


@pytest.mark.parametrize("args, needle", [
    (["--scheduler", "tcp://127.0.0.1:8786"], "needs --backend dask"),
    (["--backend", "spark"], "expected local or dask"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--jobs", "2"],
     "does not apply with --scheduler"),
])
def test_option_errors_are_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, needle):
    code, err = cli_error(monkeypatch, capsys, ["run", tmp_path / "absent.yaml", *args])
    assert code == 2, err
    assert_one_error_line(err, needle)


def test_without_dask_the_backend_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)     # `import distributed` fails
    code, err = cli_error(monkeypatch, capsys,
                          ["run", tmp_path / "absent.yaml", "--backend", "dask"])
    assert code == 2, err
    assert_one_error_line(err, "distributed", "pip install")


def test_the_cli_and_the_local_runner_do_not_import_dask(tmp_path):
    code = ("import sys, sskernels.cli, sskernels.experiment.runner; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    res = subprocess.run([sys.executable, "-c", code], env=cli_env(tmp_path), cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


@pytest.mark.parametrize("edit, needle", [
    # the warm-up task (the graph) refuses the spec
    ({"k: 6,": "k: 500,"}, "methods[0] (harmonic): a 500-NN graph needs more than 500"),
    # a split's task refuses it
    ({"n_components: 10": "n_components: 500"}, "asked for 500 eigenpairs"),
])
def test_a_task_refusing_the_spec_is_one_line_and_exit_2(tmp_path, edit, needle):
    """A UserError raised on a worker reaches the driver as its one line: the worker does not
    log it ("Compute Failed" and a traceback) above that line."""
    text = SPEC.format(name="bad", output=tmp_path / "out")
    for old, new in edit.items():
        assert old in text
        text = text.replace(old, new)
    spec = tmp_path / "bad.yaml"
    spec.write_text(text)
    res = run([spec, "--backend", "dask", "--jobs", "2"], cli_env(tmp_path), tmp_path)
    assert res.returncode == 2, res.stderr
    assert "Compute Failed" not in res.stderr and "UserError" not in res.stderr, res.stderr
    assert_one_error_line(res.stderr, "bad.yaml", needle)


SLOW = """dataset: sklearn-wine
preprocess: minmax
splits: {n_splits: 200, n_labeled: 20}
methods: [lapsvm]
output: OUT
"""


def test_ctrl_c_on_the_local_cluster_is_one_line_and_exit_130(tmp_path, sigint_not_ignored):
    """The workers of the CLI's own cluster ignore SIGINT (a terminal sends it to the whole
    process group): only the driver's one line is printed, and the records are kept."""
    spec, out = tmp_path / "slow.yaml", tmp_path / "out"
    spec.write_text(SLOW.replace("OUT", str(out)))
    proc = subprocess.Popen([sys.executable, "-m", "sskernels", "run", str(spec), "--backend",
                             "dask", "--jobs", "2", "--no-progress"], env=cli_env(tmp_path),
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    records = out / "records" / "lapsvm" / "20_labeled"
    deadline = time.time() + 120
    # a finished record, not the temporary file of one being written (atomic write)
    while time.time() < deadline and not (records.is_dir() and any(records.glob("split_*.json"))):
        time.sleep(0.1)
    assert records.is_dir(), "no record written within 120 s"
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines == ["interrupted; the finished splits are recorded: rerun the same command to "
                     "resume"], stderr
    assert len(list(records.glob("split_*.json"))) >= 1
