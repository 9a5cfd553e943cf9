"""Learning kernels with local Rademacher complexity: the convex algorithm on rank-one kernels.

C. Cortes, M. Kloft and M. Mohri, *Learning kernels using local Rademacher complexity*,
NIPS 2013 (Wang et al. 2015's ref. [12]).  Their local Rademacher complexity bound of a
kernel class is controlled by the *tail sum* of its eigenvalues,
``sum_{j > theta} lambda_j`` (instead of the trace, ``theta = 0``), and their convex
algorithm constrains the tail sums of the base kernels: with base kernels ``K_m`` and tail
sums ``s_m``, the hypothesis class ``{x -> sum_m <w_m, phi_m(x)>}`` with
``sum_m sqrt(s_m) ||w_m|| <= Lambda`` is, after the change of variables
``w_m <- sqrt(s_m) w_m``, l1-norm MKL over the *rescaled* kernels ``K_m / s_m``.  So it is
solved as the SVM with a convex combination of rescaled kernels (SimpleMKL's form)::

    min_{d in simplex}  J(d),   J(d) = sum_p max_alpha  sum_i alpha_pi
                                        - 1/2 sum_ij beta_pi beta_pj sum_m d_m K_m(x_i, x_j) / s_m,
    beta_p = y_p * alpha_p,  0 <= alpha_pi <= C,  sum_i beta_pi = 0,

and the kernel learned is ``sum_m mu_m K_m`` with ``mu_m = d_m / s_m``, i.e. the weights
satisfy the tail-sum constraint ``sum_m mu_m s_m = 1`` (``mu >= 0``).  ``theta = 0`` (the
tail sum is the trace) is trace-normalized l1-MKL.  Their second, non-convex algorithm (a
DC program constraining the tail sum of the *combined* kernel) is not implemented here; see
:mod:`sskernels.learners.label_aware` for why it is void for rank-one base kernels.

This module solves the problem for **rank-one** base kernels ``K_m = phi_m phi_m^T``
(the label-aware base kernels of Wang et al. 2015), where each ``w_m`` is a scalar per
binary problem: with ``psi_m = phi_m / sqrt(s_m)`` and ``W_m`` (P,) the weights of
feature m in the P one-vs-rest problems, the optimum of ``J`` equals the primal

    min_{W, b, xi}  1/2 (sum_m ||W_m||_2)^2 + C sum_pi xi_pi
    s.t.  y_pi (sum_m W_mp psi_m(x_i) + b_p) >= 1 - xi_pi,  xi >= 0,

with ``d_m = ||W_m|| / sum_m ||W_m||`` (SimpleMKL Sec. 2: ``sum_m ||w_m||^2 / d_m`` is
minimized over the simplex there).  :func:`lrc_mkl` solves it

* for one binary problem (P = 1) exactly, as ``min_t t^2 / 2 + f(t)`` with ``f(t)`` the LP
  ``min C sum xi`` under the margins and ``||w||_1 <= t`` (``w = w+ - w-``): ``f`` is convex
  and piecewise linear, so the optimum is the root of ``t = -f'(t)`` (the LP's dual of the
  norm row), found by bisection with a fixed-point shortcut over hot-started HiGHS LPs
  (:func:`_root`; not HiGHS's QP solver, which can end in "Solve error" or at its time
  limit on these instances, e.g. usps38's, where the LPs do not).  The LP does not depend
  on C: the C values of a selection grid (``C_path``) are solved on one LP in increasing
  order, each bracket starting from the points already solved (:func:`_binary_path`; a
  grid then takes a fraction of the LPs of one C at a time, for the same weights);
* for P > 1 (one-vs-rest with ONE shared ``d``, SimpleMKL Sec. 4) by the
  variational ("eta-trick") alternation: the P SVMs at ``d`` (libsvm,
  :func:`sskernels.solvers.mkl.svm_solution`, tolerance :data:`INNER_TOL_RATIO` ``tol``), then
  ``d_m <- ||W_m|| / sum ||W_m||`` with ``W_mp = d_m psi_m^T beta_p``; each step decreases
  the jointly convex ``1/2 sum_m ||W_m||^2 / d_m + C sum xi``; stopped on SimpleMKL's relative duality gap
  ``(J(d) - sum alpha + 1/2 max_m sum_p (psi_m^T beta_p)^2) / J(d) <= tol`` (default
  :data:`GAP_TOL` = 0.01, SimpleMKL's).  Slower than the P = 1 path: each step is P libsvm
  solves, slow themselves when the effective C (``C / rho``, module
  :mod:`sskernels.learners.label_aware`) is large.  With ``C_path`` the grid's C values
  share one :class:`_AlternationPath`: each C is solved from the uniform ``d``, except
  that a C above a grid value whose optimum has every dual variable off its bound (the
  hard-margin regime) takes that optimum, which is exactly optimal there too (the class
  docstring; recorded as ``hard_margin_from``).

Fallbacks (recorded in the returned :class:`~sskernels.solvers.report.SolveInfo`, never
silent): an LP failing (HiGHS status not optimal) or no root within 200 LPs -> the
alternation; the alternation
reaching ``max_iter`` with the gap above ``tol`` -> its last iterate.  All rescaled
features being zero, or the optimum at ``W = 0`` (no feature helps the margin), gives the
uniform ``d`` with ``degenerate`` set.

Numerics (a choice): the rescaled features ``psi_m = phi_m / sqrt(s_m)`` are divided by
``sqrt(a)``, ``a`` = the largest mean square of a feature over the training rows, and the
problem is solved with ``a C`` in place of ``C`` (the SVM with kernel ``a K`` and ``C`` has
the same decisions and the same minimizing ``d`` as with ``K`` and ``a C``:
``J_{aK, C}(d) = J_{K, aC}(d) / a``), so that a tiny tail sum (large theta) does not make
huge features; ``objective`` is reported in the original scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from sskernels.errors import ParameterError
from sskernels.memo import LRU, content_key, freeze, sizeof
from sskernels.solvers.highs import SolverError, _model, _solver
from sskernels.solvers.mkl import svm_solution
from sskernels.solvers.report import SolveInfo

__all__ = ["LRCResult", "lrc_mkl", "relative_tail", "tail_count", "mkl_objective"]

#: relative duality gap at which the alternation (P > 1) stops (SimpleMKL's toolbox default,
#: as in :func:`sskernels.solvers.mkl.simplemkl`): with a large effective C (a small tail
#: sum) each libsvm solve is slow, and a tighter gap multiplies the alternation's rounds
GAP_TOL = 1e-2
#: libsvm's stopping tolerance for the alternation's inner SVMs, as a fraction of the
#: alternation's own (the relative duality gap ``tol``): an order of magnitude tighter, so
#: 1e-3 (libsvm's and ``SVC``'s default) at :data:`GAP_TOL`.  A fixed 1e-5 whatever ``tol``
#: (SimpleMKL's inner tolerance, as :func:`sskernels.solvers.mkl.simplemkl` keeps) makes each
#: solve slow at the large effective C of a small tail sum, while on Wang et al.'s COIL local
#: Rademacher specs the ratio gives about the same number of rounds and the same errors and
#: alignments to 4 digits.  :func:`mkl_objective`, the checker, keeps 1e-5.
INNER_TOL_RATIO = 0.1
#: a rescaled weight below this (relative to the largest) is set to 0
WEIGHT_PRECISION = 1e-9


def tail_count(theta, n):
    """``theta`` as a count in ``[0, n]``.

    An int as it is (capped at ``n``), a float in [0, 1] a fraction of n
    (rounded to the nearest count).

    Parameters
    ----------
    theta : int or float
        A count (int ``>= 0``) or a fraction of ``n`` (float in [0, 1]).
    n : int
        The number of eigenvalues.

    Returns
    -------
    int
        The count, in ``[0, n]``.

    Raises
    ------
    ParameterError
        If an int ``theta`` is negative, or a float ``theta`` is not in [0, 1].
    """
    if isinstance(theta, (int, np.integer)) and not isinstance(theta, bool):
        if theta < 0:
            raise ParameterError(f"theta must be >= 0, got {theta}")
        return int(min(theta, n))
    theta = float(theta)
    if not 0.0 <= theta <= 1.0:
        raise ParameterError(f"theta as a fraction of n must be in [0, 1], got {theta}")
    return int(min(round(theta * n), n))


def relative_tail(eigenvalues, theta_count):
    """``sum_{j > theta} lambda_j / sum_j lambda_j``, the relative tail sum.

    (Eigenvalues in any order; negative ones,
    round-off of a PSD matrix, count as 0.)  1 at ``theta = 0``, 0 at ``theta >= n``.

    Parameters
    ----------
    eigenvalues : array-like of shape (n,)
        The eigenvalues of a PSD matrix.
    theta_count : int
        The number ``theta`` of largest eigenvalues left out of the tail.

    Returns
    -------
    float
        The tail sum over the total, in [0, 1].

    Raises
    ------
    ValueError
        If no eigenvalue is positive.
    """
    lam = np.sort(np.clip(np.asarray(eigenvalues, dtype=float), 0.0, None))[::-1]
    total = lam.sum()
    if not total > 0:
        raise ValueError("the empirical kernel has no positive eigenvalue")
    return float(lam[theta_count:].sum() / total)


def mkl_objective(Psi, Y, C, d):
    """``J(d)`` with kernel ``Psi diag(d) Psi^T``, and the MKL dual bound.

    ``J(d)`` (sum of the P SVM duals, libsvm) with kernel ``Psi diag(d) Psi^T`` and the
    MKL dual bound ``sum alpha - 1/2 max_m sum_p (psi_m^T beta_p)^2``; returns
    ``(J, dual_bound)``.  ``J - dual_bound >= 0`` is SimpleMKL's duality gap.

    Parameters
    ----------
    Psi : ndarray of shape (l, M)
        The (rescaled) features ``psi_m`` as columns.
    Y : ndarray of shape (P, l)
        The targets in {-1, +1}, one row per binary problem.
    C : float
        The SVM's regularization parameter.
    d : ndarray of shape (M,)
        The kernel weights.

    Returns
    -------
    J : float
        ``J(d)``.
    dual_bound : float
        The MKL dual bound.

    Raises
    ------
    ValueError
        If a target is not -1 or +1, or a row of ``Y`` has one class.
    """
    sol = svm_solution((Psi * d) @ Psi.T, Y, C)
    q = ((Psi.T @ sol.beta.T) ** 2).sum(axis=1)
    return sol.J, sol.sum_alpha - 0.5 * float(q.max())


@dataclass
class LRCResult:
    """Output of :func:`lrc_mkl`: ``d`` on the simplex (weights of the rescaled kernels),
    ``mu = d / s`` (weights of the given kernels, ``sum mu s = 1``), ``objective`` =
    ``min J`` in the original scale, ``degenerate``, ``info``."""

    d: np.ndarray
    mu: np.ndarray
    objective: float
    degenerate: bool
    info: SolveInfo


def _targets(Y):
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    if not np.all(np.abs(Y) == 1):
        raise ValueError("targets must be -1 or +1")
    return Y


class _NormLP:
    """The P = 1 primal with the norm as a bound, ``f(t) = min sum xi`` s.t. the margins and
    ``sum_m (w+_m + w-_m) <= t`` (an LP, independent of C; HiGHS dual simplex, hot-started
    when t changes).  ``solve(t)`` returns ``(w, f(t), lambda(t))``, ``lambda(t) = -f'(t)
    >= 0`` the dual of the norm row."""

    def __init__(self, Psi, y):
        l, M = Psi.shape
        self.M, self.l = M, l
        yPsi = y[:, None] * Psi
        # x = [w+ (M), w- (M), b, xi (l)]
        A = sp.vstack(
            [
                sp.hstack(
                    [
                        sp.csr_matrix(yPsi),
                        sp.csr_matrix(-yPsi),
                        sp.csr_matrix(y[:, None]),
                        sp.identity(l, format="csr"),
                    ]
                ),
                sp.csr_matrix(np.concatenate([np.ones(2 * M), np.zeros(1 + l)])[None]),
            ]
        ).tocsc()
        c = np.concatenate([np.zeros(2 * M + 1), np.ones(l)])
        col_lower = np.zeros(c.size)
        col_lower[2 * M] = -np.inf
        self.h = _solver()
        # no HiGHS scaling: the features are already on one scale (module docstring,
        # "Numerics"), and scaling only slows the simplex down, for the same optimum
        self.h.setOptionValue("simplex_scale_strategy", 0)
        self.h.passModel(
            _model(
                c,
                A,
                np.concatenate([np.ones(l), [-np.inf]]),
                np.concatenate([np.full(l, np.inf), [0.0]]),
                col_lower,
                np.inf,
            )
        )
        self.solves = self.cold_starts = 0

    def solve(self, t):
        h = self.h
        h.changeRowBounds(self.l, -highspy.kHighsInf, float(t))
        h.run()
        self.solves += 1
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:  # the hot start failed: cold start
            h.clearSolver()
            h.run()
            self.cold_starts += 1
            status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"HiGHS ended with status {h.modelStatusToString(status)}")
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        return (
            x[: self.M] - x[self.M : 2 * self.M],
            float(h.getInfo().objective_function_value),
            abs(float(sol.row_dual[self.l])),
        )


def _model_step(lo, hi, C):
    """The minimizer of the cutting-plane model of ``phi(t) = t^2/2 + C f(t)`` on the bracket:
    ``f`` is convex, so the lines of the bracket ends' pieces, ``f_e - lambda_e (t - t_e)``,
    bound it from below and touch it at the ends; ``t^2/2 + C max(line_lo, line_hi)`` is
    minimized at ``C lambda_lo`` if that lies left of the lines' crossing ``x``, at
    ``C lambda_hi`` if that lies right of it, else at ``x``."""
    (t_lo, f_lo, l_lo), (t_hi, f_hi, l_hi) = lo, hi
    if l_lo > l_hi:
        x = (f_hi - f_lo + l_hi * t_hi - l_lo * t_lo) / (l_hi - l_lo)
        x = min(max(x, t_lo), t_hi)
    else:  # one piece (parallel lines touching f at both ends)
        x = t_hi
    if C * l_lo <= x:
        return max(C * l_lo, t_lo)
    if C * l_hi >= x:
        return min(C * l_hi, t_hi)
    return x


def _root(at, points, C, rtol=1e-9, max_solves=100):
    """The minimizer of ``phi(t) = t^2/2 + C f(t)`` (``f``: :class:`_NormLP`, convex,
    piecewise linear): the root of ``g(t) = t - C lambda(t)`` (increasing, since
    ``lambda = -f'`` is non-increasing).  ``at(t)`` solves the LP at ``t`` (memoized in
    ``points``: t -> (w, f, lambda)), and the bracket starts from every point already solved
    (other C's on the same LP).

    Each step solves at the minimizer of the cutting-plane model on the bracket
    (:func:`_model_step`): the fixed point ``C lambda`` of an end's piece when the root lies on
    it, else the crossing of the two ends' pieces (Newton's step on ``f`` when the root is
    the kink where the margins are first met, the hard-margin regime of large C).  The model
    bounds ``phi`` from below and is exact at the ends, so when its minimizer is an end
    that end is optimal; each solve adds a piece, so a few LPs
    suffice, near each other (hot starts).  Trying the fixed point of the last solved point
    first instead alternates, in the hard-margin regime, between far-apart t (e.g. ~1e4 and
    ~8), and each such LP needs many more simplex iterations.  At the root the LP's ``w`` is
    the optimum.  Returns ``(w, objective, new solves)``, the objective
    ``||w||_1^2 / 2 + C sum xi`` of the returned ``w``."""
    start = len(points)

    def done(t):
        w, f, _ = at(t)  # f = sum xi >= 0; HiGHS may report -1e-14
        return w, 0.5 * float(np.abs(w).sum()) ** 2 + C * max(f, 0.0), len(points) - start

    w, f, lam = at(0.0)
    if lam <= 0.0:  # w = 0 is optimal
        return done(0.0)
    lo, hi = (0.0, f, lam), None
    for t, (_, f_t, lam_t) in sorted(points.items()):
        if t - C * lam_t < 0:
            lo = max(lo, (t, f_t, lam_t))
        elif hi is None or t < hi[0]:
            hi = (t, f_t, lam_t)
    for _ in range(2 * max_solves):
        if len(points) - start >= max_solves:
            break
        if hi is None:
            t = C * lo[2]  # g(C lambda(lo)) >= 0: an upper bracket
        else:
            if hi[0] - lo[0] <= rtol * hi[0]:
                return done(hi[0])
            t = _model_step(lo, hi, C)
            if t == hi[0] or t == lo[0]:  # the model's minimizer is an end: that end
                return done(t)
            if t in points:  # no new piece from the model (rounding): bisect
                t = 0.5 * (lo[0] + hi[0])
        w, f, lam = at(t)
        g = t - C * lam
        if abs(g) <= rtol * max(t, 1e-300):
            return done(t)
        if g < 0:
            lo = (t, f, lam)
        else:
            hi = (t, f, lam)
    raise SolverError(f"no root of t = C lambda(t) within {max_solves} LP solves")


def _binary_path(Psi, y, Cs):
    """:func:`_root` for every C of ``Cs`` on ONE :class:`_NormLP` (the LP does not depend on
    C), in increasing C, each C's bracket starting from the points the smaller C's solved and
    each LP hot-started from the last basis.  The result of one C depends on the set ``Cs``
    only through that path, and is a function of ``(Psi, y, Cs)``: deterministic.  Returns
    ``{C: (w, objective, stats)}`` or ``{C: SolverError}`` for a C whose root failed."""
    lp = _NormLP(Psi, y)
    points = {}

    def at(t):
        hit = points.get(t)
        if hit is None:
            hit = points[t] = lp.solve(t)
        return hit

    out = {}
    for C in sorted(set(Cs)):
        try:
            w, obj, solves = _root(at, points, C)
            out[C] = (
                w,
                obj,
                {"lp_solves": solves, "lp_cold_starts": lp.cold_starts, "lp_path": len(set(Cs))},
            )
        except SolverError as exc:
            out[C] = exc
    return out


#: memo of :func:`_binary_path` results and :class:`_AlternationPath` objects (a fit's
#: candidates of one selection grid share one): solver results, read-only, at most 64 and
#: 256 MiB
_PATHS = LRU(64, max_bytes=256 * 2**20)


def _path_result(Phi, s, y, C_eff, path_eff):
    """``(w, objective, stats)`` of the binary problem at ``C_eff`` solved on the path
    ``path_eff`` (memoized on the data and the path), or raise its SolverError."""
    key = content_key(Phi, s, y, np.array(sorted(set(path_eff))))
    hit = _PATHS.lookup(key)
    if hit is None:
        hit = _PATHS.store(
            key, _binary_path((Phi / np.sqrt(s)) / np.sqrt(_feature_scale(Phi, s)), y, path_eff)
        )
    r = hit[C_eff]
    if isinstance(r, SolverError):
        raise r
    return r


def _feature_scale(Phi, s):
    """``a``: the largest mean square of a rescaled feature ``phi_m / sqrt(s_m)`` over the
    training rows (module docstring, "Numerics"); 1 when every feature is 0."""
    a = float(((Phi / np.sqrt(s)) ** 2).mean(axis=0).max())
    return a if a > 0 else 1.0


def _alternation(Psi, Y, C, tol, max_iter):
    """The eta-trick for P >= 1 from the uniform ``d``; returns ``(d, J, gap, iterations,
    converged, zero, alpha_max)``, ``zero``: the optimum has ``W = 0`` (no kernel helps the
    margins), ``alpha_max``: the largest dual variable of the SVMs at the returned ``d``."""
    M = Psi.shape[1]
    d = np.full(M, 1.0 / M)
    svm_tol = INNER_TOL_RATIO * tol
    for it in range(1, max_iter + 1):
        sol = svm_solution((Psi * d) @ Psi.T, Y, C, svm_tol)
        G = Psi.T @ sol.beta.T  # (M, P): psi_m^T beta_p
        q = (G**2).sum(axis=1)
        gap = 0.5 * (float(q.max()) - float(d @ q)) / max(sol.J, np.finfo(float).tiny)
        norms = d * np.sqrt(q)  # ||W_m||, W_mp = d_m psi_m^T beta_p
        alpha_max = float(np.abs(sol.beta).max())
        if not norms.sum() > 0:
            return d, sol.J, gap, it, True, True, alpha_max
        if gap <= tol:
            return d, sol.J, gap, it, True, False, alpha_max
        d = norms / norms.sum()
    return d, sol.J, gap, max_iter, False, False, alpha_max


#: a dual variable below ``(1 - HARD_MARGIN_SLACK) C`` is off its bound (the hard-margin test
#: of :class:`_AlternationPath`; libsvm sets a variable at its bound to C exactly)
HARD_MARGIN_SLACK = 1e-6


class _AlternationPath:
    """The eta-trick (:func:`_alternation`) over the C values of a selection grid, each from
    the uniform ``d`` -- and the hard-margin shortcut, exact: when the alternation at ``C'``
    converged with every dual variable of the P SVMs off its bound (``alpha < C'``), then
    ``d*(C')`` is optimal for every ``C > C'`` too, with the same certificate.  (For any
    ``d``, ``J_C(d) >= J_C'(d) >= J_C'(d*)`` since the SVM dual's box grows with C; and
    ``J_C(d*) = J_C'(d*)``, the SVMs' optimum at ``C'`` satisfying the KKT conditions of the
    larger box; the gap's dual point, the same alphas, is feasible for C.)

    ``result(C)`` goes through the grid's values ``C' <= C`` in increasing order and returns
    the first hard-margin one's solution (recorded: ``hard_margin_from``), else the solution
    at ``C`` itself: a function of ``(Psi, Y, grid, C)``, whatever was asked before.  A
    grid's large C's (COIL's six-class fits reach the hard margin at a few hundred, the grid
    goes to 1e4 over tail sums < 1) then cost no alternation.  Warm starts (``d`` of the
    previous C) are not used: from a nearly sparse ``d`` the multiplicative update revives
    vanished weights slowly, in many more iterations than from the uniform ``d``."""

    def __init__(self, Psi, Y, Cs, tol, max_iter):
        self.Psi, self.Y, self.tol, self.max_iter = Psi, Y, tol, max_iter
        self.Cs = sorted(set(float(c) for c in Cs))
        self.solved = {}

    @property
    def nbytes(self):
        """The bytes of ``Psi`` and of the solutions found so far (:func:`sizeof`)."""
        return sizeof(self.Psi) + sizeof(self.solved)

    def freeze(self):
        """Make ``Psi`` (made for this path by :func:`lrc_mkl`) and every solution read-only."""
        freeze((self.Psi, self.solved))
        self._frozen = True

    def _solve(self, C):
        hit = self.solved.get(C)
        if hit is None:
            hit = _alternation(self.Psi, self.Y, C, self.tol, self.max_iter)
            if self.__dict__.get("_frozen"):
                freeze(hit)
            self.solved[C] = hit
        return hit

    def result(self, C):
        """``(d, J, gap, iterations, converged, zero, hard_margin_from)`` at ``C`` (a grid
        value); ``hard_margin_from`` is the grid value whose solution was taken, or None."""
        for c in self.Cs:
            if c >= C:
                break
            d, J, gap, it, converged, zero, alpha_max = self._solve(c)
            if converged and alpha_max < (1.0 - HARD_MARGIN_SLACK) * c:
                return d, J, gap, it, converged, zero, c
        return self._solve(float(C))[:6] + (None,)


def _alternation_result(Psi, Y, C, path, tol, max_iter):
    """:meth:`_AlternationPath.result` on the path memoized by content (the fits of one
    selection grid's candidates share it)."""
    key = "alt" + content_key(Psi, Y, np.array(sorted(set(path))), np.array([tol, max_iter]))
    hit = _PATHS.lookup(key)
    if hit is None:
        hit = _PATHS.store(key, _AlternationPath(Psi, Y, path, tol, max_iter))
    return hit.result(C)


def lrc_mkl(Phi, scales, Y, C, tol=None, max_iter=2000, C_path=None):
    """l1-MKL over the rank-one kernels ``phi_m phi_m^T / s_m``.

    (Cortes et al. 2013's convex algorithm; module docstring.)

    ``Phi`` (l, M) base vectors at the training points, ``scales`` (M,) positive tail sums
    ``s_m``, ``Y`` (P, l) or (l,) targets in {-1, +1} (one row per one-vs-rest problem),
    ``C > 0``.  ``C_path``: None, or the C values of a selection grid that contains ``C``:
    for one binary problem they are solved together on one LP (:func:`_binary_path`, results
    memoized), so a grid costs a few LPs more than one C; the result of ``C`` is then a
    function of ``(Phi, scales, Y, C, C_path)``.  Returns an :class:`LRCResult`.

    Parameters
    ----------
    Phi : array-like of shape (l, M)
        The base vectors ``phi_m`` at the training points, as columns.
    scales : array-like of shape (M,)
        The tail sums ``s_m``, positive and finite.
    Y : array-like of shape (P, l) or (l,)
        The targets in {-1, +1}, one row per one-vs-rest problem.
    C : float
        The SVM's regularization parameter (> 0).
    tol : float, default=None
        The alternation's relative duality gap (P > 1, or the fallback); None for
        :data:`GAP_TOL`.
    max_iter : int, default=2000
        The alternation's most iterations.
    C_path : sequence of float, default=None
        The C values of a selection grid that contains ``C``; None for ``C`` alone.

    Returns
    -------
    LRCResult
        ``d``, ``mu = d / s``, the objective in the original scale, ``degenerate`` (all
        features zero, or the optimum at ``W = 0``: uniform ``d``) and the
        :class:`SolveInfo`.

    Raises
    ------
    ValueError
        If a target is not -1 or +1, the shapes do not agree, or ``C`` is not positive
        and finite.
    ParameterError
        If a tail-sum scale is not positive and finite.
    """
    tol = GAP_TOL if tol is None else tol
    Phi = np.asarray(Phi, dtype=float)
    s = np.asarray(scales, dtype=float)
    Y = _targets(Y)
    if Phi.ndim != 2 or s.shape != (Phi.shape[1],) or Y.shape[1] != Phi.shape[0]:
        raise ValueError(f"shapes do not agree: Phi {Phi.shape}, scales {s.shape}, Y {Y.shape}")
    if not (np.all(np.isfinite(s)) and np.all(s > 0)):
        raise ParameterError("the tail-sum scales must be positive and finite")
    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C must be positive, got {C!r}")
    M = s.size
    a = _feature_scale(Phi, s)
    C_eff = C * a
    stats = {"kernels": M, "problems": Y.shape[0]}
    fallback = None
    if not np.any(Phi):
        d = np.full(M, 1.0 / M)
        info = SolveInfo("none", stats=stats)
        return LRCResult(d, d / s, float("nan"), True, info)
    solver = "highs-parametric-lp"
    degenerate = False
    w = None
    if Y.shape[0] == 1:
        path = [C] if C_path is None or C not in set(C_path) else list(C_path)
        try:
            w, obj, path_stats = _path_result(Phi, s, Y[0], C_eff, [c * a for c in path])
            stats.update(objective=obj / a, **path_stats)
        except SolverError as exc:
            fallback = f"lrc-mkl parametric LP -> eta-trick ({exc})"
    if w is not None:
        aw = np.abs(w)
        aw[aw < WEIGHT_PRECISION * max(aw.max(), np.finfo(float).tiny)] = 0.0
        if not aw.sum() > 0:
            degenerate = True
            d = np.full(M, 1.0 / M)
        else:
            d = aw / aw.sum()
        objective = stats["objective"]
    else:
        solver = "eta-trick-libsvm"
        Psi = (Phi / np.sqrt(s)) / np.sqrt(a)
        if Y.shape[0] > 1 and C_path is not None and C in set(C_path):
            d, J, gap, it, converged, degenerate, hard = _alternation_result(
                Psi, Y, C_eff, [c * a for c in C_path], tol, max_iter
            )
        else:
            d, J, gap, it, converged, degenerate, _ = _alternation(Psi, Y, C_eff, tol, max_iter)
            hard = None
        stats.update(iterations=it, relative_duality_gap=gap)
        if hard is not None:
            stats.update(hard_margin_from=hard / a)
        objective = J / a
        if not converged:
            fallback = ((fallback + "; ") if fallback else "") + (
                f"lrc-mkl eta-trick stopped at max_iter={max_iter} with relative duality gap "
                f"{gap:.3g} > tol {tol:g} (last iterate returned)"
            )
        d = np.where(d < WEIGHT_PRECISION * d.max(), 0.0, d)
        d /= d.sum()
    info = SolveInfo(solver, fallback=fallback, stats=stats)
    return LRCResult(d, d / s, float(objective), degenerate, info)
