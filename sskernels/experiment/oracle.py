"""The oracle protocol (``select: oracle`` in a spec): the grid point with the best TEST accuracy.

Some papers report, per split, the best point of a parameter grid as judged on the test
(unlabeled) points: Wang et al. 2015, Sec. 4.1, "choose b among b0 x {...} that gives the
best performance".  That is not a selection a user could make (it reads the labels it
is scored on), so the project's default and its own rows select on the labeled points only
(:class:`~sskernels.learners.selection.SelectOnLabeled`).  This module reproduces the
papers' protocol for a row of its own, which the spec must label "oracle":

* the estimator a spec builds (:func:`sskernels.learners.registry.make_method`) is
  stripped of its ``SelectOnLabeled`` wrappers, nested ones included (``kernel-svm``'s
  ``kernel_learner``), and their grids are joined (:func:`flatten`): e.g. the kernel
  learner's width ``b_scale`` x the SVM's ``C``;
* every candidate is fitted with the split's partial labels, and the one with the most
  correct predictions on the unlabeled points is kept; ties go to the first candidate in
  grid order (the same tie rule as ``SelectOnLabeled``: nested grids vary slowest, so a
  kernel learner's preferred value wins a tie, then the SVM's);
* what it chose and every candidate's test accuracy go into the record (``oracle``);
  the record's ``seconds`` is the time of fitting the whole grid (the protocol's cost).

**Speed.**  An estimator may offer ``_transduction_predictor(X, y, keys)`` returning
``predict(params)`` (or None when it cannot handle the grid's parameter names ``keys``): the
``transduction_`` that ``clone(est).set_params(**params).fit(X, y)`` would have, sharing work
between candidates (e.g. :class:`~sskernels.learners.kernel_machines.KernelSVM`: the C values
of one kernel share the kernel learner's fit and the kernel's labeled columns).  It must equal
the generic rule; only the chosen candidate is then fitted as an estimator.

This lives in ``experiment/`` and not in ``learners/``: a learner never sees test labels.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from sskernels.learners.base import UNLABELED
from sskernels.learners.selection import candidates, flatten

__all__ = ["flatten", "oracle_fit"]


def oracle_fit(est, X, y_partial, y_true):
    """Fit every candidate of ``est``'s grids; return ``(best fitted estimator, info)``.

    ``y_partial``: encoded labels with ``-1`` for the unlabeled points; ``y_true``: the
    encoded true labels of all points (only the unlabeled ones are scored).  ``info`` is
    ``{"best_index", "params" (the candidates), "accuracy" (% on the unlabeled points)}``.
    Raises ValueError when there is no grid.  When the estimator's fast path
    (``_transduction_predictor``) disagrees with the chosen candidate's fit, the grid is
    refitted candidate by candidate and ``info`` also holds ``"fallback"`` (the reason, noted
    in the fit report too).

    Parameters
    ----------
    est : estimator
        The unfitted estimator a spec builds, with its ``SelectOnLabeled`` wrappers (their
        grids are joined: :func:`flatten`).
    X : array-like or sparse matrix of shape (n_samples, n_features)
        All points.
    y_partial : array-like of shape (n_samples,)
        Encoded labels, ``-1`` for the unlabeled points.
    y_true : array-like of shape (n_samples,)
        The encoded true labels of all points.

    Returns
    -------
    best : estimator
        The candidate with the most correct predictions on the unlabeled points (ties: the
        first in grid order), fitted.
    info : dict
        ``best_index``, ``params`` (the candidates) and ``accuracy`` (% on the unlabeled
        points, one per candidate); ``fallback`` as above.

    Raises
    ------
    ValueError
        When ``est`` has no grid (no parameter set to ``auto`` or a list).
    """
    base, grid = flatten(est)
    if not grid:
        raise ValueError("select: oracle needs a grid (a parameter set to auto or a list)")
    cands = candidates(grid)
    y_partial = np.asarray(y_partial)
    unl = y_partial == UNLABELED
    truth = np.asarray(y_true)[unl]
    fast = getattr(base, "_transduction_predictor", None)
    predict = fast(X, y_partial, tuple(grid)) if fast is not None else None
    if predict is not None:
        best, info = _scan(cands, base, predict, X, y_partial, unl, truth)
        if best is not None:
            return best, info
        # the chosen candidate's fit disagrees with the fast path: the generic rule decides,
        # and the record says so (never a silent fallback)
        best, info = _scan(cands, base, None, X, y_partial, unl, truth)
        why = (
            "oracle: the fast path's prediction differed from the chosen candidate's fit; "
            "the grid was refitted candidate by candidate"
        )
        info["fallback"] = why
        report = getattr(best, "fit_report_", None)
        if report is not None:
            report.note("fallback", why)
        return best, info
    return _scan(cands, base, None, X, y_partial, unl, truth)


def _scan(cands, base, predict, X, y_partial, unl, truth):
    """Score every candidate, by ``predict(candidate)`` (the fast path) or by fitting
    ``clone(base)``; the fast path then fits the chosen candidate and returns ``(None, None)``
    if that fit's ``transduction_`` is not the one it scored."""
    best, best_pred, best_correct, best_index, accuracy = None, None, -1, -1, []
    for i, cand in enumerate(cands):
        if predict is None:
            fitted = clone(base).set_params(**cand).fit(X, y_partial)
            transduction = fitted.transduction_
        else:
            fitted, transduction = None, predict(cand)
        correct = int(np.sum(np.asarray(transduction)[unl] == truth))
        accuracy.append(100.0 * correct / max(int(unl.sum()), 1))
        if correct > best_correct:  # strict: the first of tied candidates wins
            best, best_pred, best_correct, best_index = fitted, transduction, correct, i
    if predict is not None:  # the fast path: fit the chosen candidate
        best = clone(base).set_params(**cands[best_index]).fit(X, y_partial)
        if not np.array_equal(np.asarray(best.transduction_), np.asarray(best_pred)):
            return None, None
    return best, {"best_index": best_index, "params": cands, "accuracy": accuracy}
