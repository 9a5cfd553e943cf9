"""The report's data: recorded tables found on disk, their per-split values, the user's
rows, the verdicts, and a leaderboard per suite.

**Sources.**  A path given to :func:`load` is a combined table (``STEM.csv`` in the summary
schema, :data:`sskernels.experiment.tables.SCHEMA`, written by ``sskernels run --table``,
``sskernels table`` or ``make tables``; its per-split values ``STEM_splits.csv`` beside it),
or a folder searched for them and for run output folders (``summary.csv`` beside
``records/``: what ``sskernels run`` writes without ``--table``, by default under
``./results/.../runs/NAME``).  A run folder's rows of a (table, data set, setting, method) that a combined table
holds are left out (whatever their metric: a table may keep some metrics only).

**Suites.**  The rows of one combined table are one suite, named after the file
(``results/liu2009/table3.csv`` -> ``liu2009/table3``); the rows of run folders are grouped
by their ``table`` column (the spec's paper table, e.g. ``liu2009-t3``).

**The user's rows** are those of an estimator that is not a registered method: a record's
``method_name`` is an import path (``--with Mine=myssl:LabeledKNN``, ``estimator:``) or a
name the registry does not know (an entry point); and any label given in ``highlight``.

**Leaderboard.**  Per suite and metric: the "data sets" are the suite's (table, data set,
setting) groups; each row's rank within a data set by its mean (1 = best; ties share the
average rank), averaged over the data sets the row has; and per pair of rows and data set, a
paired test over the splits both have: the Wilcoxon signed-rank test (two-sided, exact,
conditional on ties: :func:`signed_rank_pvalue`; :data:`ALPHA` = 5 %); a win where the difference is significant and in the
row's favour, a loss where it is against it, a tie otherwise (fewer than :data:`MIN_SPLITS`
common splits, or all differences zero, is a tie: no test can tell the rows apart; with fewer
than 6 splits no two-sided Wilcoxon test reaches 5 %).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sskernels.experiment.tables import SCHEMA, SPLITS_SCHEMA
from sskernels.report.verdicts import BOUND_KEY, verdict

#: significance level of the paired test
ALPHA = 0.05
#: fewer common splits than this: a tie without a test
MIN_SPLITS = 2
#: +1: higher is better; -1: lower is better (metrics not listed are left out of rankings)
BETTER = {"accuracy": 1, "alignment": 1, "r2": 1, "error": -1, "rmse": -1, "mse": -1}


def direction(metric):
    """+1 where a higher ``metric`` is better, -1 where a lower one is, None: not ranked
    (:data:`BETTER`, then any "... accuracy" higher and "... error" lower).

    Examples
    --------
    >>> direction("accuracy"), direction("inductive accuracy"), direction("rmse")
    (1, 1, -1)
    >>> direction("seconds") is None
    True
    """
    if metric in BETTER:
        return BETTER[metric]
    words = str(metric).split()
    if "accuracy" in words:
        return 1
    if "error" in words:
        return -1
    return None


#: the name of the paired test, as the report states it
PAIRED_TEST = (
    "Wilcoxon signed-rank test, two-sided, paired over the splits both rows have, 5 % level"
)
#: the key of a summary row
ROW_KEY = ["table", "dataset", "setting", "method", "metric"]
_REQUIRED = {"table", "dataset", "setting", "method", "metric", "mean", "std"}
_NOT_SUMMARIES = ("_splits", "_time", "_bound")


@dataclass
class ReportData:
    """What a report shows.

    Attributes
    ----------
    rows : pandas.DataFrame
        Summary rows (:data:`~sskernels.experiment.tables.SCHEMA`) with ``suite``,
        ``source`` (the file), ``user`` (bool), ``verdict`` and ``evidence``.
    splits : pandas.DataFrame
        Per-split values: ``suite`` and :data:`~sskernels.experiment.tables.SPLITS_SCHEMA`.
    sources : list of dict
        Each source file or run folder: ``path``, ``kind``, ``rows``, ``sha256``.
    provenance : pandas.DataFrame
        The distinct provenance of the records read (versions, commit), with a count.
    """

    rows: pd.DataFrame
    splits: pd.DataFrame
    sources: list = field(default_factory=list)
    provenance: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def suites(self):
        """The suites, in the order their rows came."""
        return list(dict.fromkeys(self.rows["suite"]))


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _read_schema_csv(path):
    """A summary CSV's rows, or None when the file is not in the summary schema."""
    try:
        head = pd.read_csv(path, nrows=0)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
        return None
    if not _REQUIRED <= set(head.columns):
        return None
    df = pd.read_csv(
        path,
        dtype={
            "protocol": str,
            "reading": str,
            "paper_cell": str,
            "notes": str,
            "selected": str,
            "setting": str,
            "dataset": str,
            "method": str,
            "table": str,
        },
    )
    for col in SCHEMA:
        if col not in df.columns:
            df[col] = np.nan
    return df


def _is_run_folder(path):
    return (path / "summary.csv").is_file() and (path / "records").is_dir()


def find_sources(paths):
    """``(tables, runs)``: the combined tables and the run folders under ``paths``.

    Parameters
    ----------
    paths : iterable of path-like
        Combined tables (``STEM.csv``) or folders to search.

    Returns
    -------
    tables : list of pathlib.Path
        Summary CSVs in the schema (not ``*_splits``, ``*_time``, ``*_bound``,
        ``summary.csv`` or anything under a ``records`` folder).
    runs : list of pathlib.Path
        Run output folders (``summary.csv`` beside ``records/``).

    Examples
    --------
    >>> import tempfile
    >>> find_sources([tempfile.mkdtemp()])
    ([], [])
    """
    tables, runs = [], []
    for p in map(Path, paths):
        if p.is_file():
            if p.name == "summary.csv" and _is_run_folder(p.parent):
                runs.append(p.parent)
            else:
                tables.append(p)
            continue
        if _is_run_folder(p):
            runs.append(p)
            continue
        for csv in sorted(p.rglob("*.csv")):
            parts = csv.relative_to(p).parts
            if "records" in parts or any(part.startswith(".") for part in parts):
                continue
            if csv.name == "summary.csv":
                if _is_run_folder(csv.parent):
                    runs.append(csv.parent)
                continue
            if csv.stem.endswith(_NOT_SUMMARIES) or "runs" in parts[:-1]:
                continue
            if _read_schema_csv(csv) is not None:
                tables.append(csv)
    return list(dict.fromkeys(tables)), list(dict.fromkeys(runs))


def suite_name(path):
    """The suite of a combined table: ``PARENT/STEM`` (``results/liu2009/table3.csv`` ->
    ``liu2009/table3``); a table in the current folder is its stem.

    Examples
    --------
    >>> suite_name("results/liu2009/table3.csv")
    'liu2009/table3'
    >>> suite_name("mine.csv")
    'mine'
    """
    path = Path(path)
    parent = path.resolve().parent
    if parent == Path.cwd().resolve() or not path.parent.name:
        return path.stem
    return f"{parent.name}/{path.stem}"


def _registered_names():
    try:
        from sskernels.learners.registry import ALIASES, METHODS
    except ImportError:  # pragma: no cover - the registry always imports
        return set()
    return set(METHODS) | set(ALIASES)


def is_user_method(method_name, registered=None):
    """Whether a record's ``method_name`` is a user's estimator (not a registered method).

    Parameters
    ----------
    method_name : str or None
        The record's ``method_name`` (the spec's ``name:`` or ``estimator:``).
    registered : set of str, default=None
        The registered names and aliases (None: the registry's).

    Returns
    -------
    bool
        True for an import path (``pkg.module:Class``) or a name that is not registered.

    Examples
    --------
    >>> is_user_method("myssl:LabeledKNN"), is_user_method("harmonic")
    (True, False)
    """
    from sskernels.user_methods import is_import_path

    if not isinstance(method_name, str) or not method_name:
        return False
    if is_import_path(method_name):
        return True
    names = _registered_names() if registered is None else registered
    return bool(names) and method_name not in names


_PROVENANCE_FIELDS = (
    "sskernels",
    "git_commit",
    "git_dirty",
    "python",
    "numpy",
    "scipy",
    "scikit-learn",
    "highspy",
)


def _read_run(folder, registered):
    """``(rows, splits, users, provenance)`` of one run folder."""
    rows = _read_schema_csv(folder / "summary.csv")
    if rows is None:
        return None, None, set(), []
    keep = {
        (r.setting, r.method): int(r.n_splits) if pd.notna(r.n_splits) else None
        for r in rows.itertuples()
    }
    values, users, prov = [], set(), []
    for path in sorted((folder / "records").glob("*/*/split_*.json")):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        k = (rec.get("setting"), rec.get("method"))
        if k not in keep or (keep[k] is not None and rec.get("split", 0) >= keep[k]):
            continue
        if is_user_method(rec.get("method_name"), registered):
            users.add(rec.get("method"))
        p = rec.get("provenance") or {}
        prov.append({f: p.get(f) for f in _PROVENANCE_FIELDS})
        for metric, value in (rec.get("metrics") or {}).items():
            if isinstance(value, (int, float)):
                values.append(
                    {
                        "table": rec.get("table") or rows["table"].iloc[0],
                        "dataset": rec.get("dataset"),
                        "setting": rec.get("setting"),
                        "method": rec.get("method"),
                        "metric": metric,
                        "split": int(rec.get("split", 0)),
                        "value": float(value),
                    }
                )
    return rows, pd.DataFrame(values, columns=SPLITS_SCHEMA), users, prov


def _load_bounds(tables):
    frames = []
    for t in tables:
        for b in sorted(Path(t).parent.glob("*_bound.csv")):
            df = pd.read_csv(b)
            if set(BOUND_KEY + ["bound", "bound_se"]) <= set(df.columns):
                frames.append(df)
    if not frames:
        return None
    return pd.concat(frames, ignore_index=True).drop_duplicates(BOUND_KEY, keep="last")


def load(paths=(".",), highlight=(), run_folders=True):
    """Read the recorded tables under ``paths`` into a :class:`ReportData`.

    Parameters
    ----------
    paths : iterable of path-like, default=(".",)
        Combined tables or folders (:func:`find_sources`).
    highlight : iterable of str, default=()
        Method labels to mark as the user's, beside those found in the records.
    run_folders : bool, default=True
        Read the run folders too (False: the combined tables only, e.g. the committed ones
        of ``results/`` without the local run folders beside them).

    Returns
    -------
    ReportData
        The rows (times left out), per-split values, sources and provenance.

    Raises
    ------
    FileNotFoundError
        When a path does not exist.
    ValueError
        When no recorded table is found.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "t.csv").write_text(
    ...     "table,dataset,setting,method,metric,mean,std,se,n_splits\\n"
    ...     "demo,wine,10 labeled,a,accuracy,90,1,0.5,4\\n"
    ...     "demo,wine,10 labeled,b,accuracy,80,2,1,4\\n")
    >>> data = load([d], highlight=["b"])
    >>> data.suites == [f"{d.name}/t"], data.rows["user"].tolist()
    (True, [False, True])
    """
    paths = [Path(p) for p in paths]
    for p in paths:
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
    tables, runs = find_sources(paths)
    registered = _registered_names()
    frames, split_frames, sources, users, prov = [], [], [], set(highlight), []
    for t in tables:
        df = _read_schema_csv(t)
        if df is None:
            raise ValueError(
                f"{t}: not a summary table (columns table, dataset, setting, "
                f"method, metric, mean, std expected)"
            )
        suite = suite_name(t)
        df["suite"], df["source"] = suite, str(t)
        frames.append(df)
        sources.append({"path": str(t), "kind": "table", "rows": len(df), "sha256": _sha256(t)})
        sp = t.with_name(t.stem + "_splits.csv")
        if sp.is_file():
            s = pd.read_csv(sp, dtype={"setting": str, "dataset": str, "method": str, "table": str})
            s["suite"] = suite
            split_frames.append(s)
            sources.append(
                {"path": str(sp), "kind": "per-split values", "rows": len(s), "sha256": _sha256(sp)}
            )
    # a row (any metric) of a combined table: the run folders' rows of it are left out (a
    # table may keep some metrics only: --metric)
    in_tables = (
        set(map(tuple, pd.concat(frames)[ROW_KEY[:-1]].astype(str).values)) if frames else set()
    )
    for folder in runs if run_folders else ():
        df, s, u, p = _read_run(folder, registered)
        if df is None:
            continue
        key = df[ROW_KEY[:-1]].astype(str).apply(tuple, axis=1)
        df = df[~key.isin(in_tables)].copy()
        users |= u
        prov += p
        if df.empty:
            continue
        df["suite"] = df["table"].fillna(folder.name).astype(str)
        df["source"] = str(folder / "summary.csv")
        frames.append(df)
        s = s.merge(
            df[["table", "dataset", "setting", "method", "metric", "suite"]].drop_duplicates(),
            on=["table", "dataset", "setting", "method", "metric"],
        )
        split_frames.append(s)
        sources.append(
            {
                "path": str(folder),
                "kind": "run folder",
                "rows": len(df),
                "sha256": _sha256(folder / "summary.csv"),
            }
        )
    if not frames:
        where = ", ".join(map(str, paths))
        raise ValueError(
            f"{where}: no recorded table (a summary CSV written by `sskernels "
            f"run --table`, `sskernels table`, or a run folder with summary.csv "
            f"and records/); run `sskernels run SPEC` first"
        )
    rows = pd.concat(frames, ignore_index=True)
    rows = rows[rows["metric"] != "seconds"].reset_index(drop=True)
    for col in ("protocol", "reading", "paper_cell", "notes", "selected"):
        rows[col] = rows[col].astype(object).fillna("").astype(str)
    rows["user"] = rows["method"].isin(users)
    bounds = _load_bounds(tables)
    vs = [verdict(r, bounds) for r in rows.to_dict("records")]
    rows["verdict"] = [v for v, _ in vs]
    rows["evidence"] = [e for _, e in vs]
    splits = (
        pd.concat(split_frames, ignore_index=True)
        if split_frames
        else pd.DataFrame(columns=["suite", *SPLITS_SCHEMA])
    )
    splits = splits.drop_duplicates(
        ["suite", "table", "dataset", "setting", "method", "metric", "split"]
    )
    provenance = pd.DataFrame(prov, columns=list(_PROVENANCE_FIELDS))
    if not provenance.empty:
        # a record made outside a git checkout (an installed package) has no commit: "–"
        provenance = (
            provenance.fillna("–")
            .astype(str)
            .value_counts(dropna=False)
            .rename("records")
            .reset_index()
        )
    return ReportData(rows=rows, splits=splits, sources=sources, provenance=provenance)


# -- leaderboard ------------------------------------------------------------------------------


def average_ranks(means, better=1):
    """Each row's rank per data set (1 = best, ties averaged) and its average over the data
    sets where it has a value.

    Parameters
    ----------
    means : pandas.DataFrame
        One column per method, one row per data set (NaN: the method has no value there).
    better : {1, -1}, default=1
        1 where a higher value is better, -1 where a lower one is.

    Returns
    -------
    pandas.DataFrame
        Index the methods; columns ``rank`` (average rank) and ``datasets`` (how many data
        sets it is ranked on), sorted by rank.

    Examples
    --------
    >>> m = pd.DataFrame({"a": [90.0, 80.0], "b": [85.0, 80.0], "c": [70.0, 85.0]})
    >>> average_ranks(m)
       rank  datasets
    a  1.75         2
    c  2.00         2
    b  2.25         2
    """
    ranks = (-better * means).rank(axis=1, method="average", na_option="keep")
    out = pd.DataFrame({"rank": ranks.mean(axis=0), "datasets": ranks.notna().sum(axis=0)})
    return out.sort_values("rank", kind="stable")


def signed_rank_pvalue(d):
    """``(p, direction)`` of the Wilcoxon signed-rank test of the paired differences ``d``:
    the exact two-sided p-value, conditional on the ties (tied absolute differences share
    their average rank; zero differences are dropped, Wilcoxon's rule), and the sign of the
    positive ranks' sum against its mean under the null (+1, 0 or -1).

    The null distribution of the positive ranks' sum is computed exactly by convolution (each
    rank in or out with probability 1/2): deterministic, and fast for any number of splits,
    where ``scipy.stats.wilcoxon`` falls back on a random permutation test with ties.

    Parameters
    ----------
    d : array-like
        The differences.

    Returns
    -------
    p : float
        The two-sided p-value (1.0 without a nonzero difference).
    direction : int
        +1 where the differences lean positive, -1 negative, 0 balanced.

    Examples
    --------
    >>> p, direction = signed_rank_pvalue([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> round(p, 5), direction           # scipy.stats.wilcoxon's exact p-value: 0.03125
    (0.03125, 1)
    """
    from scipy.stats import rankdata

    d = np.asarray(d, float)
    d = d[np.isfinite(d) & (d != 0)]
    if d.size == 0:
        return 1.0, 0
    twice = np.rint(2 * rankdata(np.abs(d))).astype(np.int64)  # ranks are multiples of 1/2
    total = int(twice.sum())
    dist = np.zeros(total + 1)
    dist[0] = 1.0
    for k in twice:
        shifted = np.zeros_like(dist)
        shifted[k:] = dist[:-k]
        dist = 0.5 * (dist + shifted)
    observed = int(twice[d > 0].sum())
    centre = total / 2.0
    far = np.abs(np.arange(total + 1) - centre) >= abs(observed - centre) - 1e-9
    p = float(min(1.0, dist[far].sum()))
    return p, int(np.sign(observed - centre))


def paired_outcome(a, b, better=1, alpha=ALPHA):
    """``"win"``, ``"tie"`` or ``"loss"`` of ``a`` against ``b``: values paired by split.

    The Wilcoxon signed-rank test (two-sided, exact: :func:`signed_rank_pvalue`) at level
    ``alpha``; fewer than :data:`MIN_SPLITS` pairs, or no nonzero difference: a tie.

    Parameters
    ----------
    a, b : array-like
        The two rows' values over the same splits, in the same order.
    better : {1, -1}, default=1
        1 where a higher value is better.
    alpha : float, default=0.05
        The test's level.

    Returns
    -------
    str
        The outcome for ``a``.

    Examples
    --------
    >>> a = [80, 82, 85, 79, 90, 88, 84, 86]
    >>> paired_outcome(a, [x - 3 for x in a]), paired_outcome([x - 3 for x in a], a)
    ('win', 'loss')
    >>> paired_outcome([80, 81], [70, 71])        # two splits: no test reaches 5 %
    'tie'
    """
    d = better * (np.asarray(a, float) - np.asarray(b, float))
    d = d[np.isfinite(d)]
    if d.size < MIN_SPLITS or not np.any(d != 0):
        return "tie"
    p, sign = signed_rank_pvalue(d)
    if not p < alpha or sign == 0:
        return "tie"
    return "win" if sign > 0 else "loss"


@dataclass
class Leaderboard:
    """One suite's leaderboard for one metric.

    Attributes
    ----------
    suite, metric : str
    table : pandas.DataFrame
        Index the methods, sorted by ``rank``; columns ``position`` (1, 2, ...), ``rank``
        (average rank), ``datasets``, ``wins``, ``ties``, ``losses`` (summed over every other
        row and data set), ``untested`` (pairs without per-split values), ``user``.
    pairs : pandas.DataFrame
        ``pairs.loc[a, b]`` = ``"W-T-L"`` of ``a`` against ``b`` over the data sets.
    datasets : list of str
        The data sets ranked over.
    """

    suite: str
    metric: str
    table: pd.DataFrame
    pairs: pd.DataFrame
    datasets: list


def _dataset_label(table, dataset, setting, several_tables):
    text = f"{dataset}, {setting}" if setting and str(setting) != "nan" else str(dataset)
    return f"{table}: {text}" if several_tables else text


def leaderboard(rows, splits, suite, metric, alpha=ALPHA):
    """The leaderboard of one suite and metric (module docstring: ranks and paired tests).

    Parameters
    ----------
    rows : pandas.DataFrame
        Summary rows with ``suite`` and ``user`` (:attr:`ReportData.rows`).
    splits : pandas.DataFrame
        Per-split values with ``suite`` (:attr:`ReportData.splits`).
    suite, metric : str
        Which leaderboard.
    alpha : float, default=0.05
        The paired test's level.

    Returns
    -------
    Leaderboard or None
        None when the metric has no known direction or fewer than two rows.

    Examples
    --------
    >>> rows = pd.DataFrame({"suite": "s", "table": "t", "dataset": ["d1", "d1", "d2", "d2"],
    ...                      "setting": "", "method": ["a", "b", "a", "b"],
    ...                      "metric": "accuracy", "mean": [90.0, 80.0, 70.0, 75.0],
    ...                      "user": [False, True, False, True]})
    >>> lb = leaderboard(rows, pd.DataFrame(columns=["suite"]), "s", "accuracy")
    >>> lb.table[["position", "rank", "wins", "ties", "losses", "untested"]]
       position  rank  wins  ties  losses  untested
    a         1   1.5     0     0       0         2
    b         2   1.5     0     0       0         2
    """
    better = direction(metric)
    r = rows[(rows["suite"] == suite) & (rows["metric"] == metric)]
    if better is None or r["method"].nunique() < 2:
        return None
    several = r["table"].nunique() > 1
    r = r.assign(
        _ds=[
            _dataset_label(t, d, s, several)
            for t, d, s in zip(r["table"], r["dataset"], r["setting"])
        ]
    )
    methods = list(dict.fromkeys(r["method"]))
    datasets = list(dict.fromkeys(r["_ds"]))
    means = r.pivot_table(index="_ds", columns="method", values="mean", aggfunc="first").reindex(
        index=datasets, columns=methods
    )
    ranks = average_ranks(means, better)
    s = (
        splits[(splits["suite"] == suite) & (splits["metric"] == metric)]
        if "metric" in splits.columns
        else splits.iloc[0:0]
    )
    if not s.empty:
        s = s.assign(
            _ds=[
                _dataset_label(t, d, st, several)
                for t, d, st in zip(s["table"], s["dataset"], s["setting"])
            ]
        )
        per = {
            ds: g.pivot_table(index="split", columns="method", values="value", aggfunc="first")
            for ds, g in s.groupby("_ds", sort=False)
        }
    else:
        per = {}
    counts = {m: {"wins": 0, "ties": 0, "losses": 0, "untested": 0} for m in methods}
    wtl = {(a, b): [0, 0, 0] for a in methods for b in methods if a != b}
    flip = {"win": "loss", "loss": "win", "tie": "tie"}
    index = {"win": 0, "tie": 1, "loss": 2}
    for ds in datasets:
        tab = per.get(ds)
        have = [m for m in methods if not pd.isna(means.at[ds, m])]
        values = tab.to_numpy(float) if tab is not None else None
        col = {m: i for i, m in enumerate(tab.columns)} if tab is not None else {}
        for i, a in enumerate(have):
            for b in have[i + 1 :]:
                if a not in col or b not in col:
                    counts[a]["untested"] += 1
                    counts[b]["untested"] += 1
                    continue
                x, y = values[:, col[a]], values[:, col[b]]
                ok = np.isfinite(x) & np.isfinite(y)
                outcome = paired_outcome(x[ok], y[ok], better, alpha)
                wtl[a, b][index[outcome]] += 1
                wtl[b, a][index[flip[outcome]]] += 1
    pairs = pd.DataFrame("", index=methods, columns=methods)
    for (a, b), (w, t, lo) in wtl.items():
        counts[a]["wins"] += w
        counts[a]["ties"] += t
        counts[a]["losses"] += lo
        pairs.at[a, b] = f"{w}-{t}-{lo}"
    table = ranks.join(pd.DataFrame(counts).T.astype(int))
    users = set(r.loc[r["user"].astype(bool), "method"])
    table["user"] = [m in users for m in table.index]
    table.insert(0, "position", np.arange(1, len(table) + 1))
    table.index.name = None
    return Leaderboard(
        suite=suite,
        metric=metric,
        table=table,
        pairs=pairs.loc[table.index, table.index],
        datasets=datasets,
    )


def leaderboards(data, alpha=ALPHA):
    """Every suite's leaderboards (one per ranked metric), in suite order.

    Parameters
    ----------
    data : ReportData
        The report's data.
    alpha : float, default=0.05
        The paired test's level.

    Returns
    -------
    dict
        ``{suite: [Leaderboard, ...]}``.
    """
    out = {}
    for suite in data.suites:
        metrics = dict.fromkeys(data.rows.loc[data.rows["suite"] == suite, "metric"])
        boards = [leaderboard(data.rows, data.splits, suite, m, alpha) for m in metrics]
        out[suite] = [b for b in boards if b is not None]
    return out
