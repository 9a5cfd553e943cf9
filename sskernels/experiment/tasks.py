"""The task body: one method on one split, fitted and scored (a worker runs this, nothing else).

This module holds exactly the code a record's numbers come from beside the method's own: the
fit of the method's estimator (built from the spec by :mod:`sskernels.experiment.plan`, handed
here unfitted in ``prep.runs``) or the oracle's grid, the metrics (accuracy, error, centered
alignment; rmse and mse for regression) and the parameters the fitted estimator says it
selected (:func:`sskernels.learners.base.selected_params`).  A record's code key is the hash of
this module, the split rules (:mod:`sskernels.experiment.splits`) and the modules of the
method's estimators, with everything they import (:func:`method_code_modules`), plus the
constructed estimator's parameters; the registry that names the methods, the scheduling, the
store and the summaries are elsewhere and do not enter it.

Examples
--------
>>> from sskernels.experiment.tasks import method_code_modules
>>> from sskernels.learners.registry import make_method
>>> mods = method_code_modules(make_method("harmonic"))
>>> "sskernels.learners.propagation" in mods, "sskernels.learners.spectral" in mods
(True, False)
"""

from __future__ import annotations

import time

import numpy as np

from sskernels.learners.base import selected_params

#: the modules every record's computation runs, beside its method's estimators
TASK_MODULES = ("sskernels.experiment.tasks", "sskernels.experiment.splits")


def labels_of(est, X, n, name, what="transduction"):
    """The labels a fitted estimator gives: ``transduction_``, else ``predict(X)``.

    ``transduction_`` are the training points' labels.  A user's estimator that gives
    neither, or not ``n`` labels, breaks the contract: a
    :class:`~sskernels.errors.ParameterError` naming it.

    Parameters
    ----------
    est : estimator
        The fitted estimator.
    X : array-like or sparse matrix
        The points ``predict`` labels.
    n : int
        The number of labels expected.
    name : str
        The method's name, for the message.
    what : str, default="transduction"
        ``"transduction"``: ``transduction_`` first; any other value (``"predict"``, for
        held-out points): ``predict(X)`` only.

    Returns
    -------
    numpy.ndarray of shape (n,)
        The labels.

    Raises
    ------
    ParameterError
        When the estimator has no labels to give or gives labels of another shape.
    """
    from sskernels.errors import ParameterError

    pred = getattr(est, "transduction_", None) if what == "transduction" else None
    if pred is None:
        if not callable(getattr(est, "predict", None)):
            raise ParameterError(
                f"method {name!r}: {type(est).__name__} has no transduction_ "
                "after fit and no predict"
            )
        pred = est.predict(X)
    pred = np.asarray(pred)
    if pred.ndim != 1 or pred.shape[0] != n:
        raise ParameterError(
            f"method {name!r}: {type(est).__name__} gives labels of shape "
            f"{pred.shape} for {n} points (expected ({n},))"
        )
    return pred


def _fit(est, X, y, info):
    """``est.fit(X, y)``; a user's estimator's exception is the user's (a
    :class:`~sskernels.errors.ParameterError` naming it), a registered one's propagates."""
    if not info.user:
        return est.fit(X, y)
    from sskernels.errors import ParameterError

    try:
        return est.fit(X, y)
    except Exception as exc:
        raise ParameterError(
            f"method {info.name!r}: fit raised {type(exc).__name__}: {exc}"
        ) from None


def method_code_modules(est, oracle=False):
    """The modules a task running estimator ``est`` executes, as closure roots.

    They are the roots for :func:`sskernels.provenance.code_modules`: this module, the split
    rules, the oracle's protocol when ``oracle``, and the modules of ``est`` and the
    estimators inside it.

    Parameters
    ----------
    est : estimator
        The method's unfitted estimator.
    oracle : bool, default=False
        Whether the task runs the oracle's protocol (``select: oracle``).

    Returns
    -------
    list of str
        The modules' dotted names, sorted.
    """
    from sskernels.provenance import estimator_modules

    roots = set(TASK_MODULES) | estimator_modules(est)
    if oracle:
        roots.add("sskernels.experiment.oracle")
    return sorted(roots)


def run_task(task, prep):
    """One record's computed part: method ``mi`` on split ``si`` of setting ``gi`` of ``prep``.

    ``prep`` is a :class:`~sskernels.experiment.preparation.Prepared` whose ``runs`` hold
    each method's unfitted estimator and flags (:class:`~sskernels.experiment.plan.MethodRun`).

    One body for both tasks: the partial labels (``-1`` for a class, NaN for a regression
    target), the fit (or the oracle's grid), the metrics of the task (accuracy on the
    unlabeled points and, with held-out points and an inductive method, on those; rmse and
    mse on the regression pool's unlabeled rows), the seconds of the fit and prediction,
    the selected parameters and the fit report.  Exceptions propagate: the caller decides
    whether one is the user's (a bad parameter) or ours.

    Parameters
    ----------
    task : tuple of int
        ``(mi, gi, si)``: the method's index, the setting's and the split's.
    prep : Prepared
        The spec's prepared data, with ``runs`` set.

    Returns
    -------
    dict
        The record without its key and provenance: the identity (``spec``, ``table``,
        ``dataset``, ``setting``, ``method``, ``method_name``, ``paper``, ``split``,
        ``n_labeled``), the counts (``n_unlabeled``; ``n_test`` for regression),
        ``metrics``, ``seconds``, ``selected`` and ``report`` (and ``selection``,
        ``oracle`` for an oracle row).
    """
    import copy

    mi, gi, si = task
    run = prep.runs[mi]
    labeled = prep.settings[gi][1][si]
    regression = prep.task == "regression"
    y_partial = np.full(prep.y.shape if regression else prep.y.size, np.nan if regression else -1)
    y_partial[labeled] = prep.y[labeled]
    est = copy.deepcopy(run.estimator)  # unfitted: every task fits its own
    oracle = None
    t0 = time.perf_counter()
    if run.oracle:  # best TEST accuracy: never a default
        from sskernels.experiment.oracle import oracle_fit

        est, oracle = oracle_fit(est, prep.X, y_partial, prep.y)
    else:
        _fit(est, prep.X, y_partial, run)
    if regression:
        F = np.asarray(est.transduction_)
        seconds = time.perf_counter() - t0
        test = np.setdiff1d(prep.pool, labeled)
        metrics = regression_metrics(F, prep.y, test)
        counts = {"n_unlabeled": int(prep.y.shape[0] - labeled.size), "n_test": int(test.size)}
    else:
        unl = y_partial == -1
        pred = labels_of(est, prep.X, prep.y.size, run.name)
        metrics = {"accuracy": 100.0 * float(np.mean(pred[unl] == prep.y[unl]))}
        if prep.X_test is not None and run.inductive:
            pred_test = labels_of(est, prep.X_test, prep.y_test.size, run.name, "predict")
            metrics["inductive accuracy"] = 100.0 * float(np.mean(pred_test == prep.y_test))
        seconds = time.perf_counter() - t0
        metrics.update(
            extra_metrics(
                getattr(prep.spec, "metrics", None) or (),
                est,
                metrics,
                unl,
                prep.y,
                prep.classes.size,
            )
        )
        counts = {"n_unlabeled": int(unl.sum())}
    selected = selected_params(est)
    extra = {}
    if oracle is not None:  # the candidate the oracle chose, under its own names
        extra = {"selection": "oracle", "oracle": oracle}
        selected = {**selected, **oracle["params"][oracle["best_index"]]}
    return {
        **extra,
        **_identity(prep, mi, gi, si),
        **counts,
        "metrics": metrics,
        "seconds": seconds,
        "selected": selected,
        "report": _report(est),
    }


def _identity(prep, mi, gi, si):
    spec, method = prep.spec, prep.spec.methods[mi]
    setting, splits = prep.settings[gi]
    return {
        "spec": spec.name,
        "table": spec.table or "",
        "dataset": spec.paper.dataset or spec.dataset.display,
        "setting": setting,
        "method": method.label,
        "method_name": method.name,
        "paper": method.paper,
        "split": si,
        "n_labeled": int(splits[si].size),
    }


def _report(est):
    report = getattr(est, "fit_report_", None)
    return report.as_dict() if report is not None else {"solvers": [], "notes": []}


def regression_metrics(F, Y, test):
    """``rmse`` and ``mse`` of predicted targets F (n, k) at the test rows.

    ``mse`` is the mean of the squared errors over the test points and the targets (x and y
    for WiFi), ``rmse`` its square root (so ``mse = rmse^2`` exactly, per split).

    Parameters
    ----------
    F : array-like
        The predicted targets, reshaped to ``Y``'s shape.
    Y : numpy.ndarray of shape (n_samples, n_targets)
        The true targets.
    test : array-like
        The test rows (indices or a boolean mask).

    Returns
    -------
    dict
        ``{"rmse": float, "mse": float}``.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.experiment import regression_metrics
    >>> Y = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> F = Y + np.array([[0.0, 0.0], [0.5, -0.5], [9.0, 9.0]])
    >>> regression_metrics(F, Y, test=np.array([1]))
    {'rmse': 0.5, 'mse': 0.25}
    """
    err = np.asarray(F, dtype=float).reshape(Y.shape)[test] - Y[test]
    mse = float(np.mean(err**2))
    return {"rmse": float(np.sqrt(mse)), "mse": mse}


def extra_metrics(names, est, metrics, unl, y, n_classes):
    """The spec's extra metrics (``spec.metrics``) of a fitted estimator.

    ``error``: ``100 - accuracy`` (and ``inductive error`` beside ``inductive accuracy``).
    ``alignment``: :func:`unlabeled_alignment` of the estimator's learned kernel
    (``kernel_``), left out for an estimator without one.  Computed after the timing: an
    evaluation, not part of the method's cost.  An estimator that gives its kernel's factors
    (:func:`kernel_factors`) is aligned from them, without the kernel matrix.

    Parameters
    ----------
    names : collection of str
        The spec's extra metrics.
    est : estimator
        The fitted estimator.
    metrics : dict
        The metrics measured so far (``accuracy``, ``inductive accuracy``).
    unl : array-like of bool, shape (n_samples,)
        The unlabeled points.
    y : array-like of int, shape (n_samples,)
        The encoded true labels.
    n_classes : int or None
        The number of classes; None: ``max(y) + 1``.

    Returns
    -------
    dict
        The extra metrics by name.
    """
    out = {}
    if "error" in names:
        for acc, err in (("accuracy", "error"), ("inductive accuracy", "inductive error")):
            if acc in metrics:
                out[err] = 100.0 - metrics[acc]
    if "alignment" in names:
        factors = kernel_factors(est)
        if factors is not None:  # an embedding kernel: no u x u matrix (same value)
            from sskernels.kernels.alignment import factored_centered_alignment

            P, mu = factors
            idx = np.flatnonzero(np.asarray(unl))
            c = int(np.max(y)) + 1 if n_classes is None else int(n_classes)
            out["alignment"] = factored_centered_alignment(P[idx], mu, np.asarray(y)[idx], c)
            return out
        try:
            K = est.kernel_
        except AttributeError:  # not a kernel learner (a wrapper's property raises it too)
            K = None
        if K is not None:
            out["alignment"] = unlabeled_alignment(K, unl, y, n_classes)
    return out


def kernel_factors(est):
    """``(P, mu)`` with ``est.kernel_ = s P diag(mu) P^T`` for a scale ``s > 0``, else None.

    From the estimator's own ``kernel_factors()`` (an embedding kernel, a kernel SVM over
    one, or a selection wrapper around either).  The centered alignment is scale-free, so
    :func:`extra_metrics` computes it from the factors
    (:func:`~sskernels.kernels.alignment.factored_centered_alignment`) without the n x n
    kernel.

    Parameters
    ----------
    est : estimator
        The fitted estimator (a selection wrapper: its ``best_estimator_``).

    Returns
    -------
    tuple or None
        ``(P, mu)``, or None when the estimator has no ``kernel_factors``.
    """
    if hasattr(est, "best_params_"):  # a selection wrapper: its chosen estimator
        est = getattr(est, "best_estimator_", None)
    hook = getattr(est, "kernel_factors", None)
    return hook() if callable(hook) else None


def unlabeled_alignment(K, unlabeled, y, n_classes=None):
    """Centered alignment of a learned kernel's UNLABELED block with the ideal kernel.

    The centered alignment (Cortes, Mohri & Rostamizadeh 2010) of ``K[U, U]`` with the ideal
    kernel of the true labels of those points.

    The ideal kernel is :func:`sskernels.kernels.alignment.ideal_kernel`'s ``"simplex"``
    target: ``yy^T`` with ``y`` in ``{-1, +1}`` for two classes, as in Wang et al. (2015),
    Sec. 2; ``T_ij = -1/(c-1)`` for a pair of different classes when ``c > 2`` (a choice: the
    paper does not say which multi-class target its Table 1 uses).  A value in [-1, 1]
    (in [0, 1] for a PSD kernel).

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        The learned kernel on all points.
    unlabeled : array-like of bool, shape (n_samples,)
        The unlabeled points ``U``.
    y : array-like of int, shape (n_samples,)
        The encoded true labels (only those of ``U`` are read).
    n_classes : int, default=None
        The number of classes; None: ``max(y) + 1``.

    Returns
    -------
    float
        The alignment.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.experiment import unlabeled_alignment
    >>> y = np.array([0, 1, 0, 0, 1, 1])
    >>> unlabeled = np.array([False, False, True, True, True, True])
    >>> same_class = (y[:, None] == y[None, :]).astype(float)      # ideal up to scale and shift
    >>> round(unlabeled_alignment(same_class, unlabeled, y), 6)
    1.0
    >>> round(unlabeled_alignment(np.eye(6), unlabeled, y), 4)
    0.5774
    """
    from sskernels.kernels.alignment import centered_alignment, ideal_kernel

    idx = np.flatnonzero(np.asarray(unlabeled))
    K = np.asarray(K, dtype=float)
    K_UU = K[np.ix_(idx, idx)]
    c = int(np.max(y)) + 1 if n_classes is None else int(n_classes)
    return centered_alignment(K_UU, ideal_kernel(np.asarray(y)[idx], c))
