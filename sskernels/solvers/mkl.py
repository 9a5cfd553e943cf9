"""SimpleMKL's solver: reduced-gradient descent of ``J(d)`` on the simplex, duality-gap stop.

A. Rakotomamonjy, F. Bach, S. Canu and Y. Grandvalet, *SimpleMKL*, JMLR 9
(2008) 2491-2521.  The problem (SimpleMKL Sec. 2-3) is the SVM with a convex
combination of ``M`` base kernels, written as the minimization over the
simplex of the optimal SVM value ``J(d)``::

    min_d  J(d)   s.t.  sum_m d_m = 1,  d_m >= 0,
    J(d) = max_alpha  sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j sum_m d_m K_m(x_i, x_j)
           s.t.  sum_i alpha_i y_i = 0,  0 <= alpha_i <= C,

whose gradient is (SimpleMKL eq. (11))
``dJ/dd_m = -1/2 sum_ij alpha*_i alpha*_j y_i y_j K_m(x_i, x_j)``.
:func:`simplemkl` is Algorithm 1 of the paper:

1. ``d_m = 1/M``; solve the SVM with ``K = sum_m d_m K_m`` (:func:`svm_solution`:
   libsvm as ``sklearn.svm.SVC(kernel="precomputed")`` calls it; its ``dual_coef_``
   are ``y_i alpha_i``) for ``J(d)`` and ``alpha*``, hence the gradient.
2. Reduced-gradient descent direction ``D`` (eq. (12), :func:`descent_direction`)
   with the base variable ``mu = argmax_m d_m``.
3. "Descent direction update": go to the largest admissible step
   ``gamma_max = min_{D_m < 0} -d_m / D_m``; while ``J`` decreases there, accept
   that point (a kernel weight reaches 0), drop the vanished coordinate from
   ``D`` and repeat.
4. Line search along ``D`` on ``[0, gamma_max]`` — golden-section search, the
   rule of the authors' toolbox (``mklsvmupdate.m``); ``J`` is convex in ``d``,
   so it is unimodal on the segment.  Stop the search when the bracket is
   shorter than ``line_search_tol * gamma_max`` (the toolbox's
   ``goldensearch_deltmax = 0.1``) and keep the best point evaluated.
5. Stop on the duality gap of SimpleMKL Sec. 3 (optimality conditions):
   ``gap = J(d) - sum_i alpha*_i + 1/2 max_m sum_ij alpha*_i alpha*_j y_i y_j K_m``,
   relative to ``J(d)`` (the toolbox's ``dualitygap``), ``gap <= tol`` (default
   0.01, the toolbox's ``seuildualitygap``).  ``gap = 0`` is exactly the KKT
   condition "``-dJ/dd_m`` is maximal on every kernel with ``d_m > 0``"; the KKT
   spread is returned too.  A vanishing reduced gradient also certifies the KKT
   conditions (converged).

**The stop rules other than the duality gap** (the one place they live; each
returns a :class:`~sskernels.solvers.report.SolveInfo` whose ``fallback`` says
why, so that the estimator reports it as a ``"fallback: ..."`` note, never
silently): the last iterate is returned, without the gap certificate, when

* ``max_iter`` iterations (retries included) are spent with ``gap > tol``;
* an iteration cannot decrease ``J`` although the golden-section bracket was
  refined tenfold per retry (the toolbox's "enhance accuracy of line search")
  down to ``LINE_SEARCH_FLOOR * gamma_max`` (the numerical floor of the inner
  SVMs).

Choices the paper leaves open, made here (those of the toolbox):

* multi-class: one-vs-rest with ONE shared ``d``: ``J(d) = sum_p J_p(d)`` over the
  binary problems (SimpleMKL Sec. 4: the objective is the sum of the binary SVM
  objectives, the gradient the sum of their gradients, the duality gap that of
  the sum); the targets ``Y`` are ``(P, n)`` in ``{-1, +1}``;
* the descent direction: a coordinate at 0 with a negative reduced gradient
  may re-enter, and ``D_mu = -sum_{m != mu} D_m`` so that ``sum_m D_m = 0``
  exactly; after a coordinate ``nu`` vanishes in step 3, ``D_mu <- D_mu + D_nu``,
  ``D_nu <- 0`` (keeps ``sum_m D_m = 0``);
* weights below ``WEIGHT_PRECISION = 1e-8`` are set to 0 and ``d`` renormalized
  (the toolbox's ``numericalprecision``);
* the inner SVMs are solved to libsvm tolerance ``svm_tol`` (default 1e-5,
  tighter than libsvm's 1e-3) so that ``J``, its gradient and the gap are
  accurate enough for the line search and the stop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sskernels.solvers.libsvm import binary_dual
from sskernels.solvers.report import SolveInfo

#: weights below this are set to zero (toolbox ``numericalprecision``)
WEIGHT_PRECISION = 1e-8
_GOLD = (np.sqrt(5.0) + 1.0) / 2.0
#: finest relative bracket of the golden-section search (toolbox ``goldensearchmax``)
LINE_SEARCH_FLOOR = 1e-8


@dataclass
class SVMSolution:
    """The inner SVMs at one ``d``: ``J = sum_p J_p``, ``beta[p] = y alpha*`` (n,), ``b[p]``."""

    J: float
    beta: np.ndarray  # (P, n)
    intercept: np.ndarray  # (P,)
    sum_alpha: float


def svm_solution(K, Y, C, svm_tol=1e-5):
    """Solve the ``P`` binary SVM duals with kernel ``K`` and targets ``Y`` (P, n) in {-1, +1}.

    ``J_p = sum_i alpha_i - 1/2 beta^T K beta`` with ``beta = y * alpha`` (the
    SVM dual optimum, SimpleMKL's ``J(d)``), from libsvm with ``SVC(kernel="precomputed")``'s
    arguments (:func:`sskernels.solvers.libsvm.binary_dual`: the bare calls, SVC's numbers);
    the decision value is ``K beta + b`` (positive = target +1).

    Parameters
    ----------
    K : array-like of shape (n, n)
        The kernel.
    Y : ndarray of shape (P, n)
        The targets of the ``P`` binary problems, in {-1, +1}.
    C : float
        The SVM's regularization parameter.
    svm_tol : float, default=1e-5
        The stopping tolerance of libsvm.

    Returns
    -------
    SVMSolution
        ``J = sum_p J_p``, ``beta`` (P, n), the intercepts (P,) and ``sum_alpha``
        (``sum_p sum_i alpha_pi``).

    Raises
    ------
    ValueError
        If a target is not -1 or +1, or a row of ``Y`` has one class.
    """
    P, n = Y.shape
    beta = np.zeros((P, n))
    b = np.zeros(P)
    J = sa = 0.0
    K = np.ascontiguousarray(K, dtype=np.float64)
    for p in range(P):
        beta[p], b[p] = binary_dual(K, Y[p], C, tol=svm_tol)
        s = float(np.abs(beta[p]).sum())
        J += s - 0.5 * float(beta[p] @ K @ beta[p])
        sa += s
    return SVMSolution(J, beta, b, sa)


def mkl_gradient(Ks, beta):
    """``dJ/dd_m = -1/2 sum_p sum_ij beta_pi beta_pj K_m(x_i, x_j)`` (SimpleMKL eq. (11)).

    ``beta = y * alpha*`` (P, n) of the SVMs at the current ``d``; for several
    binary problems sharing ``d`` the gradients add up.

    Parameters
    ----------
    Ks : ndarray of shape (M, n, n)
        The base kernels.
    beta : ndarray of shape (P, n)
        ``y * alpha*`` of the ``P`` SVMs at the current ``d``.

    Returns
    -------
    ndarray of shape (M,)
        The gradient ``dJ/dd``.
    """
    M = Ks.shape[0]
    return -0.5 * (Ks.reshape(M, -1) @ (beta.T @ beta).ravel())


def descent_direction(d, grad):
    """Reduced-gradient descent direction ``D`` (SimpleMKL Sec. 3, eq. (12)).

    ``mu = argmax_m d_m`` (the base variable, first on ties); with
    ``r_m = dJ/dd_m - dJ/dd_mu``:  ``D_m = 0`` if ``d_m = 0`` and ``r_m > 0``,
    else ``D_m = -r_m`` (``m != mu``); ``D_mu = -sum_{m != mu} D_m``.  Then
    ``sum_m D_m = 0`` and ``grad . D = -sum_{m != mu} D_m^2 <= 0``.
    Returns ``(D, mu)``.

    Parameters
    ----------
    d : ndarray of shape (M,)
        The kernel weights, on the simplex.
    grad : ndarray of shape (M,)
        The gradient ``dJ/dd`` at ``d``.

    Returns
    -------
    D : ndarray of shape (M,)
        The descent direction.
    mu : int
        The base variable ``argmax_m d_m``.
    """
    mu = int(np.argmax(d))
    r = grad - grad[mu]
    D = -r
    D[(d <= 0) & (r > 0)] = 0.0
    D[mu] = 0.0
    D[mu] = -D.sum()
    return D, mu


def duality_gap(J, grad, sum_alpha):
    """MKL duality gap ``J(d) - sum alpha + max_m 1/2 alpha^T Q_m alpha`` (SimpleMKL Sec. 3).

    With ``-dJ/dd_m = 1/2 alpha^T Q_m alpha`` (eq. (11)), it is
    ``J + max_m (-grad_m) - sum_i alpha_i``; 0 at the optimum.

    Parameters
    ----------
    J : float
        The SVM objective ``J(d)``.
    grad : ndarray of shape (M,)
        The gradient ``dJ/dd`` at ``d``.
    sum_alpha : float
        ``sum_i alpha*_i`` (summed over the binary problems).

    Returns
    -------
    float
        The duality gap (absolute, not divided by ``J``).
    """
    return float(J + np.max(-grad) - sum_alpha)


def _project(d):
    """Clean ``d`` back onto the simplex: zero negatives and tiny weights, renormalize."""
    d = np.where(d < WEIGHT_PRECISION, 0.0, d)
    return d / d.sum()


@dataclass
class MKLResult:
    """Output of :func:`simplemkl`; ``info`` is the solve's record (fallback = stop rule)."""

    d: np.ndarray
    solution: SVMSolution
    n_iter: int
    duality_gap: float  # relative: gap / J
    kkt_violation: float
    converged: bool
    n_svm: int
    history: list
    info: SolveInfo


def simplemkl(Ks, Y, C, tol=0.01, max_iter=100, svm_tol=1e-5, line_search_tol=0.1, d_init=None):
    """SimpleMKL (Algorithm 1) on base kernels ``Ks`` (M, n, n) for targets ``Y`` (P, n) in ±1.

    ``J(d) = sum_p J_p(d)`` over the ``P`` binary problems (one for binary
    classification).  See the module docstring for the steps, the stopping
    rule and the fallback stops.  ``Ks`` are used as given (normalize them
    first).  Returns an :class:`MKLResult`; ``history`` lists ``J`` at each
    iterate, ``info.fallback`` is None when the duality gap (or a vanishing
    reduced gradient) certified the result.

    Parameters
    ----------
    Ks : array-like of shape (M, n, n)
        The base kernels, used as given.
    Y : array-like of shape (P, n) or (n,)
        The targets in {-1, +1}, one row per binary problem (a vector is one problem).
    C : float
        The SVM's regularization parameter.
    tol : float, default=0.01
        The largest relative duality gap ``gap / J`` of a converged result.
    max_iter : int, default=100
        The most iterations (retries of the line search included).
    svm_tol : float, default=1e-5
        The tolerance of libsvm for the inner SVMs.
    line_search_tol : float, default=0.1
        The golden-section search stops when its bracket is shorter than
        ``line_search_tol * gamma_max``.
    d_init : array-like of shape (M,), default=None
        The starting weights (tiny weights zeroed, then renormalized); None for ``1/M``
        each.

    Returns
    -------
    MKLResult
        The weights ``d``, the SVMs at ``d``, the iteration count, the relative duality
        gap, the KKT spread, ``converged``, the number of SVM evaluations, ``history``
        and ``info``.

    Raises
    ------
    ValueError
        If a target is not -1 or +1, or a row of ``Y`` has one class.
    """
    Ks = np.asarray(Ks, dtype=float)
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    M = Ks.shape[0]
    n_svm = [0]

    def evaluate(d):
        act = np.flatnonzero(d > 0)
        K = np.tensordot(d[act], Ks[act], axes=1)
        n_svm[0] += 1
        return svm_solution(K, Y, C, svm_tol)

    d = np.full(M, 1.0 / M) if d_init is None else _project(np.asarray(d_init, float))
    sol = evaluate(d)
    history = [sol.J]
    ls_tol = float(line_search_tol)
    converged = False
    stop = None
    it = 0
    while True:
        grad = mkl_gradient(Ks, sol.beta)
        gap = duality_gap(sol.J, grad, sol.sum_alpha) / max(sol.J, np.finfo(float).tiny)
        if gap <= tol:
            converged = True
            break
        if it >= max_iter:
            stop = f"max_iter={max_iter} iterations reached"
            break
        D, mu = descent_direction(d, grad)
        if np.max(np.abs(D)) <= 1e-14 * max(1.0, np.max(np.abs(grad))):
            converged = True  # reduced gradient vanishes: KKT holds
            break
        d_new, sol_new = _descent_step(d, D, mu, sol, evaluate, ls_tol)
        it += 1
        if not sol_new.J < sol.J:
            # no decrease: refine the line search (the toolbox's "enhance accuracy of line
            # search"), give up at its floor (the SVM solver's numerical precision)
            if ls_tol > LINE_SEARCH_FLOOR:
                ls_tol /= 10.0
                continue
            stop = f"no decrease of J at the finest line search ({LINE_SEARCH_FLOOR:g} gamma_max)"
            break
        d, sol = d_new, sol_new
        history.append(sol.J)
    pos = d > 0
    kkt = float((np.max(-grad[pos]) - np.min(-grad[pos])) / max(np.max(-grad[pos]), 1e-300))
    stats = {"iterations": it, "svm_fits": n_svm[0], "relative_duality_gap": float(gap)}
    fallback = (
        None
        if converged
        else (
            f"simplemkl stopped by {stop} with relative duality gap {gap:.3g} > tol {tol:g} "
            "(last iterate returned)"
        )
    )
    info = SolveInfo("simplemkl-reduced-gradient", fallback=fallback, stats=stats)
    return MKLResult(d, sol, it, float(gap), kkt, converged, n_svm[0], history, info)


def _descent_step(d, D, mu, sol, evaluate, line_search_tol):
    """One iteration of Algorithm 1: descent-direction update, then the line search."""
    D = D.copy()
    d0, s0 = d, sol
    while True:
        neg = D < 0
        if not neg.any():
            return d0, s0
        ratios = np.full(D.size, np.inf)
        ratios[neg] = -d0[neg] / D[neg]
        gmax = float(ratios.min())
        hit = neg & (ratios <= gmax * (1 + 1e-12))
        d1 = d0 + gmax * D
        d1[hit] = 0.0
        d1 = _project(d1)
        s1 = evaluate(d1)
        if s1.J < s0.J:
            # accept the boundary point; the vanished coordinates leave D
            d0, s0 = d1, s1
            if hit[mu]:
                return d0, s0
            # D_nu <- 0 and D_mu <- D_mu + D_nu (sum_m D_m stays 0); also drops any
            # other weight that _project zeroed
            D[hit | ((d0 <= 0) & (D < 0))] = 0.0
            D[mu] = 0.0
            D[mu] = -D.sum()
            continue
        break
    # golden-section search of t in [0, gmax] along D from d0 (J(0) = s0.J, J(gmax) = s1.J)
    best_t, best = (0.0, s0)

    def at(t):
        return evaluate(_project(d0 + t * D))

    a, b = 0.0, gmax
    c = b - (b - a) / _GOLD
    e = a + (b - a) / _GOLD
    sc, se = at(c), at(e)
    cands = [(c, sc), (e, se)]
    while (b - a) > line_search_tol * gmax:
        if sc.J < se.J:
            b, e, se = e, c, sc
            c = b - (b - a) / _GOLD
            sc = at(c)
            cands.append((c, sc))
        else:
            a, c, sc = c, e, se
            e = a + (b - a) / _GOLD
            se = at(e)
            cands.append((e, se))
    for t, s in cands:
        if s.J < best.J:
            best_t, best = t, s
    if best_t == 0.0:
        return d0, s0
    return _project(d0 + best_t * D), best
