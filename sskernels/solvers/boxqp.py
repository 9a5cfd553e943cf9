"""Bound-constrained convex QP with a certificate: ``min 1/2 x^T H x + f^T x, l <= x <= u``.

Two entry points: :func:`solve_box_qp` (HiGHS QP, any PSD ``H``) and
:func:`solve_l1_box_qp` for ``min 1/2 z^T G z + h^T z + sum w_j |z_j|`` over a box
(projected Newton on N variables; the same problem as a box QP in ``2N`` split
variables, which is its fallback).  Both return answers certified by the
duality gap below.

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
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.optimize import minimize

from sskernels.solvers.highs import SolverError, solve_qp
from sskernels.solvers.report import SolveInfo

GAP_TOL = 1e-6


def certificate(H, f, lower, upper, x):
    """``(objective, duality gap, relative gap, projected-gradient KKT residual)`` at ``x``.

    The gap is the module's certificate (``sum_i g_i^+ (x_i - l_i) + g_i^- (u_i - x_i)``
    with ``g = H x + f``), the relative gap ``gap / max(1, |q(x)|)``.

    Parameters
    ----------
    H : ndarray of shape (n, n)
        The Hessian, symmetric positive semidefinite.
    f : ndarray of shape (n,)
        The linear term.
    lower : ndarray of shape (n,)
        The lower bounds, finite.
    upper : ndarray of shape (n,)
        The upper bounds, finite.
    x : ndarray of shape (n,)
        A point of the box.

    Returns
    -------
    objective : float
        ``q(x) = 1/2 x^T H x + f^T x``.
    gap : float
        The duality gap, an upper bound of ``q(x) - q*``.
    relative_gap : float
        ``gap / max(1, |q(x)|)``.
    kkt_residual : float
        ``max_i |x_i - clip(x_i - g_i, l_i, u_i)|``.
    """
    g = H @ x + f
    q = 0.5 * float(x @ (H @ x)) + float(f @ x)
    gap = float(np.sum(np.maximum(g, 0) * (x - lower) + np.maximum(-g, 0) * (upper - x)))
    kkt = float(np.max(np.abs(x - np.clip(x - g, lower, upper)), initial=0.0))
    return q, gap, gap / max(1.0, abs(q)), kkt


def _stats(H, f, lower, upper, x):
    q, gap, rel, kkt = certificate(H, f, lower, upper, x)
    return {
        "objective": q,
        "duality_gap": gap,
        "relative_gap": rel,
        "kkt_residual": kkt,
        "n_variables": int(len(f)),
    }


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
    res = minimize(
        lambda x: (0.5 * x @ (H @ x) + f @ x, H @ x + f),
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(lower, upper)),
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000, "maxcor": 30},
    )
    return np.clip(res.x, lower, upper)


def solve_box_qp(H, f, lower, upper, gap_tol=GAP_TOL, time_limit=None):
    """Solve the box QP; returns ``(x, SolveInfo)`` with the certificate in ``stats``.

    ``H`` symmetric positive semidefinite (dense), ``lower``/``upper`` finite.
    HiGHS's QP answers (polished by one Newton step); L-BFGS-B is the fallback
    (module docstring).

    Parameters
    ----------
    H : ndarray of shape (n, n)
        The Hessian, symmetric positive semidefinite (symmetrized first).
    f : array-like of shape (n,)
        The linear term.
    lower : array-like of shape (n,)
        The lower bounds, finite.
    upper : array-like of shape (n,)
        The upper bounds, finite.
    gap_tol : float, default=GAP_TOL
        The largest relative duality gap of a certified answer.
    time_limit : float, default=None
        HiGHS's time limit in seconds; None for :data:`sskernels.solvers.highs.TIME_LIMIT`.

    Returns
    -------
    x : ndarray of shape (n,)
        The certified solution.
    info : SolveInfo
        ``"highs-qp"`` (``stats["polished"]`` says whether the Newton step was kept), or
        ``"lbfgsb"`` with the fallback's reason; ``stats`` holds the objective,
        ``duality_gap``, ``relative_gap``, ``kkt_residual`` and ``n_variables``.

    Raises
    ------
    ValueError
        If a bound is not finite.
    SolverError
        If neither HiGHS's nor L-BFGS-B's answer is certified.
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
        raise SolverError(
            f"box QP not solved: highs-qp ({reason}), then L-BFGS-B relative "
            f"duality gap {stats['relative_gap']:.1e} > {gap_tol:.0e}"
        )
    return x, SolveInfo("lbfgsb", fallback=f"box-qp highs-qp->lbfgsb ({reason})", stats=stats)


# ---------------------------------------------------------------------------- box QP with an l1 term
#
# ``min 1/2 z^T G z + h^T z + sum_j w_j |z_j|,  l <= z <= u`` (``w >= 0``, ``l_j <= 0 <= u_j``
# where ``w_j > 0``) is the box QP above with ``z_j = b_j - c_j``, ``b_j in [0, u_j]``,
# ``c_j in [0, -l_j]`` for every ``w_j > 0`` (at an optimum ``b_j c_j = 0``).  The split QP has
# twice the variables and a singular Hessian; this form keeps N variables and lets a projected
# Newton method work on a positive definite ``G``.


def split_certificate(G, h, w, lower, upper, z, Gz=None):
    """``(objective, gap, relative gap, KKT residual)`` of the split box QP at ``z``.

    The same numbers as :func:`certificate` on the split problem at
    ``b = z^+, c = z^-`` (tested), computed without forming it.

    Parameters
    ----------
    G : ndarray of shape (N, N)
        The quadratic term, symmetric positive semidefinite.
    h : ndarray of shape (N,)
        The linear term.
    w : ndarray of shape (N,)
        The l1 weights, ``>= 0``.
    lower : ndarray of shape (N,)
        The lower bounds (``<= 0`` where ``w > 0``).
    upper : ndarray of shape (N,)
        The upper bounds (``>= 0`` where ``w > 0``).
    z : ndarray of shape (N,)
        A point of the box.
    Gz : ndarray of shape (N,), default=None
        ``G @ z`` when the caller has it; None to compute it.

    Returns
    -------
    objective : float
        ``1/2 z^T G z + h^T z + sum_j w_j |z_j|``.
    gap : float
        The split problem's duality gap.
    relative_gap : float
        ``gap / max(1, |objective|)``.
    kkt_residual : float
        The split problem's projected-gradient KKT residual.
    """
    Gz = G @ z if Gz is None else Gz
    g = Gz + h
    q = 0.5 * float(z @ Gz) + float(h @ z) + float(w @ np.abs(z))
    box = w == 0
    zb, gb_, lb, ub = z[box], g[box], lower[box], upper[box]
    gap = np.sum(np.maximum(gb_, 0) * (zb - lb) + np.maximum(-gb_, 0) * (ub - zb))
    kkt = np.max(np.abs(zb - np.clip(zb - gb_, lb, ub)), initial=0.0)
    l1 = ~box
    b, c = np.maximum(z[l1], 0), np.maximum(-z[l1], 0)
    gb, gc = g[l1] + w[l1], w[l1] - g[l1]
    ub, uc = upper[l1], -lower[l1]
    gap += np.sum(np.maximum(gb, 0) * b + np.maximum(-gb, 0) * (ub - b))
    gap += np.sum(np.maximum(gc, 0) * c + np.maximum(-gc, 0) * (uc - c))
    kkt = max(
        kkt,
        np.max(np.abs(b - np.clip(b - gb, 0, ub)), initial=0.0),
        np.max(np.abs(c - np.clip(c - gc, 0, uc)), initial=0.0),
    )
    gap = float(gap)
    return q, gap, gap / max(1.0, abs(q)), float(kkt)


def split_problem(G, h, w, lower, upper):
    """The equivalent plain box QP ``(H, f, lower, upper)`` in ``(z_box, b, c)``, and a map back.

    ``z_box`` are the variables with ``w_j = 0``; every variable with ``w_j > 0`` is split
    into ``z_j = b_j - c_j`` with ``b_j in [0, u_j]`` and ``c_j in [0, -l_j]``.

    Parameters
    ----------
    G : ndarray of shape (N, N)
        The quadratic term.
    h : ndarray of shape (N,)
        The linear term.
    w : ndarray of shape (N,)
        The l1 weights, ``>= 0``.
    lower : ndarray of shape (N,)
        The lower bounds.
    upper : ndarray of shape (N,)
        The upper bounds.

    Returns
    -------
    H : ndarray of shape (M, M)
        The split problem's Hessian (symmetrized), ``M = N + #{j : w_j > 0}``.
    f : ndarray of shape (M,)
        Its linear term.
    lower : ndarray of shape (M,)
        Its lower bounds.
    upper : ndarray of shape (M,)
        Its upper bounds.
    T : ndarray of shape (N, M)
        The map back: ``z = T @ x``.
    """
    box = np.flatnonzero(w == 0)
    l1 = np.flatnonzero(w > 0)
    T = np.zeros((len(h), box.size + 2 * l1.size))
    T[box, np.arange(box.size)] = 1.0
    T[l1, box.size + np.arange(l1.size)] = 1.0
    T[l1, box.size + l1.size + np.arange(l1.size)] = -1.0
    H = T.T @ G @ T
    f = np.concatenate([h[box], h[l1] + w[l1], -h[l1] + w[l1]])
    lo = np.concatenate([lower[box], np.zeros(2 * l1.size)])
    hi = np.concatenate([upper[box], upper[l1], -lower[l1]])
    return 0.5 * (H + H.T), f, lo, hi, T


def _prox(v, tw, lower, upper):
    """``argmin_z 1/2 (z - v)^2 + tw |z|`` over the box (soft threshold, then clip)."""
    return np.clip(np.sign(v) * np.maximum(np.abs(v) - tw, 0.0), lower, upper)


def projected_newton(G, h, w, lower, upper, gap_tol=GAP_TOL, max_iter=500):
    """Two-metric projected Newton for the l1 box QP.

    (Bertsekas 1982; Lin & More's TRON pairs the same two steps.)

    Each iteration takes (1) a Jacobi-scaled proximal-gradient step (the "Cauchy
    point": ``z - t D^{-1} g``, soft-thresholded by ``t w / D``, clipped to the box,
    ``D = diag G``, ``t`` backtracked until ``1/2 s^T G s <= s^T D s / (2 t)``), which
    always decreases the objective and identifies the active bounds and zeros, then
    (2) a Newton step on the variables it leaves free (``G_FF d = -(g + w s)_F``
    by Cholesky, signs of the l1 terms fixed) along the projection arc (box, no
    sign change), kept when it lowers the objective further.  Stops when the
    certified relative gap is ``<= gap_tol / 1000`` or after ``max_iter``
    iterations.  Returns ``(z, stats)``.

    Parameters
    ----------
    G : ndarray of shape (N, N)
        The quadratic term, symmetric positive semidefinite.
    h : ndarray of shape (N,)
        The linear term.
    w : ndarray of shape (N,)
        The l1 weights, ``>= 0``.
    lower : ndarray of shape (N,)
        The lower bounds (``<= 0`` where ``w > 0``).
    upper : ndarray of shape (N,)
        The upper bounds (``>= 0`` where ``w > 0``).
    gap_tol : float, default=GAP_TOL
        The iterations stop at a certified relative gap ``<= gap_tol / 1000``.
    max_iter : int, default=500
        The most iterations.

    Returns
    -------
    z : ndarray of shape (N,)
        The last iterate.
    stats : dict
        Its certificate (``objective``, ``duality_gap``, ``relative_gap``,
        ``kkt_residual``) and ``n_variables``, ``iterations``, ``newton_steps``,
        ``largest_free_set``.
    """
    n = h.size
    diag = np.maximum(np.diag(G).copy(), 1e-12 * max(1.0, float(np.abs(np.diag(G)).max())))
    z = np.clip(np.zeros(n), lower, upper)
    Gz = G @ z
    t, largest, newton = 1.0, 0, 0
    l1 = w > 0

    def phi_change(zF, zn, gF, GD, F):
        step = zn - zF
        return gF @ step + 0.5 * step @ GD[F] + w[F] @ (np.abs(zn) - np.abs(zF))

    for it in range(1, max_iter + 1):  # noqa: B007 (the name documents the loop)
        q, gap, rel, _ = split_certificate(G, h, w, lower, upper, z, Gz)
        if rel <= gap_tol * 1e-3:
            break
        g = Gz + h
        # (1) Jacobi-scaled proximal gradient (Cauchy) step, t doubled then backtracked
        t = min(2.0 * t, 1.0)
        while True:
            zc = _prox(z - t * g / diag, t * w / diag, lower, upper)
            C = np.flatnonzero(zc != z)
            if C.size == 0:
                break
            sC = zc[C] - z[C]
            GsC = G[:, C] @ sC
            if sC @ GsC[C] <= (sC * diag[C]) @ sC / t + 1e-300 or t < 1e-12:
                break
            t *= 0.5
        if C.size:
            z = zc
            Gz = Gz + GsC
            g = Gz + h
        # (2) Newton on the face the Cauchy point lies on
        span = np.maximum(upper - lower, 1.0)
        inside = (z > lower + 1e-12 * span) & (z < upper - 1e-12 * span)
        F = np.flatnonzero(inside & ~(l1 & (z == 0)))
        if F.size == 0:
            if C.size == 0:
                break
            continue
        largest = max(largest, F.size)
        s = np.where(l1[F], np.sign(z[F]), 0.0)
        gF = g[F]
        gt = gF + w[F] * s
        try:
            d = -cho_solve(cho_factor(G[np.ix_(F, F)], lower=True), gt)
        except LinAlgError:
            d = -np.linalg.lstsq(G[np.ix_(F, F)], gt, rcond=1e-12)[0]
        GF, zF, l1F = G[:, F], z[F], l1[F]
        a = 1.0
        while a > 1e-8:
            zn = np.clip(zF + a * d, lower[F], upper[F])
            zn[l1F & (zn * s < 0)] = 0.0
            GD = GF @ (zn - zF)
            if phi_change(zF, zn, gF, GD, F) < 0:
                z = z.copy()
                z[F] = zn
                Gz = Gz + GD
                newton += 1
                break
            a *= 0.5
        else:
            if C.size == 0:
                break
    q, gap, rel, kkt = split_certificate(G, h, w, lower, upper, z, Gz)
    return z, {
        "objective": q,
        "duality_gap": gap,
        "relative_gap": rel,
        "kkt_residual": kkt,
        "n_variables": int(n),
        "iterations": it,
        "newton_steps": newton,
        "largest_free_set": int(largest),
    }


def solve_l1_box_qp(G, h, w, lower, upper, gap_tol=GAP_TOL):
    """Solve ``min 1/2 z^T G z + h^T z + sum w_j |z_j|`` over a box; ``(z, SolveInfo)``.

    ``G`` symmetric positive semidefinite (not copied: one-against-all passes one
    matrix for every class).

    The documented solver is :func:`projected_newton` (``"projected-newton"``).
    Its fallback (reported, ``SolveInfo.fallback``) is the split box QP by
    :func:`solve_box_qp` (HiGHS QP, then L-BFGS-B); an answer that no solver
    certifies raises :class:`SolverError`.

    Parameters
    ----------
    G : ndarray of shape (N, N)
        The quadratic term, symmetric positive semidefinite.
    h : array-like of shape (N,)
        The linear term.
    w : array-like of shape (N,)
        The l1 weights, ``>= 0``.
    lower : array-like of shape (N,)
        The lower bounds (``<= 0`` where ``w > 0``).
    upper : array-like of shape (N,)
        The upper bounds (``>= 0`` where ``w > 0``).
    gap_tol : float, default=GAP_TOL
        The largest relative duality gap of a certified answer.

    Returns
    -------
    z : ndarray of shape (N,)
        The certified solution.
    info : SolveInfo
        ``"projected-newton"``, or the fallback's solver with the reason; ``stats`` holds
        the certificate.

    Raises
    ------
    ValueError
        If a weight is negative, or a bound excludes 0 where ``w > 0``.
    SolverError
        If no solver's answer is certified.
    """
    h, w, lower, upper = (np.asarray(a, dtype=float) for a in (h, w, lower, upper))
    if np.any(w < 0) or np.any((w > 0) & ((lower > 0) | (upper < 0))):
        raise ValueError("solve_l1_box_qp needs w >= 0 and l <= 0 <= u where w > 0")
    z, stats = projected_newton(G, h, w, lower, upper, gap_tol)
    if stats["relative_gap"] <= gap_tol:
        return z, SolveInfo("projected-newton", stats=stats)
    reason = (
        f"projected Newton relative duality gap {stats['relative_gap']:.1e} > "
        f"{gap_tol:.0e} after {stats['iterations']} iterations"
    )
    H, f, lo, hi, T = split_problem(G, h, w, lower, upper)
    x, info = solve_box_qp(H, f, lo, hi, gap_tol)
    z = T @ x
    q, gap, rel, kkt = split_certificate(G, h, w, lower, upper, z)
    if rel > gap_tol:
        raise SolverError(
            f"l1 box QP not solved: {reason}; {info.solver}'s answer has a "
            f"relative duality gap {rel:.1e} > {gap_tol:.0e}"
        )
    stats = {
        **info.stats,
        "objective": q,
        "duality_gap": gap,
        "relative_gap": rel,
        "kkt_residual": kkt,
        "n_variables": int(len(h)),
    }
    why = reason if info.fallback is None else f"{reason}; {info.fallback}"
    return z, SolveInfo(
        info.solver, fallback=f"box-qp projected-newton->{info.solver} ({why})", stats=stats
    )
