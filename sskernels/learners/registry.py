"""The methods a spec can name: factory, paper, equation, inductive or not.

The registered methods (:data:`METHODS`, one :class:`MethodInfo` each) are listed in
:mod:`sskernels.learners.catalog`; this module finds them by name (:func:`get_method`) and
builds a spec's estimator (:func:`make_method`).  Beside the registered methods, a spec or the command line may name a
user's estimator (:func:`user_method`): any scikit-learn-compatible classifier that takes
``-1`` for unlabeled points, given by its import path ``"package.module:Class"`` or by a
name registered in the entry-point group ``sskernels.methods`` (:data:`ENTRY_POINT_GROUP`)
of an installed distribution.
"""

from __future__ import annotations

import re

from sskernels.errors import ParameterError, UnknownNameError
from sskernels.learners.catalog import (  # noqa: F401 - the catalog, re-exported
    ALIASES,
    METHODS,
    MethodInfo,
    _lazy,
    _sk,
    method_names,
)


#: the entry-point group of installed distributions' methods: ``name = "module:Class"``
ENTRY_POINT_GROUP = "sskernels.methods"


def get_method(name):
    """The :class:`MethodInfo` of a registered method, an alias, or a user's estimator.

    A user's estimator is named by its import path ``"module:Class"`` or an entry point's
    name (:func:`user_method`).

    An unknown name raises :class:`~sskernels.errors.UnknownNameError` with the closest
    known names ("did you mean ...?") and the list of methods.

    Parameters
    ----------
    name : str
        A registered name, an alias, ``"package.module:Class"`` or an entry point's name.

    Returns
    -------
    MethodInfo
        The method's entry.

    Raises
    ------
    UnknownNameError
        For an unknown name.
    ValueError
        For a user's estimator that cannot be imported or has no ``fit``
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> from sskernels.learners.registry import get_method
    >>> get_method("tsk").description, get_method("spectral-graph-kernel").name
    ('transductive spectral kernel', 'osk')
    >>> get_method("tks")
    Traceback (most recent call last):
    ...
    sskernels.errors.UnknownNameError: unknown method 'tks'; did you mean 'tsk'? known methods: ...
    """
    info = METHODS.get(ALIASES.get(name, name))
    if info is not None:
        return info
    if isinstance(name, str) and (":" in name or name in entry_point_methods()):
        return user_method(name)
    import difflib

    known = sorted(set(METHODS) | set(ALIASES) | set(entry_point_methods()))
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    raise UnknownNameError(
        f"unknown method {name!r}; {hint}known methods: "
        f"{', '.join(method_names())} (or a user's estimator as "
        f"'package.module:Class')"
    )


def entry_point_methods():
    """``{name: "module:Class"}`` of the installed distributions' entry points of group
    :data:`ENTRY_POINT_GROUP` (registered names win over them)."""
    from importlib.metadata import entry_points

    return {
        ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in METHODS
    }


def user_method(name):
    """The :class:`MethodInfo` of a user's estimator.

    ``name`` is an import path ``"package.module:Class"`` or an entry point's name
    (:func:`entry_point_methods`).

    The class is imported now: one that cannot be imported, or that has no ``fit``, raises
    :class:`~sskernels.errors.ParameterError` naming it.  Its parameters are passed as
    given (no graph, no default selection); it is inductive when it has ``predict``.

    Parameters
    ----------
    name : str
        ``"package.module:Class"`` or the name of an entry point of group
        :data:`ENTRY_POINT_GROUP`.

    Returns
    -------
    MethodInfo
        The entry of the user's estimator (``user=True``, ``uses_graph=False``).

    Raises
    ------
    ValueError
        For a path without ``module:Class`` form, a class that cannot be imported, or one
        without ``fit`` (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).
    KeyError
        For a name without ``":"`` that is no entry point's name.

    Examples
    --------
    >>> from sskernels.learners.registry import user_method
    >>> info = user_method("sklearn.semi_supervised:LabelSpreading")
    >>> info.user, info.inductive, info.uses_graph
    (True, True, False)
    """
    path = name if ":" in name else entry_point_methods()[name]
    module, _, attr = path.partition(":")
    if not module or not attr:
        raise ParameterError(f"method {name!r}: expected an import path 'package.module:Class'")
    factory = _lazy(module, attr)
    try:
        cls = factory.cls
    except Exception as exc:  # the user's module: any import failure is theirs
        raise ParameterError(
            f"method {name!r}: cannot import {path} ({type(exc).__name__}: {exc})"
        ) from None
    if not callable(getattr(cls, "fit", None)):
        raise ParameterError(
            f"method {name!r}: {path} has no fit method (expected a "
            "scikit-learn classifier taking -1 for unlabeled points)"
        )
    return MethodInfo(
        name,
        factory,
        "user estimator",
        path,
        callable(getattr(cls, "predict", None)),
        f"user estimator {path}",
        uses_graph=False,
        user=True,
    )


#: graph parameters of a spec (``graph:`` section), turned into ``graph=KNNGraph(...)``
GRAPH_KEYS = ("n_neighbors", "weights", "sigma", "metric", "method")
#: spec parameters of the model-selection wrapper (old names on the right map to new ones)
WRAPPER_KEYS = {
    "n_folds": "n_folds",
    "cv_folds": "n_folds",
    "beta_folds": "n_folds",
    "C_folds": "n_folds",
    "cv_protocol": "protocol",
    "protocol": "protocol",
}
_PROTOCOL_NAMES = {"standard": "kfold", "kfold": "kfold", "one-fold-labeled": "one-fold-labeled"}


#: the ``random_state`` of a spec's estimators and selection wrapper when the spec names none
SPEC_SEED = 0


def make_method(name, **params):
    """An unfitted estimator for a registered method name and a spec's parameters.

    The spec's parameters map onto one estimator and, where a parameter is
    selected, the model-selection wrapper
    (:class:`~sskernels.learners.selection.SelectOnLabeled`; for a regressor
    :class:`~sskernels.learners.selection.SelectOnLabeledRegressor`):

    * ``n_neighbors``, ``weights``, ``sigma``, ``metric`` -> ``graph=KNNGraph(...)``
      for estimators that take a graph (ignored by the others);
    * ``P: auto`` -> select P over the method's default grid (its class's
      ``_selection``); for a parameter without a grid, ``auto`` means the
      estimator's default (and switches on a selection it disables, e.g. the
      width scale when ``kernel_width`` is not fixed);
    * ``P_grid: [...]`` or ``P: [...]`` (P selectable) -> select P over that grid,
      put in the method's preference order;
    * a parameter in the class's ``_selection`` that the spec does not set is
      selected over its default grid (the paper's choices recorded there);
    * ``n_folds`` (old: ``cv_folds``, ``beta_folds``, ``C_folds``), ``cv_protocol``
      (``standard`` = ``kfold``, ``one-fold-labeled``), ``random_state`` -> the wrapper and
      the estimator (when it takes one; :data:`SPEC_SEED` = 0 when the spec names none,
      although the estimators default to None);
    * a class may define ``_spec_params(params, make_learner, graph_given)`` to map nested
      specs (``kernel-svm``: ``kernel`` + ``kernel_params`` -> ``kernel_learner``).

    scikit-learn's peers (``label-spreading``, ``label-propagation``) and estimators that
    are not sskernels learners (a user's) take the parameters as given.

    Parameters
    ----------
    name : str
        A registered method name (:func:`method_names`) or an alias; also a user's
        estimator, by its import path ``"package.module:Class"`` or an entry point's
        name.
    **params : dict
        The spec's parameters of the method (see above).

    Returns
    -------
    estimator : object
        The unfitted estimator, or the model-selection wrapper around it when a
        parameter is selected over more than one value (a grid of one value is set on
        the estimator).

    Raises
    ------
    UnknownNameError
        For an unknown method name (:class:`~sskernels.errors.UnknownNameError`, with the
        closest known names).
    ValueError
        For a ``cv_protocol`` that is not ``standard``, ``kfold`` or
        ``one-fold-labeled``.

    Examples
    --------
    >>> from sskernels.learners import make_method
    >>> make_method("consistency", alpha=0.9, n_neighbors=10)
    Consistency(alpha=0.9, graph=KNNGraph(n_neighbors=10))
    >>> make_method("tsk").param_grid          # beta selected over its default grid
    {'beta': [1000.0, 100.0, 10.0, 1.0, 0.1, 0.01, 0.001]}
    """
    from sskernels.learners.selection import (
        SelectOnLabeled,
        SelectOnLabeledRegressor,
        default_grid,
        ordered_grid,
    )

    factory = get_method(name).factory
    cls = getattr(factory, "cls", None)
    if cls is None:  # scikit-learn peers: parameters as given
        return factory(**params)
    from sskernels.learners.base import SemiSupervisedClassifier, SemiSupervisedRegressor

    if not issubclass(cls, (SemiSupervisedClassifier, SemiSupervisedRegressor)):
        # a foreign estimator: params as given
        return factory(**params)
    params = dict(params)
    accepted = set(cls().get_params(deep=False)) if _default_constructible(cls) else set()
    graph_given = {k: params.pop(k) for k in GRAPH_KEYS if k in params}
    if "graph" in accepted and "graph" not in params:
        from sskernels.graph import KNNGraph

        default = dict(getattr(cls, "_default_graph", {}))
        builder = KNNGraph
        if graph_given.get("method") == "nndescent":  # a million points (graph/descent.py)
            from sskernels.graph.descent import DescentGraph as builder
        params["graph"] = builder(**{**default, **graph_given})
    hook = getattr(cls, "_spec_params", None)
    if hook is not None:

        def make_learner(name, kernel_params, who):
            return kernel_learner_from_spec(name, kernel_params, graph_given, who)

        params = hook(params, make_learner, graph_given)
    # a spec's seed: the estimators default to random_state=None (a fresh draw per fit, as in
    # scikit-learn); a spec that names none runs with 0, so its records are reproducible
    seed = params.get("random_state", SPEC_SEED)
    wrapper = {"random_state": seed}
    if "random_state" in accepted:
        params["random_state"] = seed
    else:
        params.pop("random_state", None)
    for key in [k for k in params if k in WRAPPER_KEYS]:
        value = params.pop(key)
        if WRAPPER_KEYS[key] == "protocol":
            if value not in _PROTOCOL_NAMES:
                raise ParameterError(
                    f"cv_protocol must be one of {sorted(_PROTOCOL_NAMES)}, got {value!r}"
                )
            value = _PROTOCOL_NAMES[value]
        wrapper[WRAPPER_KEYS[key]] = value
    selection = getattr(cls, "_selection", {})
    grid = {}
    for key in list(params):
        if key.endswith("_grid") and key[:-5] in selection:
            grid[key[:-5]] = list(params.pop(key))
    for key in list(params):
        value = params[key]
        if isinstance(value, str) and value == "auto":
            if key not in (accepted or set(cls._get_param_names())):  # a misspelt name
                raise TypeError(
                    f"{cls.__name__}.__init__() got an unexpected keyword argument '{key}'"
                )
            params.pop(key)
            if key in selection and key not in grid:
                grid[key] = list(selection[key][0])
        elif key in selection and isinstance(value, (list, tuple)):
            grid[key] = list(params.pop(key))
        elif key in grid:  # a fixed value wins over a grid given beside it
            grid.pop(key)
    for key, values in default_grid(cls, params).items():
        grid.setdefault(key, values)
    est = cls(**params)
    grid = ordered_grid(est, grid)
    fixed = {k: v[0] for k, v in grid.items() if len(v) == 1}
    if fixed:
        est.set_params(**fixed)
    grid = {k: v for k, v in grid.items() if len(v) > 1}
    if not grid:
        return est
    if issubclass(cls, SemiSupervisedRegressor):
        return SelectOnLabeledRegressor(est, grid, **wrapper)
    return SelectOnLabeled(est, grid, **wrapper)


def kernel_learner_from_spec(name, kernel_params, graph_given, who):
    """The kernel learner a spec names: ``make_method(name, **graph, **kernel_params)``.

    The spec's graph keys go to the kernel learner when its method uses the
    graph (else only those its constructor takes).  Unknown kernel parameters
    and methods without a learned kernel are refused with a ValueError (``who``
    names the method asking, for the message).

    Parameters
    ----------
    name : str
        The kernel learner's method name (:func:`get_method`).
    kernel_params : dict or None
        The spec's ``kernel_params`` (None: none).
    graph_given : dict
        The graph keys of the spec (:data:`GRAPH_KEYS`: ``n_neighbors``, ``weights``, ...).
    who : str
        The method asking (e.g. ``"kernel-svm"``).

    Returns
    -------
    estimator
        The unfitted kernel learner, or a
        :class:`~sskernels.learners.selection.SelectOnLabeled` wrapper of it when a
        parameter is selected.

    Raises
    ------
    UnknownNameError
        For an unknown method name.
    ValueError
        For a kernel parameter the learner does not take, or a method without a learned
        kernel (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> from sskernels.learners.registry import kernel_learner_from_spec
    >>> kernel_learner_from_spec("tsk", {"beta": 10}, {"n_neighbors": 8}, "kernel-svm")
    TransductiveSpectralKernel(beta=10, graph=KNNGraph(n_neighbors=8))
    >>> kernel_learner_from_spec("harmonic", None, {}, "kernel-svm")
    Traceback (most recent call last):
    ...
    sskernels.errors.ParameterError: kernel-svm: harmonic does not learn a kernel
    """
    kernel_params = dict(kernel_params or {})
    info = get_method(name)
    graph = dict(graph_given)
    cls = getattr(info.factory, "cls", None)
    if not info.uses_graph:
        try:
            accepted = set(cls().get_params(deep=False)) if cls is not None else set()
        except TypeError:
            accepted = set()
        graph = {k: v for k, v in graph.items() if k in accepted}
    try:
        learner = make_method(name, **{**graph, **kernel_params})
    except TypeError as exc:
        bad = re.search(r"unexpected keyword argument '(\w+)'", str(exc))
        known = ", ".join(sorted(cls().get_params(deep=False))) if cls is not None else ""
        what = f"kernel_params.{bad.group(1)}" if bad else "kernel_params"
        raise ParameterError(f"{what} is not a parameter of {name} ({known})") from None
    inner = getattr(learner, "estimator", learner)  # a SelectOnLabeled wrapper's learner
    if not callable(getattr(inner, "kernel", None)):
        raise ParameterError(f"{who}: {name} does not learn a kernel")
    return learner


def _default_constructible(cls):
    import inspect

    sig = inspect.signature(cls.__init__)
    return all(
        p.default is not inspect.Parameter.empty
        for n, p in sig.parameters.items()
        if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )
