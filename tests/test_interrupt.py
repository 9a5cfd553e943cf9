"""Ctrl-C during a run: one line, exit 130, no worker tracebacks, and the rerun resumes.  A
kill (SIGKILL) during a run: the rerun removes the temporary file the kill left and gives
the records of an uninterrupted run.

No test races the run (watching for a record, then signalling it while it may have
finished): the run stops itself at a known point.  Its method, ``hold-harmonic``
(tests/hold_methods.py, run through tests/hold_run.py), sends the Ctrl-C from its second
fit, once the first record is written, and holds every later fit until the interrupt has
stopped the run; the kill comes from the run's own record writer, at the rename of its
third record.  No assertion depends on the machine's speed.

The interrupted and killed runs are real processes (``python -m hold_run``, in a session of
their own).  What comes after them, the rerun that resumes and the uninterrupted run the
records are compared with, runs the same command in the test process
(:func:`cli_helpers.run_in_process`, ``hold-harmonic`` registered for the call only, the
hold not armed): no interpreter start and import of the package per rerun.  The rerun with
``--jobs 2`` still runs the missing splits in two spawned worker processes.
"""

import contextlib
import json
import os
import signal
import tempfile

import pytest
from cli_helpers import run_in_process

from hold_methods import (
    BOUND,
    N_SPLITS,
    RECORDS,
    _callers,
    launch,
    records,
    register,
    run,
    run_env,
    temporaries,
    write_spec,
)
from test_spec_cli import cli_env

INTERRUPTED = "interrupted; the finished splits are recorded: rerun the same command to resume"


@contextlib.contextmanager
def _hold_method_registered():
    """``hold-harmonic`` in this process's method table for the block only (the other tests
    read the table whole); with ``$SSKERNELS_TEST_HOLD_DIR`` unset it is the harmonic
    function."""
    from sskernels.learners.registry import METHODS

    assert "hold-harmonic" not in METHODS
    register()
    try:
        yield
    finally:
        del METHODS["hold-harmonic"]


def rerun(args, tmp):
    """``sskernels ARGS`` (a run of the hold spec in ``tmp``) in this process, as the run's
    own command line would run it with nothing armed: ``(exit code, stdout, stderr)``."""
    env = run_env(cli_env(tmp))
    with _hold_method_registered():
        res = run_in_process(args, env, tmp)
    return res.returncode, res.stdout, res.stderr


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_says_what_is_kept_and_exits_130(tmp_path, jobs, sigint_not_ignored):
    spec, out = write_spec(tmp_path)
    calls = tmp_path / "calls"
    calls.mkdir()
    args = ["run", spec, "--jobs", jobs, "--no-progress"]
    # with 2 jobs both workers must be running fits (started, SIGINT ignored) at the Ctrl-C
    env = run_env(cli_env(tmp_path), hold=calls, records=out / "records", processes=jobs)
    with launch(args, env, tmp_path) as proc:
        _, stderr = proc.communicate(timeout=BOUND)
    assert (calls / "interrupted").is_file(), stderr  # the Ctrl-C came from the hold
    assert proc.returncode == 130, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines == [INTERRUPTED], stderr
    assert "Traceback" not in stderr and "SpawnPoolWorker" not in stderr
    # the first fit's record, and no other: every later fit was held
    kept = records(out, seconds=True)
    assert len(kept) == 1, sorted(kept)
    assert temporaries(out) == []

    # the same command again resumes: the kept record stays as it is, the others are made
    code, _, stderr = rerun(args, tmp_path)
    assert code == 0, stderr
    after = records(out, seconds=True)
    assert len(after) == N_SPLITS
    assert {k: after[k] for k in kept} == kept
    assert temporaries(out) == []


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The records of the spec run without interruption (one job)."""
    tmp = tmp_path_factory.mktemp("uninterrupted")
    spec, out = write_spec(tmp)
    code, _, stderr = rerun(["run", spec, "--no-progress", "--no-reuse"], tmp)
    assert code == 0, stderr
    assert len(records(out)) == N_SPLITS
    assert temporaries(out) == []
    return records(out)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_killed_run_leaves_no_temporary_file_once_rerun(tmp_path, jobs, uninterrupted):
    spec, out = write_spec(tmp_path)
    args = ["run", spec, "--jobs", jobs, "--no-progress", "--no-reuse"]
    # the run kills its own process group (SIGKILL) when its third record is complete in
    # its temporary file and not yet renamed
    code, _, stderr = run(args, run_env(cli_env(tmp_path), kill_at_record=3), tmp_path)
    assert code == -signal.SIGKILL, stderr
    assert len(records(out)) == 2
    left = temporaries(out)
    assert len(left) == 1 and left[0].startswith(str(RECORDS / ".split_")), left
    assert json.loads((out / left[0]).read_text())["key"]  # a whole record, unrenamed
    # and a record the kill cut short while it was written, named as the writer names it
    fd, partial = tempfile.mkstemp(dir=out / RECORDS, prefix=".split_005.json.", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        fh.write('{"data_fingerprint": "0123')
    assert len(temporaries(out)) == 2

    code, _, stderr = rerun(args, tmp_path)
    assert code == 0, stderr
    assert temporaries(out) == []
    assert sorted(p.name for p in out.rglob("*.tmp")) == []
    assert records(out) == uninterrupted


def test_only_stale_temporaries_of_the_writer_are_removed(tmp_path, monkeypatch):
    """The cleaner takes the writer's temporary files only (its name pattern, in the output
    folder and its record folders) and none in a folder a writer holds now."""
    from sskernels.experiment.records import (
        TMP_NAME,
        _FolderLock,
        atomic_write_bytes,
        remove_stale_temporaries,
    )

    out = tmp_path / "out"
    ten, twenty = out / RECORDS.parent / "10_labeled", out / RECORDS.parent / "20_labeled"
    for folder in (ten, twenty):
        folder.mkdir(parents=True)
    stale = [
        ten / ".split_000.json.abcd_123.tmp",
        out / ".summary.csv.k3j4h5g6.tmp",
        out / "..sskernels-output.0a1b2c3d.tmp",
    ]
    busy = twenty / ".split_001.json.zz99yy00.tmp"  # its writer is at work
    # not the writer's names, not a record's in a record folder, or outside the folders
    foreign = [
        ten / "notes.tmp",
        ten / ".split_000.json.tmp",
        ten / ".split_000.json.ABCDEFGH.tmp",
        ten / ".notes.json.abcdefgh.tmp",
        out / "records" / ".split_000.json.abcdefgh.tmp",
        out / ".summary.csv.abc.tmp",
        tmp_path / ".summary.csv.abcdefgh.tmp",
    ]
    for path in stale + [busy] + foreign:
        path.write_text("{")

    with _FolderLock(twenty, exclusive=False) as held:
        assert held
        removed = remove_stale_temporaries(out)
    assert sorted(removed) == sorted(stale)
    assert busy.exists() and all(p.exists() for p in foreign)
    assert remove_stale_temporaries(out) == [busy]  # once its writer is gone
    assert all(p.exists() for p in foreign)

    # the pattern is the writer's own: the name atomic_write_bytes gives its temporary file
    seen = []
    replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        return replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    atomic_write_bytes(ten / "split_003.json", b"{}")
    monkeypatch.undo()
    assert [TMP_NAME.fullmatch(n)["target"] for n in seen] == ["split_003.json"]


def test_ctrl_c_while_a_local_worker_starts_is_one_line_and_exit_130(tmp_path, sigint_not_ignored):
    """``--jobs 2`` (the local pool, not Dask): a worker still starting (importing, its pool
    initializer not run yet) when Ctrl-C reaches the process group must not print a
    KeyboardInterrupt traceback.  The pool's workers start with SIGINT blocked (the parent
    blocks it while it spawns them) and unblock it once their initializer ignores it.

    Not raced: one worker is held in its start-up, before its initializer
    (``SSKERNELS_TEST_HOLD_START=2``, tests/hold_run.py), until the first fit, in the other
    worker, has sent the Ctrl-C; then it goes on starting with the signal pending."""
    spec, out = write_spec(tmp_path)
    calls = tmp_path / "calls"
    calls.mkdir()
    args = ["run", spec, "--jobs", "2", "--no-progress"]
    env = run_env(cli_env(tmp_path), hold=calls, at=1, start=2)
    with launch(args, env, tmp_path) as proc:
        _, stderr = proc.communicate(timeout=BOUND)
    # the Ctrl-C came from the first fit: "interrupted" is written just before its SIGINT
    # ("signalled" just after, which the run's end may pre-empt: the parent terminates that
    # worker as soon as the signal reaches it; seen once on a loaded machine)
    assert (calls / "interrupted").is_file(), stderr
    held = (calls / "start_0002").read_text()
    assert held not in _callers(calls), stderr  # the held worker had not fitted
    assert proc.returncode == 130, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines == [
        "interrupted; the finished splits are recorded: rerun the same command to resume"
    ], stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert records(out) == {}  # the first fit was held
