"""libsvm on a precomputed kernel, called as ``sklearn.svm.SVC`` calls it, without the estimator.

``SVC(kernel="precomputed").fit`` spends more time on scikit-learn's input and target
validation than libsvm spends solving when the kernel is a few hundred points wide (e.g.
Wang et al.'s COIL local Rademacher fits, P = 6 one-vs-rest SVMs per eta-trick step).
The learners that fit thousands of small SVMs (the C selection's folds, oracle candidates,
SimpleMKL's and the eta-trick's inner SVMs) call libsvm here with **the same arguments**
``SVC`` passes (so the same solution, bit for bit: tested against ``SVC`` in
``tests/test_libsvm.py``), and a scikit-learn without its private ``sklearn.svm._libsvm``
module goes through ``SVC`` itself (same numbers, slower).

``SVC.fit`` draws libsvm's seed from the global RNG (``check_random_state(None)``); it is
drawn here too, so that the global RNG's state after a call is the same as after ``SVC``'s.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils import check_random_state

try:  # libsvm as SVC calls it
    from sklearn.svm import _libsvm
except ImportError:  # pragma: no cover - a scikit-learn without it
    _libsvm = None

__all__ = ["LibsvmModel", "fit_precomputed", "binary_dual"]


@dataclass
class LibsvmModel:
    """A C-SVC fitted by libsvm on a precomputed kernel: the classes (sorted, as ``SVC``'s
    ``classes_``), libsvm's raw model (``dual_coef``/``intercept`` in libsvm's sign, before
    ``SVC``'s binary flip), and ``capped``: libsvm stopped at ``max_iter`` (not optimal)."""

    classes: np.ndarray
    n_train: int
    capped: bool
    svc: object = None  # the SVC, when it was used instead of the bare calls
    raw: tuple = None  # (support, support_vectors, n_support, dual_coef,
    #                               intercept, prob_a, prob_b)

    def predict(self, K_pred):
        """Labels of the rows ``K_pred`` (``K(points, train)``), as ``SVC.predict``.

        Parameters
        ----------
        K_pred : array-like of shape (s, n_train)
            The kernel between the points to label and the training points.

        Returns
        -------
        ndarray of shape (s,)
            The predicted labels, taken from ``classes``.

        Raises
        ------
        ValueError
            If ``K_pred`` is not two-dimensional with ``n_train`` columns.
        """
        if self.svc is not None:
            return self.svc.predict(K_pred)
        K_pred = np.ascontiguousarray(K_pred, dtype=np.float64)
        if K_pred.ndim != 2 or K_pred.shape[1] != self.n_train:
            raise ValueError(f"K_pred must have {self.n_train} columns, got shape {K_pred.shape}")
        support, support_vectors, n_support, dual_coef, intercept, prob_a, prob_b = self.raw
        pred = _libsvm.predict(
            K_pred,
            support,
            support_vectors,
            n_support,
            dual_coef,
            intercept,
            prob_a,
            prob_b,
            svm_type=0,
            kernel="precomputed",
            degree=3,
            coef0=0.0,
            gamma=0.0,
            cache_size=200,
        )
        return self.classes.take(np.asarray(pred, dtype=np.intp))

    def binary_solution(self):
        """For two classes: ``(beta, b)`` with ``beta`` (n_train,) the signed dual
        coefficients ``y_i alpha_i`` (``y = +1`` for ``classes[1]``) and the decision value
        ``K beta + b`` positive for ``classes[1]`` -- ``SVC``'s ``dual_coef_`` and
        ``intercept_`` (libsvm's, sign-flipped)."""
        if self.classes.size != 2:
            raise ValueError("binary_solution needs two classes")
        beta = np.zeros(self.n_train)
        if self.svc is not None:
            beta[self.svc.support_] = self.svc.dual_coef_[0]
            return beta, float(self.svc.intercept_[0])
        support, _, _, dual_coef, intercept, _, _ = self.raw
        beta[support] = -dual_coef[0]
        return beta, -float(intercept[0])

    def binary_decision(self, K_te):
        """Decision values for two classes, positive for ``classes[1]``.

        ``K_te[:, support_] @ dual_coef_[0] + intercept_[0]`` with SVC's attributes.
        The products are summed over the support vectors only, in their order -- the same
        floating-point sums as that expression on a fitted ``SVC``.

        Parameters
        ----------
        K_te : ndarray of shape (s, n_train)
            The kernel between the test points and the training points.

        Returns
        -------
        ndarray of shape (s,)
            The decision values, positive for ``classes[1]``.

        Raises
        ------
        ValueError
            If the model has not two classes.
        """
        if self.classes.size != 2:
            raise ValueError("binary_decision needs two classes")
        if self.svc is not None:
            return K_te[:, self.svc.support_] @ self.svc.dual_coef_[0] + self.svc.intercept_[0]
        support, _, _, dual_coef, intercept, _, _ = self.raw
        return K_te[:, support] @ (-dual_coef[0]) + (-intercept[0])


def _svc(K, y, C, tol, max_iter):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        svc = SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter).fit(K, y)
    capped = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return LibsvmModel(svc.classes_, K.shape[0], capped, svc=svc)


#: ``np.iinfo("i").max``, SVC's bound of libsvm's random seed
_INT_MAX = int(np.iinfo("i").max)
_PLUS_MINUS = np.array([-1.0, 1.0])


def _encode(y):
    """``np.unique(y, return_inverse=True)``, with a shortcut for float targets in {-1, +1}
    with both present (the one-vs-rest problems of the learners' cross-validation, which
    call libsvm ~100,000 times a table): the same classes and indices."""
    if y.dtype == np.float64 and y.ndim == 1:
        pos = y == 1.0
        if pos.any() and not pos.all() and np.all(pos | (y == -1.0)):
            return _PLUS_MINUS.copy(), pos.astype(np.intp)
    return np.unique(y, return_inverse=True)


def fit_precomputed(K, y, C, tol=1e-3, max_iter=-1, use_svc=False):
    """Fit a C-SVC on a precomputed kernel, as :class:`LibsvmModel`.

    ``SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter).fit(K, y)``: the bare
    libsvm call with SVC's arguments, or ``SVC`` itself when
    ``use_svc``, when scikit-learn has no ``_libsvm``, or when ``y`` has fewer than two
    classes (so that ``SVC``'s error is raised).  Non-finite dual coefficients raise
    ``SVC``'s ValueError.

    Parameters
    ----------
    K : array-like of shape (n, n)
        The training Gram matrix.
    y : array-like of shape (n,)
        The training labels (any classes, as ``SVC`` takes them).
    C : float
        The SVM's regularization parameter.
    tol : float, default=1e-3
        The stopping tolerance of libsvm.
    max_iter : int, default=-1
        The iteration cap of libsvm; -1 for none.
    use_svc : bool, default=False
        Fit through ``sklearn.svm.SVC`` instead of the bare libsvm call.

    Returns
    -------
    LibsvmModel
        The fitted model; its ``capped`` is True when libsvm stopped at ``max_iter``.

    Raises
    ------
    ValueError
        If the dual coefficients are not finite, or ``y`` has fewer than two classes.
    """
    y = np.asarray(y)
    K = np.ascontiguousarray(K, dtype=np.float64)
    classes, y_idx = _encode(y)
    if use_svc or _libsvm is None or classes.size < 2:
        return _svc(K, y, C, tol, max_iter)
    (support, support_vectors, n_support, dual_coef, intercept, prob_a, prob_b, status) = _raw_fit(
        K, y_idx, classes.size, C, tol, max_iter
    )
    return LibsvmModel(
        classes,
        K.shape[0],
        status == 1,
        raw=(support, support_vectors, n_support, dual_coef, intercept, prob_a, prob_b),
    )


def _raw_fit(K, y_idx, n_classes, C, tol=1e-3, max_iter=-1):
    """libsvm's C-SVC on the C-contiguous float64 kernel ``K`` and class indices ``y_idx``
    with SVC's arguments (a fresh seed from the global RNG, as SVC draws it); returns
    ``(support, support_vectors, n_support, dual_coef, intercept, prob_a, prob_b, status)``.
    Non-finite dual coefficients raise SVC's ValueError."""
    seed = check_random_state(None).randint(_INT_MAX)
    _libsvm.set_verbosity_wrap(0)
    out = _libsvm.fit(
        K,
        np.asarray(y_idx, dtype=np.float64, order="C"),
        svm_type=0,
        sample_weight=np.empty(0),
        class_weight=np.ones(n_classes),
        kernel="precomputed",
        C=float(C),
        nu=0.0,
        probability=False,
        degree=3,
        shrinking=True,
        tol=float(tol),
        cache_size=200,
        coef0=0.0,
        gamma=0.0,
        epsilon=0.0,
        max_iter=int(max_iter),
        random_seed=seed,
    )
    dual_coef, intercept = out[3], out[4]
    if not (np.isfinite(intercept).all() and np.isfinite(dual_coef).all()):
        raise ValueError(
            "The dual coefficients or intercepts are not finite. The input data "
            "may contain large values and need to be preprocessed."
        )
    return out[:8]


def binary_svm_decision(K_tr, t, K_te, C):
    """``f`` on test points of the C-SVM on a precomputed kernel, for targets in {-1, +1}.

    The targets ``t`` are
    known to be a float array of -1 and +1 with both present (one-vs-rest targets, checked
    by the caller): :func:`fit_precomputed` (the same libsvm call, default tol) without
    re-deriving the classes, then :meth:`LibsvmModel.binary_decision` -- the same numbers
    as :func:`sskernels.solvers.svm.svm_precomputed_decision` (tested), for the
    cross-validation loops that call it ~100,000 times a table.

    Parameters
    ----------
    K_tr : array-like of shape (l, l)
        The training Gram matrix.
    t : ndarray of shape (l,)
        The float targets, -1 and +1 with both present (not checked here).
    K_te : ndarray of shape (s, l)
        The test-by-training kernel.
    C : float
        The SVM's regularization parameter.

    Returns
    -------
    ndarray of shape (s,)
        The decision values, positive for ``t = +1``.

    Raises
    ------
    ValueError
        If libsvm's dual coefficients are not finite.
    """
    if _libsvm is None:
        return fit_precomputed(K_tr, t, C).binary_decision(K_te)
    support, _, _, dual_coef, intercept, _, _, _ = _raw_fit(
        np.ascontiguousarray(K_tr, dtype=np.float64), t > 0, 2, C
    )
    return K_te[:, support] @ (-dual_coef[0]) + (-intercept[0])


def binary_dual(K, y, C, tol=1e-3, use_svc=False):
    """The C-SVM dual on kernel ``K`` for targets ``y`` in {-1, +1} (both present).

    Returns ``(beta, b)`` with ``beta = y * alpha*`` and decision value ``K beta + b``
    (positive = +1), as ``SVC``'s ``dual_coef_``/``intercept_`` give them.

    Parameters
    ----------
    K : array-like of shape (n, n)
        The training Gram matrix.
    y : array-like of shape (n,)
        The targets, -1 or +1, both present.
    C : float
        The SVM's regularization parameter.
    tol : float, default=1e-3
        The stopping tolerance of libsvm.
    use_svc : bool, default=False
        Fit through ``sklearn.svm.SVC`` instead of the bare libsvm call.

    Returns
    -------
    beta : ndarray of shape (n,)
        The signed dual coefficients ``y_i alpha_i`` (0 off the support vectors).
    b : float
        The intercept.

    Raises
    ------
    ValueError
        If a target is not -1 or +1, ``y`` has one class, or the dual coefficients are not
        finite.
    """
    y = np.asarray(y, dtype=float)
    if not np.all(np.abs(y) == 1):
        raise ValueError("targets must be -1 or +1")
    return fit_precomputed(K, y, C, tol=tol, use_svc=use_svc).binary_solution()
