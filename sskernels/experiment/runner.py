"""Run a spec: plan its tasks, schedule them on an executor, write the records as they finish.

This module only plans and schedules.  :func:`run_spec` claims the spec's output, prepares the
data (:mod:`sskernels.experiment.preparation`), looks up the records it already has -- its own,
its committed archive's (:mod:`sskernels.experiment.archive`), or a sibling spec's with the
same key -- (:func:`_lookup`), does the label-independent work once
(:func:`sskernels.experiment.worker.warm_graphs`: graphs, spectra and bases, in this process,
or on the cluster for ``--backend dask``) and hands the tasks still to run to an executor
(:mod:`sskernels.experiment.executors`: local worker processes, a Dask cluster, or none for
one job), writing each record as it comes back: this process alone writes the records
(atomically, :mod:`sskernels.experiment.records`).  :func:`run_specs` overlaps several specs
on one local executor.

A record is reused only when its key matches: the key hashes the spec parts of
the method, the content of the prepared data and the code and library versions
(:mod:`sskernels.experiment.identity`), so neither an edited data
file nor a change of the code ever brings old numbers back.

:func:`dry_run` looks the records up as a run would and says, per method, how many it would
compute and why (the reasons of :func:`sskernels.experiment.identity.stale_reasons`),
computing nothing.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

from sskernels.errors import UserError
from sskernels.experiment.artifacts import open_store, store_note
from sskernels.experiment.collect import records_frame, restored, reused
from sskernels.experiment.executors import LocalExecutor
from sskernels.experiment.plan import fitted_points, method_runs, record_keys
from sskernels.experiment.preparation import Prepared, prepare
from sskernels.experiment.records import (
    read_record,
    write_data_fingerprint,
    write_graph_seconds,
    write_record,
)
from sskernels.experiment.worker import graph_points, run_record, warm_graphs
from sskernels.graph import graph_searches, graphs_used


def run_spec(
    spec,
    jobs=1,
    progress=True,
    n_splits=None,
    console=None,
    reuse=True,
    workers=None,
    prepared=None,
):
    """Run (or resume) a spec; returns the records as a DataFrame.

    ``reuse``: a record another spec computed with the same key (same data, split protocol,
    method parameters and code; :class:`~sskernels.experiment.records.SharedRecords`, output
    folders beside this spec's) is copied instead of recomputed, relabeled for this spec,
    and says so (``reused_from``).  ``workers``: an executor shared with other specs
    (:func:`~sskernels.experiment.executors.make_executor`; None: a
    :class:`~sskernels.experiment.executors.LocalExecutor` for this spec when ``jobs > 1``),
    or a Dask pool, which then runs every task.  ``prepared``: this spec's :func:`prepare`
    (with the same ``n_splits``) when the caller already has it (``sskernels bench`` measures
    its floors on the same data: the data set is then loaded once, not twice).

    The output folder is claimed first
    (:func:`~sskernels.experiment.records.claim_output`); a record already there with the
    current key, or in the spec's committed archive, is read back, not recomputed.  Every
    record is written as it is computed, so an interrupted run resumes where it stopped.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    jobs : int, default=1
        Worker processes for the tasks (and threads for the exact k-NN search).
    progress : bool, default=True
        Show a progress bar (on a terminal).
    n_splits : int, default=None
        The number of splits run per setting; None: the spec's ``splits.n_splits``.
    console : rich.console.Console, default=None
        Where the progress bar goes; None: standard error.
    reuse : bool, default=True
        Copy the records sibling specs computed with the same key.
    workers : Executor, default=None
        An executor shared with other specs, or None.
    prepared : Prepared, default=None
        This spec's :func:`prepare`, or None to prepare it here.

    Returns
    -------
    pandas.DataFrame
        The records in long format
        (:func:`~sskernels.experiment.collect.records_frame`); ``attrs["graph_seconds"]``
        holds the seconds of the label-independent work.

    Raises
    ------
    UserError
        One line for the user's errors: an output folder refused, sizes the data cannot
        give (:class:`~sskernels.errors.SpecError`), a parameter a method refuses.
    InternalError
        For any other exception of a fit (:class:`~sskernels.errors.InternalError`, with its
        traceback).
    ValueError
        When ``prepared`` was made for another spec.

    Examples
    --------
    >>> import tempfile
    >>> from sskernels.experiment import run_spec
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10, 20]},
    ...                    "methods": ["harmonic"], "output": tempfile.mkdtemp() + "/demo"})
    >>> df = run_spec(spec, progress=False)
    >>> df["setting"].unique().tolist(), df["split"].tolist(), df["metric"].unique().tolist()
    (['10 labeled', '20 labeled'], [0, 1, 0, 1], ['accuracy'])
    >>> again = run_spec(spec, progress=False)      # resumed: every record read back
    >>> again["value"].tolist() == df["value"].tolist()
    True
    """
    from threadpoolctl import threadpool_limits

    # One BLAS thread everywhere (parent and workers): the numbers then do not depend on
    # --jobs or on the machine's core count.  Spectra with near-degenerate eigenvalues, and
    # LPs with a face of optima (TSK), are otherwise sensitive to the summation order.
    # The exact k-NN search alone runs its row blocks on the --jobs cores (the workers are
    # idle during the warm-up); its graphs do not depend on the thread count (graph/search.py).
    with threadpool_limits(1):
        run = _begin(spec, jobs, n_splits, reuse, workers, prepared)
        run.done.extend(_execute(run.todo, run.prep, jobs, progress, console, workers))
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
    from sskernels.graph.search import search_threads

    claim_output(spec)  # before any data is loaded or anything computed
    if prepared is not None and prepared.spec is not spec:
        raise ValueError("run_spec: prepared= was made for another spec")
    prep = prepare(spec, n_splits=n_splits) if prepared is None else prepared
    todo, done = _lookup(prep, reuse)
    remote = workers is not None and not workers.local
    if todo:
        _check_extras(prep, todo)
    if todo and not remote:  # a cluster's memory is its own; this machine's is known
        _check_memory(prep, todo, jobs)
    if todo and remote:
        # on Dask the warm-up is a task on the cluster (its artifacts stay there)
        prep.graph_seconds, searches = workers.warm(prep)
        write_graph_seconds(spec.output, prep.graph_seconds, searches)
    elif todo:
        points = graph_points(prep)
        store = open_store(points, max(1, int(jobs)))
        t0 = time.perf_counter()
        if store is not None:  # the graphs an earlier run left (module artifacts)
            store.restore()
            store.mark()
        with search_threads(max(1, int(jobs))), graphs_used() as used:
            warm = warm_graphs(prep)
        prep.graph_seconds = warm if store is None else time.perf_counter() - t0
        write_graph_seconds(
            spec.output,
            prep.graph_seconds,
            graph_searches(points, keys=used),
            artifacts=None if store is None else store_note(store, store.save(), used),
        )
    # what `sskernels table` checks the record keys against (it does not load the data)
    write_data_fingerprint(spec.output, prep.data_fingerprint, fitted_points(prep))
    return _Begun(prep, todo, done)


def _check_extras(prep, todo):
    """Refuse in one line, before the warm-up, a method whose graph needs a library of an
    extra that is not installed (:func:`sskernels.experiment.plan.missing_extras`)."""
    from sskernels.experiment.plan import missing_extras

    spec, points = prep.spec, fitted_points(prep)
    runs = prep.runs if prep.runs is not None else method_runs(spec, prep.X_extra)
    for mi in sorted({mi for mi, _, _ in todo}):
        for what, lib, extra in missing_extras(runs[mi].estimator, points):
            raise UserError(
                f"{spec.path}: methods[{mi}] ({spec.methods[mi].label}): {what} on "
                f"{spec.dataset.display} (n = {points[0]}) needs {lib}, which is not "
                f"installed: pip install 'sskernels[{extra}]'"
            )


def _check_memory(prep, todo, jobs):
    """Refuse in one line, before the warm-up, a method whose dense n x n matrices cannot fit
    in this machine's memory (:func:`sskernels.experiment.plan.dense_bytes`, a lower bound),
    counted once per process that fits at once (``jobs``, at most the method's tasks)."""
    from sskernels.experiment.plan import dense_bytes
    from sskernels.faults import check_dense_memory

    spec = prep.spec
    n = fitted_points(prep)[0]
    runs = prep.runs if prep.runs is not None else method_runs(spec, prep.X_extra)
    for mi in sorted({mi for mi, _, _ in todo}):
        need, what, avoid = dense_bytes(runs[mi].estimator, n)
        tasks = sum(1 for t in todo if t[0] == mi)
        check_dense_memory(
            f"{spec.path}: methods[{mi}] ({spec.methods[mi].label}) on "
            f"{spec.dataset.display} (n = {n})",
            need,
            what,
            avoid,
            processes=max(1, min(int(jobs), tasks)),
        )


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
                if rec is None:  # the spec's committed archive (a fresh clone)
                    rec = restored(archived.get(key, setting, si), spec, method)
                    if rec is not None:
                        rec = write_record(spec.output, rec)
                if rec is None and shared is not None:
                    rec = reused(shared.get(key, setting, si), spec, method)
                    if rec is not None:
                        rec = write_record(spec.output, rec)
                if rec is None:
                    todo.append((mi, gi, si))
                else:
                    done.append(rec)
    archived.restore_files(spec.output)
    return todo, done


def _frame(run):
    df = records_frame(run.done, run.prep.spec, run.prep.n_splits)
    df.attrs["graph_seconds"] = run.prep.graph_seconds
    return df


def run_specs(specs, jobs=1, progress=True, n_splits=None, console=None, reuse=True, workers=None):
    """``(spec, records)`` of each spec in order, as :func:`run_spec` gives them.

    The specs are overlapped on a local executor (``jobs > 1``): while the workers run
    one spec's tasks, this process prepares the next spec (data, resume, graphs and spectra:
    :func:`_begin`, in a thread, :class:`_Ahead`) and queues its tasks behind them, so that
    neither the warm-up nor a spec's last task leaves a core idle.  The records, and every
    number in them, are those of the specs run one after the other: the same tasks on the
    same data, with one BLAS thread.  A spec whose record keys meet the running spec's
    (records it could reuse once written) is queued only after it, its records looked up
    again.  Otherwise (one job, Dask, one spec) the specs run one after the other.

    Parameters
    ----------
    specs : iterable of Spec
        The experiment specs.
    jobs : int, default=1
        Worker processes (the overlap needs a local executor in ``workers`` and
        ``jobs > 1``).
    progress : bool, default=True
        Show a progress bar per spec (on a terminal).
    n_splits : int, default=None
        The number of splits run per setting; None: each spec's ``splits.n_splits``.
    console : rich.console.Console, default=None
        Where the progress bars go; None: standard error.
    reuse : bool, default=True
        Copy the records sibling specs computed with the same key.
    workers : Executor, default=None
        The executor every spec shares
        (:func:`~sskernels.experiment.executors.make_executor`), or None.

    Yields
    ------
    spec : Spec
        The spec run.
    records : pandas.DataFrame
        Its records, as :func:`run_spec` returns them.

    Raises
    ------
    UserError
        As :func:`run_spec`, for the spec at hand (the specs before it are done and
        recorded).
    InternalError
        As :func:`run_spec`.

    Examples
    --------
    >>> import tempfile
    >>> from sskernels.experiment import run_specs
    >>> from sskernels.spec import parse_spec
    >>> out = tempfile.mkdtemp()
    >>> specs = [parse_spec({"name": name, "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                      "splits": {"n_splits": 2, "n_labeled": [10]}, "methods": ["harmonic"],
    ...                      "output": f"{out}/{name}"}) for name in ("first", "second")]
    >>> [(spec.name, len(df)) for spec, df in run_specs(specs, progress=False)]
    [('first', 2), ('second', 2)]
    """
    specs = list(specs)
    if not (workers is not None and workers.local and jobs > 1 and len(specs) > 1):
        for spec in specs:
            yield (
                spec,
                run_spec(
                    spec,
                    jobs=jobs,
                    progress=progress,
                    n_splits=n_splits,
                    console=console,
                    reuse=reuse,
                    workers=workers,
                ),
            )
        return
    from threadpoolctl import threadpool_limits

    def begin(spec):
        return _begin(spec, jobs, n_splits, reuse, workers)

    with threadpool_limits(1):
        ahead, before = _Ahead(begin, specs[0]), set()
        for i, spec in enumerate(specs):
            run, stream = ahead.result(), ahead.stream
            if stream is None and run.todo:
                if before & _todo_keys(run):  # looked up while they were computed
                    # look again, now that they are written; the data, graphs and spectra
                    # (and the warm-up's measured seconds) stay those of the first begin
                    run = _Begun(run.prep, *_lookup(run.prep, reuse))
                if run.todo:
                    stream = workers.start(run.prep, workers.artifacts(), run.todo)
            before = set(record_keys(run.prep))
            ahead = _Ahead(begin, specs[i + 1], workers, before) if i + 1 < len(specs) else None
            run.done.extend(_drain(run, stream, progress, console))
            yield spec, _frame(run)


def _todo_keys(run):
    keys = record_keys(run.prep)
    return {keys[mi] for mi, _, _ in run.todo}


class _Ahead:
    """The next spec's :func:`_begin` in a thread (a daemon: Ctrl-C does not wait for it),
    which then queues the spec's tasks on ``workers`` behind those queued before, unless one
    of their keys is in ``keys`` (the running spec's: records it could reuse once written,
    looked up again by the caller after them); ``stream``: its tasks once queued.  Without
    ``workers`` it only begins."""

    def __init__(self, begin, spec, workers=None, keys=frozenset()):
        import threading

        self.stream, self._out, self._exc = None, None, None

        def target():
            try:
                out = self._out = begin(spec)
                if workers is not None and out.todo and not keys & _todo_keys(out):
                    self.stream = workers.start(out.prep, workers.artifacts(), out.todo)
            except BaseException as exc:  # raised again in the caller's thread
                self._exc = exc

        self._thread = threading.Thread(
            target=target, daemon=True, name=f"sskernels-begin-{spec.name}"
        )
        self._thread.start()

    def result(self):
        self._thread.join()
        if self._exc is not None:
            raise self._exc
        return self._out


def _drain(run, stream, progress, console):
    """Write ``run``'s records as its ``stream`` gives them (in completion order)."""
    out = []
    with _bar(run.prep.spec, run.todo, progress, console) as advance:
        for _ in range(len(run.todo) if stream is not None else 0):
            rec = write_record(run.prep.spec.output, stream.next())
            out.append(rec)
            advance()
    if stream is not None:
        stream.close()
    return out


def pending_tasks(prep):
    """The tasks ``(mi, gi, si)`` of ``prep`` that have no current record.

    No current record in the spec's output or its archive: what a run would compute
    (records a sibling spec could lend are not looked up).

    Parameters
    ----------
    prep : Prepared
        The spec's prepared data (:func:`~sskernels.experiment.preparation.prepare`).

    Returns
    -------
    list of tuple of int
        ``(mi, gi, si)``: method, setting and split of each task without a record, in the
        spec's order.

    Raises
    ------
    UserError
        For a parameter an estimator refuses (its record key cannot be made).

    Examples
    --------
    >>> import tempfile
    >>> from sskernels.experiment import pending_tasks, prepare, run_spec
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]}, "methods": ["harmonic"],
    ...                    "output": tempfile.mkdtemp() + "/demo"})
    >>> prep = prepare(spec)
    >>> pending_tasks(prep)
    [(0, 0, 0), (0, 0, 1)]
    >>> _ = run_spec(spec, progress=False)
    >>> pending_tasks(prep)
    []
    """
    from sskernels.experiment.archive import ArchivedRecords

    keys = record_keys(prep)
    out = prep.spec.output
    archived = ArchivedRecords(out)
    return [
        (mi, gi, si)
        for mi, method in enumerate(prep.spec.methods)
        for gi, (setting, splits) in enumerate(prep.settings)
        for si in range(len(splits))
        if read_record(out, method.label, setting, si, key=keys[mi]) is None
        and archived.get(keys[mi], setting, si) is None
    ]


def dry_run(specs, n_splits=None, reuse=True):
    """What ``sskernels run`` would compute for ``specs``, and why, computing nothing.

    Each spec's data are prepared (loaded, split and fingerprinted: the data part of the
    keys) and its record keys planned; every (method, setting, split) is then looked up as
    :func:`run_spec` looks it up -- the output folder, the committed archive, a sibling
    spec's record with the same key (``reuse``) -- and a record it would compute gets the
    reasons of :func:`~sskernels.experiment.identity.stale_reasons` (``new``, ``data
    changed``, ``code of FILE changed``, ``parameters changed``, ``versions changed``),
    from the stale record at that place (the output folder's, else the archive's).  Nothing
    is fitted or written.

    Parameters
    ----------
    specs : iterable of Spec or path-like
        The experiment specs (a path is loaded with :func:`sskernels.spec.load_spec`).
    n_splits : int, default=None
        The number of splits per setting; None: each spec's ``splits.n_splits``.
    reuse : bool, default=True
        Count the records a sibling spec would lend as kept (``run --no-reuse``: False).

    Returns
    -------
    pandas.DataFrame
        One row per (spec, method, reason): ``spec``, ``path``, ``method``, ``compute``
        (whether a run computes these records), ``reason`` (for those kept: ``current``,
        ``in the archive`` or ``from a sibling spec``) and ``records`` (their number).
        :func:`~sskernels.experiment.identity.dry_run_text` prints it.

    Examples
    --------
    >>> import tempfile
    >>> from sskernels.experiment.runner import dry_run, run_spec
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]}, "methods": ["harmonic"],
    ...                    "output": tempfile.mkdtemp() + "/demo"})
    >>> dry_run([spec])[["method", "compute", "reason", "records"]].values.tolist()
    [['harmonic', True, 'new', 2]]
    >>> _ = run_spec(spec, progress=False)
    >>> dry_run([spec])[["method", "compute", "reason", "records"]].values.tolist()
    [['harmonic', False, 'current', 2]]
    """
    import pandas as pd

    from sskernels.experiment.archive import ArchivedRecords
    from sskernels.experiment.identity import stale_reasons, wanted_parts
    from sskernels.experiment.records import SharedRecords, stored_record
    from sskernels.spec import load_spec

    rows = []
    for spec in specs:
        if not hasattr(spec, "methods"):
            spec = load_spec(spec)
        prep = prepare(spec, n_splits=n_splits)
        keys = record_keys(prep)
        shared = SharedRecords(spec.output) if reuse else None
        archived = ArchivedRecords(spec.output)
        counts = {}
        for mi, method in enumerate(spec.methods):
            wanted, key = wanted_parts(prep, mi), keys[mi]
            for setting, splits in prep.settings:
                for si in range(len(splits)):
                    stored = stored_record(spec.output, method.label, setting, si)
                    if stored is not None and stored.get("key") == key:
                        group = (False, "current")
                    elif archived.get(key, setting, si) is not None:
                        group = (False, "in the archive")
                    elif shared is not None and shared.get(key, setting, si) is not None:
                        group = (False, "from a sibling spec")
                    else:
                        if stored is None:
                            stored = archived.at(method.label, setting, si)
                        group = (True, "; ".join(stale_reasons(stored, wanted)))
                    counts[(method.label, *group)] = counts.get((method.label, *group), 0) + 1
        rows += [
            (spec.name, str(spec.path), label, compute, reason, n)
            for (label, compute, reason), n in counts.items()
        ]
    return pd.DataFrame(rows, columns=["spec", "path", "method", "compute", "reason", "records"])


def _execute(todo, prep, jobs, progress, console, workers=None):
    """Run ``todo`` on ``prep`` (on ``workers``, on a local executor of its own for
    ``jobs > 1``, else in this process); write each record."""
    spec = prep.spec
    out = []
    with _bar(spec, todo, progress, console) as advance:
        remote = workers is not None and not workers.local  # Dask: every task there
        if todo and (remote or (jobs > 1 and len(todo) > 1)):
            own = workers is None
            pool = LocalExecutor(min(jobs, len(todo))) if own else workers
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
                rec = write_record(spec.output, run_record(t, prep))
                out.append(rec)
                advance()
    return out


@contextmanager
def _bar(spec, todo, progress, console):
    """A spec's progress bar (on a terminal, with ``progress``); yields its advance()."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar_console = console or Console(stderr=True)
    # elapsed, then the time left (rich's estimate from the recent pace of finished tasks)
    bar = Progress(
        TextColumn(f"[bold]{spec.name}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=bar_console,
        transient=False,
        disable=not progress or not todo or not bar_console.is_terminal,
    )
    with bar:
        task = bar.add_task("run", total=len(todo))
        yield lambda: bar.advance(task)
