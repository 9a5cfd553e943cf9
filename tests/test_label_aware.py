"""Label-aware base kernels (Wang et al. 2015, Algorithm 1): equations against their definitions."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_digits, make_moons

from sskernels.kernels.alignment import alignment_terms, ideal_kernel
from sskernels.kernels.rbf import mean_squared_distance
from sskernels.kernels.spectra import nystrom_spectrum, rbf_spectrum
from sskernels.learners import KernelSVM, LabelAwareKernel
from sskernels.learners.embedding import gaussian_width, landmark_indices
from sskernels.solvers.cone import alignf, alignment_qp
from sskernels.solvers.highs import solve_qp


def partial(y, n_labeled, seed=0):
    rng = np.random.default_rng(seed)
    yp = np.full(len(y), -1)
    idx = np.concatenate(
        [
            rng.choice(np.flatnonzero(y == k), n_labeled // np.unique(y).size, replace=False)
            for k in np.unique(y)
        ]
    )
    yp[idx] = y[idx]
    return yp


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(200, noise=0.1, random_state=0)
    return X, y, partial(y, 20)


def test_mean_squared_distance_is_the_pairwise_mean():
    X = np.random.default_rng(1).normal(size=(30, 4))
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    assert mean_squared_distance(X) == pytest.approx(D2.sum() / (30 * 29), rel=1e-12)


@pytest.mark.parametrize("three_classes", [False, True])
def test_label_aware_vectors_extrapolate_by_their_definition(three_classes):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    if three_classes:
        y[X[:, 1] > 0.8] = 2
    yp = partial(y, 12)
    est = LabelAwareKernel(b_scale=1.0, eigen_solver="exact", random_state=0).fit(X, yp)
    Z = rng.normal(size=(7, 3))
    b = 1.0 / mean_squared_distance(X)
    L = np.flatnonzero(yp >= 0)
    K = np.exp(-b * ((Z[:, None] - X[L][None]) ** 2).sum(-1))  # k(z, X_l), by definition
    Y = np.eye(y.max() + 1)[yp[L]]
    U = (K @ Y) / K.sum(axis=1, keepdims=True)  # D^-1 K_nl Y
    if not three_classes:
        U = U[:, [1]] - U[:, [0]]  # two classes: u_1 - u_2
    c = est.n_label_aware_
    assert c == (3 if three_classes else 1)
    np.testing.assert_allclose(est.embedding(Z)[:, :c] + est.center_[:c], U, atol=1e-12)
    # the eigenvectors' extension is the Nystrom formula (1/s) k(z, X) u; an eigenvector's
    # sign is arbitrary (LAPACK's choice follows the BLAS kernel's rounding), so each
    # column is compared up to its sign, fixed on the training points
    s, V = rbf_spectrum(X, gaussian_width(b)).smallest(est.basis_.shape[1] - c)
    Kz = np.exp(-b * ((Z[:, None] - X[None]) ** 2).sum(-1))
    got = est.embedding(Z)[:, c:] + est.center_[c:]
    train = est.embedding(X)[:, c:] + est.center_[c:]
    Kx = np.exp(-b * ((X[:, None] - X[None]) ** 2).sum(-1))
    sign = np.sign(np.sum(train * (Kx @ V / s), axis=0))
    assert np.all(sign != 0)
    np.testing.assert_allclose(got * sign, Kz @ V / s, atol=1e-8)


@pytest.mark.parametrize("solver", ["nystrom", "exact"])
def test_kernel_on_new_points_extends_the_training_kernel(moons, solver):
    X, y, yp = moons
    est = LabelAwareKernel(eigen_solver=solver, random_state=0).fit(X, yp)
    np.testing.assert_allclose(est.kernel(X, None), est.kernel_, atol=1e-8)
    np.testing.assert_allclose(est.kernel(X[:5], X[:5]), est.kernel_[:5, :5], atol=1e-8)
    assert np.linalg.eigvalsh(est.kernel_).min() > -1e-8 * np.abs(est.kernel_).max()
    np.testing.assert_array_equal(est.predict(X), est.transduction_)


def test_nystrom_eigenvectors_approach_the_exact_ones():
    X, _ = make_moons(150, noise=0.05, random_state=3)
    w, k = gaussian_width(1.0 / mean_squared_distance(X)), 3
    _, U = rbf_spectrum(X, w, k).smallest(k)
    errors = []
    for m in (15, 75, 150):
        _, V = nystrom_spectrum(X, w, landmark_indices(X, m, 0), k)
        cos = np.abs(np.sum(U * V, axis=0)) / np.linalg.norm(V, axis=0)
        errors.append(float(np.max(1 - cos)))
    assert errors[0] > errors[1] > errors[2]
    assert errors[0] > 0.1 and errors[1] < 1e-2
    assert errors[2] < 1e-10  # all points are landmarks: the exact eigenvectors


@pytest.mark.parametrize("solver", ["nystrom", "exact"])
def test_a_grid_over_p_shares_one_eigendecomposition(solver):
    """Sec. 4.3.2's p grid: the eigenvectors of every p are the leading columns of one
    decomposition per width, and equal (up to each column's sign) to the top-p eigenvectors
    computed on their own (nystrom_spectrum with p components, the landmarks of the fit)."""
    from sskernels.kernels.spectra import clear_rbf_cache

    X, _ = make_moons(200, noise=0.05, random_state=4)
    b = 1.0 / mean_squared_distance(X)
    clear_rbf_cache()
    got = {}
    for p in (0.2, 0.01, 0.05, 0.1):
        est = LabelAwareKernel(n_components=p, n_landmarks=0.2, eigen_solver=solver, random_state=0)
        got[p] = est._eigenvectors(X, b)
    m = 200 if solver == "exact" else 40
    idx = np.arange(200) if solver == "exact" else landmark_indices(X, m, 0)
    full_spec, full_V = got[0.2]
    for p, (spec, V) in got.items():
        k = min(round(p * 200), full_V.shape[1])  # pairs below RBF_RTOL are dropped
        assert V.shape == (200, k) and spec.basis.shape == (m, k)
        assert np.shares_memory(V, full_V)  # one decomposition
        ref_spec, ref = nystrom_spectrum(X, gaussian_width(b), idx, k)
        np.testing.assert_allclose(spec.values, ref_spec.values, atol=1e-13 * spec.values[0])
        sign = np.sign(np.sum(V * ref, axis=0))
        # the extension divides by lambda_i: rounding grows as lambda_1 / lambda_i
        tol = 1e-13 * spec.values[0] / spec.values + 1e-10
        assert np.all(np.abs(V * sign - ref).max(axis=0) <= tol)
        assert np.all(np.abs(spec.extend(X[:7]) * sign - ref[:7]).max(axis=0) <= tol)


def independent_alignf(G, a):
    """Cortes et al.'s QP ``min_{v >= 0} v^T G v - 2 v^T a`` by HiGHS, normalized."""
    v, _ = solve_qp(2 * G + 1e-14 * np.eye(a.size), -2 * a)
    return v / np.sqrt(v @ G @ v)


@pytest.mark.parametrize("seed", range(6))
def test_alignf_against_an_independent_qp(seed):
    rng = np.random.default_rng(seed)
    l, m = 12, (5, 30, 70)[seed % 3]  # 70 > 66 = dim of symmetric 12 x 12: G singular
    U = rng.normal(size=(l, m))
    U -= U.mean(axis=0)
    y = np.arange(l) % 2
    C = np.eye(2)[y]
    G, a = alignment_terms(U, C)
    sol, tie = alignf(G, a)
    ref = independent_alignf(G, a)
    assert sol.value == pytest.approx(float(a @ ref), rel=1e-6)
    assert sol.mu.min() >= 0 and sol.mu @ G @ sol.mu == pytest.approx(1.0, rel=1e-8)
    # the same labeled block (the optimum is unique there) ...
    np.testing.assert_allclose((U * sol.mu) @ U.T, (U * ref) @ U.T, atol=1e-5)
    # ... and the tie rule: the minimum-norm optimum (SLSQP on the same polytope)
    if tie is not None:
        assert np.linalg.norm(sol.mu) <= np.linalg.norm(ref) + 1e-6
        Kopt = (U * sol.mu) @ U.T
        cons = {"type": "eq", "fun": lambda x: ((U * x) @ U.T - Kopt).ravel()}
        res = minimize(
            lambda x: x @ x,
            ref,
            jac=lambda x: 2 * x,
            bounds=[(0, None)] * m,
            constraints=[cons],
            method="SLSQP",
            options={"maxiter": 500, "ftol": 1e-14},
        )
        assert np.linalg.norm(sol.mu) <= np.linalg.norm(res.x) + 1e-5
    else:
        np.testing.assert_allclose(sol.mu, ref, rtol=1e-4, atol=1e-6)
    # solver-independent: permuting the base kernels permutes the weights
    p = rng.permutation(m)
    sol_p, _ = alignf(G[np.ix_(p, p)], a[p])
    np.testing.assert_allclose(sol_p.mu, sol.mu[p], atol=1e-6)


def test_singular_instance_has_a_tie_and_it_is_broken():
    """Three base vectors equal (up to sign) on the labeled points: any split of the weight
    among them is optimal (NNLS puts it all on one); the tie rule splits it equally."""
    rng = np.random.default_rng(0)
    y = np.where(np.arange(8) % 2, 1.0, -1.0)
    u = rng.normal(size=8)
    U = np.column_stack([y, y, -y, u])
    U -= U.mean(axis=0)
    G, a = alignment_terms(U, np.eye(2)[np.arange(8) % 2])
    sol, tie = alignf(G, a)
    first = alignment_qp(G, a)  # stage 1 alone (Lawson-Hanson)
    assert tie is not None and tie.stats["tie_rank"] == 2
    assert sol.value == pytest.approx(first.value, rel=1e-9) == pytest.approx(8.0)
    np.testing.assert_allclose(sol.mu, [1 / 24, 1 / 24, 1 / 24, 0], atol=1e-7)
    assert np.linalg.norm(sol.mu) < np.linalg.norm(first.mu) - 1e-3  # the tie was real
    np.testing.assert_allclose(independent_alignf(G, a), sol.mu, atol=1e-6)


def centered(K):
    H = np.eye(K.shape[0]) - 1.0 / K.shape[0]
    return H @ K @ H


@pytest.mark.parametrize("target", ["simplex", "pm1"])
def test_alignment_is_the_centered_alignment_in_unit_interval(target):
    X, y = load_digits(n_class=3, return_X_y=True)
    yp = partial(y, 30)
    est = LabelAwareKernel(target=target, random_state=0).fit(X, yp)
    L = np.flatnonzero(yp >= 0)
    Kc, Tc = centered(est.kernel_[np.ix_(L, L)]), centered(ideal_kernel(yp[L], 3, target))
    rho = np.sum(Kc * Tc) / (np.linalg.norm(Kc) * np.linalg.norm(Tc))
    assert 0.0 <= est.alignment_ <= 1.0
    assert est.alignment_ == pytest.approx(rho, rel=1e-10)
    # ... and it is the best centered alignment over mu >= 0 (independent QP on the same bases)
    P = est.basis_[L]
    ref = independent_alignf(*alignment_terms(P, np.eye(3)[yp[L]], target))
    Kr = centered((P * ref) @ P.T)
    assert rho >= np.sum(Kr * Tc) / (np.linalg.norm(Kr) * np.linalg.norm(Tc)) - 1e-7
    # alignf's optimum: no single base kernel is better aligned
    for t in range(est.basis_.shape[1]):
        v = est.basis_[L, t]
        Kt = centered(np.outer(v, v))
        if np.linalg.norm(Kt) > 0:
            assert np.sum(Kt * Tc) / (np.linalg.norm(Kt) * np.linalg.norm(Tc)) <= rho + 1e-9


@pytest.mark.parametrize("solver", ["nystrom", "exact"])
def test_permutation_invariance(moons, solver):
    X, y, yp = moons
    p = np.random.default_rng(5).permutation(len(y))
    a = LabelAwareKernel(eigen_solver=solver, random_state=0).fit(X, yp)
    b = LabelAwareKernel(eigen_solver=solver, random_state=0).fit(X[p], yp[p])
    np.testing.assert_array_equal(b.transduction_, a.transduction_[p])
    np.testing.assert_allclose(b.kernel_, a.kernel_[np.ix_(p, p)], atol=1e-8)


def test_multiple_widths_pool_the_bases(moons):
    X, y, yp = moons
    one = LabelAwareKernel(b_scale=1.0, n_components=5, n_landmarks=20, random_state=0).fit(X, yp)
    many = LabelAwareKernel(
        b_scales=[0.2, 1.0, 5.0], n_components=5, n_landmarks=20, random_state=0
    ).fit(X, yp)
    assert len(many.b_) == 3 and many.basis_.shape[1] == 3 * one.basis_.shape[1]
    np.testing.assert_allclose(many.basis_[:, 6:12], one.basis_, atol=1e-12)
    assert many.alignment_ >= one.alignment_ - 1e-9  # a superset of base kernels


def test_end_to_end_digits_beats_chance():
    X, y = load_digits(n_class=5, return_X_y=True)
    yp = partial(y, 50)
    unl = yp < 0
    est = LabelAwareKernel(random_state=0).fit(X, yp)
    svm = KernelSVM(kernel_learner=LabelAwareKernel(random_state=0)).fit(X, yp)
    assert np.mean(est.transduction_[unl] == y[unl]) > 0.8  # chance: 0.2
    assert np.mean(svm.transduction_[unl] == y[unl]) > 0.8
    assert est.fit_report_.degenerate == []


def test_spec_selects_the_width_scale():
    from sskernels.learners.registry import make_method

    est = make_method("label-aware")
    assert est.param_grid["b_scale"][0] == 1.0 and len(est.param_grid["b_scale"]) == 7
    assert type(make_method("label-aware", b_scales=[1, 5])).__name__ == "LabelAwareKernel"


def test_normalized_laplacian_basis_against_its_definition():
    """basis="normalized-laplacian": the largest eigenvectors of S = D^-1/2 K D^-1/2 (exact
    degrees when every row is a landmark), extended by (1/s) S(z, X) u with d(z) = sum k(z, X);
    the Nystrom version approaches them as the landmarks -> n."""
    X, y = make_moons(120, noise=0.1, random_state=2)
    yp = partial(y, 10)
    est = LabelAwareKernel(
        basis="normalized-laplacian", eigen_solver="exact", n_components=4, random_state=0
    ).fit(X, yp)
    b = 1.0 / mean_squared_distance(X)
    K = np.exp(-b * ((X[:, None] - X[None]) ** 2).sum(-1))
    d = K.sum(1)
    S = K / np.sqrt(np.outer(d, d))
    s, U = np.linalg.eigh(S)
    s, U = s[::-1][:4], U[:, ::-1][:, :4]
    V = est.basis_[:, 1:] + est.center_[1:]
    np.testing.assert_allclose(np.abs(np.sum(U * V, axis=0)), 1.0, atol=1e-8)
    Z = np.random.default_rng(0).normal(size=(5, 2))
    Kz = np.exp(-b * ((Z[:, None] - X[None]) ** 2).sum(-1))
    Sz = Kz / np.sqrt(np.outer(Kz.sum(1), d))
    ext = est.embedding(Z)[:, 1:] + est.center_[1:]
    np.testing.assert_allclose(np.abs(ext), np.abs(Sz @ U / s), atol=1e-8)
    np.testing.assert_allclose(est.kernel(X, None), est.kernel_, atol=1e-8)
    errors = []
    for m in (12, 60, 120):
        _, Vm = nystrom_spectrum(
            X, gaussian_width(b), landmark_indices(X, m, 0), 2, normalized=True
        )
        errors.append(
            float(np.max(1 - np.abs(np.sum(U[:, :2] * Vm, axis=0)) / np.linalg.norm(Vm, axis=0)))
        )
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-10


def test_kernel_svm_on_label_aware_from_a_spec(tmp_path):
    """The paper's classifier (Alg. 1 step 6) from a spec: kernel-svm with kernel: label-aware
    (b_scale selected on the labeled points by the nested SelectOnLabeled, then C)."""
    from sskernels.experiment.runner import run_spec
    from sskernels.spec import parse_spec

    spec = parse_spec(
        {
            "dataset": "sklearn-iris",
            "preprocess": "minmax",
            "splits": {"n_splits": 1, "n_labeled": 15, "seed": 0},
            "methods": [
                {
                    "name": "kernel-svm",
                    "params": {"kernel": "label-aware", "kernel_params": {"n_landmarks": 0.5}},
                }
            ],
            "output": str(tmp_path / "out"),
        },
        tmp_path / "la.yaml",
    )
    df = run_spec(spec, progress=False)
    assert float(df[df.metric == "accuracy"].value.iloc[0]) > 80.0  # chance: 33 %


def test_label_aware_vectors_raise_the_alignment_over_the_baseline():
    """Tables 2-3's comparison: alignf over eigenvectors only ("baseline") vs with the
    label-aware vectors added (a superset of base kernels: never lower; here clearly higher)."""
    X, y = load_digits(n_class=4, return_X_y=True)
    yp = partial(y, 40)
    base = LabelAwareKernel(label_aware=False, random_state=0).fit(X, yp)
    ours = LabelAwareKernel(random_state=0).fit(X, yp)
    assert base.n_label_aware_ == 0 and ours.n_label_aware_ == 4
    assert base.basis_.shape[1] + 4 == ours.basis_.shape[1]
    assert ours.alignment_ > base.alignment_ + 0.05
    Z = X[:5]
    np.testing.assert_allclose(base.kernel(Z, None), base.kernel_[:5], atol=1e-8)


def test_landmarks_are_order_free_and_seeded_and_take_sparse_input():
    import scipy.sparse as sp

    X, _ = make_moons(80, noise=0.1, random_state=0)
    p = np.random.default_rng(1).permutation(80)
    idx = landmark_indices(X, 10, 3)
    assert idx.size == 10 and np.unique(idx).size == 10
    np.testing.assert_array_equal(np.sort(p[landmark_indices(X[p], 10, 3)]), idx)
    assert not np.array_equal(landmark_indices(X, 10, 4), idx)  # the seed matters
    S = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    np.testing.assert_array_equal(
        np.sort(p[landmark_indices(S[p], 10, 3)]), landmark_indices(S, 10, 3)
    )


@pytest.mark.parametrize("seed", range(4))
def test_tie_rule_on_badly_scaled_bases_is_certified(seed):
    """Real label-aware bases have eigenvectors that are ~0 on the labeled points (narrow
    widths): G's eigenvalues span 1e-12 of the largest and HiGHS's equality-constrained QP
    ended Infeasible/Unbounded on such rows.  The tie rule must certify its point (KKT)
    and match the minimum-norm optimum found by an independent solver."""
    rng = np.random.default_rng(seed)
    l, m = 10, 60  # 60 > 55 = dim of centered symmetric 10 x 10 blocks
    U = rng.normal(size=(l, m))
    U[:, :8] *= 10.0 ** rng.uniform(-2, -1, size=8)  # nearly zero on the labeled points
    U[:, 8] = U[:, 9]  # an exact duplicate
    U -= U.mean(axis=0)
    G, a = alignment_terms(U, np.eye(2)[np.arange(l) % 2])
    sol, tie = alignf(G, a)
    assert tie is not None and tie.fallback is None, tie
    assert tie.stats["tie_method"] == "ldp" and tie.stats["tie_certified"]
    assert tie.stats["tie_residual"] <= 1e-8
    if tie.stats["tie_certified"]:
        assert tie.stats["tie_gap"] <= 1e-6
    assert sol.mu.min() >= 0 and sol.mu @ G @ sol.mu == pytest.approx(1.0, rel=1e-8)
    # HiGHS's QP on Cortes et al.'s form reaches the same value (ours is never lower)
    assert sol.value >= float(a @ independent_alignf(G, a)) * (1 - 1e-6)
    # every optimum has the same labeled block: SLSQP's minimum-norm point on it (the block's
    # equations in an orthonormal basis of their row space, from an SVD of M itself)
    M = np.stack([np.outer(U[:, t], U[:, t]).ravel() for t in range(m)], axis=1)
    W, sv, _ = np.linalg.svd(M, full_matrices=False)
    W = W[:, sv > 1e-9 * sv[0]]
    target = W.T @ (M @ sol.mu)
    cons = {"type": "eq", "fun": lambda x: W.T @ (M @ x) - target, "jac": lambda x: W.T @ M}
    res = minimize(
        lambda x: x @ x,
        sol.mu + 0.01,
        jac=lambda x: 2 * x,
        bounds=[(0, None)] * m,
        constraints=[cons],
        method="SLSQP",
        options={"maxiter": 2000, "ftol": 1e-16},
    )
    Kopt = (U * sol.mu) @ U.T
    assert np.abs((U * res.x) @ U.T - Kopt).max() < 1e-6 * np.abs(Kopt).max()
    assert np.linalg.norm(sol.mu) <= np.linalg.norm(res.x) * (1 + 1e-6)
    assert np.linalg.norm(sol.mu) >= np.linalg.norm(res.x) * (1 - 1e-3)  # and no shorter
    assert sol.mu[8] == pytest.approx(sol.mu[9], rel=1e-3, abs=1e-8 * sol.mu.max())  # split evenly


@pytest.mark.parametrize("seed", range(3))
def test_tie_rule_ldp_and_tikhonov_methods_agree(seed, monkeypatch):
    """The least-distance program (null-space coordinates, one small NNLS) and the Tikhonov
    method (support, polish, certificate) are two exact ways to the same minimum-norm
    optimum; when the LDP cannot certify, the Tikhonov method runs and the stats say so."""
    import sskernels.solvers.cone as cone

    rng = np.random.default_rng(10 + seed)
    l, m = 12, 120
    U = rng.normal(size=(l, m))
    U[:, :30] *= 10.0 ** rng.uniform(-1, 0, size=30)
    U[:, 40:50] = U[:, 50:60]  # duplicates: a real tie
    U -= U.mean(axis=0)
    G, a = alignment_terms(U, np.eye(3)[np.arange(l) % 3])
    sol, tie = cone.alignf(G, a)
    assert tie.stats["tie_method"] == "ldp"
    monkeypatch.setattr(cone, "_ldp_optimum", lambda *args: None)
    sol_t, tie_t = cone.alignf(G, a)
    assert tie_t.stats["tie_method"] == "tikhonov" and tie_t.stats["tie_ldp_gap"] is None
    assert tie_t.stats["tie_certified"] and tie_t.fallback.startswith("ldp->tikhonov")
    np.testing.assert_allclose(sol.mu, sol_t.mu, rtol=0, atol=1e-6 * np.abs(sol_t.mu).max())
    np.testing.assert_allclose(
        sol.mu[40:50], sol.mu[50:60], rtol=1e-6, atol=1e-9 * sol.mu.max()
    )  # ties split evenly


def test_tie_rule_without_a_certificate_says_so(monkeypatch):
    """If no Tikhonov weight gives a certified support, the point kept is reported."""
    import sskernels.solvers.cone as cone

    monkeypatch.setattr(cone, "TIE_GAP_TOL", -1.0)
    monkeypatch.setattr(cone, "TIE_TIKHONOV_RESIDUAL", -1.0)
    rng = np.random.default_rng(0)
    U = rng.normal(size=(8, 40))
    U -= U.mean(axis=0)
    G, a = alignment_terms(U, np.eye(2)[np.arange(8) % 2])
    sol, tie = cone.alignf(G, a)
    assert tie is not None and "no certificate" in tie.fallback
    assert tie.fallback.startswith("ldp->tikhonov")  # the LDP is held to the same gap
    assert sol.mu @ G @ sol.mu == pytest.approx(1.0, rel=1e-8)


def test_unobserved_base_vectors_get_no_weight():
    """A base vector that vanishes on the labeled points cannot be weighed by alignf (its
    weight would be ~1 / its labeled share): with min_labeled_mass it gets 0."""
    Xm, y = make_moons(300, noise=0.08, random_state=0)
    rng = np.random.default_rng(0)
    X = np.vstack([Xm, rng.normal(size=(40, 2)) * 0.2 + 6.0])  # an unlabeled far cluster
    yp = np.full(340, -1)
    for c in (0, 1):
        yp[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    kw = dict(b_scales=[1.0, 10.0], eigen_solver="exact", n_components=0.2)
    est = LabelAwareKernel(**kw).fit(X, yp)
    L = yp >= 0
    raw = est.basis_ + est.center_
    share = (raw[L] ** 2).sum(0) / (raw**2).sum(0) / (L.sum() / 340)
    np.testing.assert_array_equal(est.observed_, share >= 0.05)
    assert (~est.observed_).any() and np.all(est.mu_[~est.observed_] == 0)
    assert est.mu_[est.observed_].max() > 0 and est.alignment_ > 0
    assert est.kernel(X[:5]).shape == (5, 340)
    loose = LabelAwareKernel(min_labeled_mass=0.0, **kw).fit(X, yp)
    assert loose.observed_.all()
    # without the rule the far cluster's vectors reach the solver: on the labeled points they
    # are numerically dependent on the others (below G's rank threshold), so alignf's NNLS
    # does not admit them and the tie rule gives them no weight either (an eigendecomposition
    # kept them in G's range, with weights ~1 / labeled share ~1e5 and an uncertified tie)
    assert loose.alignment_ == pytest.approx(est.alignment_, rel=1e-9)
    assert loose.mu_[~est.observed_].max() <= 1e-3 * est.mu_.max()
    assert not any("fallback" in n for n in loose.fit_report_.as_dict()["notes"])


def test_the_eigenvector_count_p_is_a_grid_the_oracle_scans_as_separate_fits(moons):
    """Sec. 4.3.2: "p is chosen among 0.01n, ..., 0.2n".  A list of ``n_components`` is a
    selection grid; the oracle's choice over (p, C) equals the best of the fits with each p
    fixed, and without a list the fixed default (0.1 n) is what is fitted, as before."""
    from sskernels.experiment.oracle import oracle_fit
    from sskernels.learners.selection import flatten
    from sskernels.learners.registry import make_method

    X, y, y_partial = moons
    kp = {"basis": "normalized-laplacian", "n_landmarks": 0.2}
    grid_est = make_method(
        "kernel-svm",
        kernel="label-aware",
        C_grid=[1.0, 100.0],
        kernel_params={**kp, "n_components": [0.05, 0.2]},
    )
    _, grid = flatten(grid_est)
    assert grid["kernel_learner__n_components"] == [0.05, 0.2]
    _, info = oracle_fit(grid_est, X, y_partial, y)
    single = []
    for p in (0.05, 0.2):
        est = make_method(
            "kernel-svm",
            kernel="label-aware",
            C_grid=[1.0, 100.0],
            kernel_params={**kp, "n_components": p},
        )
        single.append(max(oracle_fit(est, X, y_partial, y)[1]["accuracy"]))
    assert max(info["accuracy"]) == pytest.approx(max(single))
    fixed = make_method("kernel-svm", kernel="label-aware", kernel_params=kp)
    assert flatten(fixed)[0].kernel_learner.n_components == 0.1
