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

from sskernels.graph.laplacian import ONE_TOL
from numbers import Integral, Real

from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval

from sskernels.learners.base import (GraphClassifier, graph_components, indicator, settle_scores,
                                     unreached)
from sskernels.learners.grids import ALPHAS
from sskernels.memo import LRU, content_key
from sskernels.solvers import solve_lp
from sskernels.solvers.report import SolveInfo

#: TSK's beta grid (eq. (11)/(12)), most preferred first: ties go to the largest beta
BETA_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)

#: eigenvalues below this count as 0 (the constant-like eigenvectors of connected components)
ZERO_TOL = 1e-9


class SpectralKernelClassifier(GraphClassifier):
    """Base class of kernels ``K = V diag(mu) V^T``; subclasses give ``_coefficients``.

    ``n_components=None`` takes the full spectrum (eigenvalues equal to 1
    included; they are left out of the out-of-sample extension, where
    eq. (17) is undefined), an integer m the m smallest eigenpairs with
    ``lambda != 1`` (Liu et al., Sec. 4.1 and Table 1, Step 2).

    Fitted attributes: ``eigenvalues_`` (m,), ``eigenvectors_`` (n, m) = V̄,
    ``mu_`` (m,) the spectral coefficients; ``kernel_`` the (n, n) learned
    kernel matrix; ``kernel(A, B)`` evaluates it between any point sets.
    """

    _parameter_constraints = {**GraphClassifier._parameter_constraints,
                              "n_components": [Interval(Integral, 1, None, closed="left"), None]}

    def _precompute_graph(self, graph):
        graph.spectrum(self.n_components)

    def _scores(self, graph, labeled, C_L):
        spectrum = graph.spectrum(self.n_components)
        if self.n_components is None:
            lam, V = spectrum.values, spectrum.vectors
        else:
            lam, V = spectrum.smallest(self.n_components, exclude_one=True)
        self.eigenvalues_, self.eigenvectors_ = lam, V
        self.mu_ = np.asarray(self._coefficients(lam, V, labeled, C_L), dtype=float)
        self.C_L_ = C_L
        # eq. (5): F = K[:, L] C_L = V diag(mu) (V_L^T C_L)
        return V @ (self.mu_[:, None] * (V[labeled].T @ C_L))

    # -- the learned kernel -------------------------------------------------
    @property
    def kernel_(self):
        V = self.eigenvectors_
        return (V * self.mu_) @ V.T

    def spectral_embedding(self, X=None, exclude=None):
        """``V̄`` rows of the training points (``X=None``) or induced ones, eq. (18).

        Columns whose eigenvalue equals 1 are zero in the induced embedding.
        """
        if X is None:
            return self.eigenvectors_
        w = self.graph_.induced_normalized(X, exclude=exclude)
        gap = 1.0 - self.eigenvalues_
        scale = np.where(np.abs(gap) > ONE_TOL, 1.0 / np.where(gap == 0, 1.0, gap), 0.0)
        return (w @ self.eigenvectors_) * scale

    def kernel(self, A=None, B=None):
        """``K(a, b) = V̄_a diag(mu) V̄_b^T`` (eq. (16)); None means the training points."""
        Va = self.spectral_embedding(A)
        Vb = Va if B is A else self.spectral_embedding(B)
        return (Va * self.mu_) @ Vb.T

    def _induce(self, X):
        # eq. (19): sum over labeled j of class k of K_{x,j}
        Vx = self.spectral_embedding(X)
        return Vx @ (self.mu_[:, None] * (self.eigenvectors_[self.labeled_].T @ self.C_L_))


class RegularizedSpectralKernel(SpectralKernelClassifier):
    """Regularized spectral kernel (RSK), Liu et al. eq. (4)-(5).

    ``K^r = V Theta V^T`` with ``theta_t = (1 - alpha) / (1 - alpha + alpha lambda_t)``.

    Selection (``_selection``, when a spec leaves ``alpha`` unset, sets it to ``auto`` or
    gives a list): ``alpha`` over consistency's grid
    (:data:`sskernels.learners.propagation.ALPHAS`) by cross-validation on the labeled
    points, ties to the largest (0.99, Liu et al.'s); the same collapse at 0.99 as
    consistency's (wine, 20 labels: 65.5 %).
    """

    _parameter_constraints = {**SpectralKernelClassifier._parameter_constraints,
                              "alpha": [Interval(Real, 0, 1, closed="neither")]}
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
    pairs (the sets S and D of eq. (11)), so that ``(T mu)_i = sum_j e_ij K_ij``.
    """
    same = y_enc[:, None] == y_enc[None, :]
    E = np.where(same, 1.0, -1.0)
    np.fill_diagonal(E, 0.0)
    return V_L * (E @ V_L)


def tsk_lp_matrix(T, eta, skip=0):
    """The constraint matrix of eq. (14), ``[[T, I], [Gamma, 0]]`` over ``[mu; xi]``, as CSC
    (T's exact zeros left out).  Assembled from its triplets in one pass: the same matrix,
    entry for entry, as stacking ``csr(T)``, ``I``, :func:`decay_matrix` and a zero block
    (which cost 2/3 of a TSK fold's LP on Liu et al.'s sets, tested)."""
    l, m = T.shape
    r = max(m - 1 - skip, 0)
    ti, tj = np.nonzero(T)
    k = np.arange(r)
    rows = np.concatenate([ti, np.arange(l), l + k, l + k])
    cols = np.concatenate([tj, m + np.arange(l), skip + k, skip + 1 + k])
    vals = np.concatenate([T[ti, tj], np.ones(l), np.ones(r), np.full(r, -float(eta))])
    return sp.csc_matrix((vals, (rows, cols)), shape=(l + r, m + l))


def decay_matrix(m, eta, skip=0):
    """``Gamma`` of eq. (14): rows ``mu_t - eta mu_{t+1} >= 0`` for ``t = skip+1, ..., m-1``."""
    rows = max(m - 1 - skip, 0)
    if rows == 0:
        return sp.csr_matrix((0, m))
    return sp.diags([np.ones(rows), np.full(rows, -float(eta))], [skip, skip + 1],
                    shape=(rows, m)).tocsr()


#: memo of TSK's linear programs by content (:func:`tsk_linear_program`): TSK and the SVM on
#: the TSK kernel (Liu et al. Table 3's "TSK" and "TSK+SVM" rows) solve the same LPs -- the
#: same folds of the same beta grid, then the same final LP -- on every split
_LPS = LRU(4096, max_bytes=256 * 2**20)


def tsk_linear_program(lam, V_L, y_enc, eta=2.0, beta=1.0, skip_constant=False):
    """Solve the TSK linear program, Liu et al. eq. (14), with HiGHS.

    ``min lambda^T mu + beta 1^T xi  s.t.  T mu >= 1 - xi, Gamma mu >= 0,
    mu >= 0, xi >= 0`` with ``Gamma_tt = 1, Gamma_t,t+1 = -eta`` (eq. (8)).
    Variables are ordered ``[mu, xi]``.  Returns ``(mu, xi, objective)``.

    ``skip_constant=True`` leaves the leading eigenvectors with ``lambda = 0``
    (one per connected component) out of the decay constraints, the
    "improved order constraints" of Zhu et al. (NIPS 2004) — not Liu et al.'s
    eq. (14), which constrains them too.

    The objective does not price ``mu_1`` when ``lambda_1 = 0``; the LP then
    has a face of optima and HiGHS returns one of its vertices.

    Memoized by content (an LRU of 4,096 LPs and 256 MiB, its arrays read-only): the
    solution is a function of the arguments (HiGHS is deterministic on one model), so a
    learner that solves an LP another one already solved in this process gets that solution
    (copies) without solving it again.
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
    n_decay = A.shape[0] - l                   # the rows of the decay constraints, eq. (8)
    lower = np.concatenate([np.ones(l), np.zeros(n_decay)])
    x, obj = solve_lp(c, A, row_lower=lower, row_upper=np.inf, col_lower=0.0, col_upper=np.inf)
    mu = np.maximum(x[:m], 0.0)
    return mu, np.maximum(x[m:], 0.0), obj


class TransductiveSpectralKernel(SpectralKernelClassifier):
    """Transductive spectral kernel (TSK), Liu et al. Table 1, eq. (12)/(14).

    Parameters
    ----------
    graph : the k-NN graph builder (default: k = 6 with the weights of eq. (2)),
        or ``"precomputed"``.
    n_components : m, the number of smallest Laplacian eigenpairs with
        ``lambda != 1`` (Liu et al.: 10 for heart and wine, 30 for ionosphere and sonar).
    eta : decay factor of eq. (8) (Liu et al. fix eta = 2).
    beta : trade-off of eq. (11)/(12) (> 0).  The paper does not state beta.
        Our choice, in the specs: select it from :data:`BETA_GRID` by 5-fold
        cross-validation on the labeled points only
        (:class:`~sskernels.learners.selection.SelectOnLabeled`, the default
        selection of the ``tsk`` method): the LP is solved without a fold's
        labels and the fold is classified by eq. (5); ties go to the largest
        beta (a tiny beta leaves the LP free to drop every component but the
        constant-like first one).  ``beta=1`` when used directly.
    skip_constant : False (Liu et al.'s eq. (14)) applies the decay constraints
        to all m coefficients, including those of the lambda = 0 eigenvectors;
        True exempts those, as Zhu et al.'s improved order constraints do (a
        variant; see results/README.md for its effect).

    A zero ``mu`` (the LP's optimum puts no weight anywhere: a zero kernel and
    a constant prediction) is recorded in ``fit_report_`` as degenerate.
    """

    _parameter_constraints = {
        **SpectralKernelClassifier._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "eta": [Interval(Real, 1, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "skip_constant": ["boolean"],
    }
    _selection = {"beta": (BETA_GRID, "largest")}

    def __init__(self, graph=None, n_components=10, eta=2.0, beta=1.0, skip_constant=False):
        self.graph = graph
        self.n_components = n_components
        self.eta = eta
        self.beta = beta
        self.skip_constant = skip_constant

    def _coefficients(self, lam, V, labeled, C_L):
        y_enc = np.argmax(C_L, axis=1)
        mu, self.xi_, self.objective_ = tsk_linear_program(lam, V[labeled], y_enc, self.eta,
                                                           self.beta, self.skip_constant)
        self.fit_report_.add(SolveInfo("highs-lp"))
        if not np.any(mu > 0):
            self.fit_report_.note("degenerate", "zero kernel: the LP's optimum has mu = 0")
        return mu

    def _fold_predictor(self, X, labeled, y_enc, keys):
        """Fold fits share the graph and its spectrum; a fold is one LP (eq. (14))."""
        if not set(keys) <= {"beta", "eta"}:
            return None
        self._validate_params()
        # the wrapper hands X over as given: validate it as fit does (NaN, complex, lists)
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64,
                        ensure_min_samples=2)
        graph = self._build_graph(X)
        lam, V = graph.spectrum(self.n_components).smallest(self.n_components,
                                                            exclude_one=True)
        V_L = V[labeled]
        c = int(y_enc.max()) + 1
        comp_L = graph_components(graph)[labeled]

        def predict(params, train, test):
            mu, _, _ = tsk_linear_program(lam, V_L[train], y_enc[train],
                                          params.get("eta", self.eta),
                                          params.get("beta", self.beta), self.skip_constant)
            C_tr = indicator(y_enc[train], c)
            F = (V_L[test] * mu) @ (V_L[train].T @ C_tr)
            # fit's rule for unreached points and tied scores
            F = settle_scores(F, C_tr, np.flatnonzero(unreached(comp_L, train)[test]))[0]
            return np.argmax(F, axis=1)

        return predict
