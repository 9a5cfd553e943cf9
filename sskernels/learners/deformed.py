"""The deformed kernel as an object (eq. (11.15)) and supervised manifold RLS (eq. (11.14)).

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning",
Sec. 11.3.3 and 11.4.  Everything reuses :mod:`sskernels.learners.manifold`
(``rbf``, ``squared_distances``, ``intrinsic_matrix``, ``deformed_kernel``,
``laprls_coefficients``) and the package's k-NN graph
(:func:`sskernels.graph.get_graph`).

* :class:`DeformedKernel` — ``K~(x, z) = K(x, z) - k_x^T (I + M' K)^{-1} M' k_z``
  with ``M' = gamma_I / (gamma_A (u+l)^2) L^p`` (``normalize=True``, the scale of
  :func:`manifold.deformed_kernel` and :class:`manifold.LapRLS`), a callable
  ``dk(A, B)`` defined on any two point sets.  RLS / SVM with ``K~`` on the
  labeled points are LapRLS / LapSVM (eq. (11.16)).
* :class:`SupervisedManifoldRLS` — squared loss in eq. (11.14), one intrinsic
  term per class.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from sskernels.graph import get_graph
from sskernels.learners.base import GraphParams, check_partial_labels
from sskernels.learners.manifold import (
    _as_scores,
    _ovr_targets,
    deformed_kernel,
    intrinsic_matrix,
    laprls_coefficients,
    median_distance,
    rbf,
    squared_distances,
)


def _as_points(X):
    return X if sp.issparse(X) else np.asarray(X, dtype=float)


class DeformedKernel:
    """The data-dependent kernel ``K~`` of eq. (11.15), as a callable kernel object.

    ``K~(x, z) = K(x, z) - k_x^T (I + M' K)^{-1} M' k_z`` where ``K`` is the RBF
    kernel ``exp(-||x - z||^2 / (2 sigma^2))`` (``sigma`` = ``kernel_width``) on
    the ``n = l + u`` training points ``X``, ``k_x = [K(x_1, x), ..., K(x_n, x)]^T``
    and ``M' = gamma_I / (gamma_A n^2) M`` (``normalize=True``; ``normalize=False``
    drops the ``1/n^2``), ``M = L^p`` of the package's k-NN graph of ``X``
    (:func:`sskernels.graph.get_graph` + :func:`manifold.intrinsic_matrix`).  The
    chapter prints the second ``L`` without the factor ``gamma_I / gamma_A``;
    like :func:`manifold.deformed_kernel` (which this class calls, with its
    ``K_a / K_b / K_ab`` form) we take that as a misprint.

    ``dk(A, B)`` returns the ``(len(A), len(B))`` matrix ``K~(A, B)`` for any two
    point sets (training or unseen); ``dk(A)`` means ``dk(A, A)`` (then
    symmetrized against round-off).  Usable as ``sklearn.svm.SVC(kernel=dk)`` or
    ``KernelRidge(kernel="precomputed")`` on ``dk(X_L, X_L)`` / ``dk(X_new, X_L)``.

    With ``C = 1 / (2 gamma_A l)`` an SVM with ``K~`` on the labeled points is
    :class:`manifold.LapSVM` and ``KernelRidge(alpha=gamma_A l)`` with it is
    :class:`manifold.LapRLS` (same ``gamma_A, gamma_I``, width and graph).

    ``kernel_width``: a number or ``"median"`` (median pairwise distance of X).
    """

    def __init__(self, X, gamma_A, gamma_I, kernel_width="median", laplacian="unnormalized",
                 laplacian_degree=1, n_neighbors=6, weights="hein-maier", sigma=None,
                 metric="euclidean", normalize=True):
        if not gamma_A > 0:
            raise ValueError(f"gamma_A must be > 0, got {gamma_A}")
        if not gamma_I >= 0:
            raise ValueError(f"gamma_I must be >= 0, got {gamma_I}")
        X = _as_points(X)
        self.X = X
        self.gamma_A, self.gamma_I = float(gamma_A), float(gamma_I)
        self.laplacian, self.laplacian_degree = laplacian, laplacian_degree
        self.n_neighbors, self.weights, self.sigma, self.metric = n_neighbors, weights, sigma, metric
        self.normalize = bool(normalize)
        D2 = squared_distances(X)
        if isinstance(kernel_width, str):
            if kernel_width != "median":
                raise ValueError(f"kernel_width must be a number or 'median', got {kernel_width!r}")
            kernel_width = median_distance(D2)
        if not kernel_width > 0:
            raise ValueError(f"kernel_width must be > 0, got {kernel_width}")
        self.kernel_width = float(kernel_width)
        self.graph = get_graph(X, k=n_neighbors, weights=weights, sigma=sigma, metric=metric)
        self.M = intrinsic_matrix(self.graph, laplacian, laplacian_degree)
        self.K = rbf(D2, self.kernel_width)

    def base(self, A, B=None):
        """The RBF base kernel ``K(A, B)``."""
        return rbf(squared_distances(_as_points(A), None if B is None else _as_points(B)),
                   self.kernel_width)

    def __call__(self, A, B=None):
        A = _as_points(A)
        same = B is None or B is A
        B = A if B is None else _as_points(B)
        Ka = self.base(A, self.X)
        Kb = Ka if same else self.base(B, self.X)
        Kab = self.base(A, None if same else B)
        Kt = deformed_kernel(self.K, self.M, self.gamma_A, self.gamma_I, K_a=Ka, K_b=Kb,
                             K_ab=Kab, normalize=self.normalize)
        return 0.5 * (Kt + Kt.T) if same else Kt

    def train_matrix(self):
        """``K~`` on the training points, ``K (I + M' K)^{-1}`` (symmetrized)."""
        Kt = deformed_kernel(self.K, self.M, self.gamma_A, self.gamma_I, normalize=self.normalize)
        return 0.5 * (Kt + Kt.T)

    def __repr__(self):
        return (f"DeformedKernel(n={self.K.shape[0]}, gamma_A={self.gamma_A}, "
                f"gamma_I={self.gamma_I}, kernel_width={self.kernel_width})")


class SupervisedManifoldRLS(GraphParams, ClassifierMixin, BaseEstimator):
    """Supervised manifold regularization with class-dependent intrinsic terms, eq. (11.14).

    Squared loss (RLS) in

        (1/l) sum_i (y_i - f(x_i))^2 + gamma_A ||f||_K^2
            + sum_c gamma_I^c / l^2  f_c^T L_c f_c                      (normalize=True)

    where, as the paper says (Sec. 11.3.3), ``f_c`` are the values of ``f`` on the
    labeled examples of class ``c`` and ``L_c`` is the graph Laplacian "on" those
    examples: here ``L_c`` is the (unnormalized ``D - W`` or normalized, to the
    power ``laplacian_degree``) Laplacian of the package's k-NN graph
    (:func:`get_graph` with ``n_neighbors``, ``weights``, ``sigma``, ``metric``)
    built on class ``c``'s labeled points alone, with ``k = min(n_neighbors,
    l_c - 1)``; a class with one point has no term.  The paper has two classes
    (``L_+``, ``L_-``); we allow ``c`` classes, one term each, and the paper's
    recipe "replace ``gamma_I L`` by ``blockdiag(gamma_I^+ L_+, gamma_I^- L_-)``
    in Laplacian RLS" gives, with ``u = 0`` and LapRLS's scale ``gamma_I / (u+l)^2``,
    the ``1/l^2`` above (``normalize=False``: no ``1/l^2``, eq. (11.14) as printed).

    By the representer theorem ``f(x) = sum_{i<=l} alpha_i K(x_i, x)`` (no bias), and
    with ``M = sum_c gamma_I^c P_c^T L_c P_c`` (the block-diagonal matrix in the
    original order) ``alpha = (K + gamma_A l I + (l / l^2) M K)^{-1} Y``
    (:func:`manifold.laprls_coefficients` with all points labeled and ``gamma_I = 1``).
    Multi-class: one-vs-rest targets +-1, label of the largest value.

    Parameters: ``gamma_A`` (> 0); ``gamma_I`` (>= 0) one value for all classes or
    a sequence, one per class in the order of ``classes_``; ``kernel_width`` (a
    number or ``"median"`` of the labeled points' pairwise distances);
    ``n_neighbors``, ``weights``, ``sigma``, ``metric`` (the class graphs);
    ``laplacian``, ``laplacian_degree``, ``normalize``.

    ``fit(X, y)``: rows with ``y == -1`` are ignored (this learner is supervised).
    """

    def __init__(self, gamma_A=1e-2, gamma_I=1.0, kernel_width="median", n_neighbors=6,
                 laplacian="unnormalized", laplacian_degree=1, weights="hein-maier",
                 sigma=None, metric="euclidean", normalize=True):
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel_width = kernel_width
        self.n_neighbors = n_neighbors
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.normalize = normalize

    def _class_gammas(self, n_classes):
        g = np.atleast_1d(np.asarray(self.gamma_I, dtype=float))
        if g.size == 1:
            g = np.full(n_classes, float(g[0]))
        if g.size != n_classes:
            raise ValueError(f"gamma_I has {g.size} entries for {n_classes} classes")
        if np.any(g < 0):
            raise ValueError(f"gamma_I must be >= 0, got {self.gamma_I}")
        return g

    def intrinsic_matrix(self, XL, y_enc, n_classes, gammas):
        """``M = sum_c gamma_I^c P_c^T L_c P_c`` over the labeled points (dense, l x l)."""
        l = y_enc.size
        M = np.zeros((l, l))
        for c in range(n_classes):
            idx = np.flatnonzero(y_enc == c)
            if gammas[c] == 0 or idx.size < 2:
                continue
            k = min(int(self.n_neighbors), idx.size - 1)
            g = get_graph(XL[idx], k=k, weights=self.weights, sigma=self.sigma,
                          metric=self.metric)
            Lc = intrinsic_matrix(g, self.laplacian, self.laplacian_degree).toarray()
            M[np.ix_(idx, idx)] += gammas[c] * Lc
        return M

    def fit(self, X, y):
        if not self.gamma_A > 0:
            raise ValueError(f"gamma_A must be > 0, got {self.gamma_A}")
        X = _as_points(X)
        y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        classes, labeled, y_enc = check_partial_labels(y)
        XL = X[labeled]
        l = labeled.size
        self.classes_ = classes
        self.X_fit_ = XL
        gammas = self._class_gammas(classes.size)
        self.gamma_I_ = gammas
        D2 = squared_distances(XL)
        w = self.kernel_width
        if isinstance(w, str):
            if w != "median":
                raise ValueError(f"kernel_width must be a number or 'median', got {w!r}")
            w = median_distance(D2)
        if not w > 0:
            raise ValueError(f"kernel_width must be > 0, got {w}")
        self.kernel_width_ = float(w)
        K = rbf(D2, self.kernel_width_)
        M = self.intrinsic_matrix(XL, y_enc, classes.size, gammas)
        if not self.normalize:
            M = M * float(l) ** 2      # laprls_coefficients divides by (u+l)^2 = l^2
        self.M_ = M
        if classes.size == 1:
            self.alpha_ = np.zeros(l)
            self.intercept_ = 1.0
        else:
            gI = 1.0 if np.any(M != 0) else 0.0
            self.alpha_ = laprls_coefficients(K, M, np.arange(l), _ovr_targets(y_enc, classes.size),
                                              float(self.gamma_A), gI)
            self.intercept_ = 0.0
        return self

    def decision_function(self, X):
        """``f(x) = sum_{i<=l} alpha_i K(x_i, x)``: (n,) for two classes, else (n, c)."""
        check_is_fitted(self, "alpha_")
        Kx = rbf(squared_distances(_as_points(X), self.X_fit_), self.kernel_width_)
        return Kx @ self.alpha_ + self.intercept_

    def predict(self, X):
        check_is_fitted(self, "alpha_")
        if self.classes_.size == 1:
            return np.full(_as_points(X).shape[0], self.classes_[0])
        return self.classes_[np.argmax(_as_scores(self.decision_function(X)), axis=1)]
