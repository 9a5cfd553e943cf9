"""scikit-learn's bundled data sets (no download): registry entries (:mod:`sskernels.data.registry`)."""

from __future__ import annotations

from functools import partial

from ..entry import Entry
from ..parsers import (
    parse_sklearn,
)


def _sklearn(name, loader, n, d, k, description) -> Entry:
    return Entry(
        name,
        n,
        d,
        k,
        f"sklearn.datasets.{loader}",
        description + " (bundled with scikit-learn)",
        partial(parse_sklearn, loader),
    )


_SKLEARN_ENTRIES = [
    _sklearn("sklearn-wine", "load_wine", 178, 13, 3, "UCI wine cultivars; labels 0-2"),
    _sklearn("sklearn-iris", "load_iris", 150, 4, 3, "Fisher's iris; labels 0-2"),
    _sklearn(
        "sklearn-breast-cancer",
        "load_breast_cancer",
        569,
        30,
        2,
        "Wisconsin diagnostic breast cancer; label 0 = malignant, 1 = benign",
    ),
    _sklearn(
        "sklearn-digits", "load_digits", 1797, 64, 10, "UCI optical digits, 8x8 images; labels 0-9"
    ),
]
