"""Spectral kernels over the normalized graph Laplacian: RSK and TSK.

Both are kernels ``K = V diag(mu) V^T`` over eigenvectors ``v_t`` of the
normalized Laplacian (Liu et al., Thm. 1 and eq. (9)), used by the classifier
of eq. (5), ``f(x_i) = argmax_k sum_{y_j = k} K_ij``.  They differ in the spectral
coefficients ``mu``:

* :class:`RegularizedSpectralKernel` (RSK) — ``mu_t = theta_t = (1 - alpha) /
  (1 - alpha + alpha lambda_t)`` (eq. (4)); over the full spectrum its
  transductive predictions are those of the consistency method.
* :class:`TransductiveSpectralKernel` (TSK) — ``mu`` solves the linear
  program eq. (12)/(14) over the m smallest eigenpairs with ``lambda != 1``.

New points are embedded by the out-of-sample extension eq. (17)-(18),
``V_x = w_x^T V (I - Lambda)^{-1}``, and classified by eq. (19).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from numbers import Integral, Real

from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval

from sskernels.learners.base import indicator
from sskernels.learners.graph_base import (
    graph_components,
    settle_scores,
    unreached,
)
from sskernels.learners.grids import ALPHAS
from sskernels.learners.spectral_base import (  # noqa: F401 - ZERO_TOL, decay_matrix re-exported
    ZERO_TOL,
    SpectralKernelClassifier,
    decay_matrix,
)
from sskernels.memo import LRU, content_key
from sskernels.solvers import solve_lp
from sskernels.solvers.report import SolveInfo

#: TSK's beta grid (eq. (11)/(12)), most preferred first: ties go to the largest beta
BETA_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)


class RegularizedSpectralKernel(SpectralKernelClassifier):
    """Regularized spectral kernel (RSK), Liu et al. eq. (4)-(5).

    ``K^r = V Theta V^T`` with ``theta_t = (1 - alpha) / (1 - alpha + alpha lambda_t)`` over
    the eigenpairs ``(lambda_t, v_t)`` of the normalized Laplacian of the k-NN graph, and
    the classifier of eq. (5), ``f(x_i) = argmax_k sum_{y_j = k} K_ij``.  Over the full
    spectrum its transductive predictions are those of :class:`Consistency`.  New points
    are embedded by the out-of-sample extension eq. (17)-(18) and classified by eq. (19).

    Selection (``_selection``, when a spec leaves ``alpha`` unset, sets it to ``auto`` or
    gives a list): ``alpha`` over consistency's grid
    (:data:`sskernels.learners.propagation.ALPHAS`) by cross-validation on the labeled
    points, ties to the largest (0.99, Liu et al.'s); the same collapse at 0.99 as
    consistency's.

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The graph builder, a :class:`~sskernels.graph.KNNGraph` (k, weights, sigma,
        metric); ``None``: k = 6 with the weights of Liu et al. eq. (2).
        ``"precomputed"``: ``fit`` takes the (n, n) affinity matrix of the training points
        and ``predict`` the (s, n) affinities of new points to them.
    alpha : float, default=0.99
        The ``alpha`` of eq. (4), in (0, 1).
    n_components : int or None, default=None
        ``None`` takes the full spectrum (eigenvalues equal to 1 included; they are left
        out of the out-of-sample extension, where eq. (17) is undefined); an integer m the
        m smallest eigenpairs with ``lambda != 1`` (Liu et al., Sec. 4.1 and Table 1,
        Step 2).

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
        The eigenvectors ``v_t`` (the matrix ``V`` of eq. (9)).
    mu_ : ndarray of shape (n_components,)
        The spectral coefficients ``theta_t``.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``V diag(mu_) V^T``; ``kernel(A, B)`` evaluates it between any
        point sets (eq. (16)).
    C_L_ : ndarray of shape (n_labeled, n_classes)
        The class indicator matrix of the labeled points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of eq. (5) of every training point.
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
    Consistency : The same transductive predictions over the full spectrum.
    TransductiveSpectralKernel : The coefficients learned by a linear program instead.
    KernelSVM : An SVM on a learned kernel.

    References
    ----------
    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: eq. (4)-(5), Thm. 1, eq. (16)-(19).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import RegularizedSpectralKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = RegularizedSpectralKernel(alpha=0.9).fit(X, y_partial)
    >>> est.kernel_.shape
    (178, 178)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    """

    _parameter_constraints = {
        **SpectralKernelClassifier._parameter_constraints,
        "alpha": [Interval(Real, 0, 1, closed="neither")],
    }
    _selection = {"alpha": (ALPHAS, "largest")}

    def __init__(self, graph=None, alpha=0.99, n_components=None):
        self.graph = graph
        self.alpha = alpha
        self.n_components = n_components

    def _coefficients(self, lam, V, labeled, C_L):
        a = self.alpha
        return (1.0 - a) / (1.0 - a + a * lam)


def tsk_constraint_matrix(V_L, y_enc):
    """The ``l x m`` matrix T of Liu et al. eq. (13).

    ``T_it = sum_j e_ij v_it v_jt`` over the labeled points, with ``e_ij = 1``
    for a pair of the same label (``i != j``), ``-1`` for differently labeled
    pairs (the sets S and D of eq. (11)), so that ``(T mu)_i = sum_j e_ij K_ij``
    for the kernel ``K = V diag(mu) V^T``.

    Parameters
    ----------
    V_L : ndarray of shape (l, m)
        The eigenvectors ``v_t`` at the l labeled points (row i: ``v_it`` for
        ``t = 1, ..., m``).
    y_enc : ndarray of shape (l,)
        The labeled points' classes, encoded as ``0..c-1``.

    Returns
    -------
    T : ndarray of shape (l, m)
        The matrix of eq. (13).

    See Also
    --------
    tsk_linear_program : The linear program eq. (14) over T.

    References
    ----------
    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: eq. (11), (13).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import tsk_constraint_matrix
    >>> V_L = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, -0.5], [0.5, -0.5]])
    >>> tsk_constraint_matrix(V_L, np.array([0, 0, 1, 1]))
    array([[-0.25,  0.75],
           [-0.25,  0.75],
           [-0.25,  0.75],
           [-0.25,  0.75]])
    """
    same = y_enc[:, None] == y_enc[None, :]
    E = np.where(same, 1.0, -1.0)
    np.fill_diagonal(E, 0.0)
    return V_L * (E @ V_L)


def tsk_lp_matrix(T, eta, skip=0):
    """The constraint matrix of eq. (14), ``[[T, I], [Gamma, 0]]`` over ``[mu; xi]``, as CSC.

    T's exact zeros are left out.  Assembled from its triplets in one pass: the same matrix,
    entry for entry, as stacking ``csr(T)``, ``I``, :func:`decay_matrix` and a zero block,
    without the cost of that stacking.

    Parameters
    ----------
    T : ndarray of shape (l, m)
        The matrix of eq. (13) (:func:`tsk_constraint_matrix`).
    eta : float
        The decay factor of the order constraints ``mu_t >= eta mu_{t+1}``.
    skip : int, default=0
        Leading coefficients left out of the order constraints (:func:`decay_matrix`).

    Returns
    -------
    scipy.sparse.csc_matrix of shape (l + r, m + l)
        The matrix, with ``r = max(m - 1 - skip, 0)`` order constraints.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.spectral import tsk_lp_matrix
    >>> tsk_lp_matrix(np.array([[0.5, 0.0, -1.0]]), eta=2.0).toarray()
    array([[ 0.5,  0. , -1. ,  1. ],
           [ 1. , -2. ,  0. ,  0. ],
           [ 0. ,  1. , -2. ,  0. ]])
    """
    l, m = T.shape
    r = max(m - 1 - skip, 0)
    ti, tj = np.nonzero(T)
    k = np.arange(r)
    rows = np.concatenate([ti, np.arange(l), l + k, l + k])
    cols = np.concatenate([tj, m + np.arange(l), skip + k, skip + 1 + k])
    vals = np.concatenate([T[ti, tj], np.ones(l), np.ones(r), np.full(r, -float(eta))])
    return sp.csc_matrix((vals, (rows, cols)), shape=(l + r, m + l))


#: memo of TSK's linear programs by content (:func:`tsk_linear_program`): TSK and the SVM on
#: the TSK kernel (Liu et al. Table 3's "TSK" and "TSK+SVM" rows) solve the same LPs -- the
#: same folds of the same beta grid, then the same final LP -- on every split
_LPS = LRU(4096, max_bytes=256 * 2**20)


def tsk_linear_program(lam, V_L, y_enc, eta=2.0, beta=1.0, skip_constant=False):
    """Solve the TSK linear program, Liu et al. eq. (14), with HiGHS.

    ``min lambda^T mu + beta 1^T xi  s.t.  T mu >= 1 - xi, Gamma mu >= 0,
    mu >= 0, xi >= 0`` with ``T`` the matrix of eq. (13)
    (:func:`tsk_constraint_matrix`) and ``Gamma_tt = 1, Gamma_t,t+1 = -eta``
    (eq. (8)).  Variables are ordered ``[mu, xi]``.

    Parameters
    ----------
    lam : ndarray of shape (m,)
        The eigenvalues ``lambda`` of the m eigenvectors, in increasing order.
    V_L : ndarray of shape (l, m)
        The eigenvectors at the l labeled points.
    y_enc : ndarray of shape (l,)
        The labeled points' classes, encoded as ``0..c-1``.
    eta : float, default=2.0
        The decay factor of eq. (8).
    beta : float, default=1.0
        The price of the slacks ``xi`` (eq. (11)/(12)).
    skip_constant : bool, default=False
        True leaves the leading eigenvectors with ``lambda = 0`` (one per connected
        component) out of the decay constraints, the "improved order constraints" of
        Zhu et al. (NIPS 2004) — not Liu et al.'s eq. (14), which constrains them too.

    Returns
    -------
    mu : ndarray of shape (m,)
        The spectral coefficients.
    xi : ndarray of shape (l,)
        The slacks of the labeled points.
    objective : float
        The LP's optimal value.

    Notes
    -----
    The objective does not price ``mu_1`` when ``lambda_1 = 0``; the LP then
    has a face of optima and HiGHS returns one of its vertices.

    Memoized by content (an LRU of 4,096 LPs and 256 MiB, its arrays read-only): the
    solution is a function of the arguments (HiGHS is deterministic on one model), so a
    learner that solves an LP another one already solved in this process gets that solution
    (copies) without solving it again.

    References
    ----------
    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: eq. (8), (11)-(14).

    X. Zhu, J. Kandola, Z. Ghahramani and J. Lafferty. Nonparametric transforms of graph
    kernels for semi-supervised learning. In NIPS 17, 2005 (the improved order
    constraints of ``skip_constant``).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import tsk_linear_program
    >>> V_L = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, -0.5], [0.5, -0.5]])
    >>> y_enc = np.array([0, 0, 1, 1])
    >>> mu, xi, objective = tsk_linear_program(np.array([0.0, 0.4]), V_L, y_enc)
    >>> mu.round(6), xi.round(6), round(objective, 6)
    (array([8., 4.]), array([0., 0., 0., 0.]), 1.6)
    """
    key = content_key(lam, V_L, y_enc, eta, beta, bool(skip_constant))
    hit = _LPS.lookup(key)
    if hit is None:
        hit = _LPS.store(key, _tsk_lp(lam, V_L, y_enc, eta, beta, skip_constant))
    mu, xi, obj = hit
    return mu.copy(), xi.copy(), obj


def _tsk_lp(lam, V_L, y_enc, eta, beta, skip_constant):
    m, l = lam.size, y_enc.size
    T = tsk_constraint_matrix(V_L, y_enc)
    c = np.concatenate([lam, np.full(l, float(beta))])
    skip = int(np.sum(lam < ZERO_TOL)) if skip_constant else 0
    A = tsk_lp_matrix(T, eta, skip)
    n_decay = A.shape[0] - l  # the rows of the decay constraints, eq. (8)
    lower = np.concatenate([np.ones(l), np.zeros(n_decay)])
    x, obj = solve_lp(c, A, row_lower=lower, row_upper=np.inf, col_lower=0.0, col_upper=np.inf)
    mu = np.maximum(x[:m], 0.0)
    return mu, np.maximum(x[m:], 0.0), obj


class TransductiveSpectralKernel(SpectralKernelClassifier):
    """Transductive spectral kernel (TSK), Liu et al. Table 1, eq. (12)/(14).

    A kernel ``K = V diag(mu) V^T`` over the m smallest eigenpairs with ``lambda != 1`` of
    the normalized Laplacian of the k-NN graph, whose coefficients ``mu`` solve the linear
    program eq. (14) (:func:`tsk_linear_program`, HiGHS), used by the classifier of
    eq. (5), ``f(x_i) = argmax_k sum_{y_j = k} K_ij``.  New points are embedded by the
    out-of-sample extension eq. (17)-(18) and classified by eq. (19).

    A zero ``mu`` (the LP's optimum puts no weight anywhere: a zero kernel and
    a constant prediction) is recorded in ``fit_report_`` as degenerate.

    Parameters
    ----------
    graph : object, "precomputed" or None, default=None
        The k-NN graph builder (:class:`~sskernels.graph.KNNGraph`; ``None``: k = 6 with
        the weights of eq. (2)), or ``"precomputed"``: ``fit`` takes the (n, n) affinity
        matrix of the training points and ``predict`` the (s, n) affinities of new points.
    n_components : int, default=10
        m, the number of smallest Laplacian eigenpairs with ``lambda != 1`` (Liu et al.:
        10 for heart and wine, 30 for ionosphere and sonar).
    eta : float, default=2.0
        Decay factor of eq. (8) (>= 1; Liu et al. fix eta = 2).
    beta : float, default=1.0
        Trade-off of eq. (11)/(12) (> 0).  The paper does not state beta.
        Our choice, in the specs: select it from :data:`BETA_GRID` by 5-fold
        cross-validation on the labeled points only
        (:class:`~sskernels.learners.selection.SelectOnLabeled`, the default
        selection of the ``tsk`` method): the LP is solved without a fold's
        labels and the fold is classified by eq. (5); ties go to the largest
        beta (a tiny beta leaves the LP free to drop every component but the
        constant-like first one).  ``beta=1`` when used directly.
    skip_constant : bool, default=False
        False (Liu et al.'s eq. (14)) applies the decay constraints
        to all m coefficients, including those of the lambda = 0 eigenvectors;
        True exempts those, as Zhu et al.'s improved order constraints do (a
        variant; see results/README.md for its effect).

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
        The eigenvectors ``v_t`` (the matrix ``V̄`` of eq. (9)).
    mu_ : ndarray of shape (n_components,)
        The spectral coefficients, the LP's solution.
    xi_ : ndarray of shape (n_labeled,)
        The LP's slack variables.
    objective_ : float
        The LP's optimal value.
    kernel_ : ndarray of shape (n_samples, n_samples)
        The learned kernel ``V diag(mu_) V^T``; ``kernel(A, B)`` evaluates it between any
        point sets (eq. (16)).
    C_L_ : ndarray of shape (n_labeled, n_classes)
        The class indicator matrix of the labeled points.
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of eq. (5) of every training point.
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
    RegularizedSpectralKernel : Fixed coefficients ``theta_t`` (eq. (4)).
    OrderConstrainedSpectralKernel : Coefficients by alignment under order constraints.
    KernelSVM : An SVM on the TSK kernel ("TSK+SVM").

    References
    ----------
    W. Liu, B. Qian, J. Cui and J. Liu. Spectral kernel learning for semi-supervised
    classification. In IJCAI, 2009: Table 1, eq. (8), (11)-(14), (16)-(19).

    X. Zhu, J. Kandola, Z. Ghahramani and J. Lafferty. Nonparametric transforms of graph
    kernels for semi-supervised learning. In NIPS 17, 2005 (the improved order
    constraints of ``skip_constant``).

    Examples
    --------
    Few labels and a small beta can make the LP's optimum the zero kernel (recorded in
    ``fit_report_`` as degenerate); the example uses ``beta=10``:

    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import TransductiveSpectralKernel
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> est = TransductiveSpectralKernel(beta=10).fit(X, y_partial)
    >>> est.mu_.shape
    (10,)
    >>> unlabeled = y_partial == -1
    >>> bool((est.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> est.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints = {
        **SpectralKernelClassifier._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "eta": [Interval(Real, 1, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "skip_constant": ["boolean"],
    }
    _selection = {"beta": (BETA_GRID, "largest")}
    _fold_params = frozenset({"beta", "eta"})

    def __init__(self, graph=None, n_components=10, eta=2.0, beta=1.0, skip_constant=False):
        self.graph = graph
        self.n_components = n_components
        self.eta = eta
        self.beta = beta
        self.skip_constant = skip_constant

    def _coefficients(self, lam, V, labeled, C_L):
        y_enc = np.argmax(C_L, axis=1)
        mu, self.xi_, self.objective_ = tsk_linear_program(
            lam, V[labeled], y_enc, self.eta, self.beta, self.skip_constant
        )
        self.fit_report_.add(SolveInfo("highs-lp"))
        if not np.any(mu > 0):
            self.fit_report_.note("degenerate", "zero kernel: the LP's optimum has mu = 0")
        return mu

    def _fold_setup(self, X, labeled, y_enc, report):
        """Fold fits share the graph and its spectrum; a fold is one LP (eq. (14))."""
        # the wrapper hands X over as given: validate it as fit does (NaN, complex, lists)
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64, ensure_min_samples=2)
        graph = self._build_graph(X)
        lam, V = graph.spectrum(self.n_components).smallest(self.n_components, exclude_one=True)
        V_L = V[labeled]
        c = int(y_enc.max()) + 1
        comp_L = graph_components(graph)[labeled]

        def predict(params, train, test):
            mu, _, _ = tsk_linear_program(
                lam,
                V_L[train],
                y_enc[train],
                params.get("eta", self.eta),
                params.get("beta", self.beta),
                self.skip_constant,
            )
            C_tr = indicator(y_enc[train], c)
            F = (V_L[test] * mu) @ (V_L[train].T @ C_tr)
            # fit's rule for unreached points and tied scores
            F = settle_scores(F, C_tr, np.flatnonzero(unreached(comp_L, train)[test]))[0]
            return np.argmax(F, axis=1)

        return predict
