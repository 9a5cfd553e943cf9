"""Parameter-free spectral kernel learning for RLS: SKL and SKL_KTA (Mao & Tsang).

Q. Mao and I. W. Tsang, *Parameter-Free Spectral Kernel Learning* (UAI 2010).
The kernel is a spectral kernel ``K = U Sigma U^T`` over the eigenvectors ``U``
of the (iterated) normalized graph Laplacian ``L^p`` (``L = I - D^{-1/2} W D^{-1/2}``,
eigenvalues ``gamma_i`` of ``L``, hence ``gamma_i^p`` of ``L^p``), and its
spectrum ``Sigma = diag(lambda)`` solves the upper bound (7) of the RLS kernel
learning problem (6)::

    min_{lambda >= 0}  1/2 y^T (U Sigma U^T + I/C)^{-1} y + mu tr(U Sigma U^T L^p)
                     = 1/2 sum_i A_ii / (lambda_i + 1/C) + mu sum_i lambda_i B_ii + const

with ``y = [y_l; 0]``, ``A = U_l^T y_l y_l^T U_l`` and ``B = Upsilon + eps I``
(Prop. 2's proof; Algorithms 1-2, step "B_ii <- B_ii + eps").

* :class:`SpectralKernelLearning` (SKL, Algorithm 2) — given ``C`` and ``mu``,
  ``lambda_i* = [sqrt(A_ii / (2 mu B_ii)) - 1/C]_+`` (eq. (8), Prop. 2) and the
  RLS decision function ``f = K_{:,l} (K_ll + I/C)^{-1} y_l``.
* :class:`SpectralKernelLearningKTA` (SKL_KTA, Algorithm 1) — ``mu`` maximizes
  the kernel-target alignment (Prop. 3, eq. (10)); substituted into eq. (8) it
  gives ``K + I/C = K̄ / C`` with ``K̄ = U diag(lambda̅) U^T``,
  ``lambda̅_i = |(ẑû - n x̄)/(ȳû - ẑx̄)| sqrt(A_ii / (2 B_ii))``, and the decision
  function ``f(x_u) = (K̄ - I)_{u,l} K̄_ll^{-1} y_l`` free of ``C`` and ``mu``
  (Prop. 4).

Reading of eq. (8).  The printed formula puts ``1/C`` under the square root;
the stationarity condition of ``F(Lambda)`` in the proof,
``A_ii / (2 (lambda_i + 1/C)^2) = mu B_ii``, gives ``lambda_i = sqrt(A_ii /
(2 mu B_ii)) - 1/C``, which is also what the proofs of Prop. 3 (the derivative
of ``g(mu)``) and Prop. 4 use.  We implement the latter.

Choices the paper leaves open (all parameters of the estimators):

* ``epsilon`` (Sec. 4.4, "a small ridge"): default ``1e-6``, added to the
  eigenvalues ``gamma_i^p`` of ``L^p`` (it keeps the zero eigenvalue of every
  connected component finite in eq. (8) and ``K̄_ll`` invertible).
* ``n_components`` (m): default ``None`` = all n eigenpairs, as Algorithms 1-2
  (``[U, Upsilon] = eig(L)``).  An integer m keeps the m smallest; ``n`` in
  eq. (10) and Prop. 4 (the number of spectral terms) is then m.  Prop. 4's
  independence of ``C`` and ``mu`` holds exactly only for the full spectrum.
* ``laplacian_degree`` (p): default 1 (the ``L`` of eqs. (5)-(8)); the paper's
  experiments use p = 2 or 5 (Table 1).
* Multi-class (end of Sec. 4.4): "replacing y_i with a vector Y_i with only one
  1 at the position indicating label y_i and 0 for the rest".  ``targets="auto"``
  (default) uses ``y_l in {-1, +1}`` (one column) for two classes — the binary
  RLS of eqs. (1)-(3) — and that 0/1 class-indicator matrix ``Y_l`` (one column
  per class) for three or more; ``A = U_l^T Y_l Y_l^T U_l`` (one kernel shared by
  all classes) and the label is the argmax of the c decision functions.
  ``"indicator"`` forces the indicator, ``"signed"`` one-vs-rest ``{-1, +1}``
  columns (a single column for two classes).
* Transduction: scores are the decision function on every training point,
  the labeled ones included (for those, the RLS fit of the given label).
  The paper is transductive; ``predict`` on new points is not offered.
* The graph (Sec. 5.2): Gaussian weights ``exp(-||x_i - x_j||^2 / (2 sigma_g^2))``
  with ``sigma_g^2`` the mean squared edge length = ``KNNGraph(weights="heat",
  sigma=None)``; k per data set in their Table 1, default 10 (``_default_graph``).
* SKL's C and mu: Sec. 5.4 tunes them by cross-validation; the ``skl`` method selects
  them (``_selection``) on the paper's grids by 5-fold cross-validation on the
  labeled points only, ties to the largest C, then the smallest mu — the pairs that
  clip no ``lambda`` and so agree with SKL_KTA (Prop. 4).  Used directly, C = mu = 1.

Linear systems (``K_ll + I/C``, ``K̄_ll``) are solved by Cholesky, with the
least-squares fallback of :mod:`sskernels.solvers.psd`, reported in ``fit_report_``;
a kernel whose ``lambda`` are all 0 is reported as degenerate.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array

from sskernels.errors import ParameterError
from sskernels.learners.base import indicator
from sskernels.learners.graph_base import (
    GraphClassifier,
    graph_components,
    settle_scores,
    unreached,
)
from sskernels.solvers.psd import solve_psd

TARGETS = ("auto", "indicator", "signed")
#: Sec. 5.3/5.4 grids for C and mu (used when SKL selects them on the labeled points)
C_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)
MU_GRID = (1e-6, 1e-4, 1e-2, 1e-1, 1.0, 10.0, 100.0)


# ---------------------------------------------------------------------------- the equations


def label_targets(C_L, targets="auto"):
    """The label matrix ``Y_l`` (n_l, c') from the class indicator ``C_L`` (n_l, c).

    ``"auto"``: ``{-1, +1}`` single column (``+1`` = the second class) when c = 2,
    the indicator otherwise (Mao & Tsang, end of Sec. 4.4).

    Parameters
    ----------
    C_L : ndarray of shape (n_l, c)
        The class indicator matrix of the labeled points.
    targets : {"auto", "indicator", "signed"}, default="auto"
        ``"indicator"``: ``C_L`` itself; ``"signed"``: ``2 C_L - 1`` (one ``{-1, +1}``
        column for two classes); ``"auto"``: as above.

    Returns
    -------
    Y_l : ndarray of shape (n_l, c')
        The label matrix (c' = 1 for the single column, else c).

    Raises
    ------
    ValueError
        For an unknown ``targets`` (:class:`~sskernels.errors.ParameterError`, a
        ``ValueError``).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.skl import label_targets
    >>> label_targets(np.array([[1.0, 0.0], [0.0, 1.0]]))
    array([[-1.],
           [ 1.]])
    """
    c = C_L.shape[1]
    if targets not in TARGETS:
        raise ParameterError(f"targets must be one of {TARGETS}, got {targets!r}")
    if targets == "indicator" or c == 1 or (targets == "auto" and c > 2):
        return np.asarray(C_L, dtype=float)
    if c == 2:
        return (2.0 * C_L[:, 1] - 1.0)[:, None]
    return 2.0 * np.asarray(C_L, dtype=float) - 1.0


def scores_from_targets(F, n_classes):
    """Per-class scores (n, c) from decision values in the layout of :func:`label_targets`.

    Parameters
    ----------
    F : ndarray of shape (n, c')
        Decision values, one column per column of ``Y_l``.
    n_classes : int
        The number of classes c.

    Returns
    -------
    ndarray of shape (n, c)
        ``[-F, F]`` for a single column of two classes, else ``F``.
    """
    if F.shape[1] == 1 and n_classes == 2:
        return np.hstack([-F, F])
    return F


def spectral_A(U_l, Y_l):
    """``diag(A)``, ``A = U_l^T Y_l Y_l^T U_l`` (Prop. 2): ``A_ii = ||u_i,l^T Y_l||^2``.

    Parameters
    ----------
    U_l : ndarray of shape (n_l, m)
        The eigenvectors' labeled rows.
    Y_l : ndarray of shape (n_l, c')
        The label matrix (:func:`label_targets`).

    Returns
    -------
    ndarray of shape (m,)
        The diagonal of ``A``.
    """
    P = U_l.T @ Y_l
    return np.einsum("ij,ij->i", P, P)


def spectral_B(gamma, degree=1, epsilon=1e-6):
    """``diag(B)``: eigenvalues of ``L^p`` plus the ridge, ``gamma_i^p + eps`` (Alg. 1-2).

    Parameters
    ----------
    gamma : array-like of shape (m,)
        Eigenvalues of ``L`` (negative round-off clipped to 0).
    degree : int, default=1
        The power p.
    epsilon : float, default=1e-6
        The ridge eps.

    Returns
    -------
    ndarray of shape (m,)
        The diagonal of ``B``.

    Examples
    --------
    >>> from sskernels.learners.skl import spectral_B
    >>> spectral_B([0.0, 0.5, 2.0], degree=2, epsilon=0.0)
    array([0.  , 0.25, 4.  ])
    """
    gamma = np.clip(np.asarray(gamma, dtype=float), 0.0, None)
    return gamma**degree + epsilon


def skl_coefficients(A, B, C, mu):
    """``lambda*`` of Prop. 2, eq. (8): ``[sqrt(A_ii / (2 mu B_ii)) - 1/C]_+``.

    Parameters
    ----------
    A : ndarray of shape (m,)
        ``diag(A)`` (:func:`spectral_A`).
    B : ndarray of shape (m,)
        ``diag(B)`` (:func:`spectral_B`).
    C : float
        The RLS parameter C.
    mu : float
        The weight of the smoothness term.

    Returns
    -------
    ndarray of shape (m,)
        The spectral coefficients ``lambda*``.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.skl import skl_coefficients
    >>> skl_coefficients(np.array([8.0, 2.0, 0.0]), np.ones(3), C=1.0, mu=1.0)
    array([1., 0., 0.])
    """
    return np.maximum(np.sqrt(A / (2.0 * mu * B)) - 1.0 / C, 0.0)


def _kta_sums(A, B):
    a = np.sqrt(A / (2.0 * B))  # sqrt(A_ii / (2 B_ii))
    return a, np.sum(A * a), np.sum(a * a), np.sum(a), np.sum(A)  # a, x̄, ȳ, ẑ, û


def kta_mu(A, B, C):
    """``mu*`` of Prop. 3, eq. (10): ``((ȳū - z̄x̄) / (z̄ū - (n/C^2) x̄))^2``.

    ``x̄ = sum A_ii a_i``, ``ȳ = sum a_i^2``, ``z̄ = sum a_i / C``, ``ū = sum A_ii / C``
    with ``a_i = sqrt(A_ii / (2 B_ii))``; n is the number of spectral terms.
    It is the stationary point of the alignment of ``K(mu)`` with ``y y^T``,
    ``lambda_i(mu)`` taken without the projection ``[.]_+`` (as in the proof).

    Parameters
    ----------
    A : ndarray of shape (n,)
        ``diag(A)``.
    B : ndarray of shape (n,)
        ``diag(B)``.
    C : float
        The RLS parameter C.

    Returns
    -------
    float
        ``mu*`` (nan or inf where the formula is undefined).
    """
    n = A.size
    _, x, y, z, u = _kta_sums(A, B)
    zb, ub = z / C, u / C
    return float(((y * ub - zb * x) / (zb * ub - n / C**2 * x)) ** 2)


def kta_scale(A, B):
    """The factor ``|(ẑû - n x̄) / (ȳû - ẑx̄)|`` of Prop. 4, or None.

    None when it is 0 or not finite (``a`` constant: the formula is 0/0).

    Parameters
    ----------
    A : ndarray of shape (n,)
        ``diag(A)``.
    B : ndarray of shape (n,)
        ``diag(B)``.

    Returns
    -------
    float or None
        The factor.
    """
    n = A.size
    _, x, y, z, u = _kta_sums(A, B)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = abs((z * u - n * x) / (y * u - z * x))
    return float(factor) if np.isfinite(factor) and factor > 0 else None


def kta_free_coefficients(A, B):
    """``lambda̅`` of Prop. 4: ``|(ẑû - n x̄) / (ȳû - ẑx̄)| sqrt(A_ii / (2 B_ii))``.

    (``ŷ`` of the printed proposition is ``ȳ``, which does not involve C.)  The
    factor only scales ``K̄``, which leaves the unlabeled points' decision
    values unchanged; if it is 0 or not finite (:func:`kta_scale` is None) it is
    taken as 1 (a degenerate case the learner reports).

    Parameters
    ----------
    A : ndarray of shape (n,)
        ``diag(A)``.
    B : ndarray of shape (n,)
        ``diag(B)``.

    Returns
    -------
    ndarray of shape (n,)
        The spectral coefficients ``lambda̅``.
    """
    factor = kta_scale(A, B)
    return (1.0 if factor is None else factor) * np.sqrt(A / (2.0 * B))


def spectral_alignment(lam, A, Y_l):
    """KTA of ``K = U diag(lam) U^T`` with ``Y Y^T`` (``Y = [Y_l; 0]``), Sec. 4.2.

    ``tr(Sigma A) / (sqrt(tr(Sigma^2)) ||Y_l Y_l^T||_F)`` (U with orthonormal columns).

    Parameters
    ----------
    lam : ndarray of shape (m,)
        The spectral coefficients.
    A : ndarray of shape (m,)
        ``diag(A)`` (:func:`spectral_A`).
    Y_l : ndarray of shape (n_l, c')
        The label matrix.

    Returns
    -------
    float
        The alignment; 0.0 when the denominator is 0.
    """
    denom = np.sqrt(np.sum(lam**2)) * np.linalg.norm(Y_l.T @ Y_l)
    return float(np.sum(lam * A) / denom) if denom > 0 else 0.0


def rls_decision(U, U_l, lam, Y_l, C):
    """Algorithm 2, step 6: ``f = K_{:,l} (K_ll + I/C)^{-1} Y_l`` for ``K = U diag(lam) U^T``.

    Costs ``O(n_l^2 m + n m c)``: ``K_{:,l} alpha = U (lam * (U_l^T alpha))``.
    Returns ``(f, SolveInfo)`` (:func:`~sskernels.solvers.psd.solve_psd`).

    Parameters
    ----------
    U : ndarray of shape (n, m)
        The eigenvectors.
    U_l : ndarray of shape (n_l, m)
        Their labeled rows.
    lam : ndarray of shape (m,)
        The spectral coefficients.
    Y_l : ndarray of shape (n_l, c')
        The label matrix.
    C : float
        The RLS parameter C.

    Returns
    -------
    f : ndarray of shape (n, c')
        The decision values of every point.
    info : SolveInfo
        The solve of ``K_ll + I/C`` (Cholesky, or least squares when it fails).
    """
    K_ll = (U_l * lam) @ U_l.T
    K_ll[np.diag_indices_from(K_ll)] += 1.0 / C
    alpha, info = solve_psd(K_ll, Y_l)
    return U @ (lam[:, None] * (U_l.T @ alpha)), info


def kta_decision(U, U_l, lam_bar, Y_l, labeled):
    """Prop. 4 / Algorithm 1, step 5: ``f = (K̄ - I)_{:,l} K̄_ll^{-1} Y_l``.

    Returns ``(f, SolveInfo)`` (:func:`~sskernels.solvers.psd.solve_psd`).

    Parameters
    ----------
    U : ndarray of shape (n, m)
        The eigenvectors.
    U_l : ndarray of shape (n_l, m)
        Their labeled rows.
    lam_bar : ndarray of shape (m,)
        The spectral coefficients ``lambda̅`` (:func:`kta_free_coefficients`).
    Y_l : ndarray of shape (n_l, c')
        The label matrix.
    labeled : ndarray of int of shape (n_l,)
        Positions of the labeled points.

    Returns
    -------
    f : ndarray of shape (n, c')
        The decision values of every point.
    info : SolveInfo
        The solve of ``K̄_ll`` (Cholesky, or least squares when it fails).
    """
    Kb_ll = (U_l * lam_bar) @ U_l.T
    alpha, info = solve_psd(Kb_ll, Y_l)
    F = U @ (lam_bar[:, None] * (U_l.T @ alpha))
    F[labeled] -= alpha
    return F, info


# ---------------------------------------------------------------------------- estimators

_ZERO_KERNEL = "zero kernel: every lambda* of eq. (8) is clipped to 0"


class _SpectralKernelLearningBase(GraphClassifier):
    """Shared machinery: the graph (k = 10, heat), the memoized spectrum, A and B, the kernel."""

    #: the fitted parameters reported as selected on the labeled points (``selected_params_``)
    _selected_attributes = ("C_", "mu_")

    _parameter_constraints = {
        **GraphClassifier._parameter_constraints,
        "laplacian_degree": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "targets": [StrOptions(set(TARGETS))],
    }
    _default_graph = {"n_neighbors": 10, "weights": "heat"}

    def _precompute_graph(self, graph):
        graph.spectrum(self.n_components)

    def _eigenpairs(self, graph, report=None):
        """``(gamma, U)``: eigenpairs of ``L_sym`` from the graph's memoized spectrum.

        The eigenvectors of ``L^p`` are those of ``L``, its eigenvalues ``gamma^p``;
        ``gamma >= 0`` so the smallest of ``L^p`` are the smallest of ``L``.
        """
        m = self.n_components
        spectrum = self._graph_spectrum(graph, m, report)
        gamma, U = spectrum.values, spectrum.vectors
        if m is not None:
            if m > gamma.size:
                raise ParameterError(
                    f"n_components={m} exceeds the {gamma.size} eigenpairs available"
                )
            gamma, U = gamma[:m], U[:, :m]
        return gamma, U

    def _prepare(self, graph, labeled, C_L):
        gamma, U = self._eigenpairs(graph)
        Y_l = label_targets(C_L, self.targets)
        U_l = U[labeled]
        self.eigenvalues_, self.eigenvectors_ = gamma, U
        self.B_ = spectral_B(gamma, self.laplacian_degree, self.epsilon)
        self.A_ = spectral_A(U_l, Y_l)
        self.targets_ = Y_l
        return U, U_l, Y_l

    def _finish(self, F, info, lam, Y_l, n_classes):
        """Record the solve and the learned spectrum; per-class scores."""
        self.fit_report_.add(info, "RLS")
        self.lambda_ = lam
        self.alignment_ = spectral_alignment(lam, self.A_, Y_l)
        return scores_from_targets(F, n_classes)

    @property
    def kernel_(self):
        """The learned (n, n) kernel ``U diag(lambda_) U^T``."""
        U = self.eigenvectors_
        return (U * self.lambda_) @ U.T

    def kernel(self, A=None, B=None):
        """The learned kernel between training points (transductive: None or index arrays)."""
        U = self.eigenvectors_
        Ua = U if A is None else U[np.asarray(A)]
        Ub = Ua if B is A else (U if B is None else U[np.asarray(B)])
        return (Ua * self.lambda_) @ Ub.T


class SpectralKernelLearning(_SpectralKernelLearningBase):
    """SKL, Mao & Tsang Algorithm 2: spectral kernel of Prop. 2 for given C and mu + RLS.

    ``K = U diag(lambda*) U^T`` with ``lambda*`` of eq. (8),
    ``lambda_i* = [sqrt(A_ii / (2 mu B_ii)) - 1/C]_+``, over the eigenvectors of
    ``L^p`` (B = ``gamma^p + epsilon``), decision ``f = K_{:,l} (K_ll + I/C)^{-1} y_l``;
    the label is the argmax of the decision functions.  Transductive: scores are the
    decision function on every training point, the labeled ones included; ``predict`` on
    new points is not offered.  A pair (C, mu) whose ``lambda*`` are all clipped to 0
    (K = 0) is reported as degenerate.

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`; ``None``: k = 10, heat
        weights with ``sigma_g^2`` the mean squared edge length, Sec. 5.2), or
        ``"precomputed"``: ``fit`` takes the (n, n) affinity matrix.
    C : float, default=1.0
        RLS trade-off of eq. (1) (> 0).
    mu : float, default=1.0
        Weight of the manifold regularizer in eq. (6)/(7) (> 0).
        Selected by the ``skl`` method (``_selection``, following Sec. 5.4, which
        tunes C and mu by cross-validation): ``C_GRID x MU_GRID`` (the paper's grids)
        by 5-fold cross-validation on the labeled points only; ties go to the largest
        C, then the smallest mu.  A pair whose ``lambda*`` are all clipped to 0
        (K = 0) scores 0 on the fold.
    laplacian_degree : float, default=1
        p, the power of ``L`` (> 0; the paper's experiments use 2 or 5, Table 1).
    epsilon : float, default=1e-6
        Ridge on the eigenvalues of ``L^p`` (Sec. 4.4, "a small ridge"; > 0).
    n_components : int or None, default=None
        None: all n eigenpairs, as Algorithms 1-2; an integer m keeps the m smallest
        (``n`` in eq. (10) and Prop. 4 is then m).
    targets : {"auto", "indicator", "signed"}, default="auto"
        The multi-class coding (module docstring): ``"auto"`` uses ``{-1, +1}`` (one
        column) for two classes and the 0/1 class indicator for three or more;
        ``"indicator"`` forces the indicator, ``"signed"`` one-vs-rest ``{-1, +1}``
        columns.

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
        The eigenvalues ``gamma_i`` of the normalized Laplacian ``L``.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The eigenvectors ``U``.
    A_ : ndarray of shape (n_components,)
        The diagonal of ``A = U_l^T Y_l Y_l^T U_l`` (Prop. 2).
    B_ : ndarray of shape (n_components,)
        The diagonal of ``B``, ``gamma_i^p + epsilon``.
    targets_ : ndarray of shape (n_labeled, n_columns)
        The label matrix ``Y_l``.
    lambda_ : ndarray of shape (n_components,)
        The learned spectrum ``lambda*``.
    C_ : float
        The C used.
    mu_ : float
        The mu used.
    alignment_ : float
        Kernel-target alignment of ``K`` on the labeled points.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``U diag(lambda_) U^T``.
    scores_ : ndarray of shape (n_samples, n_classes)
        The decision values of every training point, per class.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point.
    label_frequencies_ : ndarray of shape (n_classes,)
        The labeled points' class frequencies, the scores of unreached points.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point.
    fit_report_ : FitReport
        The solvers (Cholesky, its least-squares fallback) and degenerate cases of the
        fit (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    SpectralKernelLearningKTA : The parameter-free variant (Algorithm 1).
    LapRLS : Laplacian RLS, the paper's semi-supervised baseline.

    References
    ----------
    Q. Mao and I. W. Tsang. Parameter-free spectral kernel learning. In UAI, 2010: Prop. 2, eq. (6)-(8), Algorithm 2, Sec. 5.4.

    Examples
    --------
    The learner is transductive: it labels its training points (``transduction_``) and
    offers no ``predict``.

    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import SpectralKernelLearning
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = SpectralKernelLearning().fit(X, y_partial)
    >>> est.transduction_.shape
    (178,)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> hasattr(est, "predict")
    False
    """

    _parameter_constraints = {
        **_SpectralKernelLearningBase._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
        "mu": [Interval(Real, 0, None, closed="neither")],
    }
    _selection = {"C": (C_GRID, "largest"), "mu": (MU_GRID, "smallest")}
    _fold_params = frozenset({"C", "mu"})

    def __init__(
        self,
        graph=None,
        C=1.0,
        mu=1.0,
        laplacian_degree=1,
        epsilon=1e-6,
        n_components=None,
        targets="auto",
    ):
        self.graph = graph
        self.C = C
        self.mu = mu
        self.laplacian_degree = laplacian_degree
        self.epsilon = epsilon
        self.n_components = n_components
        self.targets = targets

    def _scores(self, graph, labeled, C_L):
        U, U_l, Y_l = self._prepare(graph, labeled, C_L)
        self.C_, self.mu_ = float(self.C), float(self.mu)
        lam = skl_coefficients(self.A_, self.B_, self.C_, self.mu_)
        if not np.any(lam > 0):
            self.fit_report_.note("degenerate", _ZERO_KERNEL)
        F, info = rls_decision(U, U_l, lam, Y_l, self.C_)
        return self._finish(F, info, lam, Y_l, C_L.shape[1])

    def _fold_setup(self, X, labeled, y_enc, report):
        """Folds and candidates share the graph's spectrum and B; a fold is one l x l solve.

        As in :meth:`fit`, the targets keep every labeled class's column.  A candidate
        whose ``lambda*`` are all 0 (K = 0, no decision function) counts every fold point
        wrong (not the constant prediction a fit would give).
        """
        graph = self._build_graph(
            check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        )
        gamma, U = self._eigenpairs(graph, report)
        B = spectral_B(gamma, self.laplacian_degree, self.epsilon)
        U_l = U[labeled]
        n_classes = int(y_enc.max()) + 1
        Y_l = label_targets(indicator(y_enc, n_classes), self.targets)
        comp_L = graph_components(graph)[labeled]

        def predict(params, train, test):
            est = clone(self).set_params(**params)
            est._validate_params()
            c, m = float(est.C), float(est.mu)
            U_tr = U_l[train]
            lam = skl_coefficients(spectral_A(U_tr, Y_l[train]), B, c, m)
            if not np.any(lam > 0):
                return np.full(test.size, -1)
            K_tr = (U_tr * lam) @ U_tr.T
            K_tr[np.diag_indices_from(K_tr)] += 1.0 / c
            alpha = solve_psd(K_tr, Y_l[train])[0]
            F = scores_from_targets((U_l[test] * lam) @ (U_tr.T @ alpha), n_classes)
            # fit's rule for unreached points and tied scores
            F = settle_scores(
                F,
                indicator(y_enc[train], n_classes),
                np.flatnonzero(unreached(comp_L, train)[test]),
            )[0]
            return np.argmax(F, axis=1)

        return predict


class SpectralKernelLearningKTA(_SpectralKernelLearningBase):
    """SKL_KTA, Mao & Tsang Algorithm 1: parameter-free (for a given graph Laplacian).

    ``mu`` maximizes the kernel-target alignment (Prop. 3); substituting eq. (10)
    into eq. (8) removes ``mu`` and ``C`` (Prop. 4): ``K̄ = U diag(lambda̅) U^T``,
    ``lambda̅_i = |(ẑû - n x̄)/(ȳû - ẑx̄)| sqrt(A_ii / (2 B_ii))``, decision
    ``f(x_u) = (K̄ - I)_{u,l} K̄_ll^{-1} y_l``.  ``kernel_`` is ``K̄`` (psd); the
    RLS kernel of eq. (8) for a given C is ``(K̄ - I) / C`` (:meth:`rls_kernel`), and
    :meth:`mu_for` gives Prop. 3's ``mu*`` for any C.  Transductive: ``predict`` on new
    points is not offered.

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`; ``None``: k = 10, heat
        weights with ``sigma_g^2`` the mean squared edge length, Sec. 5.2), or
        ``"precomputed"``: ``fit`` takes the (n, n) affinity matrix.
    laplacian_degree : float, default=1
        p, the power of ``L`` (> 0; the paper's experiments use 2 or 5, Table 1).
    epsilon : float, default=1e-6
        Ridge on the eigenvalues of ``L^p`` (Sec. 4.4, "a small ridge"; > 0).
    n_components : int or None, default=None
        None: all n eigenpairs, as Algorithms 1-2; an integer m keeps the m smallest
        (``n`` in eq. (10) and Prop. 4 is then m).
    targets : {"auto", "indicator", "signed"}, default="auto"
        The multi-class coding (module docstring): ``"auto"`` uses ``{-1, +1}`` (one
        column) for two classes and the 0/1 class indicator for three or more;
        ``"indicator"`` forces the indicator, ``"signed"`` one-vs-rest ``{-1, +1}``
        columns.

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
        The eigenvalues ``gamma_i`` of the normalized Laplacian ``L``.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        The eigenvectors ``U``.
    A_ : ndarray of shape (n_components,)
        The diagonal of ``A = U_l^T Y_l Y_l^T U_l`` (Prop. 2).
    B_ : ndarray of shape (n_components,)
        The diagonal of ``B``, ``gamma_i^p + epsilon``.
    targets_ : ndarray of shape (n_labeled, n_columns)
        The label matrix ``Y_l``.
    lambda_ : ndarray of shape (n_components,)
        The learned spectrum ``lambda̅``.
    alignment_ : float
        Kernel-target alignment of ``K̄`` on the labeled points.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``K̄ = U diag(lambda_) U^T``.
    scores_ : ndarray of shape (n_samples, n_classes)
        The decision values of every training point, per class.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point.
    label_frequencies_ : ndarray of shape (n_classes,)
        The labeled points' class frequencies, the scores of unreached points.
    unreached_ : ndarray of int
        Positions of the unlabeled points whose graph component holds no labeled point.
    fit_report_ : FitReport
        The solvers (Cholesky, its least-squares fallback) and degenerate cases of the
        fit (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during ``fit``; defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    SpectralKernelLearning : The same kernel family for given C and mu (Algorithm 2).
    SelfConsistentLabeling : Can use this learner's kernel (``kernel_learner``).

    References
    ----------
    Q. Mao and I. W. Tsang. Parameter-free spectral kernel learning. In UAI, 2010: Prop. 3-4, eq. (8), (10), Algorithm 1.

    Examples
    --------
    The learner is transductive: it labels its training points (``transduction_``) and
    offers no ``predict``.

    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import SpectralKernelLearningKTA
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = SpectralKernelLearningKTA().fit(X, y_partial)
    >>> est.transduction_.shape
    (178,)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> hasattr(est, "predict")
    False
    """

    def __init__(
        self, graph=None, laplacian_degree=1, epsilon=1e-6, n_components=None, targets="auto"
    ):
        self.graph = graph
        self.laplacian_degree = laplacian_degree
        self.epsilon = epsilon
        self.n_components = n_components
        self.targets = targets

    def _scores(self, graph, labeled, C_L):
        U, U_l, Y_l = self._prepare(graph, labeled, C_L)
        if kta_scale(self.A_, self.B_) is None:
            self.fit_report_.note(
                "degenerate", "Prop. 4's scale of lambda-bar is 0 or not finite; taken as 1"
            )
        lam = kta_free_coefficients(self.A_, self.B_)
        if not np.any(lam > 0):
            self.fit_report_.note("degenerate", "zero kernel: every lambda-bar is 0 (A = 0)")
        F, info = kta_decision(U, U_l, lam, Y_l, labeled)
        return self._finish(F, info, lam, Y_l, C_L.shape[1])

    def mu_for(self, C):
        """Prop. 3's ``mu*`` (eq. (10)) for a given C, from the fitted A and B.

        Parameters
        ----------
        C : float
            The RLS parameter C.

        Returns
        -------
        float
            ``mu*`` (:func:`kta_mu` of ``A_`` and ``B_``).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import SpectralKernelLearningKTA
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> est = SpectralKernelLearningKTA().fit(X, y_partial)
        >>> isinstance(est.mu_for(1.0), float)
        True
        """
        return kta_mu(self.A_, self.B_, C)

    def rls_kernel(self, C=1.0):
        """The RLS kernel ``K = (K̄ - I) / C`` of Prop. 4's proof (unprojected eq. (8)).

        Parameters
        ----------
        C : float, default=1.0
            The RLS parameter C.

        Returns
        -------
        ndarray of shape (n_samples, n_samples)
            ``(kernel_ - I) / C``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import SpectralKernelLearningKTA
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> est = SpectralKernelLearningKTA().fit(X, y_partial)
        >>> bool(np.allclose(2.0 * est.rls_kernel(2.0), est.kernel_ - np.eye(178)))
        True
        """
        K = self.kernel_ - np.eye(self.eigenvectors_.shape[0])
        return K / C
