"""A spec's readings: its ``readings:`` validated (:func:`_readings`) and one reading's
overlay applied to the raw spec (:func:`apply_reading`).
"""

from __future__ import annotations

import re

from sskernels.spec.fields import READING_FIELDS, READING_SET


def _readings(v, raw, methods):
    """The spec's ``readings:``, validated: ``{name: reading mapping}`` in file order.

    A reading is an alternative interpretation of a sentence of the paper that the primary
    spec reads one way::

        readings:
          - name: standardized                  # letters, digits, '_', '-'
            quote: "The input features are normalized to range [0, 1]."   # the sentence
            set: {preprocess: standardize}      # top-level fields replaced (graph and
                                                # splits: merged key by key)
            methods: {TSK: {params: {eta: 1}}}  # per method label: params merged
            only: [TSK, TSK+SVM]                # optional: the methods run under it
    """
    if raw is None:
        return {}
    if not isinstance(raw, list):
        v.fail(
            "readings", "a list of readings (mappings with name, quote, set, methods, only)", raw
        )
    labels = {
        label
        for label in map(_method_label, methods if isinstance(methods, list) else [])
        if label is not None
    }
    out = {}
    for i, r in enumerate(raw):
        where = f"readings[{i}]"
        if not isinstance(r, dict):
            v.fail(where, "a reading: a mapping with name, quote, set, methods, only", r)
        v.mapping(r, where, READING_FIELDS)
        name = v.string(r.get("name"), f"{where}.name")
        if not re.fullmatch(r"[A-Za-z0-9_\-]{1,60}", name) or name in out:
            v.fail(
                f"{where}.name",
                "a name of letters, digits, '_', '-' not used by another reading of this spec",
                name,
            )
        v.string(r.get("quote"), f"{where}.quote")
        sets = v.mapping(r.get("set"), f"{where}.set", READING_SET)
        per = v.mapping(r.get("methods"), f"{where}.methods", None)
        for label, change in per.items():
            if label not in labels:
                v.fail(
                    f"{where}.methods",
                    f"a method label of the spec ({', '.join(sorted(labels))})",
                    label,
                )
            if not isinstance(change, dict):
                v.fail(f"{where}.methods.{label}", "a mapping with params", change)
            v.mapping(change, f"{where}.methods.{label}", ("params",))
            v.mapping(change.get("params"), f"{where}.methods.{label}.params", None)
        only = r.get("only")
        if only is not None and (
            not isinstance(only, list)
            or not only
            or not all(isinstance(x, str) and x in labels for x in only)
        ):
            v.fail(f"{where}.only", "a non-empty list of the spec's method labels", only)
        if not sets and not per:
            v.fail(where, "a 'set' or 'methods' overlay (a reading that changes nothing)")
        out[name] = r
    return out


def _method_label(m):
    """The label of a raw ``methods:`` entry (its name by default), or None when the entry,
    or its label, is not text (the methods' own validation says what is wrong)."""
    if isinstance(m, dict):
        m = m.get("label") or m.get("name") or m.get("estimator")
    return m if isinstance(m, str) else None


def apply_reading(raw, reading):
    """The raw spec mapping with one reading's overlay applied.

    A new mapping; ``raw`` is
    not modified: ``set``'s fields replace the spec's (``graph`` and ``splits`` are merged
    key by key), ``methods``' params are merged into the labelled methods' params.  Only
    well-formed parts are overlaid; any other is left as it is, for the validation of the
    result to refuse (``methods: 5`` stays 5).

    Parameters
    ----------
    raw : dict
        The spec's raw mapping.
    reading : dict
        One reading (a mapping with ``set``, ``methods``, ...) of ``readings:``.

    Returns
    -------
    dict
        A new mapping, without ``readings``, with the overlay applied.
    """
    import copy

    out = copy.deepcopy({k: x for k, x in raw.items() if k != "readings"})
    for key, value in (reading.get("set") or {}).items():
        if (
            key in ("graph", "splits")
            and isinstance(out.get(key), dict)
            and isinstance(value, dict)
        ):
            out[key] = {**out[key], **value}
        else:
            out[key] = copy.deepcopy(value)
    per = reading.get("methods") or {}
    if not isinstance(out.get("methods"), list) or not isinstance(per, dict):
        return out
    methods = []
    for m in out["methods"]:
        change = per.get(_method_label(m)) if _method_label(m) is not None else None
        params = (m.get("params") if isinstance(m, dict) else None) or {}
        if (
            isinstance(change, dict)
            and isinstance(change.get("params"), dict)
            and isinstance(params, dict)
        ):
            m = {"name": m} if isinstance(m, str) else m
            m = {**m, "params": {**params, **copy.deepcopy(change["params"])}}
        methods.append(m)
    out["methods"] = methods
    return out
