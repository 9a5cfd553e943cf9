"""The harmonic function and consistency solved by preconditioned CG.

``solver="cg"`` must give the direct (sparse LU) solution to 1e-6 with identical
transductions, record its iterations and residuals, report a cap hit as a fallback, never
call the LU and never form an n x n dense matrix; ``solver="auto"`` switches at
``DIRECT_MAX_N``; the direct path is today's LU, bit for bit.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu
from sklearn.datasets import make_blobs
from sklearn.utils._param_validation import InvalidParameterError

import sskernels.learners.propagation as prop
from sskernels.graph import KNNGraph
from sskernels.learners import Consistency, HarmonicFunction
from sskernels.solvers.cg import amg_preconditioner, cg_solve, have_pyamg, jacobi_preconditioner

TOL = 1e-6


def _partial(y, n_lab, seed=0, among=None):
    rng = np.random.default_rng(seed)
    pool = np.arange(y.size) if among is None else among
    yp = np.full(y.size, -1)
    # one labeled point per class first, so every class is labeled
    first = [rng.choice(pool[y[pool] == c]) for c in np.unique(y[pool])]
    rest = rng.choice(np.setdiff1d(pool, first), n_lab - len(first), replace=False)
    idx = np.concatenate([first, rest])
    yp[idx] = y[idx]
    return yp


def _blobs(n=400, centers=2, d=5, seed=0, std=2.0):
    X, y = make_blobs(
        n_samples=n, n_features=d, centers=centers, cluster_std=std, random_state=seed
    )
    return X, y


def _disconnected():
    """Two far-apart groups; labels only in the first: the second is an orphan component."""
    X1, y1 = _blobs(n=240, centers=3, seed=1)
    X2, y2 = _blobs(n=60, centers=2, seed=2)
    X = np.vstack([X1, X2 + 1000.0])
    y = np.concatenate([y1, y2])
    yp = _partial(y, 15, seed=3, among=np.arange(240))
    return X, y, yp


def _cases():
    X, y = _blobs()
    yield "blobs-2", X, _partial(y, 10)
    X, y = _blobs(n=500, centers=4, d=8, seed=5, std=3.0)
    yield "multiclass-4", X, _partial(y, 20, seed=1)
    X, _, yp = _disconnected()
    yield "orphan-component", X, yp
    X, y = _blobs(n=300, centers=3, d=3, seed=7, std=4.0)
    yield "few-labels-3", X, _partial(y, 3, seed=2)


CASES = list(_cases())
IDS = [c[0] for c in CASES]


def _no_lu(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the CG path called the sparse LU")

    monkeypatch.setattr(prop, "splu", boom)


def _pair(cls, X, yp, monkeypatch, **kw):
    direct = cls(graph=KNNGraph(n_neighbors=5), solver="direct", **kw).fit(X, yp)
    _no_lu(monkeypatch)
    cg = cls(graph=KNNGraph(n_neighbors=5), solver="cg", **kw).fit(X, yp)
    return direct, cg


def _agree(direct, cg):
    assert np.abs(direct.scores_ - cg.scores_).max() <= TOL
    np.testing.assert_array_equal(direct.transduction_, cg.transduction_)
    assert direct.fit_report_.notes == cg.fit_report_.notes
    assert direct.solver_ == "direct" and cg.solver_ == "cg"


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("cmn", [False, True])
def test_harmonic_cg_equals_direct(case, cmn, monkeypatch):
    _, X, yp = case
    direct, cg = _pair(HarmonicFunction, X, yp, monkeypatch, class_mass_normalization=cmn)
    _agree(direct, cg)


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("alpha", [0.1, 0.9, 0.99, 0.9999])
def test_consistency_cg_equals_direct(case, alpha, monkeypatch):
    _, X, yp = case
    direct, cg = _pair(Consistency, X, yp, monkeypatch, alpha=alpha)
    _agree(direct, cg)


def test_consistency_class_normalization_cg(monkeypatch):
    _, X, yp = CASES[1]
    direct, cg = _pair(Consistency, X, yp, monkeypatch, alpha=0.99, class_normalization=True)
    _agree(direct, cg)


def test_orphan_component_handling_is_the_same():
    X, _, yp = _disconnected()
    orphan = np.arange(240, 300)
    for cls in (HarmonicFunction, Consistency):
        m = cls(graph=KNNGraph(n_neighbors=5), solver="cg").fit(X, yp)
        _, comp = connected_components(m.graph_.W, directed=False)
        assert not np.isin(comp[orphan], comp[:240]).any()  # really an orphan component
        C_L = np.eye(3)[np.searchsorted(m.classes_, yp[yp != -1])]
        np.testing.assert_array_equal(m.scores_[orphan], np.tile(C_L.mean(axis=0), (60, 1)))
        assert any(
            "60 points in graph components without a labeled point" in n
            for n in m.fit_report_.degenerate
        )


@pytest.mark.parametrize("cls", [HarmonicFunction, Consistency])
def test_cg_solve_is_recorded(cls):
    _, X, yp = CASES[1]
    m = cls(graph=KNNGraph(n_neighbors=5), solver="cg").fit(X, yp)
    assert m.fit_report_.solvers == ["cg"] and m.fit_report_.fallbacks == []
    stats = m.solve_info_.stats
    c = m.classes_.size
    assert len(stats["iterations"]) == c and all(
        1 <= k <= prop.CG_MAXITER for k in stats["iterations"]
    )
    np.testing.assert_array_equal(m.n_iter_, stats["iterations"])
    assert len(stats["relative_residual"]) == c
    assert max(stats["relative_residual"]) <= 10 * prop.CG_RTOL
    assert stats["rtol"] == prop.CG_RTOL and stats["maxiter"] == prop.CG_MAXITER
    assert stats["preconditioner"] == "jacobi"
    # and the record carries them (what the runner writes), JSON-ready
    import json

    rec = json.loads(json.dumps(m.fit_report_.as_dict()))
    ((what, kept),) = rec["stats"].items()
    assert kept["iterations"] == list(m.n_iter_) and kept["preconditioner"] == "jacobi"


@pytest.mark.parametrize("cls", [HarmonicFunction, Consistency])
def test_cg_cap_is_a_recorded_fallback(cls, monkeypatch):
    _, X, yp = CASES[1]
    monkeypatch.setattr(prop, "CG_MAXITER", 2)
    m = cls(graph=KNNGraph(n_neighbors=5), solver="cg").fit(X, yp)
    # (consistency may add the polish's own cap note: see test_polish_cap_is_a_fallback)
    note = m.fit_report_.fallbacks[0]
    assert "cg not converged in 2 iterations" in note and "last iterate" in note
    np.testing.assert_array_equal(m.n_iter_, [2] * m.classes_.size)
    assert max(m.solve_info_.stats["relative_residual"]) > prop.CG_RTOL


def _path(n=120):
    """A path graph 0 - 1 - ... - n-1 with unit weights (precomputed), labels at both ends."""
    W = sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1], format="csr")
    yp = np.full(n, -1)
    yp[0], yp[n - 1] = 0, 1
    return W, yp


@pytest.mark.parametrize("alpha", [0.1, 0.5])
def test_consistency_cg_resolves_exponentially_small_scores(alpha, monkeypatch):
    """At small alpha the scores decay like alpha^k along the path (1e-40 and below in the
    middle); norm-wise CG alone leaves them 0 (every point past its iteration count would
    get class 0), the polish resolves them: each point takes the class of the nearer end."""
    n = 120
    W, yp = _path(n)
    truth = (np.arange(n) >= n // 2).astype(int)
    direct = Consistency(graph="precomputed", alpha=alpha, solver="direct").fit(W, yp)
    _no_lu(monkeypatch)
    cg = Consistency(graph="precomputed", alpha=alpha, solver="cg").fit(W, yp)
    np.testing.assert_array_equal(direct.transduction_, truth)
    np.testing.assert_array_equal(cg.transduction_, truth)
    assert cg.solve_info_.stats["polished_points"] > 0
    assert cg.solve_info_.stats["polish_sweeps"] > 0
    assert cg.fit_report_.fallbacks == []
    assert np.abs(direct.scores_ - cg.scores_).max() <= TOL
    # componentwise: every score to 1e-6 of itself, down to the smallest
    mid = np.abs(direct.scores_) > 1e-280
    np.testing.assert_allclose(cg.scores_[mid], direct.scores_[mid], rtol=1e-6)


def test_polish_not_needed_near_one():
    _, X, yp = CASES[0]
    m = Consistency(graph=KNNGraph(n_neighbors=5), alpha=0.99, solver="cg").fit(X, yp)
    assert m.solve_info_.stats["polished_points"] == 0
    assert m.solve_info_.stats["polish_sweeps"] == 0


def test_polish_cap_is_a_fallback(monkeypatch):
    W, yp = _path()
    monkeypatch.setattr(prop, "CG_MAXITER", 3)
    m = Consistency(graph="precomputed", alpha=0.1, solver="cg").fit(W, yp)
    assert any("polish" in n and "not converged in 3 sweeps" in n for n in m.fit_report_.fallbacks)


@pytest.mark.parametrize("cls", [HarmonicFunction, Consistency])
def test_auto_switches_at_the_threshold(cls, monkeypatch):
    _, X, yp = CASES[0]
    n = X.shape[0]
    # every paper table that runs these learners stays direct (Liu et al.: WebKB, 1,051)
    assert prop.DIRECT_MAX_N >= 1_051
    auto = cls(graph=KNNGraph(n_neighbors=5)).fit(X, yp)
    assert auto.get_params()["solver"] == "auto" and auto.solver_ == "direct"
    direct = cls(graph=KNNGraph(n_neighbors=5), solver="direct").fit(X, yp)
    np.testing.assert_array_equal(auto.scores_, direct.scores_)
    assert auto.fit_report_.solvers == [] and auto.n_iter_ is None
    assert "stats" not in auto.fit_report_.as_dict()  # direct records unchanged
    monkeypatch.setattr(prop, "DIRECT_MAX_N", n)  # n <= threshold: still direct
    assert cls(graph=KNNGraph(n_neighbors=5)).fit(X, yp).solver_ == "direct"
    monkeypatch.setattr(prop, "DIRECT_MAX_N", n - 1)  # n > threshold: CG
    _no_lu(monkeypatch)
    switched = cls(graph=KNNGraph(n_neighbors=5)).fit(X, yp)
    assert switched.solver_ == "cg" and switched.fit_report_.solvers == ["cg"]
    assert np.abs(switched.scores_ - direct.scores_).max() <= TOL


def test_direct_path_is_the_lu_bit_for_bit():
    """solver="direct" computes exactly what the LU code always did (eq. (5) and eq. (3))."""
    _, X, yp = CASES[1]
    h = HarmonicFunction(graph=KNNGraph(n_neighbors=5), solver="direct").fit(X, yp)
    c = Consistency(graph=KNNGraph(n_neighbors=5), solver="direct", alpha=0.99).fit(X, yp)
    g = h.graph_
    lab = np.flatnonzero(yp != -1)
    unl = np.setdiff1d(np.arange(g.n), lab)
    C_L = np.eye(h.classes_.size)[np.searchsorted(h.classes_, yp[lab])]
    L = g.laplacian
    f_U = splu(L[unl][:, unl].tocsc()).solve(np.asarray(-(L[unl][:, lab] @ C_L)))
    np.testing.assert_array_equal(h.scores_[unl], f_U)
    C = np.zeros((g.n, C_L.shape[1]))
    C[lab] = C_L
    A = (sp.identity(g.n, format="csc") - 0.99 * g.S).tocsc()
    np.testing.assert_array_equal(c.scores_, (1.0 - 0.99) * splu(A).solve(C))


@pytest.mark.parametrize("cls", [HarmonicFunction, Consistency])
@pytest.mark.parametrize("bad", ["lu", "CG", "amg", 1, None])
def test_invalid_solver_is_refused(cls, bad):
    X, yp = CASES[0][1], CASES[0][2]
    with pytest.raises(InvalidParameterError, match="solver"):
        cls(graph=KNNGraph(n_neighbors=5), solver=bad).fit(X, yp)


@pytest.mark.parametrize("cls", [HarmonicFunction, Consistency])
def test_cg_path_forms_nothing_dense_n_by_n(cls):
    """Peak Python-side allocation of a CG fit on a precomputed sparse graph stays far below
    one dense n x n matrix of floats (8 n^2 bytes = 128 MB at n = 4,000)."""
    n = 4000
    X, y = _blobs(n=n, centers=3, d=4, seed=11)
    W = KNNGraph(n_neighbors=6).build(X).W
    yp = _partial(y, 30, seed=4)
    tracemalloc.start()
    try:
        m = cls(graph="precomputed", solver="cg").fit(W, yp)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert m.solver_ == "cg"
    assert peak < 0.05 * 8 * n * n, f"peak {peak / 2**20:.1f} MB"


# ------------------------------------------------------------------------- cg_solve API


def _spd(n=60, seed=0):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=0.1, random_state=seed)
    A = (A + A.T) * 0.5
    A = A + sp.diags(np.abs(A).sum(axis=1).A1 + rng.uniform(1, 50, n))  # SPD, bad scaling
    return A.tocsr(), rng.normal(size=(n, 3))


def test_cg_solve_takes_a_sparse_matrix_and_a_preconditioner():
    A, B = _spd()
    ref = np.linalg.solve(A.toarray(), B)
    X0, i0 = cg_solve(lambda v: A @ v, B, rtol=1e-12)  # the callable API, unchanged
    X1, i1 = cg_solve(A, B, rtol=1e-12, M=jacobi_preconditioner(A), preconditioner="jacobi")
    for X in (X0, X1):
        np.testing.assert_allclose(X, ref, rtol=1e-9, atol=1e-12)
    assert i0.stats["preconditioner"] == "none" and i1.stats["preconditioner"] == "jacobi"
    assert max(i1.stats["relative_residual"]) <= 1e-11
    # a callable preconditioner is accepted too
    d = A.diagonal()
    X2, i2 = cg_solve(A, B[:, 0], rtol=1e-12, M=lambda v: v / d)
    np.testing.assert_allclose(X2, ref[:, 0], rtol=1e-9, atol=1e-12)
    assert i2.stats["preconditioner"] == "custom"
    with pytest.raises(ValueError, match="dimension"):
        cg_solve(A[:10, :10], B)


@pytest.mark.skipif(not have_pyamg(), reason="pyamg not installed")
def test_amg_preconditioner():
    X, y = _blobs(n=600, centers=2, seed=3)
    g = KNNGraph(n_neighbors=6).build(X)
    lab = np.arange(20)
    unl = np.arange(20, 600)
    L = g.laplacian
    A = L[unl][:, unl].tocsr()
    B = -(L[unl][:, lab] @ np.eye(2)[y[lab]])
    ref = splu(A.tocsc()).solve(np.asarray(B))
    Xa, ia = cg_solve(A, B, rtol=1e-10, M=amg_preconditioner(A), preconditioner="amg")
    Xj, ij = cg_solve(A, B, rtol=1e-10, M=jacobi_preconditioner(A))
    assert np.abs(Xa - ref).max() <= TOL and np.abs(Xj - ref).max() <= TOL
    assert max(ia.stats["iterations"]) <= max(ij.stats["iterations"])


@pytest.mark.skipif(not have_pyamg(), reason="pyamg not installed")
@pytest.mark.parametrize("cls", [HarmonicFunction, Consistency])
def test_switch_to_amg_after_the_jacobi_budget(cls, monkeypatch):
    _, X, yp = CASES[1]
    direct = cls(graph=KNNGraph(n_neighbors=5), solver="direct").fit(X, yp)
    monkeypatch.setattr(prop, "AMG_AFTER", 3)
    m = cls(graph=KNNGraph(n_neighbors=5), solver="cg").fit(X, yp)
    stats = m.solve_info_.stats
    assert stats["preconditioner"] == "jacobi+amg"
    assert stats["jacobi_iterations"] == [3, 0, 0, 0]
    assert m.n_iter_[0] > 3 and m.fit_report_.fallbacks == []
    assert max(stats["relative_residual"]) <= 10 * prop.CG_RTOL
    assert np.abs(m.scores_ - direct.scores_).max() <= TOL
    np.testing.assert_array_equal(m.transduction_, direct.transduction_)
    # the cap over both phases: a recorded fallback naming the whole cap
    monkeypatch.setattr(prop, "CG_MAXITER", 4)
    capped = cls(graph=KNNGraph(n_neighbors=5), solver="cg").fit(X, yp)
    assert any("cg not converged in 4 iterations" in n for n in capped.fit_report_.fallbacks)


@pytest.mark.parametrize("cls", [HarmonicFunction, Consistency])
def test_without_pyamg_jacobi_runs_to_the_cap(cls, monkeypatch):
    _, X, yp = CASES[1]
    monkeypatch.setattr(prop, "have_pyamg", lambda: False)
    monkeypatch.setattr(prop, "AMG_AFTER", 3)
    m = cls(graph=KNNGraph(n_neighbors=5), solver="cg").fit(X, yp)
    assert m.solve_info_.stats["preconditioner"] == "jacobi"
    assert m.fit_report_.fallbacks == [] and max(m.n_iter_) > 3
