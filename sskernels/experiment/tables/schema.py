"""The columns of a summary row and of a per-split row, the ``table`` column's name, and the
metrics' decimals (the package's docstring, :mod:`sskernels.experiment.tables`, reads
each column).
"""

from __future__ import annotations

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
#: decimals of a summary's mean and std, per metric (2 otherwise)
METRIC_DECIMALS = {"alignment": 4, "rmse": 6, "mse": 8}
#: regression metrics (targets' units, not percent): printed with significant digits
REGRESSION_METRICS = ("rmse", "mse")


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
