"""The base classes of every semi-supervised estimator of the package.

Conventions (those of ``sklearn.semi_supervised``): ``fit(X, y)`` with
``y == -1`` marking unlabeled points; ``transduction_`` holds the predicted
label of every training point; ``classes_`` the labels seen; ``predict(X_new)``
induces labels for new points.  All learners are multi-class: the scores form an
``(n, c)`` matrix ``F`` and the label is ``argmax_k F_ik`` (Liu et al., eq. (1)).

What the base does once, for every estimator:

* parameters are checked against the class's ``_parameter_constraints``
  (scikit-learn's declarative constraints) at the start of ``fit``;
* ``X`` and ``y`` go through scikit-learn's ``validate_data`` (lists, NaN,
  infinite values, sparse input, X/y length mismatch, ``n_features_in_``);
* the partial labels are split into labeled positions and encoded classes;
  at least two classes must be labeled (one class is no classification
  problem: a loud error, never a 100 % accuracy);
* ``fit_report_`` (:class:`~sskernels.solvers.report.FitReport`) is started,
  so that every solver call, fallback and degenerate case of the fit is recorded.

The hooks the package's machinery calls on an estimator (``precompute``, the fast
cross-validation path, the oracle's fast path, the kernel factors, the default selection
grids, ...) are declared with their defaults in :class:`~sskernels.learners.protocol.
LearnerProtocol`, which both bases inherit.

The graph learners' base classes (the ``graph`` parameter, ``precompute``, the rule for
unreached points) are in :mod:`sskernels.learners.graph_base`; this module does not import
the graph package.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from sskernels.errors import ParameterError
from sskernels.learners.protocol import LearnerProtocol, selected_params  # noqa: F401
from sskernels.solvers.report import FitReport

UNLABELED = -1


def labeled_mask(y):
    """Boolean mask of the labeled entries of a partial label vector (``-1`` = unlabeled).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Partial labels; for string or object labels, ``-1`` and ``"-1"`` both mark an
        unlabeled point.

    Returns
    -------
    ndarray of bool of shape (n_samples,)
        True where the point is labeled.
    """
    y = np.asarray(y)
    if y.dtype.kind in "OUS":
        return np.array(
            [
                not (isinstance(v, (int, np.integer, float, np.floating)) and v == UNLABELED)
                and v != str(UNLABELED)
                for v in y.ravel()
            ]
        )
    return y != UNLABELED


def check_partial_labels(y, min_classes=2):
    """Split partial labels into ``(classes, labeled_idx, y_enc)``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Partial labels, ``-1`` (``UNLABELED``) for the unlabeled points.
    min_classes : int, default=2
        The number of classes that must at least be labeled.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The classes of the labeled points, sorted.
    labeled_idx : ndarray of shape (n_labeled,)
        Positions of the labeled points in ``y``.
    y_enc : ndarray of shape (n_labeled,)
        The labeled points' classes encoded as ``0..c-1`` (positions in ``classes``).

    Raises
    ------
    ValueError
        When no point is labeled, or when fewer than ``min_classes`` classes are
        labeled (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> from sskernels.learners import check_partial_labels
    >>> classes, labeled_idx, y_enc = check_partial_labels([3, -1, 5, 3, -1])
    >>> classes, labeled_idx, y_enc
    (array([3, 5]), array([0, 2, 3]), array([0, 1, 0]))
    """
    y = np.asarray(y)
    labeled = np.flatnonzero(labeled_mask(y))
    if labeled.size == 0:
        raise ParameterError("no labeled point: every entry of y is -1")
    classes, y_enc = np.unique(y[labeled], return_inverse=True)
    if classes.size < min_classes:
        raise ParameterError(
            f"semi-supervised classification needs at least {min_classes} classes "
            f"among the labeled points; got {classes.size} class "
            f"({classes.tolist()!r})"
        )
    return classes, labeled, y_enc


def indicator(y_enc, n_classes):
    """Class indicator matrix ``C`` (Liu et al., Sec. 3): ``C_ik = 1`` iff ``y_i = k``.

    Parameters
    ----------
    y_enc : ndarray of int of shape (n_labeled,)
        Classes encoded as ``0..n_classes-1``.
    n_classes : int
        The number of classes c.

    Returns
    -------
    C : ndarray of shape (n_labeled, n_classes)
        One 1.0 per row, in the column of its class; 0.0 elsewhere.
    """
    C = np.zeros((len(y_enc), n_classes))
    C[np.arange(len(y_enc)), y_enc] = 1.0
    return C


def ovr_targets(y_enc, n_classes):
    """One-vs-rest targets in {-1, +1}: (l,) for two classes (+1 = class 1), else (l, c).

    Parameters
    ----------
    y_enc : ndarray of int of shape (l,)
        Classes encoded as ``0..n_classes-1``.
    n_classes : int
        The number of classes c.

    Returns
    -------
    T : ndarray of shape (l,) or (l, n_classes)
        +1.0 for the point's class, -1.0 for the others.
    """
    if n_classes == 2:
        return np.where(y_enc == 1, 1.0, -1.0)
    T = -np.ones((y_enc.size, n_classes))
    T[np.arange(y_enc.size), y_enc] = 1.0
    return T


#: a class predicted on less than this fraction of its share of the labeled points may have
#: collapsed (:func:`collapsed_classes`; a choice, the papers set none)
COLLAPSE_RATIO = 0.2
#: ... when its labeled count is this implausible under the predicted share (binomial tail)
COLLAPSE_P = 1e-3


def collapsed_classes(labeled_counts, predicted_counts):
    """The classes predicted far below their share of the labeled points.

    Class ``c`` has collapsed when its share ``x`` of the predictions is below
    :data:`COLLAPSE_RATIO` times its share of the labels and the labels are implausible
    under ``x``: ``P(Binomial(l, x') >= l_c) <`` :data:`COLLAPSE_P` (``l_c`` of the ``l``
    labels are of class ``c``, the labeled points a random sample; ``x'`` the share with one
    more point predicted in the class, so that a share of 0 is not taken at its word).  The second test
    keeps a class with one or two labels from being flagged by chance.

    Parameters
    ----------
    labeled_counts : array-like of shape (n_classes,)
        The number of labeled points of each class.
    predicted_counts : array-like of shape (n_classes,)
        The number of (unlabeled) points predicted in each class.

    Returns
    -------
    list of int
        The positions of the collapsed classes, in class order.

    Examples
    --------
    >>> collapsed_classes([20, 20, 20, 20, 20], [20000, 19000, 200, 21000, 19800])
    [2]
    >>> collapsed_classes([1, 9], [0, 100])     # one label: not enough to tell
    []
    """
    from scipy.stats import binom

    lab = np.asarray(labeled_counts, dtype=float)
    pred = np.asarray(predicted_counts, dtype=float)
    x, y = pred / max(pred.sum(), 1.0), lab / max(lab.sum(), 1.0)
    # the tail under the share with one more point predicted in the class: a share of 0
    # (no prediction) is not taken at its word
    tail = binom.sf(lab - 1, lab.sum(), (pred + 1) / (pred.sum() + 1))
    return [
        int(c) for c in np.flatnonzero((lab > 0) & (x < COLLAPSE_RATIO * y) & (tail < COLLAPSE_P))
    ]


def unreached_scores(C_L):
    """The one rule for unreached points: the labeled points' class frequencies as scores.

    Their label is then the most frequent class among the labeled points (ties: the first
    class of ``classes_``), whatever the learner.

    Parameters
    ----------
    C_L : array-like of shape (n_labeled, n_classes)
        The class indicator matrix of the labeled points (:func:`indicator`).

    Returns
    -------
    ndarray of shape (n_classes,)
        The share of the labeled points in each class.
    """
    return np.asarray(C_L, dtype=float).mean(axis=0)


def as_scores(F):
    """(n,) binary decision values -> (n, 2) scores ``[-f, f]``; (n, c) unchanged.

    Parameters
    ----------
    F : array-like of shape (n,) or (n, c)
        Decision values or scores.

    Returns
    -------
    ndarray of shape (n, 2) or (n, c)
        The scores.
    """
    F = np.asarray(F)
    return np.column_stack([-F, F]) if F.ndim == 1 else F


class SemiSupervisedClassifier(LearnerProtocol, ClassifierMixin, BaseEstimator):
    """Base of every semi-supervised classifier: validation, labels, the fit report.

    Subclasses call :meth:`_fit_start` first in ``fit`` and :meth:`_check_X`
    first in ``predict`` / ``decision_function``.

    Attributes
    ----------
    accept_sparse : tuple of str or bool
        Class attribute: whether the learner takes sparse ``X`` (the sparse formats it
        accepts, by default ``("csr", "csc")``).
    classes_ : ndarray of shape (n_classes,)
        The labels seen among the labeled points (set by ``fit``).
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled training points (set by ``fit``).
    fit_report_ : FitReport
        The solvers used by the fit, their fallbacks and degenerate cases
        (:class:`~sskernels.solvers.report.FitReport`, set by ``fit``).
    """

    _parameter_constraints: dict = {}
    accept_sparse = ("csr", "csc")

    def _fit_start(self, X, y, min_classes=2):
        """Validate parameters and data; set ``classes_``, ``labeled_``, ``fit_report_``.

        Returns ``(X, labeled, y_enc)``.
        """
        self._validate_params()
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse=self.accept_sparse,
            dtype=np.float64,
            y_numeric=False,
            ensure_min_samples=2,
        )
        labeled = labeled_mask(y)
        if labeled.any():
            check_classification_targets(np.asarray(y)[labeled])
        classes, labeled, y_enc = check_partial_labels(y, min_classes=min_classes)
        self.classes_, self.labeled_ = classes, labeled
        self._labeled_counts = np.bincount(y_enc, minlength=classes.size)
        self.fit_report_ = FitReport()
        return X, labeled, y_enc

    def _note_degenerate_prediction(self, transduction):
        """Record a degenerate answer on the unlabeled points: one class for all of them, or a
        class predicted far below its share of the labeled points.

        Judged on the unlabeled points: a fit that only reproduces the labeled points and
        predicts one class elsewhere is caught too.  A class *collapses* when it is
        predicted on less than :data:`COLLAPSE_RATIO` (a fifth) of its share of the labeled
        points and that share is implausible under the labeled sample
        (:func:`collapsed_classes`): the flattening of the harmonic function as the
        unlabeled points grow (Nadler, Srebro & Zhou 2009) shows this way.  Both thresholds
        are choices (the papers set none); the note's text is the same in every fit, so a
        summary counts the fits it fired in.
        """
        t = np.asarray(transduction)
        unl = np.setdiff1d(np.arange(len(t)), self.labeled_)
        if unl.size <= 1:
            return
        if np.unique(t[unl]).size == 1:
            self.fit_report_.note(
                "degenerate",
                f"constant prediction: every unlabeled point gets class {t[unl][0].item()!r}",
            )
            return
        predicted = np.bincount(
            np.searchsorted(self.classes_, t[unl]), minlength=self.classes_.size
        )
        for c in collapsed_classes(self._labeled_counts, predicted):
            self.fit_report_.note(
                "degenerate",
                f"class collapse: class "
                f"{self.classes_[c].item()!r} predicted on under a fifth of "
                f"its share of the labeled points",
            )

    def _check_X(self, X):
        check_is_fitted(self, "classes_")
        return validate_data(
            self, X, accept_sparse=self.accept_sparse, dtype=np.float64, reset=False
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self.accept_sparse)
        return tags

    @available_if(lambda self: self._inductive())
    def predict(self, X):
        """Labels of new points: the class of the largest decision value.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points, in the form of the ``X`` given to ``fit`` (with a precomputed
            graph: their affinities to the training points, shape
            (n_queries, n_samples)).

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels, values of ``classes_``.
        """
        check_is_fitted(self, "classes_")
        return self.classes_[np.argmax(as_scores(self.decision_function(X)), axis=1)]

    @available_if(lambda self: self._inductive())
    def score(self, X, y, sample_weight=None):
        """Accuracy of :meth:`predict` on new points ``X`` (scikit-learn's ``score``).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points, in the form of the ``X`` given to ``fit``.
        y : array-like of shape (n_queries,)
            Their true labels.
        sample_weight : array-like of shape (n_queries,), default=None
            Weights of the points.

        Returns
        -------
        score : float
            Mean accuracy of ``predict(X)`` against ``y``.
        """
        return super().score(X, y, sample_weight=sample_weight)


# ------------------------------------------------------------------------------- regression


def labeled_rows(Y):
    """Labeled rows of partial regression targets ``Y`` (n, k): every entry finite.

    A row of NaN is unlabeled; a row with some NaN entries is refused (ValueError).

    Parameters
    ----------
    Y : ndarray of shape (n, k)
        The targets, NaN for the unlabeled rows.

    Returns
    -------
    ndarray of int of shape (n_labeled,)
        Positions of the rows without NaN.

    Raises
    ------
    ValueError
        When a row is partly NaN (:class:`~sskernels.errors.ParameterError`, a
        ``ValueError``).
    """
    nan = np.isnan(Y)
    partial = nan.any(axis=1) & ~nan.all(axis=1)
    if partial.any():
        raise ParameterError(
            f"target row {int(np.flatnonzero(partial)[0])} is partly NaN: a row is "
            "either labeled (every target finite) or unlabeled (every target NaN)"
        )
    return np.flatnonzero(~nan.any(axis=1))


class SemiSupervisedRegressor(LearnerProtocol, RegressorMixin, BaseEstimator):
    """Base of the semi-supervised regressors (Wang et al. 2015's WiFi task).

    The convention for partial targets: ``y`` is (n,) or (n, k) float, and a NaN target (a
    row of NaN for k > 1) marks an UNLABELED point — ``-1``, the classifiers' marker, is a
    valid target value.  ``predict(X_new)`` induces targets for new points.  Infinite
    targets are refused with scikit-learn's message; at least two labeled points are
    required.

    Attributes
    ----------
    transduction_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The predicted targets of every training point (the shape of ``y``).
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled training points (every target finite).
    n_targets_ : int
        The number of targets k.
    fit_report_ : FitReport
        As for the classifiers (:class:`~sskernels.solvers.report.FitReport`).
    """

    _parameter_constraints: dict = {}
    accept_sparse = False

    def _fit_start(self, X, y):
        """Validate parameters and data; set ``labeled_``, ``n_targets_``, ``fit_report_``.

        Returns ``(X, labeled, Y_L)`` with ``Y_L`` (l, k) the labeled targets.
        """
        self._validate_params()
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        X = validate_data(
            self, X, accept_sparse=self.accept_sparse, dtype=np.float64, ensure_min_samples=2
        )
        y = check_array(
            y, ensure_2d=False, dtype=np.float64, ensure_all_finite="allow-nan", input_name="y"
        )
        if y.ndim > 2 or y.ndim == 0:
            raise ParameterError(f"y must be (n,) or (n, k) targets, got shape {y.shape}")
        check_consistent_length(X, y)
        self._y_ndim = y.ndim
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        labeled = labeled_rows(Y)
        if labeled.size < 2:
            raise ParameterError(
                f"semi-supervised regression needs at least 2 labeled points (a "
                f"finite target); got {labeled.size}"
            )
        self.labeled_, self.n_targets_ = labeled, Y.shape[1]
        self.fit_report_ = FitReport()
        return X, labeled, Y[labeled]

    def _shaped(self, F):
        """(s, k) predictions in the shape of the fitted ``y`` ((s,) for a 1-d y)."""
        F = np.asarray(F, dtype=float)
        return F[:, 0] if self._y_ndim == 1 else F

    def _check_X(self, X):
        check_is_fitted(self, "labeled_")
        return validate_data(
            self, X, accept_sparse=self.accept_sparse, dtype=np.float64, reset=False
        )

    def _note_constant_prediction(self, F):
        unl = np.setdiff1d(np.arange(F.shape[0]), self.labeled_)
        if unl.size > 1 and np.ptp(np.asarray(F)[unl], axis=0).max() == 0:
            self.fit_report_.note(
                "degenerate", "constant prediction: every unlabeled point gets the same target"
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self.accept_sparse)
        tags.target_tags.multi_output = True
        return tags
