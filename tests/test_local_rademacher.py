"""Local Rademacher complexity weighting (Cortes, Kloft & Mohri 2013) of the label-aware kernel:
the solver against independent solvers, the tail-sum constraint, the reading's special cases."""

import highspy
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons

from sskernels.learners import LabelAwareKernel
from sskernels.learners.embedding import empirical_spectrum
from sskernels.learners.registry import make_method
from sskernels.learners.selection import default_grid
from sskernels.solvers.mkl import simplemkl
from sskernels.solvers.rademacher import lrc_mkl, mkl_objective, relative_tail, tail_count


def partial(y, per_class, seed=0):
    rng = np.random.default_rng(seed)
    yp = np.full(len(y), -1)
    for k in np.unique(y):
        idx = rng.choice(np.flatnonzero(y == k), per_class, replace=False)
        yp[idx] = y[idx]
    return yp


def small_instance(P=1, l=16, M=5, seed=0):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(l, M))
    s = rng.uniform(0.3, 3.0, M)
    if P == 1:
        y = np.where(Phi[:, 0] + 0.5 * Phi[:, 1] + 0.3 * rng.normal(size=l) > 0, 1.0, -1.0)
        return Phi, s, y[None]
    k = np.argmax(Phi[:, :P] + 0.3 * rng.normal(size=(l, P)), axis=1)
    return Phi, s, np.where(np.arange(P)[:, None] == k[None], 1.0, -1.0)


def primal_qp(Phi, s, y, C):
    """Independent: ``1/2 ||w||_1^2 + C sum hinge`` as one convex QP, solved by HiGHS's QP
    solver (not the parametric LPs of :func:`lrc_mkl`), its optimality certified.

    Variables ``[w+ (M), w- (M), b, xi (l), t]`` with ``t = sum(w+ + w-)`` and the Hessian on
    ``t`` alone.  The certificate is the Lagrangian dual at HiGHS's row duals ``alpha``:
    ``sum alpha - 1/2 max_m |sum_i alpha_i y_i psi_im|^2`` (``0 <= alpha <= C``,
    ``sum alpha_i y_i = 0``) must close the gap (HiGHS's QP regularization off), so the
    reference is checked by itself and not by how a line search ends (SLSQP's stopped with
    "Positive directional derivative" under some OpenBLAS kernels, e.g. Haswell's).
    """
    Psi = Phi / np.sqrt(s)
    l, M = Psi.shape
    n = 2 * M + 1 + l + 1
    c = np.r_[np.zeros(2 * M + 1), np.full(l, C), 0.0]
    margins = np.hstack(
        [y[:, None] * Psi, -y[:, None] * Psi, y[:, None], np.eye(l), np.zeros((l, 1))]
    )
    norm = np.r_[np.ones(2 * M), 0.0, np.zeros(l), -1.0][None]
    A = np.vstack([margins, norm])
    lo = np.r_[np.ones(l), 0.0]
    hi = np.r_[np.full(l, np.inf), 0.0]
    col_lo = np.r_[np.zeros(2 * M), -np.inf, np.zeros(l), 0.0]
    inf = highspy.kHighsInf
    model = highspy.HighsModel()
    lp = model.lp_
    lp.num_col_, lp.num_row_ = n, l + 1
    lp.col_cost_ = c
    lp.col_lower_ = np.where(np.isinf(col_lo), -inf, col_lo)
    lp.col_upper_ = np.full(n, inf)
    lp.row_lower_ = lo
    lp.row_upper_ = np.where(np.isinf(hi), inf, hi)
    Acsc = sp.csc_matrix(A)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = Acsc.indptr.astype(np.int32)
    lp.a_matrix_.index_ = Acsc.indices.astype(np.int32)
    lp.a_matrix_.value_ = Acsc.data.astype(float)
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, l + 1
    hess = highspy.HighsHessian()
    hess.dim_ = n
    hess.format_ = highspy.HessianFormat.kTriangular
    hess.start_ = np.r_[np.zeros(n), 1].astype(np.int32)
    hess.index_ = np.array([n - 1], dtype=np.int32)
    hess.value_ = np.array([1.0])
    model.hessian_ = hess
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for tol in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
        h.setOptionValue(tol, 1e-10)
    h.setOptionValue("qp_regularization_value", 0.0)
    h.passModel(model)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    x = np.asarray(h.getSolution().col_value)
    primal = 0.5 * x[-1] ** 2 + C * x[2 * M + 1 : -1].sum()
    assert np.all(A[:l] @ x >= 1 - 1e-7) and x[-1] == pytest.approx(x[: 2 * M].sum(), abs=1e-9)
    alpha = np.clip(np.asarray(h.getSolution().row_dual)[:l], 0.0, C)
    alpha = alpha - y * (alpha @ y) / l  # HiGHS's tiny residual of sum alpha y = 0
    dual = alpha.sum() - 0.5 * np.max(np.abs(Psi.T @ (alpha * y))) ** 2
    # weak duality to rounding, and a gap of at most 1e-5 (HiGHS's duals are less exact
    # than its primal at tiny C; the primal is what is compared)
    assert -1e-9 <= primal - dual <= 1e-5 * max(primal, 1.0), (primal, dual)
    return primal


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_binary_optimum_matches_slsqp_and_simplemkl(C, seed):
    Phi, s, Y = small_instance(seed=seed)
    res = lrc_mkl(Phi, s, Y, C)
    assert res.info.solver == "highs-parametric-lp" and res.info.fallback is None
    assert res.objective == pytest.approx(primal_qp(Phi, s, Y[0], C), rel=1e-6)
    # J(d) at our weights (libsvm) is the optimum, and SimpleMKL on the rescaled kernels
    # (a different algorithm) reaches no lower value
    Psi = Phi / np.sqrt(s)
    J, bound = mkl_objective(Psi, Y, C, res.d)
    assert J == pytest.approx(res.objective, rel=1e-5)
    assert bound <= res.objective * (1 + 1e-6)
    Ks = np.einsum("im,jm->mij", Psi, Psi)
    ref = simplemkl(Ks, Y, C, tol=1e-4, max_iter=500)
    assert res.objective <= ref.solution.J * (1 + 1e-6)
    assert res.objective >= ref.solution.J * (1 - 1e-3)


@pytest.mark.parametrize("C", [0.5, 5.0])
def test_three_problems_certified_and_match_simplemkl(C):
    Phi, s, Y = small_instance(P=3, l=24, M=6, seed=3)
    res = lrc_mkl(Phi, s, Y, C, tol=1e-3)
    assert res.info.solver == "eta-trick-libsvm" and res.info.fallback is None
    assert res.info.stats["relative_duality_gap"] <= 1e-3
    Psi = Phi / np.sqrt(s)
    J, bound = mkl_objective(Psi, Y, C, res.d)
    assert (J - bound) <= 1e-3 * J * (1 + 1e-6)
    ref = simplemkl(np.einsum("im,jm->mij", Psi, Psi), Y, C, tol=1e-4, max_iter=500)
    assert J == pytest.approx(ref.solution.J, rel=2e-3)


def separable_multiclass(P=3, l=30, M=8, seed=4):
    """One-vs-rest targets that features 0..P-1 separate with a margin (hard margin at a
    moderate C)."""
    rng = np.random.default_rng(seed)
    k = rng.integers(0, P, l)
    Phi = rng.normal(size=(l, M)) * 0.3
    Phi[np.arange(l), k] += 2.0
    s = rng.uniform(0.5, 2.0, M)
    return Phi, s, np.where(np.arange(P)[:, None] == k[None], 1.0, -1.0)


def test_multiclass_path_takes_the_hard_margin_optimum_exactly():
    """Above a grid C whose optimum has no dual variable at its bound, the path returns that
    optimum (recorded), and it is optimal there: the gap certificate at the large C holds and
    the objective equals an independent solve at that C; the answer does not depend on the
    order the grid's values are asked in."""
    Phi, s, Y = separable_multiclass()
    path = [0.01, 1.0, 100.0, 1e4]
    direct = {C: lrc_mkl(Phi, s, Y, C, tol=1e-3) for C in path}
    res = {C: lrc_mkl(Phi, s, Y, C, tol=1e-3, C_path=path) for C in reversed(path)}
    assert "hard_margin_from" not in res[0.01].info.stats
    np.testing.assert_array_equal(res[0.01].d, direct[0.01].d)  # below: the same solve
    hard = res[1e4].info.stats["hard_margin_from"]
    assert hard in (1.0, 100.0)
    for C in (100.0, 1e4):
        Psi = Phi / np.sqrt(s)
        J, bound = mkl_objective(Psi, Y, C, res[C].d)
        assert (J - bound) <= 1e-3 * J * (1 + 1e-6)
        assert res[C].objective == pytest.approx(direct[C].objective, rel=2e-3)
        assert J == pytest.approx(res[C].objective, rel=1e-6)  # C did not bind at all
    again = lrc_mkl(Phi, s, Y, 1e4, tol=1e-3, C_path=list(reversed(path)) + [5e4])
    np.testing.assert_array_equal(again.d, res[1e4].d)


def test_multiclass_path_without_a_hard_margin_is_the_direct_solve():
    """Overlapping classes: every C binds somewhere, each grid C is its own solve."""
    Phi, s, Y = small_instance(P=3, l=24, M=6, seed=3)
    path = [0.5, 5.0]
    for C in path:
        res = lrc_mkl(Phi, s, Y, C, tol=1e-3, C_path=path)
        assert "hard_margin_from" not in res.info.stats
        np.testing.assert_array_equal(res.d, lrc_mkl(Phi, s, Y, C, tol=1e-3).d)


def test_weights_satisfy_the_tail_sum_constraint():
    Phi, s, Y = small_instance(seed=2)
    res = lrc_mkl(Phi, s, Y, 3.0)
    assert np.all(res.mu >= 0) and np.all(res.d >= 0)
    assert res.d.sum() == pytest.approx(1.0, abs=1e-12)
    assert float(res.mu @ s) == pytest.approx(1.0, abs=1e-12)


def test_tail_helpers():
    lam = np.array([4.0, 3.0, 2.0, 1.0, -1e-15])
    assert relative_tail(lam, 0) == 1.0
    assert relative_tail(lam, 2) == pytest.approx(0.3)
    assert relative_tail(lam[::-1], 2) == pytest.approx(0.3)
    assert relative_tail(lam, 5) == 0.0
    assert tail_count(0.5, 10) == 5 and tail_count(3, 10) == 3 and tail_count(1.0, 10) == 10
    assert tail_count(1, 10) == 1  # an int is a count, a float a fraction


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(160, noise=0.1, random_state=0)
    return X, y, partial(y, 8)


def lrc(**kw):
    return LabelAwareKernel(weighting="local-rademacher", eigen_solver="exact", **kw)


def test_fit_constraint_and_theta_zero_is_trace_normalized_l1_mkl(moons):
    X, y, yp = moons
    est = lrc(theta=0, mkl_C=10.0).fit(X, yp)
    assert est.theta_ == 0 and np.allclose(est.tail_ratios_, 1.0)
    # s_m = mean diagonal of phi_m phi_m^T over the n points: trace normalization
    assert np.allclose(est.tail_scales_, (est.basis_**2).mean(axis=0))
    assert float(est.mu_ @ est.tail_scales_) == pytest.approx(1.0, abs=1e-10)
    lab = yp >= 0
    Phi = est.basis_[lab]
    ref = lrc_mkl(Phi, (est.basis_**2).mean(axis=0), 2.0 * y[lab][None] - 1.0, 10.0)
    np.testing.assert_allclose(est.mu_, ref.mu, atol=1e-12)
    assert est.fit_report_.solvers == ["highs-parametric-lp"]


def test_one_width_theta_only_rescales_C(moons):
    """The reading's consequence: one width, one rho(theta): (theta, C) == (0, C / rho)."""
    X, _, yp = moons
    a = lrc(theta=0.5, mkl_C=1.0).fit(X, yp)
    rho = a.tail_ratios_[0]
    assert 0 < rho < 1
    b = lrc(theta=0, mkl_C=1.0 / rho).fit(X, yp)
    np.testing.assert_allclose(a.mu_ * a.tail_scales_, b.mu_ * b.tail_scales_, atol=1e-6)


def test_several_widths_theta_reweights_the_widths(moons):
    X, _, yp = moons
    est = lrc(b_scales=[0.2, 5.0], theta=3, mkl_C=10.0).fit(X, yp)
    lam = [empirical_spectrum(X, b) for b in est.b_]
    expect = [relative_tail(v, est.theta_) for v in lam]
    np.testing.assert_allclose(est.tail_ratios_, expect)
    assert est.tail_ratios_[0] != pytest.approx(est.tail_ratios_[1], rel=1e-2)
    assert float(est.mu_ @ est.tail_scales_) == pytest.approx(1.0, abs=1e-10)


def test_theta_n_is_read_as_n_minus_1_and_noted(moons):
    X, _, yp = moons
    est = lrc(theta=1.0).fit(X, yp)
    assert est.theta_ == X.shape[0] - 1
    assert any("theta = n leaves an empty tail" in n for n in est.fit_report_.notes)


def test_permutation_invariance(moons):
    X, _, yp = moons
    perm = np.random.default_rng(5).permutation(len(X))
    a = lrc(theta=0.1, mkl_C=10.0).fit(X, yp)
    b = lrc(theta=0.1, mkl_C=10.0).fit(X[perm], yp[perm])
    np.testing.assert_allclose(b.kernel_, a.kernel_[np.ix_(perm, perm)], atol=1e-8)
    np.testing.assert_array_equal(b.transduction_, a.transduction_[perm])


def test_three_classes():
    X, y = make_blobs(150, centers=3, cluster_std=0.8, random_state=0)
    yp = partial(y, 6)
    est = lrc(theta=0.1, mkl_C=10.0).fit(X, yp)
    assert est.fit_report_.solvers == ["eta-trick-libsvm"]
    assert not est.fit_report_.fallbacks
    assert float(est.mu_ @ est.tail_scales_) == pytest.approx(1.0, abs=1e-10)
    assert (est.transduction_ == y).mean() > 0.9
    assert est.kernel(X[:5], X[:7]).shape == (5, 7)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"theta": -1}, "theta"),
        ({"theta": 1.5}, "theta"),
        ({"mkl_C": 0.0}, "mkl_C"),
        ({"weighting": "rademacher"}, "weighting"),
    ],
)
def test_bad_parameters_raise(moons, params, match):
    X, _, yp = moons
    with pytest.raises(ValueError, match=match):
        LabelAwareKernel(**params).fit(X, yp)


def test_solver_rejects_bad_input():
    Phi, s, Y = small_instance()
    with pytest.raises(ValueError, match="positive"):
        lrc_mkl(Phi, np.where(np.arange(s.size) == 0, 0.0, s), Y, 1.0)
    with pytest.raises(ValueError, match="C must be positive"):
        lrc_mkl(Phi, s, Y, -1.0)
    with pytest.raises(ValueError, match="-1 or \\+1"):
        lrc_mkl(Phi, s, 0.5 * Y, 1.0)
    with pytest.raises(ValueError, match="shapes"):
        lrc_mkl(Phi[:-1], s, Y, 1.0)


def test_selection_grid_only_with_local_rademacher():
    # n_components: Sec. 4.3.2's p, a grid only when a spec lists it (one default value: fixed)
    assert set(default_grid(LabelAwareKernel)) == {"b_scale", "n_components"}
    assert default_grid(LabelAwareKernel)["n_components"] == [0.1]
    grid = default_grid(LabelAwareKernel, {"weighting": "local-rademacher"})
    assert grid["theta"] == [0.1, 0.5, 0.8, 0.9, 1.0]
    assert grid["mkl_C"] == [0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]
    assert set(default_grid(LabelAwareKernel(weighting="local-rademacher", random_state=0))) == {
        "b_scale",
        "n_components",
        "theta",
        "mkl_C",
    }
    m = make_method("label-aware", weighting="local-rademacher", theta=0.5, b_scale=1.0)
    assert m.param_grid == {"mkl_C": [0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_C_path_equals_one_C_at_a_time(seed):
    """A selection grid's C values solved on one LP (``C_path``) give each C's optimum."""
    Phi, s, Y = small_instance(seed=seed)
    grid = [0.01, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1e4]
    for C in grid:
        alone = lrc_mkl(Phi, s, Y, C)
        shared = lrc_mkl(Phi, s, Y, C, C_path=grid)
        assert shared.info.stats["lp_path"] == len(grid)
        assert shared.objective == pytest.approx(alone.objective, rel=1e-7)
        assert shared.objective == pytest.approx(primal_qp(Phi, s, Y[0], C), rel=1e-6)
        np.testing.assert_allclose(shared.d, alone.d, atol=1e-6)


def test_C_path_result_does_not_depend_on_what_ran_before(moons):
    """The path memo must not make a fit depend on the process's history: the same fit after
    other candidates (or after clearing the memo) is bit-identical."""
    import sskernels.solvers.rademacher as rad

    X, _, yp = moons
    rad._PATHS.clear()
    first = lrc(theta=0.5, mkl_C=100.0).fit(X, yp).mu_
    for theta in (0.1, 0.9):
        for C in (0.1, 1e4):
            lrc(theta=theta, mkl_C=C).fit(X, yp)
    again = lrc(theta=0.5, mkl_C=100.0).fit(X, yp).mu_
    rad._PATHS.clear()
    fresh = lrc(theta=0.5, mkl_C=100.0).fit(X, yp).mu_
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, fresh)


def test_one_width_grid_is_one_lp_path(moons):
    """With one width every (theta, mkl_C) of the grid shares the canonical scales: one path of
    |THETAS| x |MKL_CS| C values, equal to the fit without the path."""
    from sskernels.learners.label_aware import MKL_CS, THETAS

    X, _, yp = moons
    est = lrc(theta=0.8, mkl_C=10.0).fit(X, yp)
    assert est.fit_report_.solvers == ["highs-parametric-lp"]
    lam = empirical_spectrum(X, est.b_[0])
    n = X.shape[0]
    rhos = {max(relative_tail(lam, min(tail_count(t, n), n - 1)), 1e-12) for t in THETAS}
    assert est.mkl_stats_["lp_path"] == len({C / r for r in rhos for C in MKL_CS}) > len(MKL_CS)
    lab = yp >= 0
    Y = 2.0 * yp[lab][None] - 1.0
    ref = lrc_mkl(est.basis_[lab], est.tail_scales_, Y, 10.0)
    np.testing.assert_allclose(est.mu_ * est.tail_scales_, ref.d, atol=1e-6)
    assert est.mkl_objective_ == pytest.approx(ref.objective, rel=1e-7)


def test_hard_margin_regime_is_the_kink_found_in_a_few_lps():
    """Large C on separable data (Wang et al. Table 3's effective C reaches 1e10): the optimum
    is the kink t* = min ||w||_1 s.t. the margins hold (an independent LP by scipy), reached
    by Newton's steps of the cutting-plane model in a few LPs, the same for every large C."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(5)
    l, M = 30, 40  # more features than points: separable
    Phi = rng.normal(size=(l, M))
    s = rng.uniform(0.5, 2.0, M)
    y = np.where(rng.normal(size=l) > 0, 1.0, -1.0)
    Psi = Phi / np.sqrt(s)
    # min sum(w+ + w-) s.t. y (Psi (w+ - w-) + b) >= 1
    A = -np.hstack([y[:, None] * Psi, -y[:, None] * Psi, y[:, None]])
    ref = linprog(
        np.concatenate([np.ones(2 * M), [0.0]]),
        A_ub=A,
        b_ub=-np.ones(l),
        bounds=[(0, None)] * (2 * M) + [(None, None)],
        method="highs",
    )
    assert ref.status == 0
    t_star = ref.fun
    grid = [1e4, 1e6, 1e8, 1e10]
    for C in grid:
        res = lrc_mkl(Phi, s, y[None], C, C_path=grid)
        assert res.objective == pytest.approx(0.5 * t_star**2, rel=1e-7)
    first = lrc_mkl(Phi, s, y[None], grid[0], C_path=grid)
    assert first.info.stats["lp_solves"] <= 8, first.info.stats  # (the earlier rule: 11)


def test_multiclass_fit_walks_only_its_own_c_ladder(monkeypatch, moons):
    """Several classes: the path given to the alternation is the fit's own theta's six C
    values (the hard-margin walk would otherwise solve the other thetas' values); two
    classes keep the shared LP path of every theta (one width: 30 values)."""
    import sskernels.learners.label_aware as la

    seen = []
    real = la.lrc_mkl
    monkeypatch.setattr(
        la, "lrc_mkl", lambda *a, **k: seen.append((a[3], k["C_path"])) or real(*a, **k)
    )
    X, y = make_blobs(150, centers=3, cluster_std=2.0, random_state=0)
    lrc(theta=0.5, mkl_C=10.0).fit(X, partial(y, 6))
    ((C, path),) = seen
    assert len(set(path)) == 6 and C in path
    np.testing.assert_allclose(sorted(path), C / 10.0 * np.array([0.1, 1, 10, 100, 1e3, 1e4]))
    seen.clear()
    X2, y2, yp2 = moons
    lrc(theta=0.5, mkl_C=10.0).fit(X2, yp2)
    ((C, path),) = seen
    assert C in path and len(set(path)) > 6


def test_alternation_inner_svms_are_a_tenth_of_its_tolerance_and_the_gap_holds(monkeypatch):
    """The eta-trick's inner SVMs stop at ``INNER_TOL_RATIO * tol`` (libsvm's 1e-3 at the
    default gap 1e-2), and the stopping gap still holds when it is measured again with
    accurate (1e-5) SVMs at the returned weights."""
    import sskernels.solvers.rademacher as rad

    asked = []
    real = rad.svm_solution

    def spy(K, Y, C, svm_tol=1e-5):
        asked.append(svm_tol)
        return real(K, Y, C, svm_tol)

    monkeypatch.setattr(rad, "svm_solution", spy)
    Phi, s, Y = small_instance(P=3, l=24, M=6, seed=3)
    for tol in (rad.GAP_TOL, 1e-3):
        asked.clear()
        res = lrc_mkl(Phi, s, Y, 5.0, tol=tol)
        assert res.info.solver == "eta-trick-libsvm" and res.info.fallback is None
        assert asked and all(t == pytest.approx(rad.INNER_TOL_RATIO * tol) for t in asked)
        monkeypatch.setattr(rad, "svm_solution", real)
        J, bound = mkl_objective(Phi / np.sqrt(s), Y, 5.0, res.d)
        monkeypatch.setattr(rad, "svm_solution", spy)
        assert (J - bound) <= tol * J


def test_fits_over_the_weighting_grid_share_their_base_vectors(moons):
    """The base vectors depend on the data, the labeled points, their classes and the widths,
    not on theta or mkl_C: the fits of a (theta, mkl_C) grid share one read-only entry, and
    give what a fit with an empty memo gives; another labeled set, another width or the
    baseline (no label-aware vectors) is another entry."""
    import sskernels.learners.label_aware as la

    X, _, yp = moons
    la._BASES.clear()
    a = lrc(theta=0.5, mkl_C=1.0).fit(X, yp)
    b = lrc(theta=0.1, mkl_C=100.0).fit(X, yp)
    assert b.basis_ is a.basis_ and not a.basis_.flags.writeable
    la._BASES.clear()
    la._DISTANCES.clear()
    la._TAILS.clear()
    fresh = lrc(theta=0.1, mkl_C=100.0).fit(X, yp)
    assert fresh.basis_ is not a.basis_
    np.testing.assert_array_equal(fresh.basis_, b.basis_)
    np.testing.assert_array_equal(fresh.mu_, b.mu_)
    np.testing.assert_array_equal(fresh.tail_ratios_, b.tail_ratios_)
    np.testing.assert_array_equal(fresh.kernel_, b.kernel_)
    other = yp.copy()
    other[np.flatnonzero(yp >= 0)[0]] = -1  # one labeled point fewer
    assert lrc(theta=0.1, mkl_C=100.0).fit(X, other).basis_.shape == a.basis_.shape
    assert not np.array_equal(lrc(theta=0.1, mkl_C=100.0).fit(X, other).basis_, a.basis_)
    assert lrc(b_scale=5.0).fit(X, yp).basis_ is not a.basis_
    base = lrc(label_aware=False).fit(X, yp)
    assert base.basis_.shape[1] == a.basis_.shape[1] - 1


def test_base_vector_memo_holds_one_n_by_m_array_per_entry_within_its_budget(moons, monkeypatch):
    """An entry keeps the centered vectors only (not the uncentered ones beside them), and
    the memo drops its oldest entries past its byte budget."""
    import sskernels.learners.label_aware as la
    from sskernels.memo import LRU

    X, _, yp = moons
    la._BASES.clear()
    est = lrc(theta=0.1, mkl_C=1.0).fit(X, yp)
    (entry,) = la._BASES.values()
    assert entry.nbytes < 1.5 * est.basis_.nbytes
    assert not hasattr(entry, "raw")
    monkeypatch.setattr(la, "_BASES", LRU(8, max_bytes=int(2.5 * entry.nbytes)))
    for scale in (0.2, 1.0, 5.0):
        lrc(b_scale=scale).fit(X, yp)
    assert len(la._BASES) == 2
