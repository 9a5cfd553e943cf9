"""Where a run's tasks execute: the executor interface, local worker processes, the factory.

An executor takes one spec's prepared state, the artifacts its warm-up memoized and the tasks
``(method, setting, split)`` still to run, and gives back their records as they complete; the
runner (:mod:`sskernels.experiment.runner`) alone writes them.  Two implement it:

* :class:`LocalExecutor` (``--jobs N``): spawned worker processes shared by every spec of
  one ``sskernels run``;
* :class:`~sskernels.experiment.dask_backend.DaskPool` (``--backend dask``): a Dask
  cluster, which also runs the warm-ups (:meth:`~sskernels.experiment.dask_backend.DaskPool.warm`).

The interface (:class:`Executor`): ``local`` (whether the warm-up runs in this process),
``artifacts()``, ``imap(state, artifacts, tasks)`` (the records in completion order) and
``close()``; a local executor also has ``start(state, artifacts, tasks)``, which queues the
tasks behind those queued before and returns their stream (the runner overlaps the specs
with it).  :func:`make_executor` makes the one a command line asks for.
"""

from __future__ import annotations

import multiprocessing as mp
import threading
from contextlib import contextmanager
from typing import Protocol

from sskernels.errors import UserError
from sskernels.experiment.preparation import frozen
from sskernels.experiment.worker import artifact_items, load_artifacts, run_record


class Executor(Protocol):
    """What the runner asks of an executor."""

    #: True when the warm-up runs in this process and the executor only runs tasks
    local: bool

    def artifacts(self):
        """What the workers get beside a spec's state (its warm-up's artifacts)."""

    def imap(self, state, artifacts, tasks):
        """The records of ``tasks`` (in completion order).

        Parameters
        ----------
        state : Prepared
            The spec's prepared state (:func:`~sskernels.experiment.preparation.prepare`).
        artifacts : object
            What the workers get beside it: :meth:`artifacts`.
        tasks : list of tuple of int
            ``(mi, gi, si)``: method, setting and split of each task.

        Returns
        -------
        iterator of dict
            One record per task (:func:`~sskernels.experiment.worker.run_record`), as each
            completes.
        """

    def close(self):
        """Release the workers."""


def _init_worker():
    from threadpoolctl import threadpool_limits

    # Ctrl-C is the parent's to handle (it says what is kept); a worker that also took it
    # would print its own traceback ("SpawnPoolWorker ...") over the message.  The worker
    # started with SIGINT blocked (_sigint_blocked): ignoring it drops a Ctrl-C pending
    # since, and only then is it unblocked
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # one BLAS thread per worker: the workers already use the cores
    threadpool_limits(1)


@contextmanager
def _sigint_blocked():
    """SIGINT blocked in this thread while it spawns the local workers, which inherit the
    mask: a Ctrl-C (sent to the whole process group) while a worker still imports, before
    :func:`_init_worker` ignores it, stays pending there instead of printing a
    KeyboardInterrupt traceback.  Here it stays pending too, and is raised once unblocked
    (the run's one line, exit 130).  Multiprocessing's resource tracker is started first:
    starting it unblocks SIGINT (SIG_UNBLOCK, not the mask it found), which would let the
    workers spawned after it start with SIGINT deliverable."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # no signal masks (Windows)
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


#: a local worker process's state: the spec it last loaded (:func:`_load_state`) and its
#: state file; private to this module (a worker runs one task at a time)
_STATE = None
_STATE_PATH = None


def _load_state(path):
    """A worker's state for one spec (written by :meth:`LocalExecutor.state_file`): the
    prepared data and the parent's label-independent artifacts, loaded once per spec."""
    global _STATE, _STATE_PATH
    import pickle

    with open(path, "rb") as fh:
        state, artifacts = pickle.load(fh)
    _STATE = state
    _STATE.X = frozen(state.X)  # unpickled arrays come back writable
    load_artifacts(artifacts)
    _STATE_PATH = path


def _run_spec_task(item):
    """A worker's task: ``(state file, task)``; the state is loaded when the spec changes."""
    path, task = item
    if _STATE_PATH != path:
        _load_state(path)
    return run_record(task, _STATE)


class LocalExecutor:
    """Worker processes shared by every spec of one ``sskernels run`` (``--jobs N``).

    Started on first use, not once per spec: a spawned worker imports the package and its
    libraries (seconds of wall time per pool, which a pool per spec would pay once per
    spec).  Each spec's prepared data and artifacts go to a state file the
    workers load when their next task belongs to another spec.  A context manager: leaving
    it terminates the workers and removes the state files.
    """

    #: local worker processes: used only when ``--jobs`` > 1 and there are several tasks
    local = True

    def __init__(self, jobs):
        self.jobs = int(jobs)
        self._lock = threading.Lock()
        self._pool = None
        self._dir = None
        self._n = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def pool(self):
        if self._pool is None:
            import tempfile

            self._dir = tempfile.mkdtemp(prefix="sskernels-workers-")
            # the workers, and the pool's threads that replace them, inherit the mask
            with _sigint_blocked():
                self._pool = mp.get_context("spawn").Pool(self.jobs, initializer=_init_worker)
        return self._pool

    def state_file(self, state, artifacts):
        """Write one spec's worker state; returns its path.

        The state and the artifacts are pickled to ``state_NNNN.pkl`` in the workers'
        temporary folder; the worker processes are started first if they are not yet.

        Parameters
        ----------
        state : Prepared
            The spec's prepared state (:func:`~sskernels.experiment.preparation.prepare`).
        artifacts : dict
            ``{module: [(key, artifact)]}``: :meth:`artifacts`.

        Returns
        -------
        str
            The state file's path.
        """
        import os
        import pickle

        self.pool()
        with self._lock:  # the runner's look-ahead thread writes them too
            self._n += 1
            path = os.path.join(self._dir, f"state_{self._n:04d}.pkl")
        with open(path, "wb") as fh:
            pickle.dump((state, artifacts), fh, protocol=pickle.HIGHEST_PROTOCOL)
        return path

    def artifacts(self):
        """What the workers get beside a spec's state: this process's artifact caches
        (:func:`artifact_items`), filled by the spec's warm-up."""
        return artifact_items()

    def imap(self, state, artifacts, tasks):
        """The records of ``tasks`` (in completion order), run by the workers.

        The tasks are queued by :meth:`start`; the spec's state file is removed when the
        iteration ends (or stops early).

        Parameters
        ----------
        state : Prepared
            The spec's prepared state (:func:`~sskernels.experiment.preparation.prepare`).
        artifacts : dict
            ``{module: [(key, artifact)]}``: :meth:`artifacts`.
        tasks : list of tuple of int
            ``(mi, gi, si)``: method, setting and split of each task.

        Yields
        ------
        dict
            One record per task (:func:`~sskernels.experiment.worker.run_record`).
        """
        stream = self.start(state, artifacts, tasks)
        try:
            for _ in range(len(tasks)):
                yield stream.next()
        finally:
            stream.close()

    def start(self, state, artifacts, tasks):
        """Queue ``tasks`` now, behind those queued before, and return their :class:`_Stream`.

        The spec's state goes to a state file first (:meth:`state_file`).

        Parameters
        ----------
        state : Prepared
            The spec's prepared state (:func:`~sskernels.experiment.preparation.prepare`).
        artifacts : dict
            ``{module: [(key, artifact)]}``: :meth:`artifacts`.
        tasks : list of tuple of int
            ``(mi, gi, si)``: method, setting and split of each task.

        Returns
        -------
        _Stream
            The tasks' records in completion order (``next(timeout=None)``; ``close()``
            removes the state file).
        """
        path = self.state_file(state, artifacts)
        pool = self.pool()
        # the pool's worker processes now (multiprocessing.Pool keeps them in ``_pool``): one
        # that exits while tasks are out was killed, and its task is lost with it
        return _Stream(
            pool.imap_unordered(_run_spec_task, [(path, t) for t in tasks]),
            path,
            list(getattr(pool, "_pool", [])),
        )

    def close(self):
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
        if self._dir is not None:
            import shutil

            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


class _Stream:
    """The records of tasks queued by :meth:`LocalExecutor.start`: ``next(timeout=None)`` in
    completion order (``multiprocessing.TimeoutError`` after ``timeout`` seconds without
    one); ``close()`` once every record is in removes the spec's state file.

    A worker process that dies while the tasks are out (SIGKILL from the system's
    out-of-memory killer, a crash) takes its task with it, and ``multiprocessing.Pool`` would
    wait for that task forever: ``next`` looks at the workers every :data:`POLL` seconds and
    raises :class:`~sskernels.faults.WorkerKilled` (one line, exit 7) instead."""

    #: seconds between two looks at the worker processes while no record comes
    POLL = 1.0

    def __init__(self, it, path, workers=()):
        self._it, self.path, self._workers = it, path, list(workers)

    def next(self, timeout=None):
        import time

        end = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = self.POLL if end is None else min(self.POLL, max(end - time.monotonic(), 0))
            try:
                return self._it.next(wait)
            except mp.TimeoutError:
                self._check_workers()
                if end is not None and time.monotonic() >= end:
                    raise

    def _check_workers(self):
        import signal

        from sskernels.faults import RESUME, WorkerKilled

        for proc in self._workers:
            code = proc.exitcode
            if code is None:
                continue
            try:
                how = f"killed by {signal.Signals(-code).name}" if code < 0 else None
            except ValueError:
                how = None
            how = how or f"ended with exit code {code}"
            raise WorkerKilled(
                f"a worker process of the local pool (pid {proc.pid}) was "
                f"{how} while it ran a task (the system's out-of-memory killer "
                f"does so when memory runs out): rerun with fewer --jobs, or "
                f"on a machine with more memory; {RESUME}"
            )

    def close(self):
        import os

        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass


def make_executor(backend="local", jobs=1, scheduler=None):
    """The workers of one ``sskernels run``: a :class:`LocalExecutor` or a Dask pool.

    :class:`LocalExecutor` for ``backend="local"``,
    :class:`~sskernels.experiment.dask_backend.DaskPool` for ``"dask"`` (a local cluster of
    ``jobs`` processes, or the scheduler at ``scheduler``).  Raises :class:`UserError` for
    options that do not go together, and when Dask is not installed.  No worker starts
    before the first task: the executor is a context manager whose exit releases them.

    Parameters
    ----------
    backend : {"local", "dask"}, default="local"
        Where the tasks run.
    jobs : int, default=1
        Worker processes (``--jobs``); with a ``scheduler``, it must be 1.
    scheduler : str, default=None
        The address of a Dask scheduler (``tcp://host:8786``); only with ``"dask"``.

    Returns
    -------
    Executor
        The executor.

    Raises
    ------
    UserError
        For an unknown ``backend``, a ``scheduler`` without ``"dask"``, ``jobs`` other than
        1 with a ``scheduler``, and (``"dask"``) when Dask's ``distributed`` package cannot
        be imported.

    Examples
    --------
    >>> from sskernels.experiment import make_executor
    >>> with make_executor("local", jobs=2) as workers:
    ...     print(type(workers).__name__, workers.jobs, workers.local)
    LocalExecutor 2 True
    >>> make_executor("local", scheduler="tcp://localhost:8786")
    Traceback (most recent call last):
        ...
    sskernels.errors.UserError: --scheduler tcp://localhost:8786 needs --backend dask
    """
    if backend not in ("local", "dask"):
        raise UserError(f"--backend: expected local or dask, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise UserError(f"--scheduler {scheduler} needs --backend dask")
    if backend == "local":
        return LocalExecutor(jobs)
    if scheduler is not None and jobs != 1:
        raise UserError(
            f"--jobs {jobs} does not apply with --scheduler: the scheduler's "
            f"workers run the tasks (start as many as you want)"
        )
    from sskernels.experiment.dask_backend import DaskPool

    return DaskPool(jobs, scheduler)
