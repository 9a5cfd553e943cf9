"""Split protocols: which points are labeled in each repetition.

``random``: ``n_labeled`` points drawn uniformly without replacement, redrawn
until every class has at least one labeled point (Liu et al., Sec. 5.1: "20
random selection of 20 labeled data points of which there is one sample at
least for each class").  Split ``i`` is drawn from its own generator seeded by
``(seed, i)``, so a split does not depend on how many others are drawn.

``official``: the labeled index sets shipped with the data set.
"""

from __future__ import annotations

import numpy as np

MAX_DRAWS = 10_000


def random_split(y, n_labeled, seed, index):
    """Labeled indices of split ``index``: uniform, redrawn until every class occurs."""
    y = np.asarray(y)
    classes = np.unique(y)
    if n_labeled < classes.size:
        raise ValueError(f"n_labeled={n_labeled} is smaller than the number of classes "
                         f"({classes.size}): a split needs one labeled point per class")
    if n_labeled >= y.size:
        raise ValueError(f"n_labeled={n_labeled} leaves no unlabeled point (n={y.size})")
    rng = np.random.default_rng([seed, index])
    for _ in range(MAX_DRAWS):
        idx = rng.choice(y.size, size=n_labeled, replace=False)
        if np.unique(y[idx]).size == classes.size:
            return np.sort(idx)
    raise ValueError(f"could not draw {n_labeled} labeled points covering all {classes.size} "
                     f"classes in {MAX_DRAWS} draws (a class is too rare)")


def make_splits(y, protocol="random", n_splits=20, n_labeled=20, seed=0, official=None):
    """The list of labeled-index arrays of a protocol."""
    if protocol == "random":
        return [random_split(y, n_labeled, seed, i) for i in range(n_splits)]
    if protocol == "official":
        if not official:
            raise ValueError("the data set ships no official splits; use protocol: random")
        return [np.sort(np.asarray(s, dtype=int)) for s in official[:n_splits]]
    raise ValueError(f"unknown split protocol {protocol!r}")
