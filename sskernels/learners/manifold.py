"""Manifold regularization: Laplacian RLS and Laplacian SVM, and supervised baselines.

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning"
(Sec. 11.3.1; Belkin, Niyogi & Sindhwani, JMLR 2006).  Both learners minimise
eq. (11.5),

    (1/l) sum_{i<=l} V(x_i, y_i, f) + gamma_A ||f||_K^2 + gamma_I / (u+l)^2  f^T M f,

over the RKHS of an RBF kernel ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``
(``sigma`` = ``kernel_width``), where ``f`` are the values of ``f`` at all
``l + u`` training points and ``M = L^p`` (``laplacian_degree`` p, the iterated
Laplacians of Remark 1) of the package's k-NN graph (``L = D - W`` or the
normalized ``I - D^{-1/2} W D^{-1/2}``).  By the representer theorem (Thm. 11.2,
eq. (11.6)) ``f(x) = sum_{i<=l+u} alpha_i K(x_i, x) (+ b)``, which is defined on
any new point: both learners are inductive.

* :class:`LapRLS` — squared loss, ``alpha`` of eq. (11.7), no bias.
* :class:`LapSVM` — hinge loss, the dual QP eq. (11.8)-(11.9) solved by HiGHS,
  ``alpha`` of eq. (11.10), and a bias ``b`` (see the class).
* :func:`deformed_kernel` — the warped kernel eq. (11.15): standard RLS/SVM
  with it on the labeled points are LapRLS/LapSVM (eq. (11.16)).
* :class:`SVMBaseline`, :class:`OneNN` — purely supervised baselines that see
  the labeled points only.

Choices the paper leaves open (each stated again where it is used):

* Eq. (11.15) as printed, ``K - k_x^T (I + (gamma_I/gamma_A) L K)^{-1} L k_z``,
  misses the factor ``gamma_I/gamma_A`` on its second ``L`` (it would not reduce
  to ``K`` at ``gamma_I = 0``); we use Sindhwani et al. (ICML 2005)'s form
  ``K - k_x^T (I + M' K)^{-1} M' k_z`` with ``M' = gamma_I / (gamma_A (u+l)^2) M``,
  the scale that makes RLS with the deformed kernel equal eq. (11.7).  The
  identity ``K~ = K (I + M' K)^{-1}`` on the training points follows.
* Multi-class: one-vs-rest with targets +-1 (the paper is binary); the label is
  the class of the largest decision value.  Two classes are solved once.
* Hyper-parameters set to ``"auto"`` are chosen by cross-validation over the
  labeled points only (:func:`sskernels.learners.selection.select_on_labeled`):
  a fold's labels are hidden, its points stay in the graph and in the
  expansion as unlabeled points.  The fold fits use the deformed kernel of the
  full data (it does not depend on labels), precomputed once per kernel width
  through one eigendecomposition (see :func:`_deformation_basis`, memoized
  across splits like the graph), so a fold fit is an ``l x l`` problem.  The
  LapSVM folds' QPs are solved by libsvm (``cv_solver``), the final fit by HiGHS.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import cosine_similarity, euclidean_distances
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from sskernels.graph import fingerprint
from sskernels.learners.base import GraphParams, check_partial_labels
from sskernels.learners.selection import select_on_labeled
from sskernels.solvers import SolverError, solve_qp

#: default grids (features min-max scaled to [0, 1])
GAMMA_GRID = (1e-6, 1e-4, 1e-2, 1e-1, 1.0, 10.0, 100.0)
#: kernel widths as multiples of the median pairwise distance of the training points
WIDTH_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
#: C grid of the supervised SVM baseline
C_GRID = (1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)

LAPLACIANS = ("unnormalized", "normalized")


# ---------------------------------------------------------------------------
# kernels and the intrinsic regularizer
# ---------------------------------------------------------------------------

def squared_distances(A, B=None):
    """Squared Euclidean distances (dense), for dense or sparse inputs."""
    D2 = euclidean_distances(A, A if B is None else B, squared=True)
    return np.maximum(D2, 0.0)


def rbf(D2, width):
    """``K = exp(-||x - z||^2 / (2 sigma^2))`` from squared distances (Step 2)."""
    return np.exp(-D2 / (2.0 * float(width) ** 2))


def mean_norm(X):
    """``(1/n) sum_i ||x_i||``: the RBF width of Mao & Tsang, Sec. 5.2."""
    if sp.issparse(X):
        return float(np.mean(np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())))
    return float(np.mean(np.linalg.norm(X, axis=1)))


def median_distance(D2):
    """Median of the pairwise distances ``||x_i - x_j||, i < j`` (the width rule's unit)."""
    n = D2.shape[0]
    if n < 2:
        return 1.0
    d = np.sqrt(D2[np.triu_indices(n, 1)])
    med = float(np.median(d))
    return med if med > 0 else 1.0


def intrinsic_matrix(graph, laplacian="unnormalized", degree=1):
    """``M = L^p``: the graph regularizer of eq. (11.5) (iterated Laplacians, Remark 1).

    ``laplacian="unnormalized"`` is the paper's ``L = D - W`` (Step 3);
    ``"normalized"`` is ``I - D^{-1/2} W D^{-1/2}``.  Returned sparse.
    """
    if laplacian not in LAPLACIANS:
        raise ValueError(f"laplacian must be one of {LAPLACIANS}, got {laplacian!r}")
    p = int(degree)
    if p != degree or p < 1:
        raise ValueError(f"laplacian_degree must be an integer >= 1, got {degree!r}")
    L = graph.laplacian if laplacian == "unnormalized" else graph.normalized_laplacian
    L = sp.csr_matrix(L)
    M = L
    for _ in range(p - 1):
        M = M @ L
    return M.tocsr()


def _dense(M):
    return M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)


def deformed_kernel(K, L, gamma_A, gamma_I, K_a=None, K_b=None, K_ab=None, normalize=True):
    """The data-dependent kernel of eq. (11.15) (Sindhwani, Niyogi & Belkin 2005).

    ``K~(x, z) = K(x, z) - k_x^T (I + M' K)^{-1} M' k_z`` with
    ``M' = gamma_I / (gamma_A (u+l)^2) L`` (``normalize=True``, the scale of
    eq. (11.5), so that RLS with ``K~`` and regularization ``gamma_A`` on the
    labeled points is LapRLS eq. (11.7)) or ``M' = (gamma_I / gamma_A) L``
    (``normalize=False``).  The chapter prints the second ``L`` without the
    factor ``gamma_I / gamma_A``; that form does not reduce to ``K`` at
    ``gamma_I = 0`` and is taken as a misprint.

    Parameters
    ----------
    K : (n, n) Gram matrix of the ``n = l + u`` training points.
    L : (n, n) intrinsic regularizer (the Laplacian, or ``L^p``), dense or sparse.
    K_a : (s, n) base kernel between a point set A and the training points
        (rows ``k_x^T``); ``None`` = the training points.
    K_b : (t, n) likewise for B; ``None`` = the same as A.
    K_ab : (s, t) base kernel between A and B; needed when ``K_a`` is given.

    Returns the (s, t) matrix ``K~(A, B)``.
    """
    K = np.asarray(K, dtype=float)
    n = K.shape[0]
    if not gamma_A > 0:
        raise ValueError(f"gamma_A must be > 0, got {gamma_A}")
    ratio = gamma_I / gamma_A / (n * n if normalize else 1.0)
    Mp = ratio * _dense(L)
    if K_a is None:
        K_a = K
        K_ab = K if K_b is None else K_ab
    if K_b is None:
        K_b = K_a
    if K_ab is None:
        raise ValueError("K_ab (the base kernel between A and B) is needed when K_a is given")
    T = np.linalg.solve(np.eye(n) + Mp @ K, Mp @ np.asarray(K_b, dtype=float).T)
    return np.asarray(K_ab, dtype=float) - np.asarray(K_a, dtype=float) @ T


# ---------------------------------------------------------------------------
# eq. (11.7) and eq. (11.8)-(11.10)
# ---------------------------------------------------------------------------

def laprls_coefficients(K, M, labeled, Y_L, gamma_A, gamma_I):
    """LapRLS expansion coefficients, eq. (11.7).

    ``alpha = (J K + gamma_A l I + gamma_I l / (u+l)^2 M K)^{-1} Y`` with ``J``
    the diagonal selector of the labeled points and ``Y`` the labels padded with
    zeros; ``Y_L`` may have several columns (one-vs-rest).  Returns (n,) or
    (n, c) as ``Y_L``.
    """
    n = K.shape[0]
    labeled = np.asarray(labeled)
    l = labeled.size
    if not gamma_A > 0:
        raise ValueError(f"gamma_A must be > 0, got {gamma_A}")
    if gamma_I < 0:
        raise ValueError(f"gamma_I must be >= 0, got {gamma_I}")
    A = gamma_A * l * np.eye(n)
    A[labeled] += K[labeled]
    if gamma_I > 0:
        A += (gamma_I * l / n**2) * np.asarray(M @ K)
    Y = np.zeros((n,) + np.shape(Y_L)[1:])
    Y[labeled] = Y_L
    return np.linalg.solve(A, Y)


def svm_intercept(grad, y, beta, C, rtol=1e-6):
    """Bias from the KKT conditions of the SVM dual, libsvm's rule.

    ``grad`` is the gradient ``Q beta - 1`` of the dual (minimization form).
    With ``yG_i = y_i grad_i``: the mean of ``-yG_i`` over free support vectors
    (``0 < beta_i < C``, where ``y_i f(x_i) = 1``), else the midpoint of the
    interval the bounded ``beta_i`` leave for ``b`` (Chang & Lin, LIBSVM,
    Sec. 4.1.5).
    """
    yG = y * grad
    tol = rtol * C
    upper = beta >= C - tol
    lower = beta <= tol
    free = ~(upper | lower)
    if free.any():
        return -float(np.mean(yG[free]))
    ub_mask = (upper & (y < 0)) | (lower & (y > 0))
    lb_mask = (upper & (y > 0)) | (lower & (y < 0))
    ub = yG[ub_mask].min() if ub_mask.any() else np.inf
    lb = yG[lb_mask].max() if lb_mask.any() else -np.inf
    if np.isfinite(ub) and np.isfinite(lb):
        rho = 0.5 * (ub + lb)
    else:
        rho = ub if np.isfinite(ub) else lb
    return -float(rho)


#: seconds HiGHS may spend on one SVM dual before libsvm takes over
QP_SECONDS = 10.0


def _svm_dual_libsvm(Q, y, C):
    """The dual of :func:`svm_dual_qp` solved by libsvm (SMO)."""
    K = y[:, None] * Q * y[None, :]
    svc = SVC(kernel="precomputed", C=float(C), tol=1e-8).fit(K, (y > 0).astype(int))
    beta = np.zeros(y.size)
    beta[svc.support_] = np.abs(svc.dual_coef_.ravel())
    return beta


def svm_dual_qp(Q, y, C):
    """``max sum beta - 1/2 beta^T Q beta  s.t.  y^T beta = 0, 0 <= beta <= C`` (eq. (11.8)).

    Solved with HiGHS (:func:`sskernels.solvers.solve_qp`) after symmetrizing
    ``Q``.  HiGHS's active-set QP can stall on some (near-singular) instances; a
    solve that does not finish within :data:`QP_SECONDS` falls back to libsvm's
    SMO on the same dual (``SVC(kernel="precomputed")`` with the kernel
    ``y_i y_j Q_ij``, tolerance 1e-8).  Returns ``(beta, grad)`` with
    ``grad = Q beta - 1``.
    """
    Q = 0.5 * (Q + Q.T)
    l = y.size
    try:
        beta, _ = solve_qp(Q, -np.ones(l), A=y[None, :].astype(float), row_lower=0.0,
                           row_upper=0.0, col_lower=0.0, col_upper=float(C),
                           time_limit=QP_SECONDS)
    except SolverError:
        beta = _svm_dual_libsvm(Q, y, C)
    beta = np.clip(beta, 0.0, C)
    return beta, Q @ beta - 1.0


def lapsvm_system(K, M, labeled, gamma_A, gamma_I):
    """``Z = (2 gamma_A I + 2 gamma_I/(u+l)^2 M K)^{-1} J^T``, (n, l), and ``K_L Z``.

    ``Z`` is label-independent: eq. (11.9) is ``Q = Y (K Z)_L Y`` and eq. (11.10)
    ``alpha = Z Y beta`` for every one-vs-rest problem.
    """
    n = K.shape[0]
    labeled = np.asarray(labeled)
    if not gamma_A > 0:
        raise ValueError(f"gamma_A must be > 0, got {gamma_A}")
    if gamma_I < 0:
        raise ValueError(f"gamma_I must be >= 0, got {gamma_I}")
    JT = np.zeros((n, labeled.size))
    JT[labeled, np.arange(labeled.size)] = 1.0
    if gamma_I > 0:
        A = 2.0 * gamma_A * np.eye(n) + (2.0 * gamma_I / n**2) * np.asarray(M @ K)
        Z = np.linalg.solve(A, JT)
    else:
        Z = JT / (2.0 * gamma_A)
    return Z, K[labeled] @ Z


def lapsvm_binary(Z, KZ_L, y):
    """One binary LapSVM, eq. (11.8)-(11.10), for labels ``y`` in {-1, +1} (length l).

    Box ``0 <= beta_i <= 1/l`` and ``sum beta_i y_i = 0`` (the bias of Belkin
    et al., JMLR 2006).  Returns ``(alpha, b, beta, Q)``.  When all labels are
    equal there is no margin to find: ``alpha = 0`` and ``b = y_1``.
    """
    y = np.asarray(y, dtype=float)
    l = y.size
    if np.all(y == y[0]):
        return np.zeros(Z.shape[0]), float(y[0]), np.zeros(l), None
    Q = y[:, None] * KZ_L * y[None, :]           # eq. (11.9)
    Q = 0.5 * (Q + Q.T)
    C = 1.0 / l
    beta, grad = svm_dual_qp(Q, y, C)
    alpha = Z @ (y * beta)                       # eq. (11.10)
    b = svm_intercept(grad, y, beta, C)
    return alpha, b, beta, Q


# ---------------------------------------------------------------------------
# label-independent precomputation for the cross-validation
# ---------------------------------------------------------------------------

_BASIS_CACHE: OrderedDict = OrderedDict()
_BASIS_CACHE_BYTES = 400 * 2**20


def _deformation_basis(K, M):
    """``(G, lam)`` with ``K (I + r M K)^{-1} = G diag(1 / (1 + r lam)) G^T`` for all r >= 0.

    With ``R = K^{1/2}`` and ``R M R = V diag(lam) V^T``: ``G = R V``.  (Push-through:
    ``K (I + r M K)^{-1} = R (I + r R M R)^{-1} R``.)  Eigenvalues of K and of
    ``R M R`` below zero (round-off) are clipped to 0.
    """
    s, U = np.linalg.eigh(K)
    R = (U * np.sqrt(np.clip(s, 0.0, None))) @ U.T
    B = np.asarray(R @ (M @ R))
    B = 0.5 * (B + B.T)
    lam, V = np.linalg.eigh(B)
    return R @ V, np.clip(lam, 0.0, None)


def _cached_basis(key, make_K, M):
    hit = _BASIS_CACHE.get(key)
    if hit is not None:
        _BASIS_CACHE.move_to_end(key)
        return hit
    basis = _deformation_basis(make_K(), M)
    _BASIS_CACHE[key] = basis
    total = sum(G.nbytes + lam.nbytes for G, lam in _BASIS_CACHE.values())
    while total > _BASIS_CACHE_BYTES and len(_BASIS_CACHE) > 1:
        _, (G, lam) = _BASIS_CACHE.popitem(last=False)
        total -= G.nbytes + lam.nbytes
    return basis


def clear_cache():
    """Forget the memoized deformation bases."""
    _BASIS_CACHE.clear()


def _ovr_targets(y_enc, n_classes):
    """One-vs-rest targets in {-1, +1}: (l,) for two classes (+1 = class 1), else (l, c)."""
    if n_classes == 2:
        return np.where(y_enc == 1, 1.0, -1.0)
    T = -np.ones((y_enc.size, n_classes))
    T[np.arange(y_enc.size), y_enc] = 1.0
    return T


def _as_scores(F):
    """(n,) binary decision values -> (n, 2) scores ``[-f, f]``; (n, c) unchanged."""
    F = np.asarray(F)
    return np.column_stack([-F, F]) if F.ndim == 1 else F


def _check_gamma(name, value, positive):
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be a number or 'auto', got {value!r}")
        return
    if positive and not value > 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    if not positive and not value >= 0:
        raise ValueError(f"{name} must be >= 0, got {value}")


# ---------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------

class _ManifoldRegularizer(GraphParams, ClassifierMixin, BaseEstimator):
    """Shared parts of LapRLS and LapSVM (see the module docstring for eq. (11.5)).

    Parameters
    ----------
    gamma_A : ambient regularization of eq. (11.5) (> 0), or ``"auto"``.
    gamma_I : intrinsic regularization of eq. (11.5) (>= 0), or ``"auto"``; the
        graph term is ``gamma_I / (u+l)^2 f^T L^p f`` (the paper's scale).
    kernel_width : sigma of ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``: a number,
        ``"mean-norm"`` (the mean norm of the points, Mao & Tsang's rule),
        ``"median"`` (the median pairwise distance of the training points) or
        ``"auto"`` (chosen among ``kernel_width_grid`` times that median).
    laplacian : ``"unnormalized"`` (``L = D - W``, the paper's) or ``"normalized"``.
    laplacian_degree : p of ``L^p`` (default 1).
    n_neighbors, weights, sigma, metric : the package's k-NN graph
        (defaults: k = 6 with the weights of Liu et al. eq. (2), the graph every
        learner of the package uses).  The kernel always uses Euclidean
        distances on ``X`` as given.
    gamma_A_grid, gamma_I_grid : candidates for ``"auto"``.
    kernel_width_grid : multiples of the median pairwise distance for ``"auto"``.
    cv_folds, random_state : folds of the cross-validation on the labeled points.
    kernel_type : ``"rbf"`` (default) or ``"linear"`` (``K = X X^T``; with it LapSVM is the
        linear LapSVM of Sec. 11.5 solved in the dual, ``w = X^T alpha``, which scales with
        n rather than d for high-dimensional sparse data).
    cv_protocol : ``"standard"`` (fit on all folds but one, validate on it) or
        ``"one-fold-labeled"`` (fit on one fold, validate on the others: Mao &
        Tsang's protocol, Sec. 5.2).

    Selection (a choice; the paper leaves it to future research, Sec. 11.3.1):
    all combinations of the "auto" parameters are scored by ``cv_folds``-fold
    CV accuracy over the labeled points.  Ties (frequent with few labels) go,
    in this order of precedence, to the largest ``gamma_I``, the smallest
    ``gamma_A`` (together: the strongest intrinsic regularization, the point
    of the method when labels are scarce), then the width nearest the median.

    Fitted attributes: ``classes_``, ``labeled_``, ``X_fit_``, ``alpha_``
    ((n,) for two classes, else (n, c)), ``intercept_``, ``gamma_A_``,
    ``gamma_I_``, ``kernel_width_``, ``transduction_`` (the labels of all
    training points by ``f``), and after a selection ``cv_candidates_``
    (tuples ``(kernel_width, gamma_A, gamma_I)``) and ``cv_scores_``.
    ``decision_function`` follows scikit-learn: (n,) for two classes (positive
    means ``classes_[1]``), (n, c) one-vs-rest values otherwise.
    """

    def _init_params(self, gamma_A, gamma_I, kernel_width, laplacian, laplacian_degree,
                     n_neighbors, weights, sigma, metric, gamma_A_grid, gamma_I_grid,
                     kernel_width_grid, cv_folds, random_state):
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel_width = kernel_width
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.gamma_A_grid = gamma_A_grid
        self.gamma_I_grid = gamma_I_grid
        self.kernel_width_grid = kernel_width_grid
        self.cv_folds = cv_folds
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------
    def fit(self, X, y):
        if self.kernel_type not in ("rbf", "linear"):
            raise ValueError(f"kernel_type must be 'rbf' or 'linear', got {self.kernel_type!r}")
        if self.cv_protocol not in ("standard", "one-fold-labeled"):
            raise ValueError("cv_protocol must be 'standard' or 'one-fold-labeled', "
                             f"got {self.cv_protocol!r}")
        _check_gamma("gamma_A", self.gamma_A, positive=True)
        _check_gamma("gamma_I", self.gamma_I, positive=False)
        X = X if sp.issparse(X) else np.asarray(X, dtype=float)
        classes, labeled, y_enc = check_partial_labels(y)
        if np.asarray(y).shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {np.asarray(y).shape[0]}")
        self.classes_, self.labeled_, self.X_fit_ = classes, labeled, X
        graph = self._graph(X)
        self.graph_ = graph
        M = intrinsic_matrix(graph, self.laplacian, self.laplacian_degree)
        D2 = squared_distances(X)
        median = median_distance(D2)
        self.median_distance_ = median

        widths = self._width_candidates(median)
        gA = self._grid(self.gamma_A, self.gamma_A_grid, "gamma_A", positive=True)
        gI = self._grid(self.gamma_I, self.gamma_I_grid, "gamma_I", positive=False)
        if len(widths) * len(gA) * len(gI) > 1:
            cands = self._ordered_candidates(widths, gA, gI, median)
            key0 = (fingerprint(X), int(self.n_neighbors), self.weights,
                    None if self.sigma is None else float(self.sigma), self.metric,
                    self.laplacian, int(self.laplacian_degree))
            best, scores = select_on_labeled(
                cands, self._fold_predictor(D2, M, labeled, y_enc, classes.size, key0),
                y_enc, n_folds=self.cv_folds, random_state=self.random_state,
                reverse=self.cv_protocol == "one-fold-labeled")
            self.cv_candidates_, self.cv_scores_ = cands, scores
            width, gamma_A, gamma_I = best
        else:
            width, gamma_A, gamma_I = widths[0], gA[0], gI[0]
        self.kernel_width_ = float(width)
        self.gamma_A_, self.gamma_I_ = float(gamma_A), float(gamma_I)

        K = self._gram(X, X, width) if self.kernel_type == "linear" else rbf(D2, width)
        self._fit_coefficients(K, M, labeled, y_enc, classes.size)
        F = K @ self.alpha_ + self.intercept_
        self.transduction_ = classes[np.argmax(_as_scores(F), axis=1)]
        return self

    def _width_candidates(self, median):
        if self.kernel_type == "linear":
            return [1.0]  # no width: a placeholder candidate
        w = self.kernel_width
        if isinstance(w, str):
            if w == "mean-norm":
                return [mean_norm(self.X_fit_)]
            if w == "median":
                return [median]
            if w == "auto":
                return [float(f) * median for f in self.kernel_width_grid]
            raise ValueError("kernel_width must be a number, 'median', 'mean-norm' or 'auto', "
                             f"got {w!r}")
        if not w > 0:
            raise ValueError(f"kernel_width must be > 0, got {w}")
        return [float(w)]

    @staticmethod
    def _grid(value, grid, name, positive):
        if isinstance(value, str):
            grid = [float(g) for g in grid]
            if not grid:
                raise ValueError(f"{name}_grid is empty")
            for g in grid:
                _check_gamma(f"{name}_grid entry", g, positive)
            return grid
        return [float(value)]

    def _ordered_candidates(self, widths, gA, gI, median):
        """All combinations, the preferred of tied ones last (select_on_labeled's "last")."""
        cands = [(w, a, i) for w in widths for a in gA for i in gI]

        def pref(c):
            w, a, i = c
            return (i, -a, -abs(np.log(w / median)))

        return sorted(cands, key=pref)

    def _fold_predictor(self, D2, M, labeled, y_enc, n_classes, key0):
        """Fold fits through the deformed kernel (label-independent, eq. (11.15)-(11.16)).

        For each width, ``K~_r = G diag(1/(1 + r lam)) G^T`` (``r = gamma_I /
        (gamma_A (u+l)^2)``) over the labeled rows is formed once per ``r`` and
        shared by the folds; a fold fit is then RLS / SVM with ``K~`` on the
        fold's labeled training points, which is exactly LapRLS / LapSVM on the
        data with the fold's labels hidden.
        """
        n = D2.shape[0]
        bases, blocks = {}, {}

        def block(width, gamma_A, gamma_I):
            r = gamma_I / (gamma_A * n * n)
            key = (width, r)
            Kt = blocks.get(key)
            if Kt is None:
                if width not in bases:
                    G, lam = _cached_basis(key0 + (self.kernel_type, width), lambda: (
                        self._gram(self.X_fit_, self.X_fit_, width)
                        if self.kernel_type == "linear" else rbf(D2, width)), M)
                    bases[width] = (G[labeled], lam)
                GL, lam = bases[width]
                Kt = (GL / (1.0 + r * lam)) @ GL.T
                Kt = 0.5 * (Kt + Kt.T)
                blocks[key] = Kt
            return Kt

        def predict(cand, train, test):
            width, gamma_A, gamma_I = cand
            Kt = block(width, gamma_A, gamma_I)
            F = self._fold_scores(Kt[np.ix_(train, train)], Kt[np.ix_(test, train)],
                                  y_enc[train], n_classes, gamma_A)
            return np.argmax(F, axis=1)

        return predict

    def _gram(self, A, B, width):
        """The base kernel between point sets: RBF of the given width, or linear ``<a, b>``."""
        if getattr(self, "kernel_type", "rbf") == "linear":
            G = A @ B.T
            return np.asarray(G.todense() if sp.issparse(G) else G, dtype=float)
        return rbf(squared_distances(A, B), width)

    # -- prediction -----------------------------------------------------------
    def decision_function(self, X):
        """``f(x) = sum_i alpha_i K(x_i, x) + b`` over all l + u training points (eq. (11.6))."""
        check_is_fitted(self, "alpha_")
        Kx = self._gram(X, self.X_fit_, self.kernel_width_)
        return Kx @ self.alpha_ + self.intercept_

    def predict(self, X):
        return self.classes_[np.argmax(_as_scores(self.decision_function(X)), axis=1)]

    def kernel(self, A=None, B=None):
        """The deformed kernel ``K~(A, B)`` of eq. (11.15) at the fitted parameters.

        ``None`` means the training points.  ``RLS / SVM`` with it on the labeled
        points reproduce this estimator (eq. (11.16)).
        """
        check_is_fitted(self, "alpha_")
        Xf, w = self.X_fit_, self.kernel_width_
        K = self._gram(Xf, Xf, w)
        M = intrinsic_matrix(self.graph_, self.laplacian, self.laplacian_degree)
        if A is None and B is None:
            return deformed_kernel(K, M, self.gamma_A_, self.gamma_I_)
        Ka = K if A is None else self._gram(A, Xf, w)
        Kb = K if B is None else self._gram(B, Xf, w)
        Kab = self._gram(Xf if A is None else A, Xf if B is None else B, w)
        return deformed_kernel(K, M, self.gamma_A_, self.gamma_I_, K_a=Ka, K_b=Kb, K_ab=Kab)


class LapRLS(_ManifoldRegularizer):
    """Laplacian Regularized Least Squares, eq. (11.7).

    Squared loss ``V = (y_i - f(x_i))^2`` in eq. (11.5); ``alpha* = (J K +
    gamma_A l I + gamma_I l/(u+l)^2 L^p K)^{-1} Y`` and ``f(x) = sum_i alpha_i
    K(x_i, x)`` without bias, as in the paper.  One-vs-rest targets +-1 for
    more than two classes (all columns share one linear system).  Parameters:
    see :class:`_ManifoldRegularizer`.
    """

    def __init__(self, gamma_A="auto", gamma_I="auto", kernel_width="auto",
                 laplacian="unnormalized", laplacian_degree=1, n_neighbors=6,
                 weights="hein-maier", sigma=None, metric="euclidean",
                 gamma_A_grid=GAMMA_GRID, gamma_I_grid=GAMMA_GRID,
                 kernel_width_grid=WIDTH_FACTORS, cv_folds=5, random_state=0,
                 cv_protocol="standard", kernel_type="rbf"):
        self._init_params(gamma_A, gamma_I, kernel_width, laplacian, laplacian_degree,
                          n_neighbors, weights, sigma, metric, gamma_A_grid, gamma_I_grid,
                          kernel_width_grid, cv_folds, random_state)
        self.cv_protocol = cv_protocol
        self.kernel_type = kernel_type

    def _fit_coefficients(self, K, M, labeled, y_enc, n_classes):
        self.alpha_ = laprls_coefficients(K, M, labeled, _ovr_targets(y_enc, n_classes),
                                          self.gamma_A_, self.gamma_I_)
        self.intercept_ = 0.0 if n_classes == 2 else np.zeros(n_classes)

    @staticmethod
    def _fold_scores(K_tr, K_te, y_tr, n_classes, gamma_A):
        # RLS with the deformed kernel (eq. (11.16)) = LapRLS with the fold hidden
        T = _ovr_targets(y_tr, n_classes)
        l = y_tr.size
        a = np.linalg.solve(K_tr + gamma_A * l * np.eye(l), T)
        return _as_scores(K_te @ a)


class LapSVM(_ManifoldRegularizer):
    """Laplacian Support Vector Machine, eq. (11.8)-(11.10).

    Hinge loss in eq. (11.5).  The dual (11.8) over the l labeled points,
    ``max sum beta - 1/2 beta^T Q beta`` with ``Q`` of eq. (11.9) (symmetrized),
    ``0 <= beta_i <= 1/l`` and ``sum_i y_i beta_i = 0`` — the constraint of an
    unregularized bias b, as in Belkin et al. (JMLR 2006) — is solved by HiGHS;
    then ``alpha* = (2 gamma_A I + 2 gamma_I/(u+l)^2 L^p K)^{-1} J^T Y beta*``
    (eq. (11.10)) and ``f(x) = sum_i alpha_i K(x_i, x) + b``.  The bias is
    libsvm's rule (:func:`svm_intercept`): the mean over free support vectors,
    else the midpoint of the KKT interval.

    At ``gamma_I = 0`` this is the standard SVM on the labeled points with
    ``C = 1 / (2 gamma_A l)`` (substitute ``beta = 2 gamma_A beta'``).

    ``cv_solver`` (a choice made for speed): the cross-validation's fold fits
    solve the same dual with the deformed kernel by libsvm
    (``sklearn.svm.SVC(kernel="precomputed", C=1/(2 gamma_A l))``), about 3x faster
    than HiGHS on these tiny QPs; ``"highs"`` uses :func:`svm_dual_qp` there
    too.  The final fit always uses HiGHS.  Other parameters: see
    :class:`_ManifoldRegularizer`.
    """

    def __init__(self, gamma_A="auto", gamma_I="auto", kernel_width="auto",
                 laplacian="unnormalized", laplacian_degree=1, n_neighbors=6,
                 weights="hein-maier", sigma=None, metric="euclidean",
                 gamma_A_grid=GAMMA_GRID, gamma_I_grid=GAMMA_GRID,
                 kernel_width_grid=WIDTH_FACTORS, cv_folds=5, random_state=0,
                 cv_solver="libsvm", cv_protocol="standard", kernel_type="rbf"):
        self._init_params(gamma_A, gamma_I, kernel_width, laplacian, laplacian_degree,
                          n_neighbors, weights, sigma, metric, gamma_A_grid, gamma_I_grid,
                          kernel_width_grid, cv_folds, random_state)
        self.cv_solver = cv_solver
        self.cv_protocol = cv_protocol
        self.kernel_type = kernel_type

    def fit(self, X, y):
        if self.cv_solver not in ("libsvm", "highs"):
            raise ValueError(f"cv_solver must be 'libsvm' or 'highs', got {self.cv_solver!r}")
        return super().fit(X, y)

    def _fit_coefficients(self, K, M, labeled, y_enc, n_classes):
        Z, KZ_L = lapsvm_system(K, M, labeled, self.gamma_A_, self.gamma_I_)
        T = _ovr_targets(y_enc, n_classes)
        if T.ndim == 1:
            self.alpha_, self.intercept_, self.dual_coef_, _ = lapsvm_binary(Z, KZ_L, T)
            return
        cols = [lapsvm_binary(Z, KZ_L, T[:, k]) for k in range(n_classes)]
        self.alpha_ = np.column_stack([c[0] for c in cols])
        self.intercept_ = np.array([c[1] for c in cols])
        self.dual_coef_ = np.column_stack([c[2] for c in cols])

    def _fold_scores(self, K_tr, K_te, y_tr, n_classes, gamma_A):
        # standard SVM with the deformed kernel (eq. (11.16)), C = 1 / (2 gamma_A l)
        T = _ovr_targets(y_tr, n_classes)
        cols = T[:, None] if T.ndim == 1 else T
        C = 1.0 / (2.0 * gamma_A * y_tr.size)
        out = np.empty((K_te.shape[0], cols.shape[1]))
        for k in range(cols.shape[1]):
            t = cols[:, k]
            if np.all(t == t[0]):
                out[:, k] = t[0]
            elif self.cv_solver == "libsvm":
                with config_context(assume_finite=True, skip_parameter_validation=True):
                    svc = SVC(kernel="precomputed", C=C).fit(K_tr, t)
                # binary SVC: f = K(x, SV) dual_coef + intercept, positive for t = +1
                out[:, k] = K_te[:, svc.support_] @ svc.dual_coef_[0] + svc.intercept_[0]
            else:
                Q = t[:, None] * K_tr * t[None, :]
                beta, grad = svm_dual_qp(Q, t, C)
                out[:, k] = K_te @ (t * beta) + svm_intercept(grad, t, beta, C)
        return _as_scores(out[:, 0]) if T.ndim == 1 else out


# ---------------------------------------------------------------------------
# supervised baselines
# ---------------------------------------------------------------------------

class SVMBaseline(ClassifierMixin, BaseEstimator):
    """Supervised RBF SVM on the labeled points only (``sklearn.svm.SVC``).

    ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))`` (``gamma = 1 / (2 sigma^2)``).
    ``kernel_width``: a number, ``"median"`` or ``"auto"`` (multiples
    ``kernel_width_grid`` of the median pairwise distance); ``C``: a number or
    ``"auto"`` (from ``C_grid``); "auto" values are selected by ``cv_folds``-fold
    CV accuracy on the labeled points.  The median is taken over all rows of
    ``X`` (features only, no label — a choice, so that the baseline's width
    rule is that of :class:`LapSVM`).  Ties go to the width nearest the
    median, then to the largest C.  Multi-class is libsvm's one-vs-one.  With a
    single labeled class every point receives it.

    ``kernel="cosine"`` uses the cosine kernel ``<x, z> / (||x|| ||z||)``
    instead (no width; Liu et al. Sec. 5.2 use it for WebKB).
    """

    def __init__(self, C="auto", kernel_width="auto", C_grid=C_GRID,
                 kernel_width_grid=WIDTH_FACTORS, cv_folds=5, random_state=0, kernel="rbf"):
        self.kernel = kernel
        self.C = C
        self.kernel_width = kernel_width
        self.C_grid = C_grid
        self.kernel_width_grid = kernel_width_grid
        self.cv_folds = cv_folds
        self.random_state = random_state

    def fit(self, X, y):
        classes, labeled, y_enc = check_partial_labels(y)
        self.classes_, self.labeled_ = classes, labeled
        XL = X[labeled]
        if self.kernel not in ("rbf", "cosine"):
            raise ValueError(f"kernel must be 'rbf' or 'cosine', got {self.kernel!r}")
        cosine = self.kernel == "cosine"
        median = 1.0 if cosine else median_distance(squared_distances(X))
        self.median_distance_ = median
        w = self.kernel_width
        if cosine:
            widths = [1.0]
        elif w == "mean-norm":
            widths = [mean_norm(X)]
        elif isinstance(w, str):
            if w not in ("auto", "median"):
                raise ValueError(f"kernel_width must be a number, 'median' or 'auto', got {w!r}")
            widths = ([median] if w == "median"
                      else [float(f) * median for f in self.kernel_width_grid])
        else:
            if not w > 0:
                raise ValueError(f"kernel_width must be > 0, got {w}")
            widths = [float(w)]
        if isinstance(self.C, str):
            if self.C != "auto":
                raise ValueError(f"C must be a number or 'auto', got {self.C!r}")
            Cs = [float(c) for c in self.C_grid]
        else:
            if not self.C > 0:
                raise ValueError(f"C must be > 0, got {self.C}")
            Cs = [float(self.C)]
        if len(widths) * len(Cs) > 1 and classes.size > 1:
            cands = sorted([(wd, c) for wd in widths for c in Cs],
                           key=lambda t: (-abs(np.log(t[0] / median)), t[1]))
            D2L = None if cosine else squared_distances(XL)
            kernels = {}

            def predict(cand, train, test):
                wd, c = cand
                if wd not in kernels:
                    kernels[wd] = cosine_similarity(XL) if cosine else rbf(D2L, wd)
                K = kernels[wd]
                if np.unique(y_enc[train]).size < 2:
                    return np.full(test.size, y_enc[train][0])
                svc = SVC(kernel="precomputed", C=c).fit(K[np.ix_(train, train)], y_enc[train])
                return svc.predict(K[np.ix_(test, train)])

            (width, C), scores = select_on_labeled(cands, predict, y_enc, n_folds=self.cv_folds,
                                                   random_state=self.random_state)
            self.cv_candidates_, self.cv_scores_ = cands, scores
        else:
            width, C = widths[0], Cs[0]
        self.kernel_width_, self.C_ = float(width), float(C)
        if classes.size > 1 and cosine:
            self.X_labeled_ = XL
            self.svc_ = SVC(kernel="precomputed", C=C).fit(cosine_similarity(XL), y_enc)
        elif classes.size > 1:
            self.svc_ = SVC(kernel="rbf", gamma=1.0 / (2.0 * width**2), C=C).fit(XL, y_enc)
        else:
            self.svc_ = None
        self.transduction_ = self.predict(X)
        return self

    def decision_function(self, X):
        check_is_fitted(self, "classes_")
        if self.svc_ is None:
            return np.ones(X.shape[0])
        return self.svc_.decision_function(self._svc_input(X))

    def predict(self, X):
        check_is_fitted(self, "classes_")
        if self.svc_ is None:
            return np.full(X.shape[0], self.classes_[0])
        return self.classes_[self.svc_.predict(self._svc_input(X))]

    def _svc_input(self, X):
        return cosine_similarity(X, self.X_labeled_) if self.kernel == "cosine" else X


class OneNN(ClassifierMixin, BaseEstimator):
    """1-nearest-neighbour on the labeled points (Euclidean), a supervised baseline.

    ``decision_function`` gives minus the distance to the nearest labeled point
    of each class ((n, c); for two classes ``d_0 - d_1``, positive means
    ``classes_[1]``).
    """

    def __init__(self, metric="euclidean"):
        self.metric = metric

    def fit(self, X, y):
        classes, labeled, y_enc = check_partial_labels(y)
        self.classes_, self.labeled_ = classes, labeled
        self.X_labeled_, self.y_enc_ = X[labeled], y_enc
        self.knn_ = KNeighborsClassifier(n_neighbors=1, metric=self.metric).fit(X[labeled], y_enc)
        self.transduction_ = self.predict(X)
        return self

    def decision_function(self, X):
        check_is_fitted(self, "knn_")
        from sklearn.metrics import pairwise_distances

        D = pairwise_distances(X, self.X_labeled_, metric=self.metric)
        S = np.column_stack([-D[:, self.y_enc_ == k].min(axis=1)
                             for k in range(self.classes_.size)])
        return S[:, 1] - S[:, 0] if self.classes_.size == 2 else S

    def predict(self, X):
        check_is_fitted(self, "knn_")
        return self.classes_[self.knn_.predict(X)]
