"""The exact k-NN edges of eq. (2): every point tied at the k-th distance is an edge.

``knn_graph(..., method="exact")`` (and ``"auto"`` up to
:data:`~sskernels.graph.knn.EXACT_MAX_N` dense or
:data:`~sskernels.graph.knn.EXACT_MAX_N_SPARSE` sparse points) searches with scikit-learn's
``NearestNeighbors``: eq. (2) exactly, every point tied at the k-th distance an edge (the
committed paper tables depend on these graphs, bit for bit).  One query of the
``k + 1 + extra`` nearest (``extra = 10``) gives both h and the edges.  Rows with more than
``extra`` points tied at their k-th distance ("crowded" rows) get the edges of one
``radius_neighbors`` query per row, computed in one batched pass:

* sparse input and tree indexes (kd/ball tree): one ``radius_neighbors``
  call per block of 256 crowded rows (rows sorted by radius, each block
  queried at its largest radius and filtered per row).  The distance of a
  pair does not depend on the batch there, so this is identical.
* dense input searched by brute force: scikit-learn's Euclidean reduction
  computes ``|x|^2 - 2 x.y + |y|^2`` with a BLAS ``dgemm`` per (query chunk,
  256-row data chunk), and the rounding of ``x.y`` depends on the chunk
  shapes, so a batched query differs from a one-row query in the last bits.
  The pass repeats the one-row arithmetic (one ``dgemm`` of shape
  ``(256, 1)`` per data chunk, no scikit-learn call per row) and checks it
  against scikit-learn's own one-row query on two crowded rows; if that
  check fails (another scikit-learn or BLAS), the rows get one
  ``radius_neighbors`` query each, recorded in ``knn_info["crowded"]``.

The queries run in row blocks (:mod:`sskernels.graph.search`), on the threads of
:func:`~sskernels.graph.search.search_threads`: the graph is the same for every thread count.

Examples
--------
>>> import numpy as np
>>> from sskernels.graph import knn_graph
>>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
>>> W, h, sigma, info = knn_graph(X, k=1, method="exact", return_info=True)
>>> info["method"], info["recall"], info["crowded"]
('exact', 1.0, {'rows': 0, 'pass': None})
>>> int(W[0].nnz)           # points 1 and 2 are tied as point 0's nearest: both are edges
2
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.neighbors import NearestNeighbors

from sskernels.graph.search import _kneighbors, _map_blocks

#: crowded rows per ``radius_neighbors`` call of the batched pass (:func:`_batched_radius`)
_BLOCK = 256


def _exact_edges(Z, k, extra=10):
    nn = NearestNeighbors().fit(Z)
    n = Z.shape[0]
    # one query of the k + 1 + extra nearest serves h and the edges
    dist, ind = _kneighbors(nn, Z, min(n, k + 1 + extra))
    # h: distance to the k-th neighbour other than the point itself.  The first k + 1
    # columns hold the k + 1 smallest distances, the values a (k + 1)-query returns (a tie
    # may swap an index, never a value); dropping the point itself, or the last column
    # where a tie at its distance pushed it out, leaves the same values (so the graphs
    # equal those of a separate (k + 1)-query, bit for bit)
    h = _drop_self(dist[:, : k + 1], ind[:, : k + 1])[0][:, k - 1]
    # directed edges i -> j with d_ij <= h_i, ties at the k-th distance included
    # (eq. (2) is a distance rule, so every tied neighbour is an edge)
    rows, cols, d, crowded = _within_radius(nn, Z, h, dist, ind)
    info = {
        "method": "exact",
        "recall": 1.0,
        "edge_recall": 1.0,
        "ties": "every point at the k-th distance is an edge (eq. (2) exactly)",
        "index": f"sklearn NearestNeighbors ({nn._fit_method})",
        "crowded": crowded,
    }
    return h, rows, cols, d, info


def _drop_self(dist, ind):
    n = ind.shape[0]
    self_mask = ind == np.arange(n)[:, None]
    # rows where self is absent (k+1 exact duplicates): drop the last column
    missing = ~self_mask.any(axis=1)
    self_mask[missing, -1] = True
    keep = ~self_mask
    k = ind.shape[1] - 1
    return dist[keep].reshape(n, k), ind[keep].reshape(n, k)


def _within_radius(nn, Z, h, dist, ind):
    """All pairs ``(i, j != i)`` with ``d_ij <= h_i``, as ``(rows, cols, distances, how)``.

    ``dist, ind``: the ``kk = k + 1 + extra`` nearest of every point (sorted).
    They cover every point except those with more than ``extra`` ties at their
    k-th distance ("crowded"), which are searched again to their radius in one
    batched pass (:func:`_crowded_pass`).
    """
    n, kk = ind.shape
    tol = h * (1 + 1e-12) + 1e-300
    inside = (dist <= tol[:, None]) & (ind != np.arange(n)[:, None])
    r, c = np.nonzero(inside)
    rows, cols, ds = [r], [ind[r, c]], [dist[r, c]]
    crowded = np.flatnonzero(dist[:, -1] <= tol) if kk < n else np.array([], dtype=int)
    how = {"rows": int(crowded.size), "pass": None}
    if crowded.size:
        # redo these rows exactly: drop what was found above, search to the radius
        drop = np.isin(rows[0], crowded)
        rows[0], cols[0], ds[0] = rows[0][~drop], cols[0][~drop], ds[0][~drop]
        r2, c2, d2, how["pass"] = _crowded_pass(nn, Z, crowded, tol[crowded])
        keep = c2 != r2
        rows.append(r2[keep]), cols.append(c2[keep]), ds.append(d2[keep])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(ds), how


def _crowded_pass(nn, Z, rows, radii):
    """``(i, j, d_ij)`` for every ``i`` in ``rows`` and ``d_ij <= radii``, in one pass."""
    if nn._fit_method == "brute" and not sp.issparse(Z):
        Y = nn._fit_X
        if _dense_replica_applies(nn, Y) and _dense_replica_checks(nn, Y, rows, radii):
            return (*_dense_replica(Y, rows, radii), "dense brute force: one-row BLAS replica")
        # scikit-learn computes these distances some other way: its own query, row by row
        return (
            *_per_row(nn, Z, rows, radii),
            "per-row radius_neighbors (the one-row replica did not apply)",
        )
    return (*_batched_radius(nn, Z, rows, radii), "batched radius_neighbors")


def _batched_radius(nn, Z, rows, radii):
    """Blocks of crowded rows (sorted by radius) queried at the block's largest radius."""
    order = np.argsort(radii, kind="stable")
    # sparse input or a tree index (_crowded_pass): row by row
    found = _map_blocks(
        _radius_block,
        (nn, Z, rows, radii),
        [order[s : s + _BLOCK] for s in range(0, order.size, _BLOCK)],
        by_rows=True,
    )
    return tuple(np.concatenate([a for f in found for a in f[i]]) for i in range(3))


def _radius_block(shared, blk):
    """One block of crowded rows, queried at its largest radius and filtered per row."""
    nn, Z, rows, radii = shared
    dd, jj = nn.radius_neighbors(Z[rows[blk]], radius=float(radii[blk].max()))
    out_r, out_c, out_d = [], [], []
    for a, b in enumerate(blk):
        m = dd[a] <= radii[b]
        out_r.append(np.full(int(m.sum()), rows[b]))
        out_c.append(jj[a][m]), out_d.append(dd[a][m])
    return out_r, out_c, out_d


def _per_row(nn, Z, rows, radii):
    out_r, out_c, out_d = [], [], []
    for i, t in zip(rows, radii):
        dd, jj = nn.radius_neighbors(Z[i : i + 1], radius=t)
        out_r.append(np.full(jj[0].size, i)), out_c.append(jj[0]), out_d.append(dd[0])
    return np.concatenate(out_r), np.concatenate(out_c), np.concatenate(out_d)


def _dense_replica_applies(nn, Y):
    return (
        Y.dtype == np.float64
        and Y.flags.c_contiguous
        and Y.shape[0] > 0
        and nn.effective_metric_ == "euclidean"
        and not nn.effective_metric_params_
    )


def _dense_replica(Y, rows, radii):
    """Scikit-learn's one-row Euclidean radius query, repeated without its per-call cost.

    ``sqrt(max(0, (|x|^2 + (-2 x.Y_c^T)) + |y|^2))`` with ``x.Y_c^T`` one BLAS
    ``dgemm`` per 256-row data chunk ``Y_c`` (``pairwise_dist_chunk_size``) in
    the operand layout scikit-learn passes, so every bit agrees with its query.
    """
    from scipy.linalg.blas import dgemm

    n = Y.shape[0]
    chunk = int(get_config().get("pairwise_dist_chunk_size", 256))
    norms = np.array([np.dot(y, y) for y in Y])
    chunks = [(s, Y[s : s + chunk].T) for s in range(0, n, chunk)]
    mid = np.empty(n)
    out_r, out_c, out_d = [], [], []
    for i, t in zip(rows, radii):
        x = np.asfortranarray(Y[i][:, None])
        for s, Yt in chunks:
            mid[s : s + Yt.shape[1]] = dgemm(-2.0, Yt, x, trans_a=1)[:, 0]
        sq = np.maximum((norms[i] + mid) + norms, 0.0)
        j = np.flatnonzero(sq <= t * t)
        out_r.append(np.full(j.size, i)), out_c.append(j), out_d.append(np.sqrt(sq[j]))
    return np.concatenate(out_r), np.concatenate(out_c), np.concatenate(out_d)


def _dense_replica_checks(nn, Y, rows, radii):
    """The replica against scikit-learn's own one-row query on the first and last crowded rows."""
    for a in sorted({0, len(rows) - 1}):
        r1, c1, d1 = _dense_replica(Y, rows[a : a + 1], radii[a : a + 1])
        dd, jj = nn.radius_neighbors(Y[rows[a] : rows[a] + 1], radius=radii[a])
        o = np.argsort(jj[0], kind="stable")
        if not (np.array_equal(c1, jj[0][o]) and np.array_equal(d1, dd[0][o])):
            return False
    return True
