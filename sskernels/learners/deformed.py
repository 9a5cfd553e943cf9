"""The deformed kernel as an object (eq. (11.15)) and supervised manifold RLS (eq. (11.14)).

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning",
Sec. 11.3.3 and 11.4.  Built on :mod:`sskernels.kernels.deformed`
(``intrinsic_matrix``, ``deformed_kernel``), :mod:`sskernels.kernels.rbf` (the
RBF kernel and its width rules), :func:`sskernels.learners.manifold.laprls_coefficients`
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
from sskernels.learners.base import GraphSemiSupervisedClassifier, ovr_targets
from sskernels.learners.manifold import laprls_coefficients
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

    Parameters: ``X`` the training points; ``gamma_A`` (> 0); ``gamma_I`` (>= 0);
    ``kernel_width`` sigma, a number or a rule of
    :func:`~sskernels.kernels.rbf.resolve_width` (``"median"``, the default: the
    median pairwise distance of ``X``; ``"mean-norm"``), times
    ``kernel_width_scale``; ``laplacian``, ``laplacian_degree``; ``graph`` the
    :class:`~sskernels.graph.KNNGraph` builder (None: k = 6 with the weights of
    Liu et al. eq. (2)); ``normalize``.  Invalid values raise ``ValueError``
    before any computation.

    ``dk(A, B)`` returns the ``(len(A), len(B))`` matrix ``K~(A, B)`` for any two
    point sets (training or unseen); ``dk(A)`` means ``dk(A, A)`` (then
    symmetrized against round-off).  Usable as ``sklearn.svm.SVC(kernel=dk)`` or
    ``KernelRidge(kernel="precomputed")`` on ``dk(X_L, X_L)`` / ``dk(X_new, X_L)``.

    With ``C = 1 / (2 gamma_A l)`` an SVM with ``K~`` on the labeled points is
    :class:`~sskernels.learners.manifold.LapSVM` and
    ``KernelRidge(alpha=gamma_A l)`` with it is
    :class:`~sskernels.learners.manifold.LapRLS` (same ``gamma_A, gamma_I``,
    width and graph).
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

    def __init__(self, X, gamma_A, gamma_I, kernel_width="median", kernel_width_scale=1.0,
                 laplacian="unnormalized", laplacian_degree=1, graph=None, normalize=True):
        params = dict(gamma_A=gamma_A, gamma_I=gamma_I, kernel_width=kernel_width,
                      kernel_width_scale=kernel_width_scale, laplacian=laplacian,
                      laplacian_degree=laplacian_degree, graph=graph, normalize=normalize)
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
        """The RBF base kernel ``K(A, B)``."""
        return rbf(squared_distances(_as_points(A), None if B is None else _as_points(B)),
                   self.kernel_width)

    def __call__(self, A, B=None):
        same = B is None or B is A
        A = _as_points(A)
        B = A if same else _as_points(B)
        Ka = self.base(A, self.X)
        Kb = Ka if same else self.base(B, self.X)
        Kab = self.base(A, None if same else B)
        Kt = deformed_kernel(self.K, self.M, self.gamma_A, self.gamma_I, K_a=Ka, K_b=Kb,
                             K_ab=Kab, normalize=self.normalize)
        return 0.5 * (Kt + Kt.T) if same else Kt

    def train_matrix(self):
        """``K~`` on the training points, ``K (I + M' K)^{-1}`` (symmetrized)."""
        Kt = deformed_kernel(self.K, self.M, self.gamma_A, self.gamma_I, normalize=self.normalize)
        return 0.5 * (Kt + Kt.T)

    def __repr__(self):
        return (f"DeformedKernel(n={self.K.shape[0]}, gamma_A={self.gamma_A}, "
                f"gamma_I={self.gamma_I}, kernel_width={self.kernel_width})")


class SupervisedManifoldRLS(GraphSemiSupervisedClassifier):
    """Supervised manifold regularization with class-dependent intrinsic terms, eq. (11.14).

    Squared loss (RLS) in

        (1/l) sum_i (y_i - f(x_i))^2 + gamma_A ||f||_K^2
            + sum_c gamma_I^c / l^2  f_c^T L_c f_c                      (normalize=True)

    where, as the paper says (Sec. 11.3.3), ``f_c`` are the values of ``f`` on the
    labeled examples of class ``c`` and ``L_c`` is the graph Laplacian "on" those
    examples: here ``L_c`` is the (unnormalized ``D - W`` or normalized, to the
    power ``laplacian_degree``) Laplacian of the k-NN graph ``graph`` (a
    :class:`~sskernels.graph.KNNGraph`; None: k = 6 with the weights of Liu et
    al. eq. (2)) built on class ``c``'s labeled points alone, with
    ``k = min(n_neighbors, l_c - 1)`` (a choice); a class with one labeled point
    has no term (noted in ``fit_report_`` as degenerate).  The paper has two
    classes (``L_+``, ``L_-``); we allow ``c`` classes, one term each, and the
    paper's recipe "replace ``gamma_I L`` by ``blockdiag(gamma_I^+ L_+,
    gamma_I^- L_-)`` in Laplacian RLS" gives, with ``u = 0`` and LapRLS's scale
    ``gamma_I / (u+l)^2``, the ``1/l^2`` above (``normalize=False``: no ``1/l^2``,
    eq. (11.14) as printed).

    By the representer theorem ``f(x) = sum_{i<=l} alpha_i K(x_i, x)`` (no bias), and
    with ``M = sum_c gamma_I^c P_c^T L_c P_c`` (the block-diagonal matrix in the
    original order) ``alpha = (K + gamma_A l I + (l / l^2) M K)^{-1} Y``
    (:func:`~sskernels.learners.manifold.laprls_coefficients` with all points
    labeled and ``gamma_I = 1``; LU solve).  Multi-class: one-vs-rest targets
    +-1, label of the largest value.

    Parameters: ``gamma_A`` (> 0; default 1e-2, a choice); ``gamma_I`` (>= 0; default
    1, a choice) one value for all classes or a sequence, one per class in the
    order of ``classes_``; ``kernel_width`` (a number or a rule of
    :func:`~sskernels.kernels.rbf.resolve_width` — ``"median"``, the default,
    is the median pairwise distance of the *labeled* points) times
    ``kernel_width_scale``; ``graph``; ``laplacian``, ``laplacian_degree``,
    ``normalize``.  No parameter is selected by default (``_selection`` empty).

    ``fit(X, y)``: rows with ``y == -1`` take no part in the fit (this learner
    is supervised); ``transduction_`` holds the predicted labels of all rows.
    Nothing is label-independent: :meth:`precompute` does nothing.

    Fitted: ``classes_``, ``labeled_``, ``X_fit_`` (the labeled rows), ``alpha_``,
    ``intercept_`` (0), ``gamma_A_``, ``gamma_I_`` (per class), ``kernel_width_``,
    ``M_``, ``transduction_``, ``fit_report_``.
    """

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

    def __init__(self, graph=None, gamma_A=1e-2, gamma_I=1.0, kernel_width="median",
                 kernel_width_scale=1.0, laplacian="unnormalized", laplacian_degree=1,
                 normalize=True):
        self.graph = graph
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel_width = kernel_width
        self.kernel_width_scale = kernel_width_scale
        self.laplacian = laplacian
        self.laplacian_degree = laplacian_degree
        self.normalize = normalize

    def precompute(self, X):
        """Nothing to do: the class graphs are built on labeled points (label-dependent)."""
        return None

    def _class_gammas(self, n_classes):
        g = np.atleast_1d(np.asarray(self.gamma_I, dtype=float))
        if g.ndim != 1:
            raise ParameterError(f"gamma_I must be a number or a 1-D sequence, got {self.gamma_I!r}")
        if g.size == 1:
            g = np.full(n_classes, float(g[0]))
        if g.size != n_classes:
            raise ParameterError(f"gamma_I has {g.size} entries for {n_classes} classes")
        if not np.all(g >= 0):
            raise ParameterError(f"gamma_I must be >= 0, got {self.gamma_I}")
        return g

    def intrinsic_matrix(self, XL, y_enc, n_classes, gammas):
        """``M = sum_c gamma_I^c P_c^T L_c P_c`` over the labeled points (dense, l x l)."""
        l = y_enc.size
        M = np.zeros((l, l))
        builder = self.graph_builder()
        for c in range(n_classes):
            idx = np.flatnonzero(y_enc == c)
            if gammas[c] == 0:
                continue
            if idx.size < 2:
                label = self.classes_[c].tolist()
                self.fit_report_.note("degenerate", f"class {label!r} has one labeled point: "
                                      "no intrinsic term")
                continue
            k = min(int(builder.n_neighbors), idx.size - 1)
            g = clone(builder).set_params(n_neighbors=k).build(XL[idx])
            Lc = intrinsic_matrix(g, self.laplacian, self.laplacian_degree).toarray()
            M[np.ix_(idx, idx)] += gammas[c] * Lc
        return M

    def fit(self, X, y):
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
            M = M * float(l) ** 2      # laprls_coefficients divides by (u+l)^2 = l^2
        self.M_ = M
        gI = 1.0 if np.any(M != 0) else 0.0
        self.alpha_ = laprls_coefficients(K, M, np.arange(l),
                                          ovr_targets(y_enc, self.classes_.size),
                                          float(self.gamma_A), gI)
        self.fit_report_.add(SolveInfo("lu"), "eq. (11.14)")
        self.intercept_ = 0.0
        self.transduction_ = self.predict(X)
        self._note_constant_prediction(self.transduction_)
        return self

    def decision_function(self, X):
        """``f(x) = sum_{i<=l} alpha_i K(x_i, x)``: (n,) for two classes, else (n, c)."""
        check_is_fitted(self, "alpha_")
        Kx = rbf(squared_distances(self._induced(X), self.X_fit_), self.kernel_width_)
        return Kx @ self.alpha_ + self.intercept_
