"""The files of a table: ``STEM.csv`` and ``STEM.md`` (:func:`write_table`), and the
per-split values ``STEM_splits.csv`` (:func:`split_rows`, :func:`write_splits`,
:func:`read_splits`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sskernels.experiment.records import atomic_write_text
from sskernels.experiment.tables.markdown import to_markdown
from sskernels.experiment.tables.schema import SCHEMA, SPLITS_SCHEMA, TIME_METRICS, table_name


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
