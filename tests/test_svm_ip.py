"""The SVM dual by the interior-point method (sskernels/solvers/svm_ip.py): against two
independent solvers (HiGHS's active-set QP and libsvm's SMO at a tight tolerance), its
certificate against the true suboptimality, and its fallback in exact_svc."""

import numpy as np
import pytest
from sklearn.svm import SVC

from sskernels.solvers import exact_svc as exact_module
from sskernels.solvers.exact_svc import exact_svc
from sskernels.solvers.highs import SolverError
from sskernels.solvers.svm import svm_dual_qp
from sskernels.solvers.svm_ip import GAP_TOL, dual_certificate, svm_dual_ip


def _objective(Q, beta):
    return 0.5 * beta @ Q @ beta - beta.sum()


def _problem(rng, l, rank, C, balance=0.5):
    """A C-SVM dual ``Q = T K T`` of a kernel of the given rank (unit mean diagonal)."""
    P = rng.normal(size=(l, rank))
    K = P @ P.T
    K /= np.mean(np.diag(K))
    t = np.where(rng.random(l) < balance, 1.0, -1.0)
    t[:2] = [1.0, -1.0]
    return t[:, None] * K * t[None, :], t, float(C)


CASES = [
    # (l, rank, C, balance): full rank, low rank (Wang et al.'s nearly singular learned
    # kernels), rank one, tiny and huge C, unbalanced classes
    (40, 40, 1.0, 0.5),
    (60, 60, 10.0, 0.3),
    (100, 5, 1e4, 0.5),
    (100, 3, 1e3, 0.5),
    (60, 1, 100.0, 0.5),
    (80, 20, 1e-3, 0.5),
    (50, 50, 1e4, 0.2),
    (30, 2, 10.0, 0.9),
]


@pytest.mark.parametrize("l, rank, C, balance", CASES)
def test_optimum_equals_two_independent_solvers(l, rank, C, balance):
    rng = np.random.default_rng(l + rank)
    Q, t, C = _problem(rng, l, rank, C, balance)
    beta, grad, info = svm_dual_ip(Q, t, C)
    assert info.solver == "interior-point" and info.fallback is None
    assert info.stats["gap"] <= GAP_TOL
    # feasible
    assert beta.min() >= 0.0 and beta.max() <= C
    assert abs(t @ beta) <= 1e-9 * C * l
    np.testing.assert_allclose(grad, Q @ beta - 1.0)
    # HiGHS's active-set QP
    ref, _, _ = svm_dual_qp(Q, t, C)
    scale = max(1.0, abs(_objective(Q, ref)))
    assert _objective(Q, beta) <= _objective(Q, ref) + 1e-7 * scale
    if rank == l and C <= 10:  # libsvm's SMO at a tight tolerance (it crawls on the others)
        svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(t[:, None] * Q * t[None, :], t)
        ref2 = np.zeros(l)
        ref2[svc.support_] = np.abs(svc.dual_coef_[0])
        assert _objective(Q, beta) <= _objective(Q, ref2) + 1e-6 * scale


def test_certificate_bounds_the_suboptimality():
    """The gap of any box point (with any multiplier) is at least its suboptimality, and is
    0 at the optimum of a problem solved by hand."""
    rng = np.random.default_rng(3)
    Q, t, C = _problem(rng, 30, 4, 50.0)
    beta_star, _, info = svm_dual_ip(Q, t, C)
    q_star = _objective(Q, svm_dual_qp(Q, t, C)[0])  # the optimum by an independent solver
    for _ in range(20):
        # a feasible point: a mix of the optimum and a balanced interior point
        b = np.where(t > 0, 1.0 / np.sum(t > 0), 1.0 / np.sum(t < 0)) * rng.random() * C
        lam = rng.random()
        beta = lam * beta_star + (1 - lam) * b
        obj, gap, res = dual_certificate(Q, t, C, beta, rng.normal())
        assert res <= 1e-12
        assert gap * max(1.0, abs(obj)) >= obj - q_star - 1e-9
    # hand-solved: Q = I, t = (1, -1), C large: beta = (1, 1), q = -1, y = 0
    assert dual_certificate(np.eye(2), np.array([1.0, -1.0]), 1e3, np.ones(2), 0.0) == (
        -1.0,
        0.0,
        0.0,
    )


def test_no_certificate_raises():
    rng = np.random.default_rng(1)
    Q, t, C = _problem(rng, 50, 5, 1e4)
    with pytest.raises(SolverError, match="no certified optimum in 1 iterations"):
        svm_dual_ip(Q, t, C, max_iter=1)


def test_exact_svc_falls_back_to_highs_and_says_so(monkeypatch):
    """A dual the interior-point method does not certify is HiGHS's, recorded with the
    reason; the labels are those of libsvm at a tight tolerance either way."""
    rng = np.random.default_rng(7)
    X = np.vstack(
        [rng.normal(0, 1, (20, 3)), rng.normal(1.5, 1, (20, 3)), rng.normal(3, 1, (20, 3))]
    )
    y = np.repeat([0, 1, 2], 20)
    K = np.exp(-0.3 * ((X[:, None] - X[None]) ** 2).sum(-1))
    ref = SVC(kernel="precomputed", C=10.0, tol=1e-10).fit(K, y)
    model = exact_svc(K, y, 10.0)
    assert {i.solver for i in model.solvers_} == {"interior-point"}
    np.testing.assert_array_equal(model.predict(K), ref.predict(K))

    def refuse(Q, t, C):
        raise SolverError("interior point: no certified optimum in 100 iterations")

    monkeypatch.setattr(exact_module, "svm_dual_ip", refuse)
    fallen = exact_svc(K, y, 10.0)
    assert {i.solver for i in fallen.solvers_} == {"highs-qp"}
    assert all(i.fallback.startswith("svm-dual interior-point->highs-qp") for i in fallen.solvers_)
    np.testing.assert_array_equal(fallen.predict(K), ref.predict(K))
