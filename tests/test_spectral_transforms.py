"""OSK and DSK (sskernels.learners.spectral_transforms) against independent computations.

* the alignment terms ``G = M^T M``, ``a = M^T vec(T)`` against an explicit ``M``;
* the cone-QP optimum of :func:`alignment_qp` against SLSQP on the ORIGINAL problem
  ``max vec(T)^T M mu s.t. ||M mu|| <= 1`` and the order/decay constraints (``M`` and the
  constraints written out with numpy), and against an NNLS projection of ``vec(T)`` onto
  the cone (a parametrization of the cone by nonnegative generators);
* fitted kernels: PSD, constraints, alignment at least that of feasible unlearned spectra;
* DSK's Nyström extension against the training rows; the width-scale selection
  (``SelectOnLabeled``, the ``dsk`` method's default) against an independent
  cross-validation over the labeled points only;
* the new estimator layer: the cone solver's fallback and the degenerate alignment are
  reported in ``fit_report_``; invalid parameters and X/y length mismatches fail before
  any computation; ``graph="precomputed"`` for OSK.
"""

import numpy as np
import pytest
from scipy.optimize import minimize, nnls
from scipy.spatial.distance import pdist
from sklearn.datasets import load_wine, make_moons
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf
from sklearn.preprocessing import minmax_scale
from threadpoolctl import threadpool_limits

import sskernels.solvers.cone as cone
import sskernels.solvers.highs as highs
from sskernels.experiment.splits import random_split
from sskernels.graph import KNNGraph, clear_cache, get_graph
from sskernels.kernels.alignment import (
    alignment_terms,
    ideal_kernel,
    kernel_alignment,
    target_norm,
)
from sskernels.kernels.spectra import clear_rbf_cache, rbf_cache_info
from sskernels.learners.registry import make_method
from sskernels.learners.selection import SelectOnLabeled, generic_fold_predictor, labeled_folds
from sskernels.learners.spectral import TransductiveSpectralKernel
from sskernels.learners.spectral_transforms import (
    WIDTH_SCALES,
    FastDecaySpectralKernel,
    OrderConstrainedSpectralKernel,
    order_matrix,
)
from sskernels.solvers.cone import alignment_qp, chain_generators


@pytest.fixture(autouse=True)
def _env():
    clear_cache()
    clear_rbf_cache()
    with threadpool_limits(limits=1):
        yield
    clear_cache()
    clear_rbf_cache()


# ---------------------------------------------------------------------------- helpers

#: one cone QP takes fewer iterations than this (today: NNLS 4-5; HiGHS 5-8 on the scaled
#: QP, but over a million on the unscaled 70-long decay chain, coefficients down to 2^-69)
ITERATION_BOUNDS = {"nnls": 50, "highs": 1000}


@pytest.fixture
def cone_solves(monkeypatch):
    """``(solver, iterations)`` of every cone-QP solve of the test: work counted, not timed.

    scipy's NNLS does not report its iterations: they are the smallest ``maxiter`` it
    succeeds with (bisection; Lawson-Hanson is deterministic), then it solves as asked.
    HiGHS reports them; its iteration limits are set to the bound, so that a runaway solve
    stops there (a ``SolverError``, or a count at the bound if a caller falls back) rather
    than at its time limit.
    """
    solves = []
    nnls, solver, solve = cone.nnls, highs._solver, highs._solve

    def counted_nnls(A, b, maxiter):
        lo, hi = 1, maxiter
        try:
            nnls(A, b, maxiter=hi)
        except RuntimeError:
            lo = hi = maxiter + 1  # more than allowed: cone_qp falls back to HiGHS
        while lo < hi:
            mid = (lo + hi) // 2
            try:
                nnls(A, b, maxiter=mid)
                hi = mid
            except RuntimeError:
                lo = mid + 1
        solves.append(("nnls", lo))
        return nnls(A, b, maxiter=maxiter)

    def limited_solver(time_limit=None):
        h = solver(time_limit)
        for option in ("qp_iteration_limit", "simplex_iteration_limit", "ipm_iteration_limit"):
            h.setOptionValue(option, ITERATION_BOUNDS["highs"])
        return h

    def counted_solve(h):
        try:
            return solve(h)
        finally:
            info = h.getInfo()
            solves.append(
                (
                    "highs",
                    info.qp_iteration_count
                    + info.simplex_iteration_count
                    + info.ipm_iteration_count,
                )
            )

    monkeypatch.setattr(cone, "nnls", counted_nnls)
    monkeypatch.setattr(highs, "_solver", limited_solver)
    monkeypatch.setattr(highs, "_solve", counted_solve)
    return solves


def assert_few_iterations(solves, n_solves):
    assert len(solves) == n_solves, solves
    assert all(it < ITERATION_BOUNDS[solver] for solver, it in solves), solves


def wine(n_labeled=20, seed=0):
    X, y = load_wine(return_X_y=True)
    X = minmax_scale(X)
    lab = random_split(y, n_labeled, seed, 0)
    yp = np.full(y.size, -1)
    yp[lab] = y[lab]
    return X, y, yp, lab


def explicit_M(U_L):
    """``M = [vec((u_1 u_1^T)_LL), ..., vec((u_m u_m^T)_LL)]`` (l^2 x m), written out."""
    return np.stack([np.outer(u, u).ravel() for u in U_L.T], axis=1)


def explicit_T(y_enc, c, target):
    l = y_enc.size
    T = np.empty((l, l))
    for i in range(l):
        for j in range(l):
            if y_enc[i] == y_enc[j]:
                T[i, j] = 1.0
            else:
                T[i, j] = -1.0 / (c - 1) if target == "simplex" else -1.0
    return T


def chain_rows(m, factor, start=0):
    """Rows ``mu_t - factor mu_{t+1} >= 0`` for t = start..m-2, as a dense numpy array."""
    rows = []
    for t in range(start, m - 1):
        r = np.zeros(m)
        r[t], r[t + 1] = 1.0, -factor
        rows.append(r)
    return np.array(rows).reshape(-1, m)


def cone_generators(m, factor, start=0):
    """``B`` with ``{mu : chain constraints, mu >= 0} = {B z : z >= 0}``.

    For t >= start: ``mu_t = factor mu_{t+1} + z_t``, i.e. ``mu_t = sum_{s >= t} factor^(s-t) z_s``;
    the first ``start`` coefficients are free (``mu_t = z_t``).
    """
    B = np.zeros((m, m))
    for t in range(m):
        if t < start:
            B[t, t] = 1.0
        else:
            for s in range(t, m):
                B[t, s] = factor ** (s - t)
    return B


def slsqp_original(M, t, A_rows, mu0):
    """``max t^T M mu  s.t.  ||M mu||^2 <= 1, A mu >= 0, mu >= 0`` with SLSQP."""
    cons = [
        {
            "type": "ineq",
            "fun": lambda x: 1.0 - np.sum((M @ x) ** 2),
            "jac": lambda x: -2.0 * (M.T @ (M @ x)),
        }
    ]
    if A_rows.shape[0]:
        cons.append({"type": "ineq", "fun": lambda x: A_rows @ x, "jac": lambda x: A_rows})
    c = M.T @ t
    best = None
    for start in (mu0, np.ones_like(mu0) * 1e-3):
        res = minimize(
            lambda x: -(c @ x),
            start,
            jac=lambda x: -c,
            method="SLSQP",
            bounds=[(0, None)] * len(mu0),
            constraints=cons,
            options={"ftol": 1e-15, "maxiter": 2000},
        )
        if best is None or -res.fun > -best.fun:
            best = res
    return best.x, -best.fun


def random_instance(seed, l=12, m=7, n=50, n_classes=2):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    # a spectrum with some label signal in the leading vectors
    y_full = rng.integers(0, n_classes, n)
    lab = np.sort(rng.choice(n, l, replace=False))
    y_enc = y_full[lab]
    y_enc[:n_classes] = np.arange(n_classes)  # every class labeled
    U = Q[:, :m].copy()
    # label signal in every vector, decaying along the spectrum, with random class codes
    codes = rng.standard_normal((n_classes, m)) / (1.0 + np.arange(m))
    U[lab] += 0.3 * codes[y_enc]
    lam = np.concatenate([[0.0], np.sort(rng.uniform(0.05, 0.9, m - 1))])
    return lam, U[lab], y_enc


# ---------------------------------------------------------------------------- the QP


@pytest.mark.parametrize("target", ["simplex", "pm1"])
@pytest.mark.parametrize("n_classes", [1, 2, 3])
def test_alignment_terms_match_explicit_M(n_classes, target):
    lam, U_L, y_enc = random_instance(0, n_classes=n_classes)
    c = n_classes
    C = np.eye(c)[y_enc]
    G, a = alignment_terms(U_L, C, target)
    M = explicit_M(U_L)
    T = np.ones((12, 12)) if c == 1 else explicit_T(y_enc, c, target)
    np.testing.assert_allclose(G, M.T @ M, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a, M.T @ T.ravel(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ideal_kernel(y_enc, c, target), T)
    assert target_norm(C, target) == pytest.approx(np.linalg.norm(T))
    if target == "simplex":  # the simplex ideal kernel is PSD, so every a_t >= 0
        assert np.linalg.eigvalsh(T).min() > -1e-12 and a.min() >= -1e-14


def _learner_constraints(kind):
    if kind == "order":
        est = OrderConstrainedSpectralKernel(improved_order=False)
        return est, lambda m: chain_rows(m, 1.0), lambda m: cone_generators(m, 1.0)
    if kind == "improved":
        est = OrderConstrainedSpectralKernel(improved_order=True)
        return est, lambda m: chain_rows(m, 1.0, 1), lambda m: cone_generators(m, 1.0, 1)
    est = FastDecaySpectralKernel(eta=2.0)
    return est, lambda m: chain_rows(m, 2.0), lambda m: cone_generators(m, 2.0)


@pytest.mark.parametrize("kind", ["order", "improved", "decay"])
@pytest.mark.parametrize(
    "seed,n_classes,target",
    [(1, 2, "simplex"), (2, 3, "simplex"), (3, 3, "pm1"), (4, 2, "simplex")],
)
def test_alignment_qp_equals_slsqp_on_original_problem(kind, seed, n_classes, target):
    lam, U_L, y_enc = random_instance(seed, n_classes=n_classes)
    m = lam.size
    est, rows, gens = _learner_constraints(kind)
    est.target = target
    C = np.eye(n_classes)[y_enc]
    sol = est._solve_alignment(lam, U_L, C)  # what the learner solves (scaled)
    assert not sol.degenerate
    A, reference = est._constraints(lam)
    G, a = alignment_terms(U_L, C, target)
    plain = alignment_qp(G, a, A)  # no variable scaling
    assert plain.value == pytest.approx(sol.value, rel=1e-10)
    np.testing.assert_allclose(plain.mu, sol.mu, atol=1e-5 * sol.mu.max())  # HiGHS tolerances
    # the original problem, everything explicit
    M, t = explicit_M(U_L), explicit_T(y_enc, n_classes, target).ravel()
    mu0 = gens(m) @ np.ones(m)
    mu0 = 0.5 * mu0 / np.linalg.norm(M @ mu0)
    x, val = slsqp_original(M, t, rows(m), mu0)
    assert np.linalg.norm(M @ sol.mu) == pytest.approx(1.0, rel=1e-9)
    assert t @ (M @ sol.mu) == pytest.approx(sol.value, rel=1e-9)
    assert sol.value == pytest.approx(val, rel=1e-5)
    np.testing.assert_allclose(M @ sol.mu, M @ x, atol=1e-4)
    np.testing.assert_allclose(sol.mu, x, atol=1e-3 * np.abs(x).max())
    # feasibility of the HiGHS point in the explicitly written constraints
    assert np.all(rows(m) @ sol.mu >= -1e-9 * sol.mu.max()) and np.all(sol.mu >= 0)
    # second reference: the NNLS projection of vec(T) onto the cone {M B z : z >= 0}
    B = gens(m)
    z, _ = nnls(M @ B, t)
    proj = B @ z
    np.testing.assert_allclose(
        sol.mu, proj / np.linalg.norm(M @ proj), rtol=1e-5, atol=1e-6 * sol.mu.max()
    )


@pytest.mark.parametrize("method", ["osk", "dsk"])
def test_fitted_mu_solves_original_problem_on_wine(method):
    X, y, yp, lab = wine(20, seed=1)
    if method == "osk":
        est = OrderConstrainedSpectralKernel(n_components=10, improved_order=False).fit(X, yp)
        rows = chain_rows(10, 1.0)
    else:
        est = FastDecaySpectralKernel(n_components=10, eta=2.0, kernel_width=0.4).fit(X, yp)
        rows = chain_rows(10, 2.0)
    U_L = est.eigenvectors_[lab]
    y_enc = np.unique(yp[lab], return_inverse=True)[1]
    M, t = explicit_M(U_L), explicit_T(y_enc, 3, "simplex").ravel()
    x, val = slsqp_original(
        M, t, rows, 0.5 * 2.0 ** -np.arange(10.0) / np.linalg.norm(M @ 2.0 ** -np.arange(10.0))
    )
    assert t @ (M @ est.mu_) == pytest.approx(val, rel=1e-5)
    np.testing.assert_allclose(est.mu_, x, atol=1e-3 * est.mu_.max())
    # alignment_ is Cristianini's alignment of K_LL with T
    K_LL = est.kernel_[np.ix_(lab, lab)]
    assert est.alignment_ == pytest.approx(
        kernel_alignment(K_LL, explicit_T(y_enc, 3, "simplex")), rel=1e-9
    )


def test_degenerate_problems_return_the_documented_fallback():
    rng = np.random.default_rng(5)
    U_L = rng.standard_normal((8, 4))
    G = (U_L.T @ U_L) ** 2
    A = chain_rows(4, 1.0)
    # a <= 0: every feasible mu has a^T mu <= 0 (no QP is needed: no solver ran)
    sol = alignment_qp(G, -np.abs(rng.standard_normal(4)), A, fallback=np.ones(4))
    assert sol.degenerate and sol.info is None
    np.testing.assert_allclose(sol.mu, np.ones(4) / np.sqrt(np.ones(4) @ G @ np.ones(4)))
    # a has positive entries, yet mu_1 >= mu_2 >= ... >= 0 forces a^T mu <= 0
    sol = alignment_qp(G, np.array([-2.0, 1.0, 0.5, 0.25]), A, fallback=np.ones(4))
    assert sol.degenerate and sol.value < 0
    # without a fallback: the zero-alignment solution mu = 0
    sol = alignment_qp(G, -np.ones(4), A)
    assert sol.degenerate and not sol.mu.any() and sol.value == 0.0
    # the same a without the order constraints is not degenerate
    sol = alignment_qp(G, np.array([-2.0, 1.0, 0.5, 0.25]), None)
    assert not sol.degenerate and sol.info.solver == "nnls" and sol.info.fallback is None


# ---------------------------------------------------------------------------- fitted kernels


def _check_psd(K):
    w = np.linalg.eigvalsh(0.5 * (K + K.T))
    assert w.min() >= -1e-9 * max(w.max(), 1e-300)


def test_fitted_kernels_are_psd_and_satisfy_their_constraints():
    X, y, yp, lab = wine(20, seed=2)
    for improved in (False, True):
        osk = OrderConstrainedSpectralKernel(n_components=10, improved_order=improved).fit(X, yp)
        mu = osk.mu_
        skip = int(np.sum(osk.eigenvalues_ < 1e-9)) if improved else 0
        assert not improved or skip >= 1
        tol = 1e-9 * mu.max()
        assert np.all(mu >= 0)
        assert np.all(mu[skip:-1] >= mu[skip + 1 :] - tol)
        _check_psd(osk.kernel_)
        # the expanded kernel over training and new points (Liu et al. Thm. 2)
        Z = np.vstack([X[:40], minmax_scale(X[:15] + 0.05)])
        _check_psd(osk.kernel(Z, Z))
    dsk = make_method("dsk", n_components=12, eta=2.0).fit(X, yp).best_estimator_
    mu = dsk.mu_
    assert np.all(mu >= 0)
    assert np.all(mu[:-1] >= 2.0 * mu[1:] - 1e-9 * mu.max())
    _check_psd(dsk.kernel_)
    Z = np.vstack([X[:40], X[:15] + 0.03])
    _check_psd(dsk.kernel(Z, Z))
    dsk3 = FastDecaySpectralKernel(n_components=8, eta=3.0, kernel_width=0.5).fit(X, yp)
    assert np.all(dsk3.mu_[:-1] >= 3.0 * dsk3.mu_[1:] - 1e-9 * dsk3.mu_.max())


def test_osk_uses_the_tsk_spectrum():
    X, y, yp, lab = wine(20, seed=0)
    osk = OrderConstrainedSpectralKernel(n_components=10).fit(X, yp)
    tsk = TransductiveSpectralKernel(n_components=10, beta=1.0).fit(X, yp)
    np.testing.assert_allclose(osk.eigenvalues_, tsk.eigenvalues_)
    np.testing.assert_allclose(np.abs(osk.eigenvectors_), np.abs(tsk.eigenvectors_), atol=1e-10)


def _alignment(K, lab, T):
    return kernel_alignment(K[np.ix_(lab, lab)], T)


def test_learned_alignment_beats_unlearned_feasible_spectra():
    rng = np.random.default_rng(0)
    X, y, yp, lab = wine(20, seed=4)
    T = explicit_T(np.unique(yp[lab], return_inverse=True)[1], 3, "simplex")
    osk = OrderConstrainedSpectralKernel(n_components=10, improved_order=False).fit(X, yp)
    V, lam = osk.eigenvectors_, osk.eigenvalues_
    learned = _alignment(osk.kernel_, lab, T)
    assert learned == pytest.approx(osk.alignment_, rel=1e-9)
    feasible = [
        np.ones(10),
        0.01 / (0.01 + 0.99 * lam),  # uniform, RSK's theta
        1.0 / (1e-3 + lam),
    ]  # ~ Laplacian pseudo-inverse
    feasible += [cone_generators(10, 1.0) @ rng.exponential(size=10) for _ in range(50)]
    for mu in feasible:
        assert np.all(mu[:-1] >= mu[1:])
        assert learned >= _alignment((V * mu) @ V.T, lab, T) - 1e-9
    assert learned > _alignment((V * np.ones(10)) @ V.T, lab, T) + 1e-3

    dsk = FastDecaySpectralKernel(n_components=10, eta=2.0, kernel_width=0.6).fit(X, yp)
    U, s = dsk.eigenvectors_, dsk.eigenvalues_
    learned = _alignment(dsk.kernel_, lab, T)
    assert learned == pytest.approx(dsk.alignment_, rel=1e-9)
    projected = s.copy()  # K0's own spectrum, cut down to decay
    for i in range(1, 10):
        projected[i] = min(projected[i], projected[i - 1] / 2.0)
    feasible = [2.0 ** -np.arange(10.0), projected]
    feasible += [cone_generators(10, 2.0) @ rng.exponential(size=10) for _ in range(50)]
    for mu in feasible:
        assert np.all(mu[:-1] >= 2.0 * mu[1:] - 1e-12)
        assert learned >= _alignment((U * mu) @ U.T, lab, T) - 1e-9
    assert learned > _alignment((U * projected) @ U.T, lab, T) + 1e-3


def test_two_class_target_is_yy_and_moons_are_separated():
    X, y = make_moons(160, noise=0.08, random_state=0)
    lab = np.concatenate([np.flatnonzero(y == 0)[:4], np.flatnonzero(y == 1)[:4]])
    yp = np.full(y.size, -1)
    yp[lab] = y[lab]
    ys = np.where(y[lab] == 1, 1.0, -1.0)
    np.testing.assert_allclose(ideal_kernel(y[lab], 2), np.outer(ys, ys))
    osk = OrderConstrainedSpectralKernel(graph=KNNGraph(6), n_components=8).fit(X, yp)
    unl = yp == -1
    assert np.mean(osk.transduction_[unl] == y[unl]) > 0.9
    K_LL = osk.kernel_[np.ix_(lab, lab)]
    assert osk.alignment_ == pytest.approx(kernel_alignment(K_LL, np.outer(ys, ys)), rel=1e-9)


# ---------------------------------------------------------------------------- DSK specifics


@pytest.mark.parametrize("n_components,width", [(None, 0.7), (10, 0.7), (None, 4.0)])
def test_dsk_nystrom_extension_reproduces_training_rows(n_components, width, cone_solves):
    X, y, yp, lab = wine(20, seed=5)
    X, y, yp = X[:70], y[:70], yp[:70]
    yp[[0, 1, 60, 61, 65]] = y[[0, 1, 60, 61, 65]]
    est = FastDecaySpectralKernel(n_components=n_components, kernel_width=width).fit(X, yp)
    # a 70-long decay chain (coefficients down to 2^-69) once took HiGHS millions of
    # iterations; the scaled QP takes a few
    assert_few_iterations(cone_solves, 1)
    if n_components is None:  # every pair above the cut-off is kept
        s_all = np.linalg.eigvalsh(sk_rbf(X, gamma=1 / (2 * width**2)))
        assert est.eigenvalues_.size == np.sum(s_all > 1e-10 * s_all.max())
        assert est.eigenvalues_.size > 40
    idx = np.array([0, 5, 33, 69])
    np.testing.assert_allclose(est.kernel(X[idx], None), est.kernel_[idx], atol=1e-8)
    np.testing.assert_allclose(est.kernel(X[idx], X[idx]), est.kernel_[np.ix_(idx, idx)], atol=1e-8)
    assert est.classes_.size == 2  # decision_function: (n,), positive = classes_[1]
    np.testing.assert_allclose(
        est.decision_function(X), est.scores_[:, 1] - est.scores_[:, 0], atol=1e-8
    )
    np.testing.assert_array_equal(est.predict(X), est.transduction_)
    # the Nyström formula itself, with an independent RBF and eigendecomposition
    K0 = sk_rbf(X, gamma=1 / (2 * width**2))
    s, U = np.linalg.eigh(K0)
    s, U = s[::-1][: est.mu_.size], U[:, ::-1][:, : est.mu_.size]
    Xn = X[:6] + 0.02
    Un = sk_rbf(Xn, X, gamma=1 / (2 * width**2)) @ U / s
    np.testing.assert_allclose(est.kernel(Xn, None), (Un * est.mu_) @ U.T, atol=1e-7)


def test_multiclass_wine_accuracy_above_chance():
    X, y, yp, lab = wine(20, seed=6)
    assert set(y[lab]) == {0, 1, 2}
    unl = yp == -1
    held = np.flatnonzero(unl)[::5]  # unseen points for induction
    fit_idx = np.setdiff1d(np.arange(y.size), held)
    for est in (
        OrderConstrainedSpectralKernel(n_components=10),
        make_method("dsk", n_components=10),
    ):
        est.fit(X, yp)
        assert np.mean(est.transduction_[unl] == y[unl]) > 0.6  # chance: 1/3
        fitted = getattr(est, "best_estimator_", est)
        assert fitted.scores_.shape == (y.size, 3) and list(est.classes_) == [0, 1, 2]
        est.fit(X[fit_idx], yp[fit_idx])
        assert np.mean(est.predict(X[held]) == y[held]) > 0.6


def _dsk_selected(X, partial, n_folds=5):
    """The ``dsk`` method's default selection (width scale), with ``n_folds`` folds."""
    return SelectOnLabeled(
        FastDecaySpectralKernel(n_components=10),
        {"kernel_width_scale": [1.0, 2.0, 0.5, 4.0, 0.25]},
        n_folds=n_folds,
        random_state=0,
    ).fit(X, partial)


def test_dsk_method_selects_the_width_scale_nearest_the_median_first():
    est = make_method("dsk", n_components=10, eta=2)
    assert isinstance(est, SelectOnLabeled)
    assert est.estimator.kernel_width == "median"
    # preference order: nearest 1 on a log scale, then the wider
    assert est.param_grid == {"kernel_width_scale": [1.0, 2.0, 0.5, 4.0, 0.25]}
    assert sorted(est.param_grid["kernel_width_scale"]) == sorted(WIDTH_SCALES)
    # a fixed width (or width rule) switches the selection off
    assert isinstance(make_method("dsk", kernel_width=0.5), FastDecaySpectralKernel)
    assert isinstance(make_method("dsk", kernel_width="median"), FastDecaySpectralKernel)
    assert isinstance(make_method("dsk", kernel_width="auto"), SelectOnLabeled)


def test_auto_width_uses_only_labeled_points_and_equals_independent_cv():
    X, y, yp, lab = wine(20, seed=7)
    unl = np.flatnonzero(yp == -1)
    # two truths that agree on the labeled points only
    y2 = y.copy()
    y2[unl] = np.random.default_rng(1).permutation(y[unl])
    assert np.any(y2[unl] != y[unl])
    fits = []
    for truth in (y, y2):
        partial = np.full(y.size, -1)
        partial[lab] = truth[lab]
        fits.append(_dsk_selected(X, partial, n_folds=4))
    a, b = fits
    assert a.best_estimator_.width_ == b.best_estimator_.width_
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_array_equal(
        a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"]
    )
    # the grid: multiples of the median pairwise distance, in preference order
    med = np.median(pdist(X))
    factors = [1.0, 2.0, 0.5, 4.0, 0.25]
    grid = [f * med for f in factors]
    assert np.isclose(a.best_estimator_.width_, grid).sum() == 1
    # independent CV over the labeled points: numpy spectra, NNLS projection for mu,
    # eq. (5) as explicit kernel sums
    y_enc = np.unique(yp[lab], return_inverse=True)[1]
    folds = labeled_folds(y_enc, 4, 0)
    B = cone_generators(10, 2.0)
    scores = []
    for w in grid:
        s, U = np.linalg.eigh(sk_rbf(X, gamma=1 / (2 * w**2)))
        U_L = U[:, ::-1][:, :10][lab]
        correct = 0
        for test in folds:
            train = np.setdiff1d(np.arange(20), test)
            M = explicit_M(U_L[train])
            z, _ = nnls(M @ B, explicit_T(y_enc[train], 3, "simplex").ravel())
            mu = B @ z
            K = np.einsum("it,t,jt->ij", U_L[test], mu, U_L[train])
            F = np.stack([K[:, y_enc[train] == k].sum(axis=1) for k in range(3)], axis=1)
            correct += int((F.argmax(axis=1) == y_enc[test]).sum())
        scores.append(correct / 20)
    np.testing.assert_allclose(a.cv_results_["mean_test_score"], scores)
    # today's tie rule: the width nearest the median (log scale), then the wider
    best = [i for i, sc in enumerate(scores) if sc == max(scores)]
    pref = sorted(best, key=lambda i: (abs(np.log(factors[i])), -factors[i]))[0]
    assert a.best_estimator_.width_ == pytest.approx(grid[pref], rel=1e-12)
    assert a.best_params_ == {"kernel_width_scale": factors[pref]}


def test_dsk_fold_predictor_equals_the_generic_rule():
    """With every class in every training fold, the fast path is the clone-and-fit rule."""
    X, y = load_wine(return_X_y=True)
    X = minmax_scale(X)
    lab = np.concatenate([np.flatnonzero(y == c)[:7] for c in range(3)])
    yp = np.full(y.size, -1)
    yp[lab] = y[lab]
    lab, y_enc = np.sort(lab), y[np.sort(lab)]
    est = FastDecaySpectralKernel(n_components=10)
    keys = ("kernel_width_scale", "eta")
    fast = est._fold_predictor(X, lab, y_enc, keys)
    slow = generic_fold_predictor(est, X, yp, lab, y_enc, np.arange(3))
    for test in labeled_folds(y_enc, 5, 0):
        train = np.setdiff1d(np.arange(lab.size), test)
        assert np.unique(y_enc[train]).size == 3
        for params in (
            {"kernel_width_scale": 0.5, "eta": 2.0},
            {"kernel_width_scale": 2.0, "eta": 3.0},
        ):
            np.testing.assert_array_equal(fast(params, train, test), slow(params, train, test))


def test_rbf_spectra_are_computed_once_across_splits():
    X, y, _, _ = wine(20, seed=0)
    for seed in range(3):
        lab = random_split(y, 20, seed, 0)
        yp = np.full(y.size, -1)
        yp[lab] = y[lab]
        make_method("dsk", n_components=10).fit(X, yp)
        if seed == 0:
            first = rbf_cache_info()["misses"]
    assert first == 5 and rbf_cache_info()["misses"] == 5
    # the runner's warm-up (precompute) computes the spectrum of every width of the grid
    clear_rbf_cache()
    make_method("dsk", n_components=10).precompute(X)
    assert rbf_cache_info()["misses"] == 5
    clear_rbf_cache()
    spec = FastDecaySpectralKernel(n_components=10).precompute(X)  # one width: one spectrum
    assert rbf_cache_info()["misses"] == 1 and spec.values.size == 10
    FastDecaySpectralKernel(n_components=10).fit(X, yp)
    assert rbf_cache_info() == {"hits": 1, "misses": 1, "size": 1}


def test_dsk_fit_with_auto_width_is_fast(cone_solves):
    """Fast = little work, counted (never timed): one RBF eigendecomposition per width of
    the grid, shared by the 25 fold fits (5 widths x 5 folds) and the refit, and one cone
    QP of a few iterations per fit."""
    X, y = make_moons(300, noise=0.1, random_state=1)
    lab = np.concatenate([np.flatnonzero(y == 0)[:10], np.flatnonzero(y == 1)[:10]])
    yp = np.full(300, -1)
    yp[lab] = y[lab]
    est = make_method("dsk", n_components=10).fit(X, yp)
    assert rbf_cache_info()["misses"] == len(WIDTH_SCALES)
    assert_few_iterations(cone_solves, 5 * len(WIDTH_SCALES) + 1)
    assert np.mean(est.transduction_ == y) > 0.7


def test_chain_generators_span_exactly_the_cone():
    """B's columns are feasible; every feasible chain point is a non-negative combination."""
    rng = np.random.default_rng(5)
    for skip in (0, 1):
        A = order_matrix(6, skip=skip)
        B = chain_generators(A, 6)
        assert np.all(A @ B >= -1e-12) and np.all(B >= 0)
        for _ in range(20):
            x = np.sort(rng.random(6))[::-1].copy()
            if skip:
                x[0] = rng.random()  # free of the chain
            w, res = nnls(B, x)
            assert res < 1e-10
    # a row that is not a chain link: no generators, HiGHS is used instead
    import scipy.sparse as sp

    assert chain_generators(sp.csr_matrix([[1.0, 0.0, -2.0]]), 3) is None


# ---------------------------------------------------------------------------- estimator layer


def test_cone_solver_fallback_is_reported(monkeypatch):
    """NNLS at its iteration limit: HiGHS solves the same QP, and fit_report_ says so."""
    X, y, yp, lab = wine(20, seed=3)
    ref = OrderConstrainedSpectralKernel(n_components=10).fit(X, yp)
    assert ref.fit_report_.solvers == ["nnls"] and ref.fit_report_.notes == []

    def failing_nnls(*args, **kwargs):
        raise RuntimeError("Maximum number of iterations reached.")

    monkeypatch.setattr(cone, "nnls", failing_nnls)
    est = OrderConstrainedSpectralKernel(n_components=10).fit(X, yp)
    assert est.fit_report_.solvers == ["highs-qp"]
    (note,) = est.fit_report_.fallbacks
    assert "nnls->highs-qp" in note and "Maximum number of iterations" in note
    assert not est.degenerate_ and not est.fit_report_.degenerate
    np.testing.assert_allclose(est.mu_, ref.mu_, atol=1e-5 * ref.mu_.max())
    # the same rule for DSK (any solver call of the package goes through cone_qp)
    dsk = FastDecaySpectralKernel(n_components=10, kernel_width=0.6).fit(X, yp)
    assert dsk.fit_report_.solvers == ["highs-qp"] and len(dsk.fit_report_.fallbacks) == 1


@pytest.mark.parametrize(
    "make,unlearned",
    [
        (lambda: OrderConstrainedSpectralKernel(n_components=10), lambda m: np.ones(m)),
        (
            lambda: FastDecaySpectralKernel(n_components=10, eta=3.0, kernel_width=0.6),
            lambda m: 3.0 ** -np.arange(m, dtype=float),
        ),
    ],
)
def test_degenerate_alignment_is_reported_and_uses_the_unlearned_spectrum(
    make, unlearned, monkeypatch
):
    """No feasible mu with a positive alignment (here: every a_t < 0, as a "pm1" target can
    give): the learner's unlearned spectrum is used and fit_report_ says so."""
    import sskernels.learners.spectral_transforms as st

    X, y, yp, lab = wine(20, seed=3)
    assert make().fit(X, yp).fit_report_.notes == []  # a regular fit: no note
    real = st.alignment_terms
    monkeypatch.setattr(
        st,
        "alignment_terms",
        lambda U_L, C_L, target: (
            real(U_L, C_L, target)[0],
            -np.abs(real(U_L, C_L, target)[1]) - 1.0,
        ),
    )
    est = make().fit(X, yp)
    assert est.degenerate_
    ref = unlearned(10)
    np.testing.assert_allclose(est.mu_ / est.mu_[0], ref / ref[0], rtol=1e-12)
    (note,) = est.fit_report_.degenerate
    assert note.startswith("degenerate: alignment:") and est._unlearned in note
    assert est.fit_report_.fallbacks == [] and est.fit_report_.solvers == []


def test_osk_precomputed_graph_equals_the_feature_graph():
    X, y, yp, lab = wine(20, seed=8)
    feat = OrderConstrainedSpectralKernel(n_components=10).fit(X, yp)
    W = get_graph(X, k=6).W
    pre = OrderConstrainedSpectralKernel(graph="precomputed", n_components=10).fit(W, yp)
    np.testing.assert_array_equal(pre.transduction_, feat.transduction_)
    np.testing.assert_allclose(pre.mu_, feat.mu_, rtol=1e-10)
    Wx = feat.graph_.induced(X[:5] + 0.01)
    np.testing.assert_allclose(
        pre.decision_function(Wx), feat.decision_function(X[:5] + 0.01), atol=1e-10
    )


@pytest.mark.parametrize(
    "make,bad",
    [
        (OrderConstrainedSpectralKernel, dict(target="onehot")),
        (OrderConstrainedSpectralKernel, dict(n_components=0)),
        (OrderConstrainedSpectralKernel, dict(improved_order="yes")),
        (OrderConstrainedSpectralKernel, dict(graph="knn")),
        (FastDecaySpectralKernel, dict(eta=0.5)),
        (FastDecaySpectralKernel, dict(kernel_width=-1.0)),
        (FastDecaySpectralKernel, dict(kernel_width="auto")),
        (FastDecaySpectralKernel, dict(kernel_width_scale=0.0)),
        (FastDecaySpectralKernel, dict(metric="manhattan")),
        (FastDecaySpectralKernel, dict(n_components=2.5)),
    ],
)
def test_invalid_parameters_fail_before_any_computation(make, bad, monkeypatch):
    import sskernels.graph.graphs as graph_mod

    built = []
    monkeypatch.setattr(graph_mod, "knn_graph", lambda *a, **k: built.append(1))
    X, y, yp, lab = wine(20, seed=0)
    with pytest.raises(ValueError, match=list(bad)[0]):
        make(**bad).fit(X, yp)
    from sskernels.kernels import rbf

    assert built == [] and rbf_cache_info()["misses"] == 0 and not rbf._MEDIAN_CACHE


@pytest.mark.parametrize(
    "make",
    [
        lambda: OrderConstrainedSpectralKernel(n_components=5),
        lambda: FastDecaySpectralKernel(n_components=5),
        lambda: make_method("dsk", n_components=5),
    ],
)
def test_length_mismatch_and_bad_input_are_rejected(make):
    X, y, yp, lab = wine(20, seed=0)
    with pytest.raises(ValueError, match="inconsistent numbers of samples|rows but y has"):
        make().fit(X, yp[:-1])
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        make().fit(Xn, yp)
    one = np.full(y.size, -1)
    one[lab] = 0
    with pytest.raises(ValueError, match="at least 2 classes"):
        make().fit(X, one)
    est = make().fit(X, yp)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:3, :5])


def test_dsk_refuses_a_graph_and_records_its_width():
    X, y, yp, lab = wine(20, seed=0)
    with pytest.raises(TypeError):
        FastDecaySpectralKernel(graph=KNNGraph(6))
    est = FastDecaySpectralKernel(kernel_width="median", kernel_width_scale=2.0).fit(X, yp)
    assert est.width_ == pytest.approx(2.0 * np.median(pdist(X)), rel=1e-12)
    assert est.fit_report_.solvers == ["nnls"]
