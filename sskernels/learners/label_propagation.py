"""Iterative label propagation with hard clamping (Zhu & Ghahramani 2002).

The labels flow along the graph: every step replaces each point's class distribution by the
weighted average of its neighbours' (``Y <- D^-1 W Y``), normalizes the rows and clamps the
labeled points back to their labels.  The fixed point is the harmonic function of Zhu,
Ghahramani & Lafferty (2003) (:class:`~sskernels.learners.HarmonicFunction`, which solves for
it directly); the iteration is scikit-learn's ``LabelPropagation`` on the graph of this
package (any :class:`~sskernels.graph.KNNGraph`, or a precomputed affinity matrix).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval

from sskernels.learners.graph_base import GraphClassifier
from sskernels.solvers.report import SolveInfo


class IterativeLabelPropagation(GraphClassifier):
    """Label propagation by iteration with hard clamping (Zhu & Ghahramani 2002, Sec. 2.2).

    Starting from ``Y^0`` (the labeled points' one-hot labels, zeros elsewhere), each step
    computes ``Y <- T Y`` with the transition matrix ``T = D^-1 W`` of the k-NN graph
    (``W`` its weights, ``D`` its degrees), normalizes every row of ``Y`` to sum 1 and
    clamps the labeled rows to their labels ("hard clamping"), until the entries change by
    less than ``tol`` in total (``sum |Y^t - Y^{t-1}| < tol``) or ``max_iter`` steps.  The
    algorithm converges to the harmonic solution ``f_U = (I - T_UU)^-1 T_UL Y_L``; a run
    that stops at ``max_iter`` is recorded in ``fit_report_`` (a ``fallback`` note: the
    last iterate is used), never silently; the steps taken and the last change are kept in
    its ``stats``.  The stopping rule and defaults are scikit-learn's ``LabelPropagation``
    (``max_iter=1000``, ``tol=1e-3``).

    ``predict`` on new points takes the weighted average of the graph points' label
    distributions (the propagation step applied once to the new point).

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The graph builder (:class:`~sskernels.graph.KNNGraph`; None: its defaults), or
        "precomputed": ``X`` is the (n, n) affinity matrix.
    max_iter : int, default=1000
        Propagation steps at most.
    tol : float, default=1e-3
        Convergence threshold on ``sum |Y^t - Y^{t-1}|``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels seen in ``y``.
    scores_ : ndarray of shape (n_samples, n_classes)
        The propagated class distributions of the training points.
    label_distributions_ : ndarray of shape (n_samples, n_classes)
        ``scores_`` normalized per row.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point.
    n_iter_ : int
        The propagation steps taken.
    graph_ : Graph
        The graph of the training points.
    unreached_ : ndarray of int
        Unlabeled points in graph components without a labeled point.
    fit_report_ : FitReport
        The iteration's steps and last change; notes (not converged, unreached points).

    See Also
    --------
    HarmonicFunction : The same fixed point, solved directly.
    sklearn.semi_supervised.LabelPropagation : scikit-learn's iteration on its own graph.

    References
    ----------
    X. Zhu and Z. Ghahramani. Learning from labeled and unlabeled data with label
    propagation. Technical Report CMU-CALD-02-107, Carnegie Mellon University, 2002:
    Sec. 2.2 (the algorithm: propagate, row-normalize, clamp), Sec. 2.3 (convergence
    to ``(I - T_UU)^-1 T_UL Y_L``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners.label_propagation import IterativeLabelPropagation
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]
    >>> est = IterativeLabelPropagation().fit(X, y_partial)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict_proba(X[:2]).shape
    (2, 3)
    """

    _parameter_constraints = {
        **GraphClassifier._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }
    _class_masses = True

    def __init__(self, graph=None, max_iter=1000, tol=1e-3):
        self.graph = graph
        self.max_iter = max_iter
        self.tol = tol

    def _scores(self, graph, labeled, C_L):
        W = graph.W.tocsr()
        degree = np.asarray(W.sum(axis=1)).ravel()
        T = W.multiply(1.0 / np.where(degree > 0, degree, 1.0)[:, None]).tocsr()
        n, c = W.shape[0], C_L.shape[1]
        Y_L = np.asarray(C_L, dtype=float)
        Y = np.zeros((n, c))
        Y[labeled] = Y_L
        self.n_iter_ = 0
        change = np.inf
        while self.n_iter_ < self.max_iter and change >= self.tol:
            previous = Y
            Y = np.asarray(T @ Y)
            mass = Y.sum(axis=1, keepdims=True)
            Y = Y / np.where(mass > 0, mass, 1.0)
            Y[labeled] = Y_L
            change = float(np.abs(Y - previous).sum())
            self.n_iter_ += 1
        fallback = None
        if change >= self.tol:
            fallback = (
                f"not converged in max_iter = {self.max_iter} steps (change "
                f"{change:.3g} >= tol = {self.tol:g}): the last iterate is used"
            )
        self.fit_report_.add(
            SolveInfo("propagation", fallback, {"iterations": self.n_iter_, "change": change}),
            "label propagation",
            keep_stats=True,
        )
        return Y

    def _induce(self, X):
        Wx = self.graph_.induced(X)
        dx = Wx.sum(axis=1, keepdims=True)
        return np.asarray(Wx @ self.scores_) / np.where(dx > 0, dx, 1.0)
