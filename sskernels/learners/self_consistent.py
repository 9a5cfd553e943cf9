"""Kernel self-consistent labeling: leave-one-out rho-epsilon learning.

Paper: "Semi-supervised Learning using Kernel Self-consistent Labeling"
(``shared/papers/kernel-self-consistent-labeling.md``), Secs. 2-6.

* Kernel (Sec. 2, Sec. 6): ``K = K_0 + sigma_n^2 I`` with ``sigma_n^2 = 1e-4``
  (``noise``); ``K_0`` is the RBF kernel of eq. (17),
  ``k_0(x, z) = exp(-||x - z||^2 / (2 sigma^2))`` with the paper's ``sigma^2``
  (``sigma2``; Table 1 gives ``sigma^2_SVM`` and Sec. 6 uses
  ``sigma^2 = sigma^2_SVM / r``), a given Gram matrix (``kernel="precomputed"``)
  or a learned kernel (``kernel_learner``, e.g. SKL_KTA or TSK: "based on any
  given valid kernel"), scaled to unit mean diagonal like the RBF kernel's.
* Leave-one-out GP coefficients (Sec. 2): ``b_i^T`` is ``k_i^T T_i^{-1}`` with a
  0 inserted at ``i``, and the paper's ``B = (b_1, ..., b_N)`` has them as
  COLUMNS.  From one Cholesky factorization, with ``P = K^{-1}`` and
  ``D = diag(P)``: the matrix whose ROW i is ``b_i^T`` is ``I - D^{-1} P``
  (the GP leave-one-out mean ``y_i - (P y)_i / P_ii``), i.e. the paper's
  ``B^T = I - D^{-1} K^{-1}`` (:func:`loo_coefficients` returns the row form).
  Sec. 5's sequential matrix-inversion-lemma updates are not needed.  ``K``
  and ``P`` depend on the data and ``sigma^2`` only: they are computed once per
  (data, ``sigma^2``, noise) and reused by every labeled split
  (:func:`gp_factors`, a small LRU; ``K^{-1}`` is kept as ``D`` and ``Q`` below).
* Primal (2)-(6), with the index misprints fixed: the unlabeled sums and
  slacks run over ``j = L+1..N`` in (2), (6), (7), (9).  Labeled points need not
  come first: ``L`` and ``U`` are index sets of the training points.
* Dual (14)-(16) with ``x = (alpha, beta, gamma)``, ``R = (R_1, R_2, -R_2)`` of
  eq. (12): ``R_1 = (c_i b_i)_{i in L}``, ``R_2 = (e_j - b_j)_{j in U}``.
  ``beta`` and ``gamma`` enter the Hessian only through ``delta = beta - gamma``
  and ``eps (beta_j + gamma_j) = eps |delta_j|`` at an optimum, so the dual is
  solved as ``min 1/2 z^T G z - sum alpha + eps ||delta||_1`` over
  ``z = (alpha, delta) in [0, C_1]^L x [-C_2, C_2]^U`` with
  ``G = (R_1, R_2)^T K (R_1, R_2)`` — the same problem in N instead of L + 2U
  variables, certified by the duality gap of (14)-(16) itself
  (:func:`sskernels.solvers.boxqp.solve_l1_box_qp`: projected Newton, reported
  fallback HiGHS QP).
* ``G`` without forming R (Sec. 5 asks for a cheap Hessian): ``R = P S`` with
  ``S = (c_i (k_i - e_i / P_ii))_{i in L}, (e_j / P_jj)_{j in U}``, so
  ``G = S^T P S``: with ``Q = D^{-1} P D^{-1}``,
  ``G_LL = C (K_LL - 2 D_LL^{-1} + Q_LL) C``, ``G_LU = -C Q_LU``, ``G_UU = Q_UU``
  (``C = diag(c)``), O(N^2) per labeled split instead of O(N^3)
  (:func:`structured_dual`; tested against ``R^T K R`` of (12) by
  :func:`dual_problem`).  In the variables ``(c alpha, delta)`` the matrix does
  not depend on the labels: one ``G`` per fit serves every class of
  one-against-all (Sec. 5 asks for that too), the labels move to the linear
  term and the bounds.  The decision values of (13) are ``y = K R x = S z``:
  ``y = K_{:,L} (c alpha) - e_L (c alpha / P_LL) + e_U (delta / P_UU)``.
* Multi-class (Sec. 6): one-against-all (``c_i = +1`` for the class, ``-1``
  otherwise), label = argmax of the decision values; two classes: one problem,
  ``c_i = +1`` for ``classes_[1]``, label ``sign(y)``.
* Induction (Sec. 4, after eq. (24)): the solution lies in the span of the
  kernels at the N training points, ``y = K a`` with ``a = R x = K^{-1} y``; a
  new point gets ``y(x) = k_x^T a`` with ``k_x = (k_0(x, x_1), ..., k_0(x, x_N))``
  (no noise term: the noise of Sec. 2 is independent between distinct points).
  With ``kernel="precomputed"``, ``predict`` takes the (s, N) matrix ``k_0(x, x_i)``.
* The eta re-weighting of Sec. 4.2 (``eta``, default None = not used):
  ``B' = 1/(1+eta) [[B_LL, eta B_LU], [B_UL, eta B_UU]]``.  Read in the row form
  (row = the point predicted, column = the point predicting), it scales the
  weight of every UNLABELED point in every leave-one-out prediction by
  ``eta`` ("unlabeled points are less reliable"), then all by ``1/(1+eta)``.
  ``R`` is then formed from ``B'`` by (12) and ``G = R^T K R`` directly (O(N^3)).

Choices the paper leaves open: ``sigma2`` default 1.0 (the paper tunes it per
data set, Table 1 / Sec. 6); ties of the argmax go to the first class; the
reading of the eta block matrix above.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from sskernels.errors import ParameterError
from sskernels.hashing import fingerprint
from sskernels.kernels.rbf import rbf, squared_distances
from sskernels.learners.base import SemiSupervisedClassifier, ovr_targets
from sskernels.memo import LRU, freeze
from sskernels.solvers.boxqp import solve_l1_box_qp


def _inverse(K):
    """``K^{-1}`` by Cholesky; ValueError (one line) when K is not positive definite."""
    if not np.all(np.isfinite(K)):
        raise ParameterError("kernel matrix has NaN or infinite entries")
    try:
        P = cho_solve(cho_factor(K, lower=True), np.eye(K.shape[0]))
    except LinAlgError:
        raise ParameterError(
            "kernel matrix K = K_0 + noise*I is not positive definite "
            "(K_0 must be a valid, symmetric PSD Gram matrix)"
        ) from None
    return 0.5 * (P + P.T)


def loo_coefficients(K):
    """Row form of the GP prediction coefficients (Sec. 2): row i is ``b_i^T``.

    ``b_i^T y = k_i^T T_i^{-1} y_{-i}`` (``T_i``: K without row/column i), from
    one Cholesky factorization: ``I - diag(1 / diag K^{-1}) K^{-1}``; the paper's
    ``B = (b_1, ..., b_N)`` is its transpose.  Raises ``ValueError`` when K is
    not symmetric positive definite.

    Parameters
    ----------
    K : array-like of shape (N, N)
        The kernel (covariance) matrix.

    Returns
    -------
    Bt : ndarray of shape (N, N)
        The coefficients, one row per point, zero diagonal.

    Raises
    ------
    ValueError
        When ``K`` has a NaN or infinite entry or is not positive definite
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.self_consistent import loo_coefficients
    >>> loo_coefficients(np.array([[2.0, 1.0], [1.0, 2.0]])).round(6) + 0.0
    array([[0. , 0.5],
           [0.5, 0. ]])
    """
    P = _inverse(np.asarray(K, dtype=float))
    return np.eye(P.shape[0]) - P / np.diag(P)[:, None]


def reweighted_coefficients(Bt, labeled, eta):
    """Sec. 4.2's ``B'`` in row form: unlabeled predictors' columns times ``eta``, all / (1+eta).

    Parameters
    ----------
    Bt : ndarray of shape (N, N)
        The row form of B (:func:`loo_coefficients`).
    labeled : array-like of int of shape (l,)
        Positions of the labeled points (their columns keep weight 1).
    eta : float
        The weight of the unlabeled predictors.

    Returns
    -------
    ndarray of shape (N, N)
        The re-weighted coefficients.
    """
    w = np.full(Bt.shape[0], float(eta))
    w[labeled] = 1.0
    return Bt * w[None, :] / (1.0 + eta)


def dual_problem(K, Bt, labeled, c):
    """``G = (R_1, R_2)^T K (R_1, R_2)`` and ``(R_1, R_2)`` of eq. (12), formed directly.

    ``Bt`` is the row form of B (:func:`loo_coefficients` or its re-weighting),
    ``c`` the +-1 labels of the points ``labeled``.  Variables ``(alpha, delta)``
    with ``delta = beta - gamma``, labeled first.  O(N^3): the reference for
    :func:`structured_dual`, and the route of the eta re-weighting.

    Parameters
    ----------
    K : ndarray of shape (N, N)
        The kernel matrix.
    Bt : ndarray of shape (N, N)
        The row form of B.
    labeled : ndarray of int of shape (l,)
        Positions of the labeled points.
    c : ndarray of shape (l,)
        Their labels, -1 or +1.

    Returns
    -------
    G : ndarray of shape (N, N)
        The dual's matrix (symmetrized), labeled variables first.
    R : ndarray of shape (N, N)
        ``(R_1, R_2)``: columns ``c_i b_i`` for the labeled points, then ``e_j - b_j`` for
        the unlabeled ones.
    """
    n = K.shape[0]
    unl = np.setdiff1d(np.arange(n), labeled)
    R1 = Bt[labeled].T * c  # columns c_i b_i, i in L
    R2 = (np.eye(n)[unl] - Bt[unl]).T  # columns e_j - b_j, j in U
    R = np.hstack([R1, R2])
    G = R.T @ (K @ R)
    return 0.5 * (G + G.T), R


def structured_dual(K, Q, dP, labeled, unlabeled):
    """``G`` of :func:`dual_problem` with ``c = 1``, in O(N^2) from ``Q = D^{-1} K^{-1} D^{-1}``.

    ``G_LL = K_LL - 2 D_LL^{-1} + Q_LL``, ``G_LU = -Q_LU``, ``G_UU = Q_UU`` (module
    doc).  The labels enter only as ``diag(c, 1) G diag(c, 1)``: with
    ``alpha' = c alpha`` one matrix serves every class of one-against-all.

    Parameters
    ----------
    K : ndarray of shape (N, N)
        The kernel matrix.
    Q : ndarray of shape (N, N)
        ``D^{-1} K^{-1} D^{-1}`` (:class:`GPFactors`; not modified).
    dP : ndarray of shape (N,)
        ``diag(K^{-1})``.
    labeled : ndarray of int of shape (l,)
        Positions of the labeled points.
    unlabeled : ndarray of int of shape (N - l,)
        Positions of the unlabeled points.

    Returns
    -------
    G : ndarray of shape (N, N)
        The dual's matrix, labeled variables first.
    """
    order = np.concatenate([labeled, unlabeled])
    G = Q[np.ix_(order, order)]
    L = labeled.size
    G[:L, :L] += K[np.ix_(labeled, labeled)] - np.diag(2.0 / dP[labeled])
    G[:L, L:] *= -1.0
    G[L:, :L] *= -1.0
    return G


def primal_objective(K, Bt, labeled, c, C1, C2, epsilon, y):
    """Objective (2) at ``y`` with the optimal slacks of (3)-(6) (needs ``K^{-1} y``).

    Parameters
    ----------
    K : ndarray of shape (N, N)
        The kernel matrix.
    Bt : ndarray of shape (N, N)
        The row form of B.
    labeled : ndarray of int of shape (l,)
        Positions of the labeled points.
    c : ndarray of shape (l,)
        Their labels, -1 or +1.
    C1 : float
        Weight of the hinge loss on the labeled points.
    C2 : float
        Weight of the epsilon-insensitive loss on the unlabeled points.
    epsilon : float
        Width of the epsilon-insensitive loss.
    y : ndarray of shape (N,)
        The labeling (decision values) of all points.

    Returns
    -------
    float
        ``y^T K^{-1} y / 2`` plus the two weighted losses of the leave-one-out predictions
        ``Bt @ y``.
    """
    unl = np.setdiff1d(np.arange(K.shape[0]), labeled)
    loo = Bt @ y
    hinge = np.maximum(0.0, 1.0 - c * loo[labeled]).sum()
    eps_loss = np.maximum(0.0, np.abs(loo[unl] - y[unl]) - epsilon).sum()
    return 0.5 * float(y @ np.linalg.solve(K, y)) + C1 * hinge + C2 * eps_loss


class GPFactors:
    """``K = K_0 + noise I``, ``dP = diag(K^{-1})`` and ``Q = D^{-1} K^{-1} D^{-1}`` (2 N^2 floats).

    ``K^{-1} = D Q D`` is not kept: :meth:`apply_inverse` uses it.
    """

    def __init__(self, K):
        self.K = K
        P = _inverse(K)
        self.dP = np.diag(P).copy()
        P /= self.dP[:, None]
        P /= self.dP[None, :]
        self.Q = P

    @property
    def nbytes(self):
        """The bytes of ``K``, ``Q`` and ``dP`` (the memo's bound, :data:`_FACTORS`)."""
        return self.K.nbytes + self.Q.nbytes + self.dP.nbytes

    def freeze(self):
        """Make the factors read-only (they are memoized and shared)."""
        freeze((self.K, self.Q, self.dP))

    def apply_inverse(self, F):
        """``K^{-1} F``.

        Parameters
        ----------
        F : ndarray of shape (N, k)
            The right-hand sides, as columns.

        Returns
        -------
        ndarray of shape (N, k)
            ``K^{-1} F``, as ``D Q D F``.
        """
        return self.dP[:, None] * (self.Q @ (self.dP[:, None] * F))

    def loo_rows(self):
        """The row form of B, ``I - D^{-1} K^{-1} = I - Q D``."""
        return np.eye(self.K.shape[0]) - self.Q * self.dP[None, :]


#: label-independent factors by (content of X or K_0, sigma2, noise), a few: each holds
#: 2 N^2 floats (64 MB at N = 2000); the runner's tasks go method by method, so the widths
#: of one data set (Sec. 6: four values of r) fit; at most 1 GiB, read-only
_FACTORS = LRU(4, max_bytes=2**30)


def gp_factors(K0_or_X, sigma2, noise, gram=False):
    """The :class:`GPFactors` of the data (``gram``: a given ``K_0``), memoized (LRU of 4).

    Parameters
    ----------
    K0_or_X : ndarray of shape (N, n_features) or (N, N)
        The points, or with ``gram=True`` the Gram matrix ``K_0``.
    sigma2 : float
        ``sigma^2`` of the RBF kernel (not used with ``gram=True``).
    noise : float
        The noise variance added to the diagonal: ``K = K_0 + noise I``.
    gram : bool, default=False
        Whether ``K0_or_X`` is ``K_0``.

    Returns
    -------
    GPFactors
        The factors of ``K`` (read-only: memoized and shared).

    Raises
    ------
    ValueError
        When ``K`` has a NaN or infinite entry or is not positive definite
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).
    """
    key = (fingerprint(K0_or_X), bool(gram), None if gram else float(sigma2), float(noise))
    hit = _FACTORS.lookup(key)
    if hit is not None:
        return hit
    K0 = K0_or_X if gram else rbf(squared_distances(K0_or_X), np.sqrt(sigma2))
    return _FACTORS.store(key, GPFactors(K0 + noise * np.eye(K0.shape[0])))


def clear_cache():
    """Forget the memoized GP factors."""
    _FACTORS.clear()


class SelfConsistentLabeling(SemiSupervisedClassifier):
    """Kernel self-consistent labeling (leave-one-out rho-epsilon learning), eqs. (2)-(16).

    Views the kernel ``K = K_0 + sigma_n^2 I`` as the covariance of a Gaussian process,
    predicts each point from all the others (the leave-one-out coefficients ``b_i`` of
    Sec. 2) and finds the labeling ``y`` of all points that is self-consistent under those
    predictions: the hinge loss on the labeled points and the epsilon-insensitive loss on
    the unlabeled ones (primal (2)-(6)).  The dual (14)-(16) is a quadratic program with
    bound constraints only, solved in the variables ``(alpha, delta)`` (module docstring).
    Multi-class by one-against-all (Sec. 6), the label the argmax of the decision values
    of (13); two classes are one problem.  New points: ``y(x) = k_x^T a`` with
    ``a = K^{-1} y`` (Sec. 4).

    Parameters
    ----------
    sigma2 : float, default=1.0
        ``sigma^2`` of the RBF kernel eq. (17), ``exp(-||x - z||^2 / (2 sigma^2))``
        (> 0; ignored with ``kernel="precomputed"`` or a ``kernel_learner``).  The paper
        tunes it per data set (Table 1 / Sec. 6).
    C1 : float, default=10.0
        Weight of the hinge loss on the labeled points, eq. (2) (> 0; Sec. 6:
        ``C_1 = 10``).
    C2 : float, default=10.0
        Weight of the epsilon-insensitive loss on the unlabeled points, eq. (2) (> 0;
        Sec. 6: ``C_2 = 10``).
    epsilon : float, default=1.0
        Width of the epsilon-insensitive loss, eqs. (4)-(5) (>= 0; Sec. 6: 1).
    noise : float, default=1e-4
        ``sigma_n^2`` added to the diagonal, ``K = K_0 + sigma_n^2 I`` (> 0; Sec. 6).
    kernel : {"rbf", "precomputed"}, default="rbf"
        ``"precomputed"``: ``fit(K_0, y)`` with the (N, N) Gram matrix,
        ``predict`` with the (s, N) kernel values to the training points.
    kernel_learner : estimator or None, default=None
        An unfitted kernel learner (``fit``, ``kernel_``, ``kernel(A, B)``).  ``K_0`` is
        its learned kernel on the training points (fitted with the same partial labels),
        scaled to unit mean diagonal; ``predict`` uses its extension
        ``kernel(X_new, None)``.  In a spec: ``kernel: {learner: skl-kta, params: {...}}``.
    eta : float or None, default=None
        Sec. 4.2's re-weighting of unlabeled points in B, in [0, 1] (module docstring);
        None: B as is.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    dual_coef_ : ndarray of shape (n_problems, n_samples)
        The solutions ``(alpha, delta)`` (labeled first, in ``labeled_`` order, then the
        unlabeled points in index order); one problem for two classes, one per class
        otherwise.
    expansion_ : ndarray of shape (n_samples, n_problems)
        The coefficients ``a = R x`` of the decision function.
    decision_ : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The decision values ``y = K R x`` (13) of the training points.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point.
    solve_stats_ : list of dict
        The QP solver's statistics per problem.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training points (RBF kernel only).
    learner_ : estimator
        The fitted kernel learner (with ``kernel_learner`` only).
    kernel_scale_ : float
        The learned kernel's mean diagonal (with ``kernel_learner`` only).
    fit_report_ : FitReport
        Solver, duality gap of (14)-(16) and KKT residual per problem
        (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    SpectralKernelLearningKTA : A learned kernel to use as ``kernel_learner``.
    TransductiveSpectralKernel : Another kernel learner.

    References
    ----------
    Semi-supervised learning using kernel self-consistent labeling (anonymous ICML
    submission): Secs. 2-6, eqs. (2)-(17).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import SelfConsistentLabeling
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = SelfConsistentLabeling().fit(X, y_partial)
    >>> est.decision_.shape                        # one-against-all: one column per class
    (178, 3)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.85)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    accept_sparse = False
    _parameter_constraints = {
        "sigma2": [Interval(Real, 0, None, closed="neither")],
        "C1": [Interval(Real, 0, None, closed="neither")],
        "C2": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"rbf", "precomputed"})],
        "kernel_learner": [None, HasMethods(["fit", "kernel"])],
        "eta": [None, Interval(Real, 0, 1, closed="both")],
    }

    def __init__(
        self,
        sigma2=1.0,
        C1=10.0,
        C2=10.0,
        epsilon=1.0,
        noise=1e-4,
        kernel="rbf",
        kernel_learner=None,
        eta=None,
    ):
        self.sigma2 = sigma2
        self.C1 = C1
        self.C2 = C2
        self.epsilon = epsilon
        self.noise = noise
        self.kernel = kernel
        self.kernel_learner = kernel_learner
        self.eta = eta

    @classmethod
    def _spec_params(cls, params, make_learner, graph_given):
        """Spec ``kernel: {learner: NAME, params: {...}}`` -> ``kernel_learner``."""
        params = dict(params)
        spec = params.get("kernel")
        if isinstance(spec, dict):
            unknown = set(spec) - {"learner", "params"}
            if "learner" not in spec or unknown:
                raise ParameterError(
                    "kernel: expected 'rbf', 'precomputed' or a mapping "
                    "{learner: NAME, params: {...}}"
                )
            params.pop("kernel")  # the spec's graph goes to the kernel learner
            params["kernel_learner"] = make_learner(
                spec["learner"], spec.get("params"), "self-consistent"
            )
        return params

    def precompute(self, X):
        """A learned kernel's label-independent work (its graph and spectrum), if any.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        object or None
            What the ``kernel_learner``'s ``precompute(X)`` returns, or None (no kernel learner,
            or one without ``precompute``).
        """
        pre = getattr(self.kernel_learner, "precompute", None)
        return pre(X) if pre is not None else None

    def _kernel0(self, A, B=None):
        """``K_0``: the RBF kernel eq. (17) with width ``sqrt(sigma2)``."""
        return rbf(squared_distances(A, B), np.sqrt(self.sigma2))

    def _factors(self, X, labeled, y_enc):
        """The GP factors of this fit: memoized for the RBF and a given Gram matrix."""
        n = X.shape[0]
        if self.kernel_learner is not None:
            from sskernels.learners.fitted import _fitted_learner

            learner = _fitted_learner(self.kernel_learner, X, labeled, y_enc)
            self.learner_ = learner
            self.fit_report_.merge(getattr(learner, "fit_report_", None), prefix="kernel: ")
            K0 = np.asarray(learner.kernel_, dtype=float)
            scale = float(np.mean(np.diag(K0)))
            if not (np.isfinite(scale) and scale > 0):
                raise ParameterError(
                    f"the learned kernel has a mean diagonal of {scale:g}: "
                    "not a valid kernel for K = K_0 + noise*I"
                )
            self.kernel_scale_ = scale
            K0 = _symmetric(K0 / scale, "the learned kernel")
            return GPFactors(K0 + self.noise * np.eye(n))
        if self.kernel == "precomputed":
            if X.shape != (n, n):
                raise ParameterError(
                    f"kernel='precomputed' needs a square Gram matrix, got {X.shape}"
                )
            return gp_factors(
                _symmetric(X, "kernel='precomputed': the Gram matrix"), None, self.noise, gram=True
            )
        self.X_fit_ = X
        return gp_factors(X, self.sigma2, self.noise)

    def fit(self, X, y):
        """Solve the dual (14)-(16) for every class and label every training point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled (with ``kernel="precomputed"``: the
            (n_samples, n_samples) Gram matrix ``K_0``).
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        n = X.shape[0]
        fac = self._factors(X, labeled, y_enc)
        K = fac.K
        unl = np.setdiff1d(np.arange(n), labeled)
        L = labeled.size
        if self.eta is not None:
            Bt = reweighted_coefficients(fac.loo_rows(), labeled, self.eta)
        T = ovr_targets(y_enc, self.classes_.size)
        T = T[:, None] if T.ndim == 1 else T
        # one matrix for every class: variables (c alpha, delta), labels in h and the bounds
        if self.eta is None:
            G = structured_dual(K, fac.Q, fac.dP, labeled, unl)
        else:
            G, R = dual_problem(K, Bt, labeled, np.ones(L))
        w = np.concatenate([np.zeros(L), np.full(n - L, float(self.epsilon))])
        duals, decisions, self.solve_stats_ = [], [], []
        for k in range(T.shape[1]):
            c = T[:, k].astype(float)
            h = np.concatenate([-c, np.zeros(n - L)])
            lower = np.concatenate([np.minimum(c, 0) * self.C1, np.full(n - L, -float(self.C2))])
            upper = np.concatenate([np.maximum(c, 0) * self.C1, np.full(n - L, float(self.C2))])
            z, info = solve_l1_box_qp(G, h, w, lower, upper)
            self.fit_report_.add(info, what=f"rho-eps dual (problem {k})")
            self.solve_stats_.append(info.stats)
            if self.eta is None:
                ca = z[:L]
                dec = K[:, labeled] @ ca
                dec[labeled] -= ca / fac.dP[labeled]
                dec[unl] += z[L:] / fac.dP[unl]
            else:
                dec = K @ (R @ z)
            duals.append(np.concatenate([c * z[:L], z[L:]]))
            decisions.append(dec)
        self.dual_coef_ = np.array(duals)
        F = np.column_stack(decisions)
        self.expansion_ = fac.apply_inverse(F)
        self.decision_ = F[:, 0] if F.shape[1] == 1 else F
        if F.shape[1] == 1:
            self.transduction_ = self.classes_[(F[:, 0] > 0).astype(int)]
        else:
            self.transduction_ = self.classes_[np.argmax(F, axis=1)]
        if not np.any(self.dual_coef_):
            self.fit_report_.note("degenerate", "zero dual solution: every decision value is 0")
        self._note_degenerate_prediction(self.transduction_)
        return self

    def decision_function(self, X):
        """``y(x) = k_x^T R x`` (Sec. 4 induction); (s,) for two classes, else (s, c).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points (with ``kernel="precomputed"``: their (n_queries, n_samples) kernel
            values ``k_0(x, x_i)`` to the training points).

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            The decision values: (n_queries,) for two classes (positive means
            ``classes_[1]``), one-against-all values otherwise.
        """
        check_is_fitted(self, "expansion_")
        X = self._check_X(X)
        if self.kernel_learner is not None:
            Kx = np.asarray(self.learner_.kernel(X, None), dtype=float) / self.kernel_scale_
        elif self.kernel == "precomputed":
            Kx = X
        else:
            Kx = self._kernel0(X, self.X_fit_)
        if Kx.shape[1] != self.expansion_.shape[0]:
            raise ParameterError(
                f"expected kernel values to {self.expansion_.shape[0]} training "
                f"points, got {Kx.shape[1]}"
            )
        F = Kx @ self.expansion_
        return F[:, 0] if F.shape[1] == 1 else F


def _symmetric(K, what):
    """``K`` symmetrized, after checking it is symmetric to rounding (ValueError otherwise)."""
    if not np.all(np.isfinite(K)):
        raise ParameterError(f"{what} has NaN or infinite entries")
    if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(K).max())):
        raise ParameterError(f"{what} is not symmetric")
    return 0.5 * (K + K.T)
