"""Linear manifold regularization: primal Laplacian RLS and Laplacian SVM.

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning",
Sec. 11.5 (linear methods).  With ``f(x) = w^T x`` the objective eq. (11.5),

    (1/l) sum_{i<=l} V(x_i, y_i, f) + gamma_A ||w||^2 + gamma_I / (u+l)^2  f^T M f,

``f = X w`` over all ``n = l + u`` training points and ``M = L^p`` (the same
intrinsic regularizer as :mod:`sskernels.learners.manifold`), is a
``d``-dimensional problem.

* :class:`LinearLapRLS` — squared loss.  Setting the gradient to zero and
  multiplying by ``l`` gives eq. (11.18),

      (X_L^T X_L + gamma_A l I + gamma_I l / (u+l)^2  X^T M X) w = X_L^T Y,

  the exact normalization of eq. (11.7): with ``K = X X^T`` the kernel
  LapRLS of eq. (11.7) gives ``f(x) = x^T X^T alpha = x^T w`` (push-through
  identity), so both learners produce the same function.  Solved directly
  (dense ``d x d`` Cholesky-free ``solve``) or by conjugate gradients with
  a matrix-free operator ``v -> X_L^T (X_L v) + gamma_A l v + c X^T (M (X v))``
  (``c = gamma_I l / (u+l)^2``) that never forms ``X^T M X`` — fit for large
  sparse ``X``.
* :class:`LinearLapSVM` — hinge loss through the Cholesky pre-processing of
  Sec. 11.5: ``T T^T = gamma_A I + gamma_I / (u+l)^2 X^T M X``; with
  ``x~ = T^{-1} x`` and ``w~ = T^T w`` the problem is a standard linear SVM on
  the labeled points, ``(1/l) sum hinge + ||w~||^2``, i.e. libsvm with
  ``C = 1 / (2 l)``; ``w = T^{-T} w~``.  Dense ``d x d`` (small ``d`` only).

Conventions (as :class:`sskernels.learners.manifold.LapRLS`): ``y == -1``
marks unlabeled points; one-vs-rest targets in {-1, +1}, two classes solved
once (positive = ``classes_[1]``); ``coef_`` is (d,) for two classes, else
(d, c) (one column per class, all solved as multiple right-hand sides);
``decision_function`` is (n,) for two classes, else (n, c).

``fit_intercept=True`` (LapRLS) adds an *unpenalized* bias ``b``:
``f(x) = w^T x + b`` with ``b`` in the loss and in the graph term
(``(Xw + b 1)^T M (Xw + b 1)``; for the unnormalized Laplacian ``M 1 = 0`` and
``b`` drops out of it) but not in ``gamma_A ||w||^2``; solved jointly as the
augmented ``(d+1)`` system with ``Z = [X, 1]`` and no ridge on the last
coordinate.  The chapter's eq. (11.18) has no bias (``fit_intercept=False``,
the default).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from sskernels.learners.base import GraphParams, check_partial_labels
from sskernels.learners.manifold import _as_scores, _ovr_targets, intrinsic_matrix

SOLVERS = ("auto", "direct", "cg")
#: "auto" uses the direct solver up to this dimension (dense X only)
DIRECT_MAX_DIM = 2000


def _as_matrix(X):
    if sp.issparse(X):
        return sp.csr_matrix(X, dtype=float)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    return X


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _check_params(gamma_A, gamma_I):
    if not gamma_A > 0:
        raise ValueError(f"gamma_A must be > 0, got {gamma_A}")
    if not gamma_I >= 0:
        raise ValueError(f"gamma_I must be >= 0, got {gamma_I}")


class _LinearManifold(GraphParams, ClassifierMixin, BaseEstimator):
    """Shared fit scaffolding: labels, graph, ``M = L^p``, inductive linear prediction."""

    def _prepare(self, X, y):
        _check_params(self.gamma_A, self.gamma_I)
        X = _as_matrix(X)
        y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        classes, labeled, y_enc = check_partial_labels(y)
        self.classes_, self.labeled_ = classes, labeled
        self.n_features_in_ = X.shape[1]
        if self.gamma_I > 0:
            graph = self._graph(X)
            self.graph_ = graph
            M = intrinsic_matrix(graph, self.laplacian, self.laplacian_degree)
        else:
            M = None                               # graph term vanishes
        return X, M, labeled, _ovr_targets(y_enc, classes.size)

    def _finish(self, X):
        self.transduction_ = self.classes_[np.argmax(_as_scores(self.decision_function(X)),
                                                     axis=1)]
        return self

    def decision_function(self, X):
        """``f(x) = x^T w (+ b)``: defined on any point (inductive)."""
        check_is_fitted(self, "coef_")
        X = _as_matrix(X)
        if X.shape[1] != self.coef_.shape[0]:
            raise ValueError(f"X has {X.shape[1]} features, the model {self.coef_.shape[0]}")
        return np.asarray(X @ self.coef_) + self.intercept_

    def predict(self, X):
        return self.classes_[np.argmax(_as_scores(self.decision_function(X)), axis=1)]


class LinearLapRLS(_LinearManifold):
    """Primal linear Laplacian RLS, eq. (11.18).

    Parameters
    ----------
    gamma_A : ambient regularization (> 0), the ``gamma_A ||w||^2`` of eq. (11.5).
    gamma_I : intrinsic regularization (>= 0); graph term ``gamma_I/(u+l)^2 f^T L^p f``.
    solver : ``"direct"`` (dense ``d x d`` solve), ``"cg"`` (matrix-free conjugate
        gradients, one run per right-hand side) or ``"auto"`` (direct when
        ``d <= 2000`` and ``X`` is dense, else CG).
    laplacian, laplacian_degree : ``"unnormalized"`` (``L = D - W``) or
        ``"normalized"``, and ``p`` of ``L^p``.
    n_neighbors, weights, sigma, metric : the package's k-NN graph.
    fit_intercept : unpenalized bias (see the module docstring); default False
        (eq. (11.18) as printed).
    cg_tol, cg_maxiter : relative residual tolerance and iteration cap of CG
        (``None`` = scipy's default, 10 * dimension).

    Fitted: ``classes_``, ``labeled_``, ``coef_`` ((d,) for two classes, else
    (d, c)), ``intercept_`` (0.0 / zeros unless ``fit_intercept``),
    ``solver_`` ("direct" or "cg"), ``n_iter_`` (CG iterations per column),
    ``transduction_``; after an "auto" selection ``gamma_A_``, ``gamma_I_``,
    ``cv_candidates_``, ``cv_scores_``.  The grids are small (3 x 4) by choice:
    every candidate costs one CG solve per fold.
    """

    def __init__(self, gamma_A=1e-2, gamma_I=1e-2, solver="auto", laplacian="unnormalized",
                 laplacian_degree=1, n_neighbors=6, weights="hein-maier", sigma=None,
                 metric="euclidean", fit_intercept=False, cg_tol=1e-10, cg_maxiter=None,
                 gamma_A_grid=(1e-4, 1e-2, 1.0), gamma_I_grid=(0.0, 1e-2, 1.0, 100.0),
                 cv_folds=5, random_state=0):
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.solver = solver
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.fit_intercept = fit_intercept
        self.cg_tol = cg_tol
        self.cg_maxiter = cg_maxiter
        self.gamma_A_grid = gamma_A_grid
        self.gamma_I_grid = gamma_I_grid
        self.cv_folds = cv_folds
        self.random_state = random_state

    def fit(self, X, y):
        """Fit; ``gamma_A``/``gamma_I`` given as ``"auto"`` are first selected on the labeled
        points by ``cv_folds``-fold CV over ``gamma_A_grid`` x ``gamma_I_grid`` (each fold's
        labels hidden, the unlabeled points kept in the graph term; ties to the largest
        gamma_I, then the smallest gamma_A, as for the kernel LapRLS)."""
        if isinstance(self.gamma_A, str) or isinstance(self.gamma_I, str):
            return self._fit_selected(X, y)
        return self._fit_fixed(X, y)

    def _fit_selected(self, X, y):
        from sklearn.base import clone

        from sskernels.learners.base import check_partial_labels
        from sskernels.learners.selection import select_on_labeled

        for name in ("gamma_A", "gamma_I"):
            value = getattr(self, name)
            if isinstance(value, str) and value != "auto":
                raise ValueError(f"{name} must be a number or 'auto', got {value!r}")
        gA = list(self.gamma_A_grid) if self.gamma_A == "auto" else [self.gamma_A]
        gI = list(self.gamma_I_grid) if self.gamma_I == "auto" else [self.gamma_I]
        cands = sorted(((a, i) for a in gA for i in gI), key=lambda c: (c[1], -c[0]))
        y = np.asarray(y)
        _, labeled, y_enc = check_partial_labels(y)

        def predict_fold(cand, train, test):
            y_fold = y.copy()
            y_fold[labeled[test]] = -1
            est = clone(self).set_params(gamma_A=cand[0], gamma_I=cand[1])
            pred = est._fit_fixed(X, y_fold).transduction_[labeled[test]]
            return np.searchsorted(np.unique(y[labeled]), pred)

        (a, i), self.cv_scores_ = select_on_labeled(cands, predict_fold, y_enc,
                                                    n_folds=self.cv_folds,
                                                    random_state=self.random_state)
        self.cv_candidates_ = cands
        fitted = clone(self).set_params(gamma_A=a, gamma_I=i)._fit_fixed(X, y)
        self.__dict__.update({k: v for k, v in fitted.__dict__.items() if k.endswith("_")})
        self.gamma_A_, self.gamma_I_ = float(a), float(i)
        return self

    def _fit_fixed(self, X, y):
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {self.solver!r}")
        X, M, labeled, T = self._prepare(X, y)
        n, d = X.shape
        l = labeled.size
        solver = self.solver
        if solver == "auto":
            solver = "direct" if (d <= DIRECT_MAX_DIM and not sp.issparse(X)) else "cg"
        self.solver_ = solver
        c = self.gamma_I * l / float(n * n)
        XL = X[labeled]
        Y = T if T.ndim == 2 else T[:, None]
        rhs = np.asarray(XL.T @ Y)                                  # (d, k)
        if self.fit_intercept:
            rhs = np.vstack([rhs, Y.sum(axis=0, keepdims=True)])
        ridge = np.full(rhs.shape[0], self.gamma_A * l)
        if self.fit_intercept:
            ridge[-1] = 0.0                                         # unpenalized bias
        if solver == "direct":
            W = self._direct(X, XL, M, c, ridge, rhs)
            self.n_iter_ = None
        else:
            W = self._cg(X, XL, M, c, ridge, rhs)
        if self.fit_intercept:
            W, b = W[:-1], W[-1]
        else:
            b = np.zeros(W.shape[1])
        if T.ndim == 1:
            self.coef_, self.intercept_ = W[:, 0], float(b[0])
        else:
            self.coef_, self.intercept_ = W, b
        return self._finish(X)

    def _augment(self, A):
        if not self.fit_intercept:
            return A
        ones = np.ones((A.shape[0], 1))
        return sp.hstack([A, ones], format="csr") if sp.issparse(A) else np.hstack([A, ones])

    def _direct(self, X, XL, M, c, ridge, rhs):
        Z, ZL = self._augment(X), self._augment(XL)
        A = _dense(ZL.T @ ZL) + np.diag(ridge)
        if M is not None and c > 0:
            A = A + c * _dense(Z.T @ _dense(M @ Z) if not sp.issparse(Z) else Z.T @ (M @ Z))
        A = 0.5 * (A + A.T)
        try:
            return sla.solve(A, rhs, assume_a="pos")
        except (np.linalg.LinAlgError, sla.LinAlgError):
            return np.linalg.solve(A, rhs)

    def _cg(self, X, XL, M, c, ridge, rhs):
        dim = rhs.shape[0]
        d = X.shape[1]
        fi = self.fit_intercept
        use_graph = M is not None and c > 0

        def matvec(v):
            v = np.asarray(v, dtype=float).ravel()
            w, b = (v[:d], v[d]) if fi else (v, 0.0)
            fL = XL @ w + b                                         # X_L v (+ b)
            out = np.empty(dim)
            out[:d] = XL.T @ fL
            if fi:
                out[d] = fL.sum()
            if use_graph:
                g = M @ (X @ w + b)                                 # L (X v), never X^T L X
                out[:d] += c * (X.T @ g)
                if fi:
                    out[d] += c * g.sum()
            return out + ridge * v

        op = LinearOperator((dim, dim), matvec=matvec, dtype=float)
        W = np.zeros_like(rhs)
        iters = []
        for j in range(rhs.shape[1]):
            count = [0]

            def cb(_xk, count=count):
                count[0] += 1

            sol, info = cg(op, rhs[:, j], rtol=self.cg_tol, atol=0.0,
                           maxiter=self.cg_maxiter, callback=cb)
            if info > 0:
                warnings.warn(f"CG did not converge in {info} iterations (column {j})",
                              RuntimeWarning, stacklevel=3)
            elif info < 0:
                raise RuntimeError(f"CG failed (info={info}) on column {j}")
            W[:, j] = sol
            iters.append(count[0])
        self.n_iter_ = np.asarray(iters)
        return W


class LinearLapSVM(_LinearManifold):
    """Linear Laplacian SVM by the Cholesky pre-processing of Sec. 11.5.

    Minimizes ``(1/l) sum_i max(0, 1 - y_i (w^T x_i + b)) + w^T (T T^T) w`` with
    ``T T^T = gamma_A I + gamma_I/(u+l)^2 X^T L^p X`` (Cholesky, dense ``d x d``:
    small ``d`` only).  With ``x~ = T^{-1} x`` it is the standard SVM
    ``1/2 ||w~||^2 + C sum hinge`` with ``C = 1/(2l)`` on the labeled points
    (libsvm, linear kernel on ``x~``, tolerance ``tol``), ``w = T^{-T} w~``.  The
    bias ``b`` is unpenalized and, as in the kernel LapSVM (eq. (11.8)-(11.10)),
    not part of the graph term.  One-vs-rest for more than two classes.
    Parameters as :class:`LinearLapRLS` (no solver / intercept options).
    """

    def __init__(self, gamma_A=1e-2, gamma_I=1e-2, laplacian="unnormalized",
                 laplacian_degree=1, n_neighbors=6, weights="hein-maier", sigma=None,
                 metric="euclidean", tol=1e-8):
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.tol = tol

    def fit(self, X, y):
        X, M, labeled, T = self._prepare(X, y)
        n, d = X.shape
        l = labeled.size
        P = self.gamma_A * np.eye(d)
        if M is not None:
            P = P + (self.gamma_I / float(n * n)) * _dense(X.T @ _dense(M @ X)
                                                           if not sp.issparse(X)
                                                           else X.T @ (M @ X))
        P = 0.5 * (P + P.T)
        Tc = np.linalg.cholesky(P)                                   # P = Tc Tc^T
        XL = _dense(X[labeled])
        Xt = sla.solve_triangular(Tc, XL.T, lower=True).T             # rows x~ = T^{-1} x
        Kt = Xt @ Xt.T
        Ys = T if T.ndim == 2 else T[:, None]
        W = np.zeros((d, Ys.shape[1]))
        b = np.zeros(Ys.shape[1])
        for j in range(Ys.shape[1]):
            yj = Ys[:, j]
            if np.all(yj == yj[0]):
                b[j] = yj[0]
                continue
            svc = SVC(kernel="precomputed", C=1.0 / (2.0 * l), tol=self.tol)
            svc.fit(Kt, (yj > 0).astype(int))
            coef = np.zeros(l)
            coef[svc.support_] = svc.dual_coef_.ravel()              # beta_i y_i (class 1 = +)
            wt = Xt.T @ coef                                         # w~
            W[:, j] = sla.solve_triangular(Tc.T, wt, lower=False)    # w = T^{-T} w~
            b[j] = float(svc.intercept_[0])
        if T.ndim == 1:
            self.coef_, self.intercept_ = W[:, 0], float(b[0])
        else:
            self.coef_, self.intercept_ = W, b
        return self._finish(X)
