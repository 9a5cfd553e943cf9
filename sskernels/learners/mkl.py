"""SimpleMKL: multiple kernel learning for the SVM, a supervised baseline.

A. Rakotomamonjy, F. Bach, S. Canu and Y. Grandvalet, *SimpleMKL*, JMLR 9
(2008) 2491-2521 — the supervised MKL baseline of Mao & Tsang (UAI 2010),
Sec. 5.3 / Table 2.  Only the labeled points are used for training.

The problem (SimpleMKL Sec. 2-3) is the SVM with a convex combination of ``M``
base kernels, written as the minimization over the simplex of the optimal SVM
value ``J(d)``::

    min_d  J(d)   s.t.  sum_m d_m = 1,  d_m >= 0,
    J(d) = max_alpha  sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j sum_m d_m K_m(x_i, x_j)
           s.t.  sum_i alpha_i y_i = 0,  0 <= alpha_i <= C,

whose gradient is (SimpleMKL eq. (11))
``dJ/dd_m = -1/2 sum_ij alpha*_i alpha*_j y_i y_j K_m(x_i, x_j)``.
:func:`simplemkl` is Algorithm 1 of the paper:

1. ``d_m = 1/M``; solve the SVM with ``K = sum_m d_m K_m`` (``sklearn.svm.SVC``,
   ``kernel="precomputed"``; its ``dual_coef_`` are ``y_i alpha_i``) for
   ``J(d)`` and ``alpha*``, hence the gradient.
2. Reduced-gradient descent direction ``D`` (eq. (12), see
   :func:`descent_direction`) with the base variable ``mu = argmax_m d_m``.
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
   spread is recorded too (``kkt_violation_``).  When an iteration cannot
   decrease ``J``, the golden-section bracket is refined tenfold and the step
   retried (the toolbox's "enhance accuracy of line search"), down to
   ``1e-8 gamma_max``; then the solver stops (numerical floor of the SVMs).  At
   most ``max_iter`` iterations (retries included).

Choices, each stated where it is used:

* Base kernels (Mao & Tsang Sec. 5.3, after SimpleMKL's experiments): Gaussian
  ``exp(-||x - z||^2 / (2 sigma^2))`` for ``sigma`` in ``gaussian_widths``
  (absolute widths, on the features as the data set's preprocessing leaves
  them) and polynomial ``(<x, z> + 1)^q`` for ``q`` in ``poly_degrees`` — the
  definitions of the SimpleMKL toolbox (SVM-KM ``svmkernel``: 'gaussian',
  'poly').  All kernels take all variables (no per-variable kernels).
* Unit-trace normalization (Mao & Tsang Sec. 5.3; the toolbox's
  ``UnitTraceNormalization``): ``K_m <- K_m / tr(K_m[L, L])`` over the training
  (labeled) points; the same factor scales the cross kernels with new points.
  Inside the cross-validation the factor is recomputed on each fold's training
  points (the fold fit is a complete, honest fit).
* Multi-class: one-vs-rest with ONE shared ``d``: ``J(d) = sum_p J_p(d)`` over
  the binary problems "class p vs the rest" (SimpleMKL Sec. 4, multiclass:
  the objective is the sum of the binary SVM objectives, the gradient the sum of
  their gradients, the duality gap that of the sum); label = class of the
  largest decision value.  Two classes are one binary problem (+1 =
  ``classes_[1]``).
* Descent direction: the toolbox's form of eq. (12) — a coordinate at 0 with
  a negative reduced gradient may re-enter — and ``D_mu = -sum_{m != mu} D_m``
  so that ``sum_m D_m = 0`` exactly; after a coordinate ``nu`` vanishes in
  step 3, ``D_mu <- D_mu + D_nu``, ``D_nu <- 0`` (keeps ``sum_m D_m = 0``).
* Weights below ``1e-8`` are set to 0 and ``d`` renormalized (the toolbox's
  ``numericalprecision``).
* The inner SVMs are solved to libsvm tolerance ``svm_tol = 1e-5``, tighter than
  libsvm's default 1e-3, so that ``J``, its gradient and the duality gap are
  accurate enough for the line search and the stopping rule.
* Scale of C: with unit-trace kernels ``K_ij ~ 1/l``, so small C (below about
  1 for l = 100) leaves every ``alpha_i`` at its bound and predicts one class;
  the useful part of Mao & Tsang's grid is C >= 10.
* ``C = "auto"``: ``cv_folds``-fold cross-validated accuracy on the labeled
  points only (:func:`sskernels.learners.selection.select_on_labeled`), each
  candidate running the full MKL on the training folds; ties go to the largest
  ``C`` (as :class:`~sskernels.learners.manifold.SVMBaseline`).  Mao & Tsang
  instead report the best C of the grid on average over the test splits (they
  do no CV); a selection on the test labels is not offered.
* With a single labeled class every point receives it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from sskernels.learners.base import check_partial_labels
from sskernels.learners.selection import select_on_labeled

#: Gaussian widths sigma of SimpleMKL's experiments (Mao & Tsang Sec. 5.3)
GAUSSIAN_WIDTHS = (0.5, 1.0, 2.0, 5.0, 7.0, 10.0, 12.0, 15.0, 17.0, 20.0)
#: polynomial degrees (Mao & Tsang Sec. 5.3)
POLY_DEGREES = (1, 2, 3)
#: C grid (Mao & Tsang Sec. 5.3)
C_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3)

#: weights below this are set to zero (toolbox ``numericalprecision``)
WEIGHT_PRECISION = 1e-8
_GOLD = (np.sqrt(5.0) + 1.0) / 2.0
#: finest relative bracket of the golden-section search (toolbox ``goldensearchmax``)
LINE_SEARCH_FLOOR = 1e-8


# ---------------------------------------------------------------------------
# base kernels
# ---------------------------------------------------------------------------

def kernel_names(gaussian_widths=GAUSSIAN_WIDTHS, poly_degrees=POLY_DEGREES):
    """Names of the base kernels, in the order of :func:`base_kernels`."""
    return ([f"gaussian(sigma={float(s):g})" for s in gaussian_widths]
            + [f"poly(degree={int(q)})" for q in poly_degrees])


def base_kernels(A, B=None, gaussian_widths=GAUSSIAN_WIDTHS, poly_degrees=POLY_DEGREES,
                 which=None):
    """Raw (unnormalized) base kernels between the rows of ``A`` and ``B``, ``(M, nA, nB)``.

    Gaussian ``exp(-||x - z||^2 / (2 sigma^2))`` for each ``sigma`` in
    ``gaussian_widths``, then polynomial ``(<x, z> + 1)^q`` for each ``q`` in
    ``poly_degrees``.  ``which`` (booleans or indices over the ``M`` kernels)
    restricts the output to those kernels.
    """
    B = A if B is None else B
    M = len(gaussian_widths) + len(poly_degrees)
    idx = np.arange(M) if which is None else np.arange(M)[np.asarray(which)]
    nA, nB = A.shape[0], B.shape[0]
    out = np.empty((idx.size, nA, nB))
    n_g = len(gaussian_widths)
    D2 = G = None
    for k, m in enumerate(idx):
        if m < n_g:
            if D2 is None:
                D2 = np.maximum(euclidean_distances(A, B, squared=True), 0.0)
            out[k] = np.exp(-D2 / (2.0 * float(gaussian_widths[m]) ** 2))
        else:
            if G is None:
                G = A @ B.T
                G = np.asarray(G.todense()) if hasattr(G, "todense") else np.asarray(G)
                G = G + 1.0
            out[k] = G ** int(poly_degrees[m - n_g])
    return out


def unit_trace_scales(Ks):
    """``1 / tr(K_m)`` for each base kernel ``(M, n, n)`` (unit-trace normalization)."""
    tr = np.einsum("mii->m", Ks)
    if np.any(tr <= 0):
        raise ValueError("a base kernel has zero trace on the training points")
    return 1.0 / tr


# ---------------------------------------------------------------------------
# the SVM value J(d), its gradient, the descent direction
# ---------------------------------------------------------------------------

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
    SVM dual optimum, SimpleMKL's ``J(d)``), from ``SVC(kernel="precomputed")``;
    ``dual_coef_`` holds ``beta`` on the support vectors and the decision value
    is ``K beta + b`` (positive = target +1).
    """
    P, n = Y.shape
    beta = np.zeros((P, n))
    b = np.zeros(P)
    J = sa = 0.0
    K = np.ascontiguousarray(K)
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for p in range(P):
            svc = SVC(kernel="precomputed", C=C, tol=svm_tol).fit(K, Y[p])
            beta[p, svc.support_] = svc.dual_coef_[0]
            b[p] = svc.intercept_[0]
            s = float(np.abs(beta[p]).sum())
            J += s - 0.5 * float(beta[p] @ K @ beta[p])
            sa += s
    return SVMSolution(J, beta, b, sa)


def mkl_gradient(Ks, beta):
    """``dJ/dd_m = -1/2 sum_p sum_ij beta_pi beta_pj K_m(x_i, x_j)`` (SimpleMKL eq. (11)).

    ``beta = y * alpha*`` (P, n) of the SVMs at the current ``d``; for several
    binary problems sharing ``d`` the gradients add up.
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
    """
    return float(J + np.max(-grad) - sum_alpha)


def _project(d):
    """Clean ``d`` back onto the simplex: zero negatives and tiny weights, renormalize."""
    d = np.where(d < WEIGHT_PRECISION, 0.0, d)
    return d / d.sum()


@dataclass
class MKLResult:
    """Output of :func:`simplemkl`."""

    d: np.ndarray
    solution: SVMSolution
    n_iter: int
    duality_gap: float  # relative: gap / J
    kkt_violation: float
    converged: bool
    n_svm: int
    history: list


def simplemkl(Ks, Y, C, tol=0.01, max_iter=100, svm_tol=1e-5, line_search_tol=0.1,
              d_init=None):
    """SimpleMKL (Algorithm 1) on base kernels ``Ks`` (M, n, n) for targets ``Y`` (P, n) in ±1.

    ``J(d) = sum_p J_p(d)`` over the ``P`` binary problems (one for binary
    classification).  See the module docstring for the steps and the stopping
    rule.  ``Ks`` are used as given (normalize them first).  Returns an
    :class:`MKLResult`; ``history`` lists ``J`` at each iterate.
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
    it = 0
    while True:
        grad = mkl_gradient(Ks, sol.beta)
        gap = duality_gap(sol.J, grad, sol.sum_alpha) / max(sol.J, np.finfo(float).tiny)
        if gap <= tol:
            converged = True
            break
        if it >= max_iter:
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
            break
        d, sol = d_new, sol_new
        history.append(sol.J)
    pos = d > 0
    kkt = float((np.max(-grad[pos]) - np.min(-grad[pos])) / max(np.max(-grad[pos]), 1e-300))
    return MKLResult(d, sol, it, float(gap), kkt, converged, n_svm[0], history)


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


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------

def _targets(y_enc, n_classes):
    """±1 targets of the binary problems: one for two classes, one-vs-rest otherwise."""
    if n_classes == 2:
        return np.where(y_enc == 1, 1.0, -1.0)[None, :]
    return np.where(y_enc[None, :] == np.arange(n_classes)[:, None], 1.0, -1.0)


@dataclass
class _Model:
    classes: np.ndarray  # encoded classes present in training
    d: np.ndarray
    scales: np.ndarray
    beta: np.ndarray
    intercept: np.ndarray
    result: MKLResult


class SimpleMKL(ClassifierMixin, BaseEstimator):
    """SimpleMKL SVM on the labeled points only (Rakotomamonjy et al. 2008; Mao & Tsang Table 2).

    Parameters
    ----------
    gaussian_widths : widths ``sigma`` of the Gaussian base kernels
        ``exp(-||x - z||^2 / (2 sigma^2))``.
    poly_degrees : degrees ``q`` of the polynomial base kernels ``(<x, z> + 1)^q``.
    C : SVM trade-off, a number or ``"auto"`` (chosen from ``C_grid`` by
        ``cv_folds``-fold CV accuracy on the labeled points, each candidate running
        the full MKL on the training folds; ties to the largest C).
    tol : stop when the relative MKL duality gap is ``<= tol`` (toolbox default 0.01).
    max_iter : maximal number of reduced-gradient iterations.
    svm_tol : libsvm tolerance of the inner SVMs.
    line_search_tol : golden-section search stops at bracket ``< line_search_tol * gamma_max``.
    random_state : seed of the CV folds.

    Each base kernel is normalized to unit trace on the training points, the
    same factor applied to cross kernels with new points; multi-class is
    one-vs-rest with one shared ``d`` (module docstring).

    Attributes
    ----------
    classes_, labeled_, transduction_ (labels of all rows of X), C_,
    weights_ (M,) the kernel weights ``d``, kernel_names_, kernel_scales_
    (``1 / trace`` per kernel), dual_coef_ (P, l) ``y alpha`` per binary
    problem, intercept_ (P,), objective_ ``J(d)``, duality_gap_ (relative),
    kkt_violation_, converged_, n_iter_, n_svm_fits_; with ``C="auto"`` also
    cv_candidates_ and cv_scores_.
    """

    def __init__(self, gaussian_widths=GAUSSIAN_WIDTHS, poly_degrees=POLY_DEGREES, C="auto",
                 C_grid=C_GRID, cv_folds=5, random_state=0, tol=0.01, max_iter=100,
                 svm_tol=1e-5, line_search_tol=0.1):
        self.gaussian_widths = gaussian_widths
        self.poly_degrees = poly_degrees
        self.C = C
        self.C_grid = C_grid
        self.cv_folds = cv_folds
        self.random_state = random_state
        self.tol = tol
        self.max_iter = max_iter
        self.svm_tol = svm_tol
        self.line_search_tol = line_search_tol

    # -- fitting ------------------------------------------------------------

    def _check_params(self):
        widths = tuple(float(s) for s in (self.gaussian_widths or ()))
        degrees = tuple(int(q) for q in (self.poly_degrees or ()))
        if not widths and not degrees:
            raise ValueError("SimpleMKL needs at least one base kernel "
                             "(gaussian_widths and poly_degrees are both empty)")
        if any(s <= 0 for s in widths):
            raise ValueError(f"gaussian_widths must be > 0, got {widths}")
        if any(q < 1 for q in degrees):
            raise ValueError(f"poly_degrees must be >= 1, got {degrees}")
        if isinstance(self.C, str):
            if self.C != "auto":
                raise ValueError(f"C must be a number or 'auto', got {self.C!r}")
            Cs = [float(c) for c in self.C_grid]
        else:
            Cs = [float(self.C)]
        if not Cs or any(not c > 0 for c in Cs):
            raise ValueError(f"C values must be > 0, got {Cs}")
        if not self.tol > 0:
            raise ValueError(f"tol must be > 0, got {self.tol}")
        return widths, degrees, Cs

    def _fit_core(self, Ks_raw, y_enc, C):
        """Full SimpleMKL on raw base kernels of training points (unit-trace normalized here)."""
        present, y_loc = np.unique(y_enc, return_inverse=True)
        scales = unit_trace_scales(Ks_raw)
        if present.size < 2:
            return _Model(present, np.full(len(scales), 1.0 / len(scales)), scales,
                          None, None, None)
        Ks = Ks_raw * scales[:, None, None]
        res = simplemkl(Ks, _targets(y_loc, present.size), C, tol=self.tol,
                        max_iter=self.max_iter, svm_tol=self.svm_tol,
                        line_search_tol=self.line_search_tol)
        return _Model(present, res.d, scales, res.solution.beta, res.solution.intercept, res)

    @staticmethod
    def _scores(model, Kx_raw):
        """Decision values ``(n, P)`` from raw cross kernels ``(M, n, l)`` of the active kernels."""
        w = model.d[model.d > 0] * model.scales[model.d > 0]
        Kx = np.tensordot(w, Kx_raw, axes=1)
        return Kx @ model.beta.T + model.intercept

    @staticmethod
    def _labels(model, F):
        if model.beta is None:
            return np.full(F.shape[0], model.classes[0])
        if model.classes.size == 2:
            return model.classes[(F[:, 0] > 0).astype(int)]
        return model.classes[np.argmax(F, axis=1)]

    def fit(self, X, y):
        widths, degrees, Cs = self._check_params()
        classes, labeled, y_enc = check_partial_labels(y)
        self.classes_, self.labeled_ = classes, labeled
        self.X_fit_ = X
        XL = X[labeled]
        self.X_labeled_ = XL
        self.kernel_names_ = kernel_names(widths, degrees)
        Ks_raw = base_kernels(XL, None, widths, degrees)  # once per fit

        if len(Cs) > 1 and classes.size > 1:
            def predict(C, train, test):
                model = self._fit_core(Ks_raw[:, train][:, :, train], y_enc[train], C)
                if model.beta is None:
                    return np.full(test.size, model.classes[0])
                act = model.d > 0
                F = self._scores(model, Ks_raw[act][:, test][:, :, train])
                return self._labels(model, F)

            C, scores = select_on_labeled(Cs, predict, y_enc, n_folds=self.cv_folds,
                                          random_state=self.random_state)
            self.cv_candidates_, self.cv_scores_ = list(Cs), scores
        else:
            C = Cs[0]
        self.C_ = float(C)
        model = self._fit_core(Ks_raw, y_enc, self.C_)
        self.model_ = model
        self.weights_ = model.d
        self.kernel_scales_ = model.scales
        if model.result is not None:
            r = model.result
            self.dual_coef_, self.intercept_ = model.beta, model.intercept
            self.objective_, self.duality_gap_ = r.solution.J, r.duality_gap
            self.kkt_violation_, self.converged_ = r.kkt_violation, r.converged
            self.n_iter_, self.n_svm_fits_ = r.n_iter, r.n_svm
        self.transduction_ = self.predict(X)
        return self

    # -- prediction -----------------------------------------------------------

    def _cross_kernels(self, X, which):
        return base_kernels(X, self.X_labeled_, self.gaussian_widths, self.poly_degrees,
                            which=which)

    def decision_function(self, X):
        """Decision values: (n,) for two classes (positive = ``classes_[1]``), else (n, c) OvR.

        ``f_p(x) = sum_i beta_pi sum_m d_m K_m(x, x_i) / tr_m + b_p`` over the labeled points.
        """
        check_is_fitted(self, "model_")
        model = self.model_
        if model.beta is None:
            return np.ones(X.shape[0])
        F = self._scores(model, self._cross_kernels(X, model.d > 0))
        return F[:, 0] if self.classes_.size == 2 else F

    def predict(self, X):
        check_is_fitted(self, "model_")
        model = self.model_
        if model.beta is None:
            return np.full(X.shape[0], self.classes_[0])
        F = self._scores(model, self._cross_kernels(X, model.d > 0))
        return self.classes_[self._labels(model, F)]

    def kernel(self, A=None, B=None):
        """The learned kernel ``sum_m d_m K_m(A, B) / tr_m``; ``None`` = the rows of the fit's X."""
        check_is_fitted(self, "model_")
        A = self.X_fit_ if A is None else A
        B = A if B is None else B
        act = self.weights_ > 0
        Ks = base_kernels(A, B, self.gaussian_widths, self.poly_degrees, which=act)
        return np.tensordot(self.weights_[act] * self.kernel_scales_[act], Ks, axes=1)

    @property
    def kernel_(self):
        """The learned kernel on the rows of the fit's X, (n, n)."""
        return self.kernel()
