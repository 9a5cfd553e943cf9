"""Shortcuts on the learners' hot paths give exactly what the long way gives:
the TSK LP memo, the {-1, +1} target encoding of the bare libsvm call, the folds computed
once per selection."""

import numpy as np
import pytest
from scipy.optimize import linprog

import sskernels.learners.spectral as spectral
from sskernels.learners.selection import labeled_folds, score_candidates
from sskernels.memo import content_key
from sskernels.solvers import libsvm


def _lp_instance(seed, l=24, m=8, c=3):
    rng = np.random.default_rng(seed)
    lam = np.sort(rng.uniform(0.0, 1.0, m))
    lam[0] = 0.0
    V_L = rng.normal(size=(l, m))
    y = rng.integers(0, c, size=l)
    return lam, V_L, y


def test_tsk_lp_memo_solves_each_lp_once_and_hands_out_copies(monkeypatch):
    spectral._LPS.clear()
    calls = []
    real = spectral.solve_lp

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(spectral, "solve_lp", counting)
    lam, V_L, y = _lp_instance(0)
    mu1, xi1, obj1 = spectral.tsk_linear_program(lam, V_L, y, 2.0, 0.5)
    mu1[:] = -1.0  # a caller's change stays its own
    mu2, xi2, obj2 = spectral.tsk_linear_program(lam, V_L.copy(), y.copy(), 2.0, 0.5)
    assert len(calls) == 1 and obj1 == obj2 and np.all(mu2 >= 0)
    # any change of an input is another LP
    spectral.tsk_linear_program(lam, V_L, y, 2.0, 0.25)
    spectral.tsk_linear_program(lam, V_L, y, 2.0, 0.5, skip_constant=True)
    V2 = V_L.copy()
    V2[3, 2] += 1e-9
    spectral.tsk_linear_program(lam, V2, y, 2.0, 0.5)
    assert len(calls) == 4


@pytest.mark.parametrize("seed", range(3))
def test_memoized_tsk_lp_optimum_equals_linprog(seed):
    """The memoized value is the LP's optimum (an independent solver's objective)."""
    spectral._LPS.clear()
    lam, V_L, y = _lp_instance(seed)
    beta, eta = 0.7, 2.0
    spectral.tsk_linear_program(lam, V_L, y, eta, beta)
    mu, xi, obj = spectral.tsk_linear_program(lam, V_L, y, eta, beta)  # from the memo
    m, l = lam.size, y.size
    T = spectral.tsk_constraint_matrix(V_L, y)
    G = spectral.decay_matrix(m, eta, 0).toarray()
    A = np.block([[T, np.eye(l)], [G, np.zeros((G.shape[0], l))]])
    b = np.concatenate([np.ones(l), np.zeros(G.shape[0])])
    ref = linprog(
        np.concatenate([lam, np.full(l, beta)]),
        A_ub=-A,
        b_ub=-b,
        bounds=[(0, None)] * (m + l),
        method="highs-ipm",
    )
    assert ref.status == 0
    assert obj == pytest.approx(ref.fun, rel=1e-7, abs=1e-9)
    assert lam @ mu + beta * xi.sum() == pytest.approx(ref.fun, rel=1e-7, abs=1e-9)


def test_content_key_sees_values_shapes_and_scalars():
    a = np.arange(6.0)
    assert content_key(a, 1.0) == content_key(a.copy(), 1)
    assert content_key(a, 1.0) != content_key(a.reshape(2, 3), 1.0)
    assert content_key(a, 1.0) != content_key(a, 2.0)
    assert content_key(a, True) == content_key(a, 1.0)


@pytest.mark.parametrize(
    "y",
    [
        np.array([1.0, -1.0, -1.0, 1.0, -1.0]),
        np.array([-1.0, -1.0, -1.0, -1.0]),  # one class: unique's path
        np.array([1.0, -1.0, 0.0]),  # not +-1: unique's path
        np.array([2, 0, 2, 1]),
        np.array(["b", "a", "b"]),
        np.array([1.0, -1.0, np.nan]),
    ],
)
def test_encoding_equals_numpy_unique(y):
    classes, idx = libsvm._encode(y)
    ref_classes, ref_idx = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, ref_classes)
    np.testing.assert_array_equal(idx, ref_idx)
    assert classes.dtype == ref_classes.dtype


def test_binary_fit_through_the_shortcut_equals_svc_bit_for_bit():
    from sklearn.svm import SVC

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 4))
    K = X @ X.T
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    K_te = rng.normal(size=(7, 4)) @ X.T
    ours = libsvm.fit_precomputed(K, y, 3.0).binary_decision(K_te)
    svc = SVC(kernel="precomputed", C=3.0).fit(K, y)
    np.testing.assert_array_equal(
        ours, K_te[:, svc.support_] @ svc.dual_coef_[0] + svc.intercept_[0]
    )


def test_score_candidates_with_folds_once_matches_the_long_way():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=30)
    seen = []

    def predict(cand, train, test):
        seen.append((cand["a"], tuple(train), tuple(test)))
        return (y[test] + (np.arange(test.size) % cand["a"] == 0)) % 3

    best, scores = score_candidates([{"a": 2}, {"a": 3}, {"a": 1000}], predict, y)
    folds = labeled_folds(y, 5, 0)
    expected = []
    for a in (2, 3, 1000):
        correct = 0
        for fold in folds:
            rest = np.setdiff1d(np.arange(30), fold)
            assert (a, tuple(rest), tuple(fold)) in seen
            correct += int(np.sum((y[fold] + (np.arange(fold.size) % a == 0)) % 3 == y[fold]))
        expected.append(correct / 30)
    np.testing.assert_array_equal(scores, expected)
    assert best == 2


@pytest.mark.parametrize("seed", range(6))
def test_tsk_lp_matrix_equals_the_stacked_blocks_entry_for_entry(seed):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    lam, V_L, y = _lp_instance(seed, l=int(rng.integers(2, 30)), m=int(rng.integers(1, 12)))
    T = spectral.tsk_constraint_matrix(V_L, y)
    T[rng.random(T.shape) < 0.2] = 0.0  # exact zeros are left out by both
    l, m = T.shape
    for skip in (0, 1, m):
        for eta in (2.0, 1.5):
            gamma = spectral.decay_matrix(m, eta, skip)
            ref = sp.vstack(
                [
                    sp.hstack([sp.csr_matrix(T), sp.identity(l)]),
                    sp.hstack([gamma, sp.csr_matrix((gamma.shape[0], l))]),
                ]
            ).tocsc()
            A = spectral.tsk_lp_matrix(T, eta, skip)
            assert A.shape == ref.shape
            np.testing.assert_array_equal(A.indptr, ref.indptr)
            np.testing.assert_array_equal(A.indices, ref.indices)
            np.testing.assert_array_equal(A.data, ref.data)


def _chain_generators_by_rows(A, m):
    """The row-by-row reading of chain_generators (before it was vectorized)."""
    import scipy.sparse as sp

    A = sp.csr_matrix(A)
    links = set()
    for r in range(A.shape[0]):
        cols = A.indices[A.indptr[r] : A.indptr[r + 1]]
        vals = A.data[A.indptr[r] : A.indptr[r + 1]]
        order = np.argsort(cols)
        cols, vals = cols[order], vals[order]
        if (
            cols.size != 2
            or cols[1] != cols[0] + 1
            or not vals[0] > 0
            or not np.isclose(vals[1], -vals[0], rtol=1e-12, atol=0.0)
        ):
            return None
        links.add(int(cols[0]))
    B = np.zeros((m, m))
    for k in range(m):
        start = k
        while start - 1 in links:
            start -= 1
        B[start : k + 1, k] = 1.0
    return B


@pytest.mark.parametrize("seed", range(40))
def test_vectorized_chain_generators_equal_the_row_by_row_reading(seed):
    import scipy.sparse as sp

    from sskernels.solvers.cone import chain_generators

    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 9))
    starts = np.sort(rng.choice(m - 1, size=int(rng.integers(1, m)), replace=False))
    scale = rng.uniform(0.5, 3.0, size=starts.size)
    rows, cols, vals = [], [], []
    for r, (t, c) in enumerate(zip(starts, scale)):
        first = rng.random() < 0.5  # entries in either order
        pairs = [(t, c), (t + 1, -c)] if first else [(t + 1, -c), (t, c)]
        for col, val in pairs:
            rows.append(r), cols.append(col), vals.append(val)
    vals = np.array(vals, dtype=float)
    kind = seed % 5
    if kind == 1:
        vals[0] *= 1 + 1e-6  # not a link: -c off by 1e-6
    elif kind == 2:
        vals = -vals  # -c first: not a link
    elif kind == 3:
        cols[-1] = min(cols[-1] + 2, m - 1) if cols[-1] + 2 < m else max(cols[-1] - 3, 0)
    A = sp.coo_matrix((vals, (rows, cols)), shape=(starts.size, m)).tocsr()
    if kind == 4:
        A = sp.vstack([A, sp.csr_matrix(np.eye(1, m))]).tocsr()  # a one-entry row
    got, ref = chain_generators(A, m), _chain_generators_by_rows(A, m)
    if ref is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, ref)


def test_intrinsic_product_dense_when_full_sparse_when_sparse():
    import scipy.sparse as sp

    from sskernels.kernels import deformed as D

    rng = np.random.default_rng(0)
    n = 60
    L = sp.random(n, n, density=0.05, random_state=1, format="csr")
    L = L + L.T
    full = (L @ L @ L @ L).tocsr()  # fills in
    assert full.nnz >= D.DENSE_FRACTION * n * n and L.nnz < D.DENSE_FRACTION * n * n
    K = rng.normal(size=(n, 7))
    for M in (L, full):
        np.testing.assert_allclose(
            D.intrinsic_product(M, K), M.toarray() @ K, rtol=1e-12, atol=1e-12
        )
    D.intrinsic_product(full, K)
    dense = D._DENSE[id(full)][1]  # converted once, read-only
    assert not dense.flags.writeable
    D.intrinsic_product(full, K)
    assert D._DENSE[id(full)][1] is dense
    assert id(L) not in D._DENSE  # the sparse one is not densified
    key = id(full)
    del full, M  # the copy goes with its matrix
    import gc

    gc.collect()
    assert key not in D._DENSE
    np.testing.assert_allclose(D.intrinsic_product(L.toarray(), K), L.toarray() @ K)


@pytest.mark.parametrize("seed", range(5))
def test_binary_svm_decision_equals_the_general_route_bit_for_bit(seed):
    from sskernels.solvers.svm import svm_precomputed_decision

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30 + seed, 3))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    t = np.where(rng.random(X.shape[0]) < 0.4, 1.0, -1.0)
    t[:2] = [1.0, -1.0]
    K_te = K[:9]
    for C in (0.01, 1.0, 1e3):
        state = np.random.get_state()
        a = libsvm.binary_svm_decision(K, t, K_te, C)
        np.random.set_state(state)
        b = svm_precomputed_decision(K, t, K_te, C)
        np.testing.assert_array_equal(a, b)


def test_lru_bounds_entries_and_bytes_and_keeps_the_newest():
    from sskernels.memo import LRU

    lru = LRU(3)
    for k in "abcd":
        lru.store(k, np.zeros(10))
    assert list(lru) == ["b", "c", "d"]  # size bound, oldest out
    assert lru.lookup("b") is not None and list(lru) == ["c", "d", "b"]
    lru = LRU(8, max_bytes=250)  # 100-byte values: 2 fit
    for k in "abc":
        lru.store(k, np.zeros(100, dtype=np.uint8))
    assert list(lru) == ["b", "c"] and lru.nbytes() == 200
    big = np.zeros(1000, dtype=np.uint8)  # over the bound alone: kept alone
    assert lru.store("d", big) is big and list(lru) == ["d"]
    lru.store("e", 3.0)  # "d" alone is over: dropped
    assert list(lru) == ["e"] and lru.nbytes() == 0  # no nbytes: weighs 0
    lru.store("f", np.zeros(100, dtype=np.uint8))
    assert list(lru) == ["e", "f"]
