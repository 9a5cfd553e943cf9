"""Linear manifold regularization: primal Laplacian RLS and Laplacian SVM.

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning",
Sec. 11.5 (linear methods).  With ``f(x) = w^T x`` the objective eq. (11.5),

    (1/l) sum_{i<=l} V(x_i, y_i, f) + gamma_A ||w||^2 + gamma_I / (u+l)^2  f^T M f,

``f = X w`` over all ``n = l + u`` training points and ``M = L^p``
(:func:`sskernels.kernels.deformed.intrinsic_matrix`, the intrinsic regularizer
of the kernel learners), is a ``d``-dimensional problem.

* :class:`LinearLapRLS` — squared loss.  Setting the gradient to zero and
  multiplying by ``l`` gives eq. (11.18),

      (X_L^T X_L + gamma_A l I + gamma_I l / (u+l)^2  X^T M X) w = X_L^T Y,

  the exact normalization of eq. (11.7): with ``K = X X^T`` the kernel
  LapRLS of eq. (11.7) gives ``f(x) = x^T X^T alpha = x^T w`` (push-through
  identity), so both learners produce the same function.  Solved directly
  (dense ``d x d`` Cholesky, :func:`sskernels.solvers.psd.solve_psd`) or by
  conjugate gradients (:func:`sskernels.solvers.cg.cg_solve`) with the
  matrix-free operator ``v -> X_L^T (X_L v) + gamma_A l v + c X^T (M (X v))``
  (``c = gamma_I l / (u+l)^2``) that never forms ``X^T M X`` — fit for large
  sparse ``X``.
* :class:`LinearLapSVM` — hinge loss through the Cholesky pre-processing of
  Sec. 11.5: ``T T^T = gamma_A I + gamma_I / (u+l)^2 X^T M X``; with
  ``x~ = T^{-1} x`` and ``w~ = T^T w`` the problem is a standard linear SVM on
  the labeled points, ``(1/l) sum hinge + ||w~||^2``, i.e. libsvm with
  ``C = 1 / (2 l)``; ``w = T^{-T} w~``.  Dense ``d x d`` (small ``d`` only; for
  large sparse ``d`` the same problem is solved in the dual by
  ``LapSVM(kernel_type="linear")``, :mod:`sskernels.learners.manifold`).

Conventions (as :class:`sskernels.learners.manifold.LapRLS`): ``y == -1``
marks unlabeled points; one-vs-rest targets in {-1, +1}, two classes solved
once (positive = ``classes_[1]``); ``coef_`` is (d,) for two classes, else
(d, c) (one column per class, all solved as multiple right-hand sides);
``decision_function`` is (n,) for two classes, else (n, c).  Sparse ``X`` is
used as CSR.  At ``gamma_I = 0`` the graph is not built (its term vanishes).

Choices the paper leaves open:

* ``gamma_A``, ``gamma_I`` (Sec. 11.5 states none).  Defaults 1e-2 / 1e-2 when
  used directly; the specs select them (``_selection``) by cross-validation on
  the labeled points only (:class:`~sskernels.learners.selection.SelectOnLabeled`)
  over :data:`GAMMA_I_GRID` (largest first) and :data:`GAMMA_A_GRID` (smallest
  first), ``gamma_I`` the more important: ties go to the strongest intrinsic
  regularization, as for the kernel LapRLS.  The grids are small (4 x 3) by
  choice: every candidate costs one CG solve per fold.
* ``fit_intercept=True`` (LapRLS) adds an *unpenalized* bias ``b``:
  ``f(x) = w^T x + b`` with ``b`` in the loss and in the graph term
  (``(Xw + b 1)^T M (Xw + b 1)``; for the unnormalized Laplacian ``M 1 = 0`` and
  ``b`` drops out of it) but not in ``gamma_A ||w||^2``; solved jointly as the
  augmented ``(d+1)`` system with ``Z = [X, 1]`` and no ridge on the last
  coordinate.  Eq. (11.18) has no bias (``fit_intercept=False``, the default).
* Multi-class: one-vs-rest (the paper is binary).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.hashing import fingerprint
from sskernels.kernels.deformed import LAPLACIANS, intrinsic_matrix
from sskernels.learners.base import as_scores, indicator, ovr_targets
from sskernels.learners.graph_base import (
    GraphSemiSupervisedClassifier,
    graph_components,
    settle_scores,
    unreached,
)
from sskernels.memo import LRU
from sskernels.solvers.cg import cg_solve
from sskernels.solvers.psd import solve_psd
from sskernels.solvers.report import SolveInfo

SOLVERS = ("auto", "direct", "cg")
#: "auto" uses the direct solver up to this dimension (dense or sparse X)
DIRECT_MAX_DIM = 2000
#: bytes of one dense column block of a sparse ``X`` in :func:`_gram_of_graph`
GRAM_BLOCK_BYTES = 2**27
#: the graph terms ``X^T M X`` by the contents of ``X`` and ``M`` (4 entries, 256 MB)
_GRAMS = LRU(4, max_bytes=2**28)
#: selection grids (a choice; Sec. 11.5 gives none): gamma_I largest first, gamma_A smallest
GAMMA_A_GRID = (1e-4, 1e-2, 1.0)
GAMMA_I_GRID = (0.0, 1e-2, 1.0, 100.0)


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _gram_of_graph(X, M):
    """``X^T M X`` (dense d x d, read-only), memoized by the contents of ``X`` and ``M``.

    The graph term of eq. (11.18) is label-independent: every fit on the same points (a
    selection's candidates and folds, a data set's splits) shares it.  A sparse ``X`` is
    multiplied by column blocks made dense (``n x b`` floats, at most
    :data:`GRAM_BLOCK_BYTES`), never as the sparse product ``M X``, whose rows fill in.
    """
    key = (fingerprint(X), fingerprint(M))
    G = _GRAMS.lookup(key)
    if G is not None:
        return G
    if sp.issparse(X):
        n, d = X.shape
        b = max(1, min(d, GRAM_BLOCK_BYTES // (8 * max(n, 1))))
        XT, Xc = sp.csr_matrix(X.T), sp.csc_matrix(X)
        G = np.empty((d, d))
        for j in range(0, d, b):
            G[:, j : j + b] = XT @ (M @ Xc[:, j : j + b].toarray())
    else:
        G = _dense(X.T @ _dense(M @ X))
    return _GRAMS.store(key, G)


class _LinearManifold(GraphSemiSupervisedClassifier):
    """Shared parts: parameters, labels, graph, ``M = L^p``, inductive linear prediction.

    Parameters common to both learners: ``graph`` (the k-NN graph builder,
    :class:`~sskernels.graph.KNNGraph`; default k = 6 with the weights of Liu et
    al. eq. (2); ``"precomputed"`` is refused: ``f = X w`` needs the features),
    ``gamma_A`` (> 0, the ``gamma_A ||w||^2`` of eq. (11.5)), ``gamma_I`` (>= 0;
    graph term ``gamma_I/(u+l)^2 f^T L^p f``), ``laplacian`` (``"unnormalized"``
    ``L = D - W``, the paper's, or ``"normalized"``) and ``laplacian_degree`` (p).

    Fitted: ``classes_``, ``labeled_``, ``coef_`` ((d,) for two classes, else
    (d, c)), ``intercept_``, ``gamma_A_``, ``gamma_I_``, ``graph_`` (when
    ``gamma_I > 0``), ``transduction_``, ``fit_report_`` (solvers, fallbacks,
    a constant prediction noted as degenerate).
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("gamma_A_", "gamma_I_")

    _parameter_constraints = {
        **GraphSemiSupervisedClassifier._parameter_constraints,
        "gamma_A": [Interval(Real, 0, None, closed="neither")],
        "gamma_I": [Interval(Real, 0, None, closed="left")],
        "laplacian": [StrOptions(set(LAPLACIANS))],
        "laplacian_degree": [Interval(Integral, 1, None, closed="left")],
    }
    _selection = {
        "gamma_I": (GAMMA_I_GRID, "largest"),
        "gamma_A": (GAMMA_A_GRID, "smallest"),
    }
    _fold_params = frozenset({"gamma_A", "gamma_I"})
    _fold_one_class = True
    _needs_features = True

    def precompute(self, X):
        """Build (memoized) the graph of ``X``; nothing when ``gamma_I = 0`` (no graph term)."""
        return None if self.gamma_I == 0 else super().precompute(X)

    def _prepare(self, X, y):
        X, labeled, y_enc = self._fit_start(X, y)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        self.gamma_A_, self.gamma_I_ = float(self.gamma_A), float(self.gamma_I)
        M = None  # gamma_I = 0: the graph term vanishes
        self.unreached_, self._y_enc = np.empty(0, dtype=int), y_enc
        if self.gamma_I > 0:
            self.graph_ = self._build_graph(X)
            self._find_unreached(self.graph_, labeled)
            M = intrinsic_matrix(self.graph_, self.laplacian, self.laplacian_degree)
        return X, M, labeled, ovr_targets(y_enc, self.classes_.size)

    @staticmethod
    def _scores(X, W, b, two_classes):
        """``f = X w + b`` as (n, c) scores (:func:`as_scores`); one column for two classes."""
        if two_classes:
            return as_scores(np.asarray(X @ W[:, 0]) + float(b[0]))
        return as_scores(np.asarray(X @ W) + b)

    def _set_solution(self, X, W, b, two_classes):
        if two_classes:
            self.coef_, self.intercept_ = W[:, 0], float(b[0])
        else:
            self.coef_, self.intercept_ = W, b
        F = self._label_unreached(self._scores(X, W, b, two_classes), self._y_enc)
        self.transduction_ = self.classes_[np.argmax(F, axis=1)]
        self._note_degenerate_prediction(self.transduction_)
        return self

    def decision_function(self, X):
        """``f(x) = x^T w (+ b)``: defined on any point (inductive).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            ``f`` at the points: (n_queries,) for two classes (positive means
            ``classes_[1]``), one-vs-rest values otherwise.
        """
        check_is_fitted(self, "coef_")
        return np.asarray(self._induced(X) @ self.coef_) + self.intercept_


class LinearLapRLS(_LinearManifold):
    """Primal linear Laplacian RLS, eq. (11.18).

    With ``f(x) = w^T x`` (``+ b`` with ``fit_intercept``) the squared loss in
    eq. (11.5) gives the ``d``-dimensional system eq. (11.18),
    ``(X_L^T X_L + gamma_A l I + gamma_I l / (u+l)^2  X^T M X) w = X_L^T Y`` with
    ``M = L^p`` of the k-NN graph: the same function as the kernel LapRLS with
    ``K = X X^T``.  Solved directly or by matrix-free conjugate gradients that never form
    ``X^T M X`` (module docstring).  One-vs-rest targets +-1 for more than two classes,
    all solved as multiple right-hand sides; sparse ``X`` is used as CSR.

    Parameters
    ----------
    graph : object or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`); ``None``: k = 6 with
        the weights of Liu et al. eq. (2).  ``"precomputed"`` is refused: ``f = X w``
        needs the features.
    gamma_A : float, default=1e-2
        The ``gamma_A ||w||^2`` of eq. (11.5) (> 0; 1e-2 is a choice, Sec. 11.5 states
        none; the specs select it over :data:`GAMMA_A_GRID`, smallest first).
    gamma_I : float, default=1e-2
        The graph term ``gamma_I/(u+l)^2 f^T L^p f`` (>= 0; 1e-2 is a choice; the specs
        select it over :data:`GAMMA_I_GRID`, largest first).  At 0 the graph is not built.
    solver : {"auto", "direct", "cg"}, default="auto"
        ``"direct"`` (dense ``d x d`` Cholesky solve; its lstsq fallback
        is reported), ``"cg"`` (matrix-free conjugate gradients, one run per
        right-hand side; a run that stops at ``cg_maxiter`` before ``cg_tol``
        is reported as a fallback) or ``"auto"`` (direct when ``d <= 2000``,
        dense or sparse ``X``, else CG).  The direct solve forms ``X^T M X`` once per
        graph and points (memoized: a selection's candidates and folds, and a data set's
        splits, share it).
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``"unnormalized"`` is ``L = D - W``, the paper's; ``"normalized"`` is
        ``I - D^{-1/2} W D^{-1/2}``.
    laplacian_degree : int, default=1
        p of ``M = L^p``.
    fit_intercept : bool, default=False
        Add an unpenalized bias (see the module docstring); False is eq. (11.18) as
        printed.
    cg_tol : float, default=1e-10
        Relative residual tolerance of CG.
    cg_maxiter : int or None, default=None
        Iteration cap of CG (``None`` = scipy's default, 10 * dimension).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    coef_ : ndarray of shape (n_features,) or (n_features, n_classes)
        The weights ``w``: (n_features,) for two classes (positive means
        ``classes_[1]``), one one-vs-rest column per class otherwise.
    intercept_ : float or ndarray of shape (n_classes,)
        The bias ``b``.
    gamma_A_ : float
        The ``gamma_A`` used.
    gamma_I_ : float
        The ``gamma_I`` used.
    graph_ : Graph
        The :class:`~sskernels.graph.Graph` of the training points (when
        ``gamma_I > 0``).
    transduction_ : ndarray of shape (n_samples,)
        The labels of all training points by ``f``.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point
        (they get the most frequent labeled class).
    fit_report_ : FitReport
        Solvers, fallbacks, a constant prediction noted as degenerate
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.
    solver_ : {"direct", "cg"}
        The solver used.
    n_iter_ : ndarray of shape (n_columns,) or None
        CG iterations per right-hand side; None for ``"direct"``.

    See Also
    --------
    LinearLapSVM : The hinge loss, by the Cholesky pre-processing of Sec. 11.5.
    LapRLS : The kernel LapRLS, eq. (11.7).

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: Sec. 11.5, eq. (11.18).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import LinearLapRLS
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = LinearLapRLS(gamma_I=100).fit(X, y_partial)
    >>> est.coef_.shape                            # one-vs-rest: one column per class
    (13, 3)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **_LinearManifold._parameter_constraints,
        "solver": [StrOptions(set(SOLVERS))],
        "fit_intercept": ["boolean"],
        "cg_tol": [Interval(Real, 0, None, closed="neither")],
        "cg_maxiter": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        graph=None,
        gamma_A=1e-2,
        gamma_I=1e-2,
        solver="auto",
        laplacian="unnormalized",
        laplacian_degree=1,
        fit_intercept=False,
        cg_tol=1e-10,
        cg_maxiter=None,
    ):
        self.graph = graph
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.solver = solver
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.fit_intercept = fit_intercept
        self.cg_tol = cg_tol
        self.cg_maxiter = cg_maxiter

    def fit(self, X, y):
        """Fit ``w`` (and ``b``) on all training points, labeled and unlabeled.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled (sparse input accepted).
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, M, labeled, T = self._prepare(X, y)
        solver = self.solver_ = self._solver_for(X.shape[1])
        W, b, info = self._coefficients(X, labeled, M, T, self.gamma_A, self.gamma_I, solver)
        self.n_iter_ = None if solver == "direct" else np.asarray(info.stats["iterations"])
        self.fit_report_.add(info, "eq. (11.18)")
        return self._set_solution(X, W, b, T.ndim == 1)

    def _solver_for(self, d):
        """The solver used for ``d`` features: ``solver``, or for "auto" direct up to
        :data:`DIRECT_MAX_DIM` and CG above."""
        if self.solver != "auto":
            return self.solver
        return "direct" if d <= DIRECT_MAX_DIM else "cg"

    def _coefficients(self, X, labeled, M, T, gamma_A, gamma_I, solver, G=None):
        """``(W, b, info)``: eq. (11.18) solved for the labeled positions ``labeled`` (sorted)
        with targets ``T``, ``W`` (d, k) and the bias ``b`` (k,) (zeros without
        ``fit_intercept``); ``G``: the (augmented) ``X^T M X`` when the caller holds it."""
        n, l = X.shape[0], labeled.size
        c = gamma_I * l / float(n * n)
        XL = X[labeled]
        Y = T if T.ndim == 2 else T[:, None]
        rhs = np.asarray(XL.T @ Y)  # (d, k)
        if self.fit_intercept:
            rhs = np.vstack([rhs, Y.sum(axis=0, keepdims=True)])
        ridge = np.full(rhs.shape[0], gamma_A * l)
        if self.fit_intercept:
            ridge[-1] = 0.0  # unpenalized bias
        if solver == "direct":
            W, info = self._direct(X, XL, M, c, ridge, rhs, G)
        else:
            W, info = cg_solve(
                self._operator(X, XL, M, c, ridge), rhs, rtol=self.cg_tol, maxiter=self.cg_maxiter
            )
        if self.fit_intercept:
            return W[:-1], W[-1], info
        return W, np.zeros(W.shape[1]), info

    def _fold_setup(self, X, labeled, y_enc, report):
        """Fold fits that share the graph, its components and ``Z^T M Z`` (label-independent).

        With the direct solver a fold fit is the ``d``-dimensional solve of eq. (11.18) with
        the fold's labels hidden, then ``f`` at the fold's points with the fit's rules for
        unreached points and tied scores (:func:`~sskernels.learners.graph_base.settle_scores`):
        the predictions of the fit itself, without its validation and bookkeeping over all
        n points.  The solves' reports (a fallback) go to ``report``.  Handles
        ``gamma_A`` and ``gamma_I``; None (the generic rule) for CG.
        """
        X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        if self._solver_for(X.shape[1]) != "direct":
            return None
        shared, base = {}, self.get_params(deep=False)

        def graph_parts():
            if not shared:
                graph = self._build_graph(X)
                M = intrinsic_matrix(graph, self.laplacian, self.laplacian_degree)
                shared.update(
                    M=M, G=_gram_of_graph(self._augment(X), M), components=graph_components(graph)
                )
            return shared

        def predict(params, train, test):
            p = {**base, **params}
            order = np.argsort(labeled[train], kind="stable")
            lab, y_fold = labeled[train][order], y_enc[train][order]
            classes, enc = np.unique(y_fold, return_inverse=True)
            T = ovr_targets(enc, classes.size)
            M = G = None
            cut = np.empty(0, dtype=np.intp)
            if p["gamma_I"] > 0:
                parts = graph_parts()
                M, G = parts["M"], parts["G"]
                cut = np.flatnonzero(unreached(parts["components"], lab)[labeled[test]])
            W, b, info = self._coefficients(X, lab, M, T, p["gamma_A"], p["gamma_I"], "direct", G)
            report.add(info, "eq. (11.18)")
            F = self._scores(X, W, b, T.ndim == 1)[labeled[test]]
            F, _ = settle_scores(F, indicator(enc, classes.size), cut)
            return classes[np.argmax(F, axis=1)]

        return predict

    def _augment(self, A):
        if not self.fit_intercept:
            return A
        ones = np.ones((A.shape[0], 1))
        return sp.hstack([A, ones], format="csr") if sp.issparse(A) else np.hstack([A, ones])

    def _direct(self, X, XL, M, c, ridge, rhs, G=None):
        Z, ZL = self._augment(X), self._augment(XL)
        A = _dense(ZL.T @ ZL) + np.diag(ridge)
        if M is not None and c > 0:
            A = A + c * (_gram_of_graph(Z, M) if G is None else G)
        return solve_psd(0.5 * (A + A.T), rhs)

    def _operator(self, X, XL, M, c, ridge):
        """``v -> A v`` of eq. (11.18) (augmented with the bias), never forming ``X^T M X``."""
        dim, d = ridge.size, X.shape[1]
        fi = self.fit_intercept
        use_graph = M is not None and c > 0

        def matvec(v):
            v = np.asarray(v, dtype=float).ravel()
            w, b = (v[:d], v[d]) if fi else (v, 0.0)
            fL = XL @ w + b  # X_L v (+ b)
            out = np.empty(dim)
            out[:d] = XL.T @ fL
            if fi:
                out[d] = fL.sum()
            if use_graph:
                g = M @ (X @ w + b)  # L (X v), never X^T L X
                out[:d] += c * (X.T @ g)
                if fi:
                    out[d] += c * g.sum()
            return out + ridge * v

        return matvec


class LinearLapSVM(_LinearManifold):
    """Linear Laplacian SVM by the Cholesky pre-processing of Sec. 11.5.

    Minimizes ``(1/l) sum_i max(0, 1 - y_i (w^T x_i + b)) + w^T (T T^T) w`` with
    ``T T^T = gamma_A I + gamma_I/(u+l)^2 X^T L^p X`` (Cholesky, dense ``d x d``:
    small ``d`` only; recorded as ``"cholesky"``).  With ``x~ = T^{-1} x`` it is
    the standard SVM ``1/2 ||w~||^2 + C sum hinge`` with ``C = 1/(2l)`` on the
    labeled points (libsvm, linear kernel on ``x~``, tolerance ``tol``; recorded
    as ``"libsvm"``), ``w = T^{-T} w~``.  The bias ``b`` is unpenalized and, as in
    the kernel LapSVM (eq. (11.8)-(11.10)), not part of the graph term.
    One-vs-rest for more than two classes.  For large sparse ``d`` the same problem is
    solved in the dual by ``LapSVM(kernel_type="linear")``.

    Parameters
    ----------
    graph : object or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`); ``None``: k = 6 with
        the weights of Liu et al. eq. (2).  ``"precomputed"`` is refused: ``f = X w``
        needs the features.
    gamma_A : float, default=1e-2
        The ``gamma_A ||w||^2`` of eq. (11.5) (> 0; 1e-2 is a choice, Sec. 11.5 states
        none; the specs select it over :data:`GAMMA_A_GRID`, smallest first).
    gamma_I : float, default=1e-2
        The graph term ``gamma_I/(u+l)^2 f^T L^p f`` (>= 0; 1e-2 is a choice; the specs
        select it over :data:`GAMMA_I_GRID`, largest first).  At 0 the graph is not built.
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``"unnormalized"`` is ``L = D - W``, the paper's; ``"normalized"`` is
        ``I - D^{-1/2} W D^{-1/2}``.
    laplacian_degree : int, default=1
        p of ``M = L^p``.
    tol : float, default=1e-8
        libsvm's stopping tolerance (a choice: tight, so that it matches the kernel
        LapSVM's dual).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    coef_ : ndarray of shape (n_features,) or (n_features, n_classes)
        The weights ``w``: (n_features,) for two classes (positive means
        ``classes_[1]``), one one-vs-rest column per class otherwise.
    intercept_ : float or ndarray of shape (n_classes,)
        The bias ``b``.
    gamma_A_ : float
        The ``gamma_A`` used.
    gamma_I_ : float
        The ``gamma_I`` used.
    graph_ : Graph
        The :class:`~sskernels.graph.Graph` of the training points (when
        ``gamma_I > 0``).
    transduction_ : ndarray of shape (n_samples,)
        The labels of all training points by ``f``.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point
        (they get the most frequent labeled class).
    fit_report_ : FitReport
        Solvers, fallbacks, a constant prediction noted as degenerate
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    LinearLapRLS : The squared loss, eq. (11.18).
    LapSVM : The kernel LapSVM (``kernel_type="linear"`` for the linear kernel in the dual).

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: Sec. 11.5.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import LinearLapSVM
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = LinearLapSVM().fit(X, y_partial)
    >>> est.coef_.shape                            # one-vs-rest: one column per class
    (13, 3)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **_LinearManifold._parameter_constraints,
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        graph=None,
        gamma_A=1e-2,
        gamma_I=1e-2,
        laplacian="unnormalized",
        laplacian_degree=1,
        tol=1e-8,
    ):
        self.graph = graph
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.tol = tol

    def fit(self, X, y):
        """Fit ``w`` (and ``b``) on all training points, labeled and unlabeled.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled (sparse input accepted).
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, M, labeled, T = self._prepare(X, y)
        n, d = X.shape
        l = labeled.size
        P = self.gamma_A * np.eye(d)
        if M is not None:
            P = P + (self.gamma_I / float(n * n)) * _gram_of_graph(X, M)
        P = 0.5 * (P + P.T)
        Tc = np.linalg.cholesky(P)  # P = Tc Tc^T
        self.fit_report_.add(SolveInfo("cholesky"), "Sec. 11.5 pre-processing")
        XL = _dense(X[labeled])
        Xt = sla.solve_triangular(Tc, XL.T, lower=True).T  # rows x~ = T^{-1} x
        Kt = Xt @ Xt.T
        Ys = T if T.ndim == 2 else T[:, None]
        W = np.zeros((d, Ys.shape[1]))
        b = np.zeros(Ys.shape[1])
        for j in range(Ys.shape[1]):  # both signs in each column
            svc = SVC(kernel="precomputed", C=1.0 / (2.0 * l), tol=self.tol)
            svc.fit(Kt, (Ys[:, j] > 0).astype(int))
            coef = np.zeros(l)
            coef[svc.support_] = svc.dual_coef_.ravel()  # beta_i y_i (class 1 = +)
            W[:, j] = sla.solve_triangular(Tc.T, Xt.T @ coef, lower=False)  # w = T^{-T} w~
            b[j] = float(svc.intercept_[0])
        self.fit_report_.add(SolveInfo("libsvm"))
        return self._set_solution(X, W, b, T.ndim == 1)
