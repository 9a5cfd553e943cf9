"""The deformed kernel as an object (eq. (11.15)) and supervised manifold RLS (eq. (11.14)).

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning",
Sec. 11.3.3 and 11.4.  Built on :mod:`sskernels.kernels.deformed`
(``intrinsic_matrix``, ``deformed_kernel``), :mod:`sskernels.kernels.rbf` (the
RBF kernel and its width rules), :func:`sskernels.solvers.manifold.laprls_coefficients`
and the package's k-NN graph (:class:`sskernels.graph.KNNGraph`).

* :class:`DeformedKernel` — ``K~(x, z) = K(x, z) - k_x^T (I + M' K)^{-1} M' k_z``
  with ``M' = gamma_I / (gamma_A (u+l)^2) L^p`` (``normalize=True``, the scale of
  :func:`~sskernels.kernels.deformed.deformed_kernel` and
  :class:`~sskernels.learners.manifold.LapRLS`), a callable ``dk(A, B)``
  defined on any two point sets.  RLS / SVM with ``K~`` on the labeled points
  are LapRLS / LapSVM (eq. (11.16)).
* :class:`SupervisedManifoldRLS` — squared loss in eq. (11.14), one intrinsic
  term per class.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.errors import ParameterError
from sskernels.graph import KNNGraph
from sskernels.kernels.deformed import LAPLACIANS, deformed_kernel, intrinsic_matrix
from sskernels.kernels.rbf import WIDTH_RULES, rbf, resolve_width, squared_distances
from sskernels.learners.base import ovr_targets
from sskernels.learners.graph_base import GraphSemiSupervisedClassifier
from sskernels.solvers.manifold import laprls_coefficients
from sskernels.solvers.report import SolveInfo

_WIDTH = [Interval(Real, 0, None, closed="neither"), StrOptions(set(WIDTH_RULES))]


def _as_points(X):
    return check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64)


class DeformedKernel:
    """The data-dependent kernel ``K~`` of eq. (11.15), as a callable kernel object.

    ``K~(x, z) = K(x, z) - k_x^T (I + M' K)^{-1} M' k_z`` where ``K`` is the RBF
    kernel ``exp(-||x - z||^2 / (2 sigma^2))`` on the ``n = l + u`` training
    points ``X``, ``k_x = [K(x_1, x), ..., K(x_n, x)]^T`` and
    ``M' = gamma_I / (gamma_A n^2) M`` (``normalize=True``; ``normalize=False``
    drops the ``1/n^2``), ``M = L^p`` of the k-NN graph of ``X``
    (:func:`~sskernels.kernels.deformed.intrinsic_matrix`).  The chapter prints
    the second ``L`` without the factor ``gamma_I / gamma_A``; like
    :func:`~sskernels.kernels.deformed.deformed_kernel` (which this class calls)
    we take that as a misprint.

    ``dk(A, B)`` returns the ``(len(A), len(B))`` matrix ``K~(A, B)`` for any two
    point sets (training or unseen); ``dk(A)`` means ``dk(A, A)`` (then
    symmetrized against round-off).  Usable as ``sklearn.svm.SVC(kernel=dk)`` or
    ``KernelRidge(kernel="precomputed")`` on ``dk(X_L, X_L)`` / ``dk(X_new, X_L)``.

    With ``C = 1 / (2 gamma_A l)`` an SVM with ``K~`` on the labeled points is
    :class:`~sskernels.learners.manifold.LapSVM` and
    ``KernelRidge(alpha=gamma_A l)`` with it is
    :class:`~sskernels.learners.manifold.LapRLS` (same ``gamma_A, gamma_I``,
    width and graph).  Invalid parameter values raise ``ValueError`` before any
    computation.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The training points (labeled and unlabeled) the kernel is deformed on.
    gamma_A : float
        Ambient regularization (> 0).
    gamma_I : float
        Intrinsic regularization (>= 0).
    kernel_width : {"median", "mean-norm"} or float, default="median"
        sigma, a number or a rule of :func:`~sskernels.kernels.rbf.resolve_width`
        (``"median"``: the median pairwise distance of ``X``; ``"mean-norm"``), times
        ``kernel_width_scale``.
    kernel_width_scale : float, default=1.0
        Factor on ``kernel_width``.
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``L = D - W`` (the paper's) or ``I - D^{-1/2} W D^{-1/2}``.
    laplacian_degree : int, default=1
        p of ``M = L^p``.
    graph : object or None, default=None
        The :class:`~sskernels.graph.KNNGraph` builder (None: k = 6 with the weights of
        Liu et al. eq. (2)).
    normalize : bool, default=True
        True divides ``M'`` by ``n^2`` (the scale of eq. (11.5)); False drops it.

    Attributes
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points.
    gamma_A : float
        The ambient regularization.
    gamma_I : float
        The intrinsic regularization.
    kernel_width : float
        The RBF width sigma in use (the rule resolved, times the scale).
    laplacian : str
        The Laplacian.
    laplacian_degree : int
        Its power p.
    normalize : bool
        Whether ``M'`` has the ``1/n^2``.
    graph : Graph
        The :class:`~sskernels.graph.Graph` built on ``X``.
    M : sparse matrix of shape (n_samples, n_samples)
        The intrinsic regularizer ``L^p``.
    K : ndarray of shape (n_samples, n_samples)
        The RBF base kernel on ``X``.

    See Also
    --------
    LapRLS : RLS with the deformed kernel on the labeled points.
    LapSVM : An SVM with the deformed kernel on the labeled points.
    sskernels.kernels.deformed.deformed_kernel : The matrix computation.

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: eq. (11.15)-(11.16).

    V. Sindhwani, P. Niyogi and M. Belkin. Beyond the point cloud: from transductive to
    semi-supervised learning. In Proc. ICML, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.svm import SVC
    >>> from sskernels.learners import DeformedKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> dk = DeformedKernel(X, gamma_A=1e-2, gamma_I=1.0)
    >>> dk(X[:5], X[:3]).shape
    (5, 3)
    >>> K = dk(X[:5])
    >>> bool(np.allclose(K, K.T))
    True
    >>> labeled = np.arange(0, 178, 10)           # an SVM on 18 labeled points: LapSVM
    >>> svm = SVC(kernel=dk, C=1 / (2 * 1e-2 * labeled.size)).fit(X[labeled], y[labeled])
    >>> svm.predict(X[[5, 105, 175]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        "gamma_A": [Interval(Real, 0, None, closed="neither")],
        "gamma_I": [Interval(Real, 0, None, closed="left")],
        "kernel_width": _WIDTH,
        "kernel_width_scale": [Interval(Real, 0, None, closed="neither")],
        "laplacian": [StrOptions(set(LAPLACIANS))],
        "laplacian_degree": [Interval(Integral, 1, None, closed="left")],
        "graph": [None, HasMethods(["build"])],
        "normalize": ["boolean"],
    }

    def __init__(
        self,
        X,
        gamma_A,
        gamma_I,
        kernel_width="median",
        kernel_width_scale=1.0,
        laplacian="unnormalized",
        laplacian_degree=1,
        graph=None,
        normalize=True,
    ):
        params = dict(
            gamma_A=gamma_A,
            gamma_I=gamma_I,
            kernel_width=kernel_width,
            kernel_width_scale=kernel_width_scale,
            laplacian=laplacian,
            laplacian_degree=laplacian_degree,
            graph=graph,
            normalize=normalize,
        )
        validate_parameter_constraints(self._parameter_constraints, params, "DeformedKernel")
        self.X = _as_points(X)
        self.gamma_A, self.gamma_I = float(gamma_A), float(gamma_I)
        self.laplacian, self.laplacian_degree = laplacian, laplacian_degree
        self.normalize = bool(normalize)
        self.kernel_width = resolve_width(self.X, kernel_width, kernel_width_scale)
        self.graph = (KNNGraph() if graph is None else graph).build(self.X)
        self.M = intrinsic_matrix(self.graph, laplacian, laplacian_degree)
        self.K = rbf(squared_distances(self.X), self.kernel_width)

    def base(self, A, B=None):
        """The RBF base kernel ``K(A, B)``.

        Parameters
        ----------
        A : array-like or sparse matrix of shape (n_a, n_features)
            Points.
        B : array-like or sparse matrix of shape (n_b, n_features), default=None
            Points; None: ``A``.

        Returns
        -------
        ndarray of shape (n_a, n_b)
            ``exp(-||a - b||^2 / (2 sigma^2))`` with sigma the fitted ``kernel_width``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import DeformedKernel
        >>> X = StandardScaler().fit_transform(load_wine(return_X_y=True)[0])
        >>> dk = DeformedKernel(X, gamma_A=1e-2, gamma_I=1.0)
        >>> K = dk.base(X[:3])
        >>> K.shape, np.diag(K)
        ((3, 3), array([1., 1., 1.]))
        """
        return rbf(
            squared_distances(_as_points(A), None if B is None else _as_points(B)),
            self.kernel_width,
        )

    def __call__(self, A, B=None):
        same = B is None or B is A
        A = _as_points(A)
        B = A if same else _as_points(B)
        Ka = self.base(A, self.X)
        Kb = Ka if same else self.base(B, self.X)
        Kab = self.base(A, None if same else B)
        Kt = deformed_kernel(
            self.K,
            self.M,
            self.gamma_A,
            self.gamma_I,
            K_a=Ka,
            K_b=Kb,
            K_ab=Kab,
            normalize=self.normalize,
        )
        return 0.5 * (Kt + Kt.T) if same else Kt

    def train_matrix(self):
        """``K~`` on the training points, ``K (I + M' K)^{-1}`` (symmetrized)."""
        Kt = deformed_kernel(self.K, self.M, self.gamma_A, self.gamma_I, normalize=self.normalize)
        return 0.5 * (Kt + Kt.T)

    def __repr__(self):
        return (
            f"DeformedKernel(n={self.K.shape[0]}, gamma_A={self.gamma_A}, "
            f"gamma_I={self.gamma_I}, kernel_width={self.kernel_width})"
        )


class SupervisedManifoldRLS(GraphSemiSupervisedClassifier):
    """Supervised manifold regularization with class-dependent intrinsic terms, eq. (11.14).

    Squared loss (RLS) in the objective::

        (1/l) sum_i (y_i - f(x_i))^2 + gamma_A ||f||_K^2
            + sum_c gamma_I^c / l^2  f_c^T L_c f_c                      (normalize=True)

    where, as the paper says (Sec. 11.3.3), ``f_c`` are the values of ``f`` on the
    labeled examples of class ``c`` and ``L_c`` is the graph Laplacian "on" those
    examples: here ``L_c`` is the (unnormalized ``D - W`` or normalized, to the
    power ``laplacian_degree``) Laplacian of the k-NN graph ``graph`` built on class
    ``c``'s labeled points alone, with ``k = min(n_neighbors, l_c - 1)`` (a choice); a
    class with one labeled point has no term (noted in ``fit_report_`` as degenerate).
    The paper has two classes (``L_+``, ``L_-``); we allow ``c`` classes, one term each,
    and the paper's recipe "replace ``gamma_I L`` by ``blockdiag(gamma_I^+ L_+,
    gamma_I^- L_-)`` in Laplacian RLS" gives, with ``u = 0`` and LapRLS's scale
    ``gamma_I / (u+l)^2``, the ``1/l^2`` above (``normalize=False``: no ``1/l^2``,
    eq. (11.14) as printed).

    By the representer theorem ``f(x) = sum_{i<=l} alpha_i K(x_i, x)`` (no bias), and
    with ``M = sum_c gamma_I^c P_c^T L_c P_c`` (the block-diagonal matrix in the
    original order) ``alpha = (K + gamma_A l I + (l / l^2) M K)^{-1} Y``
    (:func:`~sskernels.solvers.manifold.laprls_coefficients` with all points
    labeled and ``gamma_I = 1``; LU solve).  Multi-class: one-vs-rest targets
    +-1, label of the largest value.

    ``fit(X, y)``: rows with ``y == -1`` take no part in the fit (this learner
    is supervised); ``transduction_`` holds the predicted labels of all rows.
    Nothing is label-independent: :meth:`precompute` does nothing.  No parameter is
    selected by default (``_selection`` empty).

    Parameters
    ----------
    graph : object or None, default=None
        The k-NN graph builder of the class graphs, a :class:`~sskernels.graph.KNNGraph`
        (``None``: k = 6 with the weights of Liu et al. eq. (2)).
    gamma_A : float, default=1e-2
        Ambient regularization (> 0; 1e-2 is a choice).
    gamma_I : float or array-like of shape (n_classes,), default=1.0
        Intrinsic regularization (>= 0; 1 is a choice): one value for all classes or a
        sequence, one per class in the order of ``classes_``.
    kernel_width : {"median", "mean-norm"} or float, default="median"
        sigma of the RBF kernel, a number or a rule of
        :func:`~sskernels.kernels.rbf.resolve_width` (``"median"`` is the median pairwise
        distance of the *labeled* points), times ``kernel_width_scale``.
    kernel_width_scale : float, default=1.0
        Factor on ``kernel_width``.
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``L_c = D - W`` or ``I - D^{-1/2} W D^{-1/2}`` of each class graph.
    laplacian_degree : int, default=1
        The power of ``L_c``.
    normalize : bool, default=True
        True divides the intrinsic terms by ``l^2`` (LapRLS's scale); False gives
        eq. (11.14) as printed.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    X_fit_ : ndarray or sparse matrix of shape (n_labeled, n_features)
        The labeled rows (the expansion points of ``f``).
    alpha_ : ndarray of shape (n_labeled,) or (n_labeled, n_classes)
        The expansion coefficients: (n_labeled,) for two classes, one one-vs-rest column
        per class otherwise.
    intercept_ : float
        0 (no bias).
    gamma_A_ : float
        The ``gamma_A`` used.
    gamma_I_ : ndarray of shape (n_classes,)
        The ``gamma_I`` of each class.
    kernel_width_ : float
        The RBF width used.
    M_ : ndarray of shape (n_labeled, n_labeled)
        ``sum_c gamma_I^c P_c^T L_c P_c`` (times ``l^2`` with ``normalize=False``).
    transduction_ : ndarray of shape (n_samples,)
        The predicted labels of all rows of ``X``.
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
    LapRLS : One intrinsic term over labeled and unlabeled points.

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: Sec. 11.3.3, eq. (11.14).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import SupervisedManifoldRLS
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points; the others are not used
    >>> est = SupervisedManifoldRLS().fit(X, y_partial)
    >>> est.alpha_.shape
    (18, 3)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("gamma_A_", "gamma_I_", "kernel_width_")

    _parameter_constraints = {
        **GraphSemiSupervisedClassifier._parameter_constraints,
        "gamma_A": [Interval(Real, 0, None, closed="neither")],
        "gamma_I": [Interval(Real, 0, None, closed="left"), "array-like"],
        "kernel_width": _WIDTH,
        "kernel_width_scale": [Interval(Real, 0, None, closed="neither")],
        "laplacian": [StrOptions(set(LAPLACIANS))],
        "laplacian_degree": [Interval(Integral, 1, None, closed="left")],
        "normalize": ["boolean"],
    }
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
        normalize=True,
    ):
        self.graph = graph
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel_width = kernel_width
        self.kernel_width_scale = kernel_width_scale
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.normalize = normalize

    def precompute(self, X):
        """Nothing to do: the class graphs are built on labeled points (label-dependent).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points (not used).

        Returns
        -------
        None
            Nothing is precomputed.
        """
        return None

    def _class_gammas(self, n_classes):
        g = np.atleast_1d(np.asarray(self.gamma_I, dtype=float))
        if g.ndim != 1:
            raise ParameterError(
                f"gamma_I must be a number or a 1-D sequence, got {self.gamma_I!r}"
            )
        if g.size == 1:
            g = np.full(n_classes, float(g[0]))
        if g.size != n_classes:
            raise ParameterError(f"gamma_I has {g.size} entries for {n_classes} classes")
        if not np.all(g >= 0):
            raise ParameterError(f"gamma_I must be >= 0, got {self.gamma_I}")
        return g

    def intrinsic_matrix(self, XL, y_enc, n_classes, gammas):
        """``M = sum_c gamma_I^c P_c^T L_c P_c`` over the labeled points (dense, l x l).

        ``L_c`` is the Laplacian (``laplacian``, to the power ``laplacian_degree``) of a k-NN
        graph of class c's labeled points (this estimator's graph builder, with k at most the
        class's points minus one).  A class whose ``gamma_I^c`` is 0 adds nothing; a class with
        one labeled point adds nothing either, and a ``degenerate`` note is recorded in
        ``fit_report_`` (so the method runs inside ``fit``, after ``classes_`` and
        ``fit_report_`` are set).

        Parameters
        ----------
        XL : ndarray of shape (l, n_features)
            The labeled points.
        y_enc : ndarray of int of shape (l,)
            Their classes encoded as ``0..n_classes-1``.
        n_classes : int
            The number of classes.
        gammas : ndarray of shape (n_classes,)
            ``gamma_I^c`` of each class.

        Returns
        -------
        M : ndarray of shape (l, l)
            The intrinsic regularizer of the labeled points.
        """
        l = y_enc.size
        M = np.zeros((l, l))
        builder = self.graph_builder()
        for c in range(n_classes):
            idx = np.flatnonzero(y_enc == c)
            if gammas[c] == 0:
                continue
            if idx.size < 2:
                label = self.classes_[c].tolist()
                self.fit_report_.note(
                    "degenerate", f"class {label!r} has one labeled point: no intrinsic term"
                )
                continue
            k = min(int(builder.n_neighbors), idx.size - 1)
            g = clone(builder).set_params(n_neighbors=k).build(XL[idx])
            Lc = intrinsic_matrix(g, self.laplacian, self.laplacian_degree).toarray()
            M[np.ix_(idx, idx)] += gammas[c] * Lc
        return M

    def fit(self, X, y):
        """Fit ``f`` on the labeled rows of ``X`` (the unlabeled rows are not used).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points; only the labeled rows enter the fit.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        gammas = self._class_gammas(self.classes_.size)
        XL = X[labeled]
        l = labeled.size
        self.X_fit_ = XL
        self.gamma_A_, self.gamma_I_ = float(self.gamma_A), gammas
        self.kernel_width_ = resolve_width(XL, self.kernel_width, self.kernel_width_scale)
        K = rbf(squared_distances(XL), self.kernel_width_)
        M = self.intrinsic_matrix(XL, y_enc, self.classes_.size, gammas)
        if not self.normalize:
            M = M * float(l) ** 2  # laprls_coefficients divides by (u+l)^2 = l^2
        self.M_ = M
        gI = 1.0 if np.any(M != 0) else 0.0
        self.alpha_ = laprls_coefficients(
            K, M, np.arange(l), ovr_targets(y_enc, self.classes_.size), float(self.gamma_A), gI
        )
        self.fit_report_.add(SolveInfo("lu"), "eq. (11.14)")
        self.intercept_ = 0.0
        self.transduction_ = self.predict(X)
        self._note_degenerate_prediction(self.transduction_)
        return self

    def decision_function(self, X):
        """``f(x) = sum_{i<=l} alpha_i K(x_i, x)``: (n,) for two classes, else (n, c).

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
        Kx = rbf(squared_distances(self._induced(X), self.X_fit_), self.kernel_width_)
        return Kx @ self.alpha_ + self.intercept_
