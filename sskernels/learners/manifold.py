"""Manifold regularization: Laplacian RLS and Laplacian SVM.

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning"
(Sec. 11.3.1; Belkin, Niyogi & Sindhwani, JMLR 2006).  Both learners minimise
eq. (11.5),

    (1/l) sum_{i<=l} V(x_i, y_i, f) + gamma_A ||f||_K^2 + gamma_I / (u+l)^2  f^T M f,

over the RKHS of an RBF kernel ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``
(``sigma`` = the kernel width) or of the linear kernel, where ``f`` are the
values of ``f`` at all ``l + u`` training points and ``M = L^p`` of the k-NN
graph (:func:`sskernels.kernels.deformed.intrinsic_matrix`).  By the
representer theorem (Thm. 11.2, eq. (11.6)) ``f(x) = sum_{i<=l+u} alpha_i
K(x_i, x) (+ b)``, which is defined on any new point: both learners are inductive.

* :class:`LapRLS` — squared loss, ``alpha`` of eq. (11.7), no bias.
* :class:`LapSVM` — hinge loss, the dual QP eq. (11.8)-(11.9)
  (:func:`sskernels.solvers.svm.svm_dual_qp`: HiGHS, libsvm as its reported
  fallback), ``alpha`` of eq. (11.10), and a bias ``b`` (see the class).
  The closed forms live in :mod:`sskernels.solvers.manifold` (re-exported here).
* ``kernel()`` of both — the deformed kernel eq. (11.15)
  (:mod:`sskernels.kernels.deformed`): standard RLS/SVM with it on the labeled
  points are LapRLS/LapSVM (eq. (11.16)).

Choices the paper leaves open (each stated again where it is used):

* Multi-class: one-vs-rest with targets +-1 (the paper is binary); the label is
  the class of the largest decision value.  Two classes are solved once.
* Hyper-parameters (Sec. 11.3.1 leaves their choice open): the specs select
  ``gamma_I``, ``gamma_A`` and the width scale by cross-validation on the
  labeled points only (:class:`~sskernels.learners.selection.SelectOnLabeled`,
  grids and preferences in ``_selection``).  Its fold fits use the deformed
  kernel of the full data (it does not depend on labels), through one
  eigendecomposition per kernel width
  (:func:`~sskernels.kernels.deformed.cached_deformation_basis`, memoized
  across splits like the graph), so a fold fit is an ``l x l`` problem.

:class:`SVMBaseline` and :class:`OneNN` live in
:mod:`sskernels.learners.supervised` (re-exported here for old imports).
"""

from __future__ import annotations

from collections import OrderedDict
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.hashing import fingerprint
from sskernels.kernels.deformed import (
    LAPLACIANS,
    cached_deformation_basis,
    deformed_kernel,
    intrinsic_matrix,
)
from sskernels.kernels.rbf import WIDTH_RULES, rbf, resolve_width, squared_distances
from sskernels.learners.base import as_scores, ovr_targets
from sskernels.learners.graph_base import GraphSemiSupervisedClassifier
from sskernels.learners.grids import WIDTH_FACTORS
from sskernels.solvers.manifold import laprls_coefficients, lapsvm_binary, lapsvm_system
from sskernels.solvers.report import SolveInfo
from sskernels.solvers.libsvm import binary_svm_decision
from sskernels.solvers.svm import svm_dual_qp, svm_intercept

#: bytes of fold blocks (a width's deformed kernel cut to a fold's rows and columns) a
#: selection keeps for the candidates that share them
FOLD_BLOCK_BYTES = 64 * 2**20
#: gamma_A and gamma_I grid of the selection (Mao & Tsang, Sec. 5.2; features min-max scaled)
GAMMA_GRID = (1e-6, 1e-4, 1e-2, 1e-1, 1.0, 10.0, 100.0)

__all__ = ["LapRLS", "LapSVM", "GAMMA_GRID"]


# ---------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------


class _ManifoldRegularizer(GraphSemiSupervisedClassifier):
    """Shared parts of LapRLS and LapSVM (see the module docstring for eq. (11.5)).

    Parameters
    ----------
    graph : the k-NN graph builder (:class:`~sskernels.graph.KNNGraph`; default
        k = 6 with the weights of Liu et al. eq. (2), the graph every learner of
        the package uses).  ``"precomputed"`` is refused: the kernel needs X.
        The kernel always uses Euclidean distances on ``X`` as given.
    gamma_A : ambient regularization of eq. (11.5) (> 0).  Default 1e-2, a choice
        (the paper states none; the specs select it over :data:`GAMMA_GRID`).
    gamma_I : intrinsic regularization of eq. (11.5) (>= 0); the graph term is
        ``gamma_I / (u+l)^2 f^T L^p f`` (the paper's scale).  Default 1, a choice.
    kernel_width : sigma of ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``: a number,
        ``"median"`` (the median pairwise distance of the training points, the
        default) or ``"mean-norm"`` (the mean norm of the points, Mao & Tsang's rule),
        :func:`sskernels.kernels.rbf.resolve_width`.
    kernel_width_scale : the width in use is ``kernel_width_scale`` times the rule's
        (or the number's) value; the specs select it over :data:`WIDTH_FACTORS`
        when ``kernel_width`` is not fixed.
    laplacian : ``"unnormalized"`` (``L = D - W``, the paper's) or ``"normalized"``.
    laplacian_degree : p of ``L^p`` (default 1).
    kernel_type : ``"rbf"`` (default) or ``"linear"`` (``K = X X^T``, no width; with
        it LapSVM is the linear LapSVM of Sec. 11.5 solved in the dual, ``w = X^T alpha``,
        which scales with n rather than d for high-dimensional sparse data).

    Selection (``_selection``, used by :func:`~sskernels.learners.registry.make_method`
    and :class:`~sskernels.learners.selection.SelectOnLabeled`): ``gamma_I`` over
    :data:`GAMMA_GRID`, largest first; ``gamma_A`` over the same grid, smallest
    first (together: the strongest intrinsic regularization, the point of the
    method when labels are scarce); the width scale over :data:`WIDTH_FACTORS`,
    nearest to 1 first (then the larger), unless ``kernel_width`` is given.

    Fitted attributes: ``classes_``, ``labeled_``, ``X_fit_``, ``graph_``,
    ``alpha_`` ((n,) for two classes, else (n, c)), ``intercept_``, ``gamma_A_``,
    ``gamma_I_``, ``kernel_width_`` (None for the linear kernel),
    ``transduction_`` (the labels of all training points by ``f``), ``fit_report_``.
    ``decision_function`` follows scikit-learn: (n,) for two classes (positive
    means ``classes_[1]``), (n, c) one-vs-rest values otherwise.
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("gamma_A_", "gamma_I_", "kernel_width_")

    _parameter_constraints = {
        **GraphSemiSupervisedClassifier._parameter_constraints,
        "gamma_A": [Interval(Real, 0, None, closed="neither")],
        "gamma_I": [Interval(Real, 0, None, closed="left")],
        "kernel_width": [Interval(Real, 0, None, closed="neither"), StrOptions(set(WIDTH_RULES))],
        "kernel_width_scale": [Interval(Real, 0, None, closed="neither")],
        "laplacian": [StrOptions(set(LAPLACIANS))],
        "laplacian_degree": [Interval(Integral, 1, None, closed="left")],
        "kernel_type": [StrOptions({"rbf", "linear"})],
    }
    _selection = {
        "gamma_I": (GAMMA_GRID, "largest"),
        "gamma_A": (GAMMA_GRID, "smallest"),
        "kernel_width_scale": (WIDTH_FACTORS, "nearest-1", ("kernel_width",)),
    }
    _widthless = ("kernel_type", "linear")
    _needs_features = True

    def __init__(
        self,
        graph=None,
        gamma_A=1e-2,
        gamma_I=1.0,
        kernel_width="median",
        kernel_width_scale=1.0,
        laplacian="unnormalized",
        laplacian_degree=1,
        kernel_type="rbf",
    ):
        self.graph = graph
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel_width = kernel_width
        self.kernel_width_scale = kernel_width_scale
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.kernel_type = kernel_type

    # -- fitting ------------------------------------------------------------
    def fit(self, X, y):
        """Fit ``f`` by eq. (11.5) on all training points, labeled and unlabeled.

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
        X, labeled, y_enc = self._fit_start(X, y)
        self.X_fit_ = X
        self.graph_ = self._build_graph(X)
        self._find_unreached(self.graph_, labeled)
        M = intrinsic_matrix(self.graph_, self.laplacian, self.laplacian_degree)
        self.kernel_width_ = self._width(X, self.kernel_width, self.kernel_width_scale)
        self.gamma_A_, self.gamma_I_ = float(self.gamma_A), float(self.gamma_I)
        K = self._gram(X, X, self.kernel_width_)
        self._fit_coefficients(K, M, labeled, y_enc, self.classes_.size)
        F = self._label_unreached(as_scores(K @ self.alpha_ + self.intercept_), y_enc)
        self.transduction_ = self.classes_[np.argmax(F, axis=1)]
        self._note_degenerate_prediction(self.transduction_)
        return self

    def _width(self, X, width, scale):
        """The RBF width in use (None for the linear kernel)."""
        if self.kernel_type == "linear":
            return None
        return resolve_width(X, width, scale)

    def _gram(self, A, B, width):
        """The base kernel between point sets: RBF of the given width, or linear ``<a, b>``."""
        if self.kernel_type == "linear":
            G = A @ B.T
            return np.asarray(G.todense() if sp.issparse(G) else G, dtype=float)
        return rbf(squared_distances(A, B), width)

    #: parameters that change the label-independent work (see ``SelectOnLabeled.precompute``)
    _precompute_params = ("kernel_width", "kernel_width_scale")

    def precompute(self, X):
        """The graph, and the deformation basis of this estimator's width (memoized).

        Both are label-independent; computed once here (the runner's warm-up), the
        fold fits of every split only read them.
        """
        graph = super().precompute(X)
        if not self._precomputed:
            X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
            M = intrinsic_matrix(graph, self.laplacian, self.laplacian_degree)
            self._basis_maker(X, M)(self._width(X, self.kernel_width, self.kernel_width_scale))
        return graph

    def _basis_maker(self, X, M):
        """``width -> (G, lam)`` of :func:`~sskernels.kernels.deformed.deformation_basis`,
        memoized under the data's fingerprint, graph, Laplacian, kernel type and width."""
        builder = self.graph_builder().get_params()
        key0 = (
            fingerprint(X),
            tuple(sorted(builder.items())),
            self.laplacian,
            int(self.laplacian_degree),
            self.kernel_type,
        )
        D2 = []

        def base_kernel(width):
            if self.kernel_type == "linear":
                return self._gram(X, X, width)
            if not D2:
                D2.append(squared_distances(X))
            return rbf(D2[0], width)

        return lambda width: cached_deformation_basis(
            key0 + (width,), lambda: base_kernel(width), M
        )

    _deformed_keys = frozenset({"gamma_A", "gamma_I", "kernel_width", "kernel_width_scale"})
    _fold_params = _deformed_keys

    def _deformed_scorer(self, X, rows, labeled, n_classes):
        """``scores(params, train, test)``: RLS / SVM with the deformed kernel (eq. (11.16))
        on the labeled points at positions ``train`` of ``labeled``, evaluated at the points
        ``rows[test]``.  For each width ``K~_r[rows, labeled] = G_rows diag(1/(1 + r lam))
        G_labeled^T`` (``r = gamma_I / (gamma_A (u+l)^2)``) is formed once per ``r`` and
        shared by every fold and candidate."""
        graph = self._build_graph(X)
        M = intrinsic_matrix(graph, self.laplacian, self.laplacian_degree)
        n = X.shape[0]
        bases, blocks = {}, {}
        basis = self._basis_maker(X, M)
        square = rows is labeled

        def block(width, gamma_A, gamma_I):
            r = gamma_I / (gamma_A * n * n)
            Kt = blocks.get((width, r))
            if Kt is None:
                if width not in bases:
                    G, lam = basis(width)
                    bases[width] = (G[rows], G[labeled], lam)
                GR, GL, lam = bases[width]
                Kt = (GR / (1.0 + r * lam)) @ GL.T
                if square:
                    Kt = 0.5 * (Kt + Kt.T)
                blocks[(width, r)] = Kt
            return Kt

        own, widths = self.get_params(deep=False), {}

        def params_block(p):
            wkey = (p["kernel_width"], p["kernel_width_scale"])
            if wkey not in widths:
                widths[wkey] = self._width(X, *wkey)
            return block(widths[wkey], p["gamma_A"], p["gamma_I"])

        # (block, train, test) -> their rows and columns, with the key objects themselves
        # (ids are only compared while the objects are held); bounded in bytes
        folds, held = OrderedDict(), [0]

        def fold_blocks(Kt, train, test):
            """``Kt[train, train]`` and ``Kt[test, train]``, cut once per fold and block (the
            candidates that share a block -- same width and gamma_I / gamma_A -- differ only
            in C; the selection hands every candidate the same fold arrays)."""
            key = (id(Kt), id(train), id(test))
            hit = folds.get(key)
            if hit is not None and hit[0] is Kt and hit[1] is train and hit[2] is test:
                folds.move_to_end(key)
                return hit[3], hit[4]
            K_tr = Kt.take(train, axis=0).take(train, axis=1)
            K_te = Kt.take(test, axis=0).take(train, axis=1)
            folds[key] = (Kt, train, test, K_tr, K_te)
            held[0] += K_tr.nbytes + K_te.nbytes
            while held[0] > FOLD_BLOCK_BYTES and len(folds) > 1:
                _, old = folds.popitem(last=False)
                held[0] -= old[3].nbytes + old[4].nbytes
            return K_tr, K_te

        def scores(params, y_tr, train, test, K_tr=None):
            p = {**own, **params}
            Kt = params_block(p)
            if K_tr is None:
                K_tr, K_te = fold_blocks(Kt, train, test)
            else:
                K_te = Kt.take(test, axis=0).take(train, axis=1)
            return self._fold_scores(K_tr, K_te, y_tr, n_classes, p["gamma_A"])

        scores.block = params_block
        return scores

    def _fold_setup(self, X, labeled, y_enc, report):
        """Fold fits through the deformed kernel (label-independent, eq. (11.15)-(11.16)).

        For each width, ``K~_r = G diag(1/(1 + r lam)) G^T`` (``r = gamma_I /
        (gamma_A (u+l)^2)``) over the labeled rows is formed once per ``r`` and
        shared by the folds; a fold fit is then RLS / SVM with ``K~`` on the
        fold's labeled training points, which is exactly LapRLS / LapSVM on the
        data with the fold's labels hidden.  Handles ``gamma_A``, ``gamma_I``,
        ``kernel_width`` and ``kernel_width_scale``; None with a precomputed graph.
        """
        if self._precomputed:
            return None  # the generic rule (whose fit refuses "precomputed" clearly)
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        scores = self._deformed_scorer(X, labeled, labeled, int(np.max(y_enc)) + 1)

        def predict(params, train, test):
            return np.argmax(scores(params, y_enc[train], train, test), axis=1)

        return predict

    def _transduction_predictor(self, X, y, keys):
        """The oracle's fast path (:mod:`sskernels.experiment.oracle`): ``params ->
        transduction_`` of a fit with all of ``y``'s labels, by RLS / SVM with the deformed
        kernel over the labeled points evaluated at every point (eq. (11.16): the same
        function as LapRLS / LapSVM), sharing each width's deformation basis between the
        candidates.  LapSVM's duals here are solved by the fit's own solver (HiGHS), not the
        fold fits' ``cv_solver``, so the oracle's refit of the chosen candidate agrees with
        this; None for other keys."""
        if self._precomputed or not set(keys) <= self._deformed_keys:
            return None
        from sskernels.learners.base import check_partial_labels

        self._validate_params()
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        classes, labeled, y_enc = check_partial_labels(np.asarray(y))
        every = np.arange(X.shape[0])
        # the fit's own dual solver (HiGHS), not the fold fits' faster libsvm: at a large C
        # (tiny gamma_A) their solutions differ by whole points of accuracy
        exact = (
            clone(self).set_params(cv_solver="highs")
            if "cv_solver" in self.get_params(deep=False)
            else self
        )
        scores = exact._deformed_scorer(X, every, labeled, classes.size)
        train = np.arange(labeled.size)

        def predict(params):
            p = {**self.get_params(deep=False), **params}
            K_tr = scores.block(p)[labeled]
            K_tr = 0.5 * (K_tr + K_tr.T)
            F = scores(params, y_enc, train, every, K_tr=K_tr)
            return classes[np.argmax(F, axis=1)]

        return predict

    # -- prediction -----------------------------------------------------------
    def decision_function(self, X):
        """``f(x) = sum_i alpha_i K(x_i, x) + b`` over all l + u training points (eq. (11.6)).

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
        check_is_fitted(self, "alpha_")
        Kx = self._gram(self._induced(X), self.X_fit_, self.kernel_width_)
        return Kx @ self.alpha_ + self.intercept_

    def kernel(self, A=None, B=None):
        """The deformed kernel ``K~(A, B)`` of eq. (11.15) at the fitted parameters.

        ``None`` means the training points.  RLS / SVM with it on the labeled
        points reproduce this estimator (eq. (11.16)).
        """
        check_is_fitted(self, "alpha_")
        Xf, w = self.X_fit_, self.kernel_width_
        A = None if A is None else self._induced(A)
        B = None if B is None else self._induced(B)
        K = self._gram(Xf, Xf, w)
        M = intrinsic_matrix(self.graph_, self.laplacian, self.laplacian_degree)
        if A is None and B is None:
            return deformed_kernel(K, M, self.gamma_A_, self.gamma_I_)
        Ka = K if A is None else self._gram(A, Xf, w)
        Kb = K if B is None else self._gram(B, Xf, w)
        Kab = self._gram(Xf if A is None else A, Xf if B is None else B, w)
        return deformed_kernel(K, M, self.gamma_A_, self.gamma_I_, K_a=Ka, K_b=Kb, K_ab=Kab)


class LapRLS(_ManifoldRegularizer):
    """Laplacian Regularized Least Squares, eq. (11.7).

    Squared loss ``V = (y_i - f(x_i))^2`` in eq. (11.5)::

        (1/l) sum_{i<=l} V(x_i, y_i, f) + gamma_A ||f||_K^2 + gamma_I / (u+l)^2  f^T M f,

    over the RKHS of an RBF (or linear) kernel, ``M = L^p`` of the k-NN graph;
    ``alpha* = (J K + gamma_A l I + gamma_I l/(u+l)^2 L^p K)^{-1} Y`` (LU solve, recorded as
    ``"lu"``) and ``f(x) = sum_i alpha_i K(x_i, x)`` without bias, as in the
    paper.  By the representer theorem (eq. (11.6)) ``f`` is defined on any new point: the
    learner is inductive.  One-vs-rest targets +-1 for more than two classes (all columns
    share one linear system).  ``kernel()`` is the deformed kernel eq. (11.15): standard
    RLS with it on the labeled points is LapRLS (eq. (11.16)).

    Selection (``_selection``, used by :func:`~sskernels.learners.registry.make_method`
    and :class:`~sskernels.learners.selection.SelectOnLabeled`): ``gamma_I`` over
    :data:`GAMMA_GRID`, largest first; ``gamma_A`` over the same grid, smallest
    first (together: the strongest intrinsic regularization, the point of the
    method when labels are scarce); the width scale over :data:`WIDTH_FACTORS`,
    nearest to 1 first (then the larger), unless ``kernel_width`` is given.
    ``decision_function`` follows scikit-learn: (n,) for two classes (positive
    means ``classes_[1]``), (n, c) one-vs-rest values otherwise.

    Parameters
    ----------
    graph : object or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`); ``None``: k = 6 with
        the weights of Liu et al. eq. (2), the graph every learner of the package uses.
        ``"precomputed"`` is refused: the kernel needs X.  The kernel always uses
        Euclidean distances on ``X`` as given.
    gamma_A : float, default=1e-2
        Ambient regularization of eq. (11.5) (> 0).  1e-2 is a choice (the paper states
        none; the specs select it over :data:`GAMMA_GRID`).
    gamma_I : float, default=1.0
        Intrinsic regularization of eq. (11.5) (>= 0); the graph term is
        ``gamma_I / (u+l)^2 f^T L^p f`` (the paper's scale).  1 is a choice.
    kernel_width : {"median", "mean-norm"} or float, default="median"
        sigma of ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``: a number, ``"median"``
        (the median pairwise distance of the training points) or ``"mean-norm"`` (the
        mean norm of the points, Mao & Tsang's rule),
        :func:`sskernels.kernels.rbf.resolve_width`.
    kernel_width_scale : float, default=1.0
        The width in use is ``kernel_width_scale`` times the rule's (or the number's)
        value; the specs select it over :data:`WIDTH_FACTORS` when ``kernel_width`` is
        not fixed.
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``"unnormalized"`` is ``L = D - W``, the paper's; ``"normalized"`` is
        ``I - D^{-1/2} W D^{-1/2}``.
    laplacian_degree : int, default=1
        p of ``M = L^p``.
    kernel_type : {"rbf", "linear"}, default="rbf"
        ``"linear"`` is ``K = X X^T`` (no width; with it LapSVM is the linear LapSVM of
        Sec. 11.5 solved in the dual, ``w = X^T alpha``, which scales with n rather than d
        for high-dimensional sparse data).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points (the expansion points of ``f``).
    graph_ : Graph
        The :class:`~sskernels.graph.Graph` of the training points.
    alpha_ : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The expansion coefficients of ``f`` over all l + u training points: (n_samples,)
        for two classes, one one-vs-rest column per class otherwise.
    intercept_ : float or ndarray of shape (n_classes,)
        The bias ``b``.
    gamma_A_ : float
        The ``gamma_A`` used.
    gamma_I_ : float
        The ``gamma_I`` used.
    kernel_width_ : float or None
        The RBF width used (None for the linear kernel).
    transduction_ : ndarray of shape (n_samples,)
        The labels of all training points by ``f``.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point
        (they get the most frequent labeled class).
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
    LapSVM : The hinge loss in eq. (11.5).
    LinearLapRLS : The primal linear LapRLS, eq. (11.18).
    DeformedKernel : The deformed kernel eq. (11.15) as a callable.

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: eq. (11.5)-(11.7), (11.15)-(11.16).

    M. Belkin, P. Niyogi and V. Sindhwani. Manifold regularization: a geometric framework
    for learning from examples. Journal of Machine Learning Research, 7:2399-2434, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import LapRLS
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = LapRLS().fit(X, y_partial)
    >>> est.alpha_.shape                           # one-vs-rest: one column per class
    (178, 3)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    def _fit_coefficients(self, K, M, labeled, y_enc, n_classes):
        self.alpha_ = laprls_coefficients(
            K, M, labeled, ovr_targets(y_enc, n_classes), self.gamma_A_, self.gamma_I_
        )
        self.fit_report_.add(SolveInfo("lu"))
        self.intercept_ = 0.0 if n_classes == 2 else np.zeros(n_classes)

    @staticmethod
    def _fold_scores(K_tr, K_te, y_tr, n_classes, gamma_A):
        # RLS with the deformed kernel (eq. (11.16)) = LapRLS with the fold hidden
        T = ovr_targets(y_tr, n_classes)
        l = y_tr.size
        a = np.linalg.solve(K_tr + gamma_A * l * np.eye(l), T)
        return as_scores(K_te @ a)


class LapSVM(_ManifoldRegularizer):
    """Laplacian Support Vector Machine, eq. (11.8)-(11.10).

    Hinge loss in eq. (11.5)::

        (1/l) sum_{i<=l} V(x_i, y_i, f) + gamma_A ||f||_K^2 + gamma_I / (u+l)^2  f^T M f,

    over the RKHS of an RBF (or linear) kernel, ``M = L^p`` of the k-NN graph.  The dual
    (11.8) over the l labeled points,
    ``max sum beta - 1/2 beta^T Q beta`` with ``Q`` of eq. (11.9) (symmetrized),
    ``0 <= beta_i <= 1/l`` and ``sum_i y_i beta_i = 0`` — the constraint of an
    unregularized bias b, as in Belkin et al. (JMLR 2006) — is solved by
    :func:`~sskernels.solvers.svm.svm_dual_qp`: HiGHS first; when HiGHS raises
    (time limit :data:`~sskernels.solvers.svm.QP_SECONDS` s, or another non-optimal end) libsvm solves
    the same dual, and ``fit_report_`` carries the fallback note.  Then
    ``alpha* = (2 gamma_A I + 2 gamma_I/(u+l)^2 L^p K)^{-1} J^T Y beta*``
    (eq. (11.10)) and ``f(x) = sum_i alpha_i K(x_i, x) + b``.  The bias is
    libsvm's rule (:func:`~sskernels.solvers.svm.svm_intercept`): the mean over
    free support vectors, else the midpoint of the KKT interval.  One-vs-rest targets
    +-1 for more than two classes.  ``kernel()`` is the deformed kernel eq. (11.15): a
    standard SVM with it on the labeled points is LapSVM (eq. (11.16)).

    At ``gamma_I = 0`` this is the standard SVM on the labeled points with
    ``C = 1 / (2 gamma_A l)`` (substitute ``beta = 2 gamma_A beta'``).

    Selection (``_selection``, used by :func:`~sskernels.learners.registry.make_method`
    and :class:`~sskernels.learners.selection.SelectOnLabeled`): ``gamma_I`` over
    :data:`GAMMA_GRID`, largest first; ``gamma_A`` over the same grid, smallest
    first (together: the strongest intrinsic regularization, the point of the
    method when labels are scarce); the width scale over :data:`WIDTH_FACTORS`,
    nearest to 1 first (then the larger), unless ``kernel_width`` is given.
    ``decision_function`` follows scikit-learn: (n,) for two classes (positive
    means ``classes_[1]``), (n, c) one-vs-rest values otherwise.

    Parameters
    ----------
    graph : object or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`); ``None``: k = 6 with
        the weights of Liu et al. eq. (2), the graph every learner of the package uses.
        ``"precomputed"`` is refused: the kernel needs X.  The kernel always uses
        Euclidean distances on ``X`` as given.
    gamma_A : float, default=1e-2
        Ambient regularization of eq. (11.5) (> 0).  1e-2 is a choice (the paper states
        none; the specs select it over :data:`GAMMA_GRID`).
    gamma_I : float, default=1.0
        Intrinsic regularization of eq. (11.5) (>= 0); the graph term is
        ``gamma_I / (u+l)^2 f^T L^p f`` (the paper's scale).  1 is a choice.
    kernel_width : {"median", "mean-norm"} or float, default="median"
        sigma of ``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``: a number, ``"median"``
        (the median pairwise distance of the training points) or ``"mean-norm"`` (the
        mean norm of the points, Mao & Tsang's rule),
        :func:`sskernels.kernels.rbf.resolve_width`.
    kernel_width_scale : float, default=1.0
        The width in use is ``kernel_width_scale`` times the rule's (or the number's)
        value; the specs select it over :data:`WIDTH_FACTORS` when ``kernel_width`` is
        not fixed.
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``"unnormalized"`` is ``L = D - W``, the paper's; ``"normalized"`` is
        ``I - D^{-1/2} W D^{-1/2}``.
    laplacian_degree : int, default=1
        p of ``M = L^p``.
    kernel_type : {"rbf", "linear"}, default="rbf"
        ``"linear"`` is ``K = X X^T`` (no width; with it LapSVM is the linear LapSVM of
        Sec. 11.5 solved in the dual, ``w = X^T alpha``, which scales with n rather than d
        for high-dimensional sparse data).
    cv_solver : {"libsvm", "highs"}, default="libsvm"
        A choice made for speed: the selection's fold fits (``_fold_predictor``) solve
        the same dual with the deformed kernel by libsvm
        (:func:`~sskernels.solvers.svm.svm_precomputed_decision`,
        ``C = 1/(2 gamma_A l)``, libsvm's default tolerance), faster than HiGHS on
        these tiny QPs; ``"highs"`` uses :func:`svm_dual_qp` there too.
        The fit itself always goes through :func:`svm_dual_qp`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points (the expansion points of ``f``).
    graph_ : Graph
        The :class:`~sskernels.graph.Graph` of the training points.
    alpha_ : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The expansion coefficients of ``f`` over all l + u training points: (n_samples,)
        for two classes, one one-vs-rest column per class otherwise.
    intercept_ : float or ndarray of shape (n_classes,)
        The bias ``b``.
    gamma_A_ : float
        The ``gamma_A`` used.
    gamma_I_ : float
        The ``gamma_I`` used.
    kernel_width_ : float or None
        The RBF width used (None for the linear kernel).
    transduction_ : ndarray of shape (n_samples,)
        The labels of all training points by ``f``.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point
        (they get the most frequent labeled class).
    fit_report_ : FitReport
        The solvers, fallbacks and degenerate cases of the fit
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.
    dual_coef_ : ndarray of shape (n_labeled,) or (n_labeled, n_classes)
        The dual solution ``beta*`` of eq. (11.8), one column per one-vs-rest problem.

    See Also
    --------
    LapRLS : The squared loss in eq. (11.5).
    LinearLapSVM : The linear LapSVM in the primal (Sec. 11.5).
    SVMBaseline : A supervised SVM on the labeled points.

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: eq. (11.5), (11.8)-(11.10), (11.15)-(11.16).

    M. Belkin, P. Niyogi and V. Sindhwani. Manifold regularization: a geometric framework
    for learning from examples. Journal of Machine Learning Research, 7:2399-2434, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import LapSVM
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = LapSVM().fit(X, y_partial)
    >>> est.alpha_.shape                           # one-vs-rest: one column per class
    (178, 3)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **_ManifoldRegularizer._parameter_constraints,
        "cv_solver": [StrOptions({"libsvm", "highs"})],
    }

    def __init__(
        self,
        graph=None,
        gamma_A=1e-2,
        gamma_I=1.0,
        kernel_width="median",
        kernel_width_scale=1.0,
        laplacian="unnormalized",
        laplacian_degree=1,
        kernel_type="rbf",
        cv_solver="libsvm",
    ):
        super().__init__(
            graph,
            gamma_A,
            gamma_I,
            kernel_width,
            kernel_width_scale,
            laplacian,
            laplacian_degree,
            kernel_type,
        )
        self.cv_solver = cv_solver

    def _fit_coefficients(self, K, M, labeled, y_enc, n_classes):
        Z, KZ_L = lapsvm_system(K, M, labeled, self.gamma_A_, self.gamma_I_)
        if self.gamma_I_ > 0:
            self.fit_report_.add(SolveInfo("lu"))
        T = ovr_targets(y_enc, n_classes)
        rep = self.fit_report_
        if T.ndim == 1:
            self.alpha_, self.intercept_, self.dual_coef_, _ = lapsvm_binary(Z, KZ_L, T, rep)
            return
        cols = [lapsvm_binary(Z, KZ_L, T[:, k], rep) for k in range(n_classes)]
        self.alpha_ = np.column_stack([c[0] for c in cols])
        self.intercept_ = np.array([c[1] for c in cols])
        self.dual_coef_ = np.column_stack([c[2] for c in cols])

    def _fold_scores(self, K_tr, K_te, y_tr, n_classes, gamma_A):
        # standard SVM with the deformed kernel (eq. (11.16)), C = 1 / (2 gamma_A l)
        T = ovr_targets(y_tr, n_classes)
        cols = T[:, None] if T.ndim == 1 else T
        C = 1.0 / (2.0 * gamma_A * y_tr.size)
        out = np.empty((K_te.shape[0], cols.shape[1]))
        for k in range(cols.shape[1]):
            t = cols[:, k]
            if np.all(t == t[0]):
                out[:, k] = t[0]
            elif self.cv_solver == "libsvm":
                # t: one-vs-rest targets in {-1, +1}, both present (checked above)
                out[:, k] = binary_svm_decision(K_tr, t, K_te, C)
            else:
                Q = t[:, None] * K_tr * t[None, :]
                beta, grad, _ = svm_dual_qp(Q, t, C)
                out[:, k] = K_te @ (t * beta) + svm_intercept(grad, t, beta, C)
        return as_scores(out[:, 0]) if T.ndim == 1 else out
