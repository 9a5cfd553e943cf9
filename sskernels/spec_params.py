"""A spec's methods: their parameters, checked before any data loads.

:func:`method_entry` reads one method entry of a spec (``name:`` or ``estimator:``,
``params:``, ``grid:``, ``select:``, ``protocol:``) and checks it before any data loads: the
method exists (a registered name, an entry point of ``sskernels.methods`` or a user's
estimator: :mod:`sskernels.user_methods`; a misspelt name gets "did you mean"), every number
of its parameters is finite and within its range (:func:`_check_param_ranges`), and the
estimator built from them, as the runner builds it, accepts them, every value of a grid it
selects over included (:func:`_check_method`, :func:`_value_problems`, :func:`_check_grids`).
Every problem is one line through the spec's validator (``v.fail``, a
:class:`~sskernels.errors.SpecError` naming the file and the field).

A method's paper row is read by :mod:`sskernels.spec_paper_rows`; the packaged specs are
found by :mod:`sskernels.spec_packaged`.
"""

from __future__ import annotations

import re

from sskernels import user_methods
from sskernels.errors import UnknownNameError
from sskernels.spec_paper_rows import _closest


def _check_method_task(v, where, name, task, dataset, field_=None):
    """A classifier on a classification data set, a regressor on a regression data set."""
    from sskernels.learners.registry import get_method, method_names

    try:
        info = get_method(name)
    except Exception:  # noqa: BLE001 - an unknown name: _check_method says so
        return
    if info.task != task:
        v.fail(
            field_ or f"{where}.name",
            f"a {task} method for the {task} data set {dataset} "
            f"(one of {', '.join(method_names(task))})",
            name,
        )


def _check_oracle(v, where, name, est):
    """``select: oracle`` needs a grid to choose from (a parameter set to auto, a list, or
    selected by default)."""
    from sskernels.learners.selection import flatten

    try:
        grid = flatten(est)[1]
    except Exception:  # noqa: BLE001 - a grid that cannot be read is no grid
        grid = None
    if not grid:
        v.fail(
            f"{where}.select",
            f"selection on the labeled points (default): {name} with these "
            "params selects nothing, so an oracle has no grid to choose from (set a "
            "parameter to auto or to a list)",
            "oracle",
        )


def method_entry(v, where, m, metrics, holdout, graph, task, dataset, check_names=True):
    """One method entry ``m`` of a spec, checked.

    The entry (a name, or a mapping) at field ``where`` (``methods[2]``, or
    ``--with ...``), checked: ``{"name", "label", "params", "grid", "select", "pick",
    "protocol", "user", "raw"}`` (``raw`` the entry as a mapping).  The
    spec's ``metrics``, ``holdout``, ``graph`` and ``task`` (of data set ``dataset``) are
    what the entry is checked against; ``check_names``: the method is looked up and built.

    Parameters
    ----------
    v : object
        The spec's validator (its ``fail`` raises the one-line SpecError).
    where : str
        The entry's field.
    m : str or dict
        The entry: a method name, or a mapping.
    metrics : list of str
        The spec's extra metrics.
    holdout : float
        The spec's ``splits.holdout``.
    graph : GraphSpec
        The spec's graph.
    task : {"classification", "regression"}
        The data set's task.
    dataset : str
        The data set's name, for the messages.
    check_names : bool, default=True
        Look the method up and build its estimator.

    Returns
    -------
    dict
        ``{"name", "label", "params", "grid", "select", "pick", "protocol", "user",
        "raw"}``.

    Raises
    ------
    SpecError
        For an entry that is not as expected (module docstring).
    """
    from sskernels.spec_limits import METHOD_FIELDS, PROTOCOLS_OF_ROWS, SELECTIONS

    regression = task == "regression"
    if isinstance(m, str):
        m = {"name": m}
    if not isinstance(m, dict):
        v.fail(where, "a method name or a mapping with 'name'", m)
    v.mapping(m, where, METHOD_FIELDS)
    user = "estimator" in m
    if user == ("name" in m):
        v.fail(
            where,
            "exactly one of 'name' (a registered method or an entry point of "
            "sskernels.methods) or 'estimator' (an import path pkg.module:Class)",
        )
    fld = f"{where}.estimator" if user else f"{where}.name"
    mname = v.string(m.get("estimator" if user else "name"), fld)
    if not user and ":" in mname:
        v.fail(fld, "a method name (an import path pkg.module:Class goes in estimator:)", mname)
    params = m.get("params") or {}
    if not isinstance(params, dict):
        v.fail(f"{where}.params", "a mapping of parameter names to values", params)
    for key in params:
        if not isinstance(key, str) or not key.strip():
            v.fail(f"{where}.params", f"parameter names (text), not {key!r}")
    grid = user_methods.grid(v, where, m.get("grid"), user)
    select = v.choice(m.get("select", "labeled"), f"{where}.select", SELECTIONS)
    select = None if select == "labeled" else select
    pick = None
    if select == "oracle-mean":  # the per-split oracle's records, picked at the end
        select, pick = "oracle", "mean"
        extra = [x for x in metrics if x not in ("accuracy", "error")]
        if extra:
            v.fail(
                f"{where}.select",
                "select: oracle (per split) with metrics other than "
                "accuracy and error: oracle-mean knows each candidate's accuracy only",
                "oracle-mean",
            )
    protocol = m.get("protocol")
    if protocol is not None:
        v.choice(protocol, f"{where}.protocol", PROTOCOLS_OF_ROWS)
    for values in [params] + ([grid] if grid else []):
        _check_param_numbers(v, f"{where}.{'params' if values is params else 'grid'}", values)
    if not user:  # the names the registered methods share (a user's: as given)
        _check_param_ranges(v, f"{where}.params", params)
    if holdout:
        pre = _precomputed_param(params)
        if pre is not None:
            v.fail(
                "splits.holdout",
                f"0 with {where}.params.{pre}: precomputed, or no "
                f"precomputed input with splits.holdout: the two do not combine (the "
                f"data's rows and columns are the same points; held-out rows leave a "
                f"matrix that is not square)",
                holdout,
            )
    if check_names:
        if user:
            user_methods.check_estimator(v, fld, mname)
        _check_method_task(v, where, mname, task, dataset, fld)
        est = _check_method(v, where, mname, params, graph, fld)
        if grid:
            user_methods.check_grid(v, where, est, grid)
            est = user_methods.selection_wrapper(est, grid)
        if select == "oracle" and regression:
            v.fail(
                f"{where}.select",
                "selection on the labeled points (default): the oracle "
                "ranks candidates by accuracy, which a regression data set has not",
                select,
            )
        if select == "oracle":
            _check_oracle(v, where, mname, est)
    default_label = mname if select is None else f"{mname} (oracle)"
    label = v.string(m.get("label", default_label), f"{where}.label")
    if select == "oracle" and "oracle" not in label.lower():
        v.fail(
            f"{where}.label",
            "a label that says 'oracle' with select: oracle (its "
            "parameters are chosen on the test labels)",
            label,
        )
    return {
        "name": mname,
        "label": label,
        "params": params,
        "grid": grid,
        "select": select,
        "pick": pick,
        "protocol": protocol,
        "user": user,
        "raw": m,
    }


def _param_leaves(value, path=""):
    """``(path, value)`` of every leaf of a method's ``params`` (nested mappings and lists),
    the path as a spec writes it: ``alpha``, ``alpha[1]``, ``kernel_params.b_scale``."""
    if isinstance(value, dict):
        for k, x in value.items():
            yield from _param_leaves(x, f"{path}.{k}" if path else str(k))
    elif isinstance(value, (list, tuple)):
        for i, x in enumerate(value):
            yield from _param_leaves(x, f"{path}[{i}]")
    else:
        yield path, value


def _check_param_numbers(v, where, params):
    """Every number of a method's parameters, however nested, is finite (an integer too:
    10**400 is beyond the range of a float)."""
    from sskernels.spec_limits import _finite

    for path, value in _param_leaves(params):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not _finite(value):
            v.fail(f"{where}.{path}", "a finite number (within the range of a float)", value)


def _check_param_ranges(v, where, params):
    """The parameters that mean the same in every method, by name, wherever they appear in
    ``params`` (nested, or as a grid), within ranges the estimators' own constraints leave
    open: an RBF width ``kernel_width`` and its factor ``kernel_width_scale`` within
    [:data:`SIGMA_MIN`, :data:`SIGMA_MAX`] (:data:`WIDTH_REASON`), ``laplacian_degree`` 1 to
    :data:`MAX_LAPLACIAN_DEGREE`, every other real number 0 or of a magnitude within
    :data:`PARAM_MAGNITUDE`."""
    from sskernels.spec_limits import (
        MAX_LAPLACIAN_DEGREE,
        PARAM_MAGNITUDE,
        SIGMA_MAX,
        SIGMA_MIN,
        WIDTH_REASON,
    )

    for path, value in _param_leaves(params):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue  # text (a width rule, auto) and the rest: the estimator's
        key = re.sub(r"(\[\d+\])+$", "", path).rsplit(".", 1)[-1]
        key = key[: -len("_grid")] if key.endswith("_grid") else key
        if key in ("kernel_width", "kernel_width_scale"):
            v.number(
                value, f"{where}.{path}", minimum=SIGMA_MIN, maximum=SIGMA_MAX, reason=WIDTH_REASON
            )
        elif key == "laplacian_degree" and isinstance(value, int):
            v.integer(value, f"{where}.{path}", minimum=1, maximum=MAX_LAPLACIAN_DEGREE)
        elif (
            isinstance(value, float)
            and value != 0
            and not (PARAM_MAGNITUDE[0] <= abs(value) <= PARAM_MAGNITUDE[1])
        ):
            v.fail(
                f"{where}.{path}",
                f"0 or a magnitude from {PARAM_MAGNITUDE[0]:g} to "
                f"{PARAM_MAGNITUDE[1]:g} (beyond it a solver over- or underflows: a "
                "trade-off of 1e-300 makes a matrix singular, a decay of 1e300 "
                "overflows)",
                value,
            )


def _precomputed_param(params, path=""):
    """The path of a ``graph: precomputed`` or ``kernel: precomputed`` among a method's
    parameters (nested mappings included), or None."""
    for key, value in params.items():
        here = f"{path}.{key}" if path else str(key)
        if key in ("graph", "kernel") and value == "precomputed":
            return here
        if isinstance(value, dict):
            found = _precomputed_param(value, here)
            if found is not None:
                return found
    return None


def _check_graph_params(v, where, params):
    """A method's own graph keys (``n_neighbors``, ``sigma``, ``weights``, ``metric``,
    ``method``, which replace the spec's ``graph``) under the rules of ``graph:``."""
    from sskernels.graph import METRICS, WEIGHTS
    from sskernels.graph.descent import SEARCHES
    from sskernels.spec_limits import MAX_NEIGHBORS, SIGMA_MAX, SIGMA_MIN, SIGMA_REASON

    if "n_neighbors" in params:
        v.integer(params["n_neighbors"], f"{where}.n_neighbors", minimum=1, maximum=MAX_NEIGHBORS)
    if "sigma" in params:
        v.number(
            params["sigma"],
            f"{where}.sigma",
            positive=True,
            optional=True,
            minimum=SIGMA_MIN,
            maximum=SIGMA_MAX,
            reason=SIGMA_REASON,
        )
    for key, choices in (("weights", WEIGHTS), ("metric", METRICS), ("method", SEARCHES)):
        if key in params:
            v.choice(params[key], f"{where}.{key}", choices)


def _check_method(v, where, name, params, graph=None, field_=None):
    """The method exists and its parameters are valid, before any data is loaded.

    The estimator is built exactly as the runner builds it
    (:func:`sskernels.learners.registry.make_method`) and every parameter is
    checked against the estimator's declared constraints (scikit-learn's
    ``_parameter_constraints``, nested estimators included), every value of a grid to
    select from (a parameter given as a list, or ``auto``) included; a problem is one
    line naming the spec file, the method and the field (``methods[i].params.alpha``).
    """
    from sskernels.errors import ParameterError
    from sskernels.learners.registry import get_method, make_method

    try:
        info = get_method(name)
    except UnknownNameError:
        from sskernels.learners.registry import method_names

        v.fail(
            field_ or f"{where}.name",
            "a registered method or an entry point of "
            f"{user_methods.ENTRY_POINT_GROUP}{user_methods.did_you_mean(name)}: "
            f"{', '.join(method_names())}",
            name,
        )
    except ParameterError as exc:  # an entry point whose class cannot be imported
        msg = (str(exc).splitlines() or [type(exc).__name__])[0]
        v.fail(field_ or f"{where}.name", f"an importable method ({msg[:300]})", name)
    if getattr(info.factory, "cls", None) is not None and _registered(name):
        _check_graph_params(v, f"{where}.params", params)
    base = {}
    if info.uses_graph and graph is not None:
        base = {
            "n_neighbors": graph.k,
            "weights": graph.weights,
            "sigma": graph.sigma,
            "metric": graph.metric,
            "method": graph.method,
        }

    def built(p):
        est = make_method(name, **{**base, **p})
        _validate_nested(est)
        return est

    try:
        est = built(params)
    except Exception as exc:  # noqa: BLE001 - whatever building raises is about the spec
        _fail_param(v, where, name, info, params, exc, built)
    for key, value, problem in _value_problems(est):
        path = _find_key(params, key)
        if path is not None:  # a value the spec gave (not a default, not the graph's)
            v.fail(f"{where}.params.{path}", f"{problem} ({name}'s {key})", value)
    _check_grids(v, where, name, params, est)
    return est


def _registered(name):
    """Whether ``name`` is a registered method (or an alias of one): not a user's."""
    from sskernels.learners.registry import ALIASES, METHODS

    return name in METHODS or name in ALIASES


def _value_problems(est):
    """``(key, value, problem)`` of each parameter of ``est`` and the estimators inside it
    whose value is of a shape the parameter never takes, where the estimator's constraints
    may let it through: a parameter whose default is a number, or that takes a sequence
    (``"array-like"``, or a tuple by default), is given a mapping, a list it cannot take, or
    a list of other things than numbers (supervised-mr's ``gamma_I: {}`` passed its
    ``"array-like"`` constraint and failed in the fit)."""
    import inspect
    from numbers import Real

    def number(x):
        return isinstance(x, Real) and not isinstance(x, bool)

    todo, seen = [est], set()
    while todo:
        obj = todo.pop()
        if id(obj) in seen or not hasattr(obj, "get_params") or isinstance(obj, type):
            continue
        seen.add(id(obj))
        try:
            values = obj.get_params(deep=False)
            defaults = {
                k: p.default for k, p in inspect.signature(type(obj).__init__).parameters.items()
            }
        except Exception:  # noqa: BLE001, S112 - not an estimator we can read
            continue
        constraints = getattr(type(obj), "_parameter_constraints", None) or {}
        for key, value in values.items():
            if hasattr(value, "get_params"):
                todo.append(value)
                continue
            default, allowed = defaults.get(key), constraints.get(key) or ()
            sequence = isinstance(default, (list, tuple)) or any(
                isinstance(c, str) and c == "array-like" for c in allowed
            )
            if not (number(default) or sequence):
                continue
            what = (
                "a number"
                if not sequence
                else "a list of numbers"
                if not number(default)
                else "a number or a list of numbers"
            )
            if isinstance(value, dict) or (
                isinstance(value, (list, tuple))
                and not (sequence and all(number(x) for x in value))
            ):
                yield key, value, what


def _find_key(params, key):
    """The dotted path of parameter ``key`` (or ``key_grid``) in a method's ``params``,
    nested mappings included (``kernel_params.b_scale``); None when the spec does not set
    it."""
    for k, value in params.items():
        if k in (key, f"{key}_grid"):
            return str(k)
        if isinstance(value, dict):
            inner = _find_key(value, key)
            if inner is not None:
                return f"{k}.{inner}"
    return None


def _fail_param(v, where, name, info, params, exc, built):
    """One line for a parameter the estimator refused: the parameter named by the message,
    else the first parameter refused on its own (``built`` with it alone)."""
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    bad = (
        re.search(r"unexpected keyword argument '(\w+)'", msg)
        or re.search(r"The '(\w+)' parameter", msg)
        or re.search(r"^graph (\w+) must", msg)
        or re.search(r"^(\w+)(?:\.\w+)? (?:must|is not)", msg)
    )
    key = bad.group(1) if bad else None
    if key is not None and key not in params:
        key = next((k for k in params if k.startswith(key) or key.startswith(k)), None)
    if key is None and _builds(built, {}):  # else: not any parameter's problem
        key = next((k for k in params if not _builds(built, {k: params[k]})), None)
    if not isinstance(exc, (TypeError, ValueError, UnknownNameError)):
        msg = f"{type(exc).__name__}: {msg}"
    field_ = f"{where}.params.{key}" if key else f"{where}.params"
    if "unexpected keyword" in msg:
        known = (
            sorted(info.factory.cls().get_params(deep=False))
            if hasattr(info.factory, "cls")
            else []
        )
        close = _closest(key, known) if key and known else None
        hint = f"; did you mean {close}?" if close else ""
        v.fail(
            field_, f"a parameter of {name}" + (f" ({', '.join(known)})" if known else "") + hint
        )
    v.fail(
        field_, f"a valid value for {name} ({msg[:300]})", params[key] if key in params else None
    )


def _builds(built, params):
    """Whether ``built(params)`` raises nothing."""
    try:
        built(params)
    except Exception:  # noqa: BLE001 - any failure is a no
        return False
    return True


def _check_grids(v, where, name, params, est):
    """Every candidate of the estimator's grids (a parameter given as a list, ``auto``, or
    selected by default; nested grids included) passes the estimator's constraints: a grid
    value out of range is refused now, naming the parameter, not at the first split."""
    from sklearn.base import clone

    from sskernels.learners.selection import flatten

    try:
        base, grid = flatten(est)
    except Exception:  # noqa: BLE001 - no grid to check; the run says what is wrong
        return
    for key, values in grid.items():
        leaf = key.rsplit("__", 1)[-1]
        spec_path = next(
            (
                p
                for p, _ in _param_leaves(params)
                if re.sub(r"\[\d+\]$", "", p).rsplit(".", 1)[-1] in (leaf, f"{leaf}_grid")
            ),
            None,
        )
        spec_path = re.sub(r"\[\d+\]$", "", spec_path) if spec_path else None
        for value in values:
            try:
                candidate = clone(base).set_params(**{key: value})
            except Exception:  # noqa: BLE001 - not settable alone (the grid sets it jointly)
                continue
            try:
                _validate_nested(candidate)
                problem = next((p for k, _, p in _value_problems(candidate) if k == leaf), None)
                if problem is not None:
                    raise ValueError(f"{leaf} must be {problem}")
            except Exception as exc:  # noqa: BLE001 - whatever the check raises: refused
                msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                field_ = f"{where}.params.{spec_path}" if spec_path else f"{where}.params"
                v.fail(
                    field_,
                    f"a grid of values valid for {name} ({leaf} is selected over "
                    f"it; {value!r} is not valid: {msg[:300]})",
                    _get_path(params, spec_path),
                )


def _get_path(params, path):
    """The value at a dotted ``path`` of ``params`` (None when absent)."""
    if path is None:
        return None
    value = params
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _validate_nested(est):
    """Run scikit-learn's parameter validation on an estimator and the estimators inside it."""
    check = getattr(est, "_validate_params", None)
    if check is not None and hasattr(type(est), "_parameter_constraints"):
        check()
    for key in ("estimator", "kernel_learner"):
        inner = getattr(est, key, None)
        if inner is not None and hasattr(inner, "get_params"):
            _validate_nested(inner)
    graph = getattr(est, "graph", None)
    if graph is not None and hasattr(graph, "validate"):
        graph.validate()
