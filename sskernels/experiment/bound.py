"""Reachability bounds: how far a method's parameter grid can go when the test labels choose.

A diagnosis, never a result row.  A paper's number that our run misses
may be out of reach of the method as we implement it on our data, graph and splits — no
choice of its parameters gives it — or it may be a parameter choice we did not make.  The
bound tells the two apart: every candidate of the method's grid is fitted on each split with
the split's labels and scored on the unlabeled points' labels
(:func:`sskernels.experiment.oracle.oracle_fit`, the ``select: oracle`` protocol), and

* ``bound``: the mean over splits of each split's best candidate (selection per split on the
  test labels: no selection rule on the labeled points can do better on average);
* ``best_fixed``: the best single candidate, the same for every split (the best a
  parameter fixed in advance could have done), with its parameters.

A paper value above ``bound`` by more than twice the combined standard error — the bound's
over the splits and the paper's own (its ± where it reads as a standard error, else
± / sqrt(its number of splits)), :func:`sskernels.experiment.tables.beyond_reading` —
(``verdict`` ``beyond our reading``) cannot be reached by any candidate of that grid on these
splits: the miss lies in the protocol as we read it (data, graph, splits, the method's
reading; the ``reading`` column names what was held fixed), not in the parameter choice.
It is a verdict on our reading, not on the paper.  ``within reach`` says only that some choice of the test labels' liking gets
there, not that a principled rule would.

The grid: the method's own selection grid (parameters the spec sets to ``auto`` or to a list,
and the ones it selects by default); with ``free=True`` (the default) also every parameter the
spec fixes that the method can select (its class's ``_selection``), over that default grid —
the method's parameter space rather than the spec's one point of it.  Methods with no grid
(nothing to choose: their result is their bound) and regression specs are left out, and listed.

The bound's records go to a folder of their own beside the spec's (``<output>_bound``), with
the method labels marked "oracle bound"; they are resumable like any run's.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from sskernels.experiment.records import atomic_write_text
from sskernels.experiment.tables import BEYOND_SE

__all__ = ["BOUND_SCHEMA", "bound_spec", "bound_rows", "to_markdown", "write_bound"]

BOUND_SCHEMA = [
    "table",
    "dataset",
    "setting",
    "method",
    "grid",
    "n_splits",
    "paper_mean",
    "paper_std",
    "paper_spread",
    "paper_se",
    "ours",
    "bound",
    "bound_se",
    "best_fixed",
    "best_fixed_params",
    "gap",
    "verdict",
    "reading",
]
#: the suffix of a bound's method labels (the spec's label before it)
LABEL_SUFFIX = " (oracle bound: best test accuracy)"


def _reading_text(spec):
    """What a bound holds fixed (the reading its verdict is conditional on): the spec's file,
    its data (the registered data set's file(s) and size, or the user's file), preprocessing,
    graph and split protocol, and the reading's name under one."""
    from pathlib import Path

    g, s = spec.graph, spec.splits
    graph = f"{g.k}-NN {g.weights} graph" + ("" if g.metric == "euclidean" else f" ({g.metric})")
    text = (
        f"{Path(spec.path).name}: {_data_text(spec.dataset)}, preprocess {spec.preprocess}, "
        f"{graph}, {s.protocol} splits (seed {s.seed})"
    )
    reading = getattr(spec, "reading", None)
    return text + (f", reading {reading}" if reading else "")


def _data_text(dataset):
    """``data NAME (FILE, n x d)`` of a registered data set (two registered files can hold
    versions of the same data: PCMAC's 'pcmac' and 'pc-mac'), or ``data FILE``."""
    from pathlib import Path

    from sskernels.data.registry import get_entry

    if dataset.name is None:
        return f"data {Path(dataset.file).name}"
    try:
        e = get_entry(dataset.name)
    except Exception:  # the spec was checked; a name the registry lost
        return f"data {dataset.name}"
    files = ", ".join(Path(getattr(f, "path", str(f))).name for f in e.files)
    return f"data {e.name} ({files + ', ' if files else ''}{e.n} x {e.d})"


def _freed(method):
    """The method's params with every fixed parameter it can select set to ``auto``; and the
    names freed."""
    from sskernels.learners.registry import get_method

    cls = getattr(get_method(method.name).factory, "cls", None)
    selection = getattr(cls, "_selection", {}) if cls is not None else {}
    params, freed = dict(method.params), []
    for key in selection:
        value = params.get(key)
        if key in params and not isinstance(value, (list, tuple)) and value != "auto":
            params[key] = "auto"
            freed.append(key)
    return params, freed


def _grid(spec, method, params):
    """The flattened grid ``{name: values}`` the oracle would scan (empty: nothing to choose)."""
    from sskernels.learners.selection import flatten
    from sskernels.experiment.plan import method_params
    from sskernels.learners.registry import make_method

    probe = dataclasses.replace(method, params=params)
    try:
        return flatten(make_method(method.name, **method_params(spec, probe)))[1]
    except (TypeError, ValueError) as exc:
        # a method that cannot be built with its grid is an error, not "nothing to choose"
        raise ValueError(
            f"{spec.path}: method {method.label!r} ({method.name}): cannot build "
            f"its parameter grid: {exc}"
        ) from exc


def describe(grid):
    """``"beta (7) x C (8)"``: a grid's parameters and sizes, nested names shortened.

    A nested name keeps its last part (``kernel_learner__beta``: ``beta``).

    Parameters
    ----------
    grid : dict
        The flattened grid ``{name: values}``
        (:func:`sskernels.learners.selection.flatten`'s).

    Returns
    -------
    str
        The description; empty for an empty grid.
    """
    return " x ".join(f"{k.split('__')[-1]} ({len(v)})" for k, v in grid.items())


def bound_spec(spec, free=True):
    """The spec of a method grid's reachability bound, with the grids and the methods left out.

    ``spec`` with every method that has a grid turned to ``select: oracle`` (label +
    :data:`LABEL_SUFFIX`), output ``<output>_bound`` (and name ``<name>_bound``); a method
    without a grid is left out.

    Parameters
    ----------
    spec : Spec
        A classification spec.
    free : bool, default=True
        Also free every parameter the spec fixes that the method can select (its class's
        ``_selection``): set to ``auto``, over that default grid.

    Returns
    -------
    bspec : Spec
        The bound spec.
    grids : dict
        Maps each bound label to ``(grid description, freed parameter names)``
        (:func:`describe`).
    skipped : list of tuple
        ``(label, why)`` of the methods left out.

    Raises
    ------
    ValueError
        When none is left, for a spec that is not a classification task, and for a method
        that cannot be built with its grid.
    """
    from sskernels.spec import MethodSpec

    if spec.task != "classification":
        raise ValueError(
            f"{spec.path}: a bound ranks candidates by accuracy; this spec is a {spec.task} task"
        )
    methods, grids, skipped = [], {}, []
    for m in spec.methods:
        params, freed = _freed(m) if free else (dict(m.params), [])
        grid = _grid(spec, m, params)
        if not grid:
            skipped.append((m.label, "no parameter to choose"))
            continue
        label = m.label + LABEL_SUFFIX
        methods.append(MethodSpec(m.name, label, m.paper, params, "oracle"))
        grids[label] = (describe(grid), freed)
    if not methods:
        raise ValueError(f"{spec.path}: no method of this spec has a parameter grid to bound")
    out = dataclasses.replace(
        spec,
        name=f"{spec.name}_bound",
        methods=methods,
        output=str(spec.output).rstrip("/") + "_bound",
    )
    return out, grids, skipped


def bound_rows(records, spec, bspec, grids, ours=None):
    """Rows in :data:`BOUND_SCHEMA`, one per (setting, method), from the bound run's records.

    The records are a :func:`~sskernels.experiment.collect.records_frame` with its
    ``oracle`` column (only the ``accuracy`` metric is read); when given, the spec's own
    records (``ours``) put its selected result beside.  The paper's value, spread and
    standard error come from the bound spec's paper table; the ``verdict`` is empty without
    a paper value, ``no verdict`` with one split, else ``beyond our reading``
    (:func:`sskernels.experiment.tables.beyond_reading`) or ``within reach``.

    Parameters
    ----------
    records : pandas.DataFrame
        The bound run's records (long format, with the ``oracle`` column).
    spec : Spec
        The spec bounded (its table name and its reading: the ``table`` and ``reading``
        columns).
    bspec : Spec
        The bound spec (:func:`bound_spec`); its paper table is looked up.
    grids : dict
        :func:`bound_spec`'s grid descriptions and freed parameters, by bound label.
    ours : pandas.DataFrame, default=None
        The spec's own records (long format), for the ``ours`` column.

    Returns
    -------
    pandas.DataFrame
        The rows, columns :data:`BOUND_SCHEMA`.

    Raises
    ------
    ValueError
        For a paper table whose spread, or a cell it declares the same as another, does not
        read as one (:func:`~sskernels.experiment.tables.paper_spread`,
        :func:`~sskernels.experiment.tables.paper_cell`).
    """
    from sskernels.experiment.tables import (
        _paper_value,
        beyond_reading,
        paper_cell,
        paper_se,
        paper_spread,
        table_name,
    )

    acc = records[records["metric"] == "accuracy"]
    rows = []
    for (setting, label), g in acc.groupby(["setting", "method"], sort=False):
        first = g.iloc[0]
        vals = g["value"].to_numpy(float)
        n = vals.size
        se = float(vals.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
        best_fixed, best_params = _best_fixed(g["oracle"].tolist())
        pm = ps = pn = np.nan
        spread = ""
        if bspec.paper.table:
            pm, ps = _paper_value(
                bspec.paper.table,
                first["dataset"],
                first["paper"],
                first.get("n_labeled"),
                "accuracy",
            )
            if not np.isnan(pm):
                spread = paper_spread(
                    bspec.paper.table,
                    first["dataset"],
                    first["paper"],
                    first.get("n_labeled"),
                    "accuracy",
                )
                _, pn = paper_cell(
                    bspec.paper.table,
                    first["dataset"],
                    first["paper"],
                    first.get("n_labeled"),
                    "accuracy",
                )
        own = label[: -len(LABEL_SUFFIX)] if label.endswith(LABEL_SUFFIX) else label
        mine = np.nan
        if ours is not None and not ours.empty:
            hit = ours[
                (ours["metric"] == "accuracy")
                & (ours["method"] == own)
                & (ours["setting"] == setting)
            ]
            if len(hit):
                mine = float(hit["value"].mean())
        bound = float(vals.mean())
        gap = pm - bound if not np.isnan(pm) else np.nan
        # one split has no standard error: no verdict rather than a "within reach" by default
        p_se = paper_se(ps, spread, pn)
        verdict = (
            ""
            if np.isnan(pm)
            else "no verdict (one split: no standard error)"
            if not np.isfinite(se)
            else ("beyond our reading" if beyond_reading(pm, bound, se, p_se) else "within reach")
        )
        desc, freed = grids.get(label, ("", []))
        if freed:
            desc += " (freed: " + ", ".join(freed) + ")"
        rows.append(
            {
                "table": table_name(spec),
                "dataset": first["dataset"],
                "setting": setting,
                "method": own,
                "grid": desc,
                "n_splits": int(n),
                "paper_mean": pm,
                "paper_std": ps,
                "paper_spread": spread,
                "paper_se": round(p_se, 2) if not np.isnan(p_se) else np.nan,
                "reading": _reading_text(spec),
                "ours": round(mine, 2) if not np.isnan(mine) else np.nan,
                "bound": round(bound, 2),
                "bound_se": round(se, 2),
                "best_fixed": round(best_fixed, 2) if not np.isnan(best_fixed) else np.nan,
                "best_fixed_params": best_params,
                "gap": round(gap, 2) if not np.isnan(gap) else np.nan,
                "verdict": verdict,
            }
        )
    return pd.DataFrame(rows, columns=BOUND_SCHEMA)


def _best_fixed(infos):
    """``(mean accuracy, params)`` of the one candidate best on average over the splits
    (ties: the first, the grid's preference order); ``(nan, "")`` if the splits' grids differ."""
    infos = [i for i in infos if isinstance(i, dict) and i.get("accuracy")]
    if not infos:
        return np.nan, ""
    params = infos[0]["params"]
    if any(i["params"] != params for i in infos):
        return np.nan, ""
    A = np.array([i["accuracy"] for i in infos], dtype=float)
    means = A.mean(axis=0)
    j = int(np.flatnonzero(means == means.max())[0])
    return float(means[j]), ", ".join(
        f"{k.split('__')[-1]}={v:g}" if isinstance(v, float) else f"{k.split('__')[-1]}={v}"
        for k, v in params[j].items()
    )


def to_markdown(df, title=None, skipped=()):
    """The Markdown page of a bound: what it means, then one table row per bound row.

    Each row shows the data set, setting, method, grid, the paper's value (``se`` where its
    ± reads as a standard error), ours, the bound ± its standard error, the best fixed
    candidate with its parameters, the gap and the verdict; the methods left out are listed
    under the table.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows in :data:`BOUND_SCHEMA` (:func:`bound_rows`).
    title : str, default=None
        A ``# title`` heading at the top; none when None or empty.
    skipped : sequence of tuple, default=()
        ``(label, why)`` of the methods left out (:func:`bound_spec`), listed by label.

    Returns
    -------
    str
        The page, ending with a newline.
    """

    def num(v, f="{:.2f}"):
        return "" if pd.isna(v) else f.format(v)

    lines = [f"# {title}", ""] if title else []
    lines += [
        "Reachability bound: a diagnosis, never a result. Accuracy (%) on the unlabeled "
        "points, mean over splits. bound: each split's best candidate of the grid, chosen "
        "on the test labels; best fixed: the one candidate best on average; ours: the "
        "spec's own result (selection on the labeled points); gap = paper − bound; beyond "
        f"our reading: gap > {BEYOND_SE:g} × the combined standard error (the bound's "
        "over the splits and the paper's own: its ± where it reads as a standard error, "
        "else ± / √ its splits), i.e. no candidate of the grid gets there on these "
        "splits with the data, graph, preprocessing and splits held as we read them "
        "(a verdict on our reading, not on the paper).",
        "",
        "| data set | setting | method | grid | paper | ours | bound ± se | best fixed "
        "(parameters) | gap | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in df.itertuples():
        paper = (
            ""
            if pd.isna(r.paper_mean)
            else num(r.paper_mean)
            + (
                ""
                if pd.isna(r.paper_std)
                else " ± " + num(r.paper_std) + (" se" if r.paper_spread == "se" else "")
            )
        )
        lines.append(
            f"| {r.dataset} | {r.setting} | {r.method} | {r.grid} | {paper} | "
            f"{num(r.ours)} | {num(r.bound)} ± {num(r.bound_se)} | "
            f"{num(r.best_fixed)} ({r.best_fixed_params}) | "
            f"{num(r.gap, '{:+.2f}')} | {r.verdict} |"
        )
    if skipped:
        lines += [
            "",
            "Left out (no parameter to choose): "
            + ", ".join(sorted({label for label, _ in skipped}))
            + ".",
        ]
    return "\n".join(lines) + "\n"


def write_bound(df, stem, title=None, skipped=()):
    """Write ``stem.csv`` (:data:`BOUND_SCHEMA`) and ``stem.md`` atomically.

    The CSV's floats with 4 significant digits; the Markdown by :func:`to_markdown`.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows in :data:`BOUND_SCHEMA` (:func:`bound_rows`).
    stem : str
        The files' path without suffix.
    title : str, default=None
        The Markdown page's title.
    skipped : sequence of tuple, default=()
        ``(label, why)`` of the methods left out (:func:`bound_spec`).
    """
    atomic_write_text(f"{stem}.csv", df[BOUND_SCHEMA].to_csv(index=False, float_format="%.4g"))
    atomic_write_text(f"{stem}.md", to_markdown(df, title, skipped))
