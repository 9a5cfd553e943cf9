"""The baseline kernel designs of Wang et al. (2015), Table 1 / Sec. 4.1.

Each is a kernel learner ``K = E diag(mu) E^T`` over unsupervised eigenvectors ``E`` of one
Gaussian kernel matrix ``K0 = exp(-b ||x - z||^2)`` over all n points (Wang et al.'s "graph":
Sec. 2 builds the Laplacian ``D - K0`` and ``S = D^{-1/2} K0 D^{-1/2}`` from the dense kernel
matrix, no k-NN sparsification).  An SVM on it is ``KernelSVM(kernel_learner=...)`` (spec:
``kernel-svm`` with ``kernel: cluster-kernel`` etc.); the learners' own rule is Liu et al.'s
eq. (5), ``argmax_k sum_{y_j = k} K(x, x_j)``, which is also what the width selection scores.

* :class:`ClusterKernel` — Chapelle, Weston & Schoelkopf (NIPS 2002), the cluster kernel with
  the *linear(-step)* transfer function: the top ``n_components`` eigenpairs ``(sigma_i, v_i)``
  of ``S`` (the smallest of the normalized Laplacian ``I - S``), ``phi(sigma) = sigma`` on them
  and 0 on the others, ``L~ = V diag(sigma) V^T``, then their step 4: unit diagonal,
  ``K = D~^{1/2} L~ D~^{1/2}``, ``D~_ii = 1 / L~_ii``.
* :class:`DiffusionKernel` — Kondor & Lafferty (ICML 2002): ``r(lambda) = exp(-lambda / delta)``
  on the smallest ``n_components`` eigenpairs of the normalized Laplacian ``I - S``
  (``lambda_i = 1 - sigma_i``); over all n eigenpairs it is ``expm(-(I - S) / delta)``.
* :class:`MaxAlignmentKernel` — the maximal-alignment kernel (Cristianini et al. 2002;
  Lanckriet et al. 2004's spectral form): non-negative ``mu`` maximizing the alignment of
  ``K_LL`` with the ideal kernel, ``max a^T mu s.t. mu^T G mu <= 1, mu >= 0`` — OSK's problem
  (:mod:`sskernels.learners.spectral_transforms`) without the order constraints, solved by
  :func:`sskernels.solvers.cone.alignf` (cone QP + minimum-norm tie rule) on the *uncentered*
  terms of :func:`sskernels.kernels.alignment.alignment_terms`, the top ``n_components``
  eigenvectors of ``K0`` (Sec. 4.1: "the top 10% eigenvectors of the kernel matrix").
* The *spectral graph kernel* column (Zhu, Kandola, Ghahramani & Lafferty 2004; "non-parametric
  graph kernel [10]") is ``osk`` (alias ``spectral-graph-kernel``), not re-implemented here.
  Wang et al.'s Sec. 2 program, ``max vec(yy^T)^T M mu s.t. ||M mu|| <= 1,
  mu_i >= mu_{i+1} >= 0``, IS OSK's program (P) with the same objective and constraints
  (``improved_order=False``; OSK's default ``True`` exempts the ``lambda = 0`` eigenvectors,
  Zhu et al.'s "improved order").  What differs is the spectrum fed to it: Wang et al. use
  ``p = 0.1 n`` eigenvectors of the normalized Laplacian of the dense Gaussian matrix; OSK
  uses ``n_components`` (default 10) eigenvectors of a k-NN graph (``n_neighbors``, ``weights``,
  ``sigma`` in the spec's graph section; ``n_neighbors = n - 1`` with ``weights: heat``
  approaches the dense Gaussian graph).

Extension to new points: every eigenvector is extended by the Nystrom formula (Wang et al.
eq. (4); :class:`sskernels.kernels.spectra.NystromSpectrum`), exact at the training points, so
``kernel(A, B) = E(A) diag(mu) E(B)^T`` (row-normalized for the cluster kernel) is PSD on any
union of training and new points.

Choices the papers leave open (repeated where implemented):

* width ``b = b_scale * b0``, ``b0`` = 1 / mean squared pairwise distance, ``b_scale`` selected
  from Wang et al.'s ``{1/50, 1/25, 1/10, 1/5, 1, 5, 10}`` (as ``label-aware``,
  :data:`sskernels.learners.label_aware.B_SCALES`) on the labeled points;
* ``n_components = 0.1 n`` (Sec. 4.1); exact eigenvectors by default (``eigen_solver="exact"``;
  ``"nystrom"`` with ``n_landmarks`` as in ``label-aware``);
* the diagonal of ``K0`` is kept (Wang et al.'s ``S``; Chapelle et al. take the affinity of
  spectral clustering, whose diagonal is 0 in Ng, Jordan & Weiss);
* cluster kernel: Wang et al. write ``r(lambda) = lambda`` with lambda an eigenvalue of the
  Laplacian, which would weight the rough eigenvectors most, against their own Sec. 2
  (``r`` non-increasing); we read it as Chapelle et al.'s linear transfer on the eigenvalues
  ``sigma`` of ``S`` (``r(lambda) = 1 - lambda`` on the Laplacian's);
* diffusion kernel: Sec. 2 writes ``r(lambda) = exp(-(sigma^2 / 2) lambda)`` and Sec. 4.1
  ``exp(-lambda / delta)`` with ``delta`` in ``{1e-5, 1e-3, 1e-1, 1}``.  Both are Kondor &
  Lafferty's ``exp(-beta L)``, with ``beta = sigma^2 / 2`` or ``beta = 1 / delta``.  We take
  Sec. 4.1's ``exp(-lambda / delta)``, the reading its grid belongs to: on the normalized
  Laplacian (``lambda`` in [0, 1] for the PSD Gaussian matrix) the grid then runs from strong
  diffusion (``delta = 1e-5``: only ``lambda ~ 0`` survives) to mild (``delta = 1``:
  ``r >= e^-1``), while under ``beta = delta^2 / 2`` three of the four values give
  ``r >= 0.995`` on every eigenpair, i.e. the same plain projection.  Sec. 2's reading is
  ``delta = 2 / sigma^2``.  Ties in the selection go to the largest delta (the mildest diffusion);
* max-alignment: the uncentered (Cristianini) alignment with the ``target`` ideal kernel, so that
  it is OSK's objective; the degenerate case (no positive alignment) uses uniform ``mu``, noted.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.hashing import fingerprint
from sskernels.kernels.alignment import TARGETS, alignment_terms, ideal_kernel, kernel_alignment
from sskernels.kernels.rbf import mean_squared_distance
from sskernels.learners.base import SemiSupervisedClassifier, indicator
from sskernels.learners.grids import B_SCALES
from sskernels.learners.embedding import EmbeddingKernel, RBFEigenbasis
from sskernels.solvers.cone import alignf
from sskernels.solvers.report import FitReport

__all__ = [
    "ClusterKernel",
    "DiffusionKernel",
    "MaxAlignmentKernel",
    "DELTAS",
    "max_alignment_weights",
]

#: Wang et al.'s delta grid (Sec. 4.1), most preferred (mildest diffusion) first
DELTAS = (1.0, 1e-1, 1e-3, 1e-5)


def max_alignment_weights(U_L, C_L, target="simplex"):
    """The non-negative eigenvector weights of maximal alignment with the ideal kernel.

    ``argmax a^T mu s.t. mu^T G mu <= 1, mu >= 0`` over the labeled rows ``U_L`` of the
    eigenvectors (Zhu et al.'s QCQP without order constraints; ``(G, a)`` uncentered, as OSK).
    Returns alignf's ``(AlignmentSolution, tie SolveInfo or None)``.

    Parameters
    ----------
    U_L : array-like of shape (l, m)
        The labeled rows of the eigenvectors (as columns).
    C_L : array-like of shape (l, c)
        The class indicator matrix of the labeled points.
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel's form (:func:`~sskernels.kernels.alignment.ideal_kernel`).

    Returns
    -------
    solution : AlignmentSolution
        The weights ``mu`` and their alignment (:func:`~sskernels.solvers.cone.alignf`).
    tie : SolveInfo or None
        The minimum-norm tie rule's solve; None when ``G`` has full rank or the problem is
        degenerate.

    Raises
    ------
    ValueError
        For an unknown ``target`` (:class:`~sskernels.errors.ParameterError`, a
        ``ValueError``).
    SolverError
        If HiGHS, when it runs, does not reach an optimum.
    """
    return alignf(*alignment_terms(U_L, C_L, target))


class _SpectralDesign(EmbeddingKernel, RBFEigenbasis, SemiSupervisedClassifier):
    """Shared part: width, eigenvectors (exact or Nystrom), ``mu`` from ``_coefficients``, the
    kernel ``E diag(mu) E^T`` (rows scaled to unit diagonal when ``_unit_diagonal``), eq. (5).

    Fitted attributes: ``b_``, ``eigenvalues_`` (of ``K0`` or ``S``, largest first),
    ``eigenvectors_`` (n, k), ``mu_``, ``row_scale_`` (ones unless unit diagonal),
    ``alignment_`` (Cristianini alignment of ``kernel_[L, L]`` with the ideal kernel),
    ``kernel_``, ``scores_``, ``transduction_``, ``fit_report_``.
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("mu_",)

    _parameter_constraints = {
        "b_scale": [Interval(Real, 0, None, closed="neither")],
        "n_components": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
        ],
        "eigen_solver": [StrOptions({"exact", "nystrom"})],
        "n_landmarks": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
        ],
        "metric": [StrOptions({"euclidean", "cosine"})],
        "random_state": ["random_state"],
    }
    _selection = {"b_scale": (B_SCALES, "nearest-1")}
    _precompute_params = ("b_scale",)
    _fold_one_class = True
    #: the eigenvectors' matrix (RBFEigenbasis): "normalized-laplacian" = top of S
    basis = "normalized-laplacian"
    _unit_diagonal = False

    def __init__(
        self,
        b_scale=1.0,
        n_components=0.1,
        eigen_solver="exact",
        n_landmarks=0.1,
        metric="euclidean",
        random_state=None,
    ):
        self.b_scale = b_scale
        self.n_components = n_components
        self.eigen_solver = eigen_solver
        self.n_landmarks = n_landmarks
        self.metric = metric
        self.random_state = random_state

    def _width(self, X):
        msd = mean_squared_distance(X, self.metric)
        return self.b_scale / msd if msd > 0 else self.b_scale

    def precompute(self, X):
        """The label-independent part (the eigenvectors at the width), memoized."""
        self._validate_params()
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        return self._eigenvectors(X, self._width(X))[1]

    def fit(self, X, y):
        """Learn ``mu`` on the unsupervised eigenvectors of ``X`` and score every training point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        self._fit_labeled(X, labeled, y_enc, fingerprint(X))
        return self

    def _fit_labeled(self, X, labeled, y_enc, key, evaluate=True):
        """The fit after the validation (``classes_``, ``labeled_``, ``fit_report_`` set).
        ``evaluate=False`` (the selection's fold fits) skips what only describes the fit (the
        alignment of ``K_LL``, the constant-prediction note): ``transduction_`` is the same."""
        c = self.classes_.size
        self.b_ = self._width(X)
        self.extension_, V = self._eigenvectors(X, self.b_, key)
        # Nystrom: eigenvalue of the n x n matrix = (n/m) x that of the landmark block
        self.eigenvalues_ = self.extension_.values * (X.shape[0] / self.extension_.landmarks.size)
        self.eigenvectors_ = V
        self.C_L_ = C_L = indicator(y_enc, c)
        self.mu_ = np.asarray(self._coefficients(self.eigenvalues_, V[labeled], C_L), float)
        self.row_scale_ = self._row_scale(V, note=True)
        P = self.embedding()
        if evaluate:
            K_LL = (P[labeled] * self.mu_) @ P[labeled].T
            self.alignment_ = kernel_alignment(
                K_LL, ideal_kernel(y_enc, c, getattr(self, "target", "simplex"))
            )
        self.scores_ = self._scores(P)
        self.transduction_ = self.classes_[np.argmax(self.scores_, axis=1)]
        if evaluate:
            self._note_degenerate_prediction(self.transduction_)

    @property
    def _fold_params(self):
        """Every constructor parameter (a fold fit is :meth:`_fit_labeled` with the
        candidate set)."""
        return frozenset(self.get_params(deep=False))

    def _fold_setup(self, X, labeled, y_enc, report):
        """The width / delta selection's fold fits without the estimator around them: one
        validation of ``X`` and one estimator per candidate, then per fold the fit's own
        computation (:meth:`_fit_labeled`) on the fold's labels (the eigenvectors are
        memoized per width).  Equal to the generic rule: the same arithmetic on the same
        arrays, the fold's labeled points in increasing position and its classes encoded
        among themselves, as a fit with the other labels hidden sees them."""
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        key = fingerprint(X)
        current = {}

        def predict(params, train, test):
            y_train = y_enc[train]
            cand = tuple(sorted(params.items()))
            if current.get("cand") != cand:
                est = clone(self).set_params(**params)
                est._validate_params()
                current.update(cand=cand, est=est)
            est = current["est"]
            order = np.argsort(labeled[train], kind="stable")
            lab, y_fold = labeled[train][order], y_train[order]
            classes, y_fold = np.unique(y_fold, return_inverse=True)
            est.classes_, est.labeled_, est.fit_report_ = classes, lab, FitReport()
            est._fit_labeled(X, lab, y_fold, key, evaluate=False)
            report.merge(est.fit_report_)
            return np.asarray(est.transduction_)[labeled[test]]

        return predict

    def _row_scale(self, E, note=False):
        """Chapelle et al.'s step 4 as a row scaling ``1 / sqrt(L~_ii)`` (0 where ``L~_ii = 0``)."""
        if not self._unit_diagonal:
            return np.ones(E.shape[0])
        d = np.einsum("ij,j,ij->i", E, self.mu_, E)
        zero = ~(d > 1e-12 * max(float(d.max(initial=0.0)), 1e-300))
        if zero.any() and note:
            self.fit_report_.note(
                "degenerate",
                f"{int(zero.sum())} points have a zero kernel "
                "diagonal: their rows of the kernel are 0",
            )
        return np.where(zero, 0.0, 1.0 / np.sqrt(np.where(zero, 1.0, d)))

    # -- the learned kernel and its extension ------------------------------------
    def embedding(self, X=None):
        """Rows ``e(x)`` of the training points (None) or their Nystrom extension (eq. (4)),
        scaled as the kernel needs: ``K(a, b) = e(a) diag(mu) e(b)^T``."""
        check_is_fitted(self, "mu_")
        if X is None:
            return self.eigenvectors_ * self.row_scale_[:, None]
        E = self.extension_.extend(self._check_X(X))
        return E * self._row_scale(E)[:, None]

    def _scores(self, P):
        """Liu et al. eq. (5) on the learned kernel: ``F = K(x, L) C_L``."""
        PL = self.embedding()[self.labeled_]
        return P @ (self.mu_[:, None] * (PL.T @ self.C_L_))


class ClusterKernel(_SpectralDesign):
    """Cluster kernel with the linear transfer function (Chapelle, Weston & Schoelkopf 2002).

    Steps (their Sec. 3, on Wang et al.'s ``S``): 1. ``K0 = exp(-b d^2)``, ``D = diag(K0 1)``;
    2. ``S = D^{-1/2} K0 D^{-1/2} = U diag(sigma) U^T``; 3. linear(-step) transfer
    ``phi(sigma_i) = sigma_i`` for the ``n_components`` largest, 0 else: ``L~ = V diag(sigma) V^T``;
    4. ``K = D~^{1/2} L~ D~^{1/2}``, ``D~_ii = 1 / L~_ii`` (``unit_diagonal=True``; False stops at
    ``L~``, Wang et al.'s ``V diag(r) V^T``).  Module docstring: the reading of
    ``r(lambda) = lambda``.  One of the kernel designs of Wang et al. 2015, Table 1.

    An SVM on it is ``KernelSVM(kernel_learner=...)``; the learner's own rule is Liu et
    al.'s eq. (5), ``argmax_k sum_{y_j = k} K(x, x_j)``.  New points: every eigenvector
    is extended by the Nystrom formula (Wang et al. eq. (4)), so ``kernel(A, B)`` is PSD
    on any union of training and new points.

    Parameters
    ----------
    b_scale : float, default=1.0
        The width factor, ``b = b_scale * b0`` with ``b0`` = 1 / mean squared pairwise
        distance (> 0; selected from Wang et al.'s ``{1/50, 1/25, 1/10, 1/5, 1, 5, 10}`` on
        the labeled points).
    n_components : int or float, default=0.1
        The number of eigenvectors: a count, or a fraction of n (Sec. 4.1: 10 %).
    unit_diagonal : bool, default=True
        True: Chapelle et al.'s step 4, ``K = D~^{1/2} L~ D~^{1/2}`` (unit diagonal);
        False stops at ``L~``, Wang et al.'s ``V diag(r) V^T``.
    eigen_solver : {"exact", "nystrom"}, default="exact"
        Exact eigenvectors, or the Nystrom method with ``n_landmarks`` landmarks.
    n_landmarks : int or float, default=0.1
        Nystrom landmarks: a count, or a fraction of n.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance of the Gaussian kernel.
    random_state : int, RandomState instance or None, default=None
        Seed of the landmark draw (None: a fresh draw at each fit; specs pass 0).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    b_ : float
        The width ``b`` used.
    eigenvalues_ : ndarray of shape (n_components,)
        The eigenvalues of ``K0`` or ``S``, largest first.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The eigenvectors at the training points.
    extension_ : NystromSpectrum
        Their Nystrom extension to new points
        (:class:`~sskernels.kernels.spectra.NystromSpectrum`).
    mu_ : ndarray of shape (n_components,)
        The spectral coefficients.
    row_scale_ : ndarray of shape (n_samples,)
        The row scaling to unit diagonal (ones unless unit diagonal).
    alignment_ : float
        Cristianini alignment of ``kernel_[L, L]`` with the ideal kernel.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``E diag(mu) E^T`` on the training points; ``kernel(A, B)``
        evaluates it between any point sets.
    C_L_ : ndarray of shape (n_labeled, n_classes)
        The class indicator matrix of the labeled points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of Liu et al. eq. (5) of every training point.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point: the class of its largest score.
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
    DiffusionKernel : Another kernel design on the same spectrum.
    MaxAlignmentKernel : Coefficients by alignment.
    KernelSVM : An SVM on the learned kernel.

    References
    ----------
    O. Chapelle, J. Weston and B. Schölkopf. Cluster kernels for semi-supervised
    learning. In NIPS, 2002: Sec. 3.

    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Sec. 2, Sec. 4.1, Table 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import ClusterKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = ClusterKernel(random_state=0).fit(X, y_partial)
    >>> est.eigenvectors_.shape                    # 10 % of n eigenvectors
    (178, 18)
    >>> bool(np.allclose(np.diag(est.kernel_), 1.0))   # unit diagonal
    True
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.8)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **_SpectralDesign._parameter_constraints,
        "unit_diagonal": ["boolean"],
    }

    def __init__(
        self,
        b_scale=1.0,
        n_components=0.1,
        unit_diagonal=True,
        eigen_solver="exact",
        n_landmarks=0.1,
        metric="euclidean",
        random_state=None,
    ):
        super().__init__(b_scale, n_components, eigen_solver, n_landmarks, metric, random_state)
        self.unit_diagonal = unit_diagonal

    @property
    def _unit_diagonal(self):
        return self.unit_diagonal

    def _coefficients(self, sigma, V_L, C_L):
        return sigma


class DiffusionKernel(_SpectralDesign):
    """Diffusion kernel (Kondor & Lafferty 2002) on the normalized Laplacian of ``K0``.

    ``K = sum_i exp(-lambda_i / delta) v_i v_i^T`` over the ``n_components`` smallest eigenpairs
    of ``I - S`` (``lambda_i = 1 - sigma_i``, ``S = D^{-1/2} K0 D^{-1/2}``,
    ``K0 = exp(-b d^2)``; Wang et al. Sec. 4.1's ``r(lambda) = exp(-lambda / delta)``, =
    Sec. 2's ``exp(-(s^2/2) lambda)`` with ``delta = 2 / s^2``; module docstring).  With
    every eigenpair it is ``expm(-(I - S) / delta)``.  One of the kernel designs of Wang
    et al. 2015, Table 1.

    An SVM on it is ``KernelSVM(kernel_learner=...)``; the learner's own rule is Liu et
    al.'s eq. (5), ``argmax_k sum_{y_j = k} K(x, x_j)``.  New points: every eigenvector
    is extended by the Nystrom formula (Wang et al. eq. (4)), so ``kernel(A, B)`` is PSD
    on any union of training and new points.

    Parameters
    ----------
    delta : float, default=1.0
        The diffusion ``r(lambda) = exp(-lambda / delta)`` (> 0; selected from
        :data:`DELTAS`, ties to the largest).
    b_scale : float, default=1.0
        The width factor, ``b = b_scale * b0`` with ``b0`` = 1 / mean squared pairwise
        distance (> 0; selected from Wang et al.'s ``{1/50, 1/25, 1/10, 1/5, 1, 5, 10}`` on
        the labeled points).
    n_components : int or float, default=0.1
        The number of eigenvectors: a count, or a fraction of n (Sec. 4.1: 10 %).
    eigen_solver : {"exact", "nystrom"}, default="exact"
        Exact eigenvectors, or the Nystrom method with ``n_landmarks`` landmarks.
    n_landmarks : int or float, default=0.1
        Nystrom landmarks: a count, or a fraction of n.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance of the Gaussian kernel.
    random_state : int, RandomState instance or None, default=None
        Seed of the landmark draw (None: a fresh draw at each fit; specs pass 0).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    b_ : float
        The width ``b`` used.
    eigenvalues_ : ndarray of shape (n_components,)
        The eigenvalues of ``K0`` or ``S``, largest first.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The eigenvectors at the training points.
    extension_ : NystromSpectrum
        Their Nystrom extension to new points
        (:class:`~sskernels.kernels.spectra.NystromSpectrum`).
    mu_ : ndarray of shape (n_components,)
        The spectral coefficients.
    row_scale_ : ndarray of shape (n_samples,)
        The row scaling to unit diagonal (ones unless unit diagonal).
    alignment_ : float
        Cristianini alignment of ``kernel_[L, L]`` with the ideal kernel.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``E diag(mu) E^T`` on the training points; ``kernel(A, B)``
        evaluates it between any point sets.
    C_L_ : ndarray of shape (n_labeled, n_classes)
        The class indicator matrix of the labeled points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of Liu et al. eq. (5) of every training point.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point: the class of its largest score.
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
    ClusterKernel : Another kernel design on the same spectrum.
    KernelSVM : An SVM on the learned kernel.

    References
    ----------
    R. I. Kondor and J. Lafferty. Diffusion kernels on graphs and other discrete input
    spaces. In Proc. ICML, 2002.

    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Sec. 2, Sec. 4.1, Table 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import DiffusionKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = DiffusionKernel(random_state=0).fit(X, y_partial)
    >>> est.eigenvectors_.shape                    # 10 % of n eigenvectors
    (178, 18)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.8)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **_SpectralDesign._parameter_constraints,
        "delta": [Interval(Real, 0, None, closed="neither")],
    }
    _selection = {**_SpectralDesign._selection, "delta": (DELTAS, "largest")}

    def __init__(
        self,
        delta=1.0,
        b_scale=1.0,
        n_components=0.1,
        eigen_solver="exact",
        n_landmarks=0.1,
        metric="euclidean",
        random_state=None,
    ):
        self.delta = delta
        super().__init__(b_scale, n_components, eigen_solver, n_landmarks, metric, random_state)

    def _coefficients(self, sigma, V_L, C_L):
        return np.exp(-(1.0 - sigma) / self.delta)


class MaxAlignmentKernel(_SpectralDesign):
    """Maximal-alignment kernel: ``mu >= 0`` maximizing the alignment with the ideal kernel.

    The alignment is that of ``K_LL``, with no order constraints (OSK's program without
    them; :func:`max_alignment_weights`): ``max a^T mu s.t. mu^T G mu <= 1, mu >= 0`` on
    the *uncentered* alignment terms of the
    top ``n_components`` eigenvectors of ``K0 = exp(-b d^2)`` (Sec. 4.1: "the top 10%
    eigenvectors of the kernel matrix"), solved by :func:`sskernels.solvers.cone.alignf`
    (cone QP + minimum-norm tie rule).  The degenerate case (no positive alignment) uses
    uniform ``mu``, noted.  One of the kernel designs of Wang et al. 2015, Table 1.

    An SVM on it is ``KernelSVM(kernel_learner=...)``; the learner's own rule is Liu et
    al.'s eq. (5), ``argmax_k sum_{y_j = k} K(x, x_j)``.  New points: every eigenvector
    is extended by the Nystrom formula (Wang et al. eq. (4)), so ``kernel(A, B)`` is PSD
    on any union of training and new points.

    Parameters
    ----------
    basis : {"kernel", "normalized-laplacian"}, default="kernel"
        ``"kernel"``: the top eigenvectors of ``K0`` (Wang et al. Sec. 4.1);
        ``"normalized-laplacian"``: the top of ``S``.
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel (:mod:`sskernels.kernels.alignment`).
    b_scale : float, default=1.0
        The width factor, ``b = b_scale * b0`` with ``b0`` = 1 / mean squared pairwise
        distance (> 0; selected from Wang et al.'s ``{1/50, 1/25, 1/10, 1/5, 1, 5, 10}`` on
        the labeled points).
    n_components : int or float, default=0.1
        The number of eigenvectors: a count, or a fraction of n (Sec. 4.1: 10 %).
    eigen_solver : {"exact", "nystrom"}, default="exact"
        Exact eigenvectors, or the Nystrom method with ``n_landmarks`` landmarks.
    n_landmarks : int or float, default=0.1
        Nystrom landmarks: a count, or a fraction of n.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance of the Gaussian kernel.
    random_state : int, RandomState instance or None, default=None
        Seed of the landmark draw (None: a fresh draw at each fit; specs pass 0).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    b_ : float
        The width ``b`` used.
    eigenvalues_ : ndarray of shape (n_components,)
        The eigenvalues of ``K0`` or ``S``, largest first.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The eigenvectors at the training points.
    extension_ : NystromSpectrum
        Their Nystrom extension to new points
        (:class:`~sskernels.kernels.spectra.NystromSpectrum`).
    mu_ : ndarray of shape (n_components,)
        The spectral coefficients.
    row_scale_ : ndarray of shape (n_samples,)
        The row scaling to unit diagonal (ones unless unit diagonal).
    alignment_ : float
        Cristianini alignment of ``kernel_[L, L]`` with the ideal kernel.
    alignment_value_ : float
        The optimum ``a^T mu`` with ``||K_LL||_F = 1``.
    degenerate_ : bool
        True when no ``mu >= 0`` has a positive alignment (uniform ``mu`` used, noted).
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``E diag(mu) E^T`` on the training points; ``kernel(A, B)``
        evaluates it between any point sets.
    C_L_ : ndarray of shape (n_labeled, n_classes)
        The class indicator matrix of the labeled points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of Liu et al. eq. (5) of every training point.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point: the class of its largest score.
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
    OrderConstrainedSpectralKernel : The same program under order constraints.
    LabelAwareKernel : Alignment over label-aware and unsupervised base kernels.
    KernelSVM : An SVM on the learned kernel.

    References
    ----------
    N. Cristianini, J. Shawe-Taylor, A. Elisseeff and J. Kandola. On kernel-target
    alignment. In NIPS, 2002.

    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Sec. 2, Sec. 4.1, Table 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import MaxAlignmentKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = MaxAlignmentKernel(random_state=0).fit(X, y_partial)
    >>> est.eigenvectors_.shape                    # 10 % of n eigenvectors
    (178, 18)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.8)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **_SpectralDesign._parameter_constraints,
        "basis": [StrOptions({"kernel", "normalized-laplacian"})],
        "target": [StrOptions(set(TARGETS))],
    }
    _precompute_params = ("b_scale", "basis")

    def __init__(
        self,
        basis="kernel",
        target="simplex",
        b_scale=1.0,
        n_components=0.1,
        eigen_solver="exact",
        n_landmarks=0.1,
        metric="euclidean",
        random_state=None,
    ):
        self.basis = basis
        self.target = target
        super().__init__(b_scale, n_components, eigen_solver, n_landmarks, metric, random_state)

    def _coefficients(self, sigma, V_L, C_L):
        sol, tie = max_alignment_weights(V_L, C_L, self.target)
        if sol.info is not None:
            self.fit_report_.add(sol.info, "alignment")
        if tie is not None:
            self.fit_report_.add(tie, "alignment tie rule")
        self.alignment_value_, self.degenerate_ = sol.value, sol.degenerate
        if sol.degenerate:
            self.fit_report_.note(
                "degenerate",
                "alignment: no mu >= 0 has a positive alignment "
                "with the ideal kernel; uniform mu used",
            )
        return sol.mu
