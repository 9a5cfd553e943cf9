"""A C-SVC on a precomputed kernel with every one-vs-one dual solved to optimality.

libsvm's SMO stalls on the ill-conditioned duals of large C (Wang et al.'s BCI at C = 10⁴:
most fits do not converge in 10⁵ iterations).  :func:`exact_svc` solves the same problems as
``SVC(kernel="precomputed", C)``: for every pair of classes ``i < j`` the dual

    max  sum beta - 1/2 beta^T Q beta   s.t.  t^T beta = 0,  0 <= beta <= C,   Q = T K T

(``t = +1`` for class ``i``, ``-1`` for class ``j``) by the certified interior-point method
(:func:`sskernels.solvers.svm_ip.svm_dual_ip`); a dual it does not certify is solved by
HiGHS's QP (:func:`sskernels.solvers.svm.svm_dual_qp`, itself falling back to libsvm at
tolerance 1e-8), and the fallback is reported in the pair's :class:`SolveInfo`.  The bias is
libsvm's KKT rule (:func:`~sskernels.solvers.svm.svm_intercept`),
and predicts as libsvm does: a vote for ``i`` where the pair's decision value is positive,
else for ``j``; the most votes win, ties to the smaller class.  Its decision function has
``SVC``'s shape (binary: positive for the second class; multi-class: scikit-learn's
one-vs-rest transformation of the pairwise values).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import _ovr_decision_function

from sskernels.solvers.highs import SolverError
from sskernels.solvers.svm import svm_dual_qp, svm_intercept
from sskernels.solvers.svm_ip import svm_dual_ip

__all__ = ["ExactSVC", "exact_svc"]


class ExactSVC:
    """A fitted one-vs-one C-SVC on a precomputed kernel (:func:`exact_svc`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The sorted classes (as ``SVC``'s ``classes_``).
    pairs_ : list of tuple
        ``(i, j, support, coef, b)`` per pair of class indices ``i < j``: the training
        indices with nonzero dual coefficients, their coefficients ``t * beta`` and the bias;
        the pair's decision value at a point ``x`` is ``K(x, support) @ coef + b``.
    solvers_ : list of SolveInfo
        The solve of each pair's dual (the interior-point method, or its fallback with the
        reason).
    """

    def __init__(self, classes, pairs, solvers):
        self.classes_ = classes
        self.pairs_ = pairs
        self.solvers_ = solvers

    def _pairwise(self, K_pred):
        K_pred = np.asarray(K_pred, dtype=float)
        return np.column_stack([K_pred[:, s] @ c + b for _, _, s, c, b in self.pairs_])

    def decision_function(self, K_pred):
        """Decision values of the rows ``K_pred`` (``K(points, train)``), as ``SVC``'s.

        Parameters
        ----------
        K_pred : array-like of shape (s, n_train)
            The kernel between the points and the training points.

        Returns
        -------
        ndarray of shape (s,) or (s, n_classes)
            Binary: positive for ``classes_[1]``; multi-class: scikit-learn's one-vs-rest
            shape of the pairwise values (``decision_function_shape="ovr"``).
        """
        dec = self._pairwise(K_pred)
        if self.classes_.size == 2:
            return -dec[:, 0]
        return _ovr_decision_function(dec < 0, -dec, self.classes_.size)

    def predict(self, K_pred):
        """Labels of the rows ``K_pred`` by libsvm's one-vs-one vote.

        Parameters
        ----------
        K_pred : array-like of shape (s, n_train)
            The kernel between the points and the training points.

        Returns
        -------
        ndarray of shape (s,)
            Values of ``classes_``: the class with the most pairwise wins, ties to the
            smaller class.
        """
        dec = self._pairwise(K_pred)
        votes = np.zeros((dec.shape[0], self.classes_.size), dtype=int)
        rows = np.arange(dec.shape[0])
        for k, (i, j, _, _, _) in enumerate(self.pairs_):
            np.add.at(votes, (rows, np.where(dec[:, k] > 0, i, j)), 1)
        return self.classes_[np.argmax(votes, axis=1)]


def exact_svc(K, y, C):
    """Fit the one-vs-one C-SVC of ``SVC(kernel="precomputed", C=C)`` with exact duals.

    Parameters
    ----------
    K : array-like of shape (l, l)
        The training Gram matrix.
    y : array-like of shape (l,)
        The training labels, at least two classes.
    C : float
        The SVM's regularization parameter (> 0).

    Returns
    -------
    ExactSVC
        The fitted model.

    Raises
    ------
    ValueError
        When ``y`` has fewer than two classes.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> from sskernels.solvers.exact_svc import exact_svc
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(3, 1, (20, 2))])
    >>> y = np.repeat([0, 1], 20)
    >>> K = X @ X.T
    >>> model = exact_svc(K, y, C=1.0)
    >>> svc = SVC(kernel="precomputed", C=1.0, tol=1e-8).fit(K, y)
    >>> bool((model.predict(K) == svc.predict(K)).all())
    True
    """
    K = np.asarray(K, dtype=float)
    classes, y_idx = np.unique(np.asarray(y), return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"the SVM needs at least two classes; got {classes.size}")
    pairs, solvers = [], []
    for i in range(classes.size):
        for j in range(i + 1, classes.size):
            idx = np.flatnonzero((y_idx == i) | (y_idx == j))
            t = np.where(y_idx[idx] == i, 1.0, -1.0)
            Q = t[:, None] * K[np.ix_(idx, idx)] * t[None, :]
            beta, grad, info = _pair_dual(Q, t, float(C))
            b = svm_intercept(grad, t, beta, float(C))
            nz = beta > 0
            pairs.append((i, j, idx[nz], t[nz] * beta[nz], b))
            solvers.append(info)
    return ExactSVC(classes, pairs, solvers)


def _pair_dual(Q, t, C):
    """One pair's dual: the interior-point method, HiGHS's QP where it is not certified."""
    try:
        return svm_dual_ip(Q, t, C)
    except SolverError as exc:
        beta, grad, info = svm_dual_qp(Q, t, C)
        why = f"svm-dual interior-point->{info.solver} ({exc})"
        if info.fallback:
            why += f"; {info.fallback}"
        info.fallback = why
        return beta, grad, info
