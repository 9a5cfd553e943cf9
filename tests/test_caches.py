"""One cache, one hash: every label-independent memo is a :class:`sskernels.memo.LRU` bounded in
entries and bytes whose arrays are read-only, every key comes from :mod:`sskernels.hashing`,
and no two estimators share a mutable fitted object."""

import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

import sskernels.graph as graph
import sskernels.graph.cache as graph_cache
from sskernels.memo import put_shared, shared_items
import sskernels.kernels.deformed as deformed
import sskernels.kernels.rbf as rbf
import sskernels.kernels.spectra as spectra
import sskernels.learners.graph_base as graph_base
import sskernels.memo as memo_mod
import sskernels.learners.fitted as fitted
import sskernels.learners.label_aware as la
import sskernels.learners.self_consistent as sc
import sskernels.learners.spectral as spectral
import sskernels.solvers.rademacher as rad
from sskernels.hashing import digest, json_digest, params_key
from sskernels.learners import KernelSVM, TransductiveSpectralKernel
from sskernels.memo import LRU, content_key, sizeof


def _wine_split(n_labeled=20, seed=0):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(y), n_labeled, replace=False)
    y_partial = np.full_like(y, -1)
    y_partial[idx] = y[idx]
    return X, y_partial


def _blobs(seed, n=40, d=3):
    return np.random.default_rng(seed).normal(size=(n, d))


def _read_only(a):
    with pytest.raises(ValueError):
        a[(0,) * a.ndim] = 1.0
    return True


@pytest.fixture(autouse=True)
def _fresh_caches():
    caches = [
        graph.clear_cache,
        spectra.clear_rbf_cache,
        deformed.clear_cache,
        fitted.clear_cache,
        sc.clear_cache,
        spectral._LPS.clear,
        rad._PATHS.clear,
    ]
    for clear in caches:
        clear()
    yield
    for clear in caches:
        clear()


# -- (a) no shared fitted objects ---------------------------------------------------------


def test_two_svms_do_not_share_their_fitted_kernel_learner():
    X, y = _wine_split()
    a = KernelSVM(kernel_learner=TransductiveSpectralKernel(beta=10)).fit(X, y)
    b = KernelSVM(kernel_learner=TransductiveSpectralKernel(beta=10)).fit(X, y)
    assert a.learner_ is not b.learner_
    # the memo still serves the second fit: the same numbers
    np.testing.assert_array_equal(a.learner_.mu_, b.learner_.mu_)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    mu, K = a.learner_.mu_.copy(), a.kernel_.copy()
    b.learner_.set_params(beta=1e-3).fit(X, y)
    assert not np.array_equal(b.learner_.mu_, mu)  # the refit changed b ...
    assert a.learner_.beta == 10  # ... and nothing of a
    np.testing.assert_array_equal(a.learner_.mu_, mu)
    np.testing.assert_array_equal(a.kernel_, K)
    b.learner_.mu_[:] = 0.0  # in place: still b's own
    np.testing.assert_array_equal(a.learner_.mu_, mu)


def test_the_memoized_fit_gives_what_a_fresh_fit_gives():
    X, y = _wine_split(seed=1)
    first = KernelSVM(kernel_learner=TransductiveSpectralKernel(beta=10)).fit(X, y)
    memoized = KernelSVM(kernel_learner=TransductiveSpectralKernel(beta=10)).fit(X, y)
    fitted.clear_cache()
    graph.clear_cache()
    fresh = KernelSVM(kernel_learner=TransductiveSpectralKernel(beta=10)).fit(X, y)
    for est in (first, memoized):
        np.testing.assert_array_equal(est.learner_.mu_, fresh.learner_.mu_)
        np.testing.assert_array_equal(est.kernel_, fresh.kernel_)
        np.testing.assert_array_equal(est.decision_function(X[:5]), fresh.decision_function(X[:5]))


def test_learner_parameters_key_sees_every_parameter_nested_ones_too():
    tsk = TransductiveSpectralKernel(beta=10)
    assert params_key(tsk) == params_key(TransductiveSpectralKernel(beta=10))
    assert params_key(tsk) != params_key(TransductiveSpectralKernel(beta=1))
    assert params_key(tsk) != params_key(TransductiveSpectralKernel(beta=10, eta=3.0))
    g6 = TransductiveSpectralKernel(beta=10, graph=graph.KNNGraph(n_neighbors=6))
    g7 = TransductiveSpectralKernel(beta=10, graph=graph.KNNGraph(n_neighbors=7))
    assert params_key(g6) != params_key(g7)
    assert params_key(g6) == params_key(
        TransductiveSpectralKernel(beta=10, graph=graph.KNNGraph(n_neighbors=6))
    )
    assert params_key(g6) != params_key(tsk)


# -- (b) every cache: an LRU bounded in bytes, read-only arrays -----------------------------


def test_every_module_cache_is_an_lru():
    for cache in (
        graph_cache._CACHE,
        spectra._RBF_CACHE,
        rbf._MEDIAN_CACHE,
        deformed._BASIS_CACHE,
        fitted._FITTED,
        sc._FACTORS,
        spectral._LPS,
        la._BASES,
        la._DISTANCES,
        la._TAILS,
        rad._PATHS,
        graph_base._PRECOMPUTED,
    ):
        assert isinstance(cache, LRU)
    for cache in (
        graph_cache._CACHE,
        spectra._RBF_CACHE,
        deformed._BASIS_CACHE,
        sc._FACTORS,
        spectral._LPS,
        la._BASES,
        la._DISTANCES,
        la._TAILS,
        rad._PATHS,
    ):
        assert cache.max_bytes is not None


def test_lru_counts_bytes_of_tuples_and_objects_and_keeps_a_running_total():
    c = LRU(10, max_bytes=1000)
    a, b = np.zeros(10), np.zeros(20)
    c.store("t", (a, b, 3.0))
    c.store("s", sp.random(5, 5, density=0.4, format="csr", random_state=0))
    assert c.nbytes() == a.nbytes + b.nbytes + sizeof(c["s"]) == sum(map(sizeof, c.values()))
    assert sizeof(c["s"]) == sum(getattr(c["s"], k).nbytes for k in ("data", "indices", "indptr"))
    c.store("big", np.zeros(110))  # 880 bytes: the oldest go
    assert list(c) == ["big"] and c.nbytes() == 880
    c.store("huge", np.zeros(1000))  # over the bound alone: kept, the rest goes
    assert list(c) == ["huge"] and c.nbytes() == 8000
    del c["huge"]
    assert c.nbytes() == 0 and not c


def test_lru_store_makes_arrays_read_only_and_measures_a_grown_value_on_lookup():
    c = LRU(4)
    a = np.ones(3)
    c.store("k", {"x": [a]})
    assert _read_only(a)
    g = graph.get_graph(_blobs(0), k=5)
    assert c.lookup("k") is not None
    before = graph_cache._CACHE.nbytes()
    g.spectrum(None)  # grows after it was stored
    graph.get_graph(_blobs(0), k=5)  # measured again on the lookup
    assert graph_cache._CACHE.nbytes() == g.nbytes > before


def test_graph_cache_is_bounded_in_bytes_and_read_only(monkeypatch):
    X1, X2 = _blobs(1), _blobs(2)
    g1 = graph.get_graph(X1, k=5)
    g1.spectrum(None)
    assert g1.nbytes == sum(
        sizeof(v)
        for v in (X1, g1.W, g1.degrees, g1.d_inv_sqrt, g1._spectrum.values, g1._spectrum.vectors)
    )
    assert _read_only(g1.W.data) and _read_only(g1.degrees)
    assert _read_only(g1.spectrum().vectors) and _read_only(g1.spectrum().values)
    assert X1.flags.writeable  # the caller's data are left alone
    assert graph.get_graph(X1, k=5) is g1  # the lookup measures the grown graph
    assert graph_cache._CACHE.nbytes() == g1.nbytes
    monkeypatch.setattr(graph_cache._CACHE, "max_bytes", g1.nbytes + 1)
    g2 = graph.get_graph(X2, k=5)
    assert [v for _, v in shared_items()['sskernels.graph.cache']] == [g2]
    assert graph.get_graph(X1, k=5) is not g1  # evicted: built again


def test_graph_put_by_a_worker_is_read_only():
    g = graph.get_graph(_blobs(3), k=5)
    g.spectrum(None)
    key, _ = shared_items()['sskernels.graph.cache'][0]
    back = pickle.loads(pickle.dumps(g))  # what a worker loads: writable again
    graph.clear_cache()
    assert back.W.data.flags.writeable
    put_shared('sskernels.graph.cache', key, back)
    assert _read_only(back.W.data) and _read_only(back.spectrum().vectors)


def test_rbf_spectra_cache_is_bounded_in_bytes_and_read_only(monkeypatch):
    X = _blobs(4)
    s1 = spectra.rbf_spectrum(X, 1.0)
    assert _read_only(s1.vectors) and _read_only(s1.values)
    monkeypatch.setattr(spectra._RBF_CACHE, "max_bytes", sizeof(s1) + 1)
    s2 = spectra.rbf_spectrum(X, 2.0)
    assert [v for _, v in shared_items()['sskernels.kernels.spectra']] == [s2]
    back = pickle.loads(pickle.dumps(s1))
    assert back.vectors.flags.writeable
    spectra.cache_put(("w", 1), back)
    assert _read_only(back.vectors) and spectra.cache_get(("w", 1)) is back


def test_median_cache_is_an_lru_of_entries(monkeypatch):
    monkeypatch.setattr(rbf._MEDIAN_CACHE, "size", 2)
    meds = [rbf.median_distance(_blobs(s)) for s in range(3)]
    assert len(rbf._MEDIAN_CACHE) == 2 and list(rbf._MEDIAN_CACHE.values()) == meds[1:]


def test_deformation_basis_cache_is_bounded_in_bytes_and_read_only(monkeypatch):
    g = graph.get_graph(_blobs(5), k=5)
    M = deformed.intrinsic_matrix(g)
    K = np.exp(-np.square(_blobs(5)[:, None, :] - _blobs(5)[None, :, :]).sum(-1))
    G, lam = deformed.cached_deformation_basis("a", lambda: K, M)
    assert _read_only(G) and _read_only(lam)
    monkeypatch.setattr(deformed, "BASIS_CACHE_BYTES", G.nbytes + lam.nbytes + 1)
    deformed.cached_deformation_basis("b", lambda: 2 * K, M)
    assert [k for k, _ in shared_items()['sskernels.kernels.deformed']] == ["b"]
    back = pickle.loads(pickle.dumps((G, lam)))
    deformed.cache_put("c", back)
    assert _read_only(back[0])


def test_solver_and_factor_memos_hold_read_only_arrays(monkeypatch):
    rng = np.random.default_rng(6)
    lam = np.sort(rng.uniform(0.0, 1.0, 6))
    V_L, y = rng.normal(size=(12, 6)), rng.integers(0, 2, size=12)
    spectral.tsk_linear_program(lam, V_L, y, 2.0, 0.5)
    (entry,) = spectral._LPS.values()
    assert _read_only(entry[0]) and _read_only(entry[1])
    monkeypatch.setattr(spectral._LPS, "max_bytes", sizeof(entry) + 1)
    spectral.tsk_linear_program(lam, V_L, y, 2.0, 0.25)
    assert len(spectral._LPS) == 1
    f = sc.gp_factors(_blobs(7), 1.0, 0.1)
    assert _read_only(f.Q) and _read_only(f.K) and sc._FACTORS.nbytes() == f.nbytes > 0
    monkeypatch.setattr(sc._FACTORS, "max_bytes", f.nbytes + 1)
    f2 = sc.gp_factors(_blobs(8), 1.0, 0.1)
    assert list(sc._FACTORS.values()) == [f2]


# -- (c) the hashing helper -----------------------------------------------------------------


def test_digest_sees_content_shape_dtype_and_sparsity_pattern():
    a = np.arange(12.0).reshape(3, 4)
    assert digest(a) == digest(a.copy()) == digest(np.asfortranarray(a))
    b = a.copy()
    b[1, 2] += 1e-12
    assert digest(b) != digest(a)
    assert digest(a.reshape(4, 3)) != digest(a)
    assert digest(a.astype(np.float32)) != digest(a)
    assert digest(a.view(np.int64)) != digest(a)  # same bytes, another dtype
    S = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 3, 0]]))
    assert digest(S) == digest(S.copy()) == digest(S.tocoo())
    T = S.copy()
    T.indices = T.indices.copy()
    T.indices[0] = 1  # same values, another pattern
    assert digest(T) != digest(S)
    assert digest(sp.csr_matrix(S, shape=(2, 4))) != digest(S)
    assert digest(S) != digest(S.toarray())
    # parts are separated: moving a boundary or a type changes the digest
    assert digest("ab", "c") != digest("a", "bc")
    assert digest(b"ab") != digest("ab")
    assert digest(1) != digest(1.0) and digest(None) != digest("None")
    assert digest((1, 2), 3) != digest(1, (2, 3))
    assert len(digest(a)) == 32 and len(digest(a, size=8)) == 16
    with pytest.raises(TypeError):
        digest(object())


def test_json_digest_is_canonical_and_sized():
    d = {"b": [1, 2], "a": {"y": 1, "x": None}}
    assert json_digest(d) == json_digest({"a": {"x": None, "y": 1}, "b": [1, 2]})
    assert json_digest(d) != json_digest({**d, "b": [2, 1]})
    assert len(json_digest(d)) == 16 and json_digest(d, length=8) == json_digest(d)[:8]


# -- (d) content_key as before ----------------------------------------------------------------


def test_content_key_hashes_values_as_float_with_shapes():
    a = np.arange(6.0)
    assert content_key(a, 1.0) == content_key(a.copy(), 1) == content_key(a, True)
    assert content_key(a.astype(np.int32), 1.0) == content_key(a, 1.0)  # as float
    assert content_key(a, 1.0) != content_key(a.reshape(2, 3), 1.0)
    assert content_key(a, 1.0) != content_key(a, 2.0)
    assert content_key(a, 1.0) != content_key(1.0, a)
    assert content_key([1, 2]) == content_key(np.array([1.0, 2.0]))
    assert len(content_key(a)) == 32


def test_learner_parameters_key_sees_a_random_states_state():
    from sskernels.learners.label_aware import LabelAwareKernel

    def key(state):
        return params_key(LabelAwareKernel(random_state=state))

    assert key(np.random.RandomState(0)) == key(np.random.RandomState(0))
    assert key(np.random.RandomState(0)) != key(np.random.RandomState(1))
    assert key(0) != key(1)


# -- (c) one switch for every memo ------------------------------------------------------------


def test_the_switch_off_keeps_nothing_and_freezes_what_it_returns():
    memo = LRU(4)
    memo.store("a", np.ones(2))
    with memo_mod.caching(False):
        assert not memo_mod.caching_enabled()
        assert len(memo) == 0  # turning the switch off empties the memos
        value = memo.store("b", np.zeros(3))
        assert memo.lookup("b") is None and "b" not in memo and len(memo) == 0
        assert not value.flags.writeable  # read-only whether kept or not
    assert memo_mod.caching_enabled()
    kept = memo.store("b", np.zeros(3))
    assert memo.lookup("b") is kept


def test_the_environment_decides_unless_a_program_did(monkeypatch):
    monkeypatch.setenv(memo_mod.CACHE_ENV, "off")
    assert not memo_mod.caching_enabled()
    monkeypatch.setenv(memo_mod.CACHE_ENV, " ON ")
    assert memo_mod.caching_enabled()
    with memo_mod.caching(False):
        assert not memo_mod.caching_enabled()  # the program's choice wins
    monkeypatch.setenv(memo_mod.CACHE_ENV, "maybe")
    with pytest.raises(ValueError, match=r"\$SSKERNELS_CACHE='maybe': expected on or off"):
        memo_mod.caching_enabled()


def test_with_the_memos_off_a_fit_is_the_same_and_every_memo_stays_empty():
    X, y = _wine_split(seed=2)
    on = KernelSVM(kernel_learner=TransductiveSpectralKernel(beta=10)).fit(X, y)
    assert graph_cache._CACHE and fitted._FITTED  # on: the graph and the fit are kept
    with memo_mod.caching(False):
        off = KernelSVM(kernel_learner=TransductiveSpectralKernel(beta=10)).fit(X, y)
        assert all(len(m) == 0 for m in memo_mod._memos())
        assert not memo_mod.shared_items()["sskernels.graph.cache"]
    np.testing.assert_array_equal(on.learner_.mu_, off.learner_.mu_)
    np.testing.assert_array_equal(on.kernel_, off.kernel_)
    np.testing.assert_array_equal(on.decision_function(X), off.decision_function(X))


def test_run_no_cache_turns_the_memos_off_for_the_run_and_its_workers(tmp_path, monkeypatch):
    from cli_helpers import run_cli

    spec = tmp_path / "wine.yaml"
    spec.write_text(
        "dataset: sklearn-wine\nmethods: [harmonic]\n"
        f"splits: {{n_splits: 1, n_labeled: 20, seed: 0}}\noutput: {tmp_path / 'out'}\n"
    )
    monkeypatch.setenv(memo_mod.CACHE_ENV, "on")  # recorded, so the run's "off" is undone
    monkeypatch.setattr(memo_mod, "_SWITCH", [None])
    code, _, err = run_cli(["run", spec, "--no-cache", "--no-progress"])
    assert code == 0, err
    assert os.environ[memo_mod.CACHE_ENV] == "off"  # what the workers inherit
    assert not memo_mod.caching_enabled()
    assert not graph_cache._CACHE  # the run's graph was not kept
    assert (tmp_path / "out" / "summary.csv").is_file()


def test_run_refuses_a_bad_switch_in_one_line(tmp_path, monkeypatch):
    from cli_helpers import run_cli

    monkeypatch.setenv(memo_mod.CACHE_ENV, "sometimes")
    code, _, err = run_cli(["run", tmp_path / "none.yaml"])
    assert code == 2
    assert err.strip().splitlines() == ["error: $SSKERNELS_CACHE='sometimes': expected on or off"]
