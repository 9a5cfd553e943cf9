"""Bound-constrained convex QP with a certificate: ``min 1/2 x^T H x + f^T x, l <= x <= u``.

The documented solver is HiGHS's QP (:func:`sskernels.solvers.highs.solve_qp`
with bounds only, no rows).  Every answer is *certified* by a duality gap that
does not trust the solver: with ``g = H x + f`` the point
``(w, lambda_l, lambda_u) = (x, g^+, g^-)`` is feasible for the Wolfe dual
``max -1/2 w^T H w + lambda_l^T l - lambda_u^T u  s.t.  H w + f = lambda_l - lambda_u``,
so, for a feasible ``x`` and finite bounds,

    gap(x) = q(x) - dual = sum_i g_i^+ (x_i - l_i) + g_i^- (u_i - x_i)  >= 0

bounds the suboptimality ``q(x) - q*``.  The relative gap
``gap / max(1, |q(x)|)`` must be ``<= gap_tol`` (default 1e-6).

HiGHS's point is refined by one Newton step on its free set (active bounds
kept, accepted only if the certified gap drops; ``stats["polished"]``): HiGHS's
default tolerances (1e-7) alone often leave a relative gap near 1e-6.

The fallback rule (its ONE place): if HiGHS fails or its answer is not
certified, L-BFGS-B (scipy) is run from HiGHS's point (or 0) to tight
tolerances; its answer is returned with ``SolveInfo(fallback=reason)``.  If
that answer is not certified either, :class:`SolverError` is raised: an
uncertified optimum is never returned silently.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from sskernels.solvers.highs import SolverError, solve_qp
from sskernels.solvers.report import SolveInfo

GAP_TOL = 1e-6


def certificate(H, f, lower, upper, x):
    """``(objective, duality gap, relative gap, projected-gradient KKT residual)`` at ``x``."""
    g = H @ x + f
    q = 0.5 * float(x @ (H @ x)) + float(f @ x)
    gap = float(np.sum(np.maximum(g, 0) * (x - lower) + np.maximum(-g, 0) * (upper - x)))
    kkt = float(np.max(np.abs(x - np.clip(x - g, lower, upper)), initial=0.0))
    return q, gap, gap / max(1.0, abs(q)), kkt


def _stats(H, f, lower, upper, x):
    q, gap, rel, kkt = certificate(H, f, lower, upper, x)
    return {"objective": q, "duality_gap": gap, "relative_gap": rel, "kkt_residual": kkt,
            "n_variables": int(len(f))}


def _polish(H, f, lower, upper, x):
    """One Newton step on HiGHS's free set (active bounds kept): ``H_FF d = -g_F``.

    Accepted only if it stays in the box and lowers the certified gap; it does
    not change the active set, so the answer is HiGHS's, to more digits.
    """
    g = H @ x + f
    scale = np.maximum(upper - lower, 1.0)
    free = (x > lower + 1e-9 * scale) & (x < upper - 1e-9 * scale)
    if not free.any():
        return x
    d = np.linalg.lstsq(H[np.ix_(free, free)], -g[free], rcond=1e-12)[0]
    y = x.copy()
    y[free] += d
    if np.any(y < lower) or np.any(y > upper):
        return x
    return y if certificate(H, f, lower, upper, y)[1] < certificate(H, f, lower, upper, x)[1] else x


def _lbfgsb(H, f, lower, upper, x0):
    res = minimize(lambda x: (0.5 * x @ (H @ x) + f @ x, H @ x + f), x0, jac=True,
                   method="L-BFGS-B", bounds=list(zip(lower, upper)),
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000, "maxcor": 30})
    return np.clip(res.x, lower, upper)


def solve_box_qp(H, f, lower, upper, gap_tol=GAP_TOL, time_limit=None):
    """Solve the box QP; returns ``(x, SolveInfo)`` with the certificate in ``stats``.

    ``H`` symmetric positive semidefinite (dense), ``lower``/``upper`` finite.
    """
    H = 0.5 * (H + H.T)
    f, lower, upper = (np.asarray(a, dtype=float) for a in (f, lower, upper))
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("solve_box_qp needs finite bounds (its certificate does)")
    x0 = np.clip(np.zeros_like(f), lower, upper)
    try:
        x, _ = solve_qp(H, f, col_lower=lower, col_upper=upper, time_limit=time_limit)
        x0 = np.clip(x, lower, upper)
        x = _polish(H, f, lower, upper, x0)
        stats = _stats(H, f, lower, upper, x)
        stats["polished"] = bool(x is not x0)
        if stats["relative_gap"] <= gap_tol:
            return x, SolveInfo("highs-qp", stats=stats)
        reason = f"relative duality gap {stats['relative_gap']:.1e} > {gap_tol:.0e}"
        x0 = x
    except SolverError as exc:
        reason = str(exc)
    x = _lbfgsb(H, f, lower, upper, x0)
    stats = _stats(H, f, lower, upper, x)
    if stats["relative_gap"] > gap_tol:
        raise SolverError(f"box QP not solved: highs-qp ({reason}), then L-BFGS-B relative "
                          f"duality gap {stats['relative_gap']:.1e} > {gap_tol:.0e}")
    return x, SolveInfo("lbfgsb", fallback=f"box-qp highs-qp->lbfgsb ({reason})", stats=stats)
