"""Test-only points at which a run stops itself: an interrupt (Ctrl-C) or a kill at a known
step of the run, instead of a test that watches the run and races it.

Run the CLI through :mod:`hold_run` (``python -m hold_run run SPEC.yaml ...`` with this
folder on ``PYTHONPATH``, in a new session: ``start_new_session=True``); the launcher
registers the method ``hold-harmonic`` (:func:`register`) in the run's process and in its
worker processes (local ``--jobs`` spawns them, and a spawned process imports the launcher
first, as ``__mp_main__``; Dask's workers preload this module, :func:`dask_setup`), never in
the test process.

``hold-harmonic`` is the harmonic function (:class:`HoldHarmonic`) whose ``fit`` counts its
calls across every process of the run (one file per call in ``$SSKERNELS_TEST_HOLD_DIR``).
With ``SSKERNELS_TEST_HOLD_DIR`` unset it is the harmonic function and nothing else (the
rerun that resumes).  With it set, call ``$SSKERNELS_TEST_HOLD_AT`` (default 2):

1. waits until a record (``split_*.json``) is written under ``$SSKERNELS_TEST_HOLD_RECORDS``
   (call 1's, written by the run's main process: the run has something to keep; no wait when
   it is unset), and until ``$SSKERNELS_TEST_HOLD_PROCESSES`` (default 1) processes have
   called ``fit`` (with ``--jobs 2``: both workers run tasks, so both have started),
2. sends SIGINT to the run's process group, as a terminal's Ctrl-C does (the main process
   and its workers, which must ignore it), and says so in the files ``interrupted`` (just
   before) and ``signalled`` (just after), and
3. blocks, as every later call does: the run cannot finish, or write another record, before
   the interrupt has stopped it.

So the run is interrupted while it is running, with exactly one record written, however
slow or busy the machine is.  Every wait has a bound (:data:`BOUND` seconds) after which
the fit raises: a broken test fails instead of hanging.

``SSKERNELS_TEST_HOLD_START=N`` (with the hold armed): the N-th worker process of the run to
start (the N-th to import :mod:`hold_run` as ``__mp_main__``, counted by ``start_NNNN``
files) stops in that import, before the pool's initializer has run, until the Ctrl-C has
been sent (``signalled``), and the fit that sends it waits until that worker is held there:
the Ctrl-C reaches a worker that is provably still starting (with
``SSKERNELS_TEST_HOLD_AT=1`` the first fit, in the other worker, sends it).

``SSKERNELS_TEST_KILL_WORKER_AT=N`` (with ``$SSKERNELS_TEST_HOLD_DIR`` set; on a Dask worker
only, e.g. of a cluster a test starts with ``preload=["hold_methods"]``): call N, once a
record is written under ``$SSKERNELS_TEST_HOLD_RECORDS``, notes its pid and the records
written so far in the file ``killed`` and kills its own worker process (SIGKILL), as the
OOM killer would; every other call, before and after (the killed split's retry included),
is the harmonic function.  Call numbers are unique across processes: one worker dies, once.

``SSKERNELS_TEST_KILL_AT_RECORD=N`` (armed by :func:`arm_main_process`, in the run's main
process only): the N-th record write is killed (SIGKILL of the run's process group) after
its temporary file is complete and before its rename, where a kill leaves the temporary
file behind.
"""

import os
import re
import signal
import time
from pathlib import Path

from sskernels.learners.propagation import HarmonicFunction
from sskernels.learners.registry import METHODS, MethodInfo

HOLD_DIR = "SSKERNELS_TEST_HOLD_DIR"
HOLD_AT = "SSKERNELS_TEST_HOLD_AT"
HOLD_RECORDS = "SSKERNELS_TEST_HOLD_RECORDS"
HOLD_PROCESSES = "SSKERNELS_TEST_HOLD_PROCESSES"
KILL_AT_RECORD = "SSKERNELS_TEST_KILL_AT_RECORD"
HOLD_START = "SSKERNELS_TEST_HOLD_START"
KILL_WORKER_AT = "SSKERNELS_TEST_KILL_WORKER_AT"
#: the run's process group (set by :func:`arm_main_process`, inherited by the workers)
RUN_GROUP = "SSKERNELS_TEST_RUN_GROUP"
#: seconds any wait of this module lasts at most
BOUND = 300.0


def _run_group():
    """The run's process group, checked: only a run started in a session of its own (its
    main process leads the group) is signalled, never a test process's group."""
    group = int(os.environ.get(RUN_GROUP, "0"))
    if group <= 1 or os.getpgrp() != group:
        raise RuntimeError(
            f"hold_methods: not in a run's own process group ({RUN_GROUP}="
            f"{group}, this process's group {os.getpgrp()}); start the run "
            "with hold_run in a new session"
        )
    return group


def _call_number(folder):
    """The number of this call among every process's calls (1, 2, ...): the first free
    ``call_NNNN`` file, created exclusively; it holds the caller's pid."""
    folder = Path(folder)
    i = 1
    while True:
        try:
            fd = os.open(folder / f"call_{i:04d}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            i += 1
            continue
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        return i


def _callers(folder):
    """The pids that have called ``fit`` so far (a file being written counts once done)."""
    return {p.read_text() for p in Path(folder).glob("call_*")} - {""}


def _wait(condition, what):
    deadline = time.monotonic() + BOUND
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"hold_methods: {what} within {BOUND:.0f} s")
        time.sleep(0.05)


def _wait_for_a_record():
    """Wait until a record is written under ``$SSKERNELS_TEST_HOLD_RECORDS`` (if set)."""
    records = os.environ.get(HOLD_RECORDS)
    if records:
        records = Path(records)
        _wait(lambda: any(records.rglob("split_*.json")), f"no record under {records}")


def hold_point():
    """The hold of call ``$SSKERNELS_TEST_HOLD_AT`` and later, or the kill of call
    ``$SSKERNELS_TEST_KILL_WORKER_AT`` (module docstring); a no-op without
    ``$SSKERNELS_TEST_HOLD_DIR`` and for the calls before."""
    folder = os.environ.get(HOLD_DIR)
    if not folder:
        return
    n = _call_number(folder)
    kill_at = int(os.environ.get(KILL_WORKER_AT, "0"))
    if kill_at > 0:
        if n == kill_at:
            _kill_this_worker(folder, n)
        return
    at = int(os.environ.get(HOLD_AT, "2"))
    if n < at:
        return
    if n == at:
        _wait_for_a_record()
        processes = int(os.environ.get(HOLD_PROCESSES, "1"))
        _wait(lambda: len(_callers(folder)) >= processes, f"not {processes} processes fitting")
        start = int(os.environ.get(HOLD_START, "0"))
        if start > 0:  # that worker is held in its start-up (hold_worker_start)
            held = Path(folder) / f"start_{start:04d}"
            _wait(held.is_file, f"no worker start {start} held")
        group = _run_group()
        (Path(folder) / "interrupted").write_text(f"call {n} sent SIGINT to group {group}\n")
        os.killpg(group, signal.SIGINT)
        # in a worker (SIGINT ignored) this line runs; the main process may stop before it
        (Path(folder) / "signalled").write_text(f"call {n}\n")
    # hold: the interrupt stops the run (a KeyboardInterrupt here when this is the main
    # process; a worker is terminated with the run), never this call's return
    _wait(lambda: False, f"call {n} was not interrupted")


def _kill_this_worker(folder, n):
    """Call ``n`` kills its own Dask worker process (SIGKILL) once a record is written; the
    file ``killed`` holds ``pid records-written-at-the-kill``."""
    import sys

    distributed = sys.modules.get("distributed")
    try:
        distributed.get_worker()
    except (AttributeError, ValueError):
        raise RuntimeError(
            f"hold_methods: call {n} is to kill its Dask worker, but process "
            f"{os.getpid()} is not one (only a Dask worker is killed)"
        ) from None
    _wait_for_a_record()
    records = Path(os.environ[HOLD_RECORDS])
    written = len(list(records.rglob("split_*.json")))
    (Path(folder) / "killed").write_text(f"{os.getpid()} {written}\n")
    os.kill(os.getpid(), signal.SIGKILL)
    _wait(lambda: False, f"call {n}: SIGKILL did not stop worker {os.getpid()}")


def hold_worker_start():
    """In a worker process of the run (:mod:`hold_run` imported as ``__mp_main__``): with
    ``$SSKERNELS_TEST_HOLD_START`` = N (and the hold armed), the N-th worker to start waits
    here, before its pool's initializer runs, until the Ctrl-C has been sent (the file
    ``signalled``); any other worker, and every worker without it, goes on at once."""
    folder, at = os.environ.get(HOLD_DIR), int(os.environ.get(HOLD_START, "0"))
    if not folder or at <= 0:
        return
    folder = Path(folder)
    i = 1
    while True:
        try:
            fd = os.open(folder / f"start_{i:04d}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            i += 1
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    if i == at:
        _wait(
            lambda: (folder / "signalled").is_file(),
            f"worker start {i} (pid {os.getpid()}): no Ctrl-C sent",
        )


class HoldHarmonic(HarmonicFunction):
    """The harmonic function, with :func:`hold_point` before each fit."""

    def fit(self, X, y):
        hold_point()
        return super().fit(X, y)


class _Factory:
    """The registry's factory of :class:`HoldHarmonic` (``cls``: the class, as the registry's
    own factories give it, so that a spec's graph parameters become its ``graph``)."""

    cls = HoldHarmonic
    __name__ = "HoldHarmonic"

    def __call__(self, **params):
        return HoldHarmonic(**params)


def register():
    """Register ``hold-harmonic`` in this process's method table: the run's processes only
    (tests/hold_run.py, a Dask worker's preload via :func:`dask_setup`), never the test
    process itself, whose registry the other tests read whole."""
    METHODS["hold-harmonic"] = MethodInfo(
        "hold-harmonic",
        _Factory(),
        "test only",
        "harmonic function, held at a known call",
        True,
        "the harmonic function, held at a known fit (tests/hold_methods.py)",
    )


def dask_setup(worker):
    """Dask's preload hook (``preload=["hold_methods"]``): the worker can run the method."""
    register()


_RECORD = re.compile(r"split_\d+\.json")


def arm_main_process():
    """In the run's main process (:mod:`hold_run`), before the CLI starts: note the run's
    process group for :func:`hold_point` (only when this process leads it), and with
    ``$SSKERNELS_TEST_KILL_AT_RECORD`` kill the run at that record's rename."""
    if os.getpgrp() == os.getpid():
        os.environ[RUN_GROUP] = str(os.getpid())  # the workers inherit it
    at = int(os.environ.get(KILL_AT_RECORD, "0"))
    if at <= 0:
        return
    replace, count = os.replace, [0]

    def killing_replace(src, dst, *args, **kwargs):
        if _RECORD.fullmatch(Path(dst).name) and Path(src).name.endswith(".tmp"):
            count[0] += 1
            if count[0] == at:
                # the record is complete in its temporary file, not renamed yet: a kill
                # here (the OOM killer, `kill -9`, a node lost) leaves that file behind
                os.killpg(_run_group(), signal.SIGKILL)
                _wait(lambda: False, "SIGKILL did not stop the run")
        return replace(src, dst, *args, **kwargs)

    os.replace = killing_replace


# ----------------------------------------------------------------- the tests' side

TESTS = Path(__file__).resolve().parent

#: a quick spec of the held method: 6 splits of wine (any count above 2 + workers holds)
SPEC = """name: hold
dataset: sklearn-wine
preprocess: minmax
graph: {{k: 6, weights: hein-maier}}
splits: {{protocol: random, n_splits: {n_splits}, n_labeled: 20, seed: 0}}
methods: [hold-harmonic]
output: {output}
"""
N_SPLITS = 6
#: the records folder of SPEC's one method and setting
RECORDS = Path("records") / "hold-harmonic" / "20_labeled"


def write_spec(folder, n_splits=N_SPLITS):
    """``(spec file, output folder)`` of :data:`SPEC` in ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    spec, out = folder / "hold.yaml", folder / "out"
    spec.write_text(SPEC.format(n_splits=n_splits, output=out))
    return spec, out


def run_env(
    env,
    hold=None,
    records=None,
    processes=1,
    kill_at_record=None,
    at=None,
    start=None,
    kill_worker_at=None,
):
    """``env`` (the CLI tests' ``cli_env``) for :mod:`hold_run`: this folder on
    ``PYTHONPATH``; ``hold``: the folder of the call files (the hold is armed), ``records``
    the folder a record must be in first (None: no wait), ``processes`` how many processes
    must have called ``fit`` first, ``at`` the call that sends the Ctrl-C (default 2),
    ``start`` the worker start held until it is sent; ``kill_at_record``: the record write
    to kill; ``kill_worker_at`` (with ``hold``): the call that kills its Dask worker."""
    env = {
        k: v
        for k, v in env.items()
        if k
        not in (
            HOLD_DIR,
            HOLD_AT,
            HOLD_RECORDS,
            HOLD_PROCESSES,
            KILL_AT_RECORD,
            RUN_GROUP,
            HOLD_START,
            KILL_WORKER_AT,
        )
    }
    env["PYTHONPATH"] = os.pathsep.join(
        [str(TESTS)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    if hold is not None:
        env.update({HOLD_DIR: str(hold), HOLD_PROCESSES: str(processes)})
        optional = {
            HOLD_RECORDS: records,
            HOLD_AT: at,
            HOLD_START: start,
            KILL_WORKER_AT: kill_worker_at,
        }
        env.update({k: str(v) for k, v in optional.items() if v is not None})
    if kill_at_record is not None:
        env[KILL_AT_RECORD] = str(kill_at_record)
    return env


class launch:
    """``with launch(args, env, cwd) as proc``: ``python -m hold_run ARGS`` in a session of
    its own (its process group is the run's: the hold signals it, as a terminal would);
    whatever is left of the group when the block ends is killed."""

    def __init__(self, args, env, cwd):
        import subprocess
        import sys

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hold_run", *map(str, args)],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def __enter__(self):
        return self.proc

    def __exit__(self, *exc):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # what a failed test left running
        except (ProcessLookupError, PermissionError):
            pass
        if self.proc.returncode is None:
            self.proc.communicate()
        return False


def run(args, env, cwd, timeout=BOUND):
    """:func:`launch` to the end: ``(exit code, stdout, stderr)``."""
    with launch(args, env, cwd) as proc:
        stdout, stderr = proc.communicate(timeout=timeout)
    return proc.returncode, stdout, stderr


def temporaries(out):
    """The temporary files of the records' writer under output folder ``out``
    (``.NAME.XXXXXXXX.tmp``), relative paths."""
    from sskernels.experiment.records import TMP_NAME

    return sorted(
        str(p.relative_to(out)) for p in Path(out).rglob(".*.tmp") if TMP_NAME.fullmatch(p.name)
    )


def records(out, seconds=False):
    """``{relative path: record}`` of the records under ``out`` (without the fit time
    ``seconds``, which no two runs share, unless ``seconds``)."""
    import json

    found = {}
    for p in sorted((Path(out) / "records").rglob("split_*.json")):
        rec = json.loads(p.read_text())
        if not seconds:
            rec.pop("seconds")
        found[str(p.relative_to(out))] = rec
    return found
