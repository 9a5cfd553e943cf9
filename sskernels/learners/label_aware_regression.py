"""Label-aware base kernels for REGRESSION and an SVR on them (Wang et al. 2015, Sec. 4.2).

Wang et al.'s WiFi localization task: Algorithm 1 with continuous targets, then a support
vector regression (Smola & Schoelkopf 2004) on the learned kernel.  For the Gaussian kernel
``k(x, z) = exp(-b ||x - z||^2)``:

1.-2. label-aware vectors ``U = D_n^{-1} K_nl Y_c`` (:func:`regression_label_aware_vectors`):
   eq. (5) normalized, with ``Y_c`` the labeled targets centered by their mean — one column
   per target (the x and y coordinates: two vectors, one kernel for both);
3. the k dominant eigenvectors of the kernel matrix over all n points, by the Nystrom method
   or exactly, exactly as :class:`~sskernels.learners.label_aware.LabelAwareKernel`
   (:class:`~sskernels.learners.embedding.RBFEigenbasis`, the same memoized spectra);
4.-5. ``K = sum_i alpha_i u_i u_i^T + sum_j beta_j v_j v_j^T`` (eq. (6)), the weights by
   *alignf* (:func:`sskernels.solvers.cone.alignf`) with the regression ideal kernel
   ``T = Y_c Y_c^T`` (``y y^T`` for one target; the sum of the targets' ideal kernels for
   several): ``a_t = ||Y_c^T u_t||^2`` on the centered labeled block;
6. one epsilon-SVR per target (scikit-learn's ``SVR(kernel="precomputed")``, libsvm) on
   the labeled block of the learned kernel, scaled to unit mean diagonal (the rule of
   :class:`~sskernels.learners.kernel_machines.KernelSVM`), predicting every point from its
   row ``K(x, X_L)`` (libsvm capped at :data:`SVR_MAX_ITER` iterations, noted when reached).

Choices the paper leaves open, made here:

* two targets (x, y): one learned kernel for both (two label-aware vectors, target
  ``Y_c Y_c^T``) and one SVR per coordinate — the alternative, one model per coordinate,
  would learn two kernels from the same eigenvectors;
* centering as in ``LabelAwareKernel``: every base vector is centered by its mean over the
  labeled points (``D^-1 K Y`` and ``D^-1 K Y_c`` differ by the constant ``mean(Y)``, which
  this centering removes); then, unlike ``LabelAwareKernel``, scaled to unit norm over the
  labeled points.  A rank-one kernel's alignment does not depend on its scale, so alignf's
  optimal kernels are the same; but unscaled, alignf's ``G`` spans ~5 orders of magnitude
  (label-aware vectors of size ~1 per point, unit-norm eigenvectors of size ~1/sqrt(n)) and
  its min-norm tie rule is slow and can fail ("Solve error" fallbacks); scaled, it is fast.
  The tie rule's minimum-norm weights are those of the scaled vectors;
* ``epsilon = 0.05`` (Sec. 4.2, for targets scaled to [0, 1]); ``C`` and the width factor
  ``b_scale`` are selected on the labeled points (``_selection``: C over
  :data:`C_GRID`, the paper's grid; ``b_scale`` over :data:`WIDE_B_SCALES`, the
  classification grid of Sec. 4.1 extended by 20, 50, 100: on the WiFi data with
  ``b0 = 1 / mean squared distance`` the best widths of the harmonic function lie there).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.hashing import fingerprint
from sskernels.kernels.alignment import centered_alignment
from sskernels.kernels.rbf import mean_squared_distance, squared_distances
from sskernels.learners.base import SemiSupervisedRegressor
from sskernels.learners.grids import SVR_C_GRID, WIDE_B_SCALES
from sskernels.learners.embedding import (
    EIGENBASIS_CONSTRAINTS,
    EmbeddingKernel,
    RBFEigenbasis,
    _count,
    label_aware_vectors,
)
from sskernels.solvers.cone import alignf
from sskernels.solvers.report import SolveInfo
from sskernels.solvers.svr import SVR_MAX_ITER, fit_svrs  # noqa: F401 - SVR_MAX_ITER re-exported

__all__ = [
    "LabelAwareRegressionKernel",
    "LabelAwareSVR",
    "regression_label_aware_vectors",
    "regression_alignment_terms",
    "WIDE_B_SCALES",
    "C_GRID",
]

#: the SVR's C grid (Sec. 4.2)
C_GRID = SVR_C_GRID
#: the SVR's epsilon (Sec. 4.2: targets scaled to [0, 1])
EPSILON = 0.05


def regression_label_aware_vectors(D2, Y_L, b):
    """Alg. 1 step 2 for regression: ``D^{-1} K Y_c`` with ``K = exp(-b D2)``.

    ``D2`` holds the squared distances to the labeled points, (s, l), ``D = diag(K 1)``,
    ``Y_c = Y_L - mean(Y_L)`` ((l, k) targets centered by their labeled mean).  Returns
    (s, k).

    Parameters
    ----------
    D2 : array-like of shape (s, l)
        Squared distances of the points to the labeled points.
    Y_L : array-like of shape (l,) or (l, k)
        The labeled targets.
    b : float
        The Gaussian's ``b``.

    Returns
    -------
    ndarray of shape (s, k)
        The label-aware vectors (as columns) at the s points (k = 1 for 1-d targets).
    """
    Y_L = np.asarray(Y_L, dtype=float).reshape(len(Y_L), -1)
    return label_aware_vectors(D2, Y_L - Y_L.mean(axis=0), b)


def regression_alignment_terms(U_L, Y_c):
    """``(G, a)`` of alignf for rank-one base kernels and the regression ideal kernel.

    The base kernels are ``u_t u_t^T`` (centered labeled parts ``U_L``, (l, m)), the ideal
    kernel ``T = Y_c Y_c^T``: ``G_st = (u_s^T u_t)^2``, ``a_t = u_t^T T u_t = ||Y_c^T u_t||^2``.

    Parameters
    ----------
    U_L : ndarray of shape (l, m)
        The base vectors' labeled rows (as columns).
    Y_c : array-like of shape (l, k)
        The centered labeled targets.

    Returns
    -------
    G : ndarray of shape (m, m)
        ``G_st = (u_s^T u_t)^2``.
    a : ndarray of shape (m,)
        ``a_t = ||Y_c^T u_t||^2``.
    """
    gram = U_L.T @ U_L
    return gram * gram, np.sum((np.asarray(Y_c).T @ U_L) ** 2, axis=0)


class LabelAwareRegressionKernel(EmbeddingKernel, RBFEigenbasis, SemiSupervisedRegressor):
    """The label-aware kernel of Algorithm 1 learned from continuous targets (no predictor of
    its own: :class:`LabelAwareSVR` is the regressor).

    Parameters as :class:`~sskernels.learners.label_aware.LabelAwareKernel` (one width):
    ``b_scale`` (``b = b_scale / mean squared distance``), ``n_components``,
    ``n_landmarks``, ``eigen_solver``, ``basis``, ``label_aware`` (False: eigenvectors
    only), ``metric``, ``random_state``.  ``fit(X, y)``: y (n,) or (n, k), NaN = unlabeled.

    Fitted attributes: ``b_``, ``X_L_``, ``target_mean_``, ``Y_c_`` (centered labeled
    targets), ``basis_`` (n, m) centered and scaled base vectors (label-aware first),
    ``center_``, ``scale_`` (their norms over the labeled points),
    ``mu_`` (alignf, ``mu^T G mu = 1``), ``n_label_aware_``, ``alignment_`` (centered
    alignment of ``K_LL`` with ``Y_c Y_c^T``), ``extension_``, ``kernel_``,
    ``fit_report_``.
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("mu_",)

    #: the label-aware classifier's constraints of the parameters the two share (one width,
    #: no target)
    _parameter_constraints = dict(EIGENBASIS_CONSTRAINTS)

    def __init__(
        self,
        b_scale=1.0,
        n_components=0.1,
        n_landmarks=0.1,
        eigen_solver="nystrom",
        basis="kernel",
        label_aware=True,
        metric="euclidean",
        random_state=None,
    ):
        self.b_scale = b_scale
        self.n_components = n_components
        self.n_landmarks = n_landmarks
        self.eigen_solver = eigen_solver
        self.basis = basis
        self.label_aware = label_aware
        self.metric = metric
        self.random_state = random_state

    def _width(self, X):
        msd = mean_squared_distance(X, self.metric)
        return (self.b_scale / msd if msd > 0 else float(self.b_scale)), msd

    def precompute(self, X):
        """The label-independent part (the eigenvectors at this width), memoized.

        The parameters are validated first.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        ndarray of shape (n_samples, k)
            The unsupervised eigenvectors at this width.
        """
        self._validate_params()
        X = check_array(X, dtype=np.float64)
        return self._eigenvectors(X, self._width(X)[0], fingerprint(X))[1]

    def fit(self, X, y):
        """Learn the kernel from the labeled targets: base vectors of ``X``, weighed by alignf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Targets, NaN (a row of NaN) for the unlabeled points.

        Returns
        -------
        self : object
            The fitted kernel learner (``mu_``, ``basis_``, ``kernel_``, ...).

        Raises
        ------
        ValueError
            For fewer than two labeled points, a partly NaN row, or ``y`` that is not (n,) or
            (n, k) (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).
        """
        X, labeled, Y_L = self._fit_start(X, y)
        self.b_, msd = self._width(X)
        if not msd > 0:
            self.fit_report_.note("degenerate", "all points coincide: b0 = 1 used")
        self.X_L_ = X[labeled]
        self.target_mean_ = Y_L.mean(axis=0)
        self.Y_c_ = Y_L - self.target_mean_
        self.n_label_aware_ = self.Y_c_.shape[1] if self.label_aware else 0
        D2 = squared_distances(X, self.X_L_, self.metric)
        ext, V = self._eigenvectors(X, self.b_, fingerprint(X))
        k_asked = _count(self.n_components, X.shape[0])
        if V.shape[1] < k_asked:
            self.fit_report_.note(
                "degenerate",
                f"{V.shape[1]} of {k_asked} eigenvectors (the others have eigenvalue ~0)",
            )
        self.extension_ = ext
        U = regression_label_aware_vectors(D2, Y_L, self.b_)[:, : self.n_label_aware_]
        raw = np.hstack([U, V])
        self.center_ = raw[labeled].mean(axis=0)
        norms = np.linalg.norm(raw[labeled] - self.center_, axis=0)
        self.scale_ = np.where(norms > 0, norms, 1.0)  # unit norm on the labeled points
        Phi = (raw - self.center_) / self.scale_
        G, a = regression_alignment_terms(Phi[labeled], self.Y_c_)
        sol, tie = alignf(G, a)
        if sol.info is not None:
            self.fit_report_.add(sol.info, "alignf")
        if tie is not None:
            self.fit_report_.add(tie, "alignf tie rule")
        if sol.degenerate:
            self.fit_report_.note(
                "degenerate",
                "alignf: no base kernel has a positive centered "
                "alignment with the targets; uniform weights used",
            )
        self.degenerate_ = sol.degenerate
        self.mu_, self.basis_ = sol.mu, Phi
        K_LL = (Phi[labeled] * self.mu_) @ Phi[labeled].T
        self.alignment_ = centered_alignment(K_LL, self.Y_c_ @ self.Y_c_.T)
        return self

    def embedding(self, X=None):
        """Centered base vectors at the training points (None) or at new points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            New points; None: the training points.

        Returns
        -------
        ndarray of shape (n_samples, m) or (n_queries, m)
            ``basis_``, or the base vectors at the new points, centered by ``center_`` and
            divided by ``scale_``.
        """
        check_is_fitted(self, "mu_")
        if X is None:
            return self.basis_
        X = self._check_X(X)
        D2 = squared_distances(X, self.X_L_, self.metric)
        U = label_aware_vectors(D2, self.Y_c_, self.b_)[:, : self.n_label_aware_]
        return (np.hstack([U, self.extension_.extend(X)]) - self.center_) / self.scale_

    def predict(self, X):  # pragma: no cover - not a regressor on its own
        """Not offered: this class learns a kernel (:class:`LabelAwareSVR` is the regressor).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points (not used).

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("LabelAwareRegressionKernel learns a kernel; use LabelAwareSVR")


class LabelAwareSVR(SemiSupervisedRegressor):
    """epsilon-SVR on the label-aware kernel learned from continuous targets (Wang et al. 2015).

    Sec. 4.2: "SVR ... that works on the learned kernel in Algorithm 1".  The kernel
    (:class:`LabelAwareRegressionKernel`) is Algorithm 1 with the labeled targets centered
    by their mean as label columns (one label-aware vector per target, one kernel for all
    targets), weighted by alignf with the regression ideal kernel ``Y_c Y_c^T``; then one
    epsilon-SVR per target (scikit-learn's ``SVR(kernel="precomputed")``, libsvm) on the
    labeled block of the learned kernel, scaled to unit mean diagonal, predicts every point
    from its row ``K(x, X_L)``.  ``fit(X, y)``: y (n,) or (n, k) float, NaN (a row of NaN)
    = unlabeled.  Selection (``_selection``): ``b_scale`` over :data:`WIDE_B_SCALES`,
    nearest to 1 first, then ``C`` over :data:`C_GRID` (the paper's grid), smallest first.

    Parameters
    ----------
    b_scale : float, default=1.0
        The kernel's width factor, ``b = b_scale / mean squared distance``.
    n_components : int or float, default=0.1
        The kernel's unsupervised eigenvectors: an int, or a fraction of n.
    n_landmarks : int or float, default=0.1
        Nystrom landmarks: an int, or a fraction of n.
    eigen_solver : {"nystrom", "exact"}, default="nystrom"
        The kernel's eigenvectors by the Nystrom method or exactly.
    basis : {"kernel", "normalized-laplacian"}, default="kernel"
        The matrix whose eigenvectors are taken, as for
        :class:`~sskernels.learners.label_aware.LabelAwareKernel`.
    label_aware : bool, default=True
        False: eigenvectors only.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance of the Gaussian kernel.
    random_state : int, RandomState instance or None, default=None
        Seed of the landmark draw (None: a fresh draw at each fit; specs pass 0).
    C : float, default=1.0
        The SVR's C (> 0; selected over :data:`C_GRID` in specs).
    epsilon : float, default=0.05
        The SVR's epsilon-tube (>= 0; Sec. 4.2, for targets scaled to [0, 1]).

    Attributes
    ----------
    learner_ : LabelAwareRegressionKernel
        The fitted kernel.
    kernel_scale_ : float
        Mean diagonal of the learned kernel over all points.
    C_ : float
        The C used.
    svrs_ : list of SVR
        One fitted ``sklearn.svm.SVR`` per target.
    transduction_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The predicted targets of every training point, in the shape of ``y``.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points (finite targets).
    n_targets_ : int
        Number of targets (columns of ``y``).
    fit_report_ : FitReport
        The kernel's report (prefix ``"kernel: "``), ``libsvm``, its capped fits and
        degenerate cases (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    SVRBaseline : The supervised SVR on the labeled points.
    HarmonicRegressor : Gaussian fields with continuous targets.
    LabelAwareKernel : The classification counterpart.

    References
    ----------
    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Algorithm 1, eq. (5)-(6), Sec. 4.2.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import LabelAwareSVR
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(100, 2))
    >>> y = np.sin(3 * X[:, 0]) + X[:, 1]
    >>> y_partial = np.full_like(y, np.nan)
    >>> y_partial[::5] = y[::5]                   # 20 labeled points, NaN = unlabeled
    >>> est = LabelAwareSVR(random_state=0).fit(X, y_partial)
    >>> est.transduction_.shape
    (100,)
    >>> unlabeled = np.isnan(y_partial)
    >>> rmse = np.sqrt(np.mean((est.transduction_[unlabeled] - y[unlabeled]) ** 2))
    >>> bool(rmse < 0.2)
    True
    >>> est.predict(X[:3]).shape
    (3,)
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("C_",)

    _parameter_constraints = {
        **LabelAwareRegressionKernel._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }
    _selection = {"b_scale": (WIDE_B_SCALES, "nearest-1"), "C": (C_GRID, "smallest")}
    _precompute_params = ("b_scale",)
    _fold_params = frozenset({"b_scale", "C"})
    _kernel_params = tuple(LabelAwareRegressionKernel._parameter_constraints)

    def __init__(
        self,
        b_scale=1.0,
        n_components=0.1,
        n_landmarks=0.1,
        eigen_solver="nystrom",
        basis="kernel",
        label_aware=True,
        metric="euclidean",
        random_state=None,
        C=1.0,
        epsilon=EPSILON,
    ):
        self.b_scale = b_scale
        self.n_components = n_components
        self.n_landmarks = n_landmarks
        self.eigen_solver = eigen_solver
        self.basis = basis
        self.label_aware = label_aware
        self.metric = metric
        self.random_state = random_state
        self.C = C
        self.epsilon = epsilon

    def kernel_learner(self):
        """The unfitted :class:`LabelAwareRegressionKernel` of these parameters."""
        return LabelAwareRegressionKernel(**{k: getattr(self, k) for k in self._kernel_params})

    def precompute(self, X):
        """The kernel's label-independent part (its eigenvectors at this width), memoized.

        The parameters are validated first.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        ndarray of shape (n_samples, k)
            The unsupervised eigenvectors (:meth:`LabelAwareRegressionKernel.precompute`).
        """
        self._validate_params()
        return self.kernel_learner().precompute(X)

    @staticmethod
    def _columns(learner, labeled):
        """``(K[:, L], mean diagonal)`` of a fitted learner's kernel, from its embedding."""
        P = learner.embedding(None)
        K_nL = (P * learner.mu_) @ P[labeled].T
        return K_nL, float(np.mean(np.sum(P * P * learner.mu_, axis=1)))

    def _fit_svrs(self, K_LL, Y_L, C, report=None):
        return fit_svrs(K_LL, Y_L, report, kernel="precomputed", C=C, epsilon=self.epsilon)

    def fit(self, X, y):
        """Learn the label-aware kernel from the targets, then one SVR per target.

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
        X, labeled, Y_L = self._fit_start(X, y)
        Yp = np.full((X.shape[0], Y_L.shape[1]), np.nan)
        Yp[labeled] = Y_L
        learner = self.kernel_learner().fit(X, Yp)
        self.learner_ = learner
        self.fit_report_.merge(learner.fit_report_, prefix="kernel: ")
        K_nL, scale = self._columns(learner, labeled)
        if not scale > 0:
            self.fit_report_.note(
                "degenerate", "the learned kernel has a zero diagonal: SVR on the unscaled kernel"
            )
        self.kernel_scale_ = scale if scale > 0 else 1.0
        K_nL = K_nL / self.kernel_scale_
        self.C_ = float(self.C)
        self.svrs_ = self._fit_svrs(K_nL[labeled], Y_L, self.C_, self.fit_report_)
        self.fit_report_.add(SolveInfo("libsvm"))
        F = np.column_stack([s.predict(K_nL) for s in self.svrs_])
        self._note_constant_prediction(F)
        self.transduction_ = self._shaped(F)
        return self

    def _fold_setup(self, X, labeled, Y_L, report):
        """C candidates share the kernel fitted on a fold's training labels (the kernel is
        refitted per fold: its label-aware vectors use those labels only)."""
        X = check_array(X, dtype=np.float64)
        memo = {}

        def predict(params, train, test):
            b_scale = params.get("b_scale", self.b_scale)
            key = (b_scale, tuple(train))
            if key not in memo:
                if any(k[0] != b_scale for k in memo):  # one width at a time (grid order)
                    memo.clear()
                Yp = np.full((X.shape[0], Y_L.shape[1]), np.nan)
                Yp[labeled[train]] = Y_L[train]
                learner = self.kernel_learner().set_params(b_scale=b_scale).fit(X, Yp)
                K_nL, scale = self._columns(learner, labeled[train])
                memo[key] = K_nL / (scale if scale > 0 else 1.0)
            K = memo[key]
            svrs = self._fit_svrs(K[labeled[train]], Y_L[train], params.get("C", self.C))
            return np.column_stack([s.predict(K[labeled[test]]) for s in svrs])

        return predict

    def _K_xL(self, X):
        check_is_fitted(self, "svrs_")
        P = self.learner_.embedding(self._check_X(X))
        PL = self.learner_.basis_[self.labeled_]
        return (P * self.learner_.mu_) @ PL.T / self.kernel_scale_

    def predict(self, X):
        """Targets of new points from their learned-kernel rows ``K(x, X_L)``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_targets)
            Predicted targets, in the shape of the ``y`` given to ``fit``.
        """
        K = self._K_xL(X)
        return self._shaped(np.column_stack([s.predict(K) for s in self.svrs_]))
