"""The spec's side of a record's key: :func:`method_key`, and whether the spec's graph
enters it (:func:`graph_matters`).
"""

from __future__ import annotations

from sskernels.spec.model import _hash


def method_key(spec, method):
    """A hash of the spec parts one method's records depend on.

    (Data set, preprocessing, graph, split protocol, the method's name and parameters.)

    Only the spec's side of a record's key: the runner adds the content of the
    prepared data and the code and library versions
    (:func:`sskernels.experiment.records.record_key`), which a spec cannot see.
    The spec's extra ``metrics``, a method's ``select: oracle`` and a user's ``grid`` enter
    the hash only when set, so the keys of the specs that predate them are unchanged.  The
    spec's graph enters only when the method uses it (:func:`graph_matters`), so the records
    of a method that ignores the graph are shared by specs that differ in it alone
    (``sskernels run`` reuses them; Wang et al.'s Tables 1 and 2 run the same label-aware
    rows).

    Parameters
    ----------
    spec : Spec
        The spec.
    method : MethodSpec
        One of its methods.

    Returns
    -------
    str
        The hash, 16 hexadecimal characters.
    """
    d = {
        "data": spec.data_key(graph=graph_matters(spec, method)),
        "name": method.name,
        "params": method.params,
    }
    metrics = getattr(spec, "metrics", None)
    if metrics:
        d["metrics"] = list(metrics)
    if getattr(method, "select", None) is not None:
        d["select"] = method.select
    if getattr(method, "grid", None):  # a user's estimator: older keys unchanged
        d["grid"] = method.grid
    return _hash(d)


def graph_matters(spec, method):
    """Whether the spec's graph reaches the method's estimator.

    It does when the estimator built with the
    spec's graph and with another (``k + 1``) differ in their (deep) parameters.  Decided on
    the parameters themselves, so a method that takes the graph in any nested estimator
    counts; an unbuildable method counts as using it (its key keeps the graph).

    Parameters
    ----------
    spec : Spec
        The spec.
    method : MethodSpec
        One of its methods.

    Returns
    -------
    bool
        True when the graph reaches the estimator (or the method cannot be built).
    """
    from sskernels.learners.registry import get_method, make_method

    try:
        if not get_method(method.name).uses_graph:
            return False
        g = spec.graph

        def built(k):
            est = make_method(
                method.name,
                n_neighbors=k,
                weights=g.weights,
                sigma=g.sigma,
                metric=g.metric,
                method=g.method,
                **method.params,
            )
            return repr(sorted((k_, repr(v)) for k_, v in est.get_params(deep=True).items()))

        return built(g.k) != built(g.k + 1)
    except Exception:  # noqa: BLE001 - be conservative: keep the graph in the key
        return True
