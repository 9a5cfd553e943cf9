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

from sskernels.graph import fingerprint
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
from sskernels.learners.spectral import ZERO_TOL, SpectralKernelClassifier, decay_matrix
from sskernels.solvers.cone import (  # noqa: F401 - re-exported (old import path)
    AlignmentSolution,
    alignment_qp,
    chain_generators,
)

__all__ = [
    "AlignmentSolution", "alignment_qp", "alignment_terms", "ideal_kernel", "target_norm",
    "kernel_alignment", "order_matrix", "chain_generators", "rbf_kernel", "rbf_spectrum",
    "median_distance", "clear_rbf_cache", "rbf_cache_info", "OrderConstrainedSpectralKernel",
    "FastDecaySpectralKernel", "WIDTH_SCALES",
]

#: DSK's width scales (multiples of the median distance), most preferred first when tied
WIDTH_SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)


def order_matrix(m, skip=0):
    """Order constraints ``mu_t - mu_{t+1} >= 0`` (Zhu et al.; Liu et al. eq. (7)) for
    ``t = skip+1, ..., m-1``: Liu et al.'s ``Gamma`` of eq. (14) with ``eta = 1``."""
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
            self.fit_report_.note("degenerate", "alignment: no feasible mu has a positive "
                                  f"alignment with the ideal kernel; {self._unlearned} used")
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

    Parameters
    ----------
    graph : the k-NN graph builder (default: k = 6 with the weights of Liu et al.
        eq. (2)), or ``"precomputed"``.
    n_components : m (default 10, Liu et al.'s m for heart and wine; they do not state it
        for OSK).  ``None`` takes the full spectrum.
    improved_order : True (default, our choice) applies Zhu et al.'s "improved order
        constraints": the eigenvectors with ``lambda = 0`` (one per connected component)
        are left out of the order constraints (only ``mu_t >= 0``).  False constrains all
        m coefficients.
    target : ideal kernel, ``"simplex"`` (default; ``T_ij = 1`` same class, ``-1/(c-1)``
        otherwise, = ``yy^T`` for two classes) or ``"pm1"`` (``-1`` otherwise).

    Degenerate case (no feasible ``mu`` with positive alignment): uniform ``mu``,
    ``degenerate_ = True``, reported in ``fit_report_``.
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

    Parameters
    ----------
    n_components : number of leading eigenpairs of ``K0`` (default 10, as OSK/TSK; not
        stated by Liu et al.).  ``None``: all with ``s_i > 1e-10 s_1``; pairs below that
        are always dropped (the Nystrom extension divides by ``s_i``), so fewer than
        asked may be kept (``eigenvalues_.size``).
    eta : decay factor (default 2, the eta Liu et al. fix for TSK, Sec. 5).
    kernel_width : the RBF width ``w``: a number, ``"median"`` (default; the median
        pairwise distance of all n points, :func:`sskernels.kernels.rbf.median_distance`)
        or ``"mean-norm"``; the width used is ``kernel_width_scale`` times it.
    kernel_width_scale : factor on ``kernel_width`` (default 1).  Liu et al. (Sec. 5.1)
        set DSK's initial kernel "by cross validation"; our choice, the default selection
        of the ``dsk`` method (``_selection``): the scale from :data:`WIDTH_SCALES` by
        5-fold cross-validation on the labeled points only
        (:class:`~sskernels.learners.selection.SelectOnLabeled`: a fold's labels are
        hidden, ``mu`` is learned from the other labeled points and the fold classified
        by eq. (5)); ties go to the scale nearest 1 in log scale, then the larger.
    metric : "euclidean" or "cosine" (RBF on unit-normalized rows).
    target : the ideal kernel, as for :class:`OrderConstrainedSpectralKernel`.

    Degenerate case: ``mu_i = eta^{-(i-1)}``, ``degenerate_ = True``, reported in
    ``fit_report_``.

    Fitted attributes: ``eigenvalues_`` (the ``s_i``), ``eigenvectors_`` (the ``u_i``),
    ``mu_``, ``width_`` (the width used), ``kernel_`` (n, n), ``scores_``,
    ``transduction_``, ``alignment_``, ``alignment_value_``, ``degenerate_``.
    Eigendecompositions are memoized per (data, width) by :func:`rbf_spectrum`, so fits
    over many splits, folds and candidates compute each once.
    """

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

    def __init__(self, n_components=10, eta=2.0, kernel_width="median", kernel_width_scale=1.0,
                 metric="euclidean", target="simplex"):
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
        """The label-independent part of ``fit`` (median distance, RBF spectrum), memoized."""
        self._validate_params()
        X = check_array(X, accept_sparse=self.accept_sparse, dtype=np.float64)
        return self._spectrum(X)[1]

    def fit(self, X, y):
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

    def _fold_predictor(self, X, labeled, y_enc, keys):
        """Folds and candidates share the RBF spectra (one per width); a fold is one QP.

        The fold's targets keep every class's column (``c`` = the classes of all labeled
        points), as :meth:`fit` with all labels would: a class absent from a training
        fold gets a zero column.
        """
        self._validate_params()
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
        """Rows ``u(x)`` of the training points (``X=None``) or their Nystrom extension
        ``u_i(x) = (1/s_i) sum_j K0(x, x_j) u_ji`` (``exclude[r] = j`` drops ``x_j`` for row r)."""
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
        """``K(a, b) = u(a) diag(mu) u(b)^T``; None means the training points."""
        Ua = self.spectral_embedding(A)
        return (Ua * self.mu_) @ (Ua if B is A else self.spectral_embedding(B)).T

    def decision_function(self, X):
        """Scores of new points, eq. (5) on the extended kernel: ``F = K(x, L) C_L``.

        (s, c) for c > 2 classes; for two classes, scikit-learn's (s,) with positive =
        ``classes_[1]``: ``F[:, 1] - F[:, 0]``.
        """
        check_is_fitted(self, "mu_")
        U_L = self.eigenvectors_[self.labeled_]
        F = self.spectral_embedding(X) @ (self.mu_[:, None] * (U_L.T @ self.C_L_))
        return F[:, 1] - F[:, 0] if self.classes_.size == 2 else F
