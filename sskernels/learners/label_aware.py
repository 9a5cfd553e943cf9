"""Label-aware base kernels (Wang, Zhang, Chen, Wang, Jiang & Marsic, Neurocomputing 2015).

Algorithm 1 of the paper, for the Gaussian kernel ``k(x, z) = exp(-b ||x - z||^2)``:

1.-2. label-aware vectors ``[u_1..u_c] = D_n^{-1} K_nl Y`` (the normalized form of eq. (5):
   the ideal kernel's eigenvectors, i.e. the labels, extrapolated by eq. (4) from the
   labeled points to every point), :func:`label_aware_vectors`;
3. the k dominant eigenvectors ``v_j`` of the kernel matrix over all n points (or the k
   smallest of its normalized Laplacian), by the Nystrom method
   (:func:`sskernels.kernels.spectra.nystrom_spectrum`) or exactly;
4.-5. ``K = sum_i alpha_i u_i u_i^T + sum_j beta_j v_j v_j^T`` (eq. (6); eq. (7) over several
   widths ``b``), the weights by *alignf* (Cortes et al. 2010,
   :func:`sskernels.solvers.cone.alignf`) on the labeled block;
6. a classifier on ``K``: this estimator's own rule is Liu et al.'s eq. (5)
   (``argmax_k sum_{y_j = k} K(x, x_j)``, what the width selection scores); the paper's
   SVM is ``KernelSVM(kernel_learner=LabelAwareKernel())`` (spec: ``kernel-svm`` with
   ``kernel: label-aware``), which uses ``kernel_`` and ``kernel(A, B)``.

Choices the paper leaves open, made here (repeated where implemented):

* ``b = b_scale * b0``, ``b0`` = 1 / the mean squared distance over pairs ``i != j``
  (Sec. 4.1); the ``label-aware`` method selects ``b_scale`` from
  ``{1/50, 1/25, 1/10, 1/5, 1, 5, 10}`` (Sec. 4.1 prints "50" for the first: a 1/50 is
  meant, the list is otherwise increasing) on the labeled points, ties to the scale
  nearest 1, then the larger;
* two classes: ``u_1 + u_2 = 1``, so after centering ``u_2 = -u_1`` and the two rank-one
  kernels coincide (alignf's ``G`` would be exactly singular).  One vector is kept,
  ``u = u_1 - u_2 = D_n^{-1} K_nl y`` with ``y`` in ``{-1, +1}`` (+1 = the second class),
  symmetric in the classes.  With ``c > 2`` classes the c vectors are kept (their
  centered versions span ``c - 1`` dimensions, but no two rank-one kernels coincide);
* centering: every base vector is centered by its mean over the labeled points, and
  the learned kernel is ``Phi diag(mu) Phi^T`` with those centered vectors, so its
  labeled block is exactly the centered block whose alignment alignf maximizes
  (an SVM with a bias is unchanged by this translation of the feature space);
* landmarks (Alg. 1 step 3 gives none): ``n_landmarks`` rows drawn uniformly without
  replacement, by a seeded hash of each row's content (``random_state``) — a uniform draw
  that does not depend on the order of the rows, so the fit is permutation invariant;
  ``eigen_solver="exact"`` uses the exact eigendecomposition instead;
* ``n_components`` and ``n_landmarks`` default to 10 % of n (Sec. 4.1: "the top 10%
  eigenvectors of the kernel matrix"; p in {0.01, ..., 0.2} n); a list of ``n_components``
  is a selection grid (Sec. 4.3.2: "p is chosen among 0.01n, 0.05n, 0.1n, 0.15n, 0.2n"),
  its spectra computed once per data set and width like the width's;
* the denominator of ``D_n^{-1} K_nl`` can underflow far from every labeled point:
  the row weights are computed as a softmax (equal to the definition wherever it is
  defined; its limit, the nearest labeled points, elsewhere);
* unobserved base vectors (not in the paper; ``min_labeled_mass``): alignf sees only the
  labeled block, so a base vector that is ~0 on the labeled points (narrow widths: eigenvectors
  localized away from them; share of squared norm on the labeled points 2e-4 of the total
  where a uniform vector has l / n = 0.08) needs a weight ~ 1 / its labeled share to count
  there, and gets it (weights 1e2-1e3 measured): on the unlabeled points that vector then
  dominates the kernel.  That was the "collapse" of the multi-width alignf (Table 3:
  unlabeled alignment 0.34 +- 0.45 on usps38, 0.03 on a split whose labeled-block alignment
  was optimal).  Their weights are not identifiable from the labels, so they are set to 0:
  vectors whose labeled share is below ``min_labeled_mass`` (0.05) times ``l / n``.  On
  usps38 (7 widths) that drops 1-14 of 840 vectors and lifts the unlabeled alignment from
  0.03 / 0.40 to 0.63 / 0.64 (baseline) and 0.26 to 0.86 (label-aware) with the same or
  lower error; thresholds 0.01-0.25 gave the same picture.
* local Rademacher complexity weighting (``weighting="local-rademacher"``; Cortes, Kloft &
  Mohri, NIPS 2013, Wang et al.'s ref. [12]; Sec. 4.3.2: theta in {0.1n, 0.5n, 0.8n, 0.9n,
  n}, C in {0.1, ..., 1e4}, the selection grid here).  Implemented: their *convex*
  algorithm, l1-norm MKL over the base kernels each divided by its tail sum
  ``sum_{j > theta} lambda_j`` (:mod:`sskernels.solvers.rademacher`), the MKL's SVM with
  ``mkl_C`` on the labeled points (one-vs-rest with shared weights for c > 2 classes).  The
  tail sum of a rank-one base kernel ``v v^T`` is 0 for every theta >= 1, so read literally
  the constraint is void (and the rescaled kernels infinite).  The reading chosen: the
  rank-one kernel ``phi_m phi_m^T`` of width b is scaled by
  ``s_m = (||phi_m||^2 / n) * rho_b(theta)``, its mean diagonal over the n points (the
  trace of Cortes et al.'s normalized kernel matrix ``K / n``) times the *relative* tail
  sum ``rho_b = sum_{j > theta} lambda_j(E_b) / tr(E_b)`` of the n x n empirical matrix
  ``E_b`` it comes from (the Gaussian matrix of width b, or its ``D^-1/2 K D^-1/2`` with
  ``basis="normalized-laplacian"``; the label-aware vectors ``D^-1 K_nl Y`` are rows of the
  same Gaussian matrix, so they share its ``rho_b``; exact eigenvalues of E_b, memoized,
  whatever ``eigen_solver``): each component inherits the tail profile of its source
  kernel, so for a single full empirical kernel the rescaling is exactly Cortes et al.'s
  ``E_b / (sum_{j > theta} lambda_j(E_b / n))``.  Why: theta is relative to n in the
  paper's grid, which only a spectrum of n eigenvalues can give a meaning; it reduces to
  Cortes et al.'s own special case, trace-normalized l1-MKL, at theta = 0; and it is
  non-degenerate for rank-one kernels.  Its consequence, stated plainly: with ONE width
  (Table 2) all base kernels share one ``rho_b``, so theta only rescales the MKL's C
  (``C / rho_b(theta)``; same weights, tested); theta reweights the widths against each
  other only with several widths (``b_scales``, Table 3).  Readings rejected: (1) the
  literal per-kernel tail sum (0 for theta >= 1: void); (2) the DC algorithm on the tail
  sum of the *combined* kernel ``sum_m mu_m phi_m phi_m^T``: its rank is at most the number
  of base kernels (k + c ~ 0.1n + c per width), so its tail beyond theta = 0.5n, 0.8n, 0.9n,
  n is 0 and the constraint void at four of the paper's five theta (and non-convex); (3)
  tail sums of the l x l labeled block of E_b with theta relative to l: the paper's theta
  is a fraction of n, and the l x l block's spectrum ignores the unlabeled points that
  define the eigenvectors.  theta = n leaves an empty tail for any n x n matrix: it is
  read as n - 1 (the smallest eigenvalue), with a ``degenerate`` note, and a relative tail
  below ``1e-12`` is floored there (noted too).

The eigenvectors' and the embedding kernel's mixins, which the Table 1 designs
(``kernel_designs.py``) and the regression variant subclass too, are in
:mod:`sskernels.learners.embedding`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from sskernels.errors import ParameterError
from sskernels.hashing import fingerprint
from sskernels.kernels.alignment import (
    TARGETS,
    alignment_terms,
    centered_alignment,
    ideal_kernel,
)
from sskernels.kernels.rbf import mean_squared_distance, squared_distances
from sskernels.learners.base import SemiSupervisedClassifier, indicator
from sskernels.learners.embedding import (  # noqa: F401 - the shared pieces, re-exported
    EIGENBASIS_CONSTRAINTS,
    EmbeddingKernel,
    RBFEigenbasis,
    _count,
    empirical_spectrum,
    gaussian_width,
    label_aware_vectors,
    landmark_indices,
    weighted_factors,
)
from sskernels.learners.grids import B_SCALES  # Wang et al.'s width factors (Sec. 4.1)
from sskernels.memo import LRU, content_key
from sskernels.solvers.cone import alignf
from sskernels.solvers.rademacher import lrc_mkl, relative_tail, tail_count

__all__ = ["LabelAwareKernel", "B_SCALES", "THETAS", "MKL_CS"]

#: local Rademacher complexity (Sec. 4.3.2): theta in these x n, and the MKL's C
THETAS = (0.1, 0.5, 0.8, 0.9, 1.0)
MKL_CS = (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)
#: relative tail sums below this are floored (noted)
TAIL_FLOOR = 1e-12


@dataclass(frozen=True)
class _BaseVectors:
    """A fit's base vectors (:meth:`LabelAwareKernel._base_vectors`): ``Y_L`` the label
    columns (two classes: one), ``extensions`` and ``counts`` the eigenvectors' Nystrom
    extensions and numbers per width, ``widths`` the columns per width, ``center`` the
    labeled mean of the uncentered vectors ``raw`` (n, m), ``Phi = raw - center``, ``mean_sq``
    ``Phi``'s column means of squares, ``mass`` each raw vector's share of its squared norm
    on the labeled points (alignf's observed-vector rule).  ``raw`` itself is not kept: an
    entry holds one n x m array."""

    Y_L: np.ndarray
    extensions: list
    counts: list
    widths: list
    center: np.ndarray
    Phi: np.ndarray
    mean_sq: np.ndarray
    mass: np.ndarray

    @property
    def nbytes(self):
        """The memory of the entry's arrays (its extensions are the spectra cache's)."""
        return sum(a.nbytes for a in (self.Y_L, self.center, self.Phi, self.mean_sq, self.mass))


#: memo of base vectors by content (data, labeled points, classes, widths, basis parameters):
#: a selection grid's candidates over the weighting's parameters share one entry; sized for
#: a C selection's folds plus the full labeled set, and at most 256 MB (each entry holds an
#: n x m array: 23 MB for Table 3's seven widths on odd/even)
_BASES = LRU(8, max_bytes=256 * 2**20)
#: memo of the squared distances of the points to the labeled points (by data, labeled points
#: and metric): the widths of a selection grid share them; at most 256 MB
_DISTANCES = LRU(8, max_bytes=256 * 2**20)
#: memo of the relative tail sums per (data, widths, theta count, metric, basis): label-
#: independent, asked for every grid theta by every local Rademacher fit; at most 64 MiB
_TAILS = LRU(256, max_bytes=64 * 2**20)
#: memo of alignf's solutions by the content of its problem (``G`` and ``a``, through the
#: observed labeled rows of the base vectors, the labels' indicator and the target): the
#: refit of an oracle's chosen candidate finds its grid fit's solve here; at most 64 MiB
_ALIGNF = LRU(16, max_bytes=64 * 2**20)


class LabelAwareKernel(EmbeddingKernel, RBFEigenbasis, SemiSupervisedClassifier):
    """Label-aware base kernels combined by alignf (Wang et al. 2015, Algorithm 1).

    For the Gaussian kernel ``k(x, z) = exp(-b ||x - z||^2)``: the label-aware vectors
    ``D_n^{-1} K_nl Y`` (the labels extrapolated from the labeled points to every point)
    and the k dominant eigenvectors of the kernel matrix over all n points (Nystrom or
    exact) are the base vectors; ``K = sum_i alpha_i u_i u_i^T + sum_j beta_j v_j v_j^T``
    (eq. (6); eq. (7) over several widths ``b``), the weights by *alignf* (Cortes et al.
    2010) on the labeled block, or by local Rademacher complexity (``weighting``).  Every
    base vector is centered by its mean over the labeled points (module docstring).  The
    estimator's own rule is Liu et al.'s eq. (5), ``argmax_k sum_{y_j = k} K(x, x_j)``;
    the paper's SVM is ``KernelSVM(kernel_learner=LabelAwareKernel())``.  New points:
    ``u(z)`` from ``k(z, X_L)``, ``v(z)`` by the Nystrom formula (eq. (4)).

    Parameters
    ----------
    b_scale : float, default=1.0
        ``b = b_scale * b0`` (``b0`` = 1 / mean squared pairwise distance), eq. (6).
    b_scales : array-like of float or None, default=None
        None, or several factors: the bases of every width are pooled, eq. (7)
        (the paper's text swaps the names u and v there; ``b_scale`` is then ignored).
    n_components : int or float, default=0.1
        k, the unsupervised eigenvectors per width: an int, or a fraction of n.
    n_landmarks : int or float, default=0.1
        Nystrom landmarks: an int, or a fraction of n; at most this many eigenvectors come
        out of the Nystrom method.
    eigen_solver : {"nystrom", "exact"}, default="nystrom"
        ``"nystrom"`` (Alg. 1 step 3) or ``"exact"`` (the top eigenpairs of the n x n
        matrix: the Nystrom method with every row a landmark).
    basis : {"kernel", "normalized-laplacian"}, default="kernel"
        ``"kernel"``: the dominant eigenvectors of the kernel matrix (Sec. 4.1);
        ``"normalized-laplacian"``: the smallest of ``I - D^{-1/2} K D^{-1/2}``, i.e. the
        largest of ``S = D^{-1/2} K D^{-1/2}`` (Sec. 4.3.2; with Nystrom the degrees are
        estimated from the landmarks, ``d(x) = (n/m) sum_{landmarks j} k(x, x_j)``, which
        extends to any point).
    label_aware : bool, default=True
        True adds the label-aware vectors; False leaves only the eigenvectors (the
        "baseline" columns of Wang et al.'s Tables 2 and 3).
    weighting : {"alignf", "local-rademacher"}, default="alignf"
        ``"alignf"`` (Cortes et al. 2010) or ``"local-rademacher"`` (Cortes, Kloft &
        Mohri 2013's convex algorithm, the reading in the module docstring).
    theta : int or float, default=0.1
        Local Rademacher: the tail's start, an int (count) or a fraction of n in [0, 1]
        (Sec. 4.3.2's grid {0.1, 0.5, 0.8, 0.9, 1} n is the selection grid).
    mkl_C : float, default=1.0
        Local Rademacher: C of the MKL's SVM on the labeled points (Sec. 4.3.2's grid
        {0.1, 1, ..., 1e4} is the selection grid).  Not the C of an SVM trained on the
        learned kernel (``KernelSVM``'s own).
    min_labeled_mass : float, default=0.05
        Base vectors whose share of squared norm on the labeled points is below this
        fraction of the share a uniform vector has (``l / n``) get weight 0 (0 keeps every
        vector).  Not in the paper: see "unobserved base vectors" in the module docstring.
    target : {"simplex", "pm1"}, default="simplex"
        The ideal kernel of the labels (:mod:`sskernels.kernels.alignment`; ``yy^T`` for
        two classes).
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
    b_ : list of float
        The widths b.
    basis_ : ndarray of shape (n_samples, n_base)
        The centered base vectors (per width: the label-aware vectors, then the
        eigenvectors).
    center_ : ndarray of shape (n_base,)
        The labeled means the base vectors are centered by.
    mu_ : ndarray of shape (n_base,)
        The weights: alignf's (``mu^T G mu = 1``, 0 on the unobserved vectors), or local
        Rademacher's (``sum_m mu_m s_m = 1`` with ``s_m`` = ``tail_scales_``).
    observed_ : ndarray of bool of shape (n_base,)
        The vectors alignf weighed.
    n_label_aware_ : int
        The number of label-aware vectors per width (one for two classes, c otherwise;
        0 with ``label_aware=False``).
    alignment_ : float
        Centered alignment of ``kernel_[L, L]`` with the ideal kernel, in [0, 1].
    degenerate_ : bool
        True when no base kernel has a positive alignment (uniform weights used, noted).
    theta_ : int
        Local Rademacher: the tail count used.
    tail_ratios_ : ndarray of shape (n_widths,)
        Local Rademacher: the relative tail sums ``rho_b(theta)`` per width.
    tail_scales_ : ndarray of shape (n_base,)
        Local Rademacher: the scales ``s_m`` of the rank-one base kernels.
    mkl_objective_ : float
        Local Rademacher: the MKL's objective.
    mkl_stats_ : dict
        Local Rademacher: the MKL solver's statistics.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``Phi diag(mu) Phi^T`` on the training points;
        ``kernel(A, B)`` evaluates it between any point sets.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of Liu et al. eq. (5) of every training point.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point: the class of its largest score.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training points.
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
    KernelSVM : The paper's SVM on the learned kernel.
    LabelAwareSVR : The same kernel learned from continuous targets, with an SVR.
    MaxAlignmentKernel : Alignment over unsupervised eigenvectors only.

    References
    ----------
    Q. Wang, K. Zhang, Z. Chen, D. Wang, G. Jiang and I. Marsic. Enhancing
    semi-supervised learning through label-aware base kernels. Neurocomputing, 2015:
    Algorithm 1, eq. (4)-(7), Sec. 4.1, 4.3.2.

    C. Cortes, M. Mohri and A. Rostamizadeh. Two-stage learning kernel algorithms. In
    Proc. ICML, 2010 (alignf).

    C. Cortes, M. Kloft and M. Mohri. Learning kernels using local Rademacher complexity.
    In NIPS, 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import LabelAwareKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = LabelAwareKernel(random_state=0).fit(X, y_partial)
    >>> est.n_label_aware_                         # one label-aware vector per class
    3
    >>> est.kernel_.shape
    (178, 178)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("mu_",)

    _parameter_constraints = {
        **EIGENBASIS_CONSTRAINTS,
        "b_scales": [None, "array-like"],
        "weighting": [StrOptions({"alignf", "local-rademacher"})],
        "theta": [Interval(Integral, 0, None, closed="left"), Interval(Real, 0, 1, closed="both")],
        "mkl_C": [Interval(Real, 0, None, closed="neither")],
        "min_labeled_mass": [Interval(Real, 0, 1, closed="both")],
        "target": [StrOptions(set(TARGETS))],
    }
    #: ``(grid, preference[, unless[, only]])`` (:func:`~sskernels.learners.selection.default_grid`):
    #: theta and mkl_C are selected only with ``weighting="local-rademacher"``
    _selection = {
        "b_scale": (B_SCALES, "nearest-1", ("b_scales",)),
        "theta": (THETAS, "smallest", (), {"weighting": "local-rademacher"}),
        "mkl_C": (MKL_CS, "smallest", (), {"weighting": "local-rademacher"}),
        # selectable when a spec lists it (Sec. 4.3.2's p grid); unset: the default
        # 0.1 alone, i.e. fixed, as before
        "n_components": ((0.1,), "smallest"),
    }
    #: parameters that change the label-independent work (see ``SelectOnLabeled.precompute``)
    _precompute_params = ("b_scale", "b_scales", "n_components")

    def __init__(
        self,
        b_scale=1.0,
        b_scales=None,
        n_components=0.1,
        n_landmarks=0.1,
        eigen_solver="nystrom",
        basis="kernel",
        label_aware=True,
        weighting="alignf",
        theta=0.1,
        mkl_C=1.0,
        min_labeled_mass=0.05,
        target="simplex",
        metric="euclidean",
        random_state=None,
    ):
        self.b_scale = b_scale
        self.b_scales = b_scales
        self.n_components = n_components
        self.n_landmarks = n_landmarks
        self.eigen_solver = eigen_solver
        self.basis = basis
        self.label_aware = label_aware
        self.weighting = weighting
        self.theta = theta
        self.mkl_C = mkl_C
        self.min_labeled_mass = min_labeled_mass
        self.target = target
        self.metric = metric
        self.random_state = random_state

    # -- label-independent part -------------------------------------------------
    def _widths(self, X):
        scales = (
            (self.b_scale,)
            if self.b_scales is None
            else tuple(float(s) for s in np.ravel(self.b_scales))
        )
        if not scales or not all(s > 0 for s in scales):
            raise ParameterError(f"b_scales must be positive numbers, got {self.b_scales!r}")
        msd = mean_squared_distance(X, self.metric)
        return [s / msd if msd > 0 else s for s in scales], msd

    def precompute(self, X):
        """The label-independent part (eigenvectors per width), memoized.

        The parameters are validated first; with ``weighting="local-rademacher"`` the empirical
        spectra (:func:`empirical_spectrum`) are computed too.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        list of ndarray
            The unsupervised eigenvectors (n_samples, k) of each width.
        """
        self._validate_params()
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        key = fingerprint(X)
        widths = self._widths(X)[0]
        if self.weighting == "local-rademacher":
            for b in widths:
                empirical_spectrum(X, b, self.metric, self.basis, key)
        return [self._eigenvectors(X, b, key)[1] for b in widths]

    # -- fit ----------------------------------------------------------------------
    def fit(self, X, y):
        """Build the base vectors of ``X``, weigh them, and score every training point.

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
        c = self.classes_.size
        self.X_fit_, self.X_L_ = X, X[labeled]
        self.b_, msd = self._widths(X)
        if not msd > 0:
            self.fit_report_.note("degenerate", "all points coincide: b0 = 1 used")
        C_L = indicator(y_enc, c)
        key = fingerprint(X)
        base = self._base_vectors(X, key, labeled, y_enc, C_L)
        self.Y_L_, self.extensions_, self.center_ = base.Y_L, base.extensions, base.center
        self.n_label_aware_ = self.Y_L_.shape[1] if self.label_aware else 0
        k_asked = _count(self.n_components, X.shape[0])
        for b, k in zip(self.b_, base.counts):
            if k < k_asked:
                self.fit_report_.note(
                    "degenerate",
                    f"b = {b:.4g}: {k} of {k_asked} eigenvectors (the others have eigenvalue ~0)",
                )
        Phi, blocks = base.Phi, base.widths
        if self.weighting == "local-rademacher":
            # the width each base vector comes from (blocks: per width, label-aware then V)
            width_of = np.repeat(np.arange(len(self.b_)), blocks)
            self.observed_ = np.ones(Phi.shape[1], dtype=bool)
            self.mu_ = self._local_rademacher(
                X, key, Phi, base.mean_sq, width_of, labeled, y_enc, c
            )
        else:
            self._alignf_weights(base.mass, Phi, labeled, C_L)
        self.basis_ = Phi
        T = ideal_kernel(y_enc, c, self.target)
        K_LL = (Phi[labeled] * self.mu_) @ Phi[labeled].T
        self.alignment_ = centered_alignment(K_LL, T)
        self.scores_ = self._scores(Phi)
        self.transduction_ = self.classes_[np.argmax(self.scores_, axis=1)]
        self._note_degenerate_prediction(self.transduction_)
        return self

    def _base_vectors(self, X, key, labeled, y_enc, C_L):
        """The base vectors of a fit (Alg. 1 steps 2-3: per width the label-aware vectors,
        then the eigenvectors), centered on the labeled points: a :class:`_BaseVectors`.
        They depend on the data, the labeled points and their classes, the widths and the
        basis parameters -- not on the weighting's (``weighting``, ``theta``, ``mkl_C``,
        ``min_labeled_mass``, ``target``) -- so the candidates of a selection grid over
        ``theta`` and ``mkl_C`` (30 per labeled set in Table 3's local Rademacher columns)
        share them (memoized by content: :data:`_BASES`; the arrays are read-only).  A
        ``random_state`` that is None or a generator draws a landmark seed per fit: not
        memoized (unless no landmark is drawn: the exact eigenvectors)."""
        drawn = self.eigen_solver != "exact" and _count(self.n_landmarks, X.shape[0]) < X.shape[0]
        memo = isinstance(self.random_state, Integral) or not drawn
        if memo:
            ck = (
                key,
                content_key(labeled, y_enc, np.asarray(self.b_, dtype=float)),
                repr(
                    (
                        self.n_components,
                        self.n_landmarks,
                        self.eigen_solver,
                        self.basis,
                        bool(self.label_aware),
                        self.metric,
                        self.random_state,
                    )
                ),
            )
            hit = _BASES.lookup(ck)
            if hit is not None:
                return hit
        c = C_L.shape[1]
        # two classes: one vector u_1 - u_2 (u_1 + u_2 = 1; module docstring)
        Y_L = C_L[:, [1]] - C_L[:, [0]] if c == 2 else C_L
        n_la = Y_L.shape[1] if self.label_aware else 0
        dk = (key, content_key(labeled), self.metric)
        D2 = _DISTANCES.lookup(dk)
        if D2 is None:  # the widths of a selection grid share them
            D2 = _DISTANCES.store(dk, squared_distances(X, X[labeled], self.metric))
        blocks, extensions, counts = [], [], []
        for b in self.b_:
            ext, V = self._eigenvectors(X, b, key)
            extensions.append(ext)
            counts.append(V.shape[1])
            blocks += [label_aware_vectors(D2, Y_L, b)[:, :n_la], V]
        raw = np.hstack(blocks)
        center = raw[labeled].mean(axis=0)
        Phi = raw - center
        mass = np.sum(raw[labeled] ** 2, axis=0) / np.maximum(
            np.sum(raw**2, axis=0), np.finfo(float).tiny
        )
        out = _BaseVectors(
            Y_L,
            extensions,
            counts,
            [n_la + k for k in counts],
            center,
            Phi,
            (Phi**2).mean(axis=0),
            mass,
        )
        for a in (Y_L, center, Phi, out.mean_sq, mass):
            a.setflags(write=False)
        return _BASES.store(ck, out) if memo else out

    def _local_rademacher(self, X, key, Phi, mean_sq, width_of, labeled, y_enc, c):
        """Weights by Cortes et al.'s convex algorithm on the tail-sum rescaled rank-one
        kernels (module docstring: ``s_m = mean(phi_m^2) rho_b(theta)``)."""
        n = X.shape[0]
        count = tail_count(self.theta, n)
        if count >= n:
            count = n - 1
            self.fit_report_.note(
                "degenerate",
                f"local rademacher: theta = n leaves an empty "
                f"tail; theta = n - 1 = {count} used (the smallest eigenvalue)",
            )
        self.theta_ = count
        rho = self._tail_ratios(X, key, count, floor=False)
        if np.any(rho < TAIL_FLOOR):
            self.fit_report_.note(
                "degenerate",
                f"local rademacher: relative tail sum below "
                f"{TAIL_FLOOR:g} at theta = {count} floored there",
            )
            rho = np.maximum(rho, TAIL_FLOOR)
        self.tail_ratios_ = rho
        s = mean_sq * rho[width_of]
        self.tail_scales_ = s
        used = s > 0  # a base vector that is 0 after centering: weight 0
        Y = (2.0 * y_enc - 1.0)[None] if c == 2 else 2.0 * indicator(y_enc, c).T - 1.0
        # The MKL with scales s and C equals the one with scales s / r and C / r (the same d):
        # with r = max rho, every (theta, mkl_C) of the selection grid whose s / r is the same
        # (with one width: all of them) is one LP path in C (solvers.rademacher.lrc_mkl)
        r = rho.max()
        canonical = mean_sq * (rho / r)[width_of]
        if Y.shape[0] == 1:
            path = [
                C / r_t
                for r_t in self._grid_tail_maxima(X, key, canonical, mean_sq, width_of)
                for C in MKL_CS
            ]
        else:
            # several classes: the alternation's hard-margin walk goes through the path's
            # values below C, so the path is this theta's own C ladder only (the other
            # thetas' values would be solved for nothing when no hard margin is reached)
            path = [C / r for C in MKL_CS]
        res = lrc_mkl(Phi[np.ix_(labeled, used)], canonical[used], Y, self.mkl_C / r, C_path=path)
        self.fit_report_.add(res.info, "local rademacher")
        self.degenerate_ = res.degenerate
        if res.degenerate:
            self.fit_report_.note(
                "degenerate",
                "local rademacher: the MKL optimum has no "
                "kernel weight (w = 0); uniform weights used",
            )
        mu = np.zeros(s.size)
        mu[used] = res.d / s[used]
        self.mkl_objective_ = res.objective * r
        self.mkl_stats_ = res.info.stats
        return mu

    @staticmethod
    def _tail_count(theta, n):
        """theta as a count, theta = n read as n - 1 (as in ``fit``)."""
        return min(tail_count(theta, n), n - 1)

    def _tail_ratios(self, X, key, count, floor=True):
        """``rho_b(theta)`` per width (floored at :data:`TAIL_FLOOR` with ``floor``)."""
        ck = (key, tuple(self.b_), count, self.metric, self.basis)
        rho = _TAILS.lookup(ck)
        if rho is None:
            rho = _TAILS.store(
                ck,
                np.array(
                    [
                        relative_tail(empirical_spectrum(X, b, self.metric, self.basis, key), count)
                        for b in self.b_
                    ]
                ),
            )
        return np.maximum(rho, TAIL_FLOOR) if floor else rho.copy()

    def _grid_tail_maxima(self, X, key, canonical, mean_sq, width_of):
        """``max_b rho_b(theta')`` of the grid's thetas (:data:`THETAS`) whose canonical
        scales equal ``canonical`` (these candidates share the LP)."""
        out = []
        for theta in THETAS:
            rho = self._tail_ratios(X, key, self._tail_count(theta, X.shape[0]))
            if np.array_equal(mean_sq * (rho / rho.max())[width_of], canonical):
                out.append(rho.max())
        return out

    def _alignf_weights(self, mass, Phi, labeled, C_L):
        """alignf's weights ``mu_`` over the observed base vectors (module docstring:
        "unobserved base vectors"); sets ``observed_``, ``degenerate_`` and the report."""
        n = Phi.shape[0]
        self.observed_ = mass >= self.min_labeled_mass * labeled.size / n
        if not self.observed_.any():
            self.observed_[:] = True
            self.fit_report_.note(
                "degenerate",
                "every base vector is ~0 on the labeled points (min_labeled_mass): all kept",
            )
        PL = Phi[labeled][:, self.observed_]
        key = content_key(PL, C_L, np.array(TARGETS.index(self.target)))
        hit = _ALIGNF.lookup(key)
        if hit is None:
            sol, tie = alignf(*alignment_terms(PL, C_L, self.target))
            sol.split = None  # the tie rule's input: not kept
            hit = _ALIGNF.store(key, (sol, tie))
        sol, tie = hit
        if sol.info is not None:
            self.fit_report_.add(
                replace(
                    sol.info,
                    stats={**sol.info.stats, "unobserved": int(np.count_nonzero(~self.observed_))},
                ),
                "alignf",
            )
        if tie is not None:
            self.fit_report_.add(tie, "alignf tie rule")
        self.degenerate_ = sol.degenerate
        if sol.degenerate:
            self.fit_report_.note(
                "degenerate",
                "alignf: no base kernel has a positive centered "
                "alignment with the ideal kernel; uniform weights used",
            )
        self.mu_ = np.zeros(Phi.shape[1])
        self.mu_[self.observed_] = sol.mu

    # -- induction ------------------------------------------------------------------
    def embedding(self, X=None):
        """Centered base vectors at the training points (None) or at new points.

        At new points ``z``: ``u(z)`` from ``k(z, X_L)`` (Alg. 1 step 2 at z), ``v(z)`` by the
        Nystrom formula (eq. (4)).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            New points; None: the training points.

        Returns
        -------
        ndarray of shape (n_samples, n_base) or (n_queries, n_base)
            ``basis_``, or the base vectors at the new points minus ``center_``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import LabelAwareKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> est = LabelAwareKernel(random_state=0).fit(X, y_partial)
        >>> est.embedding().shape, est.embedding(X[:2]).shape
        ((178, 21), (2, 21))
        >>> # exact at the training points
        >>> bool(np.allclose(est.embedding(X[:5]), est.embedding()[:5]))
        True
        """
        check_is_fitted(self, "mu_")
        if X is None:
            return self.basis_
        X = self._check_X(X)
        D2 = squared_distances(X, self.X_L_, self.metric)
        blocks = []
        for b, spec in zip(self.b_, self.extensions_):
            blocks += [
                label_aware_vectors(D2, self.Y_L_, b)[:, : self.n_label_aware_],
                spec.extend(X),
            ]
        return np.hstack(blocks) - self.center_

    def _scores(self, P):
        """Liu et al. eq. (5) on the learned kernel: ``F = K(x, L) C_L``."""
        PL = self.basis_[self.labeled_]
        Y = self.Y_L_
        C_L = np.column_stack([-Y[:, 0], Y[:, 0]]).clip(0) if Y.shape[1] == 1 else Y
        return P @ (self.mu_[:, None] * (PL.T @ C_L))
