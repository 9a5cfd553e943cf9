"""Label propagation on a graph: harmonic function and local-global consistency.

* :class:`HarmonicFunction` — Zhu, Ghahramani & Lafferty (ICML 2003): the
  harmonic solution ``f_U = -L_UU^{-1} L_UL f_L`` with the unnormalized
  Laplacian ``L = D - W`` (their eq. (5)), one column per class.
* :class:`Consistency` — Zhou et al. (NIPS 2004), as written in Liu et al.
  eq. (3): ``F* = (1 - alpha) (I - alpha S)^{-1} C`` with
  ``S = D^{-1/2} W D^{-1/2}``.
* :class:`HarmonicRegressor` — the harmonic solution with continuous targets on the fully
  connected Gaussian graph (Wang et al. 2015's "Gaussian Fields" regressor, WiFi task).

How the two classifiers solve their sparse linear systems (``solver``; a choice: the papers
state the solutions, not how to compute them).  Both systems are symmetric positive
definite: ``L_UU`` on every graph component that holds a labeled point (the unlabeled
points of the other components are not in the system, see the orphan rule below), and
``I - alpha S`` for ``alpha < 1`` (the eigenvalues of ``S`` lie in [-1, 1]).

* ``"direct"`` — a sparse LU (:func:`scipy.sparse.linalg.splu`), exact to rounding.  Its
  fill grows fast with n on k-NN graphs: on the SSL-book SecStr set (n = 83,679, 10-NN)
  the factors would hold 0.3-0.9 n^2 entries (tens of GB), and already at n = 10,000 a fit
  is slow and memory-bound.
* ``"cg"`` — preconditioned conjugate gradients (:func:`sskernels.solvers.cg.cg_solve`),
  one column per class, Jacobi (diagonal) preconditioner, stopped when the true residual
  satisfies ``||b - A x|| <= CG_RTOL ||b||`` (:data:`CG_RTOL` = 1e-10, which keeps the
  scores within 1e-6 of the direct solution on the test graphs) or
  after :data:`CG_MAXITER` iterations (10,000).  A run that stops at the cap is recorded
  as a ``fallback`` in ``fit_report_`` (the last iterate is used), never silently.
  Iterations and relative residuals per column are in ``solve_info_.stats``,
  ``n_iter_`` and the record (``fit_report_.as_dict()['stats']``).  Nothing of size n x n is formed.  Consistency's solution is then
  polished where CG cannot resolve it (scores of order ``alpha^k`` k edges from every
  label; :func:`_polish`).
* ``"auto"`` (default) — ``"direct"`` for n <= :data:`DIRECT_MAX_N` training points
  (2,000), ``"cg"`` above.  Every paper table that runs these learners (Liu et al.'s
  sets, at most 1,051 points) keeps the direct path and its exact numbers.

Algebraic multigrid (pyamg's smoothed aggregation, one V-cycle as preconditioner; pyamg is
optional) is used only where it pays: when the first class column still needs more than
:data:`AMG_AFTER` = 300 Jacobi iterations, every column is solved with it (the first from
its Jacobi iterate; ``stats["preconditioner"] == "jacobi+amg"``).  AMG's setup costs about
as much as a few hundred Jacobi iterations, so it pays only on a low-dimensional manifold
at large n with the harmonic function's Dirichlet problem (e.g. a swiss roll), where Jacobi
needs hundreds of iterations; on SecStr-like k-NN graphs Jacobi converges in a few dozen
and the rule keeps it.  Consistency's condition number is at most
``(1 + alpha) / (1 - alpha)`` (199 at 0.99), so for alpha <= 0.99 Jacobi stays under the
switch there.  On the graphs compared, CG's solutions agree with the LU's far within the
1e-6 above, with the same transductions.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.learners.base import SemiSupervisedRegressor
from sskernels.learners.graph_base import GraphClassifier
from sskernels.learners.grids import ALPHAS, WIDE_B_SCALES
from sskernels.solvers.cg import amg_preconditioner, cg_solve, have_pyamg, jacobi_preconditioner
from sskernels.solvers.report import SolveInfo

#: ``solver="auto"`` solves by sparse LU up to this many training points and by
#: preconditioned CG above (a choice: the LU's fill depends on the graph, and on k-NN graphs
#: such as SecStr's its cost grows far faster with n than CG's; every paper table that runs
#: these learners -- Liu et al.'s sets, at most 1,051 points -- stays direct, with its exact
#: numbers)
DIRECT_MAX_N = 2_000
#: CG's relative tolerance on the true residual, ``||b - A x|| <= CG_RTOL ||b||`` (a choice:
#: keeps the scores within 1e-6 of the direct solution with a wide margin)
CG_RTOL = 1e-10
#: CG's iteration cap per column (a choice; reaching it is a recorded fallback)
CG_MAXITER = 10_000
#: Jacobi iterations after which CG switches to pyamg's smoothed-aggregation preconditioner
#: (from the Jacobi iterates), if pyamg is installed (a choice: about as many Jacobi
#: iterations as AMG's setup costs on k-NN graphs, module docstring)
AMG_AFTER = 300
#: consistency's CG solution is polished (:func:`_polish`) when some point's largest score
#: is below this fraction of the largest score (a choice: CG resolves scores to about
#: ``CG_RTOL`` of the largest in norm; 1e-6 leaves a wide margin)
POLISH_BELOW = 1e-6
#: the solver options of both classifiers
SOLVERS = ("auto", "direct", "cg")


def _use_cg(solver, n):
    """Whether ``solver`` ("auto", "direct", "cg") solves an n-point problem by CG."""
    return solver == "cg" or (solver == "auto" and n > DIRECT_MAX_N)


def _cg(est, A, B, what):
    """``A^{-1} B`` by preconditioned CG (module docstring): Jacobi, or -- when the first
    column needs more than :data:`AMG_AFTER` Jacobi iterations and pyamg is installed --
    pyamg's smoothed aggregation for every column (the first from its Jacobi iterate).
    The solve is recorded in ``est.fit_report_`` (a cap hit as a fallback),
    ``est.solve_info_`` and ``est.n_iter_`` (iterations per column, both phases)."""
    A = sp.csr_matrix(A)
    B = np.asarray(B, dtype=float)
    J = jacobi_preconditioner(A)
    amg = have_pyamg() and AMG_AFTER < CG_MAXITER
    if not amg:
        X, info = cg_solve(A, B, rtol=CG_RTOL, maxiter=CG_MAXITER, M=J, preconditioner="jacobi")
    else:
        x1, probe = cg_solve(
            A, B[:, :1], rtol=CG_RTOL, maxiter=AMG_AFTER, M=J, preconditioner="jacobi"
        )
        if probe.fallback is None:  # Jacobi converges quickly: keep it
            X2, info = cg_solve(
                A, B[:, 1:], rtol=CG_RTOL, maxiter=CG_MAXITER, M=J, preconditioner="jacobi"
            )
            X = np.column_stack([x1, X2])
            for key in ("iterations", "relative_residual"):
                info.stats[key] = probe.stats[key] + info.stats[key]
        else:
            x0 = np.zeros_like(B)
            x0[:, :1] = x1
            X, info = cg_solve(
                A,
                B,
                rtol=CG_RTOL,
                maxiter=CG_MAXITER - AMG_AFTER,
                M=amg_preconditioner(A),
                preconditioner="jacobi+amg",
                x0=x0,
            )
            first = [AMG_AFTER] + [0] * (B.shape[1] - 1)
            info.stats["jacobi_iterations"] = first
            info.stats["iterations"] = [a + b for a, b in zip(first, info.stats["iterations"])]
            if info.fallback:
                info.fallback = info.fallback.replace(
                    f"in {CG_MAXITER - AMG_AFTER} iterations", f"in {CG_MAXITER} iterations"
                )
    info.stats["maxiter"] = CG_MAXITER
    if amg:
        info.stats["amg_after"] = AMG_AFTER
    est.fit_report_.add(info, what, keep_stats=True)
    est.solve_info_, est.n_iter_ = info, np.asarray(info.stats["iterations"])
    return X


def _polish(est, S, C, G, reached):
    """Resolve the small scores of consistency's CG solution ``G ~ (I - alpha S)^{-1} C``.

    CG's error is small in norm only: a point k edges away from every labeled point has
    scores of order ``alpha^k`` (1e-12 and below at alpha = 0.1 a dozen edges away), which
    CG leaves at 0 or noise (a Krylov iterate is zero beyond as many edges as iterations),
    and its argmax would then be arbitrary where the LU resolves it.  When some point's
    largest score is below :data:`POLISH_BELOW` times the largest score (points of
    components without a labeled point, ``~reached``, are not counted), ``G`` (negative
    noise clipped to 0) is swept with Zhou et al.'s own iteration ``G <- alpha S G + C``,
    whose sums of non-negative terms keep every entry's relative accuracy, until no entry
    changes by more than :data:`CG_RTOL` of itself (at most :data:`CG_MAXITER` sweeps; the
    cap is a recorded fallback).  ``stats``: ``polished_points``, ``polish_sweeps``.
    """
    info = est.solve_info_
    best = np.abs(G).max(axis=1)
    top = best.max() if best.size else 0.0
    weak = int(np.count_nonzero((best < POLISH_BELOW * top) & reached))
    info.stats["polished_points"], info.stats["polish_sweeps"] = weak, 0
    if weak == 0 or top == 0:
        return G
    alpha = est.alpha
    G = np.maximum(G, 0.0)
    for sweep in range(1, CG_MAXITER + 1):  # noqa: B007 (the name documents the loop)
        new = alpha * (S @ G) + C
        done = bool(np.all(np.abs(new - G) <= CG_RTOL * np.abs(new) + _FLOOR))
        G = new
        if done:
            break
    info.stats["polish_sweeps"] = sweep
    if not done:
        est.fit_report_.note(
            "fallback",
            f"Liu et al. eq. (3) cg polish of {weak} weakly "
            f"resolved points not converged in {CG_MAXITER} sweeps: the last "
            "sweep is used",
        )
    return G


#: entries below this are converged whatever their relative change (subnormal rounding)
_FLOOR = 1e-290


def _direct_info(est):
    """The record before any solve: ``solve_info_`` names the LU on the direct path (whose
    ``fit_report_`` is left as it always was) and "none" until CG runs; ``n_iter_`` None."""
    est.solve_info_ = SolveInfo("splu" if est.solver_ == "direct" else "none")
    est.n_iter_ = None


class HarmonicFunction(GraphClassifier):
    """Gaussian fields and harmonic functions (Zhu et al. 2003, eq. (5)).

    The harmonic solution ``f_U = -L_UU^{-1} L_UL f_L`` on the k-NN graph, with the
    unnormalized Laplacian ``L = D - W``, one column of scores per class; a point's label
    is the class of its largest score.

    Unlabeled points in a connected component without any labeled point have
    no harmonic solution (``L_UU`` is singular); they receive the class
    frequencies of the labeled points (a choice: the paper assumes a connected
    graph; the rule of every graph learner, :class:`~sskernels.learners.graph_base.GraphClassifier`).
    ``class_mass_normalization`` applies Zhu et al.'s CMN (Sec. 3),
    off by default as in Liu et al.'s comparison.

    ``predict`` on new points uses the harmonic property itself: the weighted
    average of the graph points' scores, ``f(x) = sum_i W(x, x_i) f_i / sum_i W(x, x_i)``
    (the induction formula of Delalleau, Bengio & Le Roux, AISTATS 2005).

    The scores are the probabilities that a random walk from a point first reaches a
    labeled point of each class (Zhu et al. 2003, Sec. 2): ``label_distributions_``
    (training points) and ``predict_proba`` (new points, by the induction formula) give
    them normalized per row.

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The graph builder, a :class:`~sskernels.graph.KNNGraph` (k, weights, sigma,
        metric); ``None``: k = 6 with the weights of Liu et al. eq. (2).
        ``"precomputed"``: ``fit`` takes the (n, n) affinity matrix of the training points
        and ``predict`` the (s, n) affinities of new points to them.
    class_mass_normalization : bool, default=False
        Apply Zhu et al.'s class mass normalization (Sec. 3) to the unlabeled points'
        scores; off by default as in Liu et al.'s comparison.
    solver : {"auto", "direct", "cg"}, default="auto"
        How ``L_UU`` is solved (a choice, not the paper's; module docstring): ``"auto"``
        is a sparse LU up to :data:`DIRECT_MAX_N` = 2,000 points and CG above;
        ``"direct"`` a sparse LU of ``L_UU``; ``"cg"`` Jacobi-preconditioned conjugate
        gradients on ``L_UU``, which is SPD on the components with a labeled point
        (preconditioner ``diag(L_UU)^{-1}`` = the unlabeled points' inverse degrees;
        ``rtol`` :data:`CG_RTOL`, cap :data:`CG_MAXITER`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points (the affinity matrix with ``graph="precomputed"``).
    graph_ : Graph
        The :class:`~sskernels.graph.Graph` of the training points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The harmonic scores of every training point (class indicators at the labeled
        points).
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point: the class of its largest score.
    label_distributions_ : ndarray of shape (n_samples, n_classes)
        ``scores_`` normalized per row: a distribution over ``classes_``.
    label_frequencies_ : ndarray of shape (n_classes,)
        The labeled points' class frequencies, the scores of unreached points.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point.
    solver_ : {"direct", "cg"}
        The solver used.
    solve_info_ : SolveInfo
        The :class:`~sskernels.solvers.report.SolveInfo` of the solve; with CG its
        ``stats`` hold ``iterations`` and ``relative_residual`` per class column.
    n_iter_ : ndarray of shape (n_classes,) or None
        CG iterations per class column; None for the direct solve.
    fit_report_ : FitReport
        The solvers, fallbacks and degenerate cases of the fit
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    Consistency : Local and global consistency on the same graph.
    HarmonicRegressor : The harmonic solution with continuous targets.
    sklearn.semi_supervised.LabelPropagation : scikit-learn's label propagation.

    References
    ----------
    X. Zhu, Z. Ghahramani and J. Lafferty. Semi-supervised learning using Gaussian
    fields and harmonic functions. In Proc. ICML, 2003: eq. (5); Sec. 2 (random walks);
    Sec. 3 (class mass normalization).

    O. Delalleau, Y. Bengio and N. Le Roux. Efficient non-parametric function induction
    in semi-supervised learning. Artificial Intelligence and Statistics, 2005 (the
    induction formula of ``predict``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import HarmonicFunction
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = HarmonicFunction().fit(X, y_partial)
    >>> est.transduction_.shape
    (178,)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    >>> est.predict_proba(X[:2]).shape
    (2, 3)
    """

    _parameter_constraints = {
        **GraphClassifier._parameter_constraints,
        "class_mass_normalization": ["boolean"],
        "solver": [StrOptions(set(SOLVERS))],
    }

    _class_masses = True

    def __init__(self, graph=None, class_mass_normalization=False, solver="auto"):
        self.graph = graph
        self.class_mass_normalization = class_mass_normalization
        self.solver = solver

    def _scores(self, graph, labeled, C_L):
        n = graph.n
        unl = np.setdiff1d(np.arange(n), labeled)
        F = np.zeros((n, C_L.shape[1]))
        F[labeled] = C_L
        prior = C_L.mean(axis=0)
        self.solver_ = "cg" if _use_cg(self.solver, n) else "direct"
        _direct_info(self)
        if unl.size:
            # unreached points (no harmonic solution: L_UU is singular there) are left out
            # of the solve; the base gives them the labeled class frequencies
            solve = np.setdiff1d(unl, self.unreached_)
            if solve.size:
                L = graph.laplacian
                L_UU = L[solve][:, solve].tocsc()
                rhs = -(L[solve][:, labeled] @ C_L)
                if self.solver_ == "cg":
                    F[solve] = _cg(self, L_UU, rhs, "eq. (5)")
                else:
                    F[solve] = splu(L_UU).solve(np.asarray(rhs))
            if self.class_mass_normalization:
                mass = F[unl].sum(axis=0)
                F[unl] = F[unl] * (prior / np.where(mass > 0, mass, 1.0))
        return F

    def _induce(self, X):
        Wx = self.graph_.induced(X)
        dx = Wx.sum(axis=1, keepdims=True)
        return (Wx @ self.scores_) / np.where(dx > 0, dx, 1.0)


class Consistency(GraphClassifier):
    """Learning with local and global consistency (Zhou et al. 2004; Liu et al. eq. (3)).

    The scores ``F* = (1 - alpha) (I - alpha S)^{-1} C`` with ``S = D^{-1/2} W D^{-1/2}``
    of the k-NN graph and ``C`` the class indicators of the labeled points; a point's
    label is the class of its largest score.

    ``predict`` on a new point applies the fixed-point equation of the
    iteration ``F <- alpha S F + (1 - alpha) C`` to that point, which carries
    no label: ``f(x) = alpha sum_i W(x, x_i) / sqrt(D_xx D_ii) F_i``.

    Selection (``_selection``, by :func:`~sskernels.learners.registry.make_method` when a spec
    leaves ``alpha`` unset, sets it to ``auto`` or gives a list): ``alpha`` over
    :data:`ALPHAS` by cross-validation on the labeled points, ties to the largest (Zhou et
    al.'s 0.99).  Not the paper's protocol (it fixes 0.99): at 0.99 the near-constant
    eigenvector of ``S`` can carry nearly all the scores, and the class with the most labels
    then absorbs the others, which a selection on the labeled points sees.

    Points in graph components without a labeled point get the labeled class frequencies,
    the rule of every graph learner (:class:`~sskernels.learners.graph_base.GraphClassifier`;
    recorded as degenerate in ``fit_report_``).

    The scores are nonnegative label mass, so ``label_distributions_`` (training points)
    and ``predict_proba`` (new points) give them normalized per row, as scikit-learn's
    ``LabelSpreading`` does for the same iteration.

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The graph builder, a :class:`~sskernels.graph.KNNGraph` (k, weights, sigma,
        metric); ``None``: k = 6 with the weights of Liu et al. eq. (2).
        ``"precomputed"``: ``fit`` takes the (n, n) affinity matrix of the training points
        and ``predict`` the (s, n) affinities of new points to them.
    alpha : float, default=0.99
        The ``alpha`` of eq. (3), in (0, 1) (Zhou et al.'s 0.99).
    class_normalization : bool, default=False
        Divide each label column of ``C`` by its class's number of labeled points, so
        every class puts the same total mass into eq. (3) -- the remedy for the absorption
        above that keeps alpha.  A class with no labeled point keeps a zero column.  Off
        by default, as in Zhou et al. and Liu et al.
    solver : {"auto", "direct", "cg"}, default="auto"
        How ``I - alpha S`` is solved (a choice, not the paper's; module docstring):
        ``"auto"`` is a sparse LU up to :data:`DIRECT_MAX_N` = 2,000 points and CG above;
        ``"direct"`` a sparse LU of ``I - alpha S``; ``"cg"`` conjugate gradients on
        ``I - alpha S``, SPD for ``alpha < 1`` with condition number at most
        ``(1 + alpha) / (1 - alpha)``, 199 at 0.99 (the Jacobi preconditioner is the
        identity here since ``S`` has a zero diagonal -- ``I - alpha S = D^{-1/2} (D -
        alpha W) D^{-1/2}`` is already degree-scaled; ``rtol`` :data:`CG_RTOL`, cap
        :data:`CG_MAXITER`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points (the affinity matrix with ``graph="precomputed"``).
    graph_ : Graph
        The :class:`~sskernels.graph.Graph` of the training points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores ``F*`` of eq. (3) of every training point.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point: the class of its largest score.
    label_distributions_ : ndarray of shape (n_samples, n_classes)
        ``scores_`` normalized per row: a distribution over ``classes_``.
    label_frequencies_ : ndarray of shape (n_classes,)
        The labeled points' class frequencies, the scores of unreached points.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point.
    solver_ : {"direct", "cg"}
        The solver used.
    solve_info_ : SolveInfo
        The :class:`~sskernels.solvers.report.SolveInfo` of the solve; with CG its
        ``stats`` hold ``iterations`` and ``relative_residual`` per class column and the
        polish of weakly resolved points (``polished_points``, ``polish_sweeps``).
    n_iter_ : ndarray of shape (n_classes,) or None
        CG iterations per class column; None for the direct solve.
    fit_report_ : FitReport
        The solvers, fallbacks and degenerate cases of the fit
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    HarmonicFunction : The harmonic solution on the same graph.
    RegularizedSpectralKernel : Eq. (3) as a spectral kernel (Liu et al. eq. (4)-(5)).
    sklearn.semi_supervised.LabelSpreading : scikit-learn's version of the iteration.

    References
    ----------
    D. Zhou, O. Bousquet, T. Lal, J. Weston and B. Schölkopf. Learning with local and
    global consistency. In NIPS 16, 2004.

    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: eq. (3).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import Consistency
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = Consistency(alpha=0.9).fit(X, y_partial)
    >>> est.transduction_.shape
    (178,)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.label_distributions_.shape
    (178, 3)
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **GraphClassifier._parameter_constraints,
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "class_normalization": ["boolean"],
        "solver": [StrOptions(set(SOLVERS))],
    }
    _selection = {"alpha": (ALPHAS, "largest")}
    _class_masses = True

    def __init__(self, graph=None, alpha=0.99, class_normalization=False, solver="auto"):
        self.graph = graph
        self.alpha = alpha
        self.class_normalization = class_normalization
        self.solver = solver

    def _scores(self, graph, labeled, C_L):
        n = graph.n
        C = np.zeros((n, C_L.shape[1]))
        C[labeled] = C_L
        if self.class_normalization:
            counts = C_L.sum(axis=0)
            C[labeled] = C_L / np.where(counts > 0, counts, 1.0)
        self.solver_ = "cg" if _use_cg(self.solver, n) else "direct"
        _direct_info(self)
        reached = np.ones(n, dtype=bool)
        reached[self.unreached_] = False
        if self.solver_ == "cg":
            S = graph.S
            A = (sp.identity(n, format="csr") - self.alpha * S).tocsr()
            G = _polish(self, S, C, _cg(self, A, C, "Liu et al. eq. (3)"), reached)
            F = (1.0 - self.alpha) * G
        else:
            A = (sp.identity(n, format="csc") - self.alpha * graph.S).tocsc()
            F = (1.0 - self.alpha) * splu(A).solve(C)
        # unreached points have F = 0 here: the base gives them the labeled class frequencies
        return F

    def _induce(self, X):
        return self.alpha * (self.graph_.induced_normalized(X) @ self.scores_)


# ------------------------------------------------------------------------------- regression


def gaussian_transition(D2, b):
    """``P = D^{-1} W`` with ``W = exp(-b D2)``, ``W_ii = 0`` (D2 square).

    The row-stochastic matrix of the fully connected Gaussian graph, by a row softmax (the
    same numbers wherever ``W 1 > 0`` in floating point; the nearest neighbours where it
    underflows).

    Parameters
    ----------
    D2 : array-like of shape (n, n)
        Squared distances between the points.
    b : float
        The Gaussian's ``b``.

    Returns
    -------
    P : ndarray of shape (n, n)
        The transition matrix: zero diagonal, rows summing to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.propagation import gaussian_transition
    >>> D2 = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    >>> gaussian_transition(D2, b=1.0).round(3)
    array([[0.   , 0.953, 0.047],
           [0.5  , 0.   , 0.5  ],
           [0.047, 0.953, 0.   ]])
    """
    E = -b * np.asarray(D2, dtype=float)
    np.fill_diagonal(E, -np.inf)
    E -= E.max(axis=1, keepdims=True)
    P = np.exp(E)
    return P / P.sum(axis=1, keepdims=True)


def dense_harmonic(P, labeled, F_L):
    """The harmonic solution (Zhu et al. 2003, eq. (5)) on a dense graph.

    ``f_U = (I - P_UU)^{-1} P_UL f_L`` with ``P = D^{-1} W`` -- eq. (5) with each row of
    ``L = D - W`` divided by its degree, which does not change the solution.  ``F_L`` (l, k)
    continuous targets or class indicators; returns (n, k) with ``F[labeled] = F_L``.

    Parameters
    ----------
    P : ndarray of shape (n, n)
        The transition matrix (:func:`gaussian_transition`).
    labeled : array-like of int of shape (l,)
        Positions of the labeled points.
    F_L : ndarray of shape (l, k)
        Their targets or class indicators.

    Returns
    -------
    F : ndarray of shape (n, k)
        The harmonic function at every point.

    Raises
    ------
    numpy.linalg.LinAlgError
        When ``I - P_UU`` is singular (unlabeled points that reach no labeled point).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.propagation import dense_harmonic, gaussian_transition
    >>> D2 = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    >>> dense_harmonic(gaussian_transition(D2, b=1.0), [0, 2], np.array([[0.0], [1.0]]))
    array([[0. ],
           [0.5],
           [1. ]])
    """
    n = P.shape[0]
    unl = np.setdiff1d(np.arange(n), labeled)
    F = np.zeros((n, F_L.shape[1]))
    F[labeled] = F_L
    if unl.size:
        A = np.eye(unl.size) - P[np.ix_(unl, unl)]
        F[unl] = np.linalg.solve(A, P[np.ix_(unl, labeled)] @ F_L)
    return F


class HarmonicRegressor(SemiSupervisedRegressor):
    """Gaussian fields and harmonic functions as a REGRESSOR (Zhu et al. 2003; Wang et al. 2015).

    Wang et al. 2015's "Gaussian Fields based method" (Sec. 4.2): the harmonic solution
    ``f_U = -L_UU^{-1} L_UL f_L`` (eq. (5)) with the continuous targets as ``f_L``, one
    column per target, on the fully connected Gaussian graph ``W_ij = exp(-b ||x_i - x_j||^2)``
    (``W_ii = 0``), ``b = b_scale / mean squared pairwise distance`` (Wang et al.'s width rule,
    Fig. 2(b) varies it).  Dense, O(n^3): the cost Wang et al.'s Fig. 2(a) shows.

    :class:`HarmonicFunction` (the classifier) builds a sparse k-NN graph instead; this
    regressor shares the solution's formula (:func:`dense_harmonic`), not its graph.
    ``predict`` on new points: the harmonic property at the point,
    ``f(x) = sum_i W(x, x_i) f_i / sum_i W(x, x_i)`` over the training points (as
    :class:`HarmonicFunction`).  ``fit(X, y)``: y (n,) or (n, k), NaN = unlabeled.
    Selection (``_selection``): ``b_scale`` over the regression width grid, nearest to 1
    first; fold fits share one factorization per width (:meth:`_fold_predictor`).

    Parameters
    ----------
    b_scale : float, default=1.0
        The width factor: ``b = b_scale / mean squared pairwise distance`` (> 0).

    Attributes
    ----------
    b_ : float
        The width ``b`` used.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training points.
    scores_ : ndarray of shape (n_samples, n_targets)
        The harmonic solution at every training point (the targets at the labeled ones).
    transduction_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The predicted targets of every training point, in the shape of ``y``.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points (finite targets).
    n_targets_ : int
        Number of targets (columns of ``y``).
    fit_report_ : FitReport
        The solvers and degenerate cases of the fit
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    HarmonicFunction : The harmonic solution for classification, on a k-NN graph.
    LabelAwareSVR : An SVR on label-aware kernels (the same task).
    SVRBaseline : A supervised SVR on the labeled points.

    References
    ----------
    X. Zhu, Z. Ghahramani and J. Lafferty. Semi-supervised learning using Gaussian
    fields and harmonic functions. In Proc. ICML, 2003: eq. (5).

    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Sec. 4.2 and Fig. 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import HarmonicRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(100, 2))
    >>> y = np.sin(3 * X[:, 0]) + X[:, 1]
    >>> y_partial = np.full_like(y, np.nan)
    >>> y_partial[::5] = y[::5]                   # 20 labeled points, NaN = unlabeled
    >>> est = HarmonicRegressor(b_scale=50).fit(X, y_partial)
    >>> est.transduction_.shape
    (100,)
    >>> unlabeled = np.isnan(y_partial)
    >>> rmse = np.sqrt(np.mean((est.transduction_[unlabeled] - y[unlabeled]) ** 2))
    >>> bool(rmse < 0.3)
    True
    >>> est.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints = {"b_scale": [Interval(Real, 0, None, closed="neither")]}
    #: the regression width grid, nearest to 1 first
    _selection = {"b_scale": (WIDE_B_SCALES, "nearest-1")}
    _fold_params = frozenset({"b_scale"})

    def __init__(self, b_scale=1.0):
        self.b_scale = b_scale

    def _b(self, X):
        from sskernels.kernels.rbf import mean_squared_distance

        msd = mean_squared_distance(X)
        return self.b_scale / msd if msd > 0 else float(self.b_scale)

    def fit(self, X, y):
        """Solve the harmonic problem on the dense Gaussian graph of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            The targets; NaN (a row of NaN for several targets) marks an unlabeled point.
            At least two points must be labeled.

        Returns
        -------
        self : object
            The fitted regressor.
        """
        from sskernels.kernels.rbf import squared_distances

        X, labeled, Y_L = self._fit_start(X, y)
        self.X_fit_, self.b_ = X, self._b(X)
        P = gaussian_transition(squared_distances(X), self.b_)
        self.scores_ = dense_harmonic(P, labeled, Y_L)
        self.fit_report_.add(SolveInfo("lapack-solve"))
        self._note_constant_prediction(self.scores_)
        self.transduction_ = self._shaped(self.scores_)
        return self

    def _fold_setup(self, X, labeled, Y_L, report):
        """Per width one LU of ``I - P_UU`` over the split's unlabeled points U; a fold F of
        hidden labeled points is solved by the Schur complement of the system on U + F
        (exactly the fit with F's targets hidden)."""
        from scipy.linalg import lu_factor, lu_solve

        from sskernels.kernels.rbf import mean_squared_distance, squared_distances

        X = check_array(X, dtype=np.float64)
        D2, msd = squared_distances(X), mean_squared_distance(X)
        unl = np.setdiff1d(np.arange(X.shape[0]), labeled)
        memo = {}

        def predict(params, train, test):
            s = params["b_scale"]
            if s not in memo:
                memo.clear()
                P = gaussian_transition(D2, s / msd if msd > 0 else float(s))
                memo[s] = (P, lu_factor(np.eye(unl.size) - P[np.ix_(unl, unl)]))
            P, lu = memo[s]
            L_tr, F = labeled[train], labeled[test]
            r_U = P[np.ix_(unl, L_tr)] @ Y_L[train]
            r_F = P[np.ix_(F, L_tr)] @ Y_L[train]
            A_UF = -P[np.ix_(unl, F)]
            A_FU = -P[np.ix_(F, unl)]
            A_FF = np.eye(F.size) - P[np.ix_(F, F)]
            Z = lu_solve(lu, np.column_stack([A_UF, r_U]))
            S = A_FF - A_FU @ Z[:, : F.size]
            return np.linalg.solve(S, r_F - A_FU @ Z[:, F.size :])

        return predict

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the induction is a Nadaraya-Watson average at the width b = b_scale * b0: at the
        # default b_scale = 1 (kernel values ~exp(-1) between typical pairs) it over-smooths
        # scikit-learn's 10-d linear check data (R^2 < 0.5 on the training points), by design
        tags.regressor_tags.poor_score = True
        return tags

    def predict(self, X):
        """Targets of new points: the Gaussian-weighted average of the training scores.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_targets)
            Predicted targets, in the shape of the ``y`` given to ``fit``.
        """
        from sskernels.kernels.rbf import squared_distances

        check_is_fitted(self, "scores_")
        X = self._check_X(X)
        E = -self.b_ * squared_distances(X, self.X_fit_)
        E -= E.max(axis=1, keepdims=True)
        W = np.exp(E)
        return self._shaped((W @ self.scores_) / W.sum(axis=1, keepdims=True))
