"""The worker side of a run: what every executor (local processes, a Dask cluster) runs.

:func:`warm_graphs` does a spec's label-independent work (graphs, spectra, bases) through
each estimator's public ``precompute``; :func:`artifact_items` and :func:`load_artifacts`
hand what it memoized (the shared memos of :mod:`sskernels.memo`) from the process that made
it to the workers; :func:`run_record` runs one task (:func:`sskernels.experiment.tasks.run_task`)
and stamps its record with the key and provenance, turning a parameter the method refuses
into one line for the user and any other exception into an internal error with its
traceback.
"""

from __future__ import annotations

import time

from sskernels import provenance as _provenance
from sskernels.errors import UserError
from sskernels.experiment.plan import build, fitted_points, method_runs, record_keys
from sskernels.experiment.records import plain
from sskernels.experiment.tasks import run_task


def warm_graphs(prep):
    """Build every graph and spectrum the methods will ask for; returns the seconds spent.

    Each estimator's public ``precompute(X)`` builds and memoizes its
    label-independent work (graph, spectrum), which worker processes then receive.
    An estimator without ``precompute`` (scikit-learn's) is skipped.

    Parameters
    ----------
    prep : Prepared
        The spec's prepared data (:func:`~sskernels.experiment.preparation.prepare`).

    Returns
    -------
    float
        The seconds spent.

    Raises
    ------
    UserError
        For a parameter a method refuses (``ValueError``), naming the method.

    Examples
    --------
    >>> from sskernels.experiment import prepare, warm_graphs
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]}, "methods": ["harmonic"]})
    >>> seconds = warm_graphs(prepare(spec))
    >>> seconds >= 0
    True
    """
    t0 = time.perf_counter()
    for i, method in enumerate(prep.spec.methods):
        try:
            est = build(prep.spec, method, prep.X_extra)
            pre = getattr(est, "precompute", None)  # scikit-learn's peers have none
            if pre is not None:
                pre(prep.X)
        except ValueError as exc:
            raise UserError(f"{prep.spec.path}: methods[{i}] ({method.label}): {exc}") from None
        except (MemoryError, OSError) as exc:  # the machine's limit, named (faults.py)
            from sskernels.faults import environment_fault

            n = fitted_points(prep)[0]
            fault = environment_fault(
                exc,
                f"{prep.spec.path}: methods[{i}] ({method.label}) on "
                f"{prep.spec.dataset.display} (n = {n}), its graph and spectrum (the "
                "warm-up, before any split)",
            )
            if fault is None:
                raise
            fault.detail = chained_traceback(exc)
            raise fault from None
    return time.perf_counter() - t0


def graph_points(prep):
    """The points the spec's graphs are built on: ``prep.X``, followed by the data set's
    extra unlabeled points when it has them (what :func:`sskernels.graph.graph_searches`
    matches the graphs by).

    Parameters
    ----------
    prep : Prepared
        The spec's prepared data.

    Returns
    -------
    array-like or sparse matrix
        The points.
    """
    if getattr(prep, "X_extra", None) is None:
        return prep.X
    from sskernels.learners.extra_unlabeled import with_extra

    return with_extra(prep.X, prep.X_extra)


def artifact_items():
    """``{module: [(key, artifact)]}`` of every shared memo (:func:`sskernels.memo.shared_items`:
    graphs and spectra, deformation bases, RBF spectra), for the workers."""
    from sskernels.memo import shared_items

    return shared_items()


def load_artifacts(artifacts):
    """Put ``artifacts`` into this process's shared memos.

    ``artifacts`` is :func:`artifact_items` of another process.

    Parameters
    ----------
    artifacts : dict
        ``{module: [(key, artifact)]}`` (:func:`artifact_items`).
    """
    from sskernels.memo import put_shared

    for module, items in artifacts.items():
        for key, artifact in items:
            put_shared(module, key, artifact)


def clear_artifact_caches():
    """Empty every shared memo (a Dask worker before it rebuilds the driver's cache state for
    a warm-up: :func:`sskernels.experiment.dask_backend.warm_task`)."""
    from sskernels.memo import clear_shared

    clear_shared()


def chained_traceback(exc):
    """The traceback of ``exc`` and of every exception it was raised from or during, the
    first first, as text.

    The chain is followed through ``__cause__`` and ``__context__`` even where ``raise ...
    from None`` hid it: a user's estimator's exception, turned into one line naming the
    method, keeps its own frames for ``sskernels --debug``.  Formatted here, so that it
    survives a process boundary (an exception's attributes are pickled with it).

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    str

    Examples
    --------
    >>> from sskernels.experiment.worker import chained_traceback
    >>> def user_fit():
    ...     raise ZeroDivisionError("in the user's fit")
    >>> try:
    ...     try:
    ...         user_fit()
    ...     except ZeroDivisionError as e:
    ...         raise ValueError("method 'mine': fit raised ZeroDivisionError") from None
    ... except ValueError as e:
    ...     text = chained_traceback(e)
    >>> "in user_fit" in text and text.index("ZeroDivisionError") < text.index("ValueError")
    True
    """
    import traceback

    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    return "".join(
        "".join(traceback.format_exception(type(e), e, e.__traceback__, chain=False))
        for e in reversed(chain)
    )


def run_record(task, prep):
    """One record: method ``mi`` on split ``si`` of setting ``gi`` of ``prep``.

    The record is computed by :func:`sskernels.experiment.tasks.run_task` and stamped with
    its key and provenance.  A parameter the method refuses
    (:func:`~sskernels.errors.is_user_error`) is the user's:
    a one-line :class:`UserError` naming the spec, the method and the split.  Any other
    exception is ours: an :class:`~sskernels.errors.InternalError` carrying the traceback.

    Parameters
    ----------
    task : tuple of int
        ``(mi, gi, si)``: the method's index in ``spec.methods``, the setting's in
        ``prep.settings`` and the split's.
    prep : Prepared
        The spec's prepared data (:func:`~sskernels.experiment.preparation.prepare`).

    Returns
    -------
    dict
        The record, JSON-native (:func:`~sskernels.experiment.records.plain`), with its
        ``key``, ``data_fingerprint`` and ``provenance``.

    Raises
    ------
    UserError
        For a parameter the method refuses.
    InternalError
        For any other exception.

    Examples
    --------
    >>> from sskernels.experiment import prepare, run_record
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]}, "methods": ["harmonic"]})
    >>> rec = run_record((0, 0, 1), prepare(spec))
    >>> rec["method"], rec["setting"], rec["split"], sorted(rec["metrics"])
    ('harmonic', '10 labeled', 1, ['accuracy'])
    """
    import traceback

    from sskernels.errors import InternalError, is_user_error
    from sskernels.faults import environment_fault

    mi, gi, si = task
    if prep.runs is None:
        prep.runs = method_runs(prep.spec, prep.X_extra)
    spec, method = prep.spec, prep.spec.methods[mi]
    where = f"{spec.path}: methods[{mi}] ({method.label}), split {si}"
    try:
        rec = run_task(task, prep)
    except UserError:
        raise
    except Exception as exc:
        fault = environment_fault(
            exc,
            f"{spec.path}: methods[{mi}] ({method.label}) on "
            f"{spec.dataset.display} (n = {fitted_points(prep)[0]}), "
            f"split {si}",
        )
        if fault is not None:  # the machine's limit, not a defect
            fault.detail = chained_traceback(exc)
            raise fault from None
        if is_user_error(exc):
            err = UserError(f"{where}: {exc}")
            err.detail = chained_traceback(exc)  # for --debug, across processes too
            raise err from None
        raise InternalError(
            f"{where}: {type(exc).__name__}: {exc}", traceback.format_exc()
        ) from None
    keys = record_keys(prep)
    prov = prep.provenance or _provenance.provenance()
    return plain(
        {
            **rec,
            "key": keys[mi],
            "data_fingerprint": prep.data_fingerprint,
            "provenance": {**prov, **prep.codes[mi]},
        }
    )
