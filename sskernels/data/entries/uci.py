"""UCI (``shared/datasets/uci/SOURCES.md``): registry entries (:mod:`sskernels.data.registry`)."""

from __future__ import annotations

from functools import partial

from ..cache import RemoteFile
from ..entry import Entry
from ..parsers import (
    parse_delimited,
)

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"


def _uci(name, path, url, sha256, n, d, k, description, **table) -> Entry:
    """A UCI text table; ``table`` holds :func:`parse_delimited` options."""
    return Entry(
        name,
        n,
        d,
        k,
        _UCI + url,
        description + " (UCI)",
        partial(parse_delimited, **table),
        (RemoteFile(path, _UCI + url, sha256),),
    )


_UCI_ENTRIES = [
    _uci(
        "heart",
        "uci/heart.dat",
        "statlog/heart/heart.dat",
        "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9",
        270,
        13,
        2,
        "Statlog heart disease, 13 clinical features; label 1 = absent, 2 = present",
    ),
    _uci(
        "ionosphere",
        "uci/ionosphere.data",
        "ionosphere/ionosphere.data",
        "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
        351,
        34,
        2,
        "Ionosphere radar returns, 34 features; label g = good, b = bad",
        delimiter=",",
    ),
    _uci(
        "sonar",
        "uci/sonar.all-data",
        "undocumented/connectionist-bench/sonar/sonar.all-data",
        "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d",
        208,
        60,
        2,
        "Sonar mines vs rocks, 60 band energies; label M = mine, R = rock",
        delimiter=",",
    ),
    _uci(
        "wine",
        "uci/wine.data",
        "wine/wine.data",
        "6be6b1203f3d51df0b553a70e57b8a723cd405683958204f96d23d7cd6aea659",
        178,
        13,
        3,
        "Wine cultivars, 13 chemical features; label 1-3 (first column of the file)",
        delimiter=",",
        label=0,
    ),
    _uci(
        "yeast",
        "uci/yeast.data",
        "yeast/yeast.data",
        "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258",
        1484,
        8,
        10,
        "Yeast protein localization sites, 8 features (sequence name dropped); labels CYT "
        "(463), NUC (429), MIT (244), ME3 (163), ME2 (51), ME1 (44), EXC (35), VAC (30), "
        "POX (20), ERL (5: random splits of few labels rarely hold it, use splits protocol "
        "class-first)",
        drop=(0,),
    ),
]
