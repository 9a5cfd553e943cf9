"""Kernel self-consistent labeling: leave-one-out rho-epsilon learning.

Paper: "Semi-supervised Learning using Kernel Self-consistent Labeling"
(``shared/papers/kernel-self-consistent-labeling.md``), Secs. 2-6.

* Kernel (Sec. 2, Sec. 6): ``K = K_0 + sigma_n^2 I`` with ``sigma_n^2 = 1e-4``
  (``noise``); ``K_0`` is the RBF kernel of eq. (17),
  ``k_0(x, z) = exp(-||x - z||^2 / (2 sigma^2))`` with the paper's ``sigma^2``
  (``sigma2``; Table 1 gives ``sigma^2_SVM`` and Sec. 6 uses
  ``sigma^2 = sigma^2_SVM / r``), or a given Gram matrix (``kernel="precomputed"``).
* Leave-one-out GP coefficients (Sec. 2): ``b_i^T`` is ``k_i^T T_i^{-1}`` with a
  0 inserted at ``i``, and the paper's ``B = (b_1, ..., b_N)`` has them as
  COLUMNS.  From one Cholesky factorization, with ``P = K^{-1}`` and
  ``D = diag(P)``: the matrix whose ROW i is ``b_i^T`` is ``I - D^{-1} P``
  (the GP leave-one-out mean ``y_i - (P y)_i / P_ii``), i.e. the paper's
  ``B^T = I - D^{-1} K^{-1}`` (:func:`loo_coefficients` returns the row form).
  Sec. 5's sequential matrix-inversion-lemma updates are not needed.
* Primal (2)-(6), with the index misprints fixed: the unlabeled sums and
  slacks run over ``j = L+1..N`` in (2), (6), (7), (9).  Labeled points need not
  come first: ``L`` and ``U`` are index sets of the training points.
* Dual (14)-(16) with ``x = (alpha, beta, gamma)``, ``R = (R_1, R_2, -R_2)`` of
  eq. (12): ``R_1 = (c_i b_i)_{i in L}``, ``R_2 = (e_j - b_j)_{j in U}``; solved
  as ``min 1/2 x^T R^T K R x - sum alpha + eps sum (beta + gamma)`` over the box
  ``[0, C_1]^L x [0, C_2]^{2U}`` by :func:`sskernels.solvers.boxqp.solve_box_qp`
  (HiGHS QP, certified by its duality gap).  Decision values ``y = K R x``, eq. (13).
* Multi-class (Sec. 6): one-against-all (``c_i = +1`` for the class, ``-1``
  otherwise), label = argmax of the decision values; two classes: one problem,
  ``c_i = +1`` for ``classes_[1]``, label ``sign(y)``.
* Induction (Sec. 4, after eq. (24)): the solution lies in the span of the
  kernels at the N training points, ``y = K a`` with ``a = R x``; a new point
  gets ``y(x) = k_x^T a`` with ``k_x = (k_0(x, x_1), ..., k_0(x, x_N))`` (no
  noise term: the noise of Sec. 2 is independent between distinct points).
  With ``kernel="precomputed"``, ``predict`` takes the (s, N) matrix ``k_0(x, x_i)``.

Choices the paper leaves open: ``sigma2`` default 1.0 (the paper tunes it per
data set, Table 1 / Sec. 6); ties of the argmax go to the first class; the eta
re-weighting of B (Sec. 4.2) is not implemented.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from sskernels.kernels.rbf import rbf, squared_distances
from sskernels.learners.base import SemiSupervisedClassifier, ovr_targets
from sskernels.solvers.boxqp import solve_box_qp


def loo_coefficients(K):
    """Row form of the GP prediction coefficients (Sec. 2): row i is ``b_i^T``.

    ``b_i^T y = k_i^T T_i^{-1} y_{-i}`` (``T_i``: K without row/column i), from
    one Cholesky factorization: ``I - diag(1 / diag K^{-1}) K^{-1}``; the paper's
    ``B = (b_1, ..., b_N)`` is its transpose.  Raises ``ValueError`` when K is
    not symmetric positive definite.
    """
    K = np.asarray(K, dtype=float)
    if not np.all(np.isfinite(K)):
        raise ValueError("kernel matrix has NaN or infinite entries")
    try:
        P = cho_solve(cho_factor(K, lower=True), np.eye(K.shape[0]))
    except LinAlgError:
        raise ValueError("kernel matrix K = K_0 + noise*I is not positive definite "
                         "(K_0 must be a valid, symmetric PSD Gram matrix)") from None
    P = 0.5 * (P + P.T)
    return np.eye(K.shape[0]) - P / np.diag(P)[:, None]


def dual_problem(K, Bt, labeled, c, C1, C2, epsilon):
    """Hessian ``R^T K R``, linear term, bounds of the dual (14)-(16) and ``R`` (eq. (12)).

    ``Bt`` is the row form of B (:func:`loo_coefficients`), ``c`` the +-1 labels of
    the points ``labeled``.  Variables: ``(alpha (L), beta (U), gamma (U))``.
    """
    n = K.shape[0]
    unl = np.setdiff1d(np.arange(n), labeled)
    R1 = Bt[labeled].T * c                       # columns c_i b_i, i in L
    R2 = (np.eye(n)[unl] - Bt[unl]).T            # columns e_j - b_j, j in U
    R = np.hstack([R1, R2, -R2])
    H = R.T @ (K @ R)
    L, U = labeled.size, unl.size
    f = np.concatenate([-np.ones(L), epsilon * np.ones(2 * U)])
    upper = np.concatenate([np.full(L, float(C1)), np.full(2 * U, float(C2))])
    return 0.5 * (H + H.T), f, np.zeros(L + 2 * U), upper, R


def primal_objective(K, Bt, labeled, c, C1, C2, epsilon, y):
    """Objective (2) at ``y`` with the optimal slacks of (3)-(6) (needs ``K^{-1} y``)."""
    unl = np.setdiff1d(np.arange(K.shape[0]), labeled)
    loo = Bt @ y
    hinge = np.maximum(0.0, 1.0 - c * loo[labeled]).sum()
    eps_loss = np.maximum(0.0, np.abs(loo[unl] - y[unl]) - epsilon).sum()
    return 0.5 * float(y @ np.linalg.solve(K, y)) + C1 * hinge + C2 * eps_loss


class SelfConsistentLabeling(SemiSupervisedClassifier):
    """Kernel self-consistent labeling (leave-one-out rho-epsilon learning), eqs. (2)-(16).

    Parameters
    ----------
    sigma2 : float > 0, default 1.0
        ``sigma^2`` of the RBF kernel eq. (17), ``exp(-||x - z||^2 / (2 sigma^2))``
        (ignored with ``kernel="precomputed"``).
    C1, C2 : float > 0, default 10
        Weights of the hinge loss on labeled / the epsilon-insensitive loss on
        unlabeled points, eq. (2) (Sec. 6: ``C_1 = C_2 = 10``).
    epsilon : float >= 0, default 1
        Width of the epsilon-insensitive loss, eqs. (4)-(5) (Sec. 6: 1).
    noise : float > 0, default 1e-4
        ``sigma_n^2`` added to the diagonal, ``K = K_0 + sigma_n^2 I`` (Sec. 6).
    kernel : {"rbf", "precomputed"}, default "rbf"
        ``"precomputed"``: ``fit(K_0, y)`` with the (N, N) Gram matrix,
        ``predict`` with the (s, N) kernel values to the training points.

    Attributes: ``dual_coef_`` (c, L+2U) or (1, L+2U) the dual solutions ``x``;
    ``expansion_`` (N, k) the coefficients ``a = R x``; ``decision_`` (N,) or
    (N, c) the decision values ``y = K R x`` (13); ``transduction_``;
    ``fit_report_`` (solver ``highs-qp``, duality gap and KKT residual per problem).
    """

    accept_sparse = False
    _parameter_constraints = {
        "sigma2": [Interval(Real, 0, None, closed="neither")],
        "C1": [Interval(Real, 0, None, closed="neither")],
        "C2": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"rbf", "precomputed"})],
    }

    def __init__(self, sigma2=1.0, C1=10.0, C2=10.0, epsilon=1.0, noise=1e-4, kernel="rbf"):
        self.sigma2 = sigma2
        self.C1 = C1
        self.C2 = C2
        self.epsilon = epsilon
        self.noise = noise
        self.kernel = kernel

    def _kernel0(self, A, B=None):
        """``K_0``: the RBF kernel eq. (17) with width ``sqrt(sigma2)``."""
        return rbf(squared_distances(A, B), np.sqrt(self.sigma2))

    def fit(self, X, y):
        X, labeled, y_enc = self._fit_start(X, y)
        n = X.shape[0]
        if self.kernel == "precomputed":
            if X.shape != (n, n):
                raise ValueError(f"kernel='precomputed' needs a square Gram matrix, got {X.shape}")
            if not np.allclose(X, X.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(X).max())):
                raise ValueError("kernel='precomputed': the Gram matrix is not symmetric")
            K0 = 0.5 * (X + X.T)
        else:
            self.X_fit_ = X
            K0 = self._kernel0(X)
        K = K0 + self.noise * np.eye(n)
        Bt = loo_coefficients(K)
        T = ovr_targets(y_enc, self.classes_.size)
        T = T[:, None] if T.ndim == 1 else T
        duals, expansions, self.solve_stats_ = [], [], []
        for k in range(T.shape[1]):
            H, f, lo, hi, R = dual_problem(K, Bt, labeled, T[:, k], self.C1, self.C2,
                                           self.epsilon)
            x, info = solve_box_qp(H, f, lo, hi)
            self.fit_report_.add(info, what=f"rho-eps dual (problem {k})")
            self.solve_stats_.append(info.stats)
            duals.append(x)
            expansions.append(R @ x)
        self.dual_coef_ = np.array(duals)
        self.expansion_ = np.column_stack(expansions)
        F = K @ self.expansion_
        self.decision_ = F[:, 0] if F.shape[1] == 1 else F
        if F.shape[1] == 1:
            self.transduction_ = self.classes_[(F[:, 0] > 0).astype(int)]
        else:
            self.transduction_ = self.classes_[np.argmax(F, axis=1)]
        if not np.any(self.expansion_):
            self.fit_report_.note("degenerate", "zero dual solution: every decision value is 0")
        self._note_constant_prediction(self.transduction_)
        return self

    def decision_function(self, X):
        """``y(x) = k_x^T R x`` (Sec. 4 induction); (s,) for two classes, else (s, c)."""
        check_is_fitted(self, "expansion_")
        X = self._check_X(X)
        Kx = X if self.kernel == "precomputed" else self._kernel0(X, self.X_fit_)
        if Kx.shape[1] != self.expansion_.shape[0]:
            raise ValueError(f"expected kernel values to {self.expansion_.shape[0]} training "
                             f"points, got {Kx.shape[1]}")
        F = Kx @ self.expansion_
        return F[:, 0] if F.shape[1] == 1 else F
