"""The spec's vocabulary: its top-level fields, the split protocols and their fields, the
extra metrics, the readings' fields, the name a spec may have, and why a field has its
largest value (:func:`maximum_reason`, said by the error of a larger one).

The bounds and the vocabularies shared with a method entry's checks are in
:mod:`sskernels.spec_limits`.
"""

from __future__ import annotations

import re

PROTOCOLS = ("random", "official", "class-first", "per-class")
COVERS = ("classes", "groups")
SPLIT_FIELDS = ("protocol", "n_splits", "n_labeled", "seed", "holdout", "per_class", "cover")
NAME_RE = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,99}")


def maximum_reason(field_):
    """Why a field has its largest accepted value, as the error of a larger one says it.

    Parameters
    ----------
    field_ : str
        The field's dotted name (``"graph.k"``, ``"splits.n_splits"``, ...).

    Returns
    -------
    str
        The reason (e.g. "a bound on the run's length" for ``splits.n_splits``); "the
        largest accepted value" for a field without a reason of its own.
    """
    if field_.endswith("laplacian_degree"):
        return "each degree is one more product of the n x n Laplacian"
    return {
        "splits.n_splits": "a bound on the run's length",
        "graph.k": "a bound on the graph's size",
    }.get(field_, "the largest accepted value")


TOP_FIELDS = (
    "name",
    "table",
    "dataset",
    "preprocess",
    "graph",
    "splits",
    "methods",
    "paper",
    "output",
    "metrics",
    "target_scale",
    "readings",
    "reading",
)
#: metrics a spec may ask for beside accuracy (``metrics:``), in the order they are recorded
EXTRA_METRICS = ("error", "alignment")
#: the metrics of a regression data set, both always recorded (``metrics:`` may list them)
REGRESSION_METRICS = ("rmse", "mse")
#: ``target_scale:`` of a regression spec: none, or minmax (each target to [0, 1])
TARGET_SCALES = ("none", "minmax")
#: the fields of one reading (``readings:``) and the top-level fields its ``set:`` may replace
READING_FIELDS = ("name", "quote", "set", "methods", "only")
READING_SET = ("preprocess", "graph", "splits", "dataset", "metrics")
