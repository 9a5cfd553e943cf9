"""Hyper-parameter selection on the labeled points only: one wrapper, one tie rule.

:class:`SelectOnLabeled` wraps any estimator of the package and a grid of its
parameters.  The unlabeled points' labels are never looked at: a candidate is
scored by cross-validation over the labeled points, where each fold's labels
are hidden (its points stay in the data as unlabeled points) while the model is
fitted with the others, and the fold's predicted labels are compared with its
hidden labels.  Two protocols:

* ``"kfold"`` — fit on all folds but one, validate on it (the usual k-fold);
* ``"one-fold-labeled"`` — fit on one fold, validate on the others: Mao &
  Tsang, Sec. 5.2, "only one fold is used for labeled examples, and the rest
  is the validation set".

The score of a candidate is the accuracy pooled over all validation points.

**The one tie rule.**  Candidates are the product of the grid's value lists in
the order given — the first parameter varies slowest, each list in its given
order — and among candidates with the best score the *first* wins.  So a grid
states its preference by its order: the method's default grids (the
``_selection`` attribute of each estimator class) list every parameter's
values most-preferred first and its parameters most-important first, and
:func:`ordered_grid` puts a user's grid in the same preference order.

**Constant predictors are passed over.**  A candidate whose validation predictions are
one class in every fold (:func:`best_candidate`), or whose refit with all labels gives
every unlabeled point one class (:meth:`SelectOnLabeled._refit`; both seen without the
unlabeled points' labels), has learned nothing from the labels: it is selected only when
no other candidate is left.  A ``fallback`` note says when it happened and
``passed_over_`` lists the candidates passed over.  Our rule: the papers' selection
protocols are silent on it.

**Speed.**  An estimator may offer ``_fold_predictor(X, labeled, y_enc, keys)``
returning ``predict(params, train, test)`` (or None when it cannot handle the
grid's parameter names ``keys``) — encoded predictions of the
labeled points at positions ``test`` after fitting with the labels at
positions ``train`` only — that shares label-independent work between folds
and candidates (a deformation basis, a spectrum).  It must equal the generic
rule (clone, set the parameters, fit with the fold hidden, read
``transduction_``); without it the generic rule runs.
"""

from __future__ import annotations

import itertools
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils.metaestimators import available_if
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from sskernels.errors import ParameterError
from sskernels.learners.base import UNLABELED, check_partial_labels
from sskernels.solvers.report import FitReport

PROTOCOLS = ("kfold", "one-fold-labeled")


def labeled_folds(y_enc, n_folds=5, random_state=0):
    """Index folds over the labeled points (positions into ``y_enc``).

    Stratified when every class has at least ``n_folds`` labeled points, plain
    shuffled K-fold otherwise; ``n_folds`` is capped at the number of points.

    Parameters
    ----------
    y_enc : ndarray of int of shape (l,)
        The labeled points' classes, encoded as ``0..c-1``.
    n_folds : int, default=5
        The number of folds (at least 2, at most l).
    random_state : int, RandomState instance or None, default=0
        Seed of the shuffle.

    Returns
    -------
    list of ndarray of int
        The validation positions of each fold (together: every position once).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.selection import labeled_folds
    >>> folds = labeled_folds(np.array([0, 0, 0, 1, 1, 1]), n_folds=3)
    >>> [sorted(f.tolist()) for f in folds]       # one point of each class per fold
    [[2, 4], [1, 5], [0, 3]]
    """
    n = len(y_enc)
    n_folds = max(2, min(n_folds, n))
    counts = np.bincount(y_enc)
    if counts.min() >= n_folds:
        cv = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
        return [test for _, test in cv.split(np.zeros(n), y_enc)]
    cv = KFold(n_folds, shuffle=True, random_state=random_state)
    return [test for _, test in cv.split(np.zeros(n))]


def candidates(param_grid):
    """The grid's candidates as dicts, first parameter slowest, lists in their order.

    Parameters
    ----------
    param_grid : dict
        Mapping parameter -> sequence of values.

    Returns
    -------
    list of dict
        Every combination of the values.

    Raises
    ------
    ValueError
        When a parameter's sequence is empty (:class:`~sskernels.errors.ParameterError`, a
        ``ValueError``).

    Examples
    --------
    >>> from sskernels.learners.selection import candidates
    >>> candidates({"a": [1, 2], "b": ["x", "y"]})
    [{'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}, {'a': 2, 'b': 'y'}]
    """
    keys = list(param_grid)
    values = [list(param_grid[k]) for k in keys]
    for k, v in zip(keys, values):
        if not v:
            raise ParameterError(f"the grid of {k!r} is empty")
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def score_candidates(
    cands, predict_fold, y_enc, n_folds=5, random_state=0, protocol="kfold", constant=None
):
    """Pooled validation accuracy of each candidate; returns ``(best_index, scores)``.

    ``predict_fold(candidate, train_pos, test_pos)`` gives encoded predictions
    for the labeled points at ``test_pos``.  The best is :func:`best_candidate`'s: the
    highest score among the candidates that are not constant predictors (see there),
    ties to the first.  ``constant``, a list, receives each candidate's flag.

    Parameters
    ----------
    cands : list of dict
        The candidates (:func:`candidates`).
    predict_fold : callable
        ``predict_fold(candidate, train_pos, test_pos) -> ndarray``, as above.
    y_enc : ndarray of int of shape (l,)
        The labeled points' classes, encoded as ``0..c-1``.
    n_folds : int, default=5
        The number of folds (:func:`labeled_folds`).
    random_state : int, RandomState instance or None, default=0
        Seed of the folds.
    protocol : {"kfold", "one-fold-labeled"}, default="kfold"
        ``"kfold"`` fits on all folds but one and validates on it; ``"one-fold-labeled"``
        fits on one fold and validates on the others.
    constant : list or None, default=None
        A list whose contents are replaced by each candidate's constant-predictor flag.

    Returns
    -------
    best_index : int
        The position of the selected candidate in ``cands``.
    scores : ndarray of shape (len(cands),)
        The accuracy of each candidate, pooled over all validation points.

    Raises
    ------
    ValueError
        For an unknown ``protocol`` (:class:`~sskernels.errors.ParameterError`, a
        ``ValueError``).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.selection import score_candidates
    >>> y_enc = np.array([0, 0, 0, 1, 1, 1])
    >>> def predict_fold(cand, train, test):     # candidate 0 always says class 0
    ...     return y_enc[test] if cand["c"] else np.zeros(test.size, dtype=int)
    >>> flags = []
    >>> score_candidates([{"c": 0}, {"c": 1}], predict_fold, y_enc, n_folds=3, constant=flags)
    (1, array([0.5, 1. ]))
    >>> flags
    [True, False]
    """
    if protocol not in PROTOCOLS:
        raise ParameterError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    folds = labeled_folds(y_enc, n_folds, random_state)
    all_pos = np.arange(len(y_enc))
    pairs = []  # (train, test) of each fold, once
    for fold in folds:
        rest = np.setdiff1d(all_pos, fold)
        pairs.append((fold, rest) if protocol == "one-fold-labeled" else (rest, fold))
    # the folds whose validation points hold two classes or more: where a learning
    # candidate can tell classes apart
    mixed = [np.unique(y_enc[test]).size > 1 for _, test in pairs]
    scores, flags = [], []
    for cand in cands:
        correct = total = 0
        collapsed = []
        for (train, test), mix in zip(pairs, mixed):
            pred = np.asarray(predict_fold(cand, train, test))
            correct += int(np.sum(pred == y_enc[test]))
            total += test.size
            if mix:
                collapsed.append(np.unique(pred).size == 1)
        scores.append(correct / total)
        flags.append(bool(collapsed) and all(collapsed))
    scores = np.asarray(scores)
    if constant is not None:
        constant[:] = flags
    return best_candidate(scores, flags), scores


def best_candidate(scores, constant, skip=()):
    """The selected candidate: the best score, ties to the first, among the usable candidates.

    The usable candidates are neither constant predictors nor in ``skip``; among all when
    every one is.

    A candidate is a *constant predictor* when, in every fold whose validation points hold
    two classes or more, it gives all of them one class (a zero kernel, a collapsed
    solution): it learned nothing from the labels, whatever accuracy the class proportions
    give it (on yeast, 10 classes, the largest class alone is right for 31 % of the points
    and can outscore every learning candidate).  Our rule, the papers' protocols being
    silent on it: such a candidate is chosen only when no other is left.

    Parameters
    ----------
    scores : array-like of shape (n_candidates,)
        The candidates' scores (higher is better).
    constant : sequence of bool of shape (n_candidates,)
        Whether each candidate is a constant predictor.
    skip : collection of int, default=()
        Positions of candidates not to choose while another is left.

    Returns
    -------
    int
        The position of the selected candidate.

    Examples
    --------
    >>> from sskernels.learners.selection import best_candidate
    >>> best_candidate([0.8, 0.9, 0.9], [False, True, False])
    2
    """
    scores = np.asarray(scores, dtype=float)
    order = sorted(range(scores.size), key=lambda i: (-scores[i], i))
    usable = [i for i in order if not constant[i] and i not in skip]
    return int(usable[0] if usable else order[0])


def ordered_grid(estimator, grid):
    """A user's grid in the estimator's preference order (see the module docstring).

    ``estimator._selection`` maps a parameter to ``(default values, preference)``
    with preference ``"largest"``, ``"smallest"``, ``"nearest-1"`` (closest to 1
    on a log scale, then the larger) or ``"given"``; its key order is the
    parameters' priority.  Parameters it does not name keep the user's order
    and come last.

    Parameters
    ----------
    estimator : estimator or class
        The estimator (its ``_selection``; none: every parameter keeps the user's order).
    grid : dict
        Mapping parameter -> sequence of values.

    Returns
    -------
    dict
        The grid with its parameters in priority order and their values in preference
        order (as lists).

    Raises
    ------
    ValueError
        For an unknown preference in ``_selection``.

    Examples
    --------
    >>> from sskernels.learners import TransductiveSpectralKernel
    >>> from sskernels.learners.selection import ordered_grid
    >>> ordered_grid(TransductiveSpectralKernel(), {"beta": [1.0, 10.0, 0.1]})   # largest first
    {'beta': [10.0, 1.0, 0.1]}
    """
    sel = getattr(estimator, "_selection", {})
    out = {}
    for key in [k for k in sel if k in grid] + [k for k in grid if k not in sel]:
        values = list(grid[key])
        pref = sel[key][1] if key in sel else "given"
        out[key] = _sort_values(values, pref)
    return out


def _sort_values(values, pref):
    if pref == "given":
        return values
    if pref == "largest":
        return sorted(values, key=lambda v: -float(v))
    if pref == "smallest":
        return sorted(values, key=float)
    if pref == "nearest-1":
        return sorted(values, key=lambda v: (abs(np.log(float(v))), -float(v)))
    raise ValueError(f"unknown preference {pref!r}")


def default_grid(estimator, params=None):
    """The estimator's default selection grid, in preference order.

    ``_selection`` entries may carry a third element, the names of parameters
    that, when set by the user (``params``), switch that selection off (e.g. a
    fixed ``kernel_width`` rule switches off the width-factor grid), and a fourth,
    ``{parameter: value}`` that must hold (in ``params``, else the estimator's own
    value or its class default) for the selection to run (e.g. a weighting's own
    parameters, selected only with that weighting).  A parameter set in ``params`` is not
    selected either.

    Parameters
    ----------
    estimator : estimator or class
        The estimator, or its class.
    params : dict or None, default=None
        The parameters the user set (None: none).

    Returns
    -------
    dict
        Mapping parameter -> list of values, in preference order.

    Examples
    --------
    >>> from sskernels.learners import KernelSVM
    >>> from sskernels.learners.selection import default_grid
    >>> default_grid(KernelSVM)
    {'C': [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]}
    >>> default_grid(KernelSVM, {"C": 10.0})
    {}
    """
    params = params or {}
    grid = {}
    for key, entry in getattr(estimator, "_selection", {}).items():
        values, pref = entry[0], entry[1]
        unless = entry[2] if len(entry) > 2 else ()
        only = entry[3] if len(entry) > 3 else {}
        if key in params or any(u in params for u in unless):
            continue
        if only:
            own = (estimator() if isinstance(estimator, type) else estimator).get_params(deep=False)
            if any({**own, **params}.get(k) != v for k, v in only.items()):
                continue
        grid[key] = _sort_values(list(values), pref)
    return grid


def generic_fold_predictor(estimator, X, y, labeled, y_enc, classes, report=None):
    """The generic fold rule: clone, set the candidate, fit with the fold hidden.

    The fold fits' fallbacks and degenerate cases go into ``report`` (prefix ``cv:``).  A
    training fold that holds one class predicts that class without a fit.

    Parameters
    ----------
    estimator : estimator
        The unfitted estimator (it is cloned for each fit).
    X : array-like of shape (n_samples, n_features)
        The training points.
    y : array-like of shape (n_samples,)
        The partial labels, ``-1`` for the unlabeled points.
    labeled : ndarray of int of shape (l,)
        Positions of the labeled points.
    y_enc : ndarray of int of shape (l,)
        Their classes, encoded as positions in ``classes``.
    classes : ndarray of shape (n_classes,)
        The classes, sorted.
    report : FitReport or None, default=None
        Where the fold fits' reports are merged (None: nowhere).

    Returns
    -------
    callable
        ``predict(params, train, test)``: the encoded predictions for the labeled points at
        positions ``test`` (into ``labeled``), fitted with the labels at ``train`` only.
    """

    def predict(params, train, test):
        if np.unique(y_enc[train]).size < 2:
            return np.full(test.size, y_enc[train][0])
        est = clone(estimator).set_params(**params)
        y_fold = np.full(
            len(y),
            UNLABELED,
            dtype=np.asarray(y).dtype if np.asarray(y).dtype.kind not in "US" else object,
        )
        y_fold[labeled[train]] = np.asarray(y)[labeled[train]]
        est.fit(X, y_fold)
        if report is not None:
            report.merge(getattr(est, "fit_report_", None), prefix="cv: ")
        pred = np.asarray(est.transduction_)[labeled[test]]
        return np.searchsorted(classes, pred)

    return predict


def _delegates(wrapper, name):
    """Whether the wrapped estimator offers method ``name`` (the fitted best estimator
    once fitted, else the unfitted one)."""
    return hasattr(getattr(wrapper, "best_estimator_", wrapper.estimator), name)


class SelectOnLabeled(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Select an estimator's parameters by cross-validation on the labeled points only.

    The unlabeled points' labels are never looked at: a candidate is scored by
    cross-validation over the labeled points, where each fold's labels are hidden (its
    points stay in the data as unlabeled points) while the model is fitted with the
    others, and the fold's predicted labels are compared with its hidden labels; the
    score is the accuracy pooled over all validation points.  Among the candidates with
    the best score the *first* in grid order wins (the one tie rule, module docstring), and
    constant predictors are passed over while another candidate is left.  The selected
    candidate is refitted with all labels; ``predict``, ``decision_function``,
    ``predict_proba``, ``kernel_`` / ``kernel(A, B)`` delegate to it.

    Parameters
    ----------
    estimator : estimator
        An estimator of the package (a semi-supervised classifier).
    param_grid : dict or None, default=None
        Mapping parameter -> sequence of values, in preference order (ties go to the first
        candidate; see the module docstring).  ``None``: the estimator's default grid
        (``_selection``).
    n_folds : int, default=5
        Number of folds over the labeled points (>= 2; capped at their number).
    protocol : {"kfold", "one-fold-labeled"}, default="kfold"
        ``"kfold"`` fits on all folds but one and validates on it; ``"one-fold-labeled"``
        fits on one fold and validates on the others (Mao & Tsang, Sec. 5.2).
    random_state : int, RandomState instance or None, default=None
        Seed of the fold assignment (None: fresh folds at each fit; specs pass 0).

    Attributes
    ----------
    best_params_ : dict
        The selected candidate.
    best_index_ : int
        Its position among the candidates.
    best_score_ : float
        Its cross-validated accuracy (NaN with a single candidate).
    best_estimator_ : estimator
        The selected candidate refitted with all labels.
    cv_results_ : dict
        ``params``, ``mean_test_score``, ``rank_test_score`` (scikit-learn's names) and
        ``constant_predictor`` per candidate.
    passed_over_ : list of dict
        The constant predictors with a better score passed over, best score first.
    grid_edges_ : list of str
        The parameters whose selected value lies at the edge of a numeric grid.
    classes_ : ndarray of shape (n_classes,)
        The classes seen among the labeled points.
    transduction_ : ndarray of shape (n_samples,)
        The best estimator's labels of the training points.
    unreached_ : ndarray of int
        The best estimator's unreached points (none for a learner without a graph).
    kernel_ : ndarray of shape (n_samples, n_samples)
        The best estimator's learned kernel, where it learns one.
    label_distributions_ : ndarray of shape (n_samples, n_classes)
        The best estimator's ``label_distributions_``, where it defines them.
    fit_report_ : FitReport
        The best estimator's report, plus the fallbacks of the fold fits and the notes of
        the selection (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.

    See Also
    --------
    SelectOnLabeledRegressor : The same selection for the regressors.
    sklearn.model_selection.GridSearchCV : Cross-validation over all given labels.

    References
    ----------
    Q. Mao and I. W. Tsang. Parameter-free spectral kernel learning. In UAI, 2010:
    Sec. 5.2 (the ``"one-fold-labeled"`` protocol).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sskernels.learners import Consistency, SelectOnLabeled
    >>> X, y = load_wine(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> y_partial = np.full_like(y, -1)
    >>> y_partial[::10] = y[::10]                 # 18 labeled points, 160 unlabeled
    >>> search = SelectOnLabeled(Consistency(), {"alpha": [0.5, 0.9, 0.99]}, random_state=0)
    >>> search = search.fit(X, y_partial)
    >>> sorted(search.best_params_)
    ['alpha']
    >>> len(search.cv_results_["params"])
    3
    >>> unlabeled = y_partial == -1
    >>> bool((search.transduction_[unlabeled] == y[unlabeled]).mean() > 0.9)
    True
    >>> search.predict(X[[0, 100, 170]])
    array([0, 1, 2])
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "param_grid": [dict, None],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "protocol": [StrOptions(set(PROTOCOLS))],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, param_grid=None, n_folds=5, protocol="kfold", random_state=None):
        self.estimator = estimator
        self.param_grid = param_grid
        self.n_folds = n_folds
        self.protocol = protocol
        self.random_state = random_state

    def fit(self, X, y):
        """Score every candidate on the labeled points and refit the selected one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled, in the form the estimator takes.
        y : array-like of shape (n_samples,)
            Labels of the training points, ``-1`` for the unlabeled ones; at least two
            classes must be labeled.

        Returns
        -------
        self : object
            The fitted selection.
        """
        self._validate_params()
        grid = default_grid(self.estimator) if self.param_grid is None else dict(self.param_grid)
        cands = candidates(grid) if grid else [{}]
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        y_arr = column_or_1d(y, warn=True)  # a column vector: scikit-learn's warning, then 1-d
        check_consistent_length(X, y_arr)
        classes, labeled, y_enc = check_partial_labels(y_arr)
        cv_report = FitReport()
        constant = [False] * len(cands)
        if len(cands) > 1:
            fast = getattr(self.estimator, "_fold_predictor", None)
            predict = fast(X, labeled, y_enc, tuple(grid)) if fast is not None else None
            if predict is None:
                predict = generic_fold_predictor(
                    self.estimator, X, y_arr, labeled, y_enc, classes, report=cv_report
                )
            best, scores = score_candidates(
                cands,
                predict,
                y_enc,
                n_folds=self.n_folds,
                random_state=self.random_state,
                protocol=self.protocol,
                constant=constant,
            )
            cv_report.merge(getattr(predict, "report", None), prefix="cv: ")
        else:
            best, scores = 0, np.array([np.nan])
        best, self.best_estimator_ = self._refit(X, y_arr, labeled, cands, scores, constant, best)
        self.best_index_ = best
        self.best_params_ = dict(cands[best])
        self.best_score_ = float(scores[best])
        ranks = np.empty(len(scores), dtype=int)
        if np.all(np.isfinite(scores)):
            # scikit-learn's "min" ranking: tied candidates share the best rank
            ranks = np.array([1 + int(np.sum(scores > s)) for s in scores])
        else:
            ranks[:] = 1
        self.cv_results_ = {
            "params": cands,
            "mean_test_score": scores,
            "rank_test_score": ranks,
            "constant_predictor": np.asarray(constant, dtype=bool),
        }
        self.classes_ = self.best_estimator_.classes_
        self.fit_report_ = FitReport()
        self.fit_report_.merge(getattr(self.best_estimator_, "fit_report_", None))
        self._note_skipped(cands, scores, constant, best, labeled)
        # fold fits' fallbacks count (a solver that fell back while selecting); their
        # degenerate fits are part of scoring a candidate, not of the answer
        self.fit_report_.notes.extend(
            n for n in cv_report.fallbacks if n not in self.fit_report_.notes
        )
        if len(cands) > 1:
            self._note_edges(grid)
        if hasattr(self.best_estimator_, "n_features_in_"):
            self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    def _refit(self, X, y, labeled, cands, scores, constant, best):
        """Refit the selected candidate with all labels; ``(index, estimator)``.

        A refit whose transduction gives every unlabeled point one class (seen without
        their labels) is a constant predictor too: the next candidate by
        :func:`best_candidate` is refitted instead, until one is not; when every one is,
        the first choice stays.
        """
        fitted, skipped = {}, []
        while True:
            est = fitted.get(best)
            if est is None:
                est = fitted[best] = clone(self.estimator).set_params(**cands[best]).fit(X, y)
            if len(cands) == 1 or not _collapsed(est, labeled):
                return best, est
            skipped.append(best)
            nxt = best_candidate(scores, constant, skip=skipped)
            if nxt in skipped or constant[nxt]:
                return skipped[0], fitted[skipped[0]]
            best = nxt

    def _note_skipped(self, cands, scores, constant, best, labeled):
        """Record the constant predictors the selection passed over (``passed_over_``, best
        score first), or that it could not."""
        self.passed_over_ = []
        if len(cands) < 2:
            return
        order = sorted(range(len(cands)), key=lambda i: (-scores[i], i))
        self.passed_over_ = [dict(cands[i]) for i in order[: order.index(best)]]
        if self.passed_over_:
            # one text for every fit, so that a summary counts the fits it fired in
            self.fit_report_.note(
                "fallback",
                "selection: constant predictors with a better score passed over (passed_over_)",
            )
        if constant[best] or _collapsed(self.best_estimator_, labeled):
            self.fit_report_.note(
                "degenerate", "selection: no candidate escapes a constant prediction"
            )

    def _note_edges(self, grid):
        """A selected value at the edge of a numeric grid is worth knowing (not a fallback)."""
        edges = []
        for key, values in grid.items():
            nums = [
                v
                for v in values
                if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
            ]
            if len(nums) > 2 and self.best_params_[key] in (min(nums), max(nums)):
                edges.append(key)
        self.grid_edges_ = edges

    # -- delegation ---------------------------------------------------------
    @property
    def transduction_(self):
        """The best estimator's labels of the training points."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.transduction_

    @property
    def kernel_(self):
        """The best estimator's learned kernel on the training points (where it learns one)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.kernel_

    @property
    def unreached_(self):
        """The best estimator's unreached points (none for a learner without a graph)."""
        check_is_fitted(self, "best_estimator_")
        return getattr(self.best_estimator_, "unreached_", np.empty(0, dtype=int))

    def kernel(self, A=None, B=None):
        """The best estimator's learned kernel between point sets (where it learns one).

        Parameters
        ----------
        A : array-like of shape (n_a, n_features), default=None
            Points; None: as the best estimator's ``kernel`` takes it (the training points).
        B : array-like of shape (n_b, n_features), default=None
            Points; None: as the best estimator's ``kernel`` takes it.

        Returns
        -------
        ndarray of shape (n_a, n_b)
            ``best_estimator_.kernel(A, B)``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import SelectOnLabeled, TransductiveSpectralKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> sel = SelectOnLabeled(TransductiveSpectralKernel(), {"beta": [1.0, 10.0]}, random_state=0)
        >>> sel = sel.fit(X, y_partial)
        >>> sel.kernel(X[:2], X[:3]).shape
        (2, 3)
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.kernel(A, B)

    @available_if(lambda self: _delegates(self, "predict"))
    def predict(self, X):
        """The best estimator's labels of new points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points, in the form the estimator takes.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,)
            Predicted labels.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    @available_if(lambda self: _delegates(self, "decision_function"))
    def decision_function(self, X):
        """The best estimator's decision values of new points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points, in the form the estimator takes.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            The best estimator's ``decision_function(X)``.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    @available_if(lambda self: _delegates(self, "predict_proba"))
    def predict_proba(self, X):
        """The best estimator's class probabilities (where it defines them).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points, in the form the estimator takes.

        Returns
        -------
        proba : ndarray of shape (n_queries, n_classes)
            The best estimator's ``predict_proba(X)``.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    @property
    def label_distributions_(self):
        """The best estimator's ``label_distributions_`` (where it defines them)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.label_distributions_

    def precompute(self, X):
        """The estimator's label-independent work, for every grid value that changes it.

        An estimator lists such parameters in ``_precompute_params`` (e.g. a kernel
        width: each width has its own basis); the others share one precomputation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points.

        Returns
        -------
        object or None
            What the estimator's ``precompute(X)`` returns (for the last candidate when several
            are precomputed), or None for an estimator without ``precompute``.
        """
        pre = getattr(self.estimator, "precompute", None)
        if pre is None:
            return None
        grid = self.param_grid or {}
        names = [k for k in grid if k in getattr(self.estimator, "_precompute_params", ())]
        if not names:
            return pre(X)
        out = None
        for cand in candidates({k: grid[k] for k in names}):
            out = clone(self.estimator).set_params(**cand).precompute(X)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            tags.input_tags.sparse = self.estimator.__sklearn_tags__().input_tags.sparse
        except AttributeError:
            pass
        return tags


def _collapsed(est, labeled):
    """Whether a fitted classifier gives every unlabeled point (two or more) one class."""
    trans = np.asarray(getattr(est, "transduction_", ()))
    unl = np.setdiff1d(np.arange(trans.size), labeled)
    return unl.size > 1 and np.unique(trans[unl]).size == 1


# ------------------------------------------------------------------------------- regression


def regression_folds(n, n_folds=5, random_state=0):
    """Shuffled K-fold over ``n`` labeled points (positions), ``n_folds`` capped at n.

    Parameters
    ----------
    n : int
        The number of labeled points.
    n_folds : int, default=5
        The number of folds (at least 2, at most n).
    random_state : int, RandomState instance or None, default=0
        Seed of the shuffle.

    Returns
    -------
    list of ndarray of int
        The validation positions of each fold.

    Examples
    --------
    >>> from sskernels.learners.selection import regression_folds
    >>> [f.size for f in regression_folds(5, n_folds=2)]
    [3, 2]
    """
    cv = KFold(max(2, min(n_folds, n)), shuffle=True, random_state=random_state)
    return [test for _, test in cv.split(np.zeros(n))]


def generic_regression_fold_predictor(estimator, X, labeled, Y_L):
    """The generic fold rule for regressors: clone, set the candidate, fit with the fold hidden.

    The targets of the fold are hidden (NaN); the predictions are ``transduction_`` at the
    fold.

    Parameters
    ----------
    estimator : estimator
        The unfitted regressor (it is cloned for each fit).
    X : array-like of shape (n_samples, n_features)
        The training points.
    labeled : ndarray of int of shape (l,)
        Positions of the labeled points.
    Y_L : ndarray of shape (l, k)
        Their targets.

    Returns
    -------
    callable
        ``predict(params, train, test)``: the (len(test), k) predictions for the labeled
        points at positions ``test`` (into ``labeled``), fitted with the targets at ``train``
        only.
    """

    def predict(params, train, test):
        est = clone(estimator).set_params(**params)
        Y = np.full((X.shape[0], Y_L.shape[1]), np.nan)
        Y[labeled[train]] = Y_L[train]
        est.fit(X, Y)
        return np.asarray(est.transduction_).reshape(X.shape[0], -1)[labeled[test]]

    return predict


class SelectOnLabeledRegressor(MetaEstimatorMixin, RegressorMixin, BaseEstimator):
    """:class:`SelectOnLabeled` for the semi-supervised REGRESSORS (NaN = unlabeled target).

    The same protocols, grid order and tie rule (the first candidate in grid order among the
    best wins); the score of a candidate is minus the mean squared error pooled over all
    validation points and targets (``mean_test_score``: scikit-learn's "higher is better"
    sign).  Folds are shuffled K-fold (no classes to stratify).  An estimator may offer
    ``_fold_predictor(X, labeled, Y_L, keys)`` returning ``predict(params, train, test)``,
    the (test, k) predicted targets — equal to the generic rule, faster.

    Parameters
    ----------
    estimator : estimator
        A semi-supervised regressor of the package.
    param_grid : dict or None, default=None
        Mapping parameter -> sequence of values, in preference order.  ``None``: the
        estimator's default grid (``_selection``).
    n_folds : int, default=5
        Number of folds over the labeled points (>= 2; capped at their number).
    protocol : {"kfold", "one-fold-labeled"}, default="kfold"
        ``"kfold"`` fits on all folds but one and validates on it; ``"one-fold-labeled"``
        fits on one fold and validates on the others (Mao & Tsang, Sec. 5.2).
    random_state : int, RandomState instance or None, default=None
        Seed of the fold assignment (None: fresh folds at each fit; specs pass 0).

    Attributes
    ----------
    best_params_ : dict
        The selected candidate.
    best_index_ : int
        Its position among the candidates.
    best_score_ : float
        Its score, minus the pooled mean squared error (NaN with a single candidate).
    best_estimator_ : estimator
        The selected candidate refitted with all targets.
    cv_results_ : dict
        ``params``, ``mean_test_score``, ``rank_test_score`` per candidate.
    labeled_ : ndarray of shape (n_labeled,)
        Positions of the labeled points (finite targets).
    transduction_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The best estimator's predicted targets of the training points.
    fit_report_ : FitReport
        The best estimator's report (:class:`~sskernels.solvers.report.FitReport`).
    n_features_in_ : int
        Number of features seen during ``fit``.

    See Also
    --------
    SelectOnLabeled : The same selection for the classifiers.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners import SelectOnLabeledRegressor, SVRBaseline
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(100, 2))
    >>> y = np.sin(3 * X[:, 0]) + X[:, 1]
    >>> y_partial = np.full_like(y, np.nan)
    >>> y_partial[::5] = y[::5]                   # 20 labeled points, NaN = unlabeled
    >>> search = SelectOnLabeledRegressor(SVRBaseline(), {"C": [0.1, 1.0, 10.0]}, random_state=0)
    >>> search = search.fit(X, y_partial)
    >>> sorted(search.best_params_)
    ['C']
    >>> search.transduction_.shape
    (100,)
    >>> search.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: dict = dict(SelectOnLabeled._parameter_constraints)
    __init__ = SelectOnLabeled.__init__  # the same parameters

    def fit(self, X, y):
        """Score every candidate on the labeled points and refit the selected one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, labeled and unlabeled.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            The targets; NaN (a row of NaN for several targets) marks an unlabeled point.
            At least two points must be labeled.

        Returns
        -------
        self : object
            The fitted selection.
        """
        from sklearn.utils.validation import check_array

        from sskernels.learners.base import labeled_rows

        self._validate_params()
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        grid = default_grid(self.estimator) if self.param_grid is None else dict(self.param_grid)
        cands = candidates(grid) if grid else [{}]
        y_arr = check_array(
            y, ensure_2d=False, dtype=np.float64, ensure_all_finite="allow-nan", input_name="y"
        )
        check_array(X, dtype=None, ensure_min_samples=2)  # scikit-learn's "1 sample" message
        check_consistent_length(X, y_arr)
        Y = y_arr.reshape(len(y_arr), -1)
        labeled = labeled_rows(Y)
        if labeled.size < 2:
            raise ParameterError("semi-supervised regression needs at least 2 labeled points")
        Y_L = Y[labeled]
        if len(cands) > 1:
            fast = getattr(self.estimator, "_fold_predictor", None)
            X_arr = check_array(X, dtype=np.float64)
            predict = fast(X_arr, labeled, Y_L, tuple(grid)) if fast is not None else None
            if predict is None:
                predict = generic_regression_fold_predictor(self.estimator, X_arr, labeled, Y_L)
            folds = regression_folds(labeled.size, self.n_folds, self.random_state)
            pos = np.arange(labeled.size)
            scores = []
            for cand in cands:
                sq = total = 0.0
                for fold in folds:
                    rest = np.setdiff1d(pos, fold)
                    train, test = (
                        (fold, rest) if self.protocol == "one-fold-labeled" else (rest, fold)
                    )
                    err = np.asarray(predict(cand, train, test)).reshape(test.size, -1) - Y_L[test]
                    sq += float(np.sum(err**2))
                    total += err.size
                scores.append(-sq / total)
            scores = np.asarray(scores)
            best = int(np.flatnonzero(scores == scores.max())[0])
        else:
            best, scores = 0, np.array([np.nan])
        self.best_index_, self.best_params_ = best, dict(cands[best])
        self.best_score_ = float(scores[best])
        ranks = (
            np.array([1 + int(np.sum(scores > s)) for s in scores])
            if np.all(np.isfinite(scores))
            else np.ones(len(scores), dtype=int)
        )
        self.cv_results_ = {"params": cands, "mean_test_score": scores, "rank_test_score": ranks}
        self.best_estimator_ = clone(self.estimator).set_params(**self.best_params_).fit(X, y)
        self.labeled_ = labeled
        self.fit_report_ = FitReport()
        self.fit_report_.merge(getattr(self.best_estimator_, "fit_report_", None))
        if hasattr(self.best_estimator_, "n_features_in_"):
            self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    @property
    def transduction_(self):
        """The best estimator's predicted targets of the training points."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.transduction_

    def predict(self, X):
        """The best estimator's targets of new points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_targets)
            Predicted targets.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    precompute = SelectOnLabeled.precompute

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


def flatten(est):
    """``(estimator, grid)``: ``est`` without its ``SelectOnLabeled`` wrappers, their grids joined.

    Nested grids come first (their parameter names prefixed, scikit-learn style:
    ``kernel_learner__b_scale``), then the outer wrapper's.  ``est`` is not modified.

    Parameters
    ----------
    est : estimator
        An estimator, possibly a :class:`SelectOnLabeled` wrapper, whose parameters may hold
        wrapped estimators.

    Returns
    -------
    estimator : estimator
        A clone of the innermost estimator, its wrapped parameters unwrapped.
    grid : dict
        The joined grids (a wrapper without ``param_grid``: its estimator's default grid).

    Examples
    --------
    >>> from sskernels.learners import LapRLS, SelectOnLabeled
    >>> est, grid = flatten(SelectOnLabeled(LapRLS(), {"gamma_A": [0.01, 0.1]}))
    >>> type(est).__name__, grid
    ('LapRLS', {'gamma_A': [0.01, 0.1]})
    """
    outer = {}
    if isinstance(est, SelectOnLabeled):
        outer = dict(est.param_grid if est.param_grid is not None else default_grid(est.estimator))
        est = est.estimator
    est = clone(est)
    inner = {}
    for key, value in est.get_params(deep=False).items():
        if isinstance(value, BaseEstimator):
            sub, sub_grid = flatten(value)
            if sub_grid:
                est.set_params(**{key: sub})
                inner.update({f"{key}__{k}": v for k, v in sub_grid.items()})
    return est, {**inner, **outer}
