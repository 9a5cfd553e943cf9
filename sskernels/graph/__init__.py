"""Graphs over a data set and their Laplacian spectra, computed once and reused.

A :class:`Graph` holds the k-NN weight matrix of a data set, its degrees and
(lazily) the eigenpairs of its normalized Laplacian.  None of this depends on
which points are labeled, so :func:`get_graph` memoizes graphs by the data's
fingerprint and the graph parameters: every split and every method of a run
share one graph and one eigendecomposition.

The package's face: the names below, defined in :mod:`~sskernels.graph.knn` (the k-NN graph
and its edge weights), :mod:`~sskernels.graph.laplacian` (Laplacians and spectra),
:mod:`~sskernels.graph.graphs` (:class:`Graph`, :class:`PrecomputedGraph`),
:mod:`~sskernels.graph.cache` (the memo) and :mod:`~sskernels.graph.builder`
(:class:`KNNGraph`).  The k-NN searches behind :func:`knn_graph` are
:mod:`~sskernels.graph.exact` (the exact search with its ties),
:mod:`~sskernels.graph.search` (its row blocks on threads or a cluster) and
:mod:`~sskernels.graph.approximate` (the HNSW index); :mod:`~sskernels.graph.descent`
holds NN-descent, the graph builder of a million points.
"""

from __future__ import annotations

from sskernels.graph.builder import KNNGraph
from sskernels.graph.cache import (
    SEARCH_KEYS,
    cached_graphs,
    clear_cache,
    get_graph,
    graph_searches,
    graphs_used,
    search_summary,
)
from sskernels.graph.graphs import Graph, PrecomputedGraph, check_affinity
from sskernels.graph.knn import EXACT_MAX_N, METHODS, METRICS, WEIGHTS, induced_weights, knn_graph
from sskernels.graph.laplacian import (
    Spectrum,
    laplacian_spectrum,
    normalized_adjacency,
    normalized_laplacian,
)
from sskernels.hashing import fingerprint

__all__ = [
    "Graph",
    "PrecomputedGraph",
    "KNNGraph",
    "get_graph",
    "clear_cache",
    "graph_searches",
    "graphs_used",
    "search_summary",
    "SEARCH_KEYS",
    "cached_graphs",
    "check_affinity",
    "fingerprint",
    "Spectrum",
    "knn_graph",
    "induced_weights",
    "normalized_adjacency",
    "normalized_laplacian",
    "laplacian_spectrum",
    "WEIGHTS",
    "METRICS",
    "METHODS",
    "EXACT_MAX_N",
]
