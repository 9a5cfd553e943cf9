"""Kernel self-consistent labeling (rho-epsilon learning): equations, solver, API."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_wine, make_moons
from sklearn.preprocessing import StandardScaler, normalize

from sskernels.graph import KNNGraph
from sskernels.learners.self_consistent import (
    SelfConsistentLabeling,
    dual_problem,
    loo_coefficients,
    primal_objective,
    structured_dual,
)
from sskernels.solvers import boxqp
from sskernels.solvers.boxqp import certificate, solve_box_qp, solve_l1_box_qp
from sskernels.solvers.highs import SolverError


def _spd(n, seed):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A @ A.T / n + 1e-2 * np.eye(n)


def _partial(y, per_class, seed):
    rng = np.random.default_rng(seed)
    yp = -np.ones_like(y)
    for k in np.unique(y):
        idx = rng.choice(np.flatnonzero(y == k), per_class, replace=False)
        yp[idx] = y[idx]
    return yp


@pytest.mark.parametrize("seed", range(5))
def test_loo_coefficients_match_definition(seed):
    """Row i = k_i^T T_i^{-1} with 0 inserted at i (Sec. 2), n = 8."""
    n = 8
    K = _spd(n, seed)
    Bt = loo_coefficients(K)
    for i in range(n):
        rest = np.delete(np.arange(n), i)
        row = np.linalg.solve(K[np.ix_(rest, rest)], K[rest, i])
        expect = np.insert(row, i, 0.0)
        np.testing.assert_allclose(Bt[i], expect, rtol=1e-9, atol=1e-10)
    # the GP leave-one-out mean: b_i^T y = E[y_i | y_-i]
    assert np.allclose(np.diag(Bt), 0.0)


def test_loo_coefficients_reject_bad_kernel():
    K = _spd(5, 0)
    K[0, 0] = -1.0
    with pytest.raises(ValueError, match="positive definite"):
        loo_coefficients(K)
    K[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        loo_coefficients(K)


def _tiny_problem(seed, epsilon=0.3, n=9):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0) + 1e-2 * np.eye(n)
    Bt = loo_coefficients(K)
    labeled = np.array([0, 3, 5, 7])
    c = np.array([1.0, -1.0, 1.0, -1.0])
    return K, Bt, labeled, c


def _paper_dual(K, Bt, labeled, c, C1, C2, epsilon):
    """The dual (14)-(16) exactly as printed: x = (alpha, beta, gamma), R = (R_1, R_2, -R_2)."""
    n = K.shape[0]
    unl = np.setdiff1d(np.arange(n), labeled)
    R1 = np.column_stack([c[k] * Bt[i] for k, i in enumerate(labeled)])
    R2 = np.column_stack([np.eye(n)[j] - Bt[j] for j in unl])
    R = np.hstack([R1, R2, -R2])
    H = R.T @ K @ R
    L, U = labeled.size, unl.size
    f = np.concatenate([-np.ones(L), epsilon * np.ones(2 * U)])
    hi = np.concatenate([np.full(L, C1), np.full(2 * U, C2)])
    return 0.5 * (H + H.T), f, np.zeros(L + 2 * U), hi, R


def _l1_form(labeled, n, C1, C2, epsilon):
    L = labeled.size
    h = np.concatenate([-np.ones(L), np.zeros(n - L)])
    w = np.concatenate([np.zeros(L), np.full(n - L, epsilon)])
    lo = np.concatenate([np.zeros(L), np.full(n - L, -C2)])
    hi = np.concatenate([np.full(L, C1), np.full(n - L, C2)])
    return h, w, lo, hi


@pytest.mark.parametrize("seed", range(3))
def test_structured_hessian_equals_R_K_R(seed):
    """G = S^T P S in O(N^2) equals (R_1, R_2)^T K (R_1, R_2) of (12), labeled anywhere."""
    n = 12
    K, Bt, _, _ = _tiny_problem(seed, n=n)
    rng = np.random.default_rng(seed)
    labeled = np.sort(rng.choice(n, 5, replace=False))
    unl = np.setdiff1d(np.arange(n), labeled)
    c = rng.choice([-1.0, 1.0], 5)
    G, R = dual_problem(K, Bt, labeled, c)
    P = np.linalg.inv(K)
    dP = np.diag(P)
    G1 = structured_dual(K, P / np.outer(dP, dP), dP, labeled, unl)
    np.testing.assert_allclose(
        G1, dual_problem(K, Bt, labeled, np.ones(5))[0], rtol=1e-8, atol=1e-8 * np.abs(G).max()
    )
    C = np.diag(np.concatenate([c, np.ones(n - 5)]))  # labels only flip signs
    np.testing.assert_allclose(C @ G1 @ C, G, rtol=1e-8, atol=1e-8 * np.abs(G).max())


@pytest.mark.parametrize("seed", range(3))
def test_dual_optimum_matches_the_papers_dual_by_independent_solvers(seed):
    """Projected Newton on (alpha, delta) vs HiGHS and L-BFGS-B on (14)-(16) as printed."""
    K, Bt, labeled, c = _tiny_problem(seed)
    n = K.shape[0]
    H, f, lo, hi, R = _paper_dual(K, Bt, labeled, c, 2.0, 1.5, 0.3)
    x, info = solve_box_qp(H, f, lo, hi)
    assert info.solver == "highs-qp" and info.fallback is None
    res = minimize(
        lambda v: (0.5 * v @ H @ v + f @ v, H @ v + f),
        np.zeros_like(f),
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(lo, hi)),
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 50000},
    )
    q_ref = 0.5 * res.x @ H @ res.x + f @ res.x
    assert info.stats["objective"] == pytest.approx(q_ref, abs=1e-7)
    G, R12 = dual_problem(K, Bt, labeled, c)
    z, pinfo = solve_l1_box_qp(G, *_l1_form(labeled, n, 2.0, 1.5, 0.3))
    assert pinfo.solver == "projected-newton" and pinfo.fallback is None
    assert pinfo.stats["relative_gap"] <= 1e-9 and pinfo.stats["kkt_residual"] <= 1e-8
    assert pinfo.stats["objective"] == pytest.approx(info.stats["objective"], abs=1e-8)
    np.testing.assert_allclose(K @ R12 @ z, K @ R @ x, atol=1e-6)
    # strong duality with the primal (2)-(6) at y = K R x: primal = -dual
    y = K @ R12 @ z
    assert primal_objective(K, Bt, labeled, c, 2.0, 1.5, 0.3, y) == pytest.approx(
        -pinfo.stats["objective"], rel=1e-7, abs=1e-8
    )


def test_split_certificate_is_the_box_certificate_of_the_split_problem():
    K, Bt, labeled, c = _tiny_problem(2)
    n = K.shape[0]
    G, _ = dual_problem(K, Bt, labeled, c)
    h, w, lo, hi = _l1_form(labeled, n, 2.0, 1.5, 0.3)
    z = np.clip(np.random.default_rng(0).normal(size=n), lo, hi)
    H, f, blo, bhi, T = boxqp.split_problem(G, h, w, lo, hi)
    L = labeled.size
    x = np.concatenate([z[:L], np.maximum(z[L:], 0), np.maximum(-z[L:], 0)])
    np.testing.assert_allclose(T @ x, z)
    np.testing.assert_allclose(
        boxqp.split_certificate(G, h, w, lo, hi, z),
        certificate(H, f, blo, bhi, x),
        rtol=1e-10,
        atol=1e-12,
    )


def test_large_epsilon_reduces_to_labeled_problem():
    """Sec. 4.2: eps large -> beta = gamma = 0, the model (22)-(23) on labeled points."""
    K, Bt, labeled, c = _tiny_problem(0)
    n, L = K.shape[0], labeled.size
    G, R = dual_problem(K, Bt, labeled, c)
    z, _ = solve_l1_box_qp(G, *_l1_form(labeled, n, 2.0, 1.5, 1e6))
    assert np.allclose(z[L:], 0.0)
    H1, f, lo, hi, _ = _paper_dual(K, Bt, labeled, c, 2.0, 1.5, 1e6)
    x1, _ = solve_box_qp(H1[:L, :L], f[:L], lo[:L], hi[:L])
    np.testing.assert_allclose(K @ R[:, :L] @ x1, K @ R @ z, atol=1e-6)


def test_kkt_on_a_large_instance():
    """N = 600: the certified gap and the projected-gradient KKT residual of (14)-(16)."""
    X, y = make_moons(600, noise=0.12, random_state=4)
    m = SelfConsistentLabeling(sigma2=0.01, epsilon=1e-3).fit(X, _partial(y, 10, 4))
    st = m.solve_stats_[0]
    assert m.fit_report_.solvers == ["projected-newton"]
    assert st["relative_gap"] <= 1e-6 and st["kkt_residual"] <= 1e-6
    z = m.dual_coef_[0]
    assert np.sum(z[20:] != 0) > 20  # the eps-tube is active: a real test
    assert np.all(np.abs(z) <= 10 + 1e-12) and np.all(z[:20] >= 0)


def test_forced_fallback_is_reported(monkeypatch):
    def stalled(G, h, w, lower, upper, gap_tol):
        return np.zeros_like(h), {"relative_gap": 1.0, "iterations": 0}

    monkeypatch.setattr(boxqp, "projected_newton", stalled)
    X, y = make_moons(60, noise=0.1, random_state=0)
    m = SelfConsistentLabeling(sigma2=0.1).fit(X, _partial(y, 4, 0))
    assert m.fit_report_.solvers == ["highs-qp"]
    assert any("projected-newton->highs-qp" in n for n in m.fit_report_.fallbacks)
    assert m.solve_stats_[0]["relative_gap"] <= 1e-6
    ref = SelfConsistentLabeling(sigma2=0.1)
    monkeypatch.undo()
    ref.fit(X, _partial(y, 4, 0))
    np.testing.assert_allclose(m.decision_, ref.decision_, atol=1e-5)


def test_no_certified_answer_raises(monkeypatch):
    def stalled(G, h, w, lower, upper, gap_tol):
        return np.zeros_like(h), {"relative_gap": 1.0, "iterations": 0}

    def broken(*a, **k):
        raise SolverError("HiGHS ended with status Time limit reached")

    monkeypatch.setattr(boxqp, "projected_newton", stalled)
    monkeypatch.setattr(boxqp, "solve_qp", broken)
    monkeypatch.setattr(boxqp, "_lbfgsb", lambda H, f, lo, hi, x0: np.clip(x0 + 1, lo, hi))
    X, y = make_moons(30, noise=0.1, random_state=0)
    with pytest.raises(SolverError, match="not solved"):
        SelfConsistentLabeling(sigma2=0.1).fit(X, _partial(y, 3, 0))


def test_certificate_is_a_bound():
    K, Bt, labeled, c = _tiny_problem(1)
    H, f, lo, hi, R = _paper_dual(K, Bt, labeled, c, 2.0, 1.5, 0.3)
    x, info = solve_box_qp(H, f, lo, hi)
    z = np.clip(x + 0.05, lo, hi)
    q, gap, _, _ = certificate(H, f, lo, hi, z)
    assert q - info.stats["objective"] <= gap + 1e-12 and gap > 0


@pytest.mark.parametrize("eta", [0.0, 0.3, 1.0])
def test_eta_reweighting_solves_its_primal(eta):
    """Sec. 4.2's B': the fit is optimal for the primal (2)-(6) written with B' (duality)."""
    X, y = make_moons(40, noise=0.15, random_state=5)
    yp = _partial(y, 3, 5)
    m = SelfConsistentLabeling(sigma2=0.1, epsilon=0.2, eta=eta).fit(X, yp)
    labeled = np.flatnonzero(yp != -1)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 0.2) + 1e-4 * np.eye(40)
    w = np.where(yp != -1, 1.0, eta)
    Bt = loo_coefficients(K) * w[None, :] / (1 + eta)  # unlabeled predictors scaled by eta
    c = np.where(yp[labeled] == 1, 1.0, -1.0)
    primal = primal_objective(K, Bt, labeled, c, 10.0, 10.0, 0.2, m.decision_)
    assert primal == pytest.approx(-m.solve_stats_[0]["objective"], rel=1e-6)
    plain = SelfConsistentLabeling(sigma2=0.1, epsilon=0.2).fit(X, yp)
    assert not np.allclose(plain.decision_, m.decision_)


def test_kernel_learner_equals_its_precomputed_kernel():
    """'Based on any given valid kernel': K_0 = a learned kernel (here SKL_KTA), unit diagonal."""
    from sskernels.learners.registry import make_method

    X, y = make_moons(80, noise=0.1, random_state=0)
    yp = _partial(y, 4, 0)
    learner = make_method("skl-kta", graph=KNNGraph(n_neighbors=6))
    a = SelfConsistentLabeling(kernel_learner=learner).fit(X, yp)
    K0 = make_method("skl-kta", graph=KNNGraph(n_neighbors=6)).fit(X, yp).kernel_
    K0 = K0 / np.mean(np.diag(K0))
    b = SelfConsistentLabeling(kernel="precomputed").fit(K0, yp)
    np.testing.assert_allclose(a.decision_, b.decision_, atol=1e-6)
    assert a.fit_report_.solvers[-1] == "projected-newton"


def test_gp_factors_are_computed_once_per_data_and_width(monkeypatch):
    import sskernels.learners.self_consistent as mod

    mod.clear_cache()
    calls = []
    real = mod._inverse
    monkeypatch.setattr(mod, "_inverse", lambda K: calls.append(1) or real(K))
    X, y = make_moons(50, noise=0.1, random_state=0)
    for seed in range(3):
        SelfConsistentLabeling(sigma2=0.1).fit(X, _partial(y, 3, seed))
    assert len(calls) == 1
    SelfConsistentLabeling(sigma2=0.2).fit(X, _partial(y, 3, 0))
    assert len(calls) == 2


def test_two_moons_and_report():
    X, y = make_moons(200, noise=0.1, random_state=0)
    yp = _partial(y, 5, 1)
    m = SelfConsistentLabeling(sigma2=0.05).fit(X, yp)
    unl = yp == -1
    assert (m.transduction_[unl] == y[unl]).mean() > 0.9
    assert m.fit_report_.solvers == ["projected-newton"] and not m.fit_report_.notes
    assert m.solve_stats_[0]["relative_gap"] <= 1e-6
    # induction at the training points agrees up to the noise term
    np.testing.assert_allclose(m.decision_function(X), m.decision_, atol=1e-2)
    Xn, yn = make_moons(100, noise=0.1, random_state=1)
    assert (m.predict(Xn) == yn).mean() > 0.9


def test_wine_multiclass_well_above_chance():
    X, y = load_wine(return_X_y=True)
    X = normalize(StandardScaler().fit_transform(X))  # standardized, then unit rows (Sec. 6)
    accs = []
    for seed in range(3):
        yp = _partial(y, 3, seed)
        m = SelfConsistentLabeling(sigma2=2.5).fit(X, yp)
        unl = yp == -1
        accs.append((m.transduction_[unl] == y[unl]).mean())
        assert m.dual_coef_.shape[0] == 3 and m.decision_.shape == (178, 3)
    assert np.mean(accs) > 0.8  # chance ~0.40


def test_permutation_invariance():
    X, y = make_moons(80, noise=0.15, random_state=2)
    yp = _partial(y, 4, 2)
    perm = np.random.default_rng(3).permutation(80)
    a = SelfConsistentLabeling(sigma2=0.1).fit(X, yp)
    b = SelfConsistentLabeling(sigma2=0.1).fit(X[perm], yp[perm])
    np.testing.assert_array_equal(a.transduction_[perm], b.transduction_)
    np.testing.assert_allclose(a.decision_[perm], b.decision_, atol=1e-5)


def test_precomputed_matches_rbf():
    X, y = make_moons(50, noise=0.1, random_state=0)
    yp = _partial(y, 3, 0)
    s2 = 0.2
    K0 = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / (2 * s2))  # eq. (17)
    a = SelfConsistentLabeling(sigma2=s2).fit(X, yp)
    b = SelfConsistentLabeling(kernel="precomputed").fit(K0, yp)
    np.testing.assert_allclose(a.decision_, b.decision_, atol=1e-6)
    np.testing.assert_array_equal(a.predict(X[:7]), b.predict(K0[:7]))


@pytest.mark.parametrize(
    "params",
    [
        {"sigma2": 0},
        {"C1": -1},
        {"C2": 0},
        {"epsilon": -0.1},
        {"noise": 0},
        {"kernel": "linear"},
        {"sigma2": "auto"},
        {"eta": 1.5},
        {"eta": -0.1},
        {"kernel_learner": "skl"},
    ],
)
def test_invalid_parameters_rejected(params, monkeypatch):
    import sskernels.learners.self_consistent as mod

    monkeypatch.setattr(mod, "_inverse", lambda K: pytest.fail("computed"))
    X, y = make_moons(20, random_state=0)
    with pytest.raises(ValueError):
        SelfConsistentLabeling(**params).fit(X, _partial(y, 2, 0))


def test_length_mismatch_and_bad_precomputed_rejected():
    X, y = make_moons(20, random_state=0)
    with pytest.raises(ValueError):
        SelfConsistentLabeling().fit(X, _partial(y, 2, 0)[:-1])
    with pytest.raises(ValueError, match="square"):
        SelfConsistentLabeling(kernel="precomputed").fit(X, _partial(y, 2, 0))
    K = -np.eye(20)
    with pytest.raises(ValueError, match="positive definite"):
        SelfConsistentLabeling(kernel="precomputed").fit(K, _partial(y, 2, 0))


# ---------------------------------------------------------------------------- specs, bad kernels


def _spec(tmp_path, kernel):
    from sskernels.spec import parse_spec

    raw = {
        "name": "scl",
        "dataset": "two-moons",
        "graph": {"k": 6, "weights": "heat"},
        "splits": {"protocol": "per-class", "per_class": [[5, 5]], "n_splits": 2},
        "methods": [
            {
                "name": "self-consistent",
                "label": "SCL",
                "params": {"sigma2": 0.05, "kernel": kernel},
            }
        ],
        "output": str(tmp_path / "out"),
    }
    return parse_spec(raw, tmp_path / "spec.yaml")


def test_spec_with_a_learned_kernel_runs(tmp_path):
    """`kernel: {learner: skl-kta}`: the spec's graph goes to the kernel learner."""
    from sskernels.experiment.runner import run_spec

    spec = _spec(tmp_path, {"learner": "skl-kta"})
    rec = run_spec(spec, progress=False)
    assert len(rec) == 2 and (rec["value"] > 70).all(), rec
    report = rec["report"].iloc[0]
    assert "projected-newton" in report["solvers"], report
    scl = spec.methods[0]
    from sskernels.experiment.plan import method_params
    from sskernels.learners.registry import make_method

    est = make_method(scl.name, **method_params(spec, scl))
    learner = getattr(est.kernel_learner, "estimator", est.kernel_learner)
    assert learner.graph.n_neighbors == 6 and learner.graph.weights == "heat"


@pytest.mark.parametrize(
    "kernel,match",
    [
        ({"learner": "harmonic"}, "does not learn a kernel"),
        ({"learner": "skl", "parms": {}}, "mapping"),
        ("cosine", "kernel"),
    ],
)
def test_spec_with_a_bad_kernel_is_one_line(tmp_path, kernel, match):
    from sskernels.errors import UserError

    with pytest.raises(UserError, match=match) as err:
        _spec(tmp_path, kernel)
    assert "\n" not in str(err.value) and "methods[0]" in str(err.value)


class _FixedKernel:
    """A 'kernel learner' whose kernel is given (to feed bad kernels through the learner path)."""

    def __init__(self, K=None):
        self.K = K

    def get_params(self, deep=True):
        return {"K": self.K}

    def set_params(self, **p):
        self.K = p.get("K", self.K)
        return self

    def fit(self, X, y):
        self.kernel_ = self.K
        return self

    def kernel(self, A=None, B=None):
        return self.K


@pytest.mark.parametrize(
    "bad,match",
    [
        ("negative", "not positive definite"),
        ("nan", "NaN"),
        ("zero", "mean diagonal"),
        ("asymmetric", "not symmetric"),
    ],
)
def test_bad_learned_kernel_stops_with_one_line(bad, match):
    X, y = make_moons(30, noise=0.1, random_state=0)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    if bad == "negative":
        K[0, 1] = K[1, 0] = 5.0  # |K_01| > sqrt(K_00 K_11): not PSD
    elif bad == "nan":
        K[3, 4] = K[4, 3] = np.nan
    elif bad == "zero":
        K = np.zeros((30, 30))
    else:
        K[0, 1] += 0.5
    with pytest.raises(ValueError, match=match) as err:
        SelfConsistentLabeling(kernel_learner=_FixedKernel(K)).fit(X, _partial(y, 3, 0))
    assert "\n" not in str(err.value)
