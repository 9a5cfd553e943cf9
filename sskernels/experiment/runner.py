"""Run a spec: every method on every split, records written as they finish.

Label-independent work is done once per run: the data set is loaded once, and
each graph and its Laplacian spectrum are built in the parent process before
any split runs (:func:`warm_graphs`).  Worker processes (``--jobs``) are
spawned, not forked (a fork after BLAS or HiGHS started their threads can
deadlock), and receive the prepared data and the built graphs once, at start,
through :func:`sskernels.graph.get_graph`'s cache; each split then only does
the label-dependent work.  ``--backend dask`` hands the same state and tasks to a Dask
cluster instead, and the warm-up too (:mod:`sskernels.experiment.dask_backend`, chosen by
:func:`worker_pool`); either way this process alone writes the records.

Before any of this, :func:`prepare` checks the spec against the loaded data, each error one
line naming the spec's field (:func:`check_holdout`, :func:`check_sizes`): the held-out
fraction, the labeled points and every k-NN graph's k against the points the learners see.

A record is reused only when its key matches: the key hashes the spec parts of
the method, the content of the prepared data and the code and library versions
(:func:`sskernels.experiment.records.record_key`), so neither an edited data
file nor a change of the code ever brings old numbers back.

Why it stays whole: one module, ~1000 lines, held together by one job, scheduling a run: preparing
the data, keying
and looking up the records, the local worker pool and the overlapped warm-ups of several specs
share the Prepared state and its lifecycle; the task body (experiment/tasks.py), the store
(records.py, archive.py) and the Dask back end already live apart.
"""

from __future__ import annotations

import multiprocessing as mp
from contextlib import contextmanager
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from sskernels import provenance as _provenance
from sskernels.errors import SpecError, UserError
from sskernels.experiment.records import (data_fingerprint, plain, read_data_fingerprint,
                                          read_record, record_key, record_state,
                                          write_data_fingerprint, write_graph_seconds,
                                          write_record)
from sskernels.experiment.splits import SplitError, make_splits, regression_splits
from sskernels.experiment.plan import build, method_run, method_runs
from sskernels.experiment.tasks import method_code_modules, run_task
from sskernels.graph import graph_searches, graphs_used
from sskernels.spec import method_key


@dataclass
class Prepared:
    spec: object
    X: object              # the points the learners see (labeled + unlabeled)
    y: np.ndarray          # encoded 0..c-1
    classes: np.ndarray
    settings: list         # [(setting label, [labeled index arrays])]
    X_test: object = None  # held-out unseen points (splits.holdout > 0)
    y_test: np.ndarray = None
    graph_seconds: float = 0.0
    data_fingerprint: str = None   # content hash of X, y, classes, held-out part, official splits
    keys: list = None              # the record key of each of spec.methods (see record_keys)
    codes: list = None             # each method's code: {"code": key, "modules": {...}}
    provenance: dict = None        # sskernels.provenance.provenance() of the parent process
    task: str = "classification"   # or "regression": y (n, k) float targets, metrics rmse/mse
    pool: np.ndarray = None        # regression: the rows labeled points are drawn from; its
                                   # rows not drawn in a split are that split's test points
    runs: list = None              # each method's plan.MethodRun (its unfitted estimator)

    @property
    def n_splits(self):
        return len(self.settings[0][1])


def load_data(spec):
    """The spec's data set, preprocessed: ``(X, y)`` and the official splits if any."""
    from sskernels import data

    d = spec.dataset
    if d.file is not None:
        ds = data.load_file(d.file, format=d.format, label=d.label, preprocess=spec.preprocess)
    else:
        ds = data.load_dataset(d.name, preprocess=spec.preprocess)
    return ds


def holdout_split(y, fraction, seed):
    """Seeded stratified split into (seen, unseen) indices; unseen is ``fraction`` of the points."""
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.size)
    seen, unseen = train_test_split(idx, test_size=fraction, random_state=seed, stratify=y)
    return np.sort(seen), np.sort(unseen)


def prepare(spec, n_splits=None):
    ds = load_data(spec)
    task = getattr(ds, "task", "classification")
    if task != getattr(spec, "task", "classification"):
        raise UserError(f"{spec.path}: field 'dataset': expected a "
                        f"{getattr(spec, 'task', 'classification')} data set, got {ds.name} "
                        f"(a {task} data set)")
    if task == "regression":
        return prepare_regression(spec, ds, n_splits)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    s = spec.splits
    X, X_test, y_test, official = ds.X, None, None, ds.splits
    groups = getattr(ds, "groups", None)
    if s.cover == "groups" and groups is None:
        raise UserError(f"{spec.path}: field 'splits.cover': expected classes ("
                        f"{spec.dataset.display} carries no subclasses (groups)), got 'groups'")
    if s.holdout > 0:
        if s.protocol == "official":
            raise UserError(f"{spec.path}: field 'splits.holdout': expected 0 with official splits")
        check_holdout(spec, y.size, classes.size)
        seen, unseen = holdout_split(y, s.holdout, s.seed)
        X, X_test, y_test, y = ds.X[seen], ds.X[unseen], y[unseen], y[seen]
        groups = None if groups is None else groups[seen]
    check_sizes(spec, y.size, ds.X.shape[0])
    settings = []
    labels = setting_labels(spec)
    try:
        for i, n_lab in enumerate(s.n_labeled):
            field_ = f"splits.per_class[{i}]" if s.per_class else "splits"
            splits = make_splits(y, s.protocol, n_splits or s.n_splits, n_lab, s.seed,
                                 official=official,
                                 per_class=s.per_class[i] if s.per_class else None,
                                 groups=groups if s.cover == "groups" else None,
                                 classes=classes)
            label = (f"official {len(splits[0])} labeled" if s.protocol == "official"
                     else labels[i])
            settings.append((label, splits))
    except SplitError as exc:
        field_ = field_ if exc.field == "splits.per_class" else exc.field
        raise UserError(f"{spec.path}: field '{field_}': {exc}") from None
    except ValueError as exc:
        raise UserError(f"{spec.path}: field 'splits': {exc}") from None
    # groups decide the splits of cover: groups; data sets without groups keep their fingerprint
    extra = (X_test, y_test, official) + (() if groups is None else (groups,))
    fp = data_fingerprint(X, y, classes, extra=extra)
    return Prepared(spec, frozen(X), y, classes, settings, X_test, y_test, data_fingerprint=fp)


def _held_out(n, fraction):
    """The number of held-out points of ``n`` (scikit-learn's rounding: ``ceil(fraction n)``)."""
    return int(np.ceil(fraction * n)) if fraction else 0


def _points(spec, n, n_all):
    """'the 142 training points of wine (178 points, 36 held out by splits.holdout = 0.2)'."""
    name = spec.dataset.display
    if n == n_all:
        return f"the {n} points of {name}"
    return (f"the {n} training points of {name} ({n_all} points, {n_all - n} held out by "
            f"splits.holdout = {spec.splits.holdout:g})")


def check_holdout(spec, n, n_classes):
    """Refuse, naming ``splits.holdout``, a held-out fraction the data set cannot give.

    The rule: the ``ceil(holdout n)`` held-out points are drawn stratified by class, so they
    hold at least one point per class; the other points, the training part, hold at least
    one point per class too, and every labeled point of the largest setting
    (``splits.n_labeled``) plus one unlabeled point.  A setting that does not fit in the
    ``n`` points even without a holdout is ``splits.n_labeled``'s error (:func:`check_sizes`).
    """
    s = spec.splits
    n_test = _held_out(n, s.holdout)
    n_train = n - n_test
    largest = max(s.n_labeled) if s.protocol != "official" else 0
    need = max(n_classes, largest + 1) if largest < n else n_classes
    if n_test < n_classes or n_train < need:
        raise SpecError(spec.path, "splits.holdout", f"a fraction that holds out at least "
                        f"one point per class ({n_classes}) and leaves at least {need} training "
                        f"points (the largest n_labeled, {largest}, and one unlabeled point; "
                        f"one per class): this one holds out {n_test} and leaves {n_train} of "
                        f"the {n} points of {spec.dataset.display}", s.holdout)


def check_sizes(spec, n, n_all):
    """The spec's sizes against the ``n`` points the learners see (``n_all`` before the
    holdout), before any graph is built or any method fitted: each setting's labeled points
    leave at least one unlabeled point (``splits.n_labeled`` or ``splits.per_class[i]``),
    and every k-NN graph has fewer neighbours than points (:func:`check_neighbours`)."""
    s = spec.splits
    if s.protocol != "official":
        for i, n_lab in enumerate(s.n_labeled):
            if n_lab >= n:
                field_ = f"splits.per_class[{i}]" if s.per_class else "splits.n_labeled"
                raise SpecError(spec.path, field_, f"fewer labeled points than "
                                f"{_points(spec, n, n_all)} (at least one must stay "
                                f"unlabeled)", s.per_class[i] if s.per_class else n_lab)
    check_neighbours(spec, n, n_all)


def check_neighbours(spec, n, n_all=None):
    """Every k-NN graph of the spec's methods has fewer neighbours than the ``n`` points it
    is built on: ``graph.k``, or a method's own ``params.n_neighbors``, named when not."""
    for i, method in enumerate(spec.methods):
        try:
            est = build(spec, method)
        except (ValueError, TypeError) as exc:
            raise UserError(f"{spec.path}: methods[{i}] ({method.label}): {exc}") from None
        for k in _neighbour_counts(est):
            if k >= n:
                own = _param_path(method.params, "n_neighbors")
                field_ = f"methods[{i}].params.{own}" if own else "graph.k"
                raise SpecError(spec.path, field_, f"fewer neighbours than "
                                f"{_points(spec, n, n if n_all is None else n_all)} (a k-NN "
                                f"graph needs k < n)", k)


def _neighbour_counts(est):
    """The ``n_neighbors`` of every k-NN graph builder in ``est`` (nested ones included)."""
    from sskernels.graph import KNNGraph

    found = [est] + (list(est.get_params(deep=True).values())
                     if hasattr(est, "get_params") else [])
    return sorted({int(g.n_neighbors) for g in found if isinstance(g, KNNGraph)})


def _param_path(params, key):
    """The dotted path of ``key`` in a method's ``params`` (nested mappings), or None."""
    for name, value in params.items():
        if name == key:
            return name
        if isinstance(value, dict):
            sub = _param_path(value, key)
            if sub is not None:
                return f"{name}.{sub}"
    return None


def frozen(X):
    """A read-only copy of dense X (X itself if sparse): no learner may edit the data, and
    :func:`sskernels.graph.fingerprint` hashes a frozen array once, not on every fit."""
    if sp.issparse(X) or not isinstance(X, np.ndarray):
        return X
    X = np.array(X, copy=True)
    X.setflags(write=False)
    return X


def scale_targets(Y, how):
    """Regression targets (n, k) as the spec asks: ``None``/``"none"`` as stored, ``"minmax"``
    each column to [0, 1] over all n rows (the data set's extent, e.g. the WiFi floor's,
    known without any label of a split; a constant column becomes 0)."""
    Y = np.asarray(Y, dtype=float)
    if how in (None, "none"):
        return Y
    lo, span = Y.min(axis=0), np.ptp(Y, axis=0)
    return (Y - lo) / np.where(span > 0, span, 1.0)


def prepare_regression(spec, ds, n_splits=None):
    """A regression data set: targets scaled (``spec.target_scale``), labeled points drawn from
    the pool (the rows of the data set's official split, e.g. WiFi's 505 'src' points; every
    row without one), the pool's other rows are the test points, and every row outside the
    pool (WiFi's 2137 'tar' points) is an unlabeled point that is never evaluated."""
    Y = scale_targets(ds.y, getattr(spec, "target_scale", None))
    Y = Y.reshape(len(Y), -1)
    pool = np.asarray(ds.splits[0]) if ds.splits else np.arange(len(Y))
    s = spec.splits
    settings, labels = [], setting_labels(spec)
    for i, n_lab in enumerate(s.n_labeled):
        if not 2 <= n_lab < pool.size:
            raise UserError(f"{spec.path}: field 'splits.n_labeled': expected 2 to {pool.size - 1} "
                            f"(the labeled pool of {ds.name} has {pool.size} points; the others "
                            f"are the test points), got {n_lab}")
        settings.append((labels[i], regression_splits(pool, n_lab, n_splits or s.n_splits,
                                                      s.seed)))
    check_neighbours(spec, ds.X.shape[0])
    fp = data_fingerprint(ds.X, np.zeros(0, dtype=np.int64), [], extra=(Y, [pool]))
    return Prepared(spec, ds.X, Y, np.array([]), settings, data_fingerprint=fp,
                    task="regression", pool=pool)


def record_keys(prep):
    """The record key of each method of the spec, computed once and kept on ``prep``.

    key = hash(``method_key(spec, method)``, the data fingerprint, the method's code key):
    the code key hashes the code the method's task runs (:mod:`sskernels.experiment.tasks`,
    the split rules and its estimators' modules, with what they import; docstrings and
    comments excluded) and the library versions (:func:`method_code`).
    """
    if prep.keys is None:
        if prep.data_fingerprint is None:   # a Prepared built by hand (tests)
            prep.data_fingerprint = data_fingerprint(prep.X, prep.y, prep.classes,
                                                     extra=(prep.X_test, prep.y_test, None))
        if prep.runs is None:
            prep.runs = method_runs(prep.spec)
        prep.codes = [method_code(prep.spec, i) for i in range(len(prep.spec.methods))]
        prep.keys = [record_key(method_key(prep.spec, m), prep.data_fingerprint, code["code"])
                     for m, code in zip(prep.spec.methods, prep.codes)]
        prep.provenance = _provenance.provenance()
    return prep.keys


def method_code(spec, mi):
    """``{"code": key, "modules": {file: digest}}`` of the code method ``mi`` of ``spec``
    runs (:func:`sskernels.experiment.tasks.method_code_modules`, then
    :func:`sskernels.provenance.code_modules`, and a user's estimator's own module), with the
    estimator the registry built (:func:`sskernels.provenance.estimator_digest`) and the
    flags the task reads (:meth:`~sskernels.experiment.plan.MethodRun.flags`); the spec is
    not run and no data is loaded."""
    from sskernels.hashing import json_digest

    run = method_run(spec, mi)
    try:
        foreign = _provenance.foreign_modules(run.estimator)   # a user's estimator's module
    except (ValueError, TypeError) as exc:
        method = spec.methods[mi]
        raise UserError(f"{spec.path}: methods[{mi}] ({method.label}): {exc}") from None
    roots = method_code_modules(run.estimator, oracle=run.oracle)
    digests = {**_provenance.code_modules(roots), **foreign}
    built = {"estimator": _provenance.estimator_digest(run.estimator),
             "flags": json_digest(run.flags())}
    modules = {_provenance.module_path(m): d[:12] for m, d in digests.items()}
    return {"code": _provenance.key_of({**digests, **built}),
            "modules": {**modules, **{k: v[:12] for k, v in built.items()}}}


def warm_graphs(prep):
    """Build every graph and spectrum the methods will ask for; returns the seconds spent.

    Each estimator's public ``precompute(X)`` builds and memoizes its
    label-independent work (graph, spectrum), which worker processes then receive.
    """
    t0 = time.perf_counter()
    for i, method in enumerate(prep.spec.methods):
        try:
            est = build(prep.spec, method)
            pre = getattr(est, "precompute", None)   # scikit-learn's peers have none
            if pre is not None:
                pre(prep.X)
        except ValueError as exc:
            raise UserError(f"{prep.spec.path}: methods[{i}] ({method.label}): {exc}") from None
    return time.perf_counter() - t0


_STATE: Prepared | None = None


def artifact_items():
    """``{module: [(key, artifact)]}`` of every shared memo (:func:`sskernels.memo.shared_items`:
    graphs and spectra, deformation bases, RBF spectra), for the workers."""
    from sskernels.memo import shared_items

    return shared_items()


def clear_artifact_caches():
    """Empty every shared memo (a Dask worker before it rebuilds the driver's cache state for
    a warm-up: :func:`sskernels.experiment.dask_backend.warm_task`)."""
    from sskernels.memo import clear_shared

    clear_shared()


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

    if not hasattr(signal, "pthread_sigmask"):       # no signal masks (Windows)
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _load_state(path):
    """A worker's state for one spec (written by :meth:`WorkerPool.state_file`): the prepared
    data and the parent's label-independent artifacts, loaded once per spec."""
    global _STATE, _STATE_PATH
    from sskernels.memo import put_shared
    import pickle

    with open(path, "rb") as fh:
        state, artifacts = pickle.load(fh)
    _STATE = state
    _STATE.X = frozen(state.X)              # unpickled arrays come back writable
    for module, items in artifacts.items():
        for key, artifact in items:
            put_shared(module, key, artifact)
    _STATE_PATH = path


def _run_spec_task(item):
    """A worker's task: ``(state file, task)``; the state is loaded when the spec changes."""
    path, task = item
    if _STATE_PATH != path:
        _load_state(path)
    return _run_task(task)


_STATE_PATH = None


class WorkerPool:
    """Worker processes shared by every spec of one ``sskernels run`` (``--jobs N``).

    Started on first use, not once per spec: a spawned worker imports the package and its
    libraries (3 to 5 s of wall time per pool on this machine; Wang et al.'s 36 table specs
    paid it 36 times).  Each spec's prepared data and artifacts go to a state file the
    workers load when their next task belongs to another spec.  A context manager: leaving
    it terminates the workers and removes the state files.
    """

    #: local worker processes: used only when ``--jobs`` > 1 and there are several tasks
    local = True

    def __init__(self, jobs):
        self.jobs = int(jobs)
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
        """Write one spec's worker state; returns its path."""
        import os
        import pickle

        self.pool()
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
        """The records of ``tasks`` (in completion order), run by the workers."""
        stream = self.start(state, artifacts, tasks)
        try:
            for _ in range(len(tasks)):
                yield stream.next()
        finally:
            stream.close()

    def start(self, state, artifacts, tasks):
        """Queue ``tasks`` now, behind those queued before, and return their
        :class:`_Stream`."""
        path = self.state_file(state, artifacts)
        return _Stream(self.pool().imap_unordered(_run_spec_task, [(path, t) for t in tasks]),
                       path)

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
    """The records of tasks queued by :meth:`WorkerPool.start`: ``next(timeout=None)`` in
    completion order (``multiprocessing.TimeoutError`` after ``timeout`` seconds without
    one); ``close()`` once every record is in removes the spec's state file."""

    def __init__(self, it, path):
        self._it, self.path = it, path

    def next(self, timeout=None):
        return self._it.next(timeout)

    def close(self):
        import os

        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass


def worker_pool(backend="local", jobs=1, scheduler=None):
    """The workers of one ``sskernels run``: :class:`WorkerPool` for ``backend="local"``,
    :class:`~sskernels.experiment.dask_backend.DaskPool` for ``"dask"`` (a local cluster of
    ``jobs`` processes, or the scheduler at ``scheduler``).  Raises :class:`UserError` for
    options that do not go together, and when Dask is not installed."""
    if backend not in ("local", "dask"):
        raise UserError(f"--backend: expected local or dask, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise UserError(f"--scheduler {scheduler} needs --backend dask")
    if backend == "local":
        return WorkerPool(jobs)
    if scheduler is not None and jobs != 1:
        raise UserError(f"--jobs {jobs} does not apply with --scheduler: the scheduler's "
                        f"workers run the tasks (start as many as you want)")
    from sskernels.experiment.dask_backend import DaskPool

    return DaskPool(jobs, scheduler)


def _run_task(task, prep=None):
    """One record: method ``mi`` on split ``si`` of setting ``gi`` of ``prep`` (default: this
    process's state, :data:`_STATE`), computed by :func:`sskernels.experiment.tasks.run_task`
    and stamped with its key and provenance.

    A parameter the method refuses (:func:`~sskernels.errors.is_user_error`) is the user's:
    a one-line :class:`UserError` naming the spec, the method and the split.  Any other
    exception is ours: an :class:`~sskernels.errors.InternalError` carrying the traceback.
    """
    import traceback

    from sskernels.errors import InternalError, is_user_error

    mi, gi, si = task
    prep = _STATE if prep is None else prep
    if prep.runs is None:
        prep.runs = method_runs(prep.spec)
    spec, method = prep.spec, prep.spec.methods[mi]
    where = f"{spec.path}: methods[{mi}] ({method.label}), split {si}"
    try:
        rec = run_task(task, prep)
    except UserError:
        raise
    except Exception as exc:
        if is_user_error(exc):
            raise UserError(f"{where}: {exc}") from None
        raise InternalError(f"{where}: {type(exc).__name__}: {exc}",
                            traceback.format_exc()) from None
    keys = record_keys(prep)
    prov = prep.provenance or _provenance.provenance()
    return plain({**rec, "key": keys[mi], "data_fingerprint": prep.data_fingerprint,
                  "provenance": {**prov, **prep.codes[mi]}})


def run_spec(spec, jobs=1, progress=True, n_splits=None, console=None, reuse=True,
             workers=None, prepared=None):
    """Run (or resume) a spec; returns the records as a DataFrame.

    ``reuse``: a record another spec computed with the same key (same data, split protocol,
    method parameters and code; :class:`~sskernels.experiment.records.SharedRecords`, output
    folders beside this spec's) is copied instead of recomputed, relabeled for this spec,
    and says so (``reused_from``).  ``workers``: a :class:`WorkerPool` shared with other
    specs (None: one for this spec when ``jobs > 1``), or a Dask pool (:func:`worker_pool`),
    which then runs every task.  ``prepared``: this spec's :func:`prepare` (with the same
    ``n_splits``) when the caller already has it (``sskernels bench`` measures its floors on
    the same data: the data set is then loaded once, not twice).
    """
    global _STATE
    from threadpoolctl import threadpool_limits

    # One BLAS thread everywhere (parent and workers): the numbers then do not depend on
    # --jobs or on the machine's core count.  Spectra with near-degenerate eigenvalues, and
    # LPs with a face of optima (TSK), are otherwise sensitive to the summation order.
    # The exact k-NN search alone runs its row blocks on the --jobs cores (the workers are
    # idle during the warm-up); its graphs do not depend on the thread count (graph/knn.py).
    with threadpool_limits(1):
        run = _begin(spec, jobs, n_splits, reuse, workers, prepared)
        _STATE = run.prep
        try:
            run.done.extend(_execute(run.todo, run.prep, jobs, progress, console, workers))
        finally:
            _STATE = None
    return _frame(run)


@dataclass
class _Begun:
    """A spec made ready to run by :func:`_begin`: its prepared data, the tasks to compute
    and the records it already has (its own, or lent by a sibling spec)."""

    prep: Prepared
    todo: list
    done: list


def _begin(spec, jobs, n_splits, reuse, workers, prepared=None):
    """Everything of a run before its tasks (under the caller's one BLAS thread): claim the
    output, prepare the data, look up the records (resume, reuse), build the graphs and
    spectra (:func:`warm_graphs`) and write their seconds and the data fingerprint."""
    from sskernels.experiment.records import claim_output
    from sskernels.graph.knn import search_threads

    claim_output(spec)               # before any data is loaded or anything computed
    if prepared is not None and prepared.spec is not spec:
        raise ValueError("run_spec: prepared= was made for another spec")
    prep = prepare(spec, n_splits=n_splits) if prepared is None else prepared
    todo, done = _lookup(prep, reuse)
    remote = workers is not None and not workers.local
    if todo and remote:
        # on Dask the warm-up is a task on the cluster (its artifacts stay there)
        prep.graph_seconds, searches = workers.warm(prep)
        write_graph_seconds(spec.output, prep.graph_seconds, searches)
    elif todo:
        with search_threads(max(1, int(jobs))), graphs_used() as used:
            prep.graph_seconds = warm_graphs(prep)
        write_graph_seconds(spec.output, prep.graph_seconds,
                            graph_searches(prep.X, keys=used))
    # what `sskernels table` checks the record keys against (it does not load the data)
    write_data_fingerprint(spec.output, prep.data_fingerprint)
    return _Begun(prep, todo, done)


def _lookup(prep, reuse):
    """``(todo, done)`` of a prepared spec: its current records (and, with ``reuse``, those a
    sibling spec lends, copied here), the tasks without one."""
    from sskernels.experiment.archive import ArchivedRecords
    from sskernels.experiment.records import SharedRecords

    spec = prep.spec
    keys = record_keys(prep)
    shared = SharedRecords(spec.output) if reuse else None
    archived = ArchivedRecords(spec.output)
    todo, done = [], []
    for mi, method in enumerate(spec.methods):
        key = keys[mi]
        for gi, (setting, splits) in enumerate(prep.settings):
            for si in range(len(splits)):
                rec = read_record(spec.output, method.label, setting, si, key=key)
                if rec is None:           # the spec's committed archive (a fresh clone)
                    rec = _restored(archived.get(key, setting, si), spec, method)
                    if rec is not None:
                        rec = write_record(spec.output, rec)
                if rec is None and shared is not None:
                    rec = _reused(shared.get(key, setting, si), spec, method)
                    if rec is not None:
                        rec = write_record(spec.output, rec)
                if rec is None:
                    todo.append((mi, gi, si))
                else:
                    done.append(rec)
    archived.restore_files(spec.output)
    return todo, done


def _restored(rec, spec, method):
    """An archived record of this spec's (the same key), under the spec's current names."""
    if rec is None:
        return None
    if rec.get("method") == method.label and rec.get("spec") == spec.name:
        return rec
    return {**rec, "spec": spec.name, "table": spec.table or "",
            "dataset": spec.paper.dataset or spec.dataset.display, "method": method.label,
            "paper": method.paper}


def _frame(run):
    df = records_frame(run.done, run.prep.spec, run.prep.n_splits)
    df.attrs["graph_seconds"] = run.prep.graph_seconds
    return df


def run_specs(specs, jobs=1, progress=True, n_splits=None, console=None, reuse=True,
              workers=None):
    """``(spec, records)`` of each spec in order, as :func:`run_spec` gives them, with the
    specs overlapped on a local :class:`WorkerPool` (``jobs > 1``): while the workers run
    one spec's tasks, this process prepares the next spec (data, resume, graphs and spectra:
    :func:`_begin`, in a thread) and queues its tasks behind them, so that neither the
    warm-up nor a spec's last task leaves a core idle (Wang et al.'s 60 table specs: one
    core idle for a few seconds per spec).  The records, and every number in them, are
    those of the specs run one after the other: the same tasks on the same data, with one
    BLAS thread.  A spec whose record keys meet the running spec's (records it could reuse
    once written) is queued only after it, its records looked up again.  Otherwise (one job,
    Dask, one spec) the specs run one after the other."""
    specs = list(specs)
    if not (workers is not None and workers.local and jobs > 1 and len(specs) > 1):
        for spec in specs:
            yield spec, run_spec(spec, jobs=jobs, progress=progress, n_splits=n_splits,
                                 console=console, reuse=reuse, workers=workers)
        return
    from threadpoolctl import threadpool_limits

    def begin(spec):
        return _begin(spec, jobs, n_splits, reuse, workers)

    with threadpool_limits(1):
        ahead, before = _Ahead(begin, specs[0]), set()
        for i, spec in enumerate(specs):
            run, stream = ahead.result(), ahead.stream
            if stream is None and run.todo:
                if before & _todo_keys(run):       # looked up while they were computed
                    # look again, now that they are written; the data, graphs and spectra
                    # (and the warm-up's measured seconds) stay those of the first begin
                    run = _Begun(run.prep, *_lookup(run.prep, reuse))
                if run.todo:
                    stream = workers.start(run.prep, workers.artifacts(), run.todo)
            ahead = _Ahead(begin, specs[i + 1]) if i + 1 < len(specs) else None
            before = set(record_keys(run.prep))
            run.done.extend(_drain(run, stream, progress, console, ahead, workers, before))
            yield spec, _frame(run)


def _todo_keys(run):
    keys = record_keys(run.prep)
    return {keys[mi] for mi, _, _ in run.todo}


class _Ahead:
    """The next spec's :func:`_begin` in a thread (a daemon: Ctrl-C does not wait for it);
    ``stream``: its tasks once queued."""

    def __init__(self, begin, spec):
        import threading

        self.stream, self._out, self._exc, self._queueable = None, None, None, None

        def target():
            try:
                self._out = begin(spec)
            except BaseException as exc:       # raised again in the caller's thread
                self._exc = exc

        self._thread = threading.Thread(target=target, daemon=True,
                                        name=f"sskernels-begin-{spec.name}")
        self._thread.start()

    def ready(self):
        """Begun without error (its tasks can be queued)."""
        return not self._thread.is_alive() and self._exc is None

    def queueable(self, keys):
        """Begun without error, not queued yet, with tasks none of whose keys is in ``keys``
        (decided once, when begun)."""
        if self.stream is not None or not self.ready():
            return False
        if self._queueable is None:
            self._queueable = bool(self._out.todo) and not keys & _todo_keys(self._out)
        return self._queueable

    def result(self):
        self._thread.join()
        if self._exc is not None:
            raise self._exc
        return self._out


def _drain(run, stream, progress, console, ahead, workers, keys):
    """Write ``run``'s records as its ``stream`` gives them; meanwhile queue the tasks of
    ``ahead`` (the next spec) once it is begun, unless its keys meet ``keys`` (``run``'s)."""
    out = []
    with _bar(run.prep.spec, run.todo, progress, console) as advance:
        for _ in range(len(run.todo) if stream is not None else 0):
            while True:
                if ahead is not None and ahead.queueable(keys):
                    nxt = ahead.result()
                    ahead.stream = workers.start(nxt.prep, workers.artifacts(), nxt.todo)
                try:
                    rec = stream.next(timeout=0.25)
                    break
                except mp.TimeoutError:
                    continue
            rec = write_record(run.prep.spec.output, rec)
            out.append(rec)
            advance()
    if stream is not None:
        stream.close()
    return out


def pending_tasks(prep):
    """The ``(mi, gi, si)`` of ``prep`` that have no current record in the spec's output or
    its archive (what a run would compute; records a sibling spec could lend are not looked
    up)."""
    from sskernels.experiment.archive import ArchivedRecords

    keys = record_keys(prep)
    out = prep.spec.output
    archived = ArchivedRecords(out)
    return [(mi, gi, si) for mi, method in enumerate(prep.spec.methods)
            for gi, (setting, splits) in enumerate(prep.settings)
            for si in range(len(splits))
            if read_record(out, method.label, setting, si, key=keys[mi]) is None
            and archived.get(keys[mi], setting, si) is None]


def _reused(rec, spec, method):
    """A sibling spec's record (same key: the same computation) relabeled for ``spec``'s
    ``method``, with ``reused_from`` naming its origin; None for None."""
    if rec is None:
        return None
    origin = rec.get("reused_from") or {"spec": rec.get("spec"), "method": rec.get("method")}
    return {**rec, "spec": spec.name, "table": spec.table or "",
            "dataset": spec.paper.dataset or spec.dataset.display, "method": method.label,
            "paper": method.paper, "reused_from": origin}


def _execute(todo, prep, jobs, progress, console, workers=None):
    """Run ``todo`` on ``prep`` (passed, not read from :data:`_STATE`: two specs may run
    at once in threads of one process, e.g. scripts/secstr_table.py); write each record."""
    spec = prep.spec
    out = []
    with _bar(spec, todo, progress, console) as advance:
        remote = workers is not None and not workers.local     # Dask: every task there
        if todo and (remote or (jobs > 1 and len(todo) > 1)):
            own = workers is None
            pool = WorkerPool(min(jobs, len(todo))) if own else workers
            try:
                for rec in pool.imap(prep, pool.artifacts(), todo):
                    rec = write_record(spec.output, rec)
                    out.append(rec)
                    advance()
            finally:
                if own:
                    pool.close()
        else:
            for t in todo:
                rec = write_record(spec.output, _run_task(t, prep))
                out.append(rec)
                advance()
    return out


@contextmanager
def _bar(spec, todo, progress, console):
    """A spec's progress bar (on a terminal, with ``progress``); yields its advance()."""
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn)

    bar_console = console or Console(stderr=True)
    bar = Progress(TextColumn(f"[bold]{spec.name}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=bar_console, transient=False,
                   disable=not progress or not todo or not bar_console.is_terminal)
    with bar:
        task = bar.add_task("run", total=len(todo))
        yield lambda: bar.advance(task)


def records_frame(records, spec, n_splits):
    """Long-format records: one row per (method, split, metric), limited to the spec's splits."""
    rows = []
    order = {m.label: i for i, m in enumerate(spec.methods)}
    for r in records:
        if r["split"] >= n_splits or r["method"] not in order:
            continue
        for metric, value in r["metrics"].items():
            rows.append({**{k: r[k] for k in ("table", "dataset", "setting", "method", "paper",
                                              "split", "seconds", "n_labeled")},
                         "metric": metric, "value": value, "order": order[r["method"]],
                         "report": r.get("report"), "oracle": r.get("oracle"),
                         "selected": r.get("selected")})
    df = pd.DataFrame(rows)
    if not df.empty:
        df = df.sort_values(["n_labeled", "order", "split"]).reset_index(drop=True)
        for method in spec.methods:
            if getattr(method, "pick", None) == "mean":
                df = best_on_average(df, method.label)
    return df


def best_on_average(df, label):
    """``select: oracle-mean``: the rows of method ``label`` with, in each setting, the one
    grid candidate whose accuracy on the unlabeled points is best on average over the splits
    (ties: the first in grid order), instead of each split's own best (the per-split oracle's
    records hold every candidate's accuracy).  Mao & Tsang, Sec. 5.3: "we report the best
    average results over the 10 random splits on the grid".  ``accuracy`` and ``error`` are
    replaced (any other metric is refused by the spec) and ``selected`` names the candidate."""
    mine = df["method"] == label
    for setting in df.loc[mine, "setting"].unique():
        rows = df.index[mine & (df["setting"] == setting)]
        first = df.loc[rows].drop_duplicates("split")["oracle"]
        if any(not isinstance(o, dict) or "accuracy" not in o for o in first):
            raise UserError(f"{label}: select oracle-mean needs the per-split oracle's "
                            "records (every candidate's accuracy); a record lacks them")
        acc = np.array([o["accuracy"] for o in first], dtype=float)   # splits x candidates
        if acc.ndim != 2:
            raise UserError(f"{label}: the splits' oracle grids differ; no common candidate")
        best = int(np.argmax(acc.mean(axis=0)))          # argmax: the first of ties
        params = next(iter(first))["params"][best]
        by_split = dict(zip(df.loc[rows].drop_duplicates("split")["split"], acc[:, best]))
        for i in rows:
            value = by_split[df.at[i, "split"]]
            metric = df.at[i, "metric"]
            if metric == "accuracy":
                df.at[i, "value"] = value
            elif metric == "error":
                df.at[i, "value"] = 100.0 - value
            else:
                raise UserError(f"{label}: select oracle-mean knows each candidate's accuracy "
                                f"only, not its {metric}")
            df.at[i, "selected"] = {**(df.at[i, "selected"] or {}), **params}
    return df


def setting_labels(spec):
    """The settings' labels, without loading the data (official splits: read from records).

    ``"N labeled"``; for protocol per-class the counts in sorted label order, e.g.
    ``"10/20 labeled"`` (the record's ``n_labeled`` is their sum, 30).
    """
    s = spec.splits
    if s.protocol == "official":
        return None
    if s.per_class:
        return ["/".join(map(str, counts)) + " labeled" for counts in s.per_class]
    return [f"{n} labeled" for n in s.n_labeled]


def load_records(spec, n_splits=None):
    """The records already written for a spec, as a DataFrame, without running anything.

    The data are not loaded: the record keys are made with the data fingerprint
    the last run stored in ``<output>/data_fingerprint.json`` and the code each method
    runs now (:func:`method_code`).  Raises :class:`UserError` when any record is stale
    (made by other code or other data; every record is stale when the fingerprint file
    is absent), naming the modules whose code changed, or when there is no record at
    all.  Splits not run yet (``run --splits N``) are left out, as the summary's
    ``n_splits`` column shows.
    """
    import json
    from pathlib import Path

    from sskernels.experiment.archive import ArchivedRecords
    from sskernels.experiment.records import _safe, record_path

    n = n_splits or spec.splits.n_splits
    archived = ArchivedRecords(spec.output)
    archived.restore_files(spec.output)          # what a fresh clone has only archived
    fp = read_data_fingerprint(spec.output)
    recs, stale, changed = [], 0, set()
    for mi, method in enumerate(spec.methods):
        code = method_code(spec, mi)
        # without a fingerprint no key can match: every existing record is stale
        key = (record_key(method_key(spec, method), fp, code["code"]) if fp
               else "no data fingerprint")
        labels = setting_labels(spec)
        if labels is None:
            root = Path(spec.output) / "records" / _safe(method.label)
            paths = sorted(root.glob("*/split_*.json")) if root.is_dir() else []
            labels = sorted({json.loads(p.read_text()).get("setting") for p in paths[:1]} - {None})
            labels = labels or archived.settings(key)
        for setting in labels:
            for si in range(n):
                state, rec = record_state(spec.output, method.label, setting, si, key=key)
                if state != "current":      # the committed archive (a fresh clone)
                    restored = _restored(archived.get(key, setting, si), spec, method)
                    if restored is not None:
                        state, rec = "current", write_record(spec.output, restored)
                stale += state == "stale"
                if state == "stale" and fp:
                    changed.update(_changed_code(record_path(spec.output, method.label,
                                                             setting, si), code))
                if rec is not None:
                    recs.append(rec)
    rerun = f"rerun `sskernels run {spec.path}`"
    if stale:
        why = (f"code changed in {', '.join(sorted(changed))}" if changed else
               "made by other code, library versions or data")
        raise UserError(f"{spec.path}: {stale} record(s) under {spec.output} are stale "
                        f"({why}); {rerun}")
    if not recs:
        raise UserError(f"{spec.path}: no records under {spec.output} (missing); {rerun}")
    return records_frame(recs, spec, n)


def _changed_code(path, code):
    """The files whose code differs between a stale record (at ``path``) and ``code`` (the
    method's code now, :func:`method_code`); empty when the record does not say."""
    import json

    from sskernels.provenance import changed_modules

    try:
        old = json.loads(path.read_text()).get("provenance", {}).get("modules")
    except (OSError, ValueError, AttributeError):
        return []
    return changed_modules(old, code["modules"]) if isinstance(old, dict) else []
