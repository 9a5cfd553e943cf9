"""The approximate k-NN edges: an HNSW index, a tie rule and the measured recall.

``knn_graph(..., method="approximate")`` (and ``"auto"`` above
:data:`~sskernels.graph.knn.EXACT_MAX_N` dense or
:data:`~sskernels.graph.knn.EXACT_MAX_N_SPARSE` sparse points) searches an HNSW index
(``hnswlib``, M = 16, ef_construction = 200, ef = max(64, 2 q); built with one thread and
``random_seed = 0``, so the graph is the same on every run).

Tie rule: each point's ``q - 1 = k + tie_extra(k) = 4 k`` candidates are re-ranked by their
exact float64 distance (ties broken by index); h_i is the k-th of these, and the out-edges
of i are every candidate with ``d_ij <= h_i``: the k nearest plus the ties at the k-th
distance found among the candidates.  A point whose 4 k candidates are all within h_i (the
tie may go on) is queried again for ``k + tie_extra_max(k) = 16 k`` candidates, and the same
rule applies to those: **at most 16 k out-edges per point** before the symmetrisation of
eq. (2).  The shares of points queried twice and of those still at the cap are
``knn_info["rows_second_round"]`` and ``knn_info["rows_at_cap"]``.  Sparse input is given to
the index in dense float32 blocks of 4096 rows (the index keeps an n x d float32 copy) and
the exact candidate distances come from sparse row differences in blocks; nothing n x n is
formed.

Recall is measured on ``recall_sample = 1000`` seeded random rows against brute force
(blocks of 64 rows x n): ``recall`` is the share of the index's k nearest that are within
the exact k-th distance (ties count as hits), ``edge_recall`` the share of the exact
out-edges ``{j: d_ij <= h_i}`` that the rule keeps, ``h_exact`` the share of sampled points
whose h_i is the exact one.

Choice of the index: hnswlib and pynndescent were compared on SecStr and on dense blobs
(k = 10, one thread, recall of the raw index against brute force).  hnswlib is used: it has
the higher recall on SecStr, and pynndescent compiles with numba in every new process.

Examples
--------
>>> import numpy as np
>>> from sskernels.graph import knn_graph
>>> from sskernels.graph.approximate import tie_extra, tie_extra_max
>>> tie_extra(10), tie_extra_max(10)
(30, 150)
>>> X = np.random.default_rng(0).normal(size=(300, 4))
>>> W, h, sigma, info = knn_graph(X, k=5, method="approximate", return_info=True)
>>> info["method"], info["candidates"], info["candidates_max"], info["recall_rows"]
('hnswlib', 20, 80, 300)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: seed of the approximate index and of the recall sample
SEED = 0
#: HNSW parameters of the approximate path
HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_MIN = 16, 200, 64


def tie_extra(k):
    """Candidates beyond the k nearest that the approximate path examines for ties (3 k).

    Parameters
    ----------
    k : int
        The number of neighbours.

    Returns
    -------
    int
        ``3 * k``.
    """
    return 3 * k


def tie_extra_max(k):
    """Candidates beyond the k nearest of a point whose first 4 k are all tied (15 k).

    Parameters
    ----------
    k : int
        The number of neighbours.

    Returns
    -------
    int
        ``15 * k``.
    """
    return 15 * k


def _approximate_edges(Z, k, recall_sample):
    try:
        import hnswlib
    except ImportError as exc:  # pragma: no cover - the dependency is declared
        raise ImportError(
            "method='approximate' needs the hnswlib package (pip install hnswlib)"
        ) from exc
    n, dim = Z.shape
    q = min(n, k + 1 + tie_extra(k))
    q2 = min(n, k + 1 + tie_extra_max(k))
    index = hnswlib.Index(space="l2", dim=dim)
    index.init_index(
        max_elements=n, ef_construction=HNSW_EF_CONSTRUCTION, M=HNSW_M, random_seed=SEED
    )
    index.set_num_threads(1)  # a one-thread build is deterministic
    for s in range(0, n, 4096):
        rows = np.arange(s, min(n, s + 4096))
        index.add_items(_dense_rows(Z, rows), rows)
    # round 1: q candidates of every point, re-ranked by exact distance
    dist, cand = _candidates(index, Z, np.arange(n), q)
    h = dist[:, k - 1].copy()
    tol = h * (1 + 1e-12) + 1e-300
    inside = dist <= tol[:, None]
    crowded = np.flatnonzero(inside[:, -1]) if q < n else np.array([], dtype=int)
    knn = cand[:, :k].copy()
    rows, cols, d = [], [], []
    keep = np.ones(n, dtype=bool)
    keep[crowded] = False
    r, c = np.nonzero(inside & keep[:, None])
    rows.append(r), cols.append(cand[r, c]), d.append(dist[r, c])
    del dist, cand, inside
    # round 2: points whose q candidates are all tied get q2 candidates
    still = 0
    if crowded.size and q2 > q:
        d2, c2 = _candidates(index, Z, crowded, q2)
        h[crowded] = d2[:, k - 1]
        knn[crowded] = c2[:, :k]
        tol2 = h[crowded] * (1 + 1e-12) + 1e-300
        in2 = d2 <= tol2[:, None]
        still = int(np.sum(in2[:, -1])) if q2 < n else 0
        r, c = np.nonzero(in2)
        rows.append(crowded[r]), cols.append(c2[r, c]), d.append(d2[r, c])
    del index
    rows, cols, d = np.concatenate(rows), np.concatenate(cols), np.concatenate(d)
    info = {
        "method": "hnswlib",
        "ties": (
            f"the index's k nearest plus every tie at the k-th distance among its "
            f"{q - 1} candidates (k + {tie_extra(k)}); points whose {q - 1} candidates "
            f"are all tied get {q2 - 1} (k + {tie_extra_max(k)}); exact float64 "
            f"distances; at most {q2 - 1} out-edges per point before symmetrisation"
        ),
        "index": (
            f"hnswlib {getattr(hnswlib, '__version__', '')} HNSW M={HNSW_M} "
            f"ef_construction={HNSW_EF_CONSTRUCTION} ef=max({HNSW_EF_MIN}, 2 q) "
            f"seed={SEED}, one thread"
        ).replace("  ", " "),
        "candidates": int(q - 1),
        "candidates_max": int(q2 - 1),
        "rows_second_round": crowded.size / n,
        "rows_at_cap": still / n,
    }
    E = sp.csr_matrix((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(n, n))
    info.update(_recall(Z, k, knn, E, h, recall_sample))
    return h, rows, cols, d, info


def _candidates(index, Z, rows, q):
    """The index's q candidates of ``rows``, re-ranked by exact distance, self dropped."""
    index.set_ef(max(HNSW_EF_MIN, 2 * q))
    cand = np.empty((rows.size, q), dtype=np.int64)
    for s in range(0, rows.size, 4096):
        cand[s : s + 4096] = index.knn_query(_dense_rows(Z, rows[s : s + 4096]), k=q)[0]
    dist = _pair_distances(Z, rows, cand)
    order = _row_order(dist, cand)
    dist = np.take_along_axis(dist, order, axis=1)
    cand = np.take_along_axis(cand, order, axis=1)
    self_mask = cand == rows[:, None]
    self_mask[~self_mask.any(axis=1), -1] = True  # self not returned (duplicates): drop the last
    keep = ~self_mask
    return dist[keep].reshape(rows.size, q - 1), cand[keep].reshape(rows.size, q - 1)


def _row_order(dist, cand):
    """Per-row order by distance, then index (deterministic among ties)."""
    order = np.empty_like(cand)
    for s in range(0, dist.shape[0], 65536):
        d, c = dist[s : s + 65536], cand[s : s + 65536]
        o = np.argsort(c, axis=1, kind="stable")
        o2 = np.argsort(np.take_along_axis(d, o, axis=1), axis=1, kind="stable")
        order[s : s + 65536] = np.take_along_axis(o, o2, axis=1)
    return order


def _dense_rows(Z, rows, dtype=np.float32):
    B = Z[rows]
    B = B.toarray() if sp.issparse(B) else np.asarray(B)
    return np.ascontiguousarray(B, dtype=dtype)


def _pair_distances(Z, rows, cand):
    """Exact float64 ``||z_i - z_cand[a]||`` for ``i = rows[a]``, in blocks (never n x n)."""
    m, q = cand.shape
    dim = Z.shape[1]
    out = np.empty((m, q))
    if sp.issparse(Z):
        Z = sp.csr_matrix(Z, dtype=np.float64)
        bs = max(1, 250_000 // q)  # 250k pairs: about 100 MB of sparse blocks
        for s in range(0, m, bs):
            e = min(m, s + bs)
            diff = Z[np.repeat(rows[s:e], q)] - Z[cand[s:e].ravel()]
            sq = np.asarray(diff.multiply(diff).sum(axis=1)).ravel()
            out[s:e] = np.sqrt(sq).reshape(e - s, q)
        return out
    Z = np.asarray(Z, dtype=np.float64)
    bs = max(1, 4_000_000 // (q * dim))
    for s in range(0, m, bs):
        e = min(m, s + bs)
        diff = Z[rows[s:e], None, :] - Z[cand[s:e]]
        out[s:e] = np.sqrt(np.einsum("bqd,bqd->bq", diff, diff))
    return out


def _recall(Z, k, knn, E, h, m):
    """Recall of the approximate neighbours on ``m`` seeded random rows, by brute force.

    ``knn``: the k nearest found per point; ``E``: the out-edges kept (CSR, boolean).
    """
    n = Z.shape[0]
    m = min(int(m), n)
    if m == 0:
        return {"recall": None, "edge_recall": None, "h_exact": None, "recall_rows": 0}
    from sklearn.metrics import pairwise_distances

    S = np.sort(np.random.default_rng(SEED).choice(n, size=m, replace=False))
    hits, edges_found, edges_exact, h_ok = 0, 0, 0, 0
    for s in range(0, m, 64):
        blk = S[s : s + 64]
        D = pairwise_distances(Z[blk], Z)
        D[np.arange(blk.size), blk] = np.inf
        hx = np.partition(D, k - 1, axis=1)[:, k - 1]
        slack = hx * (1 + 1e-9) + 1e-12
        for a, i in enumerate(blk):
            exact = D[a] <= slack[a]
            hits += int(np.sum(exact[knn[i]]))
            edges_found += int(np.sum(exact[E.indices[E.indptr[i] : E.indptr[i + 1]]]))
            edges_exact += int(exact.sum())
            h_ok += bool(abs(h[i] - hx[a]) <= 1e-9 * max(hx[a], 1e-300) + 1e-12)
    return {
        "recall": hits / (m * k),
        "edge_recall": edges_found / max(edges_exact, 1),
        "h_exact": h_ok / m,
        "recall_rows": m,
    }
