"""Alignment-maximizing spectral transforms: OSK and DSK, the baselines of Liu et al. (2009).

Both learn a kernel ``K = sum_t mu_t u_t u_t^T`` over fixed, label-independent
eigenvectors ``u_t`` by maximizing the kernel-target alignment of its labeled block
``K_LL`` with an ideal kernel ``T`` (Cristianini et al. 2002), over a cone of
spectral coefficients ``mu``.  They differ only in the spectrum and the cone:

* :class:`OrderConstrainedSpectralKernel` (OSK; Zhu, Kandola, Ghahramani & Lafferty,
  NIPS 2004, "Nonparametric transforms of graph kernels for semi-supervised learning")
  — the m smallest eigenpairs of the normalized graph Laplacian with ``lambda != 1``
  (the spectrum of TSK, Liu et al. Sec. 4.1 / Table 1 Step 2), under the order
  constraints ``mu_t >= mu_{t+1} >= 0`` (Liu et al. eq. (7); Wang et al. 2015, Sec. 2);
* :class:`FastDecaySpectralKernel` (DSK; Hoi, Lyu & Chang, KDD 2006, "Learning the
  unified kernel machines for classification") — the top eigenpairs of an RBF kernel
  matrix ``K0`` over all n points, under the fast-decay constraints
  ``mu_i >= eta mu_{i+1}``, ``mu >= 0`` (Liu et al. eq. (8)).

The shared problem (Zhu et al.'s QCQP, written out in Wang et al. 2015, Sec. 2)::

    max_mu  vec(T)^T M mu   s.t.  ||M mu|| <= 1,  Gamma mu >= 0,  mu >= 0        (P)

with ``M = [vec((u_1 u_1^T)_LL), ..., vec((u_m u_m^T)_LL)]``, is solved by
:func:`alignment_qp` as an equivalent convex QP with HiGHS (derivation there).  ``M``
(``l^2 x m``) is never formed: only ``G = M^T M = (U_L^T U_L) o (U_L^T U_L)`` (Hadamard
square; ``G_st = <(u_s u_s^T)_LL, (u_t u_t^T)_LL>_F = (u_sL^T u_tL)^2``) and
``a = M^T vec(T)`` (``a_t = u_tL^T T u_tL``) enter, see :func:`alignment_terms`.

Both learners are :class:`~sskernels.learners.spectral.SpectralKernelClassifier`
subclasses: the learned kernel gives the classifier of Liu et al. eq. (5)
(``f(x_i) = argmax_k sum_{y_j = k} K_ij``), ``kernel_`` and ``kernel(A, B)``.  OSK
induces new points by Liu et al.'s eq. (17)-(19); DSK by the Nyström extension of the
RBF eigenvectors, ``u_i(x) = (1/s_i) sum_j K0(x, x_j) u_ji``.

Choices the papers leave open (each repeated where it is implemented):

* multi-class ideal kernel: ``target="simplex"`` (default), ``T_ij = 1`` for a pair of
  the same class and ``-1/(c-1)`` otherwise — the Gram matrix of unit class codes at
  the vertices of a regular simplex, so ``T`` is PSD of rank ``c-1``, every ``a_t >= 0``,
  and for ``c = 2`` it is Zhu et al.'s ``yy^T`` with ``y in {+-1}``.  ``target="pm1"``
  uses ``-1`` for every differently labeled pair (not PSD for ``c > 2``).  With a single
  labeled class ``T = 11^T``.
* the degenerate case (every feasible ``mu`` has ``a^T mu <= 0``; the best alignment is
  0, attained by ``mu = 0``, no kernel): the learner's "unlearned" feasible point is
  returned instead — uniform ``mu`` for OSK, ``mu_t = eta^{-(t-1)}`` for DSK — scaled to
  ``||M mu|| = 1``, and ``degenerate_`` is set.
* m (``n_components``) defaults to 10, Liu et al.'s m for heart and wine (they do not
  state it for OSK and DSK).
* OSK: the normalized Laplacian of the k-NN graph of eq. (2) (Zhu et al. use the
  unnormalized one), so that RSK, TSK and OSK share one spectrum and the out-of-sample
  extension; ``improved_order=True`` (Zhu et al.'s improved order constraints: the
  ``lambda = 0`` eigenvectors are exempt from the ordering).
* DSK: ``K0 = exp(-||x - z||^2 / (2 w^2))``; ``eta = 2`` (Liu et al.'s eta for TSK);
  ``kernel_width="auto"``: w from ``{0.25, 0.5, 1, 2, 4} x`` the median pairwise distance
  by 5-fold cross-validation of eq. (5) on the labeled points only, ties to the width
  nearest the median (then the wider); eigenpairs with ``s_i <= 1e-10 s_1`` are dropped.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from sklearn.metrics import pairwise_distances
from sklearn.preprocessing import normalize

from sskernels.graph import fingerprint
from sskernels.learners.base import indicator
from sskernels.learners.selection import select_on_labeled
from sskernels.learners.spectral import ZERO_TOL, SpectralKernelClassifier, decay_matrix
from sskernels.solvers import solve_qp

__all__ = [
    "AlignmentSolution", "alignment_qp", "alignment_terms", "ideal_kernel", "target_norm",
    "kernel_alignment", "order_matrix", "rbf_kernel", "rbf_spectrum", "median_distance",
    "clear_rbf_cache", "rbf_cache_info", "OrderConstrainedSpectralKernel",
    "FastDecaySpectralKernel",
]

TARGETS = ("simplex", "pm1")


# ----------------------------------------------------------------------------- ideal kernel

def _target_weights(n_classes, target):
    """``(w_same, w_diff)``: the entries of T for same-class and different-class pairs."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    if n_classes < 2:
        return 1.0, 1.0  # one labeled class: T = 11^T (w_diff never used)
    if target == "simplex":
        return 1.0, -1.0 / (n_classes - 1)
    return 1.0, -1.0


def ideal_kernel(y_enc, n_classes=None, target="simplex"):
    """The ``l x l`` ideal kernel ``T`` of encoded labels (explicit; for small l and tests).

    ``target="simplex"``: ``T_ij = 1`` if ``y_i = y_j`` else ``-1/(c-1)`` (for ``c = 2``
    Zhu et al.'s ``yy^T``); ``"pm1"``: ``-1`` for every differently labeled pair.
    """
    y_enc = np.asarray(y_enc)
    c = int(y_enc.max()) + 1 if n_classes is None else int(n_classes)
    w_same, w_diff = _target_weights(c, target)
    same = y_enc[:, None] == y_enc[None, :]
    return np.where(same, w_same, w_diff)


def target_norm(C_L, target="simplex"):
    """``||T||_F`` from the class counts of the indicator matrix ``C_L`` (l x c)."""
    counts = np.asarray(C_L).sum(axis=0)
    l, c = counts.sum(), C_L.shape[1]
    w_same, w_diff = _target_weights(c, target)
    same_pairs = float(np.sum(counts**2))
    return float(np.sqrt(w_same**2 * same_pairs + w_diff**2 * (l**2 - same_pairs)))


def alignment_terms(U_L, C_L, target="simplex"):
    """``(G, a)`` of problem (P) without forming ``M`` (``l^2 x m``).

    ``G = M^T M = (U_L^T U_L) o (U_L^T U_L)`` (Hadamard square), so that
    ``||M mu||^2 = mu^T G mu = ||K_LL||_F^2``; ``a = M^T vec(T)``, ``a_t = u_tL^T T u_tL``,
    so that ``a^T mu = <K_LL, T>_F``.  With ``T = w_d 11^T + (w_s - w_d) C C^T``:
    ``a_t = w_d (1^T u_tL)^2 + (w_s - w_d) ||C^T u_tL||^2``.  Cost ``O(l m^2)``.
    """
    U_L = np.asarray(U_L, dtype=float)
    C_L = np.asarray(C_L, dtype=float)
    gram = U_L.T @ U_L
    G = gram * gram
    w_same, w_diff = _target_weights(C_L.shape[1], target)
    class_sums = C_L.T @ U_L                       # (c, m): sum of u_tL over each class
    total = U_L.sum(axis=0)
    if C_L.shape[1] < 2:
        a = total**2
    else:
        a = w_diff * total**2 + (w_same - w_diff) * np.sum(class_sums**2, axis=0)
    return G, a


def kernel_alignment(K1, K2):
    """Cristianini et al.'s empirical alignment ``<K1, K2>_F / (||K1||_F ||K2||_F)``."""
    K1, K2 = np.asarray(K1), np.asarray(K2)
    den = np.linalg.norm(K1) * np.linalg.norm(K2)
    return float(np.sum(K1 * K2) / den) if den > 0 else 0.0


# ----------------------------------------------------------------------------- the QP

@dataclass
class AlignmentSolution:
    """Solution of problem (P): ``mu`` with ``||M mu|| = 1`` (``mu^T G mu = 1``), its value
    ``a^T mu = <K_LL, T>_F / ||K_LL||_F`` and whether the fallback was used."""

    mu: np.ndarray
    value: float
    degenerate: bool


#: relative size of the QP optimum below which (P) counts as degenerate (optimum 0)
DEGENERATE_TOL = 1e-9


def chain_generators(A, m):
    """Generators of the cone ``{x >= 0 : A x >= 0}`` when every row of ``A`` is a chain link.

    A link is a row ``c (x_t - x_{t+1}) >= 0`` with ``c > 0`` (the order constraints, and
    the decay constraints once rescaled).  The cone is then a product of order-chain
    cones over the maximal linked segments, each generated by the indicator vectors of
    its prefixes: ``x = B w`` with ``w >= 0``.  Returns ``B`` (m, m), or None when some
    row is not a link.
    """
    A = sp.csr_matrix(A)
    links = set()
    for r in range(A.shape[0]):
        cols = A.indices[A.indptr[r]:A.indptr[r + 1]]
        vals = A.data[A.indptr[r]:A.indptr[r + 1]]
        order = np.argsort(cols)
        cols, vals = cols[order], vals[order]
        if (cols.size != 2 or cols[1] != cols[0] + 1 or not vals[0] > 0
                or not np.isclose(vals[1], -vals[0], rtol=1e-12, atol=0.0)):
            return None
        links.add(int(cols[0]))
    B = np.zeros((m, m))
    for k in range(m):
        start = k
        while start - 1 in links:
            start -= 1
        B[start:k + 1, k] = 1.0
    return B


def _cone_nnls(G, a, B):
    """``argmin_{x = B w, w >= 0} 1/2 x^T G x - a^T x`` by non-negative least squares.

    With ``G = R^T R`` (from its eigendecomposition, eigenvalues below ``1e-12`` of the
    largest dropped) and ``R^T r = a`` (``a = M^T t`` lies in the range of ``G``), the
    objective is ``1/2 ||R B w - r||^2`` up to a constant: Lawson-Hanson NNLS solves it
    exactly, with none of the iteration blow-up an active-set QP can show on these
    badly scaled chains.
    """
    from scipy.optimize import nnls

    lam, Q = np.linalg.eigh(G)
    keep = lam > 1e-12 * max(lam.max(), 0.0)
    sq = np.sqrt(lam[keep])
    R = sq[:, None] * Q[:, keep].T
    r = (Q[:, keep].T @ a) / sq
    w, _ = nnls(R @ B, r, maxiter=50 * B.shape[1])
    return B @ w


def alignment_qp(G, a, constraint_matrix=None, fallback=None, scale=None):
    """Maximize the alignment ``a^T mu`` s.t. ``mu^T G mu <= 1``, ``A mu >= 0``, ``mu >= 0``.

    This is problem (P) of the module docstring, Zhu et al.'s QCQP (Wang et al. 2015,
    Sec. 2), with ``G = M^T M``, ``a = M^T t`` (``t = vec(T)``) and ``A`` =
    ``constraint_matrix`` (rows ``>= 0``: order constraints ``mu_t - mu_{t+1} >= 0`` for
    OSK, decay constraints ``mu_t - eta mu_{t+1} >= 0`` for DSK; ``None``: only
    ``mu >= 0``).  It is solved as the convex QP

        (Q)   min_{mu in C}  1/2 mu^T G mu - a^T mu  =  1/2 ||M mu - t||^2 - 1/2 ||t||^2

    over the cone ``C = {mu : A mu >= 0, mu >= 0}`` and rescaled.  When ``A`` holds chain
    links only (order and decay constraints: always, for OSK and DSK) the cone has
    explicit generators and (Q) is a non-negative least-squares problem
    (:func:`chain_generators`, :func:`_cone_nnls`); otherwise HiGHS solves (Q).

    Derivation.  ``C`` is a cone and (P) is positively homogeneous, so its value is
    ``p* = sup {a^T mu / ||M mu|| : mu in C, M mu != 0}`` (a point of the ball is scaled
    up to its boundary; ``p* >= 0`` since ``mu = 0`` is feasible).  ``M mu = 0`` forces
    ``a^T mu = t^T M mu = 0``, so (P) is bounded even when ``G`` is singular.  On the ray
    ``{s mu : s >= 0}`` of a ``mu in C`` with ``M mu != 0`` the objective of (Q) is
    ``1/2 s^2 ||M mu||^2 - s a^T mu``, minimized at ``s = (a^T mu)_+ / ||M mu||^2`` with
    value ``-1/2 ((a^T mu)_+ / ||M mu||)^2``.  Minimizing over rays gives
    ``min (Q) = -1/2 p*^2``, attained on the ray of a maximizer of (P); a minimizer
    ``mu_Q`` of (Q) is optimal on its own ray, so ``a^T mu_Q = ||M mu_Q||^2`` and
    ``p := ||M mu_Q|| = a^T mu_Q / ||M mu_Q|| = p*``.  Hence, if ``p > 0``,
    ``mu* = mu_Q / ||M mu_Q||`` solves (P) with value ``p``.  (Equivalently ``M mu_Q`` is the
    Frobenius projection of ``T`` onto the cone ``{K_LL(mu) : mu in C}``: the nearest
    feasible labeled block, unique even where ``mu`` is not.)  Liu et al. (Sec. 2) note
    that Zhu et al. solve their problem as a QCQP and Hoi et al. theirs as a QP.

    Degenerate case: ``p = 0`` (``a^T mu <= 0`` on all of ``C``; e.g. ``a <= 0``).  The
    optimal alignment is then 0, attained by ``mu = 0``, which is no kernel.  We return
    ``fallback`` (a feasible point the caller supplies; ``None`` -> zeros) scaled to
    ``mu^T G mu = 1`` when possible, flagged ``degenerate=True``.

    Scaling.  (Q) is solved in ``nu`` with ``mu = scale o nu`` (``scale``: positive, the
    typical magnitudes of the coefficients; ``None`` = ones), ``G`` and ``a`` divided by
    their largest entries and the rows of ``A diag(scale)`` equilibrated (none of which
    changes the cone or the optimal ray).  DSK passes ``scale_t = eta^{-(t-1)}``, which turns
    the decay chain into the order chain ``nu_t >= nu_{t+1}``: on the raw chain, whose
    feasible coefficients fall below the solver's tolerances after some 30 steps,
    HiGHS's active-set method needs millions of iterations for m = 70.

    Returns an :class:`AlignmentSolution`.
    """
    G = np.asarray(G, dtype=float)
    a = np.asarray(a, dtype=float)
    m = a.size
    d = np.ones(m) if scale is None else np.asarray(scale, dtype=float)
    if d.shape != (m,) or not np.all(d > 0):
        raise ValueError("scale must be a positive vector of the length of a")
    A = sp.csr_matrix((0, m)) if constraint_matrix is None else sp.csr_matrix(constraint_matrix)
    A = (A @ sp.diags(d)).tocsr()
    row_max = np.asarray(abs(A).max(axis=1).todense()).ravel() if A.shape[0] else np.zeros(0)
    A = (sp.diags(1.0 / np.where(row_max > 0, row_max, 1.0)) @ A).tocsr()
    A = A[row_max > 0]
    Gd = d[:, None] * G * d[None, :]
    ad = d * a
    g_scale = float(np.max(np.diag(Gd))) if m else 0.0
    a_scale = float(np.max(np.abs(ad))) if m else 0.0
    mu = None
    if g_scale > 0 and a_scale > 0 and np.max(ad) > 0:
        Gs, as_ = Gd / g_scale, ad / a_scale
        Gs = 0.5 * (Gs + Gs.T)
        B = chain_generators(A, m)
        if B is not None:
            x = _cone_nnls(Gs, as_, B)
        else:
            x, _ = solve_qp(Gs, -as_, A, row_lower=0.0, row_upper=np.inf,
                            col_lower=0.0, col_upper=np.inf)
        x = np.maximum(x, 0.0)
        # a'^T x = x^T G' x = p'^2 at the optimum; p'^2 ~ 0 means p* = 0
        if float(as_ @ x) > DEGENERATE_TOL and float(x @ Gs @ x) > DEGENERATE_TOL:
            mu = d * x
    if mu is None:
        mu = np.zeros(m) if fallback is None else np.asarray(fallback, dtype=float).copy()
        nrm2 = float(mu @ G @ mu)
        if nrm2 > 0:
            mu = mu / np.sqrt(nrm2)
        return AlignmentSolution(mu, float(a @ mu), True)
    mu = mu / np.sqrt(float(mu @ G @ mu))
    return AlignmentSolution(mu, float(a @ mu), False)


def order_matrix(m, skip=0):
    """Order constraints ``mu_t - mu_{t+1} >= 0`` (Zhu et al.; Liu et al. eq. (7)) for
    ``t = skip+1, ..., m-1``: Liu et al.'s ``Gamma`` of eq. (14) with ``eta = 1``."""
    return decay_matrix(m, 1.0, skip)


# ----------------------------------------------------------------------------- learners

class _AlignmentSpectralKernel(SpectralKernelClassifier):
    """Shared part of OSK and DSK: ``mu`` maximizes the alignment of ``K_LL`` with ``T``
    under ``self._constraints(eigenvalues)`` = ``(A, reference)``: rows ``A mu >= 0`` and a
    positive feasible "unlearned" point, used as the degenerate-case fallback and as the
    variable scaling of :func:`alignment_qp`.

    Fitted attributes besides the base class's: ``alignment_`` = Cristianini alignment
    ``<K_LL, T>_F / (||K_LL||_F ||T||_F)`` of the learned kernel, ``alignment_value_`` =
    the optimum of (P) (``<K_LL, T>_F`` with ``||K_LL||_F = 1``), ``degenerate_``.
    """

    def _constraints(self, eigenvalues):  # pragma: no cover - overridden
        raise NotImplementedError

    def _solve_alignment(self, eigenvalues, U_L, C_L):
        G, a = alignment_terms(U_L, C_L, self.target)
        A, reference = self._constraints(eigenvalues)
        return alignment_qp(G, a, A, fallback=reference, scale=reference)

    def _coefficients(self, lam, V, labeled, C_L):
        sol = self._solve_alignment(lam, V[labeled], C_L)
        self.alignment_value_ = sol.value
        tn = target_norm(C_L, self.target)
        self.alignment_ = sol.value / tn if tn > 0 else 0.0
        self.degenerate_ = sol.degenerate
        return sol.mu


class OrderConstrainedSpectralKernel(_AlignmentSpectralKernel):
    """Order-constrained spectral kernel (OSK), Zhu, Kandola, Ghahramani & Lafferty (NIPS 2004).

    ``K = sum_{t=1}^m mu_t v_t v_t^T`` over the m smallest eigenpairs with ``lambda != 1``
    of the normalized Laplacian of the k-NN graph — the spectrum of TSK (Liu et al.
    Sec. 4.1, Table 1 Step 2; the graph of eq. (2) by default) — with ``mu`` maximizing
    the alignment of ``K_LL`` with the ideal kernel ``T``::

        max_mu vec(T)^T M mu  s.t.  ||M mu|| <= 1,  mu_t >= mu_{t+1} >= 0

    (Zhu et al.'s QCQP as written in Wang et al. 2015, Sec. 2; Liu et al. eq. (7)), solved
    as the equivalent cone QP of :func:`alignment_qp`.  Zhu et al. use the unnormalized
    Laplacian; we use the normalized one shared by RSK/TSK so that the three kernels
    differ only in ``mu`` and share Liu et al.'s out-of-sample extension eq. (17)-(19).

    Parameters
    ----------
    n_neighbors, weights, sigma, metric : the k-NN graph, as for
        :class:`~sskernels.learners.spectral.TransductiveSpectralKernel`.
    n_components : m (default 10, Liu et al.'s m for heart and wine; they do not state it
        for OSK).  ``None`` takes the full spectrum.
    improved_order : True (default, our choice) applies Zhu et al.'s "improved order
        constraints": the eigenvectors with ``lambda = 0`` (one per connected component;
        ``D^{1/2}`` times a component indicator for the normalized Laplacian, the analogue
        of Zhu et al.'s constant eigenvectors) are left out of the order constraints
        (only ``mu_t >= 0``) — Zhu et al.'s refinement of their order constraints.
        False constrains all m coefficients.
    target : ideal kernel, ``"simplex"`` (default; ``T_ij = 1`` same class, ``-1/(c-1)``
        otherwise, = ``yy^T`` for two classes) or ``"pm1"`` (``-1`` otherwise).

    Degenerate case (no feasible ``mu`` with positive alignment): uniform ``mu``
    (``degenerate_ = True``).
    """

    def __init__(self, n_neighbors=6, weights="hein-maier", sigma=None, metric="euclidean",
                 n_components=10, improved_order=True, target="simplex"):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.n_components = n_components
        self.improved_order = improved_order
        self.target = target

    def _constraints(self, lam):
        m = lam.size
        skip = int(np.sum(lam < ZERO_TOL)) if self.improved_order else 0
        return order_matrix(m, skip), np.ones(m)


# ----------------------------------------------------------------------------- RBF spectra

#: eigenpairs of K0 with s_i <= RBF_RTOL * s_1 are dropped (the Nyström extension divides by s_i)
RBF_RTOL = 1e-10
#: largest n for which the pairwise-distance median uses every pair (else a fixed subsample)
MEDIAN_MAX_N = 2000
#: n above which only the requested top eigenpairs are computed
RBF_DENSE_MAX_N = 2500


def _prepare(X, metric):
    if metric == "euclidean":
        return X
    if metric == "cosine":
        return normalize(X)
    raise ValueError(f"metric must be 'euclidean' or 'cosine', got {metric!r}")


def rbf_kernel(A, B, width, metric="euclidean"):
    """``K0(a, b) = exp(-||a - b||^2 / (2 width^2))`` (cosine: on unit-normalized rows)."""
    if not width > 0:
        raise ValueError(f"kernel width must be > 0, got {width}")
    D2 = pairwise_distances(_prepare(A, metric), _prepare(B, metric), metric="sqeuclidean")
    return np.exp(-D2 / (2.0 * float(width) ** 2))


@dataclass
class RBFSpectrum:
    """Leading eigenpairs of ``K0`` (largest first): ``values`` (k,), ``vectors`` (n, k).

    Duck-types :class:`sskernels.graph.Spectrum` for
    :meth:`SpectralKernelClassifier._scores`: ``spectrum(m)`` and ``smallest(m)`` give the
    first m pairs in the order the kernel uses (for an RBF kernel the *largest*);
    ``exclude_one`` is meaningless here (the Nyström extension divides by ``s_i``, not by
    ``1 - lambda``) and ignored.  ``complete``: every pair with ``s_i > RBF_RTOL s_1``.
    """

    values: np.ndarray
    vectors: np.ndarray
    complete: bool

    def spectrum(self, m=None):
        return self

    def smallest(self, m, exclude_one=True):
        if m is not None and m > self.values.size and not self.complete:
            raise ValueError(f"only {self.values.size} eigenpairs computed, {m} asked")
        k = self.values.size if m is None else min(m, self.values.size)
        return self.values[:k], self.vectors[:, :k]


_RBF_CACHE: OrderedDict = OrderedDict()
_RBF_CACHE_SIZE = 16
_RBF_STATS = {"hits": 0, "misses": 0}
_MEDIAN_CACHE: OrderedDict = OrderedDict()


def clear_rbf_cache():
    _RBF_CACHE.clear()
    _MEDIAN_CACHE.clear()
    _RBF_STATS.update(hits=0, misses=0)


def rbf_cache_info():
    """``{"hits", "misses", "size"}`` of the RBF eigendecomposition cache."""
    return dict(_RBF_STATS, size=len(_RBF_CACHE))


def rbf_spectrum(X, width, m=None, metric="euclidean", key=None):
    """Top-m eigenpairs ``K0 = sum_i s_i u_i u_i^T`` of the RBF matrix over all rows of X.

    Label-independent, so memoized (LRU of 16) by ``(fingerprint(X), metric, width)``;
    ``key`` passes a precomputed fingerprint.  ``m=None`` gives every pair with
    ``s_i > RBF_RTOL s_1``.  Dense ``eigh`` of all pairs for ``n <= 2500``, else only the
    top m (``subset_by_index``).  Eigenvalues are returned in decreasing order.
    """
    n = X.shape[0]
    if m is not None and not 1 <= m <= n:
        raise ValueError(f"n_components must be in [1, {n}], got {m}")
    fp = fingerprint(X) if key is None else key
    ck = (fp, metric, float(width))
    hit = _RBF_CACHE.get(ck)
    if hit is not None and (hit.complete or (m is not None and hit.values.size >= m)):
        _RBF_CACHE.move_to_end(ck)
        _RBF_STATS["hits"] += 1
        return hit
    _RBF_STATS["misses"] += 1
    K0 = rbf_kernel(X, X, width, metric)
    if m is None or n <= RBF_DENSE_MAX_N:
        s, U = eigh(K0)
        full = True
    else:
        s, U = eigh(K0, subset_by_index=[n - m, n - 1])
        full = False
    s, U = s[::-1], U[:, ::-1]
    keep = s > RBF_RTOL * max(s[0], 0.0)
    s, U = s[keep], U[:, keep]
    complete = full or keep.size > keep.sum()
    if m is not None and m < s.size:  # hold only what was asked (memory: n x m per width)
        s, U, complete = s[:m], U[:, :m], False
    spec = RBFSpectrum(np.ascontiguousarray(s), np.ascontiguousarray(U), complete)
    _RBF_CACHE[ck] = spec
    while len(_RBF_CACHE) > _RBF_CACHE_SIZE:
        _RBF_CACHE.popitem(last=False)
    return spec


def median_distance(X, metric="euclidean", key=None):
    """Median pairwise distance of the rows of X (label-independent; memoized).

    Every pair for ``n <= 2000``, else the pairs of a fixed random subsample of 2000 rows
    (seed 0).  Falls back to the mean, then 1, when the median is 0.
    """
    fp = fingerprint(X) if key is None else key
    ck = (fp, metric)
    if ck in _MEDIAN_CACHE:
        return _MEDIAN_CACHE[ck]
    Z = _prepare(X, metric)
    n = Z.shape[0]
    if n > MEDIAN_MAX_N:
        Z = Z[np.sort(np.random.default_rng(0).choice(n, MEDIAN_MAX_N, replace=False))]
    D = pairwise_distances(Z)
    d = D[np.triu_indices(D.shape[0], k=1)]
    med = float(np.median(d)) if d.size else 1.0
    if not med > 0:
        med = float(np.mean(d)) if d.size and np.mean(d) > 0 else 1.0
    _MEDIAN_CACHE[ck] = med
    while len(_MEDIAN_CACHE) > _RBF_CACHE_SIZE:
        _MEDIAN_CACHE.popitem(last=False)
    return med


class RBFSpace:
    """The label-independent object DSK works over, in place of the k-NN graph.

    Holds X, its fingerprint and the candidate widths; ``at(width)`` gives the memoized
    :class:`RBFSpectrum`; ``spectrum(m)`` computes the spectra of every candidate width
    (the experiment runner's warm-up calls ``est._graph(X).spectrum(m)``).
    """

    def __init__(self, X, metric, kernel_width, width_grid):
        self.X = X
        self.metric = metric
        self.key = fingerprint(X)
        self.kernel_width = kernel_width
        self.width_grid = tuple(width_grid)
        self.m = None

    @property
    def median(self):
        return median_distance(self.X, self.metric, key=self.key)

    def candidate_widths(self):
        """The widths DSK may use: the grid times the median distance ("auto"), the
        median itself ("median") or the given number."""
        w = self.kernel_width
        if isinstance(w, str):
            if w == "auto":
                return [f * self.median for f in self.width_grid]
            if w == "median":
                return [self.median]
            raise ValueError(f"kernel_width must be > 0, 'auto' or 'median', got {w!r}")
        if not w > 0:
            raise ValueError(f"kernel_width must be > 0, got {w}")
        return [float(w)]

    def at(self, width, m=None):
        return rbf_spectrum(self.X, width, m, self.metric, key=self.key)

    def spectrum(self, m=None):
        for w in self.candidate_widths():
            self.at(w, m)
        return self

    def cross_kernel(self, Xnew, width, exclude=None):
        """``K0(x, x_j)`` for new points (s, n); ``exclude[r] = j`` zeroes ``K0(x_r, x_j)``."""
        K = rbf_kernel(Xnew, self.X, width, self.metric)
        if exclude is not None:
            exclude = np.asarray(exclude)
            rows = np.flatnonzero(exclude >= 0)
            K[rows, exclude[rows]] = 0.0
        return K


class FastDecaySpectralKernel(_AlignmentSpectralKernel):
    """Fast-decay spectral kernel (DSK), Hoi, Lyu & Chang (KDD 2006); Liu et al. eq. (8).

    The initial kernel is an RBF matrix over all n points (labeled and unlabeled),
    ``K0 = exp(-||x_i - x_j||^2 / (2 w^2)) = sum_i s_i u_i u_i^T``; its top
    ``n_components`` eigenpairs (largest ``s_i`` first) span
    ``K = sum_i mu_i u_i u_i^T`` with ``mu`` maximizing the alignment of ``K_LL`` with the
    ideal kernel ``T`` under the fast-decay constraints::

        max_mu vec(T)^T M mu  s.t.  ||M mu|| <= 1,  mu_i >= eta mu_{i+1},  mu >= 0,

    solved as the cone QP of :func:`alignment_qp` (the problem of OSK with another
    spectrum and cone).  Classification by Liu et al. eq. (5) on ``K``; new points by the
    Nyström extension ``u_i(x) = (1/s_i) sum_j K0(x, x_j) u_ji``, exact on training
    points (``K0 u_i = s_i u_i``), so ``K(x, x_j) = sum_i mu_i u_i(x) u_ji``.  The extended
    kernel over training and new points is ``P diag(mu) P^T``, hence PSD.

    Parameters
    ----------
    n_components : number of leading eigenpairs of ``K0`` (default 10, as OSK/TSK; not
        stated by Liu et al.).  ``None``: all with ``s_i > 1e-10 s_1``; pairs below that
        are always dropped (the Nyström extension divides by ``s_i``), so fewer than
        asked may be kept (``eigenvalues_.size``).
    eta : decay factor (default 2, the eta Liu et al. fix for TSK, Sec. 5).
    kernel_width : the RBF width ``w`` (a number), ``"median"`` (the median pairwise
        distance), or ``"auto"`` (default): chosen from ``width_grid`` times the median
        pairwise distance of all n points (label-independent) by ``width_folds``-fold
        cross-validation on the labeled points only (Liu et al. Sec. 5.1: "the initial
        kernel for DSK learning [is] set by cross validation"): a fold's labels are
        hidden, ``mu`` is learned from the other labeled points and the fold is
        classified by eq. (5).  Ties go to the width closest to the median in log scale,
        then the wider one (our choice).
    width_grid : multiples of the median distance (default ``(0.25, 0.5, 1, 2, 4)``).
    width_folds, random_state : the folds of
        :func:`~sskernels.learners.selection.select_on_labeled`.
    metric : "euclidean" or "cosine" (RBF on unit-normalized rows).
    target : the ideal kernel, as for :class:`OrderConstrainedSpectralKernel`.

    Degenerate case: ``mu_i = eta^{-(i-1)}`` (``degenerate_ = True``).

    Fitted attributes: those of :class:`SpectralKernelClassifier` (``eigenvalues_`` are
    the ``s_i``, ``eigenvectors_`` the ``u_i``), ``width_``, ``width_candidates_`` and
    ``width_scores_`` (CV accuracy per candidate, grid order; "auto" only),
    ``alignment_``, ``alignment_value_``, ``degenerate_``.  ``graph_`` holds the
    :class:`RBFSpace` (there is no graph).  Eigendecompositions are memoized per
    (data, width) by :func:`rbf_spectrum`, so fits over many splits compute each once.
    """

    def __init__(self, n_components=10, eta=2.0, kernel_width="auto",
                 width_grid=(0.25, 0.5, 1.0, 2.0, 4.0), width_folds=5, random_state=0,
                 metric="euclidean", target="simplex"):
        self.n_components = n_components
        self.eta = eta
        self.kernel_width = kernel_width
        self.width_grid = width_grid
        self.width_folds = width_folds
        self.random_state = random_state
        self.metric = metric
        self.target = target

    def _constraints(self, s):
        m = s.size
        if not self.eta >= 1:
            raise ValueError(f"eta must be >= 1, got {self.eta}")
        return decay_matrix(m, self.eta), float(self.eta) ** -np.arange(m, dtype=float)

    # GraphClassifier.fit builds "the graph" with this; DSK needs the RBF spectra instead
    def _graph(self, X):
        return RBFSpace(X, self.metric, self.kernel_width, self.width_grid)

    def _scores(self, space, labeled, C_L):
        widths = space.candidate_widths()
        if len(widths) > 1:
            self.width_, self.width_scores_ = self._select_width(space, widths, labeled, C_L)
            self.width_candidates_ = np.asarray(widths)
        else:
            self.width_ = widths[0]
        # the base class takes the spectrum, solves _coefficients and forms eq. (5)
        return super()._scores(space.at(self.width_, self.n_components), labeled, C_L)

    def _select_width(self, space, widths, labeled, C_L):
        """Cross-validated width on the labeled points only (``select_on_labeled``)."""
        y_enc = np.argmax(C_L, axis=1)
        c = C_L.shape[1]
        factors = np.asarray(self.width_grid, dtype=float)
        # preference order for ties (last = preferred): far from the median first
        order = sorted(range(len(widths)), key=lambda i: (-abs(np.log(factors[i])), factors[i]))

        def predict(i, train, test):
            s, U = space.at(widths[i], self.n_components).smallest(self.n_components)
            U_L = U[labeled]
            C_tr = indicator(y_enc[train], c)
            mu = self._solve_alignment(s, U_L[train], C_tr).mu
            F = (U_L[test] * mu) @ (U_L[train].T @ C_tr)
            return np.argmax(F, axis=1)

        best, scores = select_on_labeled(order, predict, y_enc, n_folds=self.width_folds,
                                         random_state=self.random_state, prefer="last")
        by_grid = np.empty(len(widths))
        by_grid[order] = scores
        return widths[best], by_grid

    def spectral_embedding(self, X=None, exclude=None):
        """Rows ``u(x)`` of the training points (``X=None``) or their Nyström extension
        ``u_i(x) = (1/s_i) sum_j K0(x, x_j) u_ji`` (``exclude`` drops one ``x_j`` per row)."""
        if X is None:
            return self.eigenvectors_
        Kx = self.graph_.cross_kernel(X, self.width_, exclude=exclude)
        return (Kx @ self.eigenvectors_) / self.eigenvalues_
