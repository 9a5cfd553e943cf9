"""Partial Laplacian spectra at scale: the Lanczos pairs' residual is
checked and recorded, and a full (dense) spectrum is refused where it cannot fit."""

import numpy as np
import pytest
import scipy.sparse as sp

import sskernels.graph.laplacian as lap
from sskernels.graph import knn_graph


def _graph(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n // 3, 5)) + 4 * c for c in range(3)])
    return knn_graph(X, k=8, weights="heat")[0]


def test_lanczos_pairs_are_eigenpairs_and_their_residual_is_recorded(monkeypatch):
    W = _graph()
    monkeypatch.setattr(lap, "DENSE_MAX_N", 10)
    spec = lap.laplacian_spectrum(W, m=12)
    assert spec.solver == "eigsh" and not spec.complete
    # an independent check of the recorded residual on L_sym itself
    L = lap.normalized_laplacian(W)
    res = np.linalg.norm(L @ spec.vectors - spec.vectors * spec.values, axis=0).max()
    assert res < 1e-8 and spec.residual == pytest.approx(res, abs=1e-9)
    dense = lap.laplacian_spectrum(W, solver="dense")
    assert dense.solver == "eigh" and dense.residual is None
    np.testing.assert_allclose(spec.values[:12], dense.values[:12], atol=1e-9)


def test_a_bad_residual_is_an_error_not_a_result(monkeypatch):
    W = _graph()
    monkeypatch.setattr(lap, "DENSE_MAX_N", 10)
    monkeypatch.setattr(lap, "RESIDUAL_TOL", 0.0)  # nothing passes a zero tolerance
    with pytest.raises(np.linalg.LinAlgError, match="residual"):
        lap.laplacian_spectrum(W, m=5)


def test_full_spectrum_above_the_limit_is_refused_with_a_way_out(monkeypatch):
    W = _graph()
    monkeypatch.setattr(lap, "FULL_MAX_N", 100)
    with pytest.raises(ValueError, match=r"600 points.*\(n_components\)"):
        lap.laplacian_spectrum(W)
    assert lap.laplacian_spectrum(W, m=5).values.size >= 5  # a partial one is fine


def test_too_few_pairs_off_one_asks_lanczos_for_more(monkeypatch):
    # a graph whose smallest eigenvalues are mostly exactly 1: disjoint stars
    # (each star: lambda = 0, 1 (leaves - 1 times), 2); 40 stars of 6 leaves
    blocks = []
    for _ in range(40):
        B = np.zeros((7, 7))
        B[0, 1:] = B[1:, 0] = 1.0
        blocks.append(sp.csr_matrix(B))
    W = sp.block_diag(blocks, format="csr")
    monkeypatch.setattr(lap, "DENSE_MAX_N", 10)
    calls = []
    real = lap._lanczos
    monkeypatch.setattr(lap, "_lanczos", lambda S, kk: calls.append(kk) or real(S, kk))
    lap.laplacian_spectrum(W, m=50)  # 40 zeros, then 200 ones, then 40 twos
    assert calls[0] == 60 and len(calls) >= 2 and calls == sorted(calls)
    assert calls[-1] <= W.shape[0] // 4


def test_the_spectrum_says_how_long_it_took(monkeypatch):
    W = _graph()
    for spec in (
        lap.laplacian_spectrum(W, solver="dense"),
        lap.laplacian_spectrum(W, m=5, solver="sparse"),
    ):
        assert spec.seconds is not None and 0 < spec.seconds < 60
