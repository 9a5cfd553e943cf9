"""``sskernels run --backend dask``: the same records and summaries as ``--jobs 1``.

A Liu et al. Table 3-like spec (wine, the harmonic function and TSK, 6 splits) is run once
with ``--jobs 1``, then on the local cluster the CLI starts itself (``--jobs 2``), in one
command with a second spec that a split's task refuses (the specs run one after the other
on Dask: the first is recorded and summarized before the second begins).  On a
cluster this test starts (``--scheduler``) the spec of tests/hold_methods.py runs, whose
second fit kills its own worker mid-run (no race: the kill is that fit's, once a record is
written); then records are deleted and the run resumed.  Everything but the timings must be
identical to ``--jobs 1``.  Also: Ctrl-C on the local cluster; a spec refused by a task on a
worker (the warm-up's on a cluster just started, a split's), or by the driver before any
task (the CLI's ``main`` in this process, with every way to a cluster barred).  Skipped when
Dask's ``distributed`` cannot be imported.
"""

import csv
import json
import os
import socket
import subprocess
import sys

import pytest

pytest.importorskip(
    "distributed",
    reason="--backend dask needs Dask's 'distributed' package (pip install 'sskernels[dask]')",
)

from test_spec_cli import (
    REPO,
    WINE_SPEC,
    assert_one_error_line,
    cli_env,  # noqa: E402
    sskernels,
)

# the wine spec of the CLI tests (harmonic and TSK), with a name per run and 6 splits
SPEC = WINE_SPEC.replace("name: wine_small", "name: {name}").replace("n_splits: 2", "n_splits: 6")
N_RECORDS = 12
#: the HTTP server of a cluster a test starts itself: a free port, not Dask's default 8787
#: (the CLI's own cluster takes a free port too: dask_backend.DaskPool; a run whose cluster
#: asked for a taken 8787 printed Dask's warning beside its one line)
FREE_PORT = "127.0.0.1:0"


def write_spec(tmp, name):
    path = tmp / f"{name}.yaml"
    path.write_text(SPEC.format(name="wine_dask", output=tmp / name))
    return path, tmp / name


def run(args, env, cwd):
    # --no-reuse: the sibling output folders hold the same keys; every record is computed
    args = ["run", *args, "--no-reuse", "--no-progress"]
    return sskernels(args, env, cwd, timeout=240)


def run_in_process(args, tmp, monkeypatch):
    """``sskernels run ARGS --no-reuse --no-progress`` by the CLI's ``main`` in this process
    (no interpreter to start, no package to import), in the environment :func:`cli_env`
    gives a subprocess: no ``SSKERNELS_*`` variable but the data folder ``tmp/cache``, one
    BLAS thread.  Returns ``(exit code, stderr)``."""
    import contextlib
    import io

    from threadpoolctl import threadpool_limits

    from sskernels.cli import main

    for k in [k for k in os.environ if k.startswith("SSKERNELS_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp / "cache"))
    argv = ["sskernels", "run", *map(str, args), "--no-reuse", "--no-progress"]
    monkeypatch.setattr(sys, "argv", argv)
    err = io.StringIO()
    code = 0
    with contextlib.redirect_stderr(err), threadpool_limits(limits=1):
        try:
            main()
        except SystemExit as exc:
            code = exc.code or 0
    return code, err.getvalue()


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
    return [r[:col] + r[col + 1 :] for r in rows], md


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The records and summaries of SPEC with ``--jobs 1`` (:func:`run_in_process`)."""
    tmp = tmp_path_factory.mktemp("dask")
    spec, out = write_spec(tmp, "jobs1")
    with pytest.MonkeyPatch.context() as mp:
        code, err = run_in_process([spec], tmp, mp)
    assert code == 0, err
    assert len(records(out)) == N_RECORDS
    return {"tmp": tmp, "env": cli_env(tmp), "out": out}


def bad_spec(tmp_path, edit):
    """SPEC with ``edit`` (``{old: new}``, each old text present) as ``tmp_path/bad.yaml``."""
    text = SPEC.format(name="bad", output=tmp_path / "out")
    for old, new in edit.items():
        assert old in text
        text = text.replace(old, new)
    spec = tmp_path / "bad.yaml"
    spec.write_text(text)
    return spec


# TSK asks for more eigenpairs than wine's 178 points have: the warm-up accepts the spec, a
# split's task refuses it
SPLIT_REFUSAL = ({"n_components: 10": "n_components: 500"}, "asked for 500 eigenpairs")


@pytest.fixture(scope="module")
def local_cluster_run(reference):
    """``sskernels run GOOD BAD --backend dask --jobs 2``: SPEC (``dask_local``), then
    :data:`SPLIT_REFUSAL`'s spec, on the one local cluster the CLI starts.  On Dask the specs
    run one after the other (runner.run_specs): GOOD is recorded and summarized before BAD
    begins, so one cluster start serves the records test and the split task's refusal.

    Dask's default HTTP port, 8787, is taken meanwhile (by this test, or already by another
    process): the run's stderr must still be its one line (a cluster that asked for 8787
    printed Dask's "Port 8787 is already in use" warning beside it)."""
    tmp, env = reference["tmp"], reference["env"]
    spec, out = write_spec(tmp, "dask_local")
    bad = bad_spec(tmp, SPLIT_REFUSAL[0])
    with socket.socket() as held:
        try:
            held.bind(("", 8787))
            held.listen()
        except OSError:  # another process holds it already
            pass
        res = run([spec, bad, "--backend", "dask", "--jobs", "2"], env, tmp)
    return {"out": out, "result": res}


def test_local_dask_cluster_gives_the_records_and_summaries_of_one_job(
    reference, local_cluster_run
):
    res, out = local_cluster_run["result"], local_cluster_run["out"]
    # the command's second spec is refused (test_a_split_task_refusing_...), after this one
    assert res.returncode == 2, res.stderr
    assert "bad.yaml" in res.stderr.splitlines()[-1], res.stderr
    assert records(out) == records(reference["out"])
    assert summary(out) == summary(reference["out"])


def assert_refused_by_a_task(res, needle):
    """A UserError raised on a worker reaches the driver as its one line, exit 2: the worker
    does not log it ("Compute Failed" and a traceback) above that line."""
    assert res.returncode == 2, res.stderr
    assert "Compute Failed" not in res.stderr and "UserError" not in res.stderr, res.stderr
    assert_one_error_line(res.stderr, "bad.yaml", needle)


def test_a_split_task_refusing_the_spec_is_one_line_and_exit_2(local_cluster_run):
    """A split's task refuses the second spec of the local cluster's run
    (:func:`local_cluster_run`)."""
    assert_refused_by_a_task(local_cluster_run["result"], SPLIT_REFUSAL[1])


def test_a_warm_up_task_refusing_the_spec_is_one_line_and_exit_2(tmp_path):
    """The warm-up task, the first task of a cluster just started, refuses the spec: the
    harmonic function on a precomputed affinity matrix, but wine's rows are features (the
    driver reads no method's input; the graph is the warm-up's, on the cluster)."""
    spec = bad_spec(
        tmp_path,
        {"  - name: harmonic\n": "  - name: harmonic\n    params: {graph: precomputed}\n"},
    )
    res = run([spec, "--backend", "dask", "--jobs", "2"], cli_env(tmp_path), tmp_path)
    assert_refused_by_a_task(
        res,
        "methods[0] (harmonic): graph='precomputed' needs a square (n, n) affinity matrix, "
        "got (178, 13)",
    )


@pytest.fixture(scope="module")
def held_reference(tmp_path_factory):
    """The records and summaries of tests/hold_methods.py's spec (``hold-harmonic``, 6 splits
    of wine) run with one job and no hold."""
    from hold_methods import N_SPLITS, records as held_records, run as held_run, run_env
    from hold_methods import write_spec as held_spec

    tmp = tmp_path_factory.mktemp("held_reference")
    spec, out = held_spec(tmp)
    code, _, stderr = held_run(
        ["run", spec, "--no-progress", "--no-reuse"], run_env(cli_env(tmp)), tmp
    )
    assert code == 0, stderr
    assert len(held_records(out)) == N_SPLITS
    return out


@pytest.fixture
def killing_cluster(tmp_path):
    """A LocalCluster of two single-threaded worker processes, as ``dask worker`` would run,
    whose second ``hold-harmonic`` fit kills its own worker (SIGKILL) once a record of the
    spec at ``tmp_path`` is written (tests/hold_methods.py: ``SSKERNELS_TEST_KILL_WORKER_AT``;
    the workers preload ``hold_methods``, which registers the method).  Yields
    ``(address, client, calls)``, ``calls`` the folder of the fits' call files."""
    import dask
    from distributed import Client, LocalCluster
    from hold_methods import run_env, write_spec as held_spec

    _, out = held_spec(tmp_path)
    calls = tmp_path / "calls"
    calls.mkdir()
    env = run_env({"PYTHONPATH": str(REPO)}, hold=calls, records=out / "records", kill_worker_at=2)
    # a result not yet gathered from a killed worker is recomputed elsewhere once the
    # scheduler and the driver give up connecting to it: 30 s by default, 3 s here.  The
    # spec's state is scattered to every worker (broadcast); the Active Memory Manager's
    # ReduceReplicas may drop all but one copy within seconds, and if the killed worker held
    # that one the run stops with "scattered data were lost ... rerun to resume" (a loud
    # error, not a wrong answer; docs/distributed.md).  This test is about a replaced worker
    # and a resumed run, so its cluster keeps the replicas, as docs/distributed.md advises.
    with dask.config.set(
        {
            "distributed.comm.timeouts.connect": "3s",
            "distributed.scheduler.active-memory-manager.start": False,
        }
    ):
        cl = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=FREE_PORT,
            env=env,
            preload=["hold_methods"],
        )
        client = Client(cl)
        yield cl.scheduler_address, client, calls
        client.close()
        cl.close()


def test_a_killed_worker_is_replaced_and_a_rerun_resumes(held_reference, killing_cluster, tmp_path):
    """A worker killed mid-run (its task's fit kills it: not raced, see killing_cluster) is
    replaced by its nanny, its task runs again, and the run completes with the records of an
    uninterrupted run; then deleted records are recomputed, and no other record is written."""
    from hold_methods import (
        BOUND,
        N_SPLITS,
        records as held_records,
        run as held_run,
        run_env,
        write_spec as held_spec,
    )

    address, client, calls = killing_cluster
    before_kill = set(client.run(os.getpid).values())
    assert len(before_kill) == 2
    env = run_env(cli_env(tmp_path))
    env["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "3s"  # as the cluster's
    spec, out = held_spec(tmp_path)
    args = ["run", spec, "--backend", "dask", "--scheduler", address, "--no-reuse", "--no-progress"]
    code, _, stderr = held_run(args, env, tmp_path)
    assert code == 0, stderr
    assert (calls / "killed").is_file(), stderr  # the kill came from the second fit
    victim, at_kill = map(int, (calls / "killed").read_text().split())
    assert victim in before_kill
    assert 1 <= at_kill < N_SPLITS  # mid-run: its own split was not done
    client.wait_for_workers(2, timeout=BOUND)  # the nanny replaced it
    after_kill = set(client.run(os.getpid).values())
    assert victim not in after_kill and len(after_kill) == 2
    assert held_records(out) == held_records(held_reference)
    assert summary(out) == summary(held_reference)

    # resume: only the deleted records are computed again, and the summary is the same
    files = sorted((out / "records").rglob("split_*.json"))
    before = {p: p.stat().st_mtime_ns for p in files}
    gone = [files[1], files[-1]]
    for p in gone:
        p.unlink()
    n_calls = len(list(calls.glob("call_*")))
    code, _, stderr = held_run(args, env, tmp_path)
    assert code == 0, stderr
    # every deleted record was fitted again; how often is Dask's business (a task runs at
    # least once: under load a worker that looks gone has its task rescheduled), so what is
    # checked is that no other record was rewritten and the records are the uninterrupted
    # run's
    assert len(list(calls.glob("call_*"))) >= n_calls + len(gone)
    after = {p: p.stat().st_mtime_ns for p in sorted((out / "records").rglob("split_*.json"))}
    assert set(after) == set(before)
    assert sorted(p for p in after if after[p] != before[p]) == sorted(gone)
    assert held_records(out) == held_records(held_reference)
    assert summary(out) == summary(held_reference)


def cli_error(monkeypatch, capsys, args):
    """``sskernels ARGS`` in this process (its ``main``, which turns a UserError into one
    line): ``(exit code, stderr)``; the options are checked before any spec is read."""
    from sskernels.cli import main

    monkeypatch.setattr(sys, "argv", ["sskernels", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        main()
    return exc.value.code, capsys.readouterr().err


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--scheduler", "tcp://127.0.0.1:8786"], "needs --backend dask"),
        (["--backend", "spark"], "expected local or dask"),
        (
            ["--backend", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--jobs", "2"],
            "does not apply with --scheduler",
        ),
    ],
)
def test_option_errors_are_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, needle):
    code, err = cli_error(monkeypatch, capsys, ["run", tmp_path / "absent.yaml", *args])
    assert code == 2, err
    assert_one_error_line(err, needle)


def test_without_dask_the_backend_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    code, err = cli_error(
        monkeypatch, capsys, ["run", tmp_path / "absent.yaml", "--backend", "dask"]
    )
    assert code == 2, err
    assert_one_error_line(err, "distributed", "pip install")


def test_the_cli_and_the_local_runner_do_not_import_dask(tmp_path):
    code = (
        "import sys, sskernels.cli, sskernels.experiment.runner; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code],
        env=cli_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


@pytest.mark.parametrize("where", [["--jobs", "2"], ["--scheduler", "tcp://127.0.0.1:9"]])
def test_a_graph_k_of_n_or_more_is_refused_on_the_driver_before_any_task(
    tmp_path, monkeypatch, where
):
    """graph.k >= n never reaches a task: the driver refuses it once the data are loaded
    (preparation.check_neighbours), before it starts or reaches a cluster.  The CLI's ``main``
    runs in this process with ``distributed.LocalCluster`` and ``distributed.Client`` barred:
    starting a cluster, or connecting to one (a scheduler at a closed port: the refusal is
    still the spec's line, not "cannot connect"), fails the test."""
    import distributed

    reached = []

    def barred(*args, **kwargs):
        reached.append(args)
        raise AssertionError("a cluster was started or reached")

    monkeypatch.setattr(distributed, "LocalCluster", barred)
    monkeypatch.setattr(distributed, "Client", barred)
    spec = bad_spec(tmp_path, {"k: 6,": "k: 500,"})
    code, err = run_in_process([spec, "--backend", "dask", *where], tmp_path, monkeypatch)
    assert reached == []
    assert code == 2, err
    assert_one_error_line(
        err,
        "bad.yaml",
        "field 'graph.k': expected fewer neighbours than the 178 points of sklearn-wine",
        "got 500",
    )
    assert not list((tmp_path / "out").rglob("split_*.json"))  # nothing was run


def test_ctrl_c_on_the_local_cluster_is_one_line_and_exit_130(tmp_path, sigint_not_ignored):
    """The workers of the CLI's own cluster ignore SIGINT (a terminal sends it to the whole
    process group): only the driver's one line is printed, and the records are kept.

    The run is not raced: its method, ``hold-harmonic`` (tests/hold_methods.py, run through
    tests/hold_run.py), sends the Ctrl-C to the run's process group from a worker, from its
    second fit once the first record is written, and holds every later fit until the
    interrupt has stopped the run.  The cluster's workers are up before any task runs."""
    from hold_methods import (
        BOUND,
        N_SPLITS,
        launch,
        records as held_records,
        run as held_run,
        run_env,
        temporaries,
        write_spec as held_spec,
    )

    spec, out = held_spec(tmp_path)
    calls = tmp_path / "calls"
    calls.mkdir()
    args = ["run", spec, "--backend", "dask", "--jobs", "2", "--no-progress"]
    env = run_env(cli_env(tmp_path), hold=calls, records=out / "records")
    with launch(args, env, tmp_path) as proc:
        _, stderr = proc.communicate(timeout=BOUND)
    assert (calls / "interrupted").is_file(), stderr  # the Ctrl-C came from the hold
    assert proc.returncode == 130, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines == [
        "interrupted; the finished splits are recorded: rerun the same command to resume"
    ], stderr
    kept = held_records(out, seconds=True)
    assert len(kept) == 1, sorted(kept)  # the first fit's: every later fit was held

    # the same command again resumes: the kept record stays as it is, the others are made
    code, _, stderr = held_run(args, run_env(cli_env(tmp_path)), tmp_path)
    assert code == 0, stderr
    after = held_records(out, seconds=True)
    assert len(after) == N_SPLITS
    assert {k: after[k] for k in kept} == kept
    assert temporaries(out) == []


@pytest.fixture
def two_thread_cluster():
    """A LocalCluster of one worker with two threads, in this process (what is checked is the
    worker's thread count, as its scheduler reports it and as the worker sees it), reached
    over TCP like any other."""
    from distributed import Client, LocalCluster

    cl = LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp://",
        host="127.0.0.1",
        dashboard_address=FREE_PORT,
    )
    client = Client(cl)
    yield cl.scheduler_address, client
    client.close()
    cl.close()


def test_a_worker_with_two_threads_is_refused_in_one_line(two_thread_cluster, tmp_path):
    """The process-wide caches are not shared safely between threads: a cluster whose worker
    runs two threads is refused before any task, in one line, and a worker's own check
    refuses a task there (a worker that joins after the driver looked)."""
    from sskernels.errors import UserError
    from sskernels.experiment.dask_backend import _check_threads

    address, client = two_thread_cluster
    spec, out = write_spec(tmp_path, "threads")
    res = sskernels(
        ["run", spec, "--backend", "dask", "--scheduler", address, "--no-progress"],
        cli_env(tmp_path),
        tmp_path,
        timeout=120,
    )
    assert res.returncode == 2, res.stderr
    assert_one_error_line(res.stderr, f"--scheduler {address}", "runs 2 threads", "--nthreads 1")
    assert not (out / "records").exists()
    with pytest.raises(UserError, match="runs 2 threads; .*--nthreads 1"):
        client.submit(_check_threads, pure=False).result(timeout=60)
    assert _check_threads() is None  # not on a worker: nothing to refuse
