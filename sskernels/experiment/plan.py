"""What a spec's tasks run: each method's estimator built from the spec, and its record key.

The registry (:mod:`sskernels.learners.registry`) turns a spec's method (a name and its
parameters, the spec's graph for a graph-based method) into an unfitted estimator; this happens
here, in the process that plans the run, once per method.  The task body
(:mod:`sskernels.experiment.tasks`) receives the estimator and the method's flags
(:class:`MethodRun`) and never imports the registry, so a record's key does not hold the
registry's code: adding a method (one registry entry) leaves every other record current.  What
the registry decides for a method is in the key instead, as data: the constructed estimator's
parameters (:func:`sskernels.provenance.estimator_digest`) and the flags the task reads.
The key itself is built by :mod:`sskernels.experiment.identity` from the methods built here.

Examples
--------
>>> from sskernels.experiment.plan import method_runs
>>> from sskernels.spec import parse_spec
>>> spec = parse_spec({"name": "demo", "dataset": "wine", "splits": {"n_labeled": [10]},
...                    "methods": [{"name": "harmonic"}, {"name": "svm"}]})
>>> [(r.name, r.inductive, type(r.estimator).__name__) for r in method_runs(spec)]
[('harmonic', True, 'HarmonicFunction'), ('svm', True, 'SelectOnLabeled')]
"""

from __future__ import annotations

from dataclasses import dataclass

from sskernels import provenance as _provenance
from sskernels.errors import UserError
from sskernels.experiment import identity as _identity

# the key's parts are built by the identity module; the names stay importable from here
from sskernels.experiment.identity import fitted_points, optional_libraries  # noqa: F401
from sskernels.learners.registry import get_method, make_method


@dataclass(frozen=True)
class MethodRun:
    """One method of a spec as its tasks run it.

    Parameters
    ----------
    name : str
        The method's name in the spec (the registry's, or a user's import path).
    estimator : estimator
        The unfitted estimator (each task fits a deep copy).
    inductive : bool
        Whether it labels held-out points (``predict``): the inductive accuracy is measured.
    user : bool
        A user's estimator: an exception of its ``fit`` is the user's (one line, exit 2).
    oracle : bool
        ``select: oracle``: every grid point fitted, the best TEST accuracy kept.
    """

    name: str
    estimator: object
    inductive: bool
    user: bool = False
    oracle: bool = False

    def flags(self):
        """The flags a record's numbers depend on (part of its key)."""
        return {
            "inductive": bool(self.inductive),
            "user": bool(self.user),
            "oracle": bool(self.oracle),
        }


def method_params(spec, method):
    """Constructor parameters: the spec's graph for graph-based methods, then the method's own.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    method : MethodSpec
        One of ``spec.methods``.

    Returns
    -------
    dict
        Keyword arguments of the method's factory.
    """
    params = {}
    if get_method(method.name).uses_graph:
        g = spec.graph
        params.update(
            n_neighbors=g.k, weights=g.weights, sigma=g.sigma, metric=g.metric, method=g.method
        )
    params.update(method.params)
    return params


def build(spec, method, unlabeled=None):
    """The unfitted estimator of ``method`` of ``spec``.

    A method with a ``grid`` (a user's estimator) is wrapped in the selection on the labeled
    points (:class:`~sskernels.learners.selection.SelectOnLabeled`).  The registry builds
    it from :func:`method_params` (:func:`sskernels.learners.registry.make_method`).  On a
    data set with extra unlabeled points (:func:`has_extra_points`, ``secstr-extra``) the
    estimator is wrapped in :class:`~sskernels.learners.extra_unlabeled.ExtraUnlabeled`
    with ``unlabeled`` (None where only the estimator's code and parameters are needed:
    the points are part of the data fingerprint, not of the code key).

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    method : MethodSpec
        One of ``spec.methods``.
    unlabeled : array-like or sparse matrix or None, default=None
        The data set's extra points (``Prepared.X_extra``).

    Returns
    -------
    estimator
        The unfitted estimator.

    Raises
    ------
    ValueError, TypeError
        For a parameter the estimator refuses (the registry's errors propagate).

    Examples
    --------
    >>> from sskernels.experiment import build
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "graph": {"k": 8},
    ...                    "methods": ["harmonic"]})
    >>> est = build(spec, spec.methods[0])
    >>> type(est).__name__, est.get_params()["graph__n_neighbors"]
    ('HarmonicFunction', 8)
    """
    params = method_params(spec, method)
    est = make_method(method.name, **params)
    grid = getattr(method, "grid", None)
    if grid:
        from sskernels.learners.registry import SPEC_SEED
        from sskernels.learners.selection import SelectOnLabeled

        # the spec's seed, as make_method gives its own wrapper (the default is None)
        est = SelectOnLabeled(est, dict(grid), random_state=params.get("random_state", SPEC_SEED))
    if has_extra_points(spec):
        from sskernels.learners.extra_unlabeled import ExtraUnlabeled

        est = ExtraUnlabeled(est, unlabeled)
    return est


def has_extra_points(spec):
    """Whether the spec's data set carries extra unlabeled points (``Dataset.X_extra``),
    read from the registry without loading any data.

    Parameters
    ----------
    spec : Spec
        The experiment spec.

    Returns
    -------
    bool
        True for a registered data set with ``n_extra > 0`` (``secstr-extra``).

    Examples
    --------
    >>> from sskernels.experiment.plan import has_extra_points
    >>> from sskernels.spec import parse_spec
    >>> has_extra_points(parse_spec({"name": "d", "dataset": "sklearn-wine", "methods": ["svm"]}))
    False
    """
    from sskernels.data.registry import REGISTRY

    d = spec.dataset
    if getattr(d, "file", None) is not None:
        return False
    return getattr(REGISTRY.get(getattr(d, "name", None)), "n_extra", 0) > 0


def method_run(spec, mi, unlabeled=None):
    """:class:`MethodRun` of method ``mi`` of ``spec``.

    A parameter the estimator refuses (``ValueError``, ``TypeError``) is one
    :class:`UserError` line naming the method.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    mi : int
        The method's index in ``spec.methods``.
    unlabeled : array-like or sparse matrix or None, default=None
        The data set's extra points (:func:`build`).

    Returns
    -------
    MethodRun
        The method's unfitted estimator (:func:`build`) and the flags its tasks read.

    Raises
    ------
    UserError
        For a parameter the estimator refuses.
    """
    method = spec.methods[mi]
    try:
        est = build(spec, method, unlabeled)
    except (ValueError, TypeError) as exc:
        raise UserError(f"{spec.path}: methods[{mi}] ({method.label}): {exc}") from None
    info = get_method(method.name)
    return MethodRun(
        method.name,
        est,
        bool(info.inductive),
        bool(info.user),
        getattr(method, "select", None) == "oracle",
    )


def method_runs(spec, unlabeled=None):
    """:func:`method_run` of every method of ``spec``, in order.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    unlabeled : array-like or sparse matrix or None, default=None
        The data set's extra points (:func:`build`).

    Returns
    -------
    list of MethodRun
        One per method of ``spec.methods``.

    Raises
    ------
    UserError
        For a parameter an estimator refuses (naming the method).

    Examples
    --------
    >>> from sskernels.experiment import method_runs
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine",
    ...                    "methods": ["harmonic", {"name": "svm", "select": "oracle",
    ...                                             "label": "svm (oracle)"}]})
    >>> [(r.name, r.inductive, r.oracle) for r in method_runs(spec)]
    [('harmonic', True, False), ('svm', True, True)]
    """
    return [method_run(spec, mi, unlabeled) for mi in range(len(spec.methods))]


def record_keys(prep):
    """The record key of each method of the spec, computed once and kept on ``prep``.

    The key and its parts are built by :func:`sskernels.experiment.identity.plan_keys`
    (spec part, data fingerprint, the method's code key with the library versions); this
    function builds the methods it needs (:func:`method_run`, without the extra points) and
    keeps the methods' :class:`MethodRun` on ``prep.runs`` when it is None.  The first call
    also keeps each method's parts (``prep.codes``), the provenance of this process
    (``prep.provenance``), and the data fingerprint when ``prep.data_fingerprint`` is None
    (a ``Prepared`` built by hand).

    Parameters
    ----------
    prep : Prepared
        The spec's prepared data (:func:`~sskernels.experiment.preparation.prepare`).

    Returns
    -------
    list of str
        One key per method of ``prep.spec.methods``
        (:func:`~sskernels.experiment.identity.record_key`).

    Raises
    ------
    UserError
        For a parameter an estimator refuses (naming the method).

    Examples
    --------
    >>> from sskernels.experiment import prepare, record_keys
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]},
    ...                    "methods": ["harmonic", "svm"]})
    >>> prep = prepare(spec)
    >>> keys = record_keys(prep)
    >>> len(keys), len(keys[0]), keys[0] != keys[1], record_keys(prep) is keys
    (2, 16, True, True)
    """
    if prep.keys is None:
        if prep.runs is None:
            prep.runs = method_runs(prep.spec, prep.X_extra)
        # the code key holds the estimators' code and parameters, not the extra points
        _identity.plan_keys(prep, [method_run(prep.spec, i) for i in range(len(prep.spec.methods))])
    return prep.keys


#: method families that hold dense n x n float64 matrices while they fit: (module, class,
#: the fewest such matrices alive at once, what they are, the setting that avoids them, and
#: the parameter that must be None for it: None where they always do).  A lower bound: the
#: run is refused only when even these cannot fit (:func:`dense_bytes`, checked before the
#: first fit by the runner)
DENSE_FAMILIES = (
    (
        "sskernels.learners.manifold",
        "_ManifoldRegularizer",
        2,
        "the RBF Gram matrix over all n points and the n x n system of eq. (11.5)",
        "the linear methods (linear-laprls, linear-lapsvm) solve in the primal with a sparse graph",
        None,
    ),
    (
        "sskernels.learners.self_consistent",
        "SelfConsistentLabeling",
        2,
        "the squared distances and the GP kernel K_0 over all n points",
        "no sparse variant: subsample the data set",
        None,
    ),
    (
        "sskernels.learners.skl",
        "_SpectralKernelLearningBase",
        2,
        "the full spectrum: the dense Laplacian and its n eigenvectors",
        "set n_components (m eigenpairs by Lanczos)",
        "n_components",
    ),
)


#: the optional libraries a graph search needs: (what asks for it, import name, the extra)
EXTRAS = {
    "approximate": ("the approximate k-NN search", "hnswlib", "scale"),
    "nndescent": ("the NN-descent k-NN graph", "pynndescent", "scale"),
}


def missing_extras(est, points):
    """The optional libraries ``est`` needs on ``points`` that are not installed.

    A k-NN graph that searches approximately (``method="approximate"``, or ``"auto"`` above
    the exact search's sizes: :func:`sskernels.graph.knn.auto_method`) needs hnswlib; a
    ``graph: {method: nndescent}`` needs pynndescent.  Both come with the ``scale`` extra
    (``pip install 'sskernels[scale]'``), not with the package itself.

    Parameters
    ----------
    est : object
        The method's estimator (its parameters are walked).
    points : tuple of (int, bool)
        ``(n, sparse)`` of the points it is fitted on
        (:func:`sskernels.experiment.identity.fitted_points`).

    Returns
    -------
    list of tuple
        ``(what asks for it, import name, extra)`` per library missing; empty when every one
        is installed or none is needed.

    Examples
    --------
    >>> from sskernels.experiment.plan import missing_extras
    >>> from sskernels.learners import make_method
    >>> missing_extras(make_method("harmonic"), (500, False))     # the exact search
    []
    """
    import numpy as np
    import scipy.sparse as sp

    from sskernels.graph.knn import auto_method

    n, sparse = points
    out = []
    for obj in _provenance.walk_params(est):
        method = getattr(obj, "method", None)
        if type(obj).__module__.startswith("sskernels.graph") and method == "auto":
            method = auto_method(sp.csr_matrix((n, 1)) if sparse else np.empty((n, 0)))
        need = EXTRAS.get(method) if type(obj).__module__.startswith("sskernels.graph") else None
        if need and not _installed(need[1]) and need not in out:
            out.append(need)
    return out


def _installed(name):
    """Whether ``name`` can be imported (a package that fails to be found counts as absent)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def dense_bytes(est, n):
    """The fewest bytes of dense n x n matrices ``est`` holds at once while it fits.

    Parameters
    ----------
    est : object
        The method's estimator (its parameters are walked: a selection wrapper's estimator,
        a kernel machine's kernel learner).
    n : int
        The number of points it is fitted on.

    Returns
    -------
    (int, str, str)
        The bytes (0 for a method of no :data:`DENSE_FAMILIES`), what the matrices are and
        the setting that avoids them.

    Examples
    --------
    >>> from sskernels.experiment.plan import dense_bytes
    >>> from sskernels.learners import make_method
    >>> dense_bytes(make_method("laprls"), 10_000)[0] / 2 ** 30   # two 10,000^2 float64
    1.4901161193847656
    >>> dense_bytes(make_method("harmonic"), 10_000)[0]
    0
    >>> dense_bytes(make_method("skl-kta", n_components=200), 10_000)[0]
    0
    """
    from sskernels.learners import manifold, self_consistent, skl

    modules = {m.__name__: m for m in (manifold, self_consistent, skl)}
    found = (0, "", "")
    for module, name, count, what, avoid, unless in DENSE_FAMILIES:
        cls = getattr(modules[module], name)
        if any(
            isinstance(obj, cls) and (unless is None or getattr(obj, unless) is None)
            for obj in _provenance.walk_params(est)
        ):
            found = max(found, (count * 8 * n * n, what, avoid))
    return found


def method_code(spec, mi, points=None):
    """``{"code": key, "modules": {file: digest}}`` of the code method ``mi`` of ``spec`` runs.

    :func:`sskernels.experiment.identity.method_code` of the method as :func:`method_run`
    builds it: the modules its task runs, the built estimator's parameters, the task's flags
    and the library versions.  The spec is not run and no data is loaded.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    mi : int
        The method's index in ``spec.methods``.
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
        For a parameter the estimator refuses, or a user's estimator whose module has no
        Python source file to hash (naming the method).

    Examples
    --------
    >>> from sskernels.experiment import method_code
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "methods": ["harmonic"]})
    >>> code = method_code(spec, 0)
    >>> sorted(code), "sskernels/learners/propagation.py" in code["modules"]
    (['code', 'modules'], True)
    """
    return _identity.method_code(spec, mi, method_run(spec, mi), points)
