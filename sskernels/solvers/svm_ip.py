"""The C-SVM dual of a small training set solved to optimality by an interior-point method.

One one-vs-one pair's dual (``Q = T K T``, ``t`` in {-1, +1}):

    min_beta  1/2 beta^T Q beta - 1^T beta   s.t.  t^T beta = 0,  0 <= beta <= C     (D)

:func:`svm_dual_ip` solves (D) by Mehrotra's predictor-corrector primal-dual method
(Nocedal & Wright, *Numerical Optimization*, 2nd ed., 2006, Sec. 16.6, with the slacks
``s = C - beta`` of the upper bounds kept as variables): each iteration factors the
``l x l`` matrix ``Q + diag(z / beta + w / s)`` once (Cholesky; a diagonal shift of
``1e-13 max diag Q``, grown a hundredfold until the factor exists, where ``Q`` is singular
on the free variables) and solves it for the predictor and the corrector.  On a dual of a
hundred variables that is about a dozen iterations and a millisecond or two, where libsvm's
SMO can run 10⁵ iterations on the nearly singular kernels of large C (Wang et al.'s BCI at
C ≥ 10³) and HiGHS's active-set QP takes several times longer.

Every answer is **certified**, whatever the iterations did.  With ``g = Q beta - 1 + y t``
(``y`` the multiplier of the equality row), convexity gives for every feasible ``beta'``

    q(beta') >= q(beta) - sum_i [g_i^+ beta_i + g_i^- (C - beta_i)] + y t^T beta,

so ``gap = sum_i [g_i^+ beta_i + g_i^- (C - beta_i)] - y t^T beta`` bounds the
suboptimality of ``beta`` once ``t^T beta = 0``.  The answer is accepted when
``gap / max(1, |q(beta)|) <= GAP_TOL`` and ``|t^T beta| <= FEAS_TOL C l``; otherwise
:class:`~sskernels.solvers.highs.SolverError` is raised and the caller's fallback (HiGHS's QP,
:func:`sskernels.solvers.svm.svm_dual_qp`) answers and is recorded.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs

from sskernels.solvers.highs import SolverError
from sskernels.solvers.report import SolveInfo

__all__ = ["FEAS_TOL", "GAP_TOL", "IP_MAX_ITER", "dual_certificate", "svm_dual_ip"]

#: the certificate's bound on the relative duality gap
GAP_TOL = 1e-9

#: the certificate's bound on the equality row's residual, relative to ``C l``
FEAS_TOL = 1e-10

#: iterations before the method gives up (a dual of 100 variables takes 10 to 20)
IP_MAX_ITER = 100

#: the fraction of the step to the boundary taken (Mehrotra's method keeps the iterates
#: interior)
_STEP = 0.99


def _max_step(x, dx):
    """The largest ``a`` with ``x + a dx >= 0`` (inf when ``dx >= 0``)."""
    neg = dx < 0
    return float(np.min(-x[neg] / dx[neg])) if neg.any() else np.inf


def dual_certificate(Q, t, C, beta, y):
    """``(objective, relative gap, relative residual)`` of ``beta`` for (D) (module docstring).

    Parameters
    ----------
    Q : ndarray of shape (l, l)
        The dual's matrix, symmetric positive semidefinite.
    t : ndarray of shape (l,)
        The targets in {-1, +1}.
    C : float
        The box bound.
    beta : ndarray of shape (l,)
        A point of the box ``[0, C]``.
    y : float
        A multiplier of the equality row.

    Returns
    -------
    objective : float
        ``q(beta) = 1/2 beta^T Q beta - 1^T beta``.
    gap : float
        The duality gap bound divided by ``max(1, |q(beta)|)``.
    residual : float
        ``|t^T beta| / (C l)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.solvers.svm_ip import dual_certificate
    >>> Q = np.eye(2); t = np.array([1.0, -1.0])
    >>> dual_certificate(Q, t, 10.0, np.array([1.0, 1.0]), 0.0)  # the optimum: no gap
    (-1.0, 0.0, 0.0)
    """
    Qb = Q @ beta
    g = Qb - 1.0 + y * t
    obj = 0.5 * float(beta @ Qb) - float(beta.sum())
    eq = float(t @ beta)
    gap = float(np.maximum(g, 0.0) @ beta + np.maximum(-g, 0.0) @ (C - beta)) - y * eq
    return obj, max(gap, 0.0) / max(1.0, abs(obj)), abs(eq) / (C * t.size)


def _factor(H, diag, dmax):
    """Cholesky factor of ``H`` in place, its diagonal shifted where ``H`` is singular."""
    shift = 0.0
    while True:
        c, info = dpotrf(H, lower=1, clean=0, overwrite_a=0)
        if info == 0:
            return c
        if info < 0 or shift > 1e-3 * dmax:
            raise SolverError(f"interior point: the Newton matrix has no Cholesky factor ({info})")
        new = max(100.0 * shift, 1e-13 * dmax)
        H.flat[diag] += new - shift
        shift = new


def svm_dual_ip(Q, t, C, max_iter=IP_MAX_ITER):
    """Solve the SVM dual (D) by the predictor-corrector interior-point method.

    Parameters
    ----------
    Q : array-like of shape (l, l)
        ``T K T``, symmetric positive semidefinite (symmetrized here).
    t : array-like of shape (l,)
        The targets in {-1, +1}, both present.
    C : float
        The box bound (> 0).
    max_iter : int, default=IP_MAX_ITER
        Iterations before giving up.

    Returns
    -------
    beta : ndarray of shape (l,)
        The optimum, in ``[0, C]`` (entries within ``1e-12 C`` of a bound set to it).
    grad : ndarray of shape (l,)
        ``Q beta - 1``, the gradient of (D) at ``beta``.
    info : SolveInfo
        ``"interior-point"`` with ``iterations``, ``gap`` and ``residual`` (the certificate).

    Raises
    ------
    SolverError
        When the iterations end without a certified optimum (the caller falls back).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.solvers.svm_ip import svm_dual_ip
    >>> Q = np.array([[1.0, 0.5], [0.5, 1.0]]) * np.outer([1, -1], [1, -1])
    >>> beta, grad, info = svm_dual_ip(Q, np.array([1.0, -1.0]), C=10.0)
    >>> beta.round(6), info.solver
    (array([2., 2.]), 'interior-point')
    """
    Q = np.asarray(Q, dtype=float)
    Q = 0.5 * (Q + Q.T)
    t = np.asarray(t, dtype=float)
    C = float(C)
    l = t.size
    b = np.full(l, 0.5 * C)
    s = b.copy()
    z = np.ones(l)
    w = np.ones(l)
    y = 0.0
    dmax = max(float(np.abs(np.diag(Q)).max(initial=0.0)), 1.0)
    H = np.empty((l, l), order="F")
    T = np.empty((l, 2), order="F")
    diag = np.arange(l) * (l + 1)
    it = 0
    for it in range(1, max_iter + 1):
        rd = Q @ b - 1.0 + t * y - z + w
        rp = float(t @ b)
        rs = b + s - C
        gap = float(b @ z + s @ w)
        mu = gap / (2 * l)
        zb, ws = z / b, w / s
        np.copyto(H, Q)
        H.flat[diag] += zb + ws
        c = _factor(H, diag, dmax)
        base = -rd - z + w - ws * rs
        T[:, 0], T[:, 1] = t, base
        X = dpotrs(c, T, lower=1)[0]
        Ht = X[:, 0]
        tHt = float(t @ Ht)
        # predictor (affine scaling): the Newton step of the KKT conditions
        dy = (float(t @ X[:, 1]) + rp) / tHt
        db = X[:, 1] - Ht * dy
        ds = -rs - db
        dz = -z - zb * db
        dw = -w - ws * ds
        ap = min(1.0, _max_step(b, db), _max_step(s, ds))
        ad = min(1.0, _max_step(z, dz), _max_step(w, dw))
        mu_aff = (float((b + ap * db) @ (z + ad * dz)) + float((s + ap * ds) @ (w + ad * dw))) / (
            2 * l
        )
        sigma = (mu_aff / mu) ** 3
        # corrector: centering sigma mu and the predictor's second-order terms
        cz = sigma * mu - db * dz
        cw = sigma * mu - ds * dw
        Hr = dpotrs(c, base + cz / b - cw / s, lower=1)[0]
        dy = (float(t @ Hr) + rp) / tHt
        db = Hr - Ht * dy
        ds = -rs - db
        dz = (cz - z * db) / b - z
        dw = (cw - w * ds) / s - w
        ap = min(1.0, _STEP * min(_max_step(b, db), _max_step(s, ds)))
        ad = min(1.0, _STEP * min(_max_step(z, dz), _max_step(w, dw)))
        b += ap * db
        s += ap * ds
        y += ad * dy
        z += ad * dz
        w += ad * dw
        if it % 2 == 0 or ap == 1.0:  # the certificate, on the point snapped to the box
            beta = _snap(b, C)
            obj, rgap, res = dual_certificate(Q, t, C, beta, y)
            if rgap <= GAP_TOL and res <= FEAS_TOL:
                info = SolveInfo(
                    "interior-point", stats={"iterations": it, "gap": rgap, "residual": res}
                )
                return beta, Q @ beta - 1.0, info
    beta = _snap(b, C)
    _, rgap, res = dual_certificate(Q, t, C, beta, y)
    raise SolverError(
        f"interior point: no certified optimum in {it} iterations (relative gap {rgap:.1e}, "
        f"residual {res:.1e})"
    )


def _snap(b, C):
    """``b`` clipped to ``[0, C]``, entries within ``1e-12 C`` of a bound set to it."""
    beta = np.clip(b, 0.0, C)
    band = 1e-12 * C
    beta[beta <= band] = 0.0
    beta[beta >= C - band] = C
    return beta
