"""Alignment-maximizing spectral transforms: OSK and DSK, the baselines of Liu et al. (2009).

Both learn a kernel ``K = sum_t mu_t u_t u_t^T`` over fixed, label-independent
eigenvectors ``u_t`` by maximizing the kernel-target alignment of its labeled block
``K_LL`` with an ideal kernel ``T`` (Cristianini et al. 2002;
:mod:`sskernels.kernels.alignment`) over a cone of spectral coefficients ``mu``::

    max_mu  vec(T)^T M mu   s.t.  ||M mu|| <= 1,  Gamma mu >= 0,  mu >= 0        (P)

(Zhu et al.'s QCQP, written out in Wang et al. 2015, Sec. 2), solved as a cone QP by
:func:`sskernels.solvers.cone.alignment_qp` (NNLS over the cone's generators).  They
differ in the spectrum and the cone:

* :class:`OrderConstrainedSpectralKernel` (OSK; Zhu, Kandola, Ghahramani & Lafferty,
  NIPS 2004) — the m smallest eigenpairs with ``lambda != 1`` of the normalized
  Laplacian of the k-NN graph (the spectrum of TSK, Liu et al. Sec. 4.1 / Table 1
  Step 2), under the order constraints ``mu_t >= mu_{t+1} >= 0`` (Liu et al. eq. (7));
* :class:`FastDecaySpectralKernel` (DSK; Hoi, Lyu & Chang, KDD 2006) — the top
  eigenpairs of an RBF kernel matrix ``K0`` over all n points
  (:mod:`sskernels.kernels.spectra`), under the fast-decay constraints
  ``mu_i >= eta mu_{i+1}``, ``mu >= 0`` (Liu et al. eq. (8)).  No graph.

The learned kernel gives the classifier of Liu et al. eq. (5),
``f(x_i) = argmax_k sum_{y_j = k} K_ij``.  OSK induces new points by Liu et al.'s
eq. (17)-(19); DSK by the Nystrom extension ``u_i(x) = (1/s_i) sum_j K0(x, x_j) u_ji``.

Choices the papers leave open (each repeated where it is implemented):

* the multi-class ideal kernel (``target``; :mod:`sskernels.kernels.alignment`);
* the degenerate case (every feasible ``mu`` has ``a^T mu <= 0``: the best alignment is
  0, attained by ``mu = 0``, no kernel): the learner's "unlearned" feasible point —
  uniform ``mu`` for OSK, ``mu_t = eta^{-(t-1)}`` for DSK — scaled to ``||M mu|| = 1``,
  ``degenerate_ = True`` and a ``"degenerate: ..."`` note in ``fit_report_``;
* m (``n_components``) defaults to 10, Liu et al.'s m for heart and wine (they do not
  state it for OSK and DSK);
* OSK: the normalized Laplacian (Zhu et al. use the unnormalized one), so that RSK, TSK
  and OSK share one spectrum and the out-of-sample extension; ``improved_order=True``;
* DSK: ``K0 = exp(-||x - z||^2 / (2 w^2))``; ``eta = 2`` (Liu et al.'s eta for TSK);
  ``w = kernel_width_scale x`` the median pairwise distance, the scale selected from
  ``{0.25, 0.5, 1, 2, 4}`` on the labeled points (ties: nearest the median, then the
  wider); eigenpairs with ``s_i <= 1e-10 s_1`` are dropped.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.hashing import fingerprint
from sskernels.kernels.alignment import (  # noqa: F401 - re-exported (old import path)
    TARGETS,
    alignment_terms,
    ideal_kernel,
    kernel_alignment,
    target_norm,
)
from sskernels.kernels.rbf import (  # noqa: F401 - median_distance re-exported
    WIDTH_RULES,
    median_distance,
    rbf_kernel,
    resolve_width,
)
from sskernels.kernels.spectra import (  # noqa: F401 - re-exported (old import path)
    RBFSpectrum,
    clear_rbf_cache,
    rbf_cache_info,
    rbf_spectrum,
)
from sskernels.learners.base import SemiSupervisedClassifier, indicator
from sskernels.learners.spectral_base import ZERO_TOL, SpectralKernelClassifier, decay_matrix
from sskernels.solvers.cone import (  # noqa: F401 - re-exported (old import path)
    AlignmentSolution,
    alignment_qp,
    chain_generators,
)

__all__ = [
    "AlignmentSolution",
    "alignment_qp",
    "alignment_terms",
    "ideal_kernel",
    "target_norm",
    "kernel_alignment",
    "order_matrix",
    "chain_generators",
    "rbf_kernel",
    "rbf_spectrum",
    "median_distance",
    "clear_rbf_cache",
    "rbf_cache_info",
    "OrderConstrainedSpectralKernel",
    "FastDecaySpectralKernel",
    "WIDTH_SCALES",
]

#: DSK's width scales (multiples of the median distance), most preferred first when tied
WIDTH_SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)


def order_matrix(m, skip=0):
    """Order constraints ``mu_t - mu_{t+1} >= 0`` for ``t = skip+1, ..., m-1``.

    Zhu et al.'s order; Liu et al.'s ``Gamma`` of eq. (14) (eq. (7)) with ``eta = 1``.

    Parameters
    ----------
    m : int
        The number of coefficients ``mu``.
    skip : int, default=0
        Leading coefficients left out of the constraints.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (max(m - 1 - skip, 0), m)
        One row per constraint (:func:`~sskernels.learners.spectral_base.decay_matrix`).

    Examples
    --------
    >>> from sskernels.learners.spectral_transforms import order_matrix
    >>> order_matrix(3).toarray()
    array([[ 1., -1.,  0.],
           [ 0.,  1., -1.]])
    """
    return decay_matrix(m, 1.0, skip)


class _AlignmentKernel:
    """Shared part of OSK and DSK: ``mu`` maximizes the alignment of ``K_LL`` with ``T``
    under ``self._constraints(eigenvalues)`` = ``(A, reference)``: rows ``A mu >= 0`` and a
    positive feasible "unlearned" point (``_unlearned`` names it), used as the
    degenerate-case point and as the variable scaling of :func:`alignment_qp`.

    Fitted attributes: ``alignment_`` = Cristianini alignment
    ``<K_LL, T>_F / (||K_LL||_F ||T||_F)`` of the learned kernel, ``alignment_value_`` =
    the optimum of (P) (``<K_LL, T>_F`` with ``||K_LL||_F = 1``), ``degenerate_``.
    """

    _unlearned = ""

    def _constraints(self, eigenvalues):  # pragma: no cover - overridden
        raise NotImplementedError

    def _solve_alignment(self, eigenvalues, U_L, C_L):
        G, a = alignment_terms(U_L, C_L, self.target)
        A, reference = self._constraints(eigenvalues)
        return alignment_qp(G, a, A, fallback=reference, scale=reference)

    def _coefficients(self, lam, V, labeled, C_L):
        sol = self._solve_alignment(lam, V[labeled], C_L)
        if sol.info is not None:
            self.fit_report_.add(sol.info, "alignment")
        self.alignment_value_ = sol.value
        tn = target_norm(C_L, self.target)
        self.alignment_ = sol.value / tn if tn > 0 else 0.0
        self.degenerate_ = sol.degenerate
        if sol.degenerate:
            self.fit_report_.note(
                "degenerate",
                "alignment: no feasible mu has a positive "
                f"alignment with the ideal kernel; {self._unlearned} used",
            )
        return sol.mu


class OrderConstrainedSpectralKernel(_AlignmentKernel, SpectralKernelClassifier):
    """Order-constrained spectral kernel (OSK), Zhu, Kandola, Ghahramani & Lafferty (NIPS 2004).

    ``K = sum_{t=1}^m mu_t v_t v_t^T`` over the m smallest eigenpairs with ``lambda != 1``
    of the normalized Laplacian of the k-NN graph — the spectrum of TSK (Liu et al.
    Sec. 4.1, Table 1 Step 2) — with ``mu`` maximizing the alignment of ``K_LL`` with the
    ideal kernel ``T``::

        max_mu vec(T)^T M mu  s.t.  ||M mu|| <= 1,  mu_t >= mu_{t+1} >= 0

    (Zhu et al.'s QCQP as written in Wang et al. 2015, Sec. 2; Liu et al. eq. (7)), solved
    as the equivalent cone QP of :func:`alignment_qp`.  Zhu et al. use the unnormalized
    Laplacian; we use the normalized one shared by RSK/TSK so that the three kernels
    differ only in ``mu`` and share Liu et al.'s out-of-sample extension eq. (17)-(19).
    The learned kernel gives the classifier of Liu et al. eq. (5).

    Degenerate case (no feasible ``mu`` with positive alignment): uniform ``mu``,
    ``degenerate_ = True``, reported in ``fit_report_``.

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`; ``None``: k = 6 with
        the weights of Liu et al. eq. (2)), or ``"precomputed"``: ``fit`` takes the (n, n)
        affinity matrix of the training points and ``predict`` the (s, n) affinities of
        new points.
    n_components : int or None, default=10
        m (10 is Liu et al.'s m for heart and wine; they do not state it for OSK).
        ``None`` takes the full spectrum.
    improved_order : bool, default=True
        True (our choice) applies Zhu et al.'s "improved order constraints": the
        eigenvectors with ``lambda = 0`` (one per connected component) are left out of the
        order constraints (only ``mu_t >= 0``).  False constrains all m coefficients.
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel: ``"simplex"`` (``T_ij = 1`` same class, ``-1/(c-1)``
        otherwise, = ``yy^T`` for two classes) or ``"pm1"`` (``-1`` otherwise).

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
    eigenvalues_ : ndarray of shape (n_components,)
        The eigenvalues ``lambda_t`` used.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The eigenvectors ``v_t``.
    mu_ : ndarray of shape (n_components,)
        The spectral coefficients maximizing the alignment.
    alignment_ : float
        Cristianini alignment ``<K_LL, T>_F / (||K_LL||_F ||T||_F)`` of the learned kernel.
    alignment_value_ : float
        The optimum of the program above (``<K_LL, T>_F`` with ``||K_LL||_F = 1``).
    degenerate_ : bool
        True when no feasible ``mu`` has a positive alignment (uniform ``mu`` used).
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``V diag(mu_) V^T``; ``kernel(A, B)`` evaluates it between any
        point sets.
    C_L_ : ndarray of shape (n_labeled, n_classes)
        The class indicator matrix of the labeled points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of Liu et al. eq. (5) of every training point.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point: the class of its largest score.
    label_frequencies_ : ndarray of shape (n_classes,)
        The labeled points' class frequencies, the scores of unreached points.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point.
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
    FastDecaySpectralKernel : The same program on an RBF spectrum under fast-decay constraints.
    TransductiveSpectralKernel : The same spectrum, coefficients by a linear program.
    MaxAlignmentKernel : The alignment program without order constraints.
    KernelSVM : An SVM on the OSK kernel ("OSK+SVM").

    References
    ----------
    X. Zhu, J. Kandola, Z. Ghahramani and J. Lafferty. Nonparametric transforms of graph
    kernels for semi-supervised learning. In NIPS 17, 2005.

    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: eq. (5), (7), (17)-(19).

    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Sec. 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import OrderConstrainedSpectralKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = OrderConstrainedSpectralKernel().fit(X, y_partial)
    >>> est.mu_.shape
    (10,)
    >>> bool(np.all(est.mu_ >= 0))
    True
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **SpectralKernelClassifier._parameter_constraints,
        "improved_order": ["boolean"],
        "target": [StrOptions(set(TARGETS))],
    }
    _unlearned = "uniform mu"

    def __init__(self, graph=None, n_components=10, improved_order=True, target="simplex"):
        self.graph = graph
        self.n_components = n_components
        self.improved_order = improved_order
        self.target = target

    def _constraints(self, lam):
        m = lam.size
        skip = int(np.sum(lam < ZERO_TOL)) if self.improved_order else 0
        return order_matrix(m, skip), np.ones(m)


class FastDecaySpectralKernel(_AlignmentKernel, SemiSupervisedClassifier):
    """Fast-decay spectral kernel (DSK), Hoi, Lyu & Chang (KDD 2006); Liu et al. eq. (8).

    The initial kernel is an RBF matrix over all n points (labeled and unlabeled),
    ``K0 = exp(-||x_i - x_j||^2 / (2 w^2)) = sum_i s_i u_i u_i^T``; its top
    ``n_components`` eigenpairs (largest ``s_i`` first) span
    ``K = sum_i mu_i u_i u_i^T`` with ``mu`` maximizing the alignment of ``K_LL`` with the
    ideal kernel ``T`` under the fast-decay constraints::

        max_mu vec(T)^T M mu  s.t.  ||M mu|| <= 1,  mu_i >= eta mu_{i+1},  mu >= 0,

    solved as the cone QP of :func:`alignment_qp` (the problem of OSK with another
    spectrum and cone).  Classification by Liu et al. eq. (5) on ``K``; new points by the
    Nystrom extension ``u_i(x) = (1/s_i) sum_j K0(x, x_j) u_ji``, exact on training
    points (``K0 u_i = s_i u_i``), so ``K(x, x_j) = sum_i mu_i u_i(x) u_ji``.  The extended
    kernel over training and new points is ``P diag(mu) P^T``, hence PSD.  DSK uses no
    graph.

    Degenerate case: ``mu_i = eta^{-(i-1)}``, ``degenerate_ = True``, reported in
    ``fit_report_``.  Eigendecompositions are memoized per (data, width) by
    :func:`rbf_spectrum`, so fits over many splits, folds and candidates compute each once.

    Parameters
    ----------
    n_components : int or None, default=10
        Number of leading eigenpairs of ``K0`` (10 as OSK/TSK; not stated by Liu et al.).
        ``None``: all with ``s_i > 1e-10 s_1``; pairs below that are always dropped (the
        Nystrom extension divides by ``s_i``), so fewer than asked may be kept
        (``eigenvalues_.size``).
    eta : float, default=2.0
        Decay factor (>= 1; the eta Liu et al. fix for TSK, Sec. 5).
    kernel_width : {"median", "mean-norm"} or float, default="median"
        The RBF width ``w``: a number, ``"median"`` (the median pairwise distance of all n
        points, :func:`sskernels.kernels.rbf.median_distance`) or ``"mean-norm"``; the
        width used is ``kernel_width_scale`` times it.
    kernel_width_scale : float, default=1.0
        Factor on ``kernel_width``.  Liu et al. (Sec. 5.1) set DSK's initial kernel "by
        cross validation"; our choice, the default selection of the ``dsk`` method
        (``_selection``): the scale from :data:`WIDTH_SCALES` by 5-fold cross-validation
        on the labeled points only (:class:`~sskernels.learners.selection.SelectOnLabeled`:
        a fold's labels are hidden, ``mu`` is learned from the other labeled points and
        the fold classified by eq. (5)); ties go to the scale nearest 1 in log scale,
        then the larger.
    metric : {"euclidean", "cosine"}, default="euclidean"
        ``"cosine"``: the RBF kernel on unit-normalized rows.
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel, as for :class:`OrderConstrainedSpectralKernel`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points in the training data.
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training points.
    width_ : float
        The RBF width ``w`` used.
    eigenvalues_ : ndarray of shape (n_kept,)
        The eigenvalues ``s_i`` of ``K0`` kept, largest first.
    eigenvectors_ : ndarray of shape (n_samples, n_kept)
        The eigenvectors ``u_i``.
    mu_ : ndarray of shape (n_kept,)
        The spectral coefficients maximizing the alignment.
    alignment_ : float
        Cristianini alignment ``<K_LL, T>_F / (||K_LL||_F ||T||_F)`` of the learned kernel.
    alignment_value_ : float
        The optimum of the program above (``<K_LL, T>_F`` with ``||K_LL||_F = 1``).
    degenerate_ : bool
        True when no feasible ``mu`` has a positive alignment.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel; ``kernel(A, B)`` evaluates its Nystrom extension between any
        point sets.
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
    OrderConstrainedSpectralKernel : The same program on the graph Laplacian's spectrum.
    KernelSVM : An SVM on the DSK kernel ("DSK+SVM").

    References
    ----------
    S. Hoi, M. Lyu and E. Chang. Learning the unified kernel machines for
    classification. In Proc. KDD, 2006.

    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: eq. (5), (8); Sec. 5.1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import FastDecaySpectralKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = FastDecaySpectralKernel().fit(X, y_partial)
    >>> bool(np.all(est.mu_[:-1] >= est.eta * est.mu_[1:] - 1e-12))
    True
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("width_", "mu_")

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "eta": [Interval(Real, 1, None, closed="left")],
        "kernel_width": [Interval(Real, 0, None, closed="neither"), StrOptions(set(WIDTH_RULES))],
        "kernel_width_scale": [Interval(Real, 0, None, closed="neither")],
        "metric": [StrOptions({"euclidean", "cosine"})],
        "target": [StrOptions(set(TARGETS))],
    }
    _selection = {"kernel_width_scale": (WIDTH_SCALES, "nearest-1", ("kernel_width",))}
    _unlearned = "mu_t = eta^-(t-1)"

    def __init__(
        self,
        n_components=10,
        eta=2.0,
        kernel_width="median",
        kernel_width_scale=1.0,
        metric="euclidean",
        target="simplex",
    ):
        self.n_components = n_components
        self.eta = eta
        self.kernel_width = kernel_width
        self.kernel_width_scale = kernel_width_scale
        self.metric = metric
        self.target = target

    def _constraints(self, s):
        m = s.size
        return decay_matrix(m, self.eta), float(self.eta) ** -np.arange(m, dtype=float)

    def _spectrum(self, X, key=None):
        """``(width, spectrum)``: the width in use and the memoized eigenpairs of ``K0``."""
        width = resolve_width(X, self.kernel_width, self.kernel_width_scale, self.metric)
        return width, rbf_spectrum(X, width, self.n_components, self.metric, key=key)

    #: parameters that change the label-independent work (see ``SelectOnLabeled.precompute``)
    _precompute_params = ("kernel_width", "kernel_width_scale")

    def precompute(self, X):
        """The label-independent part of ``fit`` (median distance, RBF spectrum), memoized.

        The parameters are validated first.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        RBFSpectrum
            The eigenpairs of the RBF kernel matrix at the width in use
            (:func:`~sskernels.kernels.spectra.rbf_spectrum`).
        """
        self._validate_params()
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        return self._spectrum(X)[1]

    def fit(self, X, y):
        """Learn ``mu`` on the RBF spectrum of ``X`` and score every training point.

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
        self.width_, spectrum = self._spectrum(X)
        s, U = spectrum.smallest(self.n_components)
        self.eigenvalues_, self.eigenvectors_ = s, U
        C_L = indicator(y_enc, self.classes_.size)
        self.mu_ = np.asarray(self._coefficients(s, U, labeled, C_L), dtype=float)
        self.C_L_ = C_L
        # eq. (5): F = K[:, L] C_L = U diag(mu) (U_L^T C_L)
        self.scores_ = U @ (self.mu_[:, None] * (U[labeled].T @ C_L))
        self.transduction_ = self.classes_[np.argmax(self.scores_, axis=1)]
        return self

    @property
    def _fold_params(self):
        """Every parameter: a fold fit is this estimator's own computation with the
        candidate set."""
        return frozenset(self.get_params(deep=True))

    def _fold_setup(self, X, labeled, y_enc, report):
        """Folds and candidates share the RBF spectra (one per width); a fold is one QP.

        The fold's targets keep every class's column (``c`` = the classes of all labeled
        points), as :meth:`fit` with all labels would: a class absent from a training
        fold gets a zero column.
        """
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        key, c = fingerprint(X), int(y_enc.max()) + 1

        def predict(params, train, test):
            est = clone(self).set_params(**params)
            est._validate_params()
            s, U = est._spectrum(X, key)[1].smallest(est.n_components)
            U_L = U[labeled]
            C_tr = indicator(y_enc[train], c)
            mu = est._solve_alignment(s, U_L[train], C_tr).mu
            return np.argmax((U_L[test] * mu) @ (U_L[train].T @ C_tr), axis=1)

        return predict

    # -- the learned kernel and its Nystrom extension --------------------------
    def spectral_embedding(self, X=None, exclude=None):
        """Rows ``u(x)`` of the training points (``X=None``) or their Nystrom extension.

        The extension is ``u_i(x) = (1/s_i) sum_j K0(x, x_j) u_ji`` (``exclude[r] = j`` drops
        ``x_j`` for row r).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (s, n_features), default=None
            New points; None: the training points.
        exclude : array-like of int of shape (s,), default=None
            Per new point, the index of a training point to leave out of the sum, or -1.

        Returns
        -------
        ndarray of shape (n_samples, m) or (s, m)
            ``eigenvectors_``, or the extended rows.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import FastDecaySpectralKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> est = FastDecaySpectralKernel().fit(X, y_partial)
        >>> est.spectral_embedding().shape, est.spectral_embedding(X[:2]).shape
        ((178, 10), (2, 10))
        >>> bool(np.allclose(est.spectral_embedding(X[:5]), est.spectral_embedding()[:5]))
        True
        """
        check_is_fitted(self, "mu_")
        if X is None:
            return self.eigenvectors_
        Kx = rbf_kernel(self._check_X(X), self.X_fit_, self.width_, self.metric)
        if exclude is not None:
            exclude = np.asarray(exclude)
            rows = np.flatnonzero(exclude >= 0)
            Kx[rows, exclude[rows]] = 0.0
        return (Kx @ self.eigenvectors_) / self.eigenvalues_

    @property
    def kernel_(self):
        return self.kernel()

    def kernel(self, A=None, B=None):
        """``K(a, b) = u(a) diag(mu) u(b)^T``; None means the training points.

        Parameters
        ----------
        A : array-like or sparse matrix of shape (n_a, n_features), default=None
            Points; None: the training points.
        B : array-like or sparse matrix of shape (n_b, n_features), default=None
            Points; None: the training points.

        Returns
        -------
        ndarray of shape (n_a, n_b)
            The kernel between the two point sets (:meth:`spectral_embedding`).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import FastDecaySpectralKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> est = FastDecaySpectralKernel().fit(X, y_partial)
        >>> est.kernel(X[:2], X[:3]).shape
        (2, 3)
        >>> bool(np.allclose(est.kernel(), est.kernel_))
        True
        """
        Ua = self.spectral_embedding(A)
        return (Ua * self.mu_) @ (Ua if B is A else self.spectral_embedding(B)).T

    def decision_function(self, X):
        """Scores of new points, eq. (5) on the extended kernel: ``F = K(x, L) C_L``.

        (s, c) for c > 2 classes; for two classes, scikit-learn's (s,) with positive =
        ``classes_[1]``: ``F[:, 1] - F[:, 0]``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            The scores of eq. (5) on the Nystrom-extended kernel.
        """
        check_is_fitted(self, "mu_")
        U_L = self.eigenvectors_[self.labeled_]
        F = self.spectral_embedding(X) @ (self.mu_[:, None] * (U_L.T @ self.C_L_))
        return F[:, 1] - F[:, 0] if self.classes_.size == 2 else F
