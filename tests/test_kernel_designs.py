"""Wang et al. (2015) Table 1 baselines: cluster, diffusion and max-alignment kernels against
their closed forms and an independent QP; OSK is the spectral graph kernel."""

import numpy as np
import pytest
from scipy.linalg import expm
from sklearn.datasets import load_digits, make_moons

from sskernels.kernels.alignment import ideal_kernel
from sskernels.kernels.rbf import mean_squared_distance
from sskernels.learners import (
    ClusterKernel,
    DiffusionKernel,
    KernelSVM,
    LabelAwareKernel,
    MaxAlignmentKernel,
    OrderConstrainedSpectralKernel,
)
from sskernels.learners.base import indicator
from sskernels.learners.kernel_designs import max_alignment_weights
from sskernels.learners.registry import get_method, make_method
from sskernels.solvers.cone import alignment_qp
from sskernels.solvers.highs import solve_qp
from sskernels.learners.spectral_transforms import order_matrix

DESIGNS = [ClusterKernel, DiffusionKernel, MaxAlignmentKernel]


def partial(y, n_per_class, seed=0):
    rng = np.random.default_rng(seed)
    yp = np.full(len(y), -1)
    for k in np.unique(y):
        idx = rng.choice(np.flatnonzero(y == k), n_per_class, replace=False)
        yp[idx] = k
    return yp


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(200, noise=0.1, random_state=0)
    return X, y, partial(y, 5)


def dense_S(X, b_scale=1.0):
    """``S = D^-1/2 K D^-1/2`` of ``K = exp(-b d^2)``, b = b_scale / mean squared distance."""
    b = b_scale / mean_squared_distance(X)
    K = np.exp(-b * ((X[:, None] - X[None]) ** 2).sum(-1))
    d = K.sum(1)
    return K, K / np.sqrt(np.outer(d, d))


@pytest.mark.parametrize("cls", DESIGNS)
@pytest.mark.parametrize("solver", ["exact", "nystrom"])
def test_kernels_are_psd_and_extend_to_new_points(moons, cls, solver):
    X, _, yp = moons
    est = cls(eigen_solver=solver, n_landmarks=0.5).fit(X, yp)
    K = est.kernel_
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    Z = np.random.default_rng(0).normal(size=(15, 2))
    joint = est.kernel(np.vstack([X, Z]), np.vstack([X, Z]))
    scale = np.abs(K).max()
    assert np.linalg.eigvalsh(K).min() >= -1e-10 * scale
    assert np.linalg.eigvalsh(joint).min() >= -1e-10 * scale
    np.testing.assert_allclose(est.kernel(X, None), K, atol=1e-10 * scale)  # exact at X
    np.testing.assert_allclose(joint[:200, 200:], est.kernel(None, Z), atol=1e-10 * scale)


def test_cluster_kernel_equals_its_closed_form():
    """Chapelle et al.'s steps 1-4 computed directly: top-k of S, linear transfer, unit diagonal."""
    X, y = make_moons(60, noise=0.1, random_state=3)
    yp = partial(y, 3)
    est = ClusterKernel(b_scale=5.0, n_components=6, random_state=0).fit(X, yp)
    _, S = dense_S(X, 5.0)
    s, U = np.linalg.eigh(S)
    s, U = s[::-1][:6], U[:, ::-1][:, :6]
    Lt = (U * s) @ U.T
    Dt = 1 / np.sqrt(np.diag(Lt))
    np.testing.assert_allclose(est.kernel_, Dt[:, None] * Lt * Dt[None], atol=1e-10)
    np.testing.assert_allclose(np.diag(est.kernel_), 1.0, atol=1e-12)
    raw = ClusterKernel(b_scale=5.0, n_components=6, unit_diagonal=False, random_state=0).fit(X, yp)
    np.testing.assert_allclose(raw.kernel_, Lt, atol=1e-10)
    # every eigenpair, no step 4: the linear transfer gives S back
    full = ClusterKernel(b_scale=5.0, n_components=60, unit_diagonal=False, random_state=0).fit(
        X, yp
    )
    np.testing.assert_allclose(full.kernel_, S, atol=1e-8)


@pytest.mark.parametrize("delta", [1.0, 0.1])
def test_diffusion_kernel_equals_the_matrix_exponential(delta):
    """Over all n eigenpairs: expm(-(I - S)/delta) (scipy); over k: its compression P e P,
    P the projector on the k smallest eigenvectors of the normalized Laplacian."""
    X, y = make_moons(50, noise=0.1, random_state=4)
    yp = partial(y, 3)
    # b_scale = 50: every eigenvalue of S is >= 1e-3 (at b_scale = 1 some are ~1e-14, below
    # the RBF_RTOL cut of kernels/spectra.py, and their exp(-1/delta) weight would be missed)
    _, S = dense_S(X, 50.0)
    E = expm(-(np.eye(50) - S) / delta)
    full = DiffusionKernel(delta=delta, b_scale=50.0, n_components=50, random_state=0).fit(X, yp)
    np.testing.assert_allclose(full.kernel_, E, atol=1e-8)
    _, S = dense_S(X)
    E = expm(-(np.eye(50) - S) / delta)
    est = DiffusionKernel(delta=delta, n_components=5, random_state=0).fit(X, yp)
    _, U = np.linalg.eigh(S)
    P = U[:, -5:] @ U[:, -5:].T
    np.testing.assert_allclose(est.kernel_, P @ E @ P, atol=1e-8)


def independent_max_alignment(U_L, y_enc, target="simplex"):
    """Nearest labeled block to T in the cone {sum mu_t (u_t u_t^T)_LL : mu >= 0}, with M
    formed explicitly (l^2 x m), by HiGHS's QP; rescaled to ||K_LL||_F = 1."""
    T = ideal_kernel(y_enc, None, target)
    M = np.column_stack([np.outer(u, u).ravel() for u in U_L.T])
    G = M.T @ M
    v, _ = solve_qp(G + 1e-13 * np.trace(G) * np.eye(G.shape[0]), -(M.T @ T.ravel()))
    v = np.maximum(v, 0)
    return v / np.linalg.norm(M @ v), M, T


@pytest.mark.parametrize("seed", range(3))
def test_max_alignment_weights_against_an_independent_qp(seed):
    X, y = make_moons(120, noise=0.15, random_state=seed)
    yp = partial(y, 6, seed)
    est = MaxAlignmentKernel(n_components=8, random_state=0).fit(X, yp)
    L = est.labeled_
    ref, M, T = independent_max_alignment(est.eigenvectors_[L], yp[L])
    value = float(T.ravel() @ M @ ref)
    assert est.alignment_value_ == pytest.approx(value, rel=1e-6)
    assert est.alignment_ == pytest.approx(value / np.linalg.norm(T), rel=1e-6)
    np.testing.assert_allclose(est.kernel_[np.ix_(L, L)].ravel(), M @ ref, atol=1e-6)
    assert est.mu_.min() >= 0


def test_max_alignment_at_least_osk_on_the_same_eigenvectors(moons):
    """Dropping the order constraints can only raise the optimum (OSK's feasible set is in
    the max-alignment kernel's)."""
    X, _, yp = moons
    osk = OrderConstrainedSpectralKernel(n_components=15, improved_order=False).fit(X, yp)
    U_L = osk.eigenvectors_[osk.labeled_]
    C_L = indicator(np.searchsorted(osk.classes_, yp[osk.labeled_]), 2)
    free, _ = max_alignment_weights(U_L, C_L)
    assert free.value >= osk.alignment_value_ - 1e-9
    # and OSK's value is the order-constrained optimum of the same (G, a) (same program)
    from sskernels.kernels.alignment import alignment_terms

    G, a = alignment_terms(U_L, C_L)
    ordered = alignment_qp(G, a, order_matrix(15))
    assert ordered.value == pytest.approx(osk.alignment_value_, rel=1e-8)
    # on the designs' own eigenvectors too
    mak = MaxAlignmentKernel(basis="normalized-laplacian", n_components=15, random_state=0).fit(
        X, yp
    )
    V_L = mak.eigenvectors_[mak.labeled_]
    G, a = alignment_terms(V_L, C_L)
    assert mak.alignment_value_ >= alignment_qp(G, a, order_matrix(15)).value - 1e-9


@pytest.mark.parametrize("cls", [*DESIGNS, LabelAwareKernel])
def test_svm_on_each_design_beats_chance_on_two_moons(moons, cls):
    X, y, yp = moons
    unl = yp < 0
    svm = KernelSVM(kernel_learner=cls(b_scale=5.0)).fit(X, yp)
    assert np.mean(svm.transduction_[unl] == y[unl]) > 0.75  # chance: 0.5
    Xt, yt = make_moons(100, noise=0.1, random_state=1)
    assert np.mean(svm.predict(Xt) == yt) > 0.75


@pytest.mark.parametrize("cls", DESIGNS)
def test_svm_on_each_design_beats_chance_on_digits(cls):
    X, y = load_digits(n_class=4, return_X_y=True)
    X, y = X[:400], y[:400]
    yp = partial(y, 5)
    svm = KernelSVM(kernel_learner=cls()).fit(X, yp)
    unl = yp < 0
    assert np.mean(svm.transduction_[unl] == y[unl]) > 0.6  # chance: 0.25


def test_registry_specs_and_the_osk_alias():
    assert get_method("spectral-graph-kernel") is get_method("osk")
    for name, cls in [
        ("cluster-kernel", ClusterKernel),
        ("diffusion-kernel", DiffusionKernel),
        ("max-alignment-kernel", MaxAlignmentKernel),
    ]:
        sel = make_method(name)
        assert type(sel.estimator) is cls and len(sel.param_grid["b_scale"]) == 7
        svm = make_method("kernel-svm", kernel=name, kernel_params={"b_scale": 1.0})
        learner = svm.estimator.kernel_learner  # diffusion: delta still selected
        assert type(getattr(learner, "estimator", learner)) is cls
    assert make_method("diffusion-kernel", b_scale=1.0).param_grid == {
        "delta": [1.0, 0.1, 1e-3, 1e-5]
    }


def test_kernel_svm_on_the_designs_from_a_spec(tmp_path):
    from sskernels.experiment.runner import run_spec
    from sskernels.spec import parse_spec

    spec = parse_spec(
        {
            "dataset": "sklearn-iris",
            "preprocess": "minmax",
            "splits": {"n_splits": 1, "n_labeled": 15, "seed": 0},
            "methods": [
                {"name": "kernel-svm", "label": k, "params": {"kernel": k}}
                for k in (
                    "cluster-kernel",
                    "diffusion-kernel",
                    "max-alignment-kernel",
                    "spectral-graph-kernel",
                )
            ],
            "output": str(tmp_path / "out"),
        },
        tmp_path / "designs.yaml",
    )
    df = run_spec(spec, progress=False)
    acc = df[df.metric == "accuracy"].value.astype(float)
    assert len(acc) == 4 and (acc > 80.0).all()  # chance: 33 %


@pytest.mark.parametrize("cls", DESIGNS)
@pytest.mark.parametrize("protocol", ["kfold", "one-fold-labeled"])
def test_fold_predictor_equals_the_generic_rule(monkeypatch, cls, protocol):
    """The designs' fold fits without the estimator (``_fold_predictor``) score every width
    (and delta) as fitting with the fold's labels hidden does, three classes (folds that
    miss a class included), and report the same fallbacks."""
    from sskernels.learners import selection
    from sskernels.learners.selection import SelectOnLabeled, default_grid

    X, y = load_digits(n_class=3, return_X_y=True)
    X, y = X[:240], y[:240]
    yp = partial(y, 4, seed=1)
    est = cls(n_components=20)
    grid = default_grid(est)

    def no_generic(*a, **k):
        raise AssertionError("the fast path was not used")

    with monkeypatch.context() as m:
        m.setattr(selection, "generic_fold_predictor", no_generic)
        fast = SelectOnLabeled(est, grid, protocol=protocol, random_state=0).fit(X, yp)
    with monkeypatch.context() as m:
        m.setattr(cls, "_fold_predictor", lambda self, *a: None)
        slow = SelectOnLabeled(est, grid, protocol=protocol, random_state=0).fit(X, yp)
    np.testing.assert_array_equal(
        fast.cv_results_["mean_test_score"], slow.cv_results_["mean_test_score"]
    )
    assert fast.best_params_ == slow.best_params_
    assert fast.fit_report_.as_dict() == slow.fit_report_.as_dict()
    np.testing.assert_array_equal(fast.transduction_, slow.transduction_)
    assert est._fold_predictor(X, np.flatnonzero(yp >= 0), y[yp >= 0], ("nope",)) is None
