"""Summary tables in the one schema every table of the project shares.

Columns: ``table, dataset, setting, method, metric, mean, std, se, n_splits,
paper_mean, paper_std, paper_spread, delta, matched, seconds, notes`` — one row per cell;
``mean``/``std``
over splits (std with ddof=1, as MATLAB's ``std``), ``se = std / sqrt(n_splits)`` the
standard error of the mean (some papers print it where they say std: compare like with
like), ``seconds`` the mean fit +
predict time per split, paper columns empty where the paper has no value,
``delta = mean - paper_mean`` (a paper table may give the complement of a metric, e.g.
error for our accuracy: see :func:`_paper_value`); ``paper_spread`` how the paper's printed
± reads (``std`` or ``se``, from the paper table's ``spread`` column: :func:`paper_spread`),
``matched`` whether ``|delta| <= paper_std`` (:func:`within_spread`: ours rounded to the
paper's printed decimals first) — the paper's spread as printed, so where it is
a standard error the cell must be within the paper's standard error (and the Markdown shows
the paper's value with "se"); empty for times and cells without a paper value; ``selected``
the grid values chosen per split (:func:`selected_text`, e.g. ``"alpha 0.9 x7, 0.5 x3"``:
selection on the labeled points, or on the test labels in an oracle row); ``notes`` lists each fallback or degenerate-fit
note of the cell's records (``record["report"]["notes"]``, see
:mod:`sskernels.solvers.report`) with the number of splits it fired in, e.g.
``"fallback: svm-dual highs->libsvm (time limit) x3/20"`` (several joined by
``"; "``), empty when there is none; ``paper_cell`` the identity of the paper's cell
(:func:`paper_cell`: one id for a cell the paper prints in two tables) and ``paper_n`` the
number of splits behind the paper's value; ``protocol`` ``paper`` on the row that follows the
paper's stated protocol for its cell (the spec's ``protocol: paper``; empty: ours);
``reading`` the name of the documented alternative reading the row ran under (empty: the
primary spec).

Beside a combined table ``STEM.csv`` the per-split values are published as
``STEM_splits.csv`` (:data:`SPLITS_SCHEMA`: one row per record and accuracy-type
metric, full precision): a rerun of a few splits is compared with them
(``paper/regression.py`` in the repository), which a mean over all splits does not allow.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from sskernels.experiment.records import atomic_write_text
from sskernels.paper_tables import paper_table

SCHEMA = [
    "table",
    "dataset",
    "setting",
    "method",
    "metric",
    "mean",
    "std",
    "se",
    "n_splits",
    "paper_mean",
    "paper_std",
    "paper_spread",
    "delta",
    "matched",
    "seconds",
    "notes",
    "selected",
    "paper_cell",
    "paper_n",
    "protocol",
    "reading",
]
#: readings of a paper's printed spread (a paper table's ``spread`` column)
SPREADS = ("std", "se")
#: the per-split file beside a combined table (``STEM_splits.csv``)
SPLITS_SCHEMA = ["table", "dataset", "setting", "method", "metric", "split", "value"]
#: metrics that are not accuracies (left out of the per-split files)
TIME_METRICS = ("seconds",)


def table_name(spec):
    """The ``table`` column of a spec's rows: ``spec.table or spec.name``.

    With ``@READING`` under a documented reading, so that a reading's rows never share a key
    with the primary spec's (or another reading's) in a combined table.

    Parameters
    ----------
    spec : Spec
        The experiment spec.

    Returns
    -------
    str
        The table's name.
    """
    name = spec.table or spec.name
    reading = getattr(spec, "reading", None)
    return f"{name}@{reading}" if reading else name


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


#: the decimals a paper prints (every paper table here: 2) and to which ours is rounded before
#: it is compared with the paper's value (:func:`within_spread`: one rounding rule everywhere)
PAPER_DECIMALS = 2
#: a verdict "beyond our reading": the bound below the paper by more than this many combined
#: standard errors (:func:`beyond_reading`)
BEYOND_SE = 2.0


def within_spread(ours, paper_mean, paper_std):
    """Matched: ``|ours - paper| <= the paper's printed ±``, ours rounded to the paper's decimals.

    Ours is rounded to the paper's printed decimals (:data:`PAPER_DECIMALS`) first, so that a
    value the paper would print the same counts the same everywhere (a float tolerance of
    1e-9 for the boundary).  False where the paper prints no ± (NaN), and where either mean
    is NaN.

    Parameters
    ----------
    ours : float
        Our mean.
    paper_mean : float
        The paper's value.
    paper_std : float
        The paper's printed ±.

    Returns
    -------
    bool
        Whether ours is within the paper's ±.
    """
    if pd.isna(paper_mean) or pd.isna(paper_std) or pd.isna(ours):
        return False
    return bool(
        abs(round(float(ours), PAPER_DECIMALS) - float(paper_mean)) <= float(paper_std) + 1e-9
    )


def paper_se(paper_std, spread, paper_n):
    """The paper's standard error of its mean.

    Its ± where it reads as one (``spread`` ``se``), else ``± / sqrt(n)`` over its
    ``paper_n`` splits (the ± itself, conservatively, where n is unknown).

    Parameters
    ----------
    paper_std : float
        The paper's printed ±.
    spread : str
        How it reads: ``"std"`` or ``"se"`` (:func:`paper_spread`).
    paper_n : float
        The paper's number of splits (NaN or 0: unknown).

    Returns
    -------
    float
        The standard error; NaN where the paper prints no ±.
    """
    if pd.isna(paper_std):
        return np.nan
    if spread == "se" or pd.isna(paper_n) or not paper_n:
        return float(paper_std)
    return float(paper_std) / np.sqrt(float(paper_n))


def beyond_reading(paper_mean, bound, bound_se, p_se):
    """``True`` where a reachability bound stays below the paper's value by more than it can miss.

    The bound is the best a grid can do with the test labels choosing; it stays below the
    paper's value by more than :data:`BEYOND_SE` combined standard errors,
    ``sqrt(bound_se^2 + paper_se^2)``: no parameter of that grid reaches it under our
    reading (data, graph, preprocessing, splits and the method's reading held fixed), even
    allowing for the paper's own sampling error.  ``None`` without a standard error (of the
    bound; the paper's counts as 0 where it has none).

    Parameters
    ----------
    paper_mean : float
        The paper's value.
    bound : float
        The bound: the mean over splits of each split's best candidate.
    bound_se : float
        The bound's standard error over the splits.
    p_se : float
        The paper's standard error (:func:`paper_se`; NaN: 0).

    Returns
    -------
    bool or None
        The verdict; None when ``paper_mean``, ``bound`` or ``bound_se`` is NaN.
    """
    if pd.isna(paper_mean) or pd.isna(bound) or pd.isna(bound_se):
        return None
    combined = np.sqrt(float(bound_se) ** 2 + (0.0 if pd.isna(p_se) else float(p_se)) ** 2)
    return bool(float(paper_mean) - float(bound) > BEYOND_SE * combined)


#: decimals of a summary's mean and std, per metric (2 otherwise)
METRIC_DECIMALS = {"alignment": 4, "rmse": 6, "mse": 8}
#: regression metrics (targets' units, not percent): printed with significant digits
REGRESSION_METRICS = ("rmse", "mse")
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


def _time_rows(records, spec):
    """Metric "seconds": fit + predict time per split (selection included), beside the
    paper's time table, and one "graph (Lap)" row for the label-independent work."""
    from sskernels.experiment.records import read_graph_searches, read_graph_seconds
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
        row["notes"] = "; ".join(search_summary(s) for s in read_graph_searches(spec.output))
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


def _record_notes(row):
    """The notes of one record row: ``report["notes"]`` (a missing report: no notes)."""
    rep = row.get("report")
    if isinstance(rep, dict):
        notes = rep.get("notes") or []
    else:
        notes = row.get("notes")
        notes = notes if isinstance(notes, (list, tuple)) else []
    return [str(n) for n in notes]


def _notes(g):
    """``"note xK/N; ..."``: each note of a cell's records and the number K of its N splits
    it fired in (first-seen order); empty when no record has a note."""
    if "report" not in g.columns and "notes" not in g.columns:
        return ""
    one = g.drop_duplicates(["split"])
    counts = {}
    for _, r in one.iterrows():
        for note in dict.fromkeys(_record_notes(r)):
            counts[note] = counts.get(note, 0) + 1
    n = len(one)
    return "; ".join(f"{note} x{k}/{n}" for note, k in counts.items())


_NOTE_SPLIT = re.compile(r"; (?=(?:fallback|degenerate): )")


def split_notes(text):
    """The entries of a ``notes`` cell (``"note xK/N"`` each); [] for an empty cell.

    Parameters
    ----------
    text : str
        The cell (anything else than a non-blank string is empty).

    Returns
    -------
    list of str
        The entries: the cell split at each ``"; "`` that precedes ``"fallback: "`` or
        ``"degenerate: "``.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    return _NOTE_SPLIT.split(text.strip())


def _cell(r, marks=""):
    fmt = {"seconds": "{:.4f}", "alignment": "{:.3f}", "rmse": "{:.3g}", "mse": "{:.3g}"}.get(
        r["metric"], "{:.2f}"
    )

    def pm(mean, std, unit=""):
        return fmt.format(mean) + ("" if pd.isna(std) else " ± " + fmt.format(std) + unit)

    ours = pm(r["mean"], r["std"])
    if not pd.isna(r.get("se", np.nan)) and r.get("n_splits", 1) > 1:
        ours += ", se " + fmt.format(r["se"])
    if pd.isna(r["paper_mean"]):
        return ours + marks
    delta = f"{r['delta']:+.3g}" if r["metric"] in REGRESSION_METRICS else f"{r['delta']:+.2f}"
    unit = " se" if r.get("paper_spread") == "se" else ""
    hit = " ✓" if r.get("matched") is True or str(r.get("matched")) == "True" else ""
    return f"{ours} ({pm(r['paper_mean'], r['paper_std'], unit)}, Δ {delta}{hit}){marks}"


def _header():
    """The provenance line of a summary (empty until ``sskernels.provenance`` exists)."""
    try:
        from sskernels.provenance import summary_header
    except ImportError:
        return ""
    try:
        return summary_header() or ""
    except Exception:  # a summary is still worth writing without its provenance line
        return ""


def _footnote_text(entry):
    m = re.fullmatch(r"(.*) x(\d+)/(\d+)", entry)
    if not m:
        return entry
    return f"{m.group(1)} (in {m.group(2)} of {m.group(3)} splits)"


def to_markdown(df, title=None, header=None):
    """Methods as rows, data sets as columns: ``ours ± std, se s (paper ± std, Δ)``, then times.

    ``header`` (default :func:`sskernels.provenance.summary_header`) is written under the
    title; a cell with notes gets footnote marks ``[1]``, listed under its table with the
    number of splits each note fired in.

    Parameters
    ----------
    df : pandas.DataFrame
        Summary rows (:data:`SCHEMA`).
    title : str, default=None
        A ``# title`` heading; none when None or empty.
    header : str, default=None
        The provenance line; None: :func:`sskernels.provenance.summary_header`; empty:
        none.

    Returns
    -------
    str
        The Markdown, one table (and one of times) per (setting, metric).
    """
    header = _header() if header is None else header
    lines = [f"# {title}", ""] if title else []
    if header:
        lines += [f"Produced by {header}", ""]
    numbers = {}  # (setting, method, dataset, note) -> footnote number (whole document)
    if "notes" not in df.columns:
        df = df.assign(notes="")
    for (setting, metric), g in df.groupby(["setting", "metric"], sort=False):
        datasets = list(dict.fromkeys(g["dataset"]))
        methods = list(dict.fromkeys(g["method"]))
        cells = {(r["method"], r["dataset"]): r for _, r in g.iterrows()}
        n = int(g["n_splits"].max())
        where = (
            "the unseen (held-out) points"
            if metric.startswith("inductive")
            else "the unlabeled points"
        )
        what = (
            "seconds per split (fit + predict, parameter selection included; "
            "graph (Lap): graphs and spectra, once per data set)"
            if metric == "seconds"
            else "centered alignment (in [0, 1]) of the learned kernel with the ideal "
            f"kernel on {where}"
            if metric == "alignment"
            else f"{metric} of the targets on the test points (the labeled pool's points "
            "that are not labeled; mse = mean squared error over points and targets, "
            "rmse = its square root)"
            if metric in REGRESSION_METRICS
            else f"{metric} (%) on {where}"
        )
        lines += [
            f"{what}, {setting}, mean ± std over {n} splits (se = std / √n, the "
            "standard error of the mean); in brackets the paper's value (its ± a std, "
            "or a standard error where marked se) and our difference, ✓ where it is "
            "within the paper's ±",
            "",
        ]
        lines += ["| method | " + " | ".join(datasets) + " |", "|---|" + "---|" * len(datasets)]
        used = []
        for m in methods:
            row = []
            for d in datasets:
                if (m, d) not in cells:
                    row.append("")
                    continue
                marks = []
                for entry in split_notes(cells[(m, d)]["notes"]):
                    k = numbers.setdefault((setting, m, d, entry), len(numbers) + 1)
                    marks.append(f"[{k}]")
                    if (k, m, d, entry) not in used:
                        used.append((k, m, d, entry))
                row.append(_cell(cells[(m, d)], (" " + " ".join(marks)) if marks else ""))
            lines.append(f"| {m} | " + " | ".join(row) + " |")
        if used:
            what = (
                "fallbacks, degenerate fits and the graphs' neighbour searches"
                if any(e.startswith("k-NN ") for _, _, _, e in used)
                else "fallbacks and degenerate fits"
            )
            lines += ["", f"Notes ({what}):", ""]
            lines += [f"- [{k}] {m}, {d}: {_footnote_text(entry)}" for k, m, d, entry in used]
        chosen = [
            (m, d, cells[(m, d)].get("selected"))
            for m in methods
            for d in datasets
            if (m, d) in cells
            and isinstance(cells[(m, d)].get("selected"), str)
            and cells[(m, d)].get("selected")
        ]
        if chosen:
            lines += ["", "<details><summary>Parameters selected (value ×splits)</summary>", ""]
            lines += [f"- {m}, {d}: {sel.replace(' x', ' ×')}" for m, d, sel in chosen]
            lines += ["", "</details>"]
        lines += ["", "seconds per split (fit + predict, mean)", ""]
        lines += ["| method | " + " | ".join(datasets) + " |", "|---|" + "---|" * len(datasets)]
        for m in methods:
            lines.append(
                f"| {m} | "
                + " | ".join(
                    f"{cells[(m, d)]['seconds']:.4f}" if (m, d) in cells else "" for d in datasets
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def select_metrics(df, metrics):
    """Keep only the rows of the given metrics (all when ``metrics`` is empty).

    Parameters
    ----------
    df : pandas.DataFrame
        Rows with a ``metric`` column.
    metrics : collection of str or None
        The metrics kept; empty or None: all.

    Returns
    -------
    pandas.DataFrame
        The rows kept.
    """
    return df[df["metric"].isin(metrics)] if metrics else df


def write_table(df, stem, title=None):
    """Write ``stem.csv`` (schema) and ``stem.md`` atomically.

    Missing optional columns are added empty; the CSV's floats with 4 significant digits,
    the Markdown by :func:`to_markdown`.

    Parameters
    ----------
    df : pandas.DataFrame
        Summary rows (:data:`SCHEMA`).
    stem : str
        The files' path without suffix.
    title : str, default=None
        The Markdown's title.
    """
    for col in ("notes", "selected", "paper_cell", "protocol", "reading"):
        if col not in df.columns:
            df = df.assign(**{col: ""})
    if "paper_n" not in df.columns:
        df = df.assign(paper_n=np.nan)
    df = df[SCHEMA]
    atomic_write_text(f"{stem}.csv", df.to_csv(index=False, float_format="%.4g"))
    atomic_write_text(f"{stem}.md", to_markdown(df, title) + "\n")


def split_rows(records, spec=None):
    """The per-split values of a spec's records in :data:`SPLITS_SCHEMA`, record order kept.

    One row per record and metric, times (:data:`TIME_METRICS`) left out; ``table``
    is :func:`table_name` as in the summary rows (the records' own field
    when no spec is given).

    Parameters
    ----------
    records : pandas.DataFrame or None
        The records in long format (:func:`~sskernels.experiment.collect.load_records`).
    spec : Spec, default=None
        The spec, for the ``table`` column.

    Returns
    -------
    pandas.DataFrame
        The rows; empty (with the columns) for no records.
    """
    if records is None or len(records) == 0:
        return pd.DataFrame(columns=SPLITS_SCHEMA)
    df = records[~records["metric"].isin(TIME_METRICS)]
    if spec is not None:
        df = df.assign(table=table_name(spec))
    df = df[SPLITS_SCHEMA].reset_index(drop=True)
    return df.astype({"split": int, "value": float})


def splits_path(stem):
    """``STEM_splits.csv``: where the per-split values of the table ``STEM`` go.

    Parameters
    ----------
    stem : str
        The table's path without suffix.

    Returns
    -------
    str
        The path.
    """
    return f"{stem}_splits.csv"


def write_splits(rows, stem, metrics=None):
    """Write ``STEM_splits.csv`` (values at full precision) atomically.

    Parameters
    ----------
    rows : pandas.DataFrame
        Per-split rows (:func:`split_rows`).
    stem : str
        The table's path without suffix (:func:`splits_path`).
    metrics : collection of str, default=None
        The metrics kept (:func:`select_metrics`); None: all.  Times
        (:data:`TIME_METRICS`) are left out in any case.

    Returns
    -------
    str or None
        The file's path, or None when no accuracy-type row is left (a table of times only):
        nothing is written then.
    """
    rows = select_metrics(rows, metrics)
    rows = rows[~rows["metric"].isin(TIME_METRICS)]
    if rows.empty:
        return None
    path = splits_path(stem)
    atomic_write_text(path, rows[SPLITS_SCHEMA].to_csv(index=False))
    return path


def read_splits(path):
    """A ``*_splits.csv`` file as written by :func:`write_splits` (values as float64).

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    pandas.DataFrame
        The rows, text columns as str (empty cells as ``""``), ``split`` int.
    """
    return pd.read_csv(
        path,
        dtype={
            "table": str,
            "dataset": str,
            "setting": str,
            "method": str,
            "metric": str,
            "split": int,
            "value": float,
        },
        keep_default_na=False,
    )
