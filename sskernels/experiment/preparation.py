"""A spec's data made ready for its tasks: loaded, checked, split and fingerprinted.

:func:`prepare` loads the data set (:mod:`sskernels.data`), checks the spec against it, each
error one line naming the spec's field (:func:`check_holdout`, :func:`check_sizes`: the
held-out fraction, the labeled points and every k-NN graph's k against the points the learners
see), draws the labeled points of every split (:mod:`sskernels.experiment.splits`) and hashes
the content of what the tasks will see (:class:`Prepared`'s ``data_fingerprint``).  Nothing
here depends on a method's code.

Examples
--------
>>> from sskernels.experiment.preparation import prepare
>>> from sskernels.spec import parse_spec
>>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
...                    "splits": {"n_splits": 2, "n_labeled": [10, 20]},
...                    "methods": ["harmonic"], "output": "/tmp/sskernels-doctest-prepare"})
>>> prep = prepare(spec)
>>> prep.X.shape, [label for label, _ in prep.settings], prep.n_splits
((178, 13), ['10 labeled', '20 labeled'], 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from sskernels.errors import SpecError, UserError
from sskernels.experiment.identity import data_fingerprint
from sskernels.experiment.plan import build
from sskernels.experiment.splits import SplitError, make_splits, regression_splits


@dataclass
class Prepared:
    spec: object
    X: object  # the points the learners see (labeled + unlabeled)
    y: np.ndarray  # encoded 0..c-1
    classes: np.ndarray
    settings: list  # [(setting label, [labeled index arrays])]
    X_test: object = None  # held-out unseen points (splits.holdout > 0)
    y_test: np.ndarray = None
    graph_seconds: float = 0.0
    data_fingerprint: str = None  # content hash of X, y, classes, held-out part, official splits
    keys: list = None  # the record key of each of spec.methods (see record_keys)
    codes: list = None  # each method's code: {"code": key, "modules": {...}}
    provenance: dict = None  # sskernels.provenance.provenance() of the parent process
    task: str = "classification"  # or "regression": y (n, k) float targets, metrics rmse/mse
    pool: np.ndarray = None  # regression: the rows labeled points are drawn from; its
    # rows not drawn in a split are that split's test points
    runs: list = None  # each method's plan.MethodRun (its unfitted estimator)
    X_extra: object = None  # further points, never labeled nor evaluated (secstr-extra):
    # every method is fitted on X and these (plan.build)

    @property
    def n_splits(self):
        return len(self.settings[0][1])


def load_data(spec):
    """The spec's data set, preprocessed: ``(X, y)`` and the official splits if any.

    A registered data set (:func:`sskernels.data.load_dataset`) or the spec's data file
    (:func:`sskernels.data.load_file`), with the spec's ``preprocess``.

    Parameters
    ----------
    spec : Spec
        The experiment spec (its ``dataset`` and ``preprocess``).

    Returns
    -------
    Dataset
        The data set (:class:`sskernels.data.Dataset`): ``X``, ``y``, ``splits`` and the
        rest.

    Raises
    ------
    DataError
        For a file that cannot be fetched, verified or parsed
        (:class:`~sskernels.errors.DataError`).
    UnknownNameError
        For an unknown data set or preprocessing
        (:class:`~sskernels.errors.UnknownNameError`).

    Examples
    --------
    >>> from sskernels.experiment import load_data
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "methods": ["harmonic"]})
    >>> ds = load_data(spec)
    >>> ds.X.shape, float(ds.X.max()), sorted(set(ds.y.tolist()))
    ((178, 13), 1.0, [0, 1, 2])
    """
    from sskernels import data

    d = spec.dataset
    if d.file is not None:
        ds = data.load_file(d.file, format=d.format, label=d.label, preprocess=spec.preprocess)
    else:
        ds = data.load_dataset(d.name, preprocess=spec.preprocess)
    return ds


def holdout_split(y, fraction, seed):
    """Seeded stratified split into (seen, unseen) indices; unseen is ``fraction`` of the points.

    scikit-learn's ``train_test_split``: ``ceil(fraction n)`` unseen points, stratified by
    ``y``.

    Parameters
    ----------
    y : numpy.ndarray of shape (n_samples,)
        The labels (the strata).
    fraction : float
        The share of unseen points, in (0, 1).
    seed : int
        The seed (``random_state``).

    Returns
    -------
    seen : numpy.ndarray
        The seen points' indices, sorted.
    unseen : numpy.ndarray
        The unseen points' indices, sorted.
    """
    from sklearn.model_selection import train_test_split

    idx = np.arange(y.size)
    seen, unseen = train_test_split(idx, test_size=fraction, random_state=seed, stratify=y)
    return np.sort(seen), np.sort(unseen)


def prepare(spec, n_splits=None):
    """A spec's data loaded, checked, split and fingerprinted: the state its tasks run on.

    The data set is loaded (:func:`load_data`) and must be of the spec's task; a regression
    data set is prepared by :func:`prepare_regression`.  For a classification data set the
    labels are encoded ``0..c-1`` in sorted order; with ``splits.holdout`` a stratified,
    seeded part is held out (:func:`holdout_split`: the unseen points).  The spec's sizes are
    checked against the points the learners see (:func:`check_holdout`, :func:`check_sizes`),
    each error one line naming the spec's field, then every setting's labeled points are
    drawn (:func:`~sskernels.experiment.splits.make_splits`), the content of what the tasks
    will see is hashed (``data_fingerprint``) and the points are frozen (:func:`frozen`).

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    n_splits : int, default=None
        The number of splits drawn per setting; None: the spec's ``splits.n_splits``.

    Returns
    -------
    Prepared
        The data, labels, classes, settings ``[(label, [labeled index arrays])]``, held-out
        part and data fingerprint.

    Raises
    ------
    UserError
        For a data set of another task, ``splits.cover: groups`` on data without groups, a
        holdout with official splits, or splits that cannot be drawn (one line naming the
        spec's field).
    SpecError
        For sizes the data cannot give (:func:`check_holdout`, :func:`check_sizes`).
    DataError
        For data that cannot be loaded (:func:`load_data`).

    Examples
    --------
    >>> from sskernels.experiment import prepare
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine",
    ...                    "splits": {"n_splits": 3, "n_labeled": [10], "holdout": 0.2},
    ...                    "methods": ["harmonic"]})
    >>> prep = prepare(spec)
    >>> prep.X.shape, prep.X_test.shape, prep.n_splits, prep.settings[0][0]
    ((142, 13), (36, 13), 3, '10 labeled')
    >>> [len(s) for s in prep.settings[0][1]], prep.X.flags.writeable
    ([10, 10, 10], False)
    """
    ds = load_data(spec)
    task = getattr(ds, "task", "classification")
    if task != getattr(spec, "task", "classification"):
        raise UserError(
            f"{spec.path}: field 'dataset': expected a "
            f"{getattr(spec, 'task', 'classification')} data set, got {ds.name} "
            f"(a {task} data set)"
        )
    if task == "regression":
        return prepare_regression(spec, ds, n_splits)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    s = spec.splits
    X, X_test, y_test, official = ds.X, None, None, ds.splits
    groups = getattr(ds, "groups", None)
    if s.cover == "groups" and groups is None:
        raise UserError(
            f"{spec.path}: field 'splits.cover': expected classes ("
            f"{spec.dataset.display} carries no subclasses (groups)), got 'groups'"
        )
    if s.holdout > 0:
        if s.protocol == "official":
            raise UserError(f"{spec.path}: field 'splits.holdout': expected 0 with official splits")
        check_holdout(spec, y.size, classes.size)
        seen, unseen = holdout_split(y, s.holdout, s.seed)
        X, X_test, y_test, y = ds.X[seen], ds.X[unseen], y[unseen], y[seen]
        groups = None if groups is None else groups[seen]
    check_sizes(spec, y.size, ds.X.shape[0])
    settings = []
    labels = setting_labels(spec)
    try:
        for i, n_lab in enumerate(s.n_labeled):
            field_ = f"splits.per_class[{i}]" if s.per_class else "splits"
            splits = make_splits(
                y,
                s.protocol,
                n_splits or s.n_splits,
                n_lab,
                s.seed,
                official=official,
                per_class=s.per_class[i] if s.per_class else None,
                groups=groups if s.cover == "groups" else None,
                classes=classes,
            )
            label = f"official {len(splits[0])} labeled" if s.protocol == "official" else labels[i]
            settings.append((label, splits))
    except SplitError as exc:
        field_ = field_ if exc.field == "splits.per_class" else exc.field
        raise UserError(f"{spec.path}: field '{field_}': {exc}") from None
    except ValueError as exc:
        raise UserError(f"{spec.path}: field 'splits': {exc}") from None
    # groups decide the splits of cover: groups; data sets without groups keep their fingerprint
    extra = (X_test, y_test, official) + (() if groups is None else (groups,))
    X_extra = getattr(ds, "X_extra", None)
    if X_extra is not None:  # data sets without extra points keep their fingerprint
        extra += (X_extra,)
    fp = data_fingerprint(X, y, classes, extra=extra)
    return Prepared(
        spec,
        frozen(X),
        y,
        classes,
        settings,
        X_test,
        y_test,
        data_fingerprint=fp,
        X_extra=frozen(X_extra),
    )


def _held_out(n, fraction):
    """The number of held-out points of ``n`` (scikit-learn's rounding: ``ceil(fraction n)``)."""
    return int(np.ceil(fraction * n)) if fraction else 0


def _points(spec, n, n_all):
    """'the 142 training points of wine (178 points, 36 held out by splits.holdout = 0.2)'."""
    name = spec.dataset.display
    if n == n_all:
        return f"the {n} points of {name}"
    return (
        f"the {n} training points of {name} ({n_all} points, {n_all - n} held out by "
        f"splits.holdout = {spec.splits.holdout:g})"
    )


def check_holdout(spec, n, n_classes):
    """Refuse, naming ``splits.holdout``, a held-out fraction the data set cannot give.

    The rule: the ``ceil(holdout n)`` held-out points are drawn stratified by class, so they
    hold at least one point per class; the other points, the training part, hold at least
    one point per class too, and every labeled point of the largest setting
    (``splits.n_labeled``) plus one unlabeled point.  A setting that does not fit in the
    ``n`` points even without a holdout is ``splits.n_labeled``'s error (:func:`check_sizes`).

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    n : int
        The points of the data set (before the holdout).
    n_classes : int
        Its number of classes.

    Raises
    ------
    SpecError
        On the field ``splits.holdout``, when the fraction does not fit.
    """
    s = spec.splits
    n_test = _held_out(n, s.holdout)
    n_train = n - n_test
    largest = max(s.n_labeled) if s.protocol != "official" else 0
    need = max(n_classes, largest + 1) if largest < n else n_classes
    if n_test < n_classes or n_train < need:
        raise SpecError(
            spec.path,
            "splits.holdout",
            f"a fraction that holds out at least "
            f"one point per class ({n_classes}) and leaves at least {need} training "
            f"points (the largest n_labeled, {largest}, and one unlabeled point; "
            f"one per class): this one holds out {n_test} and leaves {n_train} of "
            f"the {n} points of {spec.dataset.display}",
            s.holdout,
        )


def check_sizes(spec, n, n_all):
    """The spec's sizes against the ``n`` points the learners see, before any fit.

    ``n_all`` is the number of points before the holdout.  This runs before any graph is built
    or any method fitted: each setting's labeled points leave at least one unlabeled point
    (``splits.n_labeled`` or ``splits.per_class[i]``), and every k-NN graph has fewer
    neighbours than points (:func:`check_neighbours`).

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    n : int
        The points the learners see.
    n_all : int
        The points of the data set, before the holdout (named in the message).

    Raises
    ------
    SpecError
        On the field at fault, when a size does not fit.
    UserError
        For a method whose parameters its estimator refuses (:func:`check_neighbours`).
    """
    s = spec.splits
    if s.protocol != "official":
        for i, n_lab in enumerate(s.n_labeled):
            if n_lab >= n:
                field_ = f"splits.per_class[{i}]" if s.per_class else "splits.n_labeled"
                raise SpecError(
                    spec.path,
                    field_,
                    f"fewer labeled points than "
                    f"{_points(spec, n, n_all)} (at least one must stay "
                    f"unlabeled)",
                    s.per_class[i] if s.per_class else n_lab,
                )
    check_neighbours(spec, n, n_all)


def check_neighbours(spec, n, n_all=None):
    """Every k-NN graph of the spec's methods has fewer neighbours than the ``n`` points.

    The ``n`` points are those the graph is built on; the field at fault, ``graph.k`` or a
    method's own ``params.n_neighbors``, is named when not.

    Parameters
    ----------
    spec : Spec
        The experiment spec; each method's estimator is built (:func:`build`) and its k-NN
        graph builders, nested ones included, checked.
    n : int
        The points the graphs are built on.
    n_all : int, default=None
        The points of the data set before the holdout (named in the message); None: ``n``.

    Raises
    ------
    SpecError
        On ``graph.k``, or on ``methods[i].params.<path>`` of a method's own
        ``n_neighbors``, when ``k >= n``.
    UserError
        For a method whose parameters its estimator refuses (``ValueError``,
        ``TypeError``), naming the method.
    """
    for i, method in enumerate(spec.methods):
        try:
            est = build(spec, method)
        except (ValueError, TypeError) as exc:
            raise UserError(f"{spec.path}: methods[{i}] ({method.label}): {exc}") from None
        for k in _neighbour_counts(est):
            if k >= n:
                own = _param_path(method.params, "n_neighbors")
                field_ = f"methods[{i}].params.{own}" if own else "graph.k"
                raise SpecError(
                    spec.path,
                    field_,
                    f"fewer neighbours than "
                    f"{_points(spec, n, n if n_all is None else n_all)} (a k-NN "
                    f"graph needs k < n)",
                    k,
                )


def _neighbour_counts(est):
    """The ``n_neighbors`` of every k-NN graph builder in ``est`` (nested ones included)."""
    from sskernels.graph import KNNGraph

    found = [est] + (list(est.get_params(deep=True).values()) if hasattr(est, "get_params") else [])
    return sorted({int(g.n_neighbors) for g in found if isinstance(g, KNNGraph)})


def _param_path(params, key):
    """The dotted path of ``key`` in a method's ``params`` (nested mappings), or None."""
    for name, value in params.items():
        if name == key:
            return name
        if isinstance(value, dict):
            sub = _param_path(value, key)
            if sub is not None:
                return f"{name}.{sub}"
    return None


def frozen(X):
    """A read-only copy of dense X (X itself if sparse, or not a numpy array).

    No learner may edit the data, and :func:`sskernels.graph.fingerprint` hashes a frozen
    array once, not on every fit.

    Parameters
    ----------
    X : numpy.ndarray or sparse matrix
        The points.

    Returns
    -------
    numpy.ndarray or sparse matrix
        A copy of ``X`` that cannot be written, or ``X`` itself.
    """
    if sp.issparse(X) or not isinstance(X, np.ndarray):
        return X
    X = np.array(X, copy=True)
    X.setflags(write=False)
    return X


def scale_targets(Y, how):
    """Regression targets (n, k) as the spec asks, as floats.

    ``None``/``"none"`` as stored, ``"minmax"`` each column to [0, 1] over all n rows (the
    data set's extent, e.g. the WiFi floor's, known without any label of a split; a constant
    column becomes 0).

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_targets)
        The targets.
    how : str or None
        None or ``"none"``: as stored; ``"minmax"`` (any other value scales as ``"minmax"``).

    Returns
    -------
    numpy.ndarray
        The targets, float.
    """
    Y = np.asarray(Y, dtype=float)
    if how in (None, "none"):
        return Y
    lo, span = Y.min(axis=0), np.ptp(Y, axis=0)
    return (Y - lo) / np.where(span > 0, span, 1.0)


def prepare_regression(spec, ds, n_splits=None):
    """A regression data set prepared: targets scaled, labeled points drawn from the pool.

    The targets are scaled (``spec.target_scale``), labeled points drawn from
    the pool (the rows of the data set's official split, e.g. WiFi's 505 'src' points; every
    row without one), the pool's other rows are the test points, and every row outside the
    pool (WiFi's 2137 'tar' points) is an unlabeled point that is never evaluated.

    Parameters
    ----------
    spec : Spec
        A regression spec.
    ds : Dataset
        Its data set (:func:`load_data`).
    n_splits : int, default=None
        The number of splits drawn per setting; None: the spec's ``splits.n_splits``.

    Returns
    -------
    Prepared
        ``task="regression"``: ``y`` the scaled targets (n, k), ``pool`` the pool's rows.

    Raises
    ------
    UserError
        On ``splits.n_labeled``, for a setting outside 2 to the pool's size minus one; for a
        method whose parameters its estimator refuses (:func:`check_neighbours`).
    SpecError
        For a k-NN graph with as many neighbours as points (:func:`check_neighbours`).
    """
    Y = scale_targets(ds.y, getattr(spec, "target_scale", None))
    Y = Y.reshape(len(Y), -1)
    pool = np.asarray(ds.splits[0]) if ds.splits else np.arange(len(Y))
    s = spec.splits
    settings, labels = [], setting_labels(spec)
    for i, n_lab in enumerate(s.n_labeled):
        if not 2 <= n_lab < pool.size:
            raise UserError(
                f"{spec.path}: field 'splits.n_labeled': expected 2 to {pool.size - 1} "
                f"(the labeled pool of {ds.name} has {pool.size} points; the others "
                f"are the test points), got {n_lab}"
            )
        settings.append((labels[i], regression_splits(pool, n_lab, n_splits or s.n_splits, s.seed)))
    check_neighbours(spec, ds.X.shape[0])
    fp = data_fingerprint(ds.X, np.zeros(0, dtype=np.int64), [], extra=(Y, [pool]))
    return Prepared(
        spec, ds.X, Y, np.array([]), settings, data_fingerprint=fp, task="regression", pool=pool
    )


def setting_labels(spec):
    """The settings' labels, without loading the data (official splits: read from records).

    ``"N labeled"``; for protocol per-class the counts in sorted label order, e.g.
    ``"10/20 labeled"`` (the record's ``n_labeled`` is their sum, 30).

    Parameters
    ----------
    spec : Spec
        The experiment spec.

    Returns
    -------
    list of str or None
        One label per setting; None for the official splits (their sizes are the data's).

    Examples
    --------
    >>> from sskernels.experiment import setting_labels
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine",
    ...                    "splits": {"n_labeled": [10, 20]}, "methods": ["harmonic"]})
    >>> setting_labels(spec)
    ['10 labeled', '20 labeled']
    """
    s = spec.splits
    if s.protocol == "official":
        return None
    if s.per_class:
        return ["/".join(map(str, counts)) + " labeled" for counts in s.per_class]
    return [f"{n} labeled" for n in s.n_labeled]
