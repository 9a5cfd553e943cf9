"""The experiment grid on a Dask cluster: ``sskernels run --backend dask``.

:class:`DaskPool` stands where :class:`sskernels.experiment.executors.LocalExecutor` stands for
``--jobs N``: the runner hands it one spec's prepared state (data, splits, record keys) to
warm up (:meth:`DaskPool.warm`) and the tasks ``(method, setting, split)`` still to run; it
yields the records as they complete.  The
driver alone writes them (atomically, as the local runner does), so resuming, record keys
and summaries are the local runner's own code.

Where the label-independent work runs: on the cluster.  Each spec's warm-up (its graphs,
spectra and bases, :func:`~sskernels.experiment.worker.warm_graphs`) is one task,
:func:`warm_task`, named by a fingerprint of its inputs (``sskernels-warm-<hash>``: the data,
the methods' parameters, the code and the artifacts it starts from).  It starts from the
cache state the previous spec's warm-up left, so an artifact two specs share (the same
graph, spectrum or basis) is made once per run; every artifact it makes stays on the
cluster as a task of its own named by its content key (``sskernels-artifact-<hash of the
module, the memo key and the state token>``: a graph whose spectrum grew is a new one), and
artifacts the new cache state no longer holds are released.  The exact k-NN search's row
blocks of a large data set are tasks too, submitted by the warm-up task
(:func:`_worker_blocks`; from the driver: :meth:`DaskPool.block_map`): the index with the
query rows broadcast once, one task per block, the edges assembled and symmetrized in the
warm-up task.  This process computes none of it: it prepares the data, writes the records.

What crosses the network: per spec, the state (data, splits, record keys), scattered ONCE to
every worker (``broadcast=True``; a worker that joins later fetches it from a peer); to the
warm-up task, the artifacts it starts from; per task, the three indices ``(mi, gi, si)`` and
references to the state and to the artifacts (each fetched once per worker, from the worker
that made it); back, one record (a small dict), and from the warm-up its seconds, its
graphs' search report and the artifacts' names -- never the artifacts themselves.

Why the numbers equal ``--jobs 1``: each worker runs the local runner's
:func:`~sskernels.experiment.worker.run_record` on the same state, with BLAS pinned to one
thread (threadpoolctl) as locally; a worker whose code or libraries differ from the
driver's (another :func:`~sskernels.provenance.provenance_key`) refuses the task, since its
records would carry the driver's key but other numbers.

``distributed`` is imported only when a pool is made: ``sskernels --help`` and the local
back end never import Dask.
"""

from __future__ import annotations

import copy
import logging
import threading
import uuid

from sskernels.errors import InternalError, UserError
from sskernels.hashing import digest

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
        raise UserError(
            f"--backend dask needs Dask's 'distributed' package, which cannot be "
            f"imported ({exc}); {INSTALL}"
        ) from None
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
        #: ``{artifact name: future}`` of the artifacts on the cluster (:meth:`warm`)
        self._artifacts = {}
        #: ``[(module, key, name)]``: the cache state the last warm-up left
        self._held = []
        #: ``(state, future)``: the spec state last scattered (:meth:`_payload`)
        self._state = None
        #: artifacts the warm-ups made on the cluster so far (a count, for the tests)
        self.artifacts_made = 0
        import_distributed()  # fail before any spec runs

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
                # the workers log at CRITICAL only: what fails reaches this process as a
                # task's error or a cluster failure and is said in one line; at ERROR, a
                # worker whose heartbeat was in flight when a run ended early (an error
                # right after the cluster started) printed a traceback above that line
                try:
                    self._cluster = d.LocalCluster(
                        n_workers=self.jobs,
                        threads_per_worker=1,
                        processes=True,
                        # the scheduler's HTTP server (it starts one even without a
                        # dashboard) on a free port of this host: Dask's default, 8787, is
                        # another cluster's whenever two runs share a machine, and taking
                        # the next one prints a warning beside the run's one line
                        dashboard_address="127.0.0.1:0",
                        silence_logs=logging.CRITICAL,
                        preload=[__name__],
                    )  # see dask_setup
                finally:
                    os.environ.clear()
                    os.environ.update(env)
                self._client = d.Client(self._cluster)
            else:
                try:
                    self._client = d.Client(self.scheduler)
                except (OSError, TimeoutError, ValueError) as exc:
                    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise UserError(
                        f"--scheduler {self.scheduler}: cannot connect to a Dask "
                        f"scheduler there ({msg})"
                    ) from None
                # refused before any task (a worker that joins later refuses its first task)
                workers = self._client.scheduler_info().get("workers", {})
                many = sorted(
                    (w.get("nthreads", 1), a)
                    for a, w in workers.items()
                    if w.get("nthreads", 1) > 1
                )
                if many:
                    self._client.close()
                    self._client = None
                    raise UserError(
                        f"--scheduler {self.scheduler}: worker {many[-1][1]} runs "
                        f"{many[-1][0]} threads; {THREADS_HINT}"
                    )
        return self._client

    def artifacts(self):
        """``[(module, key, future)]``: the artifacts on the cluster that the last warm-up
        (:meth:`warm`) left in its caches, what each task of that spec loads."""
        return [(module, key, self._artifacts[name]) for module, key, name in self._held]

    def _payload(self, state):
        """``state`` on every worker, as ``(token, provenance key, state)``: scattered once
        (broadcast) for the warm-up and the tasks of one spec."""
        from sskernels.provenance import provenance_key

        if self._state is not None and self._state[0] is state:
            return self._state[1]
        client = self.client()
        if self._state is not None:
            # released, not cancelled: a cancel would cascade to its dependents, the
            # warm-up's artifacts among them
            self._state[1].release()
            self._state = None
        # a list of one: scatter would otherwise send the tuple's items as separate data
        [payload] = client.scatter(
            [(uuid.uuid4().hex[:12], provenance_key(), state)], broadcast=True, hash=False
        )
        self._state = (state, payload)
        return payload

    def warm(self, state):
        """The label-independent work of ``state``'s spec as ONE task on the cluster.

        The work (graphs, spectra, bases: :func:`~sskernels.experiment.worker.warm_graphs`) is
        :func:`warm_task`, named by its inputs' fingerprint (the data, the methods'
        parameters, the code, the artifacts it starts from).  It starts from the artifacts
        the previous warm-up left (so nothing already on the cluster is computed again) and
        each artifact it makes stays on the cluster as a task of its own, named by its
        content key (module, memo key, state token); nothing of it comes to this process.
        Artifacts the new cache state no longer holds are released.

        Parameters
        ----------
        state : Prepared
            The spec's prepared state (:func:`~sskernels.experiment.preparation.prepare`),
            scattered to every worker once.

        Returns
        -------
        seconds : float
            The warm-up's seconds.
        searches : list of dict
            Its graphs' searches (:func:`sskernels.graph.graph_searches`).

        Raises
        ------
        DaskRunError
            When the cluster fails the task (its workers died, its data were lost): no split
            was run.
        UserError
            The task's own, e.g. a worker whose code differs from the driver's, or a parameter
            a method refuses.
        """
        from distributed import wait

        from sskernels.experiment.plan import method_params
        from sskernels.provenance import provenance_key

        client = self.client()
        payload = self._payload(state)
        held = self.artifacts()
        ident = (
            state.data_fingerprint,
            provenance_key(),
            [
                (m.name, sorted(method_params(state.spec, m).items(), key=repr))
                for m in state.spec.methods
            ],
            [name for _, _, name in self._held],
        )
        key = "sskernels-warm-" + digest(repr(ident))
        fut = client.submit(warm_task, payload, held, key=key, pure=False)
        try:
            try:
                manifest = client.submit(_manifest, fut, key=key + "-manifest", pure=False).result()
            except Exception as exc:
                failure = _cluster_failure(
                    exc,
                    str(state.spec.path),
                    f"task {key}",
                    self.scheduler,
                    "no split was run: rerun the same command",
                )
                if failure is None:
                    raise
                raise failure from None
            seconds, searches, items = _unwrap(manifest)
            made = []
            for i, (_, _, name, new) in enumerate(items):
                if new and name not in self._artifacts:
                    self._artifacts[name] = client.submit(_pick, fut, i, key=name, pure=False)
                    made.append(self._artifacts[name])
            wait(made)
            self.artifacts_made += len(made)
        finally:
            fut.release()
        self._held = [(module, mkey, name) for module, mkey, name, _ in items]
        keep = {name for _, _, name in self._held}
        for name in [n for n in self._artifacts if n not in keep]:
            self._artifacts.pop(name).release()
        return seconds, searches

    def imap(self, state, artifacts, tasks):
        """The records of ``tasks`` (in completion order), run by the cluster's workers.

        Each task is one :func:`run_task` on the spec's scattered state; the tasks' futures
        are cancelled when the iteration ends (or stops early).

        Parameters
        ----------
        state : Prepared
            The spec's prepared state (:func:`~sskernels.experiment.preparation.prepare`).
        artifacts : list of tuple
            ``[(module, key, future)]`` (:meth:`artifacts`).
        tasks : list of tuple of int
            ``(mi, gi, si)``: method, setting and split of each task.

        Yields
        ------
        dict
            One record per task, as :func:`~sskernels.experiment.worker.run_record` gives it.

        Raises
        ------
        DaskRunError
            When the cluster fails a task (its workers died, its data were lost); the records
            already yielded stand.
        UserError
            A task's own (a parameter a method refuses, a worker with other code).
        """
        from distributed import as_completed

        client = self.client()
        payload = self._payload(state)
        token = uuid.uuid4().hex[:12]
        futures = [
            client.submit(
                run_task,
                payload,
                artifacts,
                t,
                pure=False,
                key=f"sskernels-{token}-{t[0]}-{t[1]}-{t[2]}",
            )
            for t in tasks
        ]
        try:
            for fut in as_completed(futures):
                yield _result(fut, state.spec, self.scheduler)
        finally:
            client.cancel(futures)
            if self._state is not None and self._state[0] is state:
                self._state[1].release()  # the spec's tasks are done (or cancelled)
                self._state = None

    def block_map(self, fn, shared, items, cfg):
        """``[fn(shared, x) for x in items]`` as tasks on the cluster.

        Used for the exact k-NN search's row blocks
        (:func:`sskernels.graph.search.search_mapper`): ``shared`` (the fitted index and the
        query rows) broadcast once, one task per item under scikit-learn's configuration
        ``cfg`` with one BLAS thread.

        Parameters
        ----------
        fn : callable
            ``fn(shared, item)``, run by a worker (:func:`run_block`).
        shared : object
            What every call shares, scattered once to every worker.
        items : sequence
            One task per item.
        cfg : dict
            The configuration of scikit-learn (``sklearn.get_config()``) each task runs under.

        Returns
        -------
        list
            The results in order.

        Raises
        ------
        DaskRunError
            When the cluster fails a task (its workers died, its data were lost).
        """
        return _block_map(self.client(), fn, shared, items, cfg, self.scheduler)

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
            if self._client is not None and self._state is not None:
                self._state[1].release()
            self._artifacts.clear()
            self._held, self._state = [], None
            if self._client is not None:
                self._client.close()
                self._client = None
            if self._cluster is not None:
                self._cluster.close()
                self._cluster = None
        finally:
            log.setLevel(level)


def artifact_name(module, key, artifact):
    """The cluster's name of an artifact: ``sskernels-artifact-<hash>``.

    The hash is of its module, memo key (the data fingerprint and parameters) and
    :meth:`state_token` if it has one (a graph's spectrum grows).

    Parameters
    ----------
    module : str
        The module whose shared memo holds the artifact (:mod:`sskernels.memo`).
    key : object
        The artifact's memo key.
    artifact : object
        The artifact (a graph, a spectrum, a basis).

    Returns
    -------
    str
        The name, the same on every process for the same artifact and state.
    """
    token = getattr(artifact, "state_token", None)
    ident = (module, key, token() if callable(token) else None)
    return "sskernels-artifact-" + digest(repr(ident))


def _block_map(client, fn, shared, items, cfg, scheduler):
    """:meth:`DaskPool.block_map` on ``client`` (the driver's, or a worker's own inside the
    warm-up task)."""
    token = uuid.uuid4().hex[:12]
    [ref] = client.scatter([shared], broadcast=True, hash=False)
    futures = [
        client.submit(run_block, fn, ref, x, cfg, pure=False, key=f"sskernels-block-{token}-{i}")
        for i, x in enumerate(items)
    ]
    try:
        return client.gather(futures)
    except Exception as exc:  # the cluster's failures: one line, as a task's (_result)
        failure = _cluster_failure(
            exc,
            "the exact k-NN search's row blocks",
            f"tasks sskernels-block-{token}-*",
            scheduler,
            "nothing of this graph was kept: rerun the same command",
        )
        if failure is None:
            raise
        raise failure from None
    finally:
        client.cancel(futures + [ref])


def _cluster_failure(exc, what, key, scheduler, resume):
    """The :class:`DaskRunError` line for a cluster failure ``exc`` (its workers died:
    ``KilledWorker``; its scheduler or scattered data were lost: ``CancelledError``) of
    ``what`` (task ``key``), or None for any other exception (a task's own error)."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    where = f"the Dask scheduler {scheduler}" if scheduler else "the local Dask cluster"
    if isinstance(exc, KilledWorker):
        return DaskRunError(
            f"{what}: on {where}, the workers running {key} died "
            f"({exc.__class__.__name__}); {resume}"
        )
    if isinstance(exc, CancelledError):
        return DaskRunError(
            f"{what}: on {where}, {key} was cancelled (its scheduler or its "
            f"scattered data were lost); {resume}"
        )
    return None


class _Refused:
    """A worker task's :class:`UserError` (or :class:`InternalError`, which carries its
    traceback) returned as a value, not raised: a raised one
    would be logged by the worker ("Compute Failed" with its traceback) above the driver's
    one line.  The driver raises it (:func:`_unwrap`)."""

    def __init__(self, exc):
        self.exc = exc


def _refusing(fn):
    """``fn`` with its :class:`UserError` or :class:`InternalError` returned as a
    :class:`_Refused`."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (UserError, InternalError) as exc:
            return _Refused(exc)

    return wrapper


def _unwrap(value):
    if isinstance(value, _Refused):
        raise value.exc
    return value


def _result(fut, spec, scheduler):
    """A finished future's record; a task's own error (e.g. a :class:`UserError`) as is, the
    cluster's failures as one :class:`DaskRunError` line."""
    try:
        value = fut.result()
    except Exception as exc:
        failure = _cluster_failure(
            exc,
            str(spec.path),
            f"task {fut.key}",
            scheduler,
            "the finished splits are recorded: rerun the same command to resume",
        )
        if failure is None:
            raise
        raise failure from None
    return _unwrap(value)


# ------------------------------------------------------------------------- worker side


def dask_setup(worker):
    """Preload of the local cluster's workers (``preload=[this module]``): SIGINT ignored.

    Ctrl-C is the driver's to handle.  A terminal's Ctrl-C reaches the whole process
    group, the workers included, which would each print a KeyboardInterrupt traceback over
    the driver's one line (the local runner's workers ignore SIGINT for the same
    reason).  Runs at every worker start, so a worker restarted after a death ignores it too.

    Parameters
    ----------
    worker : distributed.Worker
        The worker starting (Dask passes it; it is not used).
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


_LOCK = threading.Lock()
_LOADED: dict = {}  # {"token": ..., "prep": ...}: the state of the spec last loaded
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
    """This worker's :class:`~sskernels.experiment.preparation.Prepared` for the spec ``token``
    names: artifacts (``[(module, key, artifact)]``) put into this process's caches and the
    data frozen, once per spec."""
    with _LOCK:
        if _LOADED.get("token") == token:
            return _LOADED["prep"]
        from sskernels.memo import put_shared

        from sskernels.experiment.preparation import frozen

        _check_code(code)
        for module, key, artifact in artifacts:
            put_shared(module, key, artifact)
        prep = copy.copy(state)  # the scattered object stays as received
        prep.X = frozen(state.X)  # unpickled arrays come back writable
        _LOADED.clear()
        _LOADED.update(token=token, prep=prep)
        return prep


#: what a worker with more than one thread is told (:func:`_check_threads`)
THREADS_HINT = (
    "sskernels' process-wide caches (graphs, spectra, fitted learners) are not "
    "shared safely between threads: start the workers with one thread each "
    "(`dask worker ADDRESS --nthreads 1`, and as many --nworkers as cores)"
)


def _check_threads():
    """Refuse to run on a Dask worker with more than one thread (:data:`THREADS_HINT`)."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):  # not on a worker
        return
    n = getattr(getattr(worker, "state", None), "nthreads", None)
    n = getattr(worker, "nthreads", 1) if n is None else n
    if n > 1:
        raise UserError(f"Dask worker {worker.address} runs {n} threads; {THREADS_HINT}")


def _check_code(code):
    import socket

    from sskernels.provenance import provenance_key

    _check_threads()
    mine = provenance_key()
    if mine != code:
        raise UserError(
            f"Dask worker on {socket.gethostname()}: its sskernels code or "
            f"libraries differ from the driver's (provenance key {mine}, the "
            f"driver's {code}); install the same version on every worker"
        )


def _worker_blocks(fn, shared, items, cfg):
    """The warm-up task's k-NN row blocks: tasks of their own, submitted from the worker
    (``worker_client`` secedes this task's thread while they run)."""
    from distributed import worker_client

    with worker_client() as client:
        return _block_map(client, fn, shared, items, cfg, None)


@_refusing
def warm_task(payload, held):
    """A worker's task: the warm-up of the spec in ``payload`` (:meth:`DaskPool.warm`).

    This worker's artifact caches are set to ``held`` (``[(module, key, artifact)]``, the
    cache state the driver's previous warm-up left, copied: the cluster's data are not
    changed in place), then :func:`~sskernels.experiment.worker.warm_graphs` runs as on the
    driver (the exact k-NN search's row blocks as tasks of their own).  A
    :class:`UserError` (a worker whose code differs from the driver's, a parameter a method
    refuses) or an :class:`InternalError` is returned wrapped, not raised (:func:`_refusing`);
    the driver raises it.

    Parameters
    ----------
    payload : tuple
        ``(token, provenance key, state)``, the spec's state as :meth:`DaskPool.warm`
        scattered it.
    held : list of tuple
        ``[(module, key, artifact)]``: the artifacts the warm-up starts from.

    Returns
    -------
    seconds : float
        The warm-up's seconds.
    searches : list of dict
        Its graphs' searches (:func:`sskernels.graph.graph_searches`).
    items : list of tuple
        The caches afterwards as ``(module, key, name, artifact or None)``: None for those
        it started from.
    """
    from sskernels.memo import put_shared

    from sskernels.experiment.preparation import frozen
    from sskernels.experiment.worker import (
        artifact_items,
        clear_artifact_caches,
        graph_points,
        warm_graphs,
    )
    from sskernels.graph import graph_searches, graphs_used
    from sskernels.graph.search import search_mapper, search_threads

    _pin_blas()
    _, code, state = payload
    _check_code(code)
    with _LOCK:
        _LOADED.clear()  # the tasks' state is rebuilt by their next _load
        clear_artifact_caches()
        loaded = set()
        for module, key, artifact in held:
            artifact = copy.deepcopy(artifact)
            put_shared(module, key, artifact)
            loaded.add(artifact_name(module, key, artifact))
        prep = copy.copy(state)
        prep.X = frozen(state.X)
        with search_threads(1), graphs_used() as used, search_mapper(_worker_blocks):
            seconds = warm_graphs(prep)
        searches = graph_searches(graph_points(prep), keys=used)
        items = []
        for module, arts in artifact_items().items():
            for key, artifact in arts:
                name = artifact_name(module, key, artifact)
                items.append((module, key, name, None if name in loaded else artifact))
    return seconds, searches, items


def _manifest(result):
    """The small part of :func:`warm_task`'s result, for the driver: ``(seconds, searches,
    [(module, key, name, made here)])`` (or its :class:`_Refused`)."""
    if isinstance(result, _Refused):
        return result
    seconds, searches, items = result
    return seconds, searches, [(m, k, n, a is not None) for m, k, n, a in items]


def _pick(result, i):
    """The ``i``-th artifact of :func:`warm_task`'s result (a task named by its content)."""
    return result[2][i][3]


@_refusing
def run_task(payload, artifacts, task):
    """A worker's task: one record of the local runner's ``run_record``.

    The record is computed on the scattered state ``payload = (token, provenance key,
    state)`` and ``artifacts`` (``[(module, key, artifact)]``, resolved by Dask from the
    cluster's data), both loaded once per spec by this worker.  A :class:`UserError` or an
    :class:`InternalError` is returned wrapped, not raised (:func:`_refusing`); the driver
    raises it.

    Parameters
    ----------
    payload : tuple
        ``(token, provenance key, state)``.
    artifacts : list of tuple
        ``[(module, key, artifact)]``: the spec's warm-up artifacts.
    task : tuple of int
        ``(mi, gi, si)``: method, setting and split.

    Returns
    -------
    dict
        The record (:func:`~sskernels.experiment.worker.run_record`).
    """
    from sskernels.experiment.worker import run_record

    _pin_blas()
    prep = _load(*payload, artifacts)
    return run_record(task, prep)


def run_block(fn, shared, item, cfg):
    """A worker's task: ``fn(shared, item)``, one row block of the exact k-NN search.

    Run for :meth:`DaskPool.block_map` with one BLAS and one OpenMP thread as locally.

    Parameters
    ----------
    fn : callable
        ``fn(shared, item)``.
    shared : object
        What every block shares (the fitted index and the query rows).
    item : object
        This task's block.
    cfg : dict
        The configuration of scikit-learn (``sklearn.get_config()``) the call runs under.

    Returns
    -------
    object
        ``fn(shared, item)``.
    """
    from sklearn import config_context
    from threadpoolctl import threadpool_limits

    _pin_blas()
    with config_context(**cfg), threadpool_limits(1, user_api="openmp"):
        return fn(shared, item)
