"""The paper's side of a summary row: which paper row a method is compared with, and the
paper table's value, printed spread and cell identity of a (data set, method, setting,
metric) — a paper's error matched with our accuracy as its complement.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sskernels.experiment.tables.schema import SPREADS
from sskernels.paper_tables import paper_table


def paper_row_of(spec, label, record=None):
    """The paper row a method's rows are compared with.

    The spec's ``paper_row`` of the method labelled ``label`` (None: no paper row;
    :mod:`sskernels.spec_params`), else, for a label the spec does not hold, the record's
    own ``paper`` field.

    Parameters
    ----------
    spec : Spec
        The experiment spec.
    label : str
        The method's label.
    record : mapping, default=None
        A record row (its ``paper`` field), for a label the spec does not hold.

    Returns
    -------
    str or None
        The paper row's name, or None.
    """
    for m in spec.methods:
        if m.label == label:
            return getattr(m, "paper", None)
    paper = None if record is None else record.get("paper")
    return paper if isinstance(paper, str) else None


#: metrics that are 100 minus each other (percent): a paper's error is our accuracy's complement
COMPLEMENT = {
    "accuracy": "error",
    "error": "accuracy",
    "inductive accuracy": "inductive error",
    "inductive error": "inductive accuracy",
}
#: metrics a paper table without a ``metric`` column cannot hold (it holds accuracies)
_NOT_ACCURACY = ("alignment",)


def paper_cell(table, dataset, method, n_labeled, metric=None):
    """``(cell, n)``: the identity of a paper cell and the number of splits behind it.

    The identity is ``"TABLE|DATASET|METHOD|N_LABELED|METRIC"``
    (the paper's own metric: ``error`` where it prints errors and we record accuracies), and
    the number of splits the paper averaged over (its table's ``n_splits`` column; NaN where
    it has none).  A cell the paper prints again in another table (the paper table's
    ``same_cell`` column names the first one, ``TABLE|METHOD``) gets the first one's
    identity, after checking that the printed values agree (a ValueError otherwise: a
    declared repeat that is not one).

    Parameters
    ----------
    table : str
        The paper table (:func:`sskernels.paper_tables.paper_table`).
    dataset : str
        The data set's name in the table.
    method : str
        The paper row's name.
    n_labeled : int or None
        The setting's labeled points (None: not matched).
    metric : str, default=None
        Our metric; None: not matched (a table without a ``metric`` column holds one
        accuracy-type metric).

    Returns
    -------
    cell : str
        The cell's identity; ``""`` where the paper has no value.
    n : float
        The paper's number of splits; NaN where unknown.

    Raises
    ------
    ValueError
        For a declared repeat whose printed value differs from the first one's.
    """
    hit, _ = _paper_hit(table, dataset, method, n_labeled, metric)
    if hit is None:
        return "", np.nan
    row = hit.iloc[0]
    n = float(row["n_splits"]) if "n_splits" in row.index and pd.notna(row["n_splits"]) else np.nan
    own = str(row["metric"]) if "metric" in row.index else "accuracy"
    lab = "" if n_labeled is None or "n_labeled" not in row.index else str(int(n_labeled))
    same = row.get("same_cell") if "same_cell" in row.index else None
    if isinstance(same, str) and same.strip():
        first_table, first_method = same.split("|")
        first, _ = _paper_hit(first_table, dataset, first_method, n_labeled, own)
        if first is None or (float(first["mean"].iloc[0]), float(first["std"].iloc[0])) != (
            float(row["mean"]),
            float(row["std"]),
        ):
            raise ValueError(
                f"paper table {table}: {method} on {dataset} ({own}) is declared "
                f"the same cell as {same}, whose printed value differs"
            )
        table, method = first_table, first_method
    return f"{table}|{dataset}|{method}|{lab}|{own}", n


def _paper_hit(table, dataset, method, n_labeled, metric=None):
    """The paper table's rows of a cell (or None) and whether they hold our metric's
    complement (:func:`_paper_value`'s matching rule)."""
    pt = paper_table(table)
    hit = pt[(pt["method"] == method) & (pt["dataset"] == dataset)]
    if "n_labeled" in pt.columns and n_labeled is not None:
        hit = hit[hit["n_labeled"].astype(str) == str(int(n_labeled))]
    flip = False
    if "metric" in pt.columns and metric is not None:
        same = hit[hit["metric"] == metric]
        if not len(same) and metric in COMPLEMENT:
            same, flip = hit[hit["metric"] == COMPLEMENT[metric]], True
        hit = same
    elif metric in _NOT_ACCURACY:
        return None, False
    elif metric in ("error", "inductive error"):
        flip = True
    return (hit if len(hit) else None), flip


def _paper_value(table, dataset, method, n_labeled, metric=None):
    """The paper's ``(mean, std)`` of a cell, ``(nan, nan)`` where it has none.

    A table with a ``metric`` column (e.g. Wang et al.'s: ``error`` and ``alignment``) is
    matched on the metric; where it has only the complement (``error`` for our
    ``accuracy``, or the reverse) the value is ``100 - mean`` with the std unchanged.  A
    table without that column holds one accuracy-type metric, used for every metric as
    before (``metric`` None), except ``error`` (its complement) and ``alignment`` (none).
    """
    hit, flip = _paper_hit(table, dataset, method, n_labeled, metric)
    if hit is None:
        return np.nan, np.nan
    mean, std = float(hit["mean"].iloc[0]), float(hit["std"].iloc[0])
    return (100.0 - mean if flip else mean), std


def paper_spread(table, dataset, method, n_labeled, metric=None):
    """How the paper prints a cell's spread: ``"std"`` or ``"se"`` (standard error of the mean).

    From the paper table's ``spread`` column (``"std"`` where the table has none);
    ``""`` where the paper has no value.  Which reading applies is decided per table from
    the printed values against ours (results/README.md, "How each paper's ± reads").

    Parameters
    ----------
    table : str
        The paper table (:func:`sskernels.paper_tables.paper_table`).
    dataset : str
        The data set's name in the table.
    method : str
        The paper row's name.
    n_labeled : int or None
        The setting's labeled points (None: not matched).
    metric : str, default=None
        Our metric (its complement's row counts too).

    Returns
    -------
    str
        ``"std"``, ``"se"`` or ``""``.

    Raises
    ------
    ValueError
        When the cell's ``spread`` is not one of :data:`SPREADS`, or not one value.
    """
    pt = paper_table(table)
    mean, _ = _paper_value(table, dataset, method, n_labeled, metric)
    if np.isnan(mean):
        return ""
    if "spread" not in pt.columns:
        return "std"
    hit = pt[(pt["method"] == method) & (pt["dataset"] == dataset)]
    if "n_labeled" in pt.columns and n_labeled is not None:
        hit = hit[hit["n_labeled"].astype(str) == str(int(n_labeled))]
    if "metric" in pt.columns and metric is not None:
        hit = hit[hit["metric"].isin([metric, COMPLEMENT.get(metric, metric)])]
    values = set(hit["spread"].dropna().astype(str)) or {"std"}
    bad = values - set(SPREADS)
    if bad or len(values) > 1:
        raise ValueError(
            f"paper table {table}: spread of {method} on {dataset} must be one "
            f"of {SPREADS}, got {sorted(values)}"
        )
    return values.pop()
