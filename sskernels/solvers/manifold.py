"""Closed forms and the dual of manifold regularization (LapRLS, LapSVM).

Sindhwani, Belkin & Niyogi, Sec. 11.3.1 (Belkin, Niyogi & Sindhwani, JMLR 2006):

* :func:`laprls_coefficients` — ``alpha`` of eq. (11.7), one LU solve
  (``numpy.linalg.solve``: the matrix is not symmetric);
* :func:`lapsvm_system` — the label-independent ``Z`` of eq. (11.9)-(11.10);
* :func:`lapsvm_binary` — one binary LapSVM: ``Q`` of eq. (11.9), the dual
  eq. (11.8) by :func:`sskernels.solvers.svm.svm_dual_qp` (HiGHS; libsvm as its
  reported fallback) and ``alpha`` of eq. (11.10).

The estimators are :class:`sskernels.learners.manifold.LapRLS` and ``LapSVM``.
"""

from __future__ import annotations

import numpy as np

from sskernels.errors import ParameterError
from sskernels.kernels.deformed import intrinsic_product
from sskernels.solvers.svm import svm_dual_qp, svm_intercept

__all__ = ["laprls_coefficients", "lapsvm_system", "lapsvm_binary"]


def _check_gammas(gamma_A, gamma_I):
    if not gamma_A > 0:
        raise ParameterError(f"gamma_A must be > 0, got {gamma_A}")
    if gamma_I < 0:
        raise ParameterError(f"gamma_I must be >= 0, got {gamma_I}")


def laprls_coefficients(K, M, labeled, Y_L, gamma_A, gamma_I):
    """LapRLS expansion coefficients, eq. (11.7).

    ``alpha = (J K + gamma_A l I + gamma_I l / (u+l)^2 M K)^{-1} Y`` with ``J``
    the diagonal selector of the labeled points and ``Y`` the labels padded with
    zeros; ``Y_L`` may have several columns (one-vs-rest).  Returns (n,) or
    (n, c) as ``Y_L``.  Solved by LU (``numpy.linalg.solve``; the matrix is not
    symmetric).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The Gram matrix of the ``n = l + u`` training points.
    M : ndarray or sparse matrix of shape (n, n)
        The intrinsic regularizer (``L^p``).
    labeled : array-like of shape (l,)
        The indices of the labeled points.
    Y_L : array-like of shape (l,) or (l, c)
        Their targets.
    gamma_A : float
        The ambient regularization (> 0).
    gamma_I : float
        The intrinsic regularization (>= 0; 0 drops the ``M K`` term).

    Returns
    -------
    alpha : ndarray of shape (n,) or (n, c)
        The expansion coefficients, shaped as ``Y_L``.

    Raises
    ------
    ParameterError
        If ``gamma_A <= 0`` or ``gamma_I < 0``.
    """
    n = K.shape[0]
    labeled = np.asarray(labeled)
    l = labeled.size
    _check_gammas(gamma_A, gamma_I)
    A = gamma_A * l * np.eye(n)
    A[labeled] += K[labeled]
    if gamma_I > 0:
        A += (gamma_I * l / n**2) * intrinsic_product(M, K)
    Y = np.zeros((n,) + np.shape(Y_L)[1:])
    Y[labeled] = Y_L
    return np.linalg.solve(A, Y)


def lapsvm_system(K, M, labeled, gamma_A, gamma_I):
    """``Z = (2 gamma_A I + 2 gamma_I/(u+l)^2 M K)^{-1} J^T``, (n, l), and ``K_L Z``.

    ``Z`` is label-independent: eq. (11.9) is ``Q = Y (K Z)_L Y`` and eq. (11.10)
    ``alpha = Z Y beta`` for every one-vs-rest problem.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The Gram matrix of the ``n = l + u`` training points.
    M : ndarray or sparse matrix of shape (n, n)
        The intrinsic regularizer (``L^p``).
    labeled : array-like of shape (l,)
        The indices of the labeled points.
    gamma_A : float
        The ambient regularization (> 0).
    gamma_I : float
        The intrinsic regularization (>= 0; 0 gives ``Z = J^T / (2 gamma_A)``).

    Returns
    -------
    Z : ndarray of shape (n, l)
        ``(2 gamma_A I + 2 gamma_I/(u+l)^2 M K)^{-1} J^T``.
    KZ_L : ndarray of shape (l, l)
        ``K_L Z``, the rows of ``K Z`` of the labeled points.

    Raises
    ------
    ParameterError
        If ``gamma_A <= 0`` or ``gamma_I < 0``.
    """
    n = K.shape[0]
    labeled = np.asarray(labeled)
    _check_gammas(gamma_A, gamma_I)
    JT = np.zeros((n, labeled.size))
    JT[labeled, np.arange(labeled.size)] = 1.0
    if gamma_I > 0:
        A = 2.0 * gamma_A * np.eye(n) + (2.0 * gamma_I / n**2) * intrinsic_product(M, K)
        Z = np.linalg.solve(A, JT)
    else:
        Z = JT / (2.0 * gamma_A)
    return Z, K[labeled] @ Z


def lapsvm_binary(Z, KZ_L, y, report=None):
    """One binary LapSVM, eq. (11.8)-(11.10), for labels ``y`` in {-1, +1} (length l).

    Box ``0 <= beta_i <= 1/l`` and ``sum beta_i y_i = 0`` (the bias of Belkin
    et al., JMLR 2006); the dual by :func:`~sskernels.solvers.svm.svm_dual_qp`
    (HiGHS, or libsvm as its fallback), whose :class:`SolveInfo` is added to
    ``report`` (a :class:`~sskernels.solvers.report.FitReport`) when given.
    Returns ``(alpha, b, beta, Q)``.  When all labels are equal there is no
    margin to find: ``alpha = 0`` and ``b = y_1`` (a degenerate case, noted).

    Parameters
    ----------
    Z : ndarray of shape (n, l)
        The label-independent ``Z`` of :func:`lapsvm_system`.
    KZ_L : ndarray of shape (l, l)
        ``K_L Z``, from :func:`lapsvm_system`.
    y : array-like of shape (l,)
        The labels in {-1, +1}.
    report : FitReport, default=None
        The fit report that receives the dual's :class:`SolveInfo` and the degenerate
        note; None for none.

    Returns
    -------
    alpha : ndarray of shape (n,)
        The expansion coefficients, eq. (11.10).
    b : float
        The bias.
    beta : ndarray of shape (l,)
        The dual solution.
    Q : ndarray of shape (l, l) or None
        The dual's matrix, eq. (11.9); None when all labels are equal.
    """
    y = np.asarray(y, dtype=float)
    l = y.size
    if np.all(y == y[0]):
        if report is not None:
            report.note("degenerate", "a one-vs-rest problem with one class: constant f")
        return np.zeros(Z.shape[0]), float(y[0]), np.zeros(l), None
    Q = y[:, None] * KZ_L * y[None, :]  # eq. (11.9)
    Q = 0.5 * (Q + Q.T)
    C = 1.0 / l
    beta, grad, info = svm_dual_qp(Q, y, C)
    if report is not None:
        report.add(info)
    alpha = Z @ (y * beta)  # eq. (11.10)
    b = svm_intercept(grad, y, beta, C)
    return alpha, b, beta, Q
