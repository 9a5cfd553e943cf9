"""Fit any semi-supervised learner with further unlabeled points: :class:`ExtraUnlabeled`.

SecStr ships 1,189,472 extra points beside its 83,679 (Chapelle, Schölkopf & Zien 2006,
ch. 21): they are never labeled and never evaluated, they only shape the graph (or the
kernel) the learner fits on.  :class:`ExtraUnlabeled` adds them to every ``fit`` and keeps
the task's points apart: the learner is fitted on ``X`` followed by the extra points, with
the extra points unlabeled, and ``transduction_`` holds the labels of ``X``'s points only,
so that an accuracy measured on them never counts an extra point.  A run adds it around every
method of a data set that carries extra points (``Dataset.X_extra``, ``secstr-extra``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from sskernels.errors import ParameterError
from sskernels.hashing import fingerprint
from sskernels.learners.base import selected_params
from sskernels.learners.protocol import LearnerProtocol
from sskernels.memo import LRU

#: the last stacked data sets (``X`` followed by the extra points), by content
_STACKED = LRU(2)


def with_extra(X, unlabeled):
    """``X`` followed by the rows of ``unlabeled`` (memoized by content: one copy per run).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The task's points.
    unlabeled : array-like or sparse matrix of shape (n_extra, n_features)
        The extra points.

    Returns
    -------
    array or sparse matrix of shape (n_samples + n_extra, n_features)
        The stacked points (CSR when either part is sparse).

    Raises
    ------
    ValueError
        When the two have different numbers of features.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.extra_unlabeled import with_extra
    >>> with_extra(np.zeros((2, 3)), np.ones((4, 3))).shape
    (6, 3)
    """
    if X.shape[1] != unlabeled.shape[1]:
        raise ParameterError(
            f"the extra unlabeled points have {unlabeled.shape[1]} features, X has {X.shape[1]}"
        )
    key = (fingerprint(X), fingerprint(unlabeled))
    out = _STACKED.lookup(key)
    if out is None:
        if sp.issparse(X) or sp.issparse(unlabeled):
            out = sp.vstack([sp.csr_matrix(X), sp.csr_matrix(unlabeled)], format="csr")
        else:
            out = np.vstack([np.asarray(X), np.asarray(unlabeled)])
        out = _STACKED.store(key, out)
    return out


class ExtraUnlabeled(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A semi-supervised classifier fitted with further points that are never labeled.

    ``fit(X, y)`` fits a clone of ``estimator`` on ``X`` followed by ``unlabeled`` with
    labels ``y`` followed by ``-1`` (unlabeled); ``transduction_`` holds the labels the
    fitted estimator gives ``X``'s points (its own ``transduction_``'s first rows), so an
    accuracy on the unlabeled points of ``X`` never counts an extra point.  ``predict``
    is the fitted estimator's.

    Parameters
    ----------
    estimator : estimator
        A semi-supervised classifier taking ``-1`` for unlabeled points.
    unlabeled : array-like or sparse matrix of shape (n_extra, n_features) or None
        The extra points (None: none, the estimator is fitted on ``X`` alone).

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone.
    transduction_ : numpy.ndarray of shape (n_samples,)
        The labels of ``X``'s points.
    classes_ : numpy.ndarray
        The classes.
    n_extra_ : int
        The number of extra points fitted with.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import HarmonicFunction
    >>> from sskernels.learners.extra_unlabeled import ExtraUnlabeled
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (10, 2)), rng.normal(3, 0.3, (10, 2))])
    >>> extra = np.vstack([rng.normal(0, 0.3, (200, 2)), rng.normal(3, 0.3, (200, 2))])
    >>> y = np.full(20, -1); y[[0, 10]] = [0, 1]
    >>> est = ExtraUnlabeled(HarmonicFunction(), unlabeled=extra).fit(X, y)
    >>> est.transduction_.shape, est.n_extra_, est.transduction_[:3].tolist()
    ((20,), 400, [0, 0, 0])
    """

    def __init__(self, estimator, unlabeled=None):
        self.estimator = estimator
        self.unlabeled = unlabeled

    def _stacked(self, X):
        return X if self.unlabeled is None else with_extra(X, self.unlabeled)

    def fit(self, X, y):
        """Fit a clone of ``estimator`` on ``X`` and the extra points.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The task's points.
        y : array-like of shape (n_samples,)
            Their labels, ``-1`` for an unlabeled point.

        Returns
        -------
        self : ExtraUnlabeled
            The fitted wrapper.

        Raises
        ------
        ValueError
            When ``y`` is not one label per point or the extra points' features differ.
        """
        # scikit-learn's checks (lists, NaN, a column-vector y, n_features_in_); sparse and
        # dtype as they are: the estimator converts them as it does without the extra points
        X, y = validate_data(self, X, y, accept_sparse=True, dtype=None, y_numeric=False)
        n = X.shape[0]
        n_extra = 0 if self.unlabeled is None else self.unlabeled.shape[0]
        Xa = self._stacked(X)
        ya = np.concatenate([y, np.full(n_extra, -1, dtype=y.dtype)])
        self.estimator_ = clone(self.estimator).fit(Xa, ya)
        self.n_extra_ = int(n_extra)
        self.classes_ = getattr(self.estimator_, "classes_", None)
        t = getattr(self.estimator_, "transduction_", None)
        self.transduction_ = np.asarray(t)[:n] if t is not None else self.estimator_.predict(X)
        return self

    def precompute(self, X):
        """The estimator's label-independent work (graph, spectrum) on ``X`` and the extra
        points, if it has any (a ``precompute`` of its own: the points are stacked only
        then).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The task's points.

        Returns
        -------
        self : ExtraUnlabeled
            This wrapper.
        """
        pre = getattr(type(self.estimator), "precompute", None)
        if pre is not None and pre is not LearnerProtocol.precompute:  # the default does nothing
            self.estimator.precompute(self._stacked(X))
        return self

    def predict(self, X):
        """Labels of points by the fitted estimator.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_queries, n_features)
            The points.

        Returns
        -------
        numpy.ndarray of shape (n_queries,)
            Their labels.
        """
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def _has(name):
        return lambda self: hasattr(self.estimator, name)

    @available_if(_has("decision_function"))
    def decision_function(self, X):
        """The fitted estimator's scores of points.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_queries, n_features)
            The points.

        Returns
        -------
        numpy.ndarray
            The scores.
        """
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_function(X)

    @property
    def fit_report_(self):
        """The fitted estimator's fit report (solvers, fallbacks, degenerate cases)."""
        return getattr(self.estimator_, "fit_report_", None)

    @property
    def selected_params_(self):
        """The parameters the fitted estimator selected."""
        return selected_params(self.estimator_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags
