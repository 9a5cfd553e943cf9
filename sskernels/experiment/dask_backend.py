"""The experiment grid on a Dask cluster: ``sskernels run --backend dask``.

:class:`DaskPool` stands where :class:`sskernels.experiment.runner.WorkerPool` stands for
``--jobs N``: the runner hands it one spec's prepared state (data, splits, record keys), the
label-independent artifacts the driver built once (graphs, spectra, bases) and the tasks
``(method, setting, split)`` still to run; it yields the records as they complete.  The
driver alone writes them (atomically, as the local runner does), so resuming, record keys
and summaries are the local runner's own code.

What crosses the network: per spec, the state, scattered ONCE to every worker
(``broadcast=True``; a worker that joins later fetches it from a peer); the
label-independent artifacts as data on the cluster keyed by their content key
(``sskernels-artifact-<hash of the memo key>``: the data fingerprint and parameters), each
sent once and kept while the driver's caches hold it, so that the specs of one run that
share a graph, spectrum or basis share it on the cluster too; per task, the three indices
``(mi, gi, si)`` and references to the state and artifacts; back, one record (a small
dict).  The exact k-NN search's row blocks of a large data set run as tasks too
(:meth:`DaskPool.block_map`): the index with the query rows broadcast once, one task per
block, the edges assembled and symmetrized on the driver.

Why the numbers equal ``--jobs 1``: each worker runs the local runner's
:func:`~sskernels.experiment.runner._run_task` on the same state, with BLAS pinned to one
thread (threadpoolctl) as locally; a worker whose code or libraries differ from the
driver's (another :func:`~sskernels.provenance.provenance_key`) refuses the task, since its
records would carry the driver's key but other numbers.

``distributed`` is imported only when a pool is made: ``sskernels --help`` and the local
back end never import Dask.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import threading
import uuid

from sskernels.errors import UserError

INSTALL = "pip install 'sskernels[dask]' (or: pip install 'dask[distributed]')"


class DaskRunError(UserError):
    """The cluster could not finish a run (a task's workers died, or its data were lost).

    The records already written are kept: rerunning the same command resumes.  Exit code 1:
    not a mistake in the input, but still one line and no traceback."""

    exit_code = 1


def import_distributed():
    """The ``distributed`` module, or a one-line :class:`UserError` saying how to install it."""
    try:
        import distributed
    except ImportError as exc:
        raise UserError(f"--backend dask needs Dask's 'distributed' package, which cannot be "
                        f"imported ({exc}); {INSTALL}") from None
    return distributed


class DaskPool:
    """A Dask client shared by every spec of one ``sskernels run --backend dask``.

    ``scheduler=None``: a :class:`distributed.LocalCluster` of ``jobs`` worker processes with
    one thread each, started on first use (a fully resumed run starts none); otherwise a
    client of the scheduler at that address (``tcp://host:8786``).  A context manager:
    leaving it closes the client and the local cluster (never a remote scheduler).
    """

    #: not local worker processes: every task goes to the cluster, even with one job
    local = False

    def __init__(self, jobs=1, scheduler=None):
        self.jobs = int(jobs)
        self.scheduler = scheduler
        self._client = None
        self._cluster = None
        #: ``{artifact name: future}`` of the artifacts on the cluster (:meth:`artifact_refs`)
        self._artifacts = {}
        #: artifacts sent so far (a count, for the tests and the docs)
        self.artifacts_sent = 0
        import_distributed()        # fail before any spec runs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def client(self):
        if self._client is None:
            d = import_distributed()
            if self.scheduler is None:
                import os

                # Dask's nannies write their workers' settings (OMP_NUM_THREADS=1 and the
                # like, PYTHONHASHSEED) into this process's environment: put it back, so
                # that what this process runs later (a local pool, a subprocess) gets ours
                env = dict(os.environ)
                try:
                    self._cluster = d.LocalCluster(n_workers=self.jobs, threads_per_worker=1,
                                                   processes=True, dashboard_address=None,
                                                   silence_logs=logging.ERROR,
                                                   preload=[__name__])   # see dask_setup
                finally:
                    os.environ.clear()
                    os.environ.update(env)
                self._client = d.Client(self._cluster)
            else:
                try:
                    self._client = d.Client(self.scheduler)
                except (OSError, TimeoutError, ValueError) as exc:
                    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise UserError(f"--scheduler {self.scheduler}: cannot connect to a Dask "
                                    f"scheduler there ({msg})") from None
        return self._client

    def imap(self, state, artifacts, tasks):
        """The records of ``tasks`` (in completion order), run by the cluster's workers."""
        from distributed import as_completed

        from sskernels.provenance import provenance_key

        client = self.client()
        token = uuid.uuid4().hex[:12]
        refs = self.artifact_refs(artifacts)
        # a list of one: scatter would otherwise send the tuple's items as separate data
        [payload] = client.scatter([(token, provenance_key(), state)],
                                   broadcast=True, hash=False)
        futures = [client.submit(run_task, payload, refs, t, pure=False,
                                 key=f"sskernels-{token}-{t[0]}-{t[1]}-{t[2]}")
                   for t in tasks]
        try:
            for fut in as_completed(futures):
                yield _result(fut, state.spec, self.scheduler)
        finally:
            client.cancel(futures + [payload])

    def artifact_refs(self, artifacts):
        """``[(module, key, future)]`` for ``artifacts`` (``{module: [(key, artifact)]}``,
        the driver's caches): each artifact on the cluster under a name made from its memo
        key (content fingerprint and parameters) and its :meth:`state_token` if it has one
        (a graph's spectrum grows); those not there yet are scattered (broadcast), those the
        driver's caches no longer hold are released."""
        client = self.client()
        named, new = [], {}
        for module, items in artifacts.items():
            for key, artifact in items:
                token = getattr(artifact, "state_token", None)
                ident = (module, key, token() if callable(token) else None)
                name = "sskernels-artifact-" + hashlib.sha1(repr(ident).encode()).hexdigest()
                named.append((module, key, name))
                if name not in self._artifacts:
                    new[name] = artifact
        if new:
            self._artifacts.update(client.scatter(new, broadcast=True))
            self.artifacts_sent += len(new)
        keep = {name for _, _, name in named}
        for name in [n for n in self._artifacts if n not in keep]:
            self._artifacts.pop(name).release()
        return [(module, key, self._artifacts[name]) for module, key, name in named]

    def block_map(self, fn, shared, items, cfg):
        """``[fn(shared, x) for x in items]`` as tasks on the cluster (the exact k-NN
        search's row blocks, :func:`sskernels.graph.knn.search_mapper`): ``shared`` (the
        fitted index and the query rows) broadcast once, one task per item under
        scikit-learn's configuration ``cfg`` with one BLAS thread; the results in order."""
        client = self.client()
        token = uuid.uuid4().hex[:12]
        [ref] = client.scatter([shared], broadcast=True, hash=False)
        futures = [client.submit(run_block, fn, ref, x, cfg, pure=False,
                                 key=f"sskernels-block-{token}-{i}")
                   for i, x in enumerate(items)]
        try:
            return client.gather(futures)
        except Exception as exc:     # the cluster's failures: one line, as a task's (_result)
            failure = _cluster_failure(exc, "the exact k-NN search's row blocks",
                                       f"tasks sskernels-block-{token}-*", self.scheduler,
                                       "nothing of this graph was kept: rerun the same command")
            if failure is None:
                raise
            raise failure from None
        finally:
            client.cancel(futures + [ref])

    def close(self):
        import logging

        log = logging.getLogger("distributed")
        level = log.level
        if self._cluster is not None:
            # closing our own cluster right after Ctrl-C: its scheduler (in this process) may
            # still report data to the client just closed, as CRITICAL tracebacks that say
            # nothing to the user (the records written are kept; the driver's one line says so)
            log.setLevel(logging.CRITICAL + 1)
        try:
            if self._client is not None and self._artifacts:
                self._client.cancel(list(self._artifacts.values()))
            self._artifacts.clear()
            if self._client is not None:
                self._client.close()
                self._client = None
            if self._cluster is not None:
                self._cluster.close()
                self._cluster = None
        finally:
            log.setLevel(level)


def _cluster_failure(exc, what, key, scheduler, resume):
    """The :class:`DaskRunError` line for a cluster failure ``exc`` (its workers died:
    ``KilledWorker``; its scheduler or scattered data were lost: ``CancelledError``) of
    ``what`` (task ``key``), or None for any other exception (a task's own error)."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    where = f"the Dask scheduler {scheduler}" if scheduler else "the local Dask cluster"
    if isinstance(exc, KilledWorker):
        return DaskRunError(f"{what}: on {where}, the workers running {key} died "
                            f"({exc.__class__.__name__}); {resume}")
    if isinstance(exc, CancelledError):
        return DaskRunError(f"{what}: on {where}, {key} was cancelled (its scheduler or its "
                            f"scattered data were lost); {resume}")
    return None


def _result(fut, spec, scheduler):
    """A finished future's record; a task's own error (e.g. a :class:`UserError`) as is, the
    cluster's failures as one :class:`DaskRunError` line."""
    try:
        return fut.result()
    except Exception as exc:
        failure = _cluster_failure(exc, str(spec.path), f"task {fut.key}", scheduler,
                                   "the finished splits are recorded: rerun the same command "
                                   "to resume")
        if failure is None:
            raise
        raise failure from None


# ------------------------------------------------------------------------- worker side

def dask_setup(worker):
    """Preload of the local cluster's workers (``preload=[this module]``): Ctrl-C is the
    driver's to handle.  A terminal's Ctrl-C reaches the whole process group, the workers
    included, which would each print a KeyboardInterrupt traceback over the driver's one
    line (the local runner's workers ignore SIGINT for the same reason).  Runs at every
    worker start, so a worker restarted after a death ignores it too."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


_LOCK = threading.Lock()
_LOADED: dict = {}          # {"token": ..., "prep": ...}: the state of the spec last loaded
_PINNED = threading.local()


def _pin_blas():
    """One BLAS/OpenMP thread for this worker thread, for good (never restored: a restore at
    the end of one task would change the limit under a task still running in another
    thread).  OpenBLAS's limit is the process's, OpenMP's the calling thread's, hence once
    per thread."""
    if not getattr(_PINNED, "done", False):
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
        _PINNED.done = True


def _load(token, code, state, artifacts):
    """This worker's :class:`~sskernels.experiment.runner.Prepared` for the spec ``token``
    names: artifacts (``[(module, key, artifact)]``) put into this process's caches and the
    data frozen, once per spec."""
    with _LOCK:
        if _LOADED.get("token") == token:
            return _LOADED["prep"]
        import importlib
        import socket

        from sskernels.experiment.runner import frozen
        from sskernels.provenance import provenance_key

        mine = provenance_key()
        if mine != code:
            raise UserError(f"Dask worker on {socket.gethostname()}: its sskernels code or "
                            f"libraries differ from the driver's (provenance key {mine}, the "
                            f"driver's {code}); install the same version on every worker")
        for module, key, artifact in artifacts:
            importlib.import_module(module).cache_put(key, artifact)
        prep = copy.copy(state)           # the scattered object stays as received
        prep.X = frozen(state.X)          # unpickled arrays come back writable
        _LOADED.clear()
        _LOADED.update(token=token, prep=prep)
        return prep


def run_task(payload, artifacts, task):
    """A worker's task: one record of the local runner's ``_run_task`` on the scattered
    state ``payload = (token, provenance key, state)`` and ``artifacts``
    (``[(module, key, artifact)]``, resolved by Dask from the cluster's data)."""
    from sskernels.experiment.runner import _run_task

    _pin_blas()
    prep = _load(*payload, artifacts)
    return _run_task(task, prep)


def run_block(fn, shared, item, cfg):
    """A worker's task: ``fn(shared, item)``, one row block of the exact k-NN search
    (:meth:`DaskPool.block_map`), with one BLAS and one OpenMP thread as locally."""
    from sklearn import config_context
    from threadpoolctl import threadpool_limits

    _pin_blas()
    with config_context(**cfg), threadpool_limits(1, user_api="openmp"):
        return fn(shared, item)
