"""Records as the tables read them: the long frame of a run, and the records already written.

:func:`records_frame` turns records into one row per (method, split, metric), applying
``select: oracle-mean`` (:func:`best_on_average`); :func:`load_records` reads a spec's
records without running anything (``sskernels table``), refusing stale ones by name;
:func:`restored` and :func:`reused` relabel an archived or a sibling spec's record for the
spec at hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sskernels.errors import UserError
from sskernels.experiment.identity import key_of_method
from sskernels.experiment.plan import method_code
from sskernels.experiment.preparation import setting_labels
from sskernels.experiment.records import read_data_fingerprint, record_state, write_record


def restored(rec, spec, method):
    """An archived record of this spec's (the same key), under the spec's current names.

    Parameters
    ----------
    rec : dict or None
        A record of the spec's archive
        (:meth:`~sskernels.experiment.archive.ArchivedRecords.get`).
    spec : Spec
        The spec at hand.
    method : MethodSpec
        The spec's method the record is of.

    Returns
    -------
    dict or None
        None for None; ``rec`` itself when its method label and spec name are the current
        ones, else a copy with ``spec``, ``table``, ``dataset``, ``method`` and ``paper``
        set from ``spec`` and ``method``.
    """
    if rec is None:
        return None
    if rec.get("method") == method.label and rec.get("spec") == spec.name:
        return rec
    return {
        **rec,
        "spec": spec.name,
        "table": spec.table or "",
        "dataset": spec.paper.dataset or spec.dataset.display,
        "method": method.label,
        "paper": method.paper,
    }


def reused(rec, spec, method):
    """A sibling spec's record relabeled for ``spec``'s ``method``, with ``reused_from``.

    The record has the same key: it is the same computation; ``reused_from`` names its
    origin.

    Parameters
    ----------
    rec : dict or None
        A sibling spec's record (:meth:`~sskernels.experiment.records.SharedRecords.get`).
    spec : Spec
        The spec at hand.
    method : MethodSpec
        The spec's method the record is reused for.

    Returns
    -------
    dict or None
        None for None; else a copy with ``spec``, ``table``, ``dataset``, ``method`` and
        ``paper`` set from ``spec`` and ``method``, and ``reused_from`` the record's own
        (a record reused before) or ``{"spec", "method"}`` of the record.
    """
    if rec is None:
        return None
    origin = rec.get("reused_from") or {"spec": rec.get("spec"), "method": rec.get("method")}
    return {
        **rec,
        "spec": spec.name,
        "table": spec.table or "",
        "dataset": spec.paper.dataset or spec.dataset.display,
        "method": method.label,
        "paper": method.paper,
        "reused_from": origin,
    }


def records_frame(records, spec, n_splits):
    """Long-format records: one row per (method, split, metric), limited to the spec's splits.

    Records of a split ``>= n_splits``, or of a method the spec does not hold (by label), are
    left out.  The rows are sorted by labeled points, the spec's method order and split;
    the methods with ``select: oracle-mean`` are then summarized by :func:`best_on_average`.

    Parameters
    ----------
    records : iterable of dict
        Records (:func:`~sskernels.experiment.records.read_record`'s).
    spec : Spec
        The spec the records are of.
    n_splits : int
        The number of splits kept (splits ``0 .. n_splits - 1``).

    Returns
    -------
    pandas.DataFrame
        Columns ``table, dataset, setting, method, paper, split, seconds, n_labeled,
        metric, value, order, report, oracle, selected`` (``order``: the method's index in
        the spec); empty without any row.

    Raises
    ------
    UserError
        From :func:`best_on_average`, for a method with ``select: oracle-mean``.

    Examples
    --------
    >>> from sskernels.experiment import records_frame
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "methods": ["harmonic"]})
    >>> recs = [{"table": "", "dataset": "wine", "setting": "10 labeled", "method": "harmonic",
    ...          "paper": None, "split": split, "seconds": 0.01, "n_labeled": 10,
    ...          "metrics": {"accuracy": acc, "error": 100.0 - acc}}
    ...         for split, acc in [(1, 90.0), (0, 80.0), (2, 70.0)]]
    >>> df = records_frame(recs, spec, n_splits=2)
    >>> df[["split", "metric", "value"]].values.tolist()
    [[0, 'accuracy', 80.0], [0, 'error', 20.0], [1, 'accuracy', 90.0], [1, 'error', 10.0]]
    """
    rows = []
    order = {m.label: i for i, m in enumerate(spec.methods)}
    for r in records:
        if r["split"] >= n_splits or r["method"] not in order:
            continue
        for metric, value in r["metrics"].items():
            rows.append(
                {
                    **{
                        k: r[k]
                        for k in (
                            "table",
                            "dataset",
                            "setting",
                            "method",
                            "paper",
                            "split",
                            "seconds",
                            "n_labeled",
                        )
                    },
                    "metric": metric,
                    "value": value,
                    "order": order[r["method"]],
                    "report": r.get("report"),
                    "oracle": r.get("oracle"),
                    "selected": r.get("selected"),
                }
            )
    df = pd.DataFrame(rows)
    if not df.empty:
        df = df.sort_values(["n_labeled", "order", "split"]).reset_index(drop=True)
        for method in spec.methods:
            if getattr(method, "pick", None) == "mean":
                df = best_on_average(df, method.label)
    return df


def best_on_average(df, label):
    """``select: oracle-mean``: the rows of method ``label`` with the candidate best on average.

    In each setting, the one grid candidate whose accuracy on the unlabeled points is best
    on average over the splits (ties: the first in grid order), instead of each split's own
    best (the per-split oracle's records hold every candidate's accuracy).  Mao & Tsang,
    Sec. 5.3: "we report the best average results over the 10 random splits on the grid".
    ``accuracy`` and ``error`` are replaced (any other metric is refused by the spec) and
    ``selected`` names the candidate.  ``df`` is changed in place.

    Parameters
    ----------
    df : pandas.DataFrame
        Long-format records (:func:`records_frame`'s columns ``method``, ``setting``,
        ``split``, ``metric``, ``value``, ``oracle``, ``selected``).
    label : str
        The method's label.

    Returns
    -------
    pandas.DataFrame
        ``df``, its rows of ``label`` replaced.

    Raises
    ------
    UserError
        When a record lacks the per-split oracle's accuracies, when the splits' grids differ,
        or for a metric other than ``accuracy`` and ``error``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sskernels.experiment import best_on_average
    >>> grid = [{"C": 1}, {"C": 10}]
    >>> df = pd.DataFrame({"method": "svm", "setting": "10 labeled", "split": [0, 1],
    ...                    "metric": "accuracy", "value": [80.0, 90.0], "selected": None,
    ...                    "oracle": [{"params": grid, "accuracy": [80.0, 70.0]},
    ...                               {"params": grid, "accuracy": [60.0, 90.0]}]})
    >>> out = best_on_average(df, "svm")     # C=10: 80 on average, C=1: 70
    >>> out["value"].tolist(), out["selected"].tolist()
    ([70.0, 90.0], [{'C': 10}, {'C': 10}])
    """
    mine = df["method"] == label
    for setting in df.loc[mine, "setting"].unique():
        rows = df.index[mine & (df["setting"] == setting)]
        first = df.loc[rows].drop_duplicates("split")["oracle"]
        if any(not isinstance(o, dict) or "accuracy" not in o for o in first):
            raise UserError(
                f"{label}: select oracle-mean needs the per-split oracle's "
                "records (every candidate's accuracy); a record lacks them"
            )
        acc = np.array([o["accuracy"] for o in first], dtype=float)  # splits x candidates
        if acc.ndim != 2:
            raise UserError(f"{label}: the splits' oracle grids differ; no common candidate")
        best = int(np.argmax(acc.mean(axis=0)))  # argmax: the first of ties
        params = next(iter(first))["params"][best]
        by_split = dict(zip(df.loc[rows].drop_duplicates("split")["split"], acc[:, best]))
        for i in rows:
            value = by_split[df.at[i, "split"]]
            metric = df.at[i, "metric"]
            if metric == "accuracy":
                df.at[i, "value"] = value
            elif metric == "error":
                df.at[i, "value"] = 100.0 - value
            else:
                raise UserError(
                    f"{label}: select oracle-mean knows each candidate's accuracy "
                    f"only, not its {metric}"
                )
            df.at[i, "selected"] = {**(df.at[i, "selected"] or {}), **params}
    return df


def load_records(spec, n_splits=None):
    """The records already written for a spec, as a DataFrame, without running anything.

    The record keys are made with the data fingerprint the last run stored in
    ``<output>/data_fingerprint.json`` and the code each method runs now
    (:func:`method_code`).  The data are loaded only when the code that makes the
    fingerprint (:func:`~sskernels.experiment.records.data_code_key`: the data package, its
    loaders and transforms) is not the code the fingerprint was stored with: then the
    fingerprint is computed afresh, and records made on other data are refused.  Raises
    :class:`UserError` when any record is stale (made by other code or other data; every
    record is stale when the fingerprint file is absent), naming the modules whose code
    changed, or when there is no record at all.  Splits not run yet (``run --splits N``)
    are left out, as the summary's ``n_splits`` column shows.  A record missing from the output folder is taken from
    the spec's committed archive (:mod:`sskernels.experiment.archive`) when its key matches,
    and written back to the folder.

    Parameters
    ----------
    spec : Spec
        The spec whose records are read.
    n_splits : int, default=None
        The number of splits read; None: the spec's ``splits.n_splits``.

    Returns
    -------
    pandas.DataFrame
        The records in long format (:func:`records_frame`).

    Raises
    ------
    UserError
        When a record is stale or there is none (one line naming the spec and the output
        folder).

    Examples
    --------
    >>> import tempfile
    >>> from sskernels.experiment import load_records, run_spec
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]}, "methods": ["harmonic"],
    ...                    "output": tempfile.mkdtemp() + "/demo"})
    >>> ran = run_spec(spec, progress=False)
    >>> df = load_records(spec)           # read back: nothing is fitted
    >>> df["value"].tolist() == ran["value"].tolist(), len(df)
    (True, 2)
    """
    import json
    from pathlib import Path

    from sskernels.experiment.archive import ArchivedRecords
    from sskernels.experiment.records import _safe, record_path

    n = n_splits or spec.splits.n_splits
    archived = ArchivedRecords(spec.output)
    archived.restore_files(spec.output)  # what a fresh clone has only archived
    fp, points = _current_fingerprint(spec, n)
    recs, stale, changed = [], 0, set()
    for mi, method in enumerate(spec.methods):
        code = method_code(spec, mi, points=points)
        # without a fingerprint no key can match: every existing record is stale
        key = key_of_method(spec, method, fp, code)
        labels = setting_labels(spec)
        if labels is None:
            root = Path(spec.output) / "records" / _safe(method.label)
            paths = sorted(root.glob("*/split_*.json")) if root.is_dir() else []
            labels = sorted({json.loads(p.read_text()).get("setting") for p in paths[:1]} - {None})
            labels = labels or archived.settings(key)
        for setting in labels:
            for si in range(n):
                state, rec = record_state(spec.output, method.label, setting, si, key=key)
                if state != "current":  # the committed archive (a fresh clone)
                    back = restored(archived.get(key, setting, si), spec, method)
                    if back is not None:
                        state, rec = "current", write_record(spec.output, back)
                stale += state == "stale"
                if state == "stale" and fp:
                    changed.update(
                        _changed_code(record_path(spec.output, method.label, setting, si), code)
                    )
                if rec is not None:
                    recs.append(rec)
    rerun = f"rerun `sskernels run {spec.path}`"
    if stale:
        why = (
            f"code changed in {', '.join(sorted(changed))}"
            if changed
            else "made by other code, library versions or data"
        )
        raise UserError(
            f"{spec.path}: {stale} record(s) under {spec.output} are stale ({why}); {rerun}"
        )
    if not recs:
        raise UserError(f"{spec.path}: no records under {spec.output} (missing); {rerun}")
    return records_frame(recs, spec, n)


def _current_fingerprint(spec, n_splits):
    """The data fingerprint the records of ``spec`` must have been made with: the stored one
    while the data code is the one it was stored with, else computed afresh by
    :func:`~sskernels.experiment.preparation.prepare` (the data loaded); a fresh one that
    differs from the stored one is refused in one line (the records were made on other
    data), with the points' ``(n, sparse)``.  ``(None, None)`` when no fingerprint was
    stored (every record is then stale)."""
    from sskernels.experiment.plan import fitted_points
    from sskernels.experiment.records import data_code_key, write_data_fingerprint

    fp, code, points = read_data_fingerprint(spec.output, with_code=True)
    if fp is None:
        return None, None
    if code == data_code_key() and points is not None:
        return fp, points
    from sskernels.experiment.preparation import prepare

    prep = prepare(spec, n_splits=n_splits)
    fresh, points = prep.data_fingerprint, fitted_points(prep)
    if fresh != fp:
        why = (
            "the code that loads and preprocesses it (sskernels/data/) changed"
            if code is not None
            else "its fingerprint was stored before the data code was"
        )
        raise UserError(
            f"{spec.path}: the records under {spec.output} were made on other "
            f"data than this spec gives now ({why}); rerun `sskernels run "
            f"{spec.path}`"
        )
    try:  # the same data: keep the check cheap next time
        write_data_fingerprint(spec.output, fp, points)
    except OSError:
        pass
    return fp, points


def _changed_code(path, code):
    """The files whose code differs between a stale record (at ``path``) and ``code`` (the
    method's code now, :func:`method_code`); empty when the record does not say."""
    import json

    from sskernels.provenance import changed_modules

    try:
        old = json.loads(path.read_text()).get("provenance", {}).get("modules")
    except (OSError, ValueError, AttributeError):
        return []
    return changed_modules(old, code["modules"]) if isinstance(old, dict) else []
