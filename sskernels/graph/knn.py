"""k-nearest-neighbour graphs and their edge weights.

Three weightings are offered:

``hein-maier``
    Liu et al. (2009), eq. (2), after Hein & Maier (2007): with h(x) the distance
    from x to its k-th nearest neighbour,
    ``W_ij = exp(-||x_i - x_j||^2 / max(h_i^2, h_j^2))`` if
    ``||x_i - x_j|| <= max(h_i, h_j)`` and 0 otherwise.  The support condition is
    the symmetric ("or") k-NN graph: j is among the k nearest neighbours of i, or
    i among those of j.
``heat``
    Gaussian weights ``exp(-||x_i - x_j||^2 / (2 sigma^2))`` on the symmetric
    k-NN graph.  ``sigma=None`` takes sigma^2 as the mean squared edge length
    (the choice of Mao & Tsang, Sec. 5.2).
``binary``
    ``W_ij = 1`` on the symmetric k-NN graph.

Self-loops are never added (``W_ii = 0``).  Distances are Euclidean; ``metric=
"cosine"`` uses ``1 - cos`` as the neighbour ranking and the Euclidean distance of
the unit-normalised rows (which is ``sqrt(2 (1 - cos))``) in the weights.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import normalize

WEIGHTS = ("hein-maier", "heat", "binary")
METRICS = ("euclidean", "cosine")
_TINY = 1e-12


def _prepare(X, metric):
    if metric == "cosine":
        return normalize(X)
    return X


def knn_graph(X, k=6, weights="hein-maier", sigma=None, metric="euclidean"):
    """Symmetric k-NN weight matrix of the rows of ``X``.

    Returns ``(W, h, sigma)``: ``W`` a symmetric ``csr_matrix`` with zero diagonal,
    ``h`` the k-th neighbour distance of every point (needed for the
    out-of-sample weights of eq. (2)), and the Gaussian width actually used
    (``None`` for the other weightings).
    """
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {WEIGHTS}, got {weights!r}")
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    Z = _prepare(X, metric)
    n = Z.shape[0]
    if not 1 <= k < n:
        raise ValueError(f"k must be in [1, n-1] = [1, {n - 1}], got {k}")
    nn = NearestNeighbors().fit(Z)
    # h: distance to the k-th neighbour other than the point itself
    dist, ind = nn.kneighbors(Z, n_neighbors=k + 1)
    dist, ind = _drop_self(dist, ind)
    h = dist[:, k - 1]
    # directed edges i -> j with d_ij <= h_i, ties at the k-th distance included
    # (eq. (2) is a distance rule, so every tied neighbour is an edge)
    rows, cols, d = _within_radius(nn, Z, h, k)
    # symmetric support: d_ij <= max(h_i, h_j), i.e. the union of the directed relations
    D = sp.coo_matrix((d + _TINY, (rows, cols)), shape=(n, n)).tocsr()
    D = D.maximum(D.T).tocoo()
    r, c, dij = D.row, D.col, np.maximum(D.data - _TINY, 0.0)
    keep = r != c
    r, c, dij = r[keep], c[keep], dij[keep]
    w, sigma = _edge_weights(dij, h[r], h[c], weights, sigma)
    W = sp.csr_matrix((w, (r, c)), shape=(n, n))
    W.eliminate_zeros()
    return W, h, sigma


def _within_radius(nn, Z, h, k, extra=10):
    """All pairs ``(i, j != i)`` with ``d_ij <= h_i``, as ``(rows, cols, distances)``.

    The ``k + extra`` nearest neighbours cover every point except those with
    more than ``extra`` ties at their k-th distance, which get an exact radius
    query of their own.
    """
    n = Z.shape[0]
    kk = min(n, k + 1 + extra)
    dist, ind = nn.kneighbors(Z, n_neighbors=kk)
    tol = h * (1 + 1e-12) + 1e-300
    rows, cols, ds = [], [], []
    inside = (dist <= tol[:, None]) & (ind != np.arange(n)[:, None])
    r, c = np.nonzero(inside)
    rows.append(r), cols.append(ind[r, c]), ds.append(dist[r, c])
    crowded = np.flatnonzero(dist[:, -1] <= tol) if kk < n else np.array([], dtype=int)
    if crowded.size:
        # redo these rows exactly: drop what was found above, query the radius
        drop = np.isin(rows[0], crowded)
        rows[0], cols[0], ds[0] = rows[0][~drop], cols[0][~drop], ds[0][~drop]
        for i in crowded:
            dd, jj = nn.radius_neighbors(Z[i:i + 1], radius=tol[i])
            dd, jj = dd[0], jj[0]
            keep = jj != i
            rows.append(np.full(keep.sum(), i)), cols.append(jj[keep]), ds.append(dd[keep])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(ds)


def _drop_self(dist, ind):
    n = ind.shape[0]
    self_mask = ind == np.arange(n)[:, None]
    # rows where self is absent (k+1 exact duplicates): drop the last column
    missing = ~self_mask.any(axis=1)
    self_mask[missing, -1] = True
    keep = ~self_mask
    k = ind.shape[1] - 1
    return dist[keep].reshape(n, k), ind[keep].reshape(n, k)


def _edge_weights(dij, hi, hj, weights, sigma):
    if weights == "hein-maier":
        scale = np.maximum(np.maximum(hi, hj) ** 2, _TINY)
        return np.exp(-(dij**2) / scale), None
    if weights == "heat":
        if sigma is None:
            sigma = float(np.sqrt(np.mean(dij**2))) if dij.size else 1.0
            sigma = max(sigma, _TINY)
        return np.exp(-(dij**2) / (2.0 * sigma**2)), sigma
    return np.ones_like(dij), None


def induced_weights(Xnew, X, h, k=6, weights="hein-maier", sigma=None,
                    metric="euclidean", exclude=None):
    """Weights ``W(x, x_i)`` between new points and the graph's points.

    The same rule as :func:`knn_graph` (eq. (2) for ``hein-maier``), with
    ``h(x)`` the distance from ``x`` to its k-th nearest neighbour among the
    graph's points; an edge exists where ``||x - x_i|| <= max(h(x), h_i)``.
    ``exclude`` optionally gives, per new point, the index of a graph point to
    leave out (or -1): used to induce a training point with its self-edge
    removed.  Returns a dense ``(s, n)`` array.
    """
    Zn = _prepare(Xnew, metric)
    Z = _prepare(X, metric)
    from sklearn.metrics import pairwise_distances

    Dn = pairwise_distances(Zn, Z)
    if exclude is not None:
        exclude = np.asarray(exclude)
        rows = np.flatnonzero(exclude >= 0)
        Dn[rows, exclude[rows]] = np.inf
    hx = np.partition(Dn, k - 1, axis=1)[:, k - 1]
    support = Dn <= np.maximum(hx[:, None], h[None, :]) * (1 + 1e-12)
    s, n = Dn.shape
    r, c = np.nonzero(support)
    w, _ = _edge_weights(Dn[r, c], hx[r], h[c], weights, sigma)
    out = np.zeros((s, n))
    out[r, c] = w
    return out
