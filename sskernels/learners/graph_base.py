"""The base classes of the graph learners: the ``graph`` parameter, ``precompute`` and the one
rule for points no label reaches.

:class:`GraphSemiSupervisedClassifier` adds the ``graph`` parameter to
:class:`~sskernels.learners.base.SemiSupervisedClassifier`: a
:class:`~sskernels.graph.KNNGraph` builder (``None``: the class's default graph) or
``"precomputed"``, in which case ``fit(W, y)`` takes the (n, n) affinity matrix and new points
are given by their (s, n) affinities.  The label-independent work is the public step
:meth:`~GraphSemiSupervisedClassifier.precompute`: it builds (and memoizes) the graph and
whatever spectrum the learner needs, and returns the :class:`~sskernels.graph.Graph`.
:class:`GraphClassifier` is the base of the learners that score every point on the graph.

Only the graph learners import this module, so only their records depend on the graph
package's code (:mod:`sskernels.learners.base` does not import it).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.utils.metaestimators import available_if
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import check_is_fitted

from sskernels.errors import ParameterError
from sskernels.graph import KNNGraph, PrecomputedGraph, check_affinity
from sskernels.hashing import fingerprint
from sskernels.learners.base import SemiSupervisedClassifier, indicator, unreached_scores
from sskernels.memo import LRU
from sskernels.solvers.report import SolveInfo


def graph_components(graph):
    """The connected-component label of every point of ``graph`` (its affinity ``W``).

    Parameters
    ----------
    graph : Graph
        The graph (:class:`~sskernels.graph.Graph`; its ``W`` is read as undirected).

    Returns
    -------
    ndarray of int of shape (n_samples,)
        The component of each point, numbered from 0.
    """
    return connected_components(graph.W, directed=False)[1]


def unreached(components, labeled):
    """Boolean mask of the points whose graph component holds none of the points ``labeled``.

    ``components`` are component labels (:func:`graph_components`), ``labeled`` positions
    into them.  Such points have no path to a label: a graph learner's scores there are 0
    or arbitrary, so every graph learner gives them :func:`unreached_scores`.

    Parameters
    ----------
    components : array-like of int of shape (n_samples,)
        The component label of every point.
    labeled : array-like of int of shape (n_labeled,)
        Positions of the labeled points.

    Returns
    -------
    ndarray of bool of shape (n_samples,)
        True for the unreached points.
    """
    components = np.asarray(components)
    return ~np.isin(components, components[np.asarray(labeled, dtype=int)])


class DefaultGraphMixin:
    """The ``graph`` parameter's default: ``None`` means ``KNNGraph(**_default_graph)``.

    ``graph__*`` parameters (``set_params``, a grid search) work with the default too:
    they first make the default graph explicit, so that
    ``GridSearchCV(Consistency(), {"graph__n_neighbors": [5, 10]})`` tunes it.
    """

    _default_graph: dict = {"n_neighbors": 6, "weights": "hein-maier"}

    def graph_builder(self):
        """The :class:`~sskernels.graph.KNNGraph` this estimator builds its graph with."""
        return KNNGraph(**self._default_graph) if self.graph is None else self.graph

    def set_params(self, **params):
        """Set the parameters of this estimator (scikit-learn's ``set_params``).

        ``graph__*`` parameters with ``graph=None`` first set
        ``graph=KNNGraph(**_default_graph)``, so that they tune the default graph.

        Parameters
        ----------
        **params : dict
            Estimator parameters, ``graph__*`` ones included.

        Returns
        -------
        self : object
            The estimator.
        """
        if (
            getattr(self, "graph", "") is None
            and "graph" not in params
            and any(k.startswith("graph__") for k in params)
        ):
            self.graph = KNNGraph(**self._default_graph)
        return super().set_params(**params)


class GraphSemiSupervisedClassifier(DefaultGraphMixin, SemiSupervisedClassifier):
    """Base of the graph-based classifiers: the ``graph`` parameter and :meth:`precompute`.

    The subclasses' ``graph`` parameter is one of:

    * a :class:`~sskernels.graph.KNNGraph` (k, weights, sigma, metric);
    * ``None``: the class's default graph (``_default_graph``);
    * ``"precomputed"``: ``X`` is then the (n, n) affinity matrix of the training
      points and, in ``predict``, the (s, n) affinities of new points to them.

    Learners that need the features themselves (an RBF kernel on ``X``) set
    ``_needs_features = True`` and refuse ``"precomputed"``.
    """

    _parameter_constraints: dict = {
        "graph": [None, StrOptions({"precomputed"}), HasMethods(["build"])],
    }
    _needs_features = False

    @property
    def _precomputed(self):
        return isinstance(self.graph, str) and self.graph == "precomputed"

    def _fit_start(self, X, y, min_classes=2):
        if self._precomputed and self._needs_features:
            raise ParameterError(
                f"{type(self).__name__} needs the features X (its kernel is "
                "computed on them): graph='precomputed' is not supported"
            )
        if self._precomputed and not sp.issparse(X):
            X = np.asarray(X, dtype=float) if not hasattr(X, "shape") else X
        X, labeled, y_enc = super()._fit_start(X, y, min_classes=min_classes)
        return X, labeled, y_enc

    def precompute(self, X):
        """Build (memoized) the graph of ``X`` and the spectrum this learner needs.

        This is the label-independent part of ``fit``: the runner calls it once
        per data set before the splits; ``fit`` then finds it in the cache.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points (with ``graph="precomputed"``: their (n_samples,
            n_samples) affinity matrix).

        Returns
        -------
        graph : Graph
            The :class:`~sskernels.graph.Graph` of ``X``.
        """
        graph = self._build_graph(X)
        self._precompute_graph(graph)
        return graph

    def _build_graph(self, X):
        if self._precomputed:
            return _precomputed_graph(X)
        return self.graph_builder().build(X)

    def _precompute_graph(self, graph):
        """Hook: label-independent work on the graph (e.g. a spectrum); default none."""

    def _graph_spectrum(self, graph, m, report=None):
        """``graph.spectrum(m)``, with the filtered Lanczos's call (its cuts, products and any
        fallback: :attr:`sskernels.graph.Spectrum.info`) added to ``report`` (default
        ``fit_report_``)."""
        spectrum = graph.spectrum(m)
        report = report if report is not None else getattr(self, "fit_report_", None)
        if spectrum.info is not None and report is not None:
            report.add(SolveInfo(**spectrum.info), "spectrum", keep_stats=True)
        return spectrum

    def _find_unreached(self, graph, labeled):
        """Set ``unreached_``: the unlabeled points in components of ``graph`` without a
        labeled point (recorded in ``fit_report_`` as degenerate)."""
        self.unreached_ = np.flatnonzero(unreached(graph_components(graph), labeled))
        if self.unreached_.size:
            self.fit_report_.note(
                "degenerate",
                f"{self.unreached_.size} points in graph "
                "components without a labeled point: labeled class "
                "frequencies",
            )

    def _label_unreached(self, F, y_enc):
        """Training scores ``F`` (n, c) with the rows of ``unreached_`` replaced by the
        labeled class frequencies (:func:`unreached_scores`): the one rule of every graph
        learner, the transductive ones (whose scores are 0 there) and the inductive ones
        alike (whose ambient function is not tied to a label there).  Rows whose scores
        are equal for every class (a zero kernel reaches no point) follow the same rule,
        recorded too (:func:`settle_scores`)."""
        F, tied = settle_scores(F, indicator(y_enc, self.classes_.size), self.unreached_)
        if tied:
            self.fit_report_.note(
                "degenerate",
                f"{tied} points with equal scores for every class: labeled class frequencies",
            )
        return F

    def _induced(self, X):
        """Validated new points: features, or (s, n) affinities with a precomputed graph."""
        check_is_fitted(self, "classes_")
        if self._precomputed:
            return X
        return self._check_X(X)


def settle_scores(F, C_L, unreached_rows=()):
    """Scores with the unreached rows and the tied rows set to the labeled class frequencies.

    Rows ``unreached_rows`` of ``F`` and the rows equal for every class (``n_tied`` of the
    others: no class is preferred, and argmax would say the first) become the labeled class
    frequencies of ``C_L`` (:func:`unreached_scores`).  ``F`` is copied when a row changes.

    Parameters
    ----------
    F : array-like of shape (n, c)
        The scores.
    C_L : array-like of shape (n_labeled, c)
        The class indicator matrix of the labeled points (:func:`indicator`).
    unreached_rows : array-like of int, default=()
        Positions of the unreached rows.

    Returns
    -------
    F : ndarray of shape (n, c)
        The settled scores (``F`` itself when no row changes, else a float copy).
    n_tied : int
        The number of tied rows outside ``unreached_rows``.
    """
    F = np.asarray(F)
    rows = np.zeros(F.shape[0], dtype=bool)
    rows[np.asarray(unreached_rows, dtype=int)] = True
    tied = (F.max(axis=1) == F.min(axis=1)) & ~rows
    if not (rows.any() or tied.any()):
        return F, 0
    F = np.array(F, dtype=float)
    F[rows | tied] = unreached_scores(C_L)
    return F, int(tied.sum())


#: the graph of the last precomputed affinity matrix (one: a precomputed graph is the user's,
#: not a data set's)
_PRECOMPUTED = LRU(1)


def _precomputed_graph(W):
    """A :class:`PrecomputedGraph` for ``W``, memoized by content (spectra are reused)."""
    key = fingerprint(W if sp.issparse(W) else np.ascontiguousarray(W))
    g = _PRECOMPUTED.lookup(key)
    if g is None:
        g = _PRECOMPUTED.store(key, PrecomputedGraph(check_affinity(W)))
    return g


class GraphClassifier(GraphSemiSupervisedClassifier):
    """A graph classifier by scores: subclasses implement ``_scores(graph, labeled, C_L)``.

    ``_scores`` returns the ``(n, c)`` score matrix of the training points;
    ``_induce(X)`` the scores of new points (out-of-sample rule).

    Unreached points (unlabeled points in graph components without a labeled point, which
    no graph learner can tie to a label) follow the one rule of every graph learner
    (:meth:`GraphSemiSupervisedClassifier._label_unreached`): their scores are the labeled
    points' class frequencies (:func:`unreached_scores`), so their label is the most
    frequent labeled class; their positions are ``unreached_`` and the fit records a
    ``degenerate`` note in ``fit_report_`` (and so in the run's summary).  ``_scores`` may
    read ``self.unreached_`` (set before it runs).

    Attributes
    ----------
    scores_ : ndarray of shape (n_samples, n_classes)
        The scores of the training points, unreached points included.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training point (the class of its largest score).
    unreached_ : ndarray of shape (n_unreached,)
        Positions of the unreached points.
    graph_ : Graph
        The :class:`~sskernels.graph.Graph` of the training points.
    fit_report_ : FitReport
        The solvers used by the fit, their fallbacks and degenerate cases.
    """

    def fit(self, X, y):
        """Build the graph and score every training point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled (sparse input where the learner
            accepts it).  With ``graph="precomputed"``: the (n_samples, n_samples)
            affinity matrix of the training points.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` (``UNLABELED``) for the unlabeled
            ones; at least two classes must be labeled.

        Returns
        -------
        self : object
            The fitted estimator: ``scores_``, ``transduction_``, ``unreached_`` and
            ``fit_report_`` are set.
        """
        X, labeled, y_enc = self._fit_start(X, y)
        self.X_fit_ = X
        graph = self._build_graph(X)
        self.graph_ = graph
        C_L = indicator(y_enc, self.classes_.size)
        self._find_unreached(graph, labeled)
        self.label_frequencies_ = unreached_scores(C_L)
        self.scores_ = F = self._label_unreached(self._scores(graph, labeled, C_L), y_enc)
        self.transduction_ = self.classes_[np.argmax(F, axis=1)]
        self._note_degenerate_prediction(self.transduction_)
        return self

    #: True when the scores are nonnegative class masses (propagated label mass), whose
    #: row-normalization is a distribution over the classes: ``predict_proba`` and
    #: ``label_distributions_`` are offered then, as by scikit-learn's ``LabelSpreading``
    _class_masses = False

    def _inductive(self):
        return type(self)._induce is not GraphClassifier._induce

    @available_if(lambda self: self._inductive())
    def decision_function(self, X):
        """Scores of new points: (s, c), or (s,) ``F_1 - F_0`` for two classes
        (scikit-learn's convention: positive means ``classes_[1]``).  Where the scores are
        class masses they are normalized per row first (:meth:`predict_proba`), so the
        two rank the points alike.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points, in the form of the ``X`` given to ``fit`` (with
            ``graph="precomputed"``: their affinities to the training points, shape
            (n_queries, n_samples)).

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            One score per class, or for two classes the score of ``classes_[1]``
            minus that of ``classes_[0]``.
        """
        check_is_fitted(self, "scores_")
        F = self._induce(self._induced(X))
        if self._class_masses:
            F = self._distributions(F)
        return F[:, 1] - F[:, 0] if F.shape[1] == 2 else F

    def _distributions(self, F):
        """Rows of class masses ``F`` normalized to sum 1; a row without mass (a new
        point no graph point reaches) gets the labeled class frequencies."""
        F = np.clip(np.asarray(F, dtype=float), 0.0, None)
        mass = F.sum(axis=1, keepdims=True)
        P = F / np.where(mass > 0, mass, 1.0)
        P[mass[:, 0] <= 0] = self.label_frequencies_
        return P

    @property
    def label_distributions_(self):
        """(n, c) distribution over ``classes_`` of every training point (the scores
        normalized per row), for learners whose scores are class masses."""
        if not self._class_masses:
            raise AttributeError(
                f"{type(self).__name__}'s scores are not class masses: "
                "no label_distributions_ (use decision_function)"
            )
        check_is_fitted(self, "scores_")
        return self._distributions(self.scores_)

    def _has_proba(self):
        return self._class_masses and self._inductive()

    @available_if(lambda self: self._has_proba())
    def predict_proba(self, X):
        """(s, c) class probabilities of new points: their induced class masses,
        normalized per row (``label_distributions_`` for the training points).

        Offered by the learners whose scores are class masses
        (:class:`~sskernels.learners.HarmonicFunction`,
        :class:`~sskernels.learners.Consistency`).  A new point that no graph point
        reaches gets the labeled class frequencies.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points, in the form of the ``X`` given to ``fit`` (with
            ``graph="precomputed"``: their affinities to the training points).

        Returns
        -------
        proba : ndarray of shape (n_queries, n_classes)
            Class probabilities in the order of ``classes_``; rows sum to 1.
        """
        check_is_fitted(self, "scores_")
        return self._distributions(self._induce(self._induced(X)))

    def _induce(self, X):  # pragma: no cover - overridden
        raise NotImplementedError(f"{type(self).__name__} is transductive only")
