"""The graph builder the graph-based learners take as ``graph=`` (:class:`KNNGraph`)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from sskernels.errors import ParameterError
from sskernels.graph.cache import get_graph
from sskernels.graph.knn import METHODS, METRICS, WEIGHTS


class KNNGraph(BaseEstimator):
    """The k-NN graph builder that the graph-based learners take as ``graph=``.

    A small parameter object in scikit-learn's style (``get_params`` /
    ``set_params``), so that ``GridSearchCV`` can tune ``graph__n_neighbors``.
    ``build(X)`` returns the memoized :class:`Graph` (:func:`get_graph`): the
    label-independent part of every fit, shared by every split and method.

    Parameters
    ----------
    n_neighbors : int, default=6
        k of the k-NN graph.
    weights : {"hein-maier", "heat", "binary"}, default="hein-maier"
        "hein-maier" is Liu et al. eq. (2).
    sigma : float or None, default=None
        Width of "heat" weights; None = root mean squared edge length.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance between points.
    method : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search: "auto" is exact up to ``EXACT_MAX_N`` = 20000 dense or
        100,000 sparse points, approximate (hnswlib) above (``knn.auto_method``).
    """

    def __init__(
        self, n_neighbors=6, weights="hein-maier", sigma=None, metric="euclidean", method="auto"
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.method = method

    def validate(self):
        """Check the parameters.

        Returns
        -------
        self : KNNGraph
            This builder, when every parameter is valid.

        Raises
        ------
        ValueError
            Naming the first invalid parameter.
        """
        k = self.n_neighbors
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError(f"graph n_neighbors must be an integer >= 1, got {k!r}")
        if self.weights not in WEIGHTS:
            raise ParameterError(f"graph weights must be one of {WEIGHTS}, got {self.weights!r}")
        if self.metric not in METRICS:
            raise ParameterError(f"graph metric must be one of {METRICS}, got {self.metric!r}")
        if self.sigma is not None and (
            isinstance(self.sigma, (bool, str)) or not float(self.sigma) > 0
        ):
            raise ParameterError(f"graph sigma must be None or > 0, got {self.sigma!r}")
        if self.method not in METHODS:
            raise ParameterError(f"graph method must be one of {METHODS}, got {self.method!r}")
        return self

    def build(self, X):
        """The :class:`Graph` of ``X`` (memoized by content and parameters).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The points.

        Returns
        -------
        graph : Graph
            The memoized graph (:func:`get_graph`).

        Raises
        ------
        ValueError
            For an invalid parameter (:meth:`validate`), or when ``X`` has no more points
            than ``n_neighbors``.
        """
        self.validate()
        if X.shape[0] <= self.n_neighbors:
            raise ParameterError(
                f"a {self.n_neighbors}-NN graph needs more than {self.n_neighbors} "
                f"points, got {X.shape[0]}"
            )
        return get_graph(
            X,
            k=self.n_neighbors,
            weights=self.weights,
            sigma=self.sigma,
            metric=self.metric,
            method=self.method,
        )
