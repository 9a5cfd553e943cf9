"""A user's own estimator as a method of a spec, beside the registered ones.

A spec's method may name an estimator class by its import path instead of a registered
name::

    methods:
      - estimator: mypkg.module:MyClassifier     # importable from the Python path
        label: Mine                              # default: the import path
        params: {n_neighbors: 3}                 # constructor parameters, as given
        grid: {n_neighbors: [1, 3, 5]}           # optional: selected on the labeled points
        paper_row: TSK                           # optional: compared with that paper row

or by a name that a package registers in the entry-point group ``sskernels.methods``
(``name: mine`` with ``mine = mypkg.module:MyClassifier`` there).  ``sskernels run SPEC
--with mypkg.module:MyClassifier`` (or ``--with Mine=mypkg.module:MyClassifier``, or
``--with NAME``) adds such a method to every spec of the run (:func:`with_entry`).

The estimator follows scikit-learn's conventions for semi-supervised learning: ``fit(X, y)``
with ``-1`` marking the unlabeled points, then either ``transduction_`` (a label for every
point of ``X``) or ``predict(X)``.  Its ``grid:`` is searched by
:class:`~sskernels.learners.selection.SelectOnLabeled` (k-fold on the labeled points only);
a registered method selects through its own parameters instead (``P: auto``, ``P_grid``), so
``grid:`` there is an error.  The class is imported when the spec loads: an import path that
cannot be imported, or a class without ``fit``, is one line naming the spec file, the field
and the path; a ``--with`` value that cannot be used is one line naming the flag
(:func:`check_with`).  The command line puts the current folder on the import path (at its
end, after the installed packages: :func:`importable_cwd`), so ``myssl.py`` in the folder a
command runs from is found as ``myssl:LabeledKNN``, as ``python -m`` would find it.  Its
record key holds the source of the estimator's own module
(:func:`sskernels.provenance.foreign_modules`), so an edit of it recomputes its records.
"""

from __future__ import annotations

import difflib
import os
import re
import sys

from sskernels.learners.registry import ENTRY_POINT_GROUP  # noqa: F401 - re-exported

#: an import path ``pkg.module:Class`` (the attribute may be dotted: ``module:Outer.Inner``)
IMPORT_PATH = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
#: a ``--with`` value's label (``LABEL=TARGET``)
_WITH = re.compile(r"([^=:]+)=(.+)")


def is_import_path(text):
    """Whether ``text`` reads as ``pkg.module:Attr``.

    Parameters
    ----------
    text : object
        The value to test.

    Returns
    -------
    bool
        True for a string matching :data:`IMPORT_PATH` (the attribute may be dotted).
    """
    return isinstance(text, str) and IMPORT_PATH.fullmatch(text) is not None


def entry_point_names():
    """The names registered in the entry-point group :data:`ENTRY_POINT_GROUP`, sorted."""
    from importlib.metadata import entry_points

    try:
        return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})
    except Exception:  # noqa: BLE001 - a broken distribution's metadata: none
        return []


def did_you_mean(name, task=None):
    """`` (did you mean 'harmonic'?)`` for a misspelt method name, or ``""``.

    The suggestion is the closest registered name or entry point
    (:func:`difflib.get_close_matches`).

    Parameters
    ----------
    name : object
        The misspelt name (taken as its ``str``).
    task : {"classification", "regression"} or None, default=None
        Suggest the registered methods of this task only (aliases and entry points
        whatever their task); None for all.

    Returns
    -------
    str
        The hint, with a leading space, or ``""`` when no name is close.
    """
    from sskernels.learners.registry import ALIASES, method_names

    known = method_names(task) + sorted(ALIASES) + entry_point_names()
    close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def with_entry(text):
    """The spec method entry of a ``--with`` value.

    ``pkg.module:Class`` -> ``{"estimator":
    ...}``, ``NAME`` -> ``{"name": NAME}`` (registered or an entry point), either after
    ``LABEL=`` -> with ``label``.

    Parameters
    ----------
    text : object
        The ``--with`` value (taken as its ``str``, stripped).

    Returns
    -------
    dict
        The method entry.

    Examples
    --------
    >>> from sskernels.user_methods import with_entry
    >>> with_entry("Mine=mypkg.module:MyClassifier")
    {'label': 'Mine', 'estimator': 'mypkg.module:MyClassifier'}
    >>> with_entry("harmonic")
    {'name': 'harmonic'}
    """
    text = str(text).strip()
    entry = {}
    m = _WITH.fullmatch(text)
    if m and not is_import_path(text):
        entry["label"], text = m.group(1).strip(), m.group(2).strip()
    entry["estimator" if ":" in text else "name"] = text
    return entry


def importable_cwd():
    """Put the current folder on the import path (at its end), as ``python -m`` would.

    The command line calls it once, so that a user's module beside the spec or in the
    folder a command runs from (``myssl.py``) is importable as ``myssl:Class`` by ``--with``
    and ``estimator:``, and by ``--jobs`` workers (spawned processes inherit the path).
    Appended, not prepended: a file there never shadows an installed package.

    Returns
    -------
    str
        The current folder.

    Examples
    --------
    >>> import os, sys
    >>> from sskernels.user_methods import importable_cwd
    >>> importable_cwd() == os.getcwd() and os.getcwd() in sys.path
    True
    """
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.append(cwd)
    return cwd


def _import_note():
    """`` (the current folder X is on the import path)`` when it is, else a hint."""
    cwd = os.getcwd()
    if cwd in sys.path or "" in sys.path:
        return f" (the current folder {cwd} is on the import path)"
    return f" (the current folder {cwd} is not on the import path: set PYTHONPATH)"


def check_with(text):
    """The spec method entry of a ``--with`` value, checked; a UserError naming the flag.

    An import path must import and name a class with ``fit``; a name must be a registered
    method or an entry point.  The error is one line naming the flag and its value, e.g.
    ``--with Mine=myssl:LabeledKNN: No module named 'myssl' (the current folder ... is on the
    import path)``, never the spec the method was to be added to.

    Parameters
    ----------
    text : object
        The ``--with`` value.

    Returns
    -------
    dict
        The method entry (:func:`with_entry`).

    Raises
    ------
    UserError
        If the value names no usable method.

    Examples
    --------
    >>> from sskernels.user_methods import check_with
    >>> check_with("Peer=sklearn.semi_supervised:LabelSpreading")
    {'label': 'Peer', 'estimator': 'sklearn.semi_supervised:LabelSpreading'}
    >>> check_with("nosuchmodule_xyz:Thing")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sskernels.errors.UserError: --with nosuchmodule_xyz:Thing: No module named 'nosuchmodule_xyz' ...
    """
    from sskernels.errors import UnknownNameError, UserError
    from sskernels.learners.registry import get_method

    entry = with_entry(text)
    flag = f"--with {str(text).strip()}"
    if "estimator" in entry:
        path = entry["estimator"]
        if not is_import_path(path):
            raise UserError(
                f"{flag}: expected [LABEL=]pkg.module:Class (an import path) or a method's name"
            )
        module, _, attr = path.partition(":")
        try:
            get_method(path)  # imports the class (the registry's one import)
        except Exception as exc:  # noqa: BLE001 - whatever the user's module raises
            cause = exc.__context__ or exc
            msg = (str(cause).splitlines() or [""])[0][:300]
            if isinstance(cause, ModuleNotFoundError):
                raise UserError(f"{flag}: {msg}{_import_note()}") from None
            if isinstance(cause, AttributeError):
                raise UserError(f"{flag}: module {module!r} has no {attr!r}") from None
            if cause is exc:  # the registry's own reason (e.g. no fit method)
                raise UserError(f"{flag}: {msg.split(': ', 1)[-1]}") from None
            raise UserError(
                f"{flag}: importing {module} raised {type(cause).__name__}: {msg}"
            ) from None
        return entry
    try:
        get_method(entry["name"])
    except UnknownNameError:
        raise UserError(
            f"{flag}: no method named {entry['name']!r}"
            f"{did_you_mean(entry['name'])}; a registered method "
            "(sskernels methods list), an entry point, or pkg.module:Class"
        ) from None
    except Exception as exc:  # noqa: BLE001 - an entry point whose module fails
        msg = (str(exc).splitlines() or [type(exc).__name__])[0][:300]
        raise UserError(f"{flag}: {msg}") from None
    return entry


def check_estimator(v, field_, path):
    """Check an ``estimator:`` import path: it imports and names a class with ``fit``.

    An ``estimator:`` import path that imports and names a class with ``fit``, through the
    registry (:func:`sskernels.learners.registry.get_method`); else ``v.fail`` with its
    one-line reason.

    Parameters
    ----------
    v : object
        The spec's validator (its ``fail`` raises the one-line SpecError).
    field_ : str
        The entry's field, named in the error.
    path : str
        The import path ``pkg.module:Class``.

    Returns
    -------
    MethodInfo
        The estimator's registry record.

    Raises
    ------
    SpecError
        If ``path`` is not an import path, or the class cannot be imported or has no
        ``fit``.
    """
    from sskernels.learners.registry import get_method

    if not is_import_path(path):
        v.fail(field_, "an import path pkg.module:Class", path)
    try:
        return get_method(path)
    except Exception as exc:  # noqa: BLE001 - whatever the user's module raises on import
        msg = (str(exc).splitlines() or [type(exc).__name__])[0]
        note = _import_note() if "No module named" in msg else ""
        v.fail(field_, f"an importable estimator class with fit ({msg[:300]}){note}", path)


def grid(v, where, raw, user):
    """A method's ``grid:`` ({parameter: [values]}), validated in shape; None when absent.

    Only a user's estimator takes one.

    Parameters
    ----------
    v : object
        The spec's validator (its ``fail`` raises the one-line SpecError).
    where : str
        The entry's field (``methods[2]``).
    raw : object
        The entry's ``grid:`` value; None when absent.
    user : bool
        Whether the entry is a user's estimator.

    Returns
    -------
    dict or None
        ``{parameter: list of values}``, or None when absent.

    Raises
    ------
    SpecError
        For a grid on a registered method, or one that is not a non-empty mapping of
        parameter names (text) to non-empty lists.
    """
    if raw is None:
        return None
    if not user:
        v.fail(
            f"{where}.grid",
            "no grid: on a registered method (it selects over its own "
            "grids: set a parameter to auto, to a list, or P_grid: [...] in params)",
            raw,
        )
    if not isinstance(raw, dict) or not raw:
        v.fail(f"{where}.grid", "a mapping of parameter names to lists of candidate values", raw)
    for key, values in raw.items():
        if not isinstance(key, str) or not key.strip():
            v.fail(f"{where}.grid", f"parameter names (text), not {key!r}")
        if not isinstance(values, list) or not values:
            v.fail(f"{where}.grid.{key}", "a non-empty list of candidate values", values)
    return {k: list(vals) for k, vals in raw.items()}


def check_grid(v, where, est, grid_):
    """Check a user's ``grid:`` against the estimator.

    Every candidate of a user's ``grid:`` is a parameter of the estimator that it accepts
    (its ``set_params`` and, where it declares them, scikit-learn's parameter constraints).

    Parameters
    ----------
    v : object
        The spec's validator (its ``fail`` raises the one-line SpecError).
    where : str
        The entry's field (``methods[2]``).
    est : estimator
        The estimator built from the entry.
    grid_ : dict
        ``{parameter: list of values}`` (:func:`grid`).

    Raises
    ------
    SpecError
        For a parameter the estimator does not have, or a value it refuses.
    """
    from sklearn.base import clone

    known = set(est.get_params(deep=True)) if hasattr(est, "get_params") else set()
    for key, values in grid_.items():
        if key not in known:
            v.fail(
                f"{where}.grid.{key}",
                "a parameter of the estimator (" + ", ".join(sorted(known)) + ")",
                key,
            )
        for value in values:
            try:
                candidate = clone(est).set_params(**{key: value})
                check = getattr(candidate, "_validate_params", None)
                if check is not None and hasattr(type(candidate), "_parameter_constraints"):
                    check()
            except Exception as exc:  # noqa: BLE001 - the estimator refuses the value
                msg = (str(exc).splitlines() or [type(exc).__name__])[0]
                v.fail(f"{where}.grid.{key}", f"values the estimator accepts ({msg[:300]})", value)


def selection_wrapper(est, grid_):
    """``est`` as the runner fits it.

    Within :class:`SelectOnLabeled` over ``grid_`` when one is given
    (:func:`sskernels.experiment.plan.build`).

    Parameters
    ----------
    est : estimator
        The user's estimator.
    grid_ : dict or None
        ``{parameter: list of values}``; None or empty for no selection.

    Returns
    -------
    estimator
        ``SelectOnLabeled(est, grid_, random_state=0)``, or ``est`` without a grid.
    """
    if not grid_:
        return est
    from sskernels.learners.selection import SelectOnLabeled

    return SelectOnLabeled(est, grid_, random_state=0)
