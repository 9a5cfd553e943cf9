"""Shared machinery of the graph-based semi-supervised classifiers.

Conventions (those of ``sklearn.semi_supervised``): ``fit(X, y)`` with
``y == -1`` marking unlabeled points; ``transduction_`` holds the predicted
label of every training point; ``classes_`` the labels seen; ``predict(X_new)``
induces labels for new points.  All learners are multi-class: the scores form an
``(n, c)`` matrix ``F`` and the label is ``argmax_k F_ik`` (Liu et al., eq. (1)).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from sskernels.graph import get_graph

UNLABELED = -1


def check_partial_labels(y):
    """Split partial labels into ``(classes, labeled_idx, y_enc)``.

    ``y_enc`` are the labeled points' classes encoded as ``0..c-1``.  Raises
    ``ValueError`` when no point is labeled.
    """
    y = np.asarray(y)
    labeled = np.flatnonzero(y != UNLABELED)
    if labeled.size == 0:
        raise ValueError("no labeled point: every entry of y is -1")
    classes, y_enc = np.unique(y[labeled], return_inverse=True)
    return classes, labeled, y_enc


def indicator(y_enc, n_classes):
    """Class indicator matrix ``C`` (Liu et al., Sec. 3): ``C_ik = 1`` iff ``y_i = k``."""
    C = np.zeros((len(y_enc), n_classes))
    C[np.arange(len(y_enc)), y_enc] = 1.0
    return C


class GraphParams:
    """Parameters of the k-NN graph shared by the graph-based learners.

    n_neighbors : k of the k-NN graph (Liu et al. use k = 6 on UCI).
    weights : "hein-maier" (Liu eq. (2)), "heat" or "binary".
    sigma : width of "heat" weights; None = root mean squared edge length.
    metric : "euclidean" or "cosine".
    """

    def _graph(self, X):
        return get_graph(X, k=self.n_neighbors, weights=self.weights,
                         sigma=self.sigma, metric=self.metric)


class GraphClassifier(GraphParams, ClassifierMixin, BaseEstimator):
    """Base class: subclasses implement ``_scores(graph, labeled, C_L)`` -> ``(n, c)`` scores."""

    def fit(self, X, y):
        classes, labeled, y_enc = check_partial_labels(y)
        self.classes_ = classes
        self.labeled_ = labeled
        self.X_fit_ = X
        graph = self._graph(X)
        self.graph_ = graph
        F = self._scores(graph, labeled, indicator(y_enc, classes.size))
        self.scores_ = F
        self.transduction_ = classes[np.argmax(F, axis=1)]
        return self

    def decision_function(self, X):
        check_is_fitted(self, "scores_")
        return self._induce(X)

    def predict(self, X):
        """Labels of new points through the method's out-of-sample rule."""
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]

    def _induce(self, X):  # pragma: no cover - overridden
        raise NotImplementedError(f"{type(self).__name__} is transductive only")
