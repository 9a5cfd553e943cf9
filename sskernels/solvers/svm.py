"""The SVM dual of Laplacian SVM (eq. (11.8)) and its fallback rule, in one place.

``svm_dual_qp(Q, y, C)`` solves

    max  sum_i beta_i - 1/2 beta^T Q beta   s.t.  y^T beta = 0,  0 <= beta_i <= C

(Sindhwani, Belkin & Niyogi, eq. (11.8); with ``Q = Y K Y`` it is the C-SVM dual)
and returns ``(beta, grad, SolveInfo)``:

* ``"highs-qp"`` — HiGHS's QP solver (the model of
  :func:`sskernels.solvers.solve_qp`), the documented first choice, limited to
  :func:`qp_iterations` active-set iterations (and, as a last resort, :data:`QP_SECONDS`
  seconds);
* **fallback** ``"libsvm"`` — when HiGHS does not end at an optimum (its active-set QP can
  cycle: on a well-conditioned 10-variable LapSVM dual with a box of 5e-4, HiGHS 1.16 spins
  until any time limit, while the other duals of the same grid take at most 24 iterations
  and BCI's 80-variable SVM duals at C = 1e4 at most 536), libsvm's SMO solves the
  same dual (``SVC(kernel="precomputed")`` with the kernel ``y_i y_j Q_ij``,
  tolerance 1e-8).  The :class:`SolveInfo`'s ``fallback`` says which: the iteration limit,
  the time limit or the HiGHS error.  An iteration limit is the same on every machine and
  under any load, so which solver answers does not depend on the machine's speed.

:func:`svm_intercept` is libsvm's bias rule from the KKT conditions.
:func:`svm_precomputed_decision` is the libsvm route that LapSVM's
cross-validation uses *by choice* (``cv_solver="libsvm"``, for speed) on the
same dual with a deformed kernel: not a fallback.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC


from sskernels.solvers.highs import SolverError, solve_qp
from sskernels.solvers.report import SolveInfo

__all__ = [
    "QP_SECONDS",
    "qp_iterations",
    "svm_dual_qp",
    "svm_dual_libsvm",
    "svm_intercept",
    "svm_precomputed_decision",
]

#: seconds HiGHS may spend on one SVM dual before libsvm takes over (a last resort: the
#: iteration limit, :func:`qp_iterations`, ends a cycling solve first)
QP_SECONDS = 10.0


def qp_iterations(l):
    """HiGHS's active-set iteration limit for an SVM dual of ``l`` variables:
    ``max(10000, 100 l)``, at least 18 times the most any dual of the committed tables took
    (536 for 80 variables).

    Parameters
    ----------
    l : int
        The number of dual variables.

    Returns
    -------
    int
        The limit.

    Examples
    --------
    >>> from sskernels.solvers.svm import qp_iterations
    >>> qp_iterations(10), qp_iterations(500)
    (10000, 50000)
    """
    return max(10_000, 100 * int(l))


def svm_dual_libsvm(Q, y, C):
    """The dual of :func:`svm_dual_qp` solved by libsvm (SMO, tolerance 1e-8).

    libsvm's ``SVC(kernel="precomputed")`` is fitted on the kernel ``y_i y_j Q_ij``.

    Parameters
    ----------
    Q : ndarray of shape (l, l)
        The matrix of the dual (``Y K Y`` for a C-SVM on kernel ``K``).
    y : ndarray of shape (l,)
        The labels in {-1, +1}.
    C : float
        The box bound of ``beta``.

    Returns
    -------
    beta : ndarray of shape (l,)
        The dual solution: libsvm's ``|dual_coef_|`` at the support vectors, 0 elsewhere.
    """
    K = y[:, None] * Q * y[None, :]
    svc = SVC(kernel="precomputed", C=float(C), tol=1e-8).fit(K, (y > 0).astype(int))
    beta = np.zeros(y.size)
    beta[svc.support_] = np.abs(svc.dual_coef_.ravel())
    return beta


def _fallback_reason(exc, time_limit, iterations):
    if "iteration limit" in str(exc).lower():
        return f"svm-dual highs->libsvm (iteration limit {iterations:,})"
    if "time limit" in str(exc).lower():
        return f"svm-dual highs->libsvm (time limit {time_limit:g} s)"
    return f"svm-dual highs->libsvm (HiGHS error: {exc})"


def _highs_dual(Q, y, C, time_limit, iterations):
    """The dual by HiGHS (:func:`sskernels.solvers.solve_qp`: the lower triangle of ``Q``, one
    equality row ``y^T beta = 0``, the box ``[0, C]``) with an iteration limit."""
    l = y.size
    return solve_qp(
        Q,
        -np.ones(l),
        y[None, :].astype(float),
        0.0,
        0.0,
        0.0,
        float(C),
        time_limit=time_limit,
        iteration_limit=iterations,
    )[0]


def svm_dual_qp(Q, y, C, time_limit=QP_SECONDS):
    """Solve the SVM dual of eq. (11.8) with HiGHS, libsvm as the fallback.

    The dual is ``max sum beta - 1/2 beta^T Q beta  s.t.  y^T beta = 0, 0 <= beta <= C``.
    ``Q`` is symmetrized first.  HiGHS answers; when it does not end at an optimum
    (:func:`qp_iterations` iterations, time limit ``time_limit`` seconds, or another
    non-optimal end) libsvm solves the same dual and the returned
    :class:`SolveInfo` names the reason (module docstring).  ``beta`` is clipped
    to the box.  Returns ``(beta, grad, info)`` with ``grad = Q beta - 1``.

    Parameters
    ----------
    Q : ndarray of shape (l, l)
        The matrix of the dual (``Y K Y`` for a C-SVM on kernel ``K``).
    y : ndarray of shape (l,)
        The labels in {-1, +1}.
    C : float
        The box bound of ``beta``.
    time_limit : float, default=QP_SECONDS
        Seconds HiGHS may spend before libsvm takes over.

    Returns
    -------
    beta : ndarray of shape (l,)
        The dual solution, clipped to ``[0, C]``.
    grad : ndarray of shape (l,)
        The gradient ``Q beta - 1`` of the dual in minimization form (symmetrized ``Q``).
    info : SolveInfo
        ``"highs-qp"``, or ``"libsvm"`` with the fallback's reason.
    """
    Q = 0.5 * (Q + Q.T)
    iterations = qp_iterations(y.size)
    try:
        beta = _highs_dual(Q, y, C, time_limit, iterations)
        info = SolveInfo("highs-qp")
    except SolverError as exc:
        beta = svm_dual_libsvm(Q, y, C)
        info = SolveInfo("libsvm", fallback=_fallback_reason(exc, time_limit, iterations))
    beta = np.clip(beta, 0.0, C)
    return beta, Q @ beta - 1.0, info


def svm_intercept(grad, y, beta, C, rtol=1e-6):
    """Bias from the KKT conditions of the SVM dual, libsvm's rule.

    ``grad`` is the gradient ``Q beta - 1`` of the dual (minimization form).
    With ``yG_i = y_i grad_i``: the mean of ``-yG_i`` over free support vectors
    (``0 < beta_i < C``, where ``y_i f(x_i) = 1``), else the midpoint of the
    interval the bounded ``beta_i`` leave for ``b`` (Chang & Lin, LIBSVM,
    Sec. 4.1.5).

    Parameters
    ----------
    grad : ndarray of shape (l,)
        The gradient ``Q beta - 1`` of the dual.
    y : ndarray of shape (l,)
        The labels in {-1, +1}.
    beta : ndarray of shape (l,)
        The dual solution, in ``[0, C]``.
    C : float
        The box bound of ``beta``.
    rtol : float, default=1e-6
        A ``beta_i`` within ``rtol * C`` of 0 or ``C`` counts as bounded.

    Returns
    -------
    float
        The bias ``b`` (libsvm's ``-rho``).
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


def svm_precomputed_decision(K_tr, t, K_te, C):
    """``f`` on test points of the C-SVM with a precomputed kernel, by libsvm (default tol).

    ``K_tr`` (l, l) the training Gram matrix, ``t`` the labels in {-1, +1},
    ``K_te`` (s, l) test-by-training kernel.  Returns ``K_te[:, SV] dual_coef + b``
    (positive for ``t = +1``).  The same dual as :func:`svm_dual_qp` with
    ``Q = Y K_tr Y``, at libsvm's default tolerance 1e-3: a speed choice of
    LapSVM's cross-validation, not a fallback.

    Parameters
    ----------
    K_tr : ndarray of shape (l, l)
        The training Gram matrix.
    t : ndarray of shape (l,)
        The labels in {-1, +1}, both present.
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
        If libsvm's dual coefficients are not finite, or ``t`` has one class (``SVC``'s
        errors).
    """
    from sskernels.solvers.libsvm import fit_precomputed

    # libsvm called as SVC calls it (sskernels.solvers.libsvm): the same solution, bit for
    # bit, without SVC's per-fit validation (LapSVM's CV fits ~1,200 of these a split)
    return fit_precomputed(K_tr, t, C).binary_decision(K_te)
