"""The learner protocol: every hook the package's machinery calls on an estimator, declared once
with its default.

The selection wrapper (:mod:`sskernels.learners.selection`), the oracle
(:mod:`sskernels.experiment.oracle`), the runner's warm-up, the kernel machines and the registry
call these hooks.  A family of this package inherits the defaults below through
:class:`~sskernels.learners.base.SemiSupervisedClassifier` or
:class:`~sskernels.learners.base.SemiSupervisedRegressor` and overrides what it offers; every
default is the generic path, so a family that overrides nothing is correct, only slower.  An
estimator of another library (scikit-learn's ``LabelSpreading``, a user's ``--with`` method)
has none of the hooks: their callers read them with ``getattr(est, name, None)`` and take the
generic path then.

Class attributes

``_selection``
    The parameters a spec selects by default: ``name -> (grid, preference[, unless])``
    (:func:`~sskernels.learners.selection.default_grid`, the registry's ``auto``).
``_selected_attributes``
    The fitted attributes reported as the selected parameters of a record
    (:attr:`LearnerProtocol.selected_params_`).
``_precompute_params``
    The grid parameters that change :meth:`~LearnerProtocol.precompute`'s work (a kernel
    width: one basis per width); the selection wrapper precomputes once per value of these.
``_fold_params``
    The parameters :meth:`~LearnerProtocol._fold_setup` can vary (empty: no fast
    cross-validation path).
``_fold_one_class``
    True: a fold whose training labels hold one class predicts that class, as the generic
    rule does (``fit`` refuses one class), without calling ``_fold_setup``'s predictor.
``_fit_labeled``
    None, or a kernel learner's labeled-only fit ``(X, labeled, y_enc, key, evaluate)`` on
    validated data (the oracle's candidates call it without the estimator's bookkeeping).
``_memoizes_kernel``
    True: the fitted learner's ``kernel_`` is computed once and kept (read once before a
    fitted learner is shared, so the copies share it).
``_default_modules``
    ``parameter -> module``: the module of the estimator a ``None`` default builds by name,
    so that a record's code key holds it (:mod:`sskernels.provenance`).
``_widthless``
    ``(parameter, value)`` for which the kernel has no width (linear, cosine).
``accept_sparse``
    Whether ``X`` may be sparse (the formats accepted).

Methods: :meth:`~LearnerProtocol.precompute`, :meth:`~LearnerProtocol._fold_predictor` (the
template) and its :meth:`~LearnerProtocol._fold_setup`,
:meth:`~LearnerProtocol._transduction_predictor`, :meth:`~LearnerProtocol.kernel_factors`,
:meth:`~LearnerProtocol.labeled_columns`, :meth:`~LearnerProtocol._inductive` and
:meth:`~LearnerProtocol._spec_params`.
"""

from __future__ import annotations

import numpy as np

from sskernels.solvers.report import FitReport

__all__ = ["LearnerProtocol", "selected_params"]


class LearnerProtocol:
    """The hooks every estimator of the package offers, with their defaults (module docstring).

    Examples
    --------
    >>> from sskernels.learners import HarmonicFunction
    >>> from sskernels.learners.protocol import LearnerProtocol
    >>> issubclass(HarmonicFunction, LearnerProtocol)
    True
    >>> LearnerProtocol()._fold_predictor(None, None, None, ("C",)) is None   # no fast path
    True
    """

    _selection: dict = {}
    _selected_attributes: tuple = ()
    _precompute_params: tuple = ()
    _fold_params: frozenset = frozenset()
    _fold_one_class: bool = False
    _fit_labeled = None
    _memoizes_kernel: bool = False
    _default_modules: dict = {}
    _widthless: tuple = ()
    accept_sparse = ("csr", "csc")

    @property
    def selected_params_(self):
        """The fitted attributes named in ``_selected_attributes`` (in that order), and for an
        estimator fitted around a kernel learner (``learner_``) the learner's, prefixed
        ``kernel_learner__``: the ``selected`` column of a record (:func:`selected_params`)."""
        out = {k: getattr(self, k) for k in self._selected_attributes if hasattr(self, k)}
        learner = getattr(self, "learner_", None)  # a kernel machine's kernel learner
        if learner is not None:
            out.update({f"kernel_learner__{k}": v for k, v in selected_params(learner).items()})
        return out

    @classmethod
    def _spec_params(cls, params, make_learner, graph_given):
        """The registry's hook from a spec's parameters to this class's (default: as given,
        but a kernel without a width drops the width parameters and their grids)."""
        if cls._widthless and params.get(cls._widthless[0]) == cls._widthless[1]:
            for key in ("kernel_width", "kernel_width_grid", "kernel_width_scale_grid"):
                params.pop(key, None)
            params["kernel_width_scale"] = 1.0
        return params

    def _inductive(self):
        """Whether the learner has an out-of-sample rule (``predict`` on new points); a
        transductive-only learner labels its training points only (``transduction_``)."""
        return True

    def precompute(self, X):
        """The label-independent work of ``fit`` on ``X`` (a graph, a spectrum, a basis),
        memoized so that every split's fit finds it; the runner calls it once per data set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        object or None
            What was built (a graph learner's :class:`~sskernels.graph.Graph`), or None: the
            default has nothing to precompute.
        """
        return None

    def _fold_predictor(self, X, labeled, y, keys):
        """The selection's fold fits, sharing what the folds and candidates share.

        The template every family's fast cross-validation path goes through: None (the
        generic rule: clone, set the candidate, fit with the fold's labels hidden) unless
        every name in ``keys`` is in ``_fold_params``; else the parameters are validated and
        :meth:`_fold_setup` builds the shared parts and returns the per-fold predictor.  With
        ``_fold_one_class`` a fold whose training labels hold one class predicts that class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, as given to the selection.
        labeled : ndarray of int of shape (n_labeled,)
            Positions of the labeled points.
        y : ndarray of shape (n_labeled,) or (n_labeled, k)
            Their encoded classes ``0..c-1`` (a classifier) or targets (a regressor).
        keys : tuple of str
            The names of the grid's parameters.

        Returns
        -------
        callable or None
            ``predict(params, train, test)``: the predictions at the labeled positions
            ``test`` of the fit on ``train`` with the candidate ``params`` (classes encoded
            as ``y``); its ``report`` attribute (a
            :class:`~sskernels.solvers.report.FitReport`) holds the fold fits' solver notes.
            None: no fast path for these keys.
        """
        if not keys or not set(keys) <= set(self._fold_params):
            return None
        self._validate_params()
        report = FitReport()
        fold_fit = self._fold_setup(X, labeled, y, report)
        if fold_fit is None:
            return None
        if self._fold_one_class:

            def predict(params, train, test):
                if np.unique(y[train]).size < 2:
                    return np.full(test.size, y[train][0])
                return fold_fit(params, train, test)

        else:

            def predict(params, train, test):
                return fold_fit(params, train, test)

        predict.report = report  # SelectOnLabeled merges it ("cv: "; its fallbacks count)
        return predict

    def _fold_setup(self, X, labeled, y, report):
        """The family's part of :meth:`_fold_predictor`: validate ``X``, build what the folds
        and candidates share, return ``fold_fit(params, train, test)`` (or None: the
        generic rule after all).  ``report`` collects the fold fits' solver notes.

        Parameters
        ----------
        X, labeled, y
            As for :meth:`_fold_predictor`.
        report : FitReport
            Where the fold fits' notes go.

        Returns
        -------
        callable or None
            The per-fold predictor, or None (the default: no fast path).
        """
        return None

    def _transduction_predictor(self, X, y, keys):
        """The oracle's fast path (:mod:`sskernels.experiment.oracle`): ``predict(params)``
        giving the transduction of the fit with the candidate ``params`` on ``(X, y)``
        without fitting the whole estimator, or None (the default: every candidate is fitted).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.
        y : ndarray of shape (n_samples,)
            Partial labels (``-1`` unlabeled).
        keys : tuple of str
            The names of the grid's parameters.

        Returns
        -------
        callable or None
            The fast path, or None.
        """
        return None

    def kernel_factors(self):
        """``(P, mu)`` with the fitted learned kernel ``K = P diag(mu) P^T`` (the alignment
        of its unlabeled block is computed from them, without the n x n matrix), or None
        (the default: a kernel is read from ``kernel_``, where there is one).

        Returns
        -------
        tuple or None
            The factors, or None.
        """
        return None

    def labeled_columns(self, labeled):
        """``(K[:, labeled], diag(K))`` of the fitted learned kernel without forming it, or
        None (the default: they are read from ``kernel_``).

        Parameters
        ----------
        labeled : ndarray of int
            Positions of the columns.

        Returns
        -------
        tuple or None
            The columns and the diagonal, or None.
        """
        return None


def selected_params(est):
    """The parameters a fitted estimator selected on the labeled points.

    A selection wrapper's (``best_params_``, e.g.
    :class:`~sskernels.learners.selection.SelectOnLabeled` or scikit-learn's
    ``GridSearchCV``) joined to its chosen estimator's, else the estimator's own
    ``selected_params_`` (:attr:`LearnerProtocol.selected_params_`); ``{}`` for an estimator
    that declares none.

    Parameters
    ----------
    est : object
        A fitted estimator.

    Returns
    -------
    dict
        Parameter names and their selected values (a wrapper's ``best_params_`` take
        precedence over its chosen estimator's entries of the same name).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import LapRLS
    >>> from sskernels.learners.base import selected_params
    >>> X = np.r_[np.random.RandomState(0).randn(20, 2), 4 + np.random.RandomState(1).randn(20, 2)]
    >>> y = np.full(40, -1); y[[0, 1, 20, 21]] = [0, 0, 1, 1]
    >>> sorted(selected_params(LapRLS(gamma_A=0.1).fit(X, y)))
    ['gamma_A_', 'gamma_I_', 'kernel_width_']
    """
    if getattr(est, "best_params_", None) is not None:
        inner = getattr(est, "best_estimator_", None)
        return {**(selected_params(inner) if inner is not None else {}), **dict(est.best_params_)}
    return dict(getattr(est, "selected_params_", None) or {})
