"""Kernel self-consistent labeling (rho-epsilon learning): equations, solver, API."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_wine, make_moons
from sklearn.preprocessing import StandardScaler, normalize

from sskernels.learners.self_consistent import (SelfConsistentLabeling, dual_problem,
                                                 loo_coefficients, primal_objective)
from sskernels.solvers import boxqp
from sskernels.solvers.boxqp import certificate, solve_box_qp
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


def _tiny_problem(seed, epsilon=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(9, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0) + 1e-2 * np.eye(9)
    Bt = loo_coefficients(K)
    labeled = np.array([0, 3, 5, 7])
    c = np.array([1.0, -1.0, 1.0, -1.0])
    return K, Bt, labeled, c, dual_problem(K, Bt, labeled, c, 2.0, 1.5, epsilon)


@pytest.mark.parametrize("seed", range(3))
def test_dual_optimum_matches_independent_solver(seed):
    """HiGHS (+ polish) vs L-BFGS-B on the dual (14)-(16); y = K R x (13) is unique."""
    K, Bt, labeled, c, (H, f, lo, hi, R) = _tiny_problem(seed)
    x, info = solve_box_qp(H, f, lo, hi)
    assert info.solver == "highs-qp" and info.fallback is None
    assert info.stats["relative_gap"] <= 1e-9 and info.stats["kkt_residual"] <= 1e-8
    res = minimize(lambda z: (0.5 * z @ H @ z + f @ z, H @ z + f), np.zeros_like(f), jac=True,
                   method="L-BFGS-B", bounds=list(zip(lo, hi)),
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 50000})
    q_ref = 0.5 * res.x @ H @ res.x + f @ res.x
    assert info.stats["objective"] == pytest.approx(q_ref, abs=1e-7)
    np.testing.assert_allclose(K @ R @ x, K @ R @ res.x, atol=1e-4)
    # strong duality with the primal (2)-(6) at y = K R x: primal = -dual
    y = K @ R @ x
    assert primal_objective(K, Bt, labeled, c, 2.0, 1.5, 0.3, y) == pytest.approx(
        -info.stats["objective"], rel=1e-7, abs=1e-8)


def test_large_epsilon_reduces_to_labeled_problem():
    """Sec. 4.2: eps large -> beta = gamma = 0, the model (22)-(23) on labeled points."""
    K, Bt, labeled, c, (H, f, lo, hi, R) = _tiny_problem(0, epsilon=1e6)
    x, _ = solve_box_qp(H, f, lo, hi)
    L = labeled.size
    assert np.allclose(x[L:], 0.0)
    H1 = H[:L, :L]
    x1, _ = solve_box_qp(H1, f[:L], lo[:L], hi[:L])
    np.testing.assert_allclose(K @ R[:, :L] @ x1, K @ R @ x, atol=1e-6)


def test_forced_fallback_is_reported(monkeypatch):
    def broken(*a, **k):
        raise SolverError("HiGHS ended with status Time limit reached")

    monkeypatch.setattr(boxqp, "solve_qp", broken)
    X, y = make_moons(60, noise=0.1, random_state=0)
    m = SelfConsistentLabeling(sigma2=0.1).fit(X, _partial(y, 4, 0))
    assert m.fit_report_.solvers == ["lbfgsb"]
    assert any("highs-qp->lbfgsb" in n for n in m.fit_report_.fallbacks)
    assert m.solve_stats_[0]["relative_gap"] <= 1e-6


def test_certificate_is_a_bound():
    K, Bt, labeled, c, (H, f, lo, hi, R) = _tiny_problem(1)
    x, info = solve_box_qp(H, f, lo, hi)
    z = np.clip(x + 0.05, lo, hi)
    q, gap, _, _ = certificate(H, f, lo, hi, z)
    assert q - info.stats["objective"] <= gap + 1e-12 and gap > 0


def test_two_moons_and_report():
    X, y = make_moons(200, noise=0.1, random_state=0)
    yp = _partial(y, 5, 1)
    m = SelfConsistentLabeling(sigma2=0.05).fit(X, yp)
    unl = yp == -1
    assert (m.transduction_[unl] == y[unl]).mean() > 0.9
    assert m.fit_report_.solvers == ["highs-qp"] and not m.fit_report_.notes
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


@pytest.mark.parametrize("params", [{"sigma2": 0}, {"C1": -1}, {"C2": 0}, {"epsilon": -0.1},
                                    {"noise": 0}, {"kernel": "linear"}, {"sigma2": "auto"}])
def test_invalid_parameters_rejected(params, monkeypatch):
    import sskernels.learners.self_consistent as mod

    monkeypatch.setattr(mod, "loo_coefficients", lambda K: pytest.fail("computed"))
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


def test_scikit_learn_estimator_checks():
    """scikit-learn's own checks; check_classifiers_classes is skipped by name: its labels
    [-1, 1] collide with y == -1 = unlabeled (as for every semi-supervised estimator here)."""
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(
            SelfConsistentLabeling(), on_fail=None,
            expected_failed_checks={"check_classifiers_classes": "-1 marks unlabeled points"})
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert failed == [], failed
