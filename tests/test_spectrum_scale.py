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


# -- the Chebyshev-filtered Lanczos (sskernels.graph.chebyshev), used from FILTER_MIN_N points


def _filtered(monkeypatch, min_n=0):
    import sskernels.graph.chebyshev as ch

    monkeypatch.setattr(lap, "DENSE_MAX_N", 10)
    monkeypatch.setattr(ch, "FILTER_MIN_N", min_n)
    return ch


def test_filtered_lanczos_gives_eigsh_s_pairs(monkeypatch):
    W = _graph(900)
    plain = lap.laplacian_spectrum(W, m=30, solver="sparse")
    _filtered(monkeypatch)
    spec = lap.laplacian_spectrum(W, m=30)
    assert plain.solver == "eigsh" and plain.info is None
    assert spec.solver == "eigsh-chebyshev" and spec.info["fallback"] is None
    np.testing.assert_allclose(spec.values, plain.values, atol=1e-12)
    # the same invariant subspace: every principal angle zero
    cosines = np.linalg.svd(plain.vectors.T @ spec.vectors, compute_uv=False)
    assert cosines.min() > 1 - 1e-10
    # residual on L_sym recomputed here, and the cut below every returned eigenvalue of S
    L = lap.normalized_laplacian(W)
    assert np.linalg.norm(L @ spec.vectors - spec.vectors * spec.values, axis=0).max() < 1e-10
    (cut,) = spec.info["stats"]["cuts"]
    assert cut < 1 - spec.values.max()


def test_the_count_of_eigenvalues_above_a_cut_is_close_to_the_true_count():
    from sskernels.graph.chebyshev import EigenvalueCounter

    S = lap.normalized_adjacency(_graph(900))
    mu = np.linalg.eigvalsh(S.toarray())
    counter = EigenvalueCounter(S)
    for c in (0.95, 0.9, 0.8, 0.6, 0.3):
        true = int(np.sum(mu >= c))
        assert abs(counter.count(c) - true) <= 3 + 0.1 * true, c
    # the cut for k: the estimate reaches k there, and not just above it
    c = counter.cut(40)
    assert counter.count(c) >= 40 > counter.count(c + 5e-4)


def test_a_cut_above_the_wanted_eigenvalues_is_caught_and_recorded(monkeypatch):
    W = _graph(900)
    plain = lap.laplacian_spectrum(W, m=30, solver="sparse")
    ch = _filtered(monkeypatch)
    real_cut = ch.EigenvalueCounter.cut
    planted = []

    def cut(self, k):  # the first cut only 5 eigenvalues of S clear: the check must fail
        if not planted:
            planted.append(1 - plain.values[4])
            return planted[0]
        return real_cut(self, k)

    monkeypatch.setattr(ch.EigenvalueCounter, "cut", cut)
    spec = lap.laplacian_spectrum(W, m=30)
    assert spec.solver == "eigsh-chebyshev"
    assert "above the 40th Rayleigh quotient" in spec.info["fallback"]
    assert spec.info["stats"]["cuts"][0] == planted[0] and len(spec.info["stats"]["cuts"]) == 2
    np.testing.assert_allclose(spec.values, plain.values, atol=1e-12)

    # every cut too high: plain eigsh answers, and says why
    monkeypatch.setattr(ch.EigenvalueCounter, "cut", lambda self, k: planted[0])
    spec = lap.laplacian_spectrum(W, m=30)
    assert spec.solver == "eigsh" and spec.info["fallback"].endswith("plain eigsh")
    np.testing.assert_allclose(spec.values, plain.values, atol=1e-12)


def test_a_learner_records_the_filtered_lanczos_in_its_fit_report(monkeypatch):
    from sskernels.learners import SpectralKernelLearning
    from sskernels.memo import caching

    _filtered(monkeypatch)
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(size=(300, 4)) + 5 * c for c in range(2)])
    y = np.full(600, -1)
    y[[0, 1, 300, 301]] = [0, 0, 1, 1]
    with caching(False):
        est = SpectralKernelLearning(n_components=20).fit(X, y)
    assert "eigsh-chebyshev" in est.fit_report_.solvers
    assert est.fit_report_.stats["spectrum"]["cuts"]
    assert not est.fit_report_.notes
