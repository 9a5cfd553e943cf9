"""The bare libsvm calls (sskernels.solvers.libsvm) give SVC's solution, bit for bit."""

import numpy as np
import pytest
from sklearn.svm import SVC

from sskernels.solvers import libsvm as ls
from sskernels.solvers.mkl import svm_solution


def _instance(rng, n=40, rank=6, scale_power=1):
    P = rng.normal(size=(n, rank)) * rng.random(rank) ** scale_power
    return P @ P.T


@pytest.mark.parametrize("trial", range(8))
def test_binary_dual_is_svcs_dual_coef_and_intercept(trial):
    rng = np.random.default_rng(trial)
    K = _instance(rng, scale_power=3 if trial % 3 == 0 else 1)
    y = np.where(rng.random(K.shape[0]) < 0.4, -1.0, 1.0)
    C, tol = (0.1, 10.0, 1e3, 1.0)[trial % 4], (1e-3, 1e-5)[trial % 2]
    svc = SVC(kernel="precomputed", C=C, tol=tol).fit(K, y)
    beta, b = ls.binary_dual(K, y, C, tol=tol)
    expected = np.zeros(K.shape[0])
    expected[svc.support_] = svc.dual_coef_[0]
    np.testing.assert_array_equal(beta, expected)
    assert b == svc.intercept_[0]
    # the decision function's sign convention: positive for +1
    np.testing.assert_allclose(K @ beta + b, svc.decision_function(K), rtol=1e-12, atol=1e-12)
    # and the SVC route of the same function agrees
    beta_s, b_s = ls.binary_dual(K, y, C, tol=tol, use_svc=True)
    np.testing.assert_array_equal(beta_s, beta)
    assert b_s == b


def test_binary_dual_satisfies_the_kkt_conditions():
    """Independent of SVC: 0 <= y beta <= C, sum beta = 0, and the margin conditions."""
    rng = np.random.default_rng(5)
    K = _instance(rng, n=50, rank=8)
    y = np.where(rng.random(50) < 0.5, -1.0, 1.0)
    C = 2.0
    beta, b = ls.binary_dual(K, y, C, tol=1e-8)
    alpha = y * beta
    assert np.all(alpha >= -1e-12) and np.all(alpha <= C + 1e-12)
    assert abs(beta.sum()) < 1e-8
    m = y * (K @ beta + b)
    free = (alpha > 1e-6) & (alpha < C - 1e-6)
    assert free.any()
    np.testing.assert_allclose(m[free], 1.0, atol=1e-5)
    assert np.all(m[alpha < 1e-9] >= 1 - 1e-5)
    assert np.all(m[alpha > C - 1e-9] <= 1 + 1e-5)


def test_fit_precomputed_predicts_as_svc_multiclass_and_odd_labels():
    rng = np.random.default_rng(1)
    K = _instance(rng, n=60)
    y = rng.integers(0, 3, 60) * 5 + 7
    model = ls.fit_precomputed(K[:40, :40], y[:40], 3.0)
    svc = SVC(kernel="precomputed", C=3.0).fit(K[:40, :40], y[:40])
    np.testing.assert_array_equal(model.predict(K[:, :40]), svc.predict(K[:, :40]))
    with pytest.raises(ValueError, match="columns"):
        model.predict(K[:, :39])
    with pytest.raises(ValueError, match="two classes"):
        model.binary_solution()


def test_one_class_and_non_finite_inputs_raise_svcs_errors():
    K = np.eye(4)
    with pytest.raises(ValueError, match="class"):
        ls.fit_precomputed(K, [1, 1, 1, 1], 1.0)
    with pytest.raises(ValueError, match="-1 or \\+1"):
        ls.binary_dual(K, [0, 1, 0, 1], 1.0)
    bad = np.eye(4)
    bad[0, 1] = bad[1, 0] = np.nan  # a NaN kernel entry: no silent NaN dual
    with pytest.raises(ValueError, match="not finite"):
        ls.fit_precomputed(bad, [0, 1, 0, 1], 1.0)
    with pytest.raises(ValueError, match="not finite"):
        ls.binary_dual(bad, [-1, 1, -1, 1], 1.0)


def test_svm_solution_equals_svc_per_problem():
    rng = np.random.default_rng(2)
    K = _instance(rng, n=30)
    Y = np.where(rng.random((3, 30)) < 0.5, -1.0, 1.0)
    sol = svm_solution(K, Y, 5.0)
    J = 0.0
    for p in range(3):
        svc = SVC(kernel="precomputed", C=5.0, tol=1e-5).fit(K, Y[p])
        beta = np.zeros(30)
        beta[svc.support_] = svc.dual_coef_[0]
        np.testing.assert_array_equal(sol.beta[p], beta)
        assert sol.intercept[p] == svc.intercept_[0]
        J += np.abs(beta).sum() - 0.5 * beta @ K @ beta
    assert sol.J == pytest.approx(J, rel=1e-12)


def test_the_global_rng_advances_as_with_svc():
    np.random.seed(3)
    SVC(kernel="precomputed").fit(np.eye(4), [0, 1, 0, 1])
    after_svc = np.random.rand()
    np.random.seed(3)
    ls.fit_precomputed(np.eye(4), [0, 1, 0, 1], 1.0)
    assert np.random.rand() == after_svc


@pytest.mark.parametrize("trial", range(6))
def test_svm_precomputed_decision_is_svcs_support_vector_sum_bit_for_bit(trial):
    """LapSVM's CV scores (solvers.svm.svm_precomputed_decision, now by the bare libsvm call)
    are exactly ``K_te[:, support_] @ dual_coef_[0] + intercept_[0]`` of a fitted SVC."""
    from sskernels.solvers.svm import svm_precomputed_decision

    rng = np.random.default_rng(100 + trial)
    K = _instance(rng, n=60, scale_power=3 if trial % 2 else 1)
    y = np.where(rng.random(60) < 0.45, -1.0, 1.0)
    train, test = np.arange(40), np.arange(40, 60)
    C = (0.1, 10.0, 1e4)[trial % 3]
    svc = SVC(kernel="precomputed", C=C).fit(K[np.ix_(train, train)], y[train])
    expected = K[np.ix_(test, train)][:, svc.support_] @ svc.dual_coef_[0] + svc.intercept_[0]
    got = svm_precomputed_decision(K[np.ix_(train, train)], y[train], K[np.ix_(test, train)], C)
    np.testing.assert_array_equal(got, expected)
