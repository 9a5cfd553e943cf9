"""A record's identity: its key built from its parts, and why a stored record is stale.

A record is reused only while its key is the one the run wants.  The key
(:func:`record_key`) is a hash of three parts, each built here:

* the **spec part** (``method_key``, :func:`sskernels.spec.method_key`): data set,
  preprocessing, graph (for a method that uses one), split protocol, the method's name
  and parameters;
* the **data** (:func:`data_fingerprint`): the content of the points, labels, class names,
  held-out part and official splits the tasks see;
* the **code** (:func:`method_code`): the docstring-free syntax trees of every module the
  method's task runs (its import closure), the built estimator's parameters, the task's
  flags, and the library versions (``sskernels``, Python, numpy, scipy, scikit-learn,
  highspy; hnswlib, pyamg or NN-descent's compiled libraries where the data's size makes a
  method use them).

:func:`plan_keys` puts them together for a prepared spec (``Prepared.keys``) and keeps
each method's parts (``Prepared.codes``: ``code``, ``modules``, ``method_key``), which every
new record stores in its ``provenance``: a record then says what its key was made of, and
:func:`stale_reasons` compares those parts with the wanted ones -- ``data changed``,
``code of FILE changed``, ``parameters changed``, ``versions changed`` -- for
``sskernels run --dry-run`` (:func:`sskernels.experiment.runner.dry_run`,
:func:`dry_run_text`).  A record written before the spec part was stored is explained from
what it does store (its data fingerprint, versions and per-module digests).

Examples
--------
>>> from sskernels.experiment.identity import record_key, stale_reasons
>>> record_key("a" * 16, "b" * 16, "c" * 16) == record_key("a" * 16, "b" * 16, "c" * 16)
True
>>> wanted = {"key": "k2", "method_key": "m", "data_fingerprint": "d", "code": "c2",
...           "modules": {"sskernels/graph/knn.py": "222", "estimator": "e"},
...           "versions": {"numpy": "2.4.6"}}
>>> stored = {"key": "k1", "data_fingerprint": "d",
...           "provenance": {"code": "c1", "numpy": "2.4.6", "method_key": "m",
...                          "modules": {"sskernels/graph/knn.py": "111", "estimator": "e"}}}
>>> stale_reasons(stored, wanted)
['code of sskernels/graph/knn.py changed']
>>> stale_reasons(None, wanted)
['new']
"""

from __future__ import annotations

import json
from pathlib import Path

from sskernels import provenance as _provenance
from sskernels.errors import UserError
from sskernels.experiment.tasks import method_code_modules
from sskernels.hashing import digest, json_digest
from sskernels.spec import method_key

# ------------------------------------------------------------------------------ the key


def record_key(method_key, data_fingerprint, code_key):
    """The key of a record: a hash of the method's spec part, the data and the code.

    Parameters
    ----------
    method_key : str
        The hash of the spec parts of the method (:func:`sskernels.spec.method_key`).
    data_fingerprint : str
        The content hash of the data (:func:`data_fingerprint`).
    code_key : str
        The key of the code the method runs (``method_code(...)["code"]``:
        :func:`method_code`).

    Returns
    -------
    str
        16 hex characters (:func:`sskernels.hashing.json_digest`).

    Examples
    --------
    >>> from sskernels.experiment.identity import record_key
    >>> len(record_key("0" * 16, "1" * 16, "2" * 16))
    16
    """
    parts = {"method": method_key, "data": data_fingerprint, "code": code_key}
    return json_digest(parts, length=16)


def data_fingerprint(X, y, classes, extra=()):
    """A content hash of the data the learners see: features, encoded labels, class names.

    ``extra`` holds further arrays or matrices the records depend on (held-out
    points and labels, official splits); a None entry hashes as a marker.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points the learners see.
    y : array-like of int
        The encoded labels (hashed as int64).
    classes : sequence
        The class names, in encoding order.
    extra : sequence, default=()
        Further parts: None (a marker), a list or tuple of integer arrays (each hashed as
        int64, e.g. official splits), or an array or sparse matrix.

    Returns
    -------
    str
        The first 16 hex characters of the hash.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.experiment.identity import data_fingerprint
    >>> X = np.eye(3)
    >>> data_fingerprint(X, [0, 1, 1], ["a", "b"]) == data_fingerprint(X, [0, 1, 0], ["a", "b"])
    False
    """
    from sskernels.hashing import fingerprint

    parts = [fingerprint(X), fingerprint(_int_array(y)), json.dumps(list(classes), default=_native)]
    for part in extra:
        if part is None:
            parts.append(None)
        elif isinstance(part, (list, tuple)):
            parts.append([fingerprint(_int_array(a)) for a in part])
        else:
            parts.append(fingerprint(part))
    return digest(*parts)[:16]


def _native(obj):
    """A numpy scalar or array as JSON-native values, anything else as its ``str`` (the
    class names as :func:`sskernels.experiment.records.plain` writes them)."""
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def _int_array(a):
    import numpy as np

    return np.ascontiguousarray(np.asarray(a, dtype=np.int64))


#: the modules that load, preprocess and fingerprint a spec's data: the data package and
#: the two modules of the experiment layer that call it (:func:`data_code_key`)
DATA_MODULES = ("sskernels.experiment.preparation", "sskernels.experiment.records")


def data_code_key(root=None):
    """The code key of what makes a spec's data fingerprint.

    The modules of the :mod:`sskernels.data` package, with what they import, and
    :data:`DATA_MODULES` (their normalized sources: docstrings and comments do not count),
    with the library versions (:func:`sskernels.provenance.code_key`).  ``sskernels table``
    trusts a stored fingerprint only while this key is the one it was stored with: an edit
    of ``data/transforms.py`` changes what a run would compute, so the table computes the
    fingerprint afresh.

    Parameters
    ----------
    root : str or path-like, default=None
        The package directory; None: this package's (another, for a test of an edited copy).

    Returns
    -------
    str
        16 hex characters.

    Examples
    --------
    >>> from sskernels.experiment.identity import data_code_key
    >>> len(data_code_key()), data_code_key() == data_code_key()
    (16, True)
    """
    import pkgutil

    folder = Path(root or _provenance.PACKAGE_DIR) / "data"
    mods = [f"sskernels.data.{m.name}" for m in pkgutil.iter_modules([str(folder)])]
    return _provenance.code_key(_provenance.closure([*mods, *DATA_MODULES], root), root)


def fitted_points(prep):
    """``(n, sparse)`` of the points the methods of a prepared spec are fitted on: the
    spec's points and its extra unlabeled ones (``X_extra``), and whether they are sparse.

    Parameters
    ----------
    prep : Prepared
        The spec's prepared data.

    Returns
    -------
    tuple of (int, bool)
    """
    import scipy.sparse as sp

    extra = 0 if prep.X_extra is None else prep.X_extra.shape[0]
    return int(prep.X.shape[0] + extra), bool(sp.issparse(prep.X))


def optional_libraries(est, points):
    """``{distribution: version}`` of the libraries outside the versioned ones
    (:data:`sskernels.provenance.LIBRARIES`) whose results ``est`` takes on ``points``.

    Which ones depends on the size of the data, so they are decided here, where it is known,
    rather than from the code alone (the modules that call them are in every method's code):

    * ``hnswlib``, when a k-NN graph of ``est`` searches approximately on these points
      (``method="approximate"``, or ``"auto"`` above the exact search's sizes:
      :func:`sskernels.graph.knn.auto_method`);
    * ``pyamg`` (its version, or None when it is not installed), when a label propagation
      of ``est`` solves by CG on these points (``solver="cg"``, or ``"auto"`` above the
      direct solve's size): its CG turns to pyamg's preconditioner when Jacobi is slow, and
      takes another path when pyamg is installed
      (:mod:`sskernels.learners.propagation`).

    Parameters
    ----------
    est : object
        The method's estimator (as :func:`sskernels.experiment.plan.build` makes it).
    points : tuple of (int, bool)
        ``(n, sparse)`` of the points it is fitted on (:func:`fitted_points`).

    Returns
    -------
    dict
        Empty when no such library is used.

    Examples
    --------
    >>> from sskernels.experiment.identity import optional_libraries
    >>> from sskernels.learners import make_method
    >>> optional_libraries(make_method("harmonic"), (500, False))
    {}
    >>> sorted(optional_libraries(make_method("harmonic"), (50_000, False)))
    ['hnswlib', 'pyamg']
    >>> sorted(optional_libraries(make_method("harmonic"), (50_000, True)))
    ['pyamg']
    """
    import numpy as np
    import scipy.sparse as sp

    from sskernels.graph.builder import KNNGraph
    from sskernels.graph.knn import auto_method
    from sskernels.learners import propagation

    n, sparse = points
    out = {}
    for obj in _provenance.walk_params(est):
        if isinstance(obj, KNNGraph):
            method = obj.method
            if method == "auto":  # an empty stand-in of the points' shape and kind
                method = auto_method(sp.csr_matrix((n, 1)) if sparse else np.empty((n, 0)))
            if method == "approximate":
                out["hnswlib"] = _provenance.library_version("hnswlib")
        elif (
            type(obj).__module__ == propagation.__name__
            and isinstance(getattr(obj, "solver", None), str)
            and propagation._use_cg(obj.solver, n)
        ):
            out["pyamg"] = _provenance.library_version("pyamg")
    return out


def method_code(spec, mi, run, points=None):
    """``{"code": key, "modules": {file: digest}}`` of the code method ``mi`` of ``spec`` runs.

    The code is found by :func:`sskernels.experiment.tasks.method_code_modules`, then
    :func:`sskernels.provenance.code_modules`, and a user's estimator's own module; with
    the estimator the registry built (:func:`sskernels.provenance.estimator_digest`) and the
    flags the task reads (:meth:`~sskernels.experiment.plan.MethodRun.flags`); for code that
    runs compiled libraries outside the versioned ones (NN-descent), their versions and the
    CPU they are compiled for (:func:`sskernels.provenance.compiled_key`): such a record is
    computed again on another CPU type rather than mixed with graphs built there; and, given
    the size of the data (``points``), the versions of the libraries chosen by that size
    (:func:`optional_libraries`: hnswlib for an approximate k-NN search, pyamg for CG).  The
    spec is not run and no data is loaded.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    mi : int
        The method's index in ``spec.methods``.
    run : MethodRun
        The method as its tasks run it, built without the data's extra points
        (:func:`sskernels.experiment.plan.method_run`): its estimator and flags.
    points : tuple of (int, bool), default=None
        ``(n, sparse)`` of the points the method is fitted on (:func:`fitted_points`); a
        record's key is always made with them.  None: the data are unknown, and libraries
        chosen by their size are left out.

    Returns
    -------
    dict
        ``code``: the code key (part of the record key); ``modules``: each file's digest
        (12 hex characters) and those of ``estimator``, ``flags`` and, where they apply,
        ``compiled`` and ``libraries``.

    Raises
    ------
    UserError
        For a user's estimator whose module has no Python source file to hash (naming the
        method).

    Examples
    --------
    >>> from sskernels.experiment.identity import method_code
    >>> from sskernels.experiment.plan import method_run
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "methods": ["harmonic"]})
    >>> code = method_code(spec, 0, method_run(spec, 0))
    >>> sorted(code), "sskernels/learners/propagation.py" in code["modules"]
    (['code', 'modules'], True)
    """
    try:
        foreign = _provenance.foreign_modules(run.estimator)  # a user's estimator's module
    except (ValueError, TypeError) as exc:
        method = spec.methods[mi]
        raise UserError(f"{spec.path}: methods[{mi}] ({method.label}): {exc}") from None
    roots = method_code_modules(run.estimator, oracle=run.oracle)
    digests = {**_provenance.code_modules(roots), **foreign}
    built = {
        "estimator": _provenance.estimator_digest(run.estimator),
        "flags": json_digest(run.flags()),
    }
    compiled = _provenance.compiled_key(digests)
    if compiled is not None:  # NN-descent's graph: its libraries' versions and the CPU
        built["compiled"] = json_digest(compiled)
    libraries = {} if points is None else optional_libraries(run.estimator, points)
    if libraries:  # hnswlib's search, pyamg's preconditioner: chosen by size
        built["libraries"] = json_digest(libraries)
    modules = {_provenance.module_path(m): d[:12] for m, d in digests.items()}
    return {
        "code": _provenance.key_of({**digests, **built}),
        "modules": {**modules, **{k: v[:12] for k, v in built.items()}},
    }


def key_of_method(spec, method, fingerprint, code):
    """The record key of ``method`` of ``spec`` on data ``fingerprint`` with ``code``
    (:func:`method_code`); ``"no data fingerprint"`` (a key no record has) without one.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    method : MethodSpec
        One of ``spec.methods``.
    fingerprint : str or None
        The data fingerprint (:func:`data_fingerprint`).
    code : dict
        The method's code (:func:`method_code`).

    Returns
    -------
    str
        The record key (:func:`record_key`).
    """
    if not fingerprint:
        return "no data fingerprint"
    return record_key(method_key(spec, method), fingerprint, code["code"])


def plan_keys(prep, code_runs):
    """The record key of each method of a prepared spec, kept on ``prep`` with its parts.

    Sets ``prep.codes`` (each method's :func:`method_code` with its ``method_key``: the
    parts a new record stores in its ``provenance``), ``prep.keys`` (:func:`record_key` of
    the parts), ``prep.provenance`` (this process's :func:`sskernels.provenance.provenance`)
    and, for a ``Prepared`` built by hand, its ``data_fingerprint``.
    :func:`sskernels.experiment.plan.record_keys` calls it once per prepared spec.

    Parameters
    ----------
    prep : Prepared
        The spec's prepared data.
    code_runs : list of MethodRun
        Each method as its tasks run it, built without the data's extra points (the code
        key holds the estimator's code and parameters, the points are in the data part).

    Returns
    -------
    list of str
        One key per method of ``prep.spec.methods``.
    """
    spec = prep.spec
    if prep.data_fingerprint is None:  # a Prepared built by hand (tests)
        prep.data_fingerprint = data_fingerprint(
            prep.X, prep.y, prep.classes, extra=(prep.X_test, prep.y_test, None)
        )
    points = fitted_points(prep)
    codes = [method_code(spec, i, run, points=points) for i, run in enumerate(code_runs)]
    prep.codes = [
        {**code, "method_key": method_key(spec, m)} for m, code in zip(spec.methods, codes)
    ]
    prep.keys = [
        record_key(code["method_key"], prep.data_fingerprint, code["code"]) for code in prep.codes
    ]
    prep.provenance = _provenance.provenance()
    return prep.keys


# ----------------------------------------------------------------------- why it is stale


def wanted_parts(prep, mi):
    """The parts of the key method ``mi`` of a prepared spec wants (after :func:`plan_keys`).

    Parameters
    ----------
    prep : Prepared
        The spec's prepared data, its keys planned.
    mi : int
        The method's index.

    Returns
    -------
    dict
        ``key``, ``method_key``, ``data_fingerprint``, ``code``, ``modules`` and
        ``versions`` (:data:`sskernels.provenance.VERSION_FIELDS` of this process).
    """
    code = prep.codes[mi]
    prov = prep.provenance or _provenance.provenance()
    return {
        "key": prep.keys[mi],
        "method_key": code.get("method_key"),
        "data_fingerprint": prep.data_fingerprint,
        "code": code["code"],
        "modules": code["modules"],
        "versions": {v: prov.get(v) for v in _provenance.VERSION_FIELDS},
    }


#: what a changed entry of a record's ``modules`` means, for the entries that are no file
_BUILT = {
    "estimator": "parameters changed",
    "flags": "parameters changed",
    "compiled": "compiled libraries or CPU changed (NN-descent)",
    "libraries": "versions changed (hnswlib or pyamg)",
}


def stale_reasons(stored, wanted):
    """Why the record ``stored`` is not the one ``wanted``: its parts compared.

    Parameters
    ----------
    stored : dict or None
        The record at the place (method, setting, split), as stored (None: there is none).
    wanted : dict
        The wanted parts (:func:`wanted_parts`).

    Returns
    -------
    list of str
        Empty when the keys are equal.  Otherwise ``["new"]`` for no record, or each part
        that differs: ``data changed``; ``versions changed (numpy 2.4 -> 2.5)``; ``code of
        FILE, FILE changed`` (files entering or leaving the method's closure included);
        ``parameters changed`` (the built estimator, the task's flags, or the spec part:
        data set, preprocessing, graph, splits, the method's parameters); ``key differs``
        when the record stores too little to say.

    Examples
    --------
    >>> from sskernels.experiment.identity import stale_reasons
    >>> wanted = {"key": "k2", "method_key": "m2", "data_fingerprint": "d2", "code": "c",
    ...           "modules": {}, "versions": {"numpy": "2.5"}}
    >>> stored = {"key": "k1", "data_fingerprint": "d1",
    ...           "provenance": {"code": "c", "modules": {}, "numpy": "2.4"}}
    >>> stale_reasons(stored, wanted)
    ['data changed', 'versions changed (numpy 2.4 -> 2.5)']
    """
    if stored is None:
        return ["new"]
    if stored.get("key") == wanted["key"]:
        return []
    prov = stored.get("provenance")
    prov = prov if isinstance(prov, dict) else {}
    out = []
    if "data_fingerprint" in stored and stored["data_fingerprint"] != wanted["data_fingerprint"]:
        out.append("data changed")
    versions = [
        f"{v} {prov.get(v)} -> {now}"
        for v, now in wanted["versions"].items()
        if v in prov and prov.get(v) != now
    ]
    if versions:
        out.append(f"versions changed ({', '.join(versions)})")
    old = prov.get("modules")
    if isinstance(old, dict):
        changed = _provenance.changed_modules(old, wanted["modules"])
        files = [m for m in changed if m not in _BUILT]
        if files:
            out.append(f"code of {', '.join(files)} changed")
        out.extend(dict.fromkeys(_BUILT[m] for m in changed if m in _BUILT))
    stored_mk = prov.get("method_key")
    if stored_mk is not None and stored_mk != wanted["method_key"]:
        out.append("parameters changed")
    elif (
        stored_mk is None
        and prov.get("code") == wanted["code"]
        and stored.get("data_fingerprint") == wanted["data_fingerprint"]
    ):
        out.append("parameters changed")  # same code and data: the spec part differs
    out = list(dict.fromkeys(out))
    return out or ["key differs"]


def dry_run_text(frame):
    """The text ``sskernels run --dry-run`` prints for a frame of
    :func:`~sskernels.experiment.runner.dry_run`.

    Per spec one line with the records to compute out of all, then one line per method and
    reason (the records kept are counted by where they come from).

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``spec``, ``path``, ``method``, ``compute`` (bool), ``reason`` and
        ``records``.

    Returns
    -------
    str
        The text, one line per group.

    Examples
    --------
    >>> import pandas as pd
    >>> from sskernels.experiment.identity import dry_run_text
    >>> frame = pd.DataFrame({"spec": ["demo"] * 2, "path": ["demo.yaml"] * 2,
    ...                       "method": ["TSK", "SVM"], "compute": [True, False],
    ...                       "reason": ["code of sskernels/graph/knn.py changed", "current"],
    ...                       "records": [20, 20]})
    >>> print(dry_run_text(frame))
    demo.yaml (demo): 20 of 40 records to compute
      TSK: 20  code of sskernels/graph/knn.py changed
      kept: 20 current
    """
    lines = []
    for (path, spec), part in frame.groupby(["path", "spec"], sort=False):
        todo = part[part["compute"]]
        lines.append(
            f"{path} ({spec}): {int(todo['records'].sum())} of "
            f"{int(part['records'].sum())} records to compute"
        )
        for _, row in todo.iterrows():
            lines.append(f"  {row['method']}: {int(row['records'])}  {row['reason']}")
        kept = part[~part["compute"]].groupby("reason", sort=False)["records"].sum()
        if len(kept):
            lines.append("  kept: " + ", ".join(f"{int(n)} {why}" for why, n in kept.items()))
    return "\n".join(lines)
