"""The verdict class of a row with a paper value: the rules of ``results/fidelity.md``.

One class per row, decided in this order (the same rules, constants and helpers as the
repository's ``scripts/fidelity_figure.py``, which writes ``results/fidelity.md``; a test
checks that both classify every committed row alike):

* ``matched``: ``|ours - paper|`` within the paper's ± (ours rounded to the paper's printed
  decimals: :func:`sskernels.experiment.tables.within_spread`);
* ``unmatchable``: the paper's ± is below one unit of its last printed decimal;
* ``beyond``: a reachability bound (``*_bound.csv``), or the row itself when it selects on
  the test labels (an oracle row), is worse than the paper by more than two combined
  standard errors (:func:`sskernels.experiment.tables.beyond_reading`);
* ``better``: ours better than the paper by more than two combined standard errors;
* ``near``: within two combined standard errors;
* ``open``: the rest;
* ``""``: the paper prints no ± (or no value).
"""

from __future__ import annotations

import math

import pandas as pd

from sskernels.experiment.tables import PAPER_DECIMALS, beyond_reading, paper_se, within_spread

#: a paper ± below one unit of its means' last printed decimal: unmatchable at that precision
UNMATCHABLE_BELOW = 10.0**-PAPER_DECIMALS
#: the verdict classes, in the order they are decided
VERDICTS = ("matched", "unmatchable", "beyond", "better", "near", "open")
#: their text in a report
VERDICT_TEXT = {
    "matched": "matched",
    "unmatchable": "unmatchable at the printed precision",
    "beyond": "beyond our reading",
    "better": "ours better by > 2 se",
    "near": "near miss (within 2 se)",
    "open": "open",
    "": "",
}
#: +1 where a higher value is better, -1 where lower is (the metrics a paper cell may hold)
DIRECTION = {"accuracy": 1.0, "alignment": 1.0, "error": -1.0}
#: the key of a bound row (``*_bound.csv``)
BOUND_KEY = ["table", "dataset", "setting", "method"]


def _num(row, col):
    v = row.get(col, math.nan)
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def combined_se(row):
    """``sqrt(ours_se^2 + paper_se^2)`` of a schema row (a missing se counts as 0).

    Parameters
    ----------
    row : mapping
        A summary row (:data:`sskernels.experiment.tables.SCHEMA`).

    Returns
    -------
    float
        The combined standard error.

    Examples
    --------
    >>> round(combined_se({"se": 0.3, "paper_std": 0.4, "paper_spread": "se", "paper_n": 10}), 3)
    0.5
    """
    ours = _num(row, "se")
    p_se = paper_se(row.get("paper_std"), row.get("paper_spread"), row.get("paper_n"))
    p_se = float(p_se) if p_se is not None and not pd.isna(p_se) else 0.0
    return math.hypot(0.0 if math.isnan(ours) else ours, p_se)


def bound_verdict(row, bounds):
    """``(beyond, evidence)``: whether a bound row of ``bounds`` puts the paper's value of
    ``row`` beyond our reading (accuracy and error rows only; False and "" without one)."""
    if bounds is None or bounds.empty or row.get("metric") not in ("accuracy", "error"):
        return False, ""
    hit = bounds
    for col in BOUND_KEY:
        hit = hit[hit[col] == row.get(col)]
    if hit.empty:
        return False, ""
    b = hit.iloc[0]
    pm = _num(row, "paper_mean")
    paper = pm if row["metric"] == "accuracy" else 100.0 - pm
    p_se = paper_se(row.get("paper_std"), row.get("paper_spread"), row.get("paper_n"))
    verdict = beyond_reading(paper, b["bound"], b["bound_se"], p_se)
    reading = str(b.get("reading", "")) if pd.notna(b.get("reading", math.nan)) else ""
    grid = f"grid {b['grid']}" if "grid" in b.index and pd.notna(b["grid"]) else ""
    return bool(verdict), "; ".join(x for x in (reading, grid) if x)


def verdict(row, bounds=None):
    """``(class, evidence)`` of one summary row: one of :data:`VERDICTS`, or ``""`` where the
    paper prints no value or no ±.

    Parameters
    ----------
    row : mapping
        A summary row (:data:`sskernels.experiment.tables.SCHEMA`: ``mean``, ``se``,
        ``metric``, ``method``, ``paper_mean``, ``paper_std``, ``paper_spread``,
        ``paper_n``).
    bounds : pandas.DataFrame or None, default=None
        Reachability bounds (the rows of ``*_bound.csv`` files: ``table, dataset, setting,
        method, bound, bound_se``), or None.

    Returns
    -------
    verdict : str
        The class.
    evidence : str
        What a ``beyond`` verdict rests on; "" otherwise.

    Examples
    --------
    >>> row = {"method": "TSK", "metric": "accuracy", "mean": 72.0, "se": 0.5,
    ...        "paper_mean": 71.0, "paper_std": 1.5, "paper_spread": "std", "paper_n": 20}
    >>> verdict(row)
    ('matched', '')
    >>> verdict({**row, "mean": 80.0})
    ('better', '')
    >>> verdict({**row, "mean": 70.0, "paper_std": 0.6})
    ('near', '')
    >>> verdict({**row, "paper_std": float("nan")})
    ('', '')
    """
    pm, ps = _num(row, "paper_mean"), _num(row, "paper_std")
    if math.isnan(pm) or math.isnan(ps):
        return "", ""
    mean = _num(row, "mean")
    if within_spread(mean, pm, ps):
        return "matched", ""
    if ps < UNMATCHABLE_BELOW - 1e-12:
        return "unmatchable", f"± {ps:g} < {UNMATCHABLE_BELOW:g}"
    beyond, evidence = bound_verdict(row, bounds)
    if beyond:
        return "beyond", evidence
    direction = DIRECTION.get(row.get("metric"))
    delta = mean - pm
    se = combined_se(row)
    oracle = "oracle" in str(row.get("method", ""))
    if (
        oracle
        and direction is not None
        and row.get("metric") != "alignment"
        and direction * delta < -2.0 * se
    ):
        what = row.get("selected")
        what = str(what) if isinstance(what, str) and what else ""
        return "beyond", "the row's own test-label selection over its grid" + (
            f" (chosen: {what})" if what else ""
        )
    if direction is not None and direction * delta > 2.0 * se:
        return "better", ""
    if abs(delta) <= 2.0 * se:
        return "near", ""
    return "open", ""
