"""Graphs over a data set and their Laplacian spectra, computed once and reused.

A :class:`Graph` holds the k-NN weight matrix of a data set, its degrees and
(lazily) the eigenpairs of its normalized Laplacian.  None of this depends on
which points are labeled, so :func:`get_graph` memoizes graphs by the data's
fingerprint and the graph parameters: every split and every method of a run
share one graph and one eigendecomposition.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np
import scipy.sparse as sp

from sskernels.graph.knn import METRICS, WEIGHTS, induced_weights, knn_graph
from sskernels.graph.laplacian import (
    Spectrum,
    degree_normalizer,
    laplacian_spectrum,
    normalized_adjacency,
    normalized_laplacian,
)

__all__ = [
    "Graph", "get_graph", "clear_cache", "Spectrum", "knn_graph", "induced_weights",
    "normalized_adjacency", "normalized_laplacian", "laplacian_spectrum", "WEIGHTS", "METRICS",
]


class Graph:
    """The k-NN graph of ``X`` with lazily computed, memoized Laplacian spectra."""

    def __init__(self, X, k=6, weights="hein-maier", sigma=None, metric="euclidean"):
        self.X = X
        self.k, self.weights, self.metric = k, weights, metric
        self.W, self.h, self.sigma = knn_graph(X, k=k, weights=weights, sigma=sigma, metric=metric)
        self.degrees, self.d_inv_sqrt = degree_normalizer(self.W)
        self._spectrum = None

    @property
    def n(self):
        return self.W.shape[0]

    @property
    def S(self):
        """``D^{-1/2} W D^{-1/2}``."""
        return normalized_adjacency(self.W)

    @property
    def laplacian(self):
        """Unnormalized Laplacian ``L = D - W`` (sparse)."""
        return (sp.diags(self.degrees) - self.W).tocsr()

    @property
    def normalized_laplacian(self):
        return normalized_laplacian(self.W)

    def spectrum(self, m=None):
        """Eigenpairs of ``L_sym`` holding at least the m smallest with ``lambda != 1``.

        ``m=None`` asks for the full spectrum.  The largest computation so far is
        kept, so asking again for fewer pairs costs nothing.
        """
        sp_ = self._spectrum
        if sp_ is not None and (sp_.complete or (m is not None and _available(sp_) >= m)):
            return sp_
        sp_ = laplacian_spectrum(self.W, m=m)
        if m is not None and not sp_.complete and _available(sp_) < m:
            sp_ = laplacian_spectrum(self.W, m=None)
        self._spectrum = sp_
        return sp_

    def induced(self, Xnew, exclude=None):
        """Weights between new points and this graph's points (eq. (2) rule), dense (s, n)."""
        return induced_weights(Xnew, self.X, self.h, k=self.k, weights=self.weights,
                               sigma=self.sigma, metric=self.metric, exclude=exclude)

    def induced_normalized(self, Xnew, exclude=None):
        """``w_x`` of Liu et al. eq. (18): ``W_{x,i} / sqrt(D_xx D_ii)``, dense (s, n)."""
        Wx = self.induced(Xnew, exclude=exclude)
        dx = Wx.sum(axis=1)
        with np.errstate(divide="ignore"):
            inv_dx = np.where(dx > 0, 1.0 / np.sqrt(dx), 0.0)
        return Wx * inv_dx[:, None] * self.d_inv_sqrt[None, :]


def _available(spectrum):
    from sskernels.graph.laplacian import ONE_TOL

    return int(np.sum(np.abs(spectrum.values - 1.0) > ONE_TOL))


def fingerprint(X):
    """A content hash of a dense or sparse matrix."""
    h = hashlib.sha1()
    if sp.issparse(X):
        X = X.tocsr()
        for a in (X.data, X.indices, X.indptr):
            h.update(np.ascontiguousarray(a).tobytes())
    else:
        h.update(np.ascontiguousarray(X).tobytes())
    h.update(repr((X.shape, str(X.dtype))).encode())
    return h.hexdigest()


_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 8


def get_graph(X, k=6, weights="hein-maier", sigma=None, metric="euclidean"):
    """The :class:`Graph` of ``X``, memoized by content and parameters (LRU of 8)."""
    key = (fingerprint(X), int(k), weights, None if sigma is None else float(sigma), metric)
    g = _CACHE.get(key)
    if g is None:
        g = Graph(X, k=k, weights=weights, sigma=sigma, metric=metric)
        _CACHE[key] = g
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return g


def clear_cache():
    _CACHE.clear()


def cache_items():
    """The memoized graphs, to hand to worker processes."""
    return list(_CACHE.items())


def cache_put(key, graph):
    _CACHE[key] = graph
