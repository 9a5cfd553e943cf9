"""Schema rows of a spec's records: one row per (setting, method, metric) with the paper's
value beside ours, the verdict, the notes and the selected parameters, then the time rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sskernels.experiment.tables.matching import within_spread
from sskernels.experiment.tables.notes import _notes
from sskernels.experiment.tables.paper import (
    _paper_value,
    paper_cell,
    paper_row_of,
    paper_spread,
)
from sskernels.experiment.tables.schema import METRIC_DECIMALS, SCHEMA, table_name


def summarize(records, spec):
    """Schema rows of one spec's records.

    One row per (setting, method, metric) (:func:`summary_row`), with the paper's value,
    spread, cell and ``matched`` where the spec's paper table has the cell, the notes
    (fallbacks, degenerate fits) and the selected parameters; then, with the spec's paper
    time table, the time rows (``seconds``, and one ``graph (Lap)`` row where the run
    recorded the seconds of its graphs).

    Parameters
    ----------
    records : pandas.DataFrame
        The spec's records in long format
        (:func:`~sskernels.experiment.collect.load_records`).
    spec : Spec
        The experiment spec.

    Returns
    -------
    pandas.DataFrame
        The rows, columns :data:`SCHEMA`; empty for no records.

    Raises
    ------
    ValueError
        For a paper table whose spread, or a cell it declares the same as another, does not
        read as one (:func:`paper_spread`, :func:`paper_cell`).
    """
    if records.empty:
        return pd.DataFrame(columns=SCHEMA)
    rows = []
    protocols = {m.label: getattr(m, "protocol", None) for m in spec.methods}
    for (_, method, metric), g in records.groupby(["setting", "method", "metric"], sort=False):
        first = g.iloc[0]
        row_name = paper_row_of(spec, method, first)
        pm = ps = np.nan
        if spec.paper.table and row_name is not None:
            pm, ps = _paper_value(
                spec.paper.table, first["dataset"], row_name, first.get("n_labeled"), metric
            )
        row = summary_row(
            spec,
            first,
            method,
            metric,
            g["value"].to_numpy(float),
            pm,
            ps,
            decimals=METRIC_DECIMALS.get(metric, 2),
        )
        if not np.isnan(pm):
            row["paper_spread"] = paper_spread(
                spec.paper.table, first["dataset"], row_name, first.get("n_labeled"), metric
            )
            row["matched"] = within_spread(row["mean"], pm, 0.0 if np.isnan(ps) else ps)
            row["paper_cell"], row["paper_n"] = paper_cell(
                spec.paper.table, first["dataset"], row_name, first.get("n_labeled"), metric
            )
        row["protocol"] = protocols.get(method) or ""
        row["reading"] = getattr(spec, "reading", None) or ""
        row["seconds"] = round(float(g["seconds"].mean()), 4)
        row["notes"] = _notes(g)
        row["selected"] = selected_text(g)
        rows.append(row)
    if spec.paper.time_table:
        rows += _time_rows(records, spec)
    return pd.DataFrame(rows, columns=SCHEMA)


def _time_rows(records, spec):
    """Metric "seconds": fit + predict time per split (selection included), beside the
    paper's time table, and one "graph (Lap)" row for the label-independent work."""
    from sskernels.experiment.records import (
        read_graph_artifacts,
        read_graph_searches,
        read_graph_seconds,
    )
    from sskernels.graph import search_summary

    rows = []
    one = records.drop_duplicates(["setting", "method", "split"])
    for (_, method), g in one.groupby(["setting", "method"], sort=False):
        first = g.iloc[0]
        vals = g["seconds"].to_numpy(float)
        row_name = paper_row_of(spec, method, first)
        pm, ps = (
            (np.nan, np.nan)
            if row_name is None
            else _paper_value(
                spec.paper.time_table, first["dataset"], row_name, first.get("n_labeled")
            )
        )
        row = summary_row(spec, first, method, "seconds", vals, pm, ps, decimals=4)
        row["notes"] = _notes(g)
        rows.append(row)
    graph = read_graph_seconds(spec.output)
    if graph is not None and len(one):
        first = one.iloc[0]
        pm, ps = _paper_value(
            spec.paper.time_table, first["dataset"], "graph (Lap)", first.get("n_labeled")
        )
        row = summary_row(
            spec, first, "graph (Lap)", "seconds", np.array([graph]), pm, ps, decimals=4
        )
        # how the graphs' neighbours were searched (exact or approximate, with its recall)
        notes = [search_summary(s) for s in read_graph_searches(spec.output)]
        loaded = read_graph_artifacts(spec.output)
        if loaded:
            built = [d["built_seconds"] for d in loaded if d.get("built_seconds") is not None]
            notes.append(
                f"{len(loaded)} graph(s) loaded from the artifact store: these seconds are "
                "the load's and the rest of the warm-up"
                + (f"; building them took {sum(built):.1f} s in the run that did" if built else "")
            )
        row["notes"] = "; ".join(notes)
        rows.append(row)
    return rows


def summary_row(spec, first, method, metric, vals, pm, ps, decimals=2):
    """One schema row (:data:`SCHEMA`) of ``spec``'s summary from the per-split values ``vals``.

    The mean, standard deviation and standard error of the per-split values ``vals`` of
    ``method``'s ``metric`` in the setting of ``first`` (a record row: its ``dataset`` and
    ``setting``), beside the paper's mean ``pm`` and spread ``ps`` (NaN: no paper cell),
    rounded to ``decimals``.  The columns the caller fills (``paper_spread``, ``matched``,
    ``notes``, ``selected``, ``paper_cell``, ``protocol``) are empty.

    Parameters
    ----------
    spec : Spec
        The experiment spec (the ``table`` and ``reading`` columns).
    first : mapping
        A record row of the cell.
    method : str
        The method's label.
    metric : str
        The metric.
    vals : numpy.ndarray
        The per-split values.
    pm : float
        The paper's mean (NaN: none).
    ps : float
        The paper's spread (NaN: none).
    decimals : int, default=2
        Decimals of ``mean``, ``std``, ``se`` and ``delta``.

    Returns
    -------
    dict
        The row.
    """
    mean = float(vals.mean())
    std = float(vals.std(ddof=1)) if vals.size > 1 else 0.0
    return {
        "table": table_name(spec),
        "dataset": first["dataset"],
        "setting": first["setting"],
        "method": method,
        "metric": metric,
        "mean": round(mean, decimals),
        "std": round(std, decimals),
        "se": round(std / np.sqrt(vals.size), decimals),
        "n_splits": int(vals.size),
        "paper_mean": pm,
        "paper_std": ps,
        "paper_spread": "",
        "delta": round(mean - pm, decimals) if not np.isnan(pm) else np.nan,
        "matched": "",
        "seconds": round(mean, 4) if metric == "seconds" else np.nan,
        "notes": "",
        "selected": "",
        "paper_cell": "",
        "paper_n": np.nan,
        "protocol": "",
        "reading": getattr(spec, "reading", None) or "",
    }


def _format_value(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return f"{v:g}"


def selected_text(g):
    """The grid values a cell's records chose, per parameter with the number of splits each.

    ``"alpha 0.9 x7, 0.5 x3; C 1 x10"`` (most frequent first; a nested kernel learner's
    parameters as ``kernel <name>``).  Only the selected grid parameters (a record's
    ``selected`` keys without a trailing underscore: fitted attributes such as ``mu_`` are
    left out); empty when nothing was selected.

    Parameters
    ----------
    g : pandas.DataFrame
        A cell's record rows (each split counted once).

    Returns
    -------
    str
        The text; empty too when ``g`` has no ``selected`` column.
    """
    if "selected" not in g.columns:
        return ""
    counts = {}
    for sel in g.drop_duplicates("split")["selected"] if "split" in g.columns else g["selected"]:
        if not isinstance(sel, dict):
            continue
        for k, v in sel.items():
            if k.endswith("_") or isinstance(v, (list, dict)):
                continue
            name = k.replace("kernel_learner__", "kernel ")
            counts.setdefault(name, {})
            counts[name][_format_value(v)] = counts[name].get(_format_value(v), 0) + 1
    return "; ".join(
        f"{k} " + ", ".join(f"{v} x{n}" for v, n in sorted(c.items(), key=lambda t: -t[1]))
        for k, c in counts.items()
    )
