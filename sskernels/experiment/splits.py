"""Split protocols: which points are labeled in each repetition.

``random``: ``n_labeled`` points drawn uniformly without replacement, redrawn
until every class has at least one labeled point (Liu et al., Sec. 5.1: "20
random selection of 20 labeled data points of which there is one sample at
least for each class").  Split ``i`` is drawn from its own generator seeded by
``(seed, i)``, so a split does not depend on how many others are drawn.

``official``: the labeled index sets shipped with the data set.

``class-first``: one labeled point per class first (uniformly within the class), then the
other ``n_labeled - k`` uniformly among the remaining points; with ``cover="groups"`` one point
per subclass first (per distinct (class, group) pair; for the digits of ``odd-even``, which
nest in the classes, that is one point per digit).  No rejection: a class of 5 points among
1484 (yeast's ERL) is covered at once, where ``random`` would almost never draw it.  The
kernel self-consistent labeling paper (Sec. 6) asks that "all classes, including each digit
as subclasses for the odd-even dataset, must be present in labeled set"; how the paper drew
such sets is not stated, and this protocol is our choice (with ``n_labeled`` much larger than
the number of classes it is close to ``random`` conditioned on covering every class, but not
equal to it: a labeled point's class is not uniform).

``per-class``: exactly ``counts[c]`` labeled points of class ``c`` (classes in sorted label
order), each drawn uniformly within its class: the paper's unbalanced #pos/#neg = 10/10,
10/20, 10/30, 10/40 sequence.

Every protocol draws split ``i`` from its own generator seeded by ``(seed, i)``.
"""

from __future__ import annotations

import numpy as np

MAX_DRAWS = 10_000
PROTOCOLS = ("random", "official", "class-first", "per-class")
COVERS = ("classes", "groups")


class SplitError(ValueError):
    """A split protocol that cannot be drawn on these data; ``field`` is the spec field at
    fault (``splits.n_labeled``, ``splits.per_class``, ``splits.cover``)."""

    def __init__(self, message, field="splits"):
        super().__init__(message)
        self.field = field


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


def _class_names(classes, k):
    return list(classes) if classes is not None else list(range(k))


def class_first_split(y, n_labeled, seed, index, groups=None):
    """Labeled indices of split ``index``: one point per class (or, with ``groups``, per
    distinct (class, group) pair) drawn first, uniformly within it, then ``n_labeled - k``
    uniformly among the other points; sorted."""
    y = np.asarray(y)
    units = np.unique(y, return_inverse=True)[1].ravel()
    what = "classes"
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape != y.shape:
            raise SplitError(f"{groups.size} groups for {y.size} points", "splits.cover")
        g = np.unique(groups, return_inverse=True)[1].ravel()
        units = np.unique(units * (int(g.max()) + 1) + g, return_inverse=True)[1].ravel()
        what = "subclasses (distinct class and group pairs)"
    k = int(units.max()) + 1 if units.size else 0
    fld = "splits.n_labeled"
    if n_labeled < k:
        raise SplitError(f"n_labeled={n_labeled} is smaller than the number of {what} ({k}): "
                         f"protocol class-first takes one labeled point of each first", fld)
    if n_labeled >= y.size:
        raise SplitError(f"n_labeled={n_labeled} leaves no unlabeled point (n={y.size})", fld)
    rng = np.random.default_rng([seed, index])
    first = np.array([rng.choice(np.flatnonzero(units == u)) for u in range(k)], dtype=np.int64)
    taken = np.zeros(y.size, dtype=bool)
    taken[first] = True
    rest = rng.choice(np.flatnonzero(~taken), size=n_labeled - k, replace=False)
    return np.sort(np.concatenate([first, rest]))


def check_per_class(y, counts, classes=None):
    """Raise :class:`SplitError` unless ``counts`` (one per class, sorted label order) fit
    ``y`` (encoded ``0..k-1``): one count per class, each at most the class's size, and at
    least one unlabeled point left."""
    y = np.asarray(y)
    sizes = np.bincount(y, minlength=int(y.max()) + 1 if y.size else 0)
    names = _class_names(classes, sizes.size)
    if len(counts) != sizes.size:
        raise SplitError(f"{len(counts)} counts for {sizes.size} classes: give one count per "
                         f"class, in sorted label order ({', '.join(map(str, names))})",
                         "splits.per_class")
    for c, (want, have) in enumerate(zip(counts, sizes)):
        if want > have:
            raise SplitError(f"{want} labeled points of class {names[c]!s} asked for, but it has "
                             f"only {have}", "splits.per_class")
    if sum(counts) >= y.size:
        raise SplitError(f"{sum(counts)} labeled points leave no unlabeled point (n={y.size})",
                         "splits.per_class")


def per_class_split(y, counts, seed, index, classes=None):
    """Labeled indices of split ``index``: ``counts[c]`` points of class ``c`` (encoded
    ``0..k-1``, i.e. sorted label order), each drawn uniformly within its class; sorted."""
    y = np.asarray(y)
    check_per_class(y, counts, classes)
    rng = np.random.default_rng([seed, index])
    parts = [rng.choice(np.flatnonzero(y == c), size=int(m), replace=False)
             for c, m in enumerate(counts)]
    return np.sort(np.concatenate(parts)).astype(np.int64)


def make_splits(y, protocol="random", n_splits=20, n_labeled=20, seed=0, official=None, *,
                per_class=None, groups=None, classes=None):
    """The list of labeled-index arrays of a protocol.

    ``per_class`` is the counts of one ``per-class`` setting; ``groups`` (``class-first``)
    the subclass of every point to cover instead of the classes; ``classes`` the class names
    of the encoded ``y``, for messages.
    """
    if protocol == "random":
        return [random_split(y, n_labeled, seed, i) for i in range(n_splits)]
    if protocol == "class-first":
        return [class_first_split(y, n_labeled, seed, i, groups) for i in range(n_splits)]
    if protocol == "per-class":
        if per_class is None:
            raise SplitError("protocol per-class needs per_class counts", "splits.per_class")
        check_per_class(y, per_class, classes)
        return [per_class_split(y, per_class, seed, i, classes) for i in range(n_splits)]
    if protocol == "official":
        if not official:
            raise ValueError("the data set ships no official splits; use protocol: random")
        return [np.sort(np.asarray(s, dtype=int)) for s in official[:n_splits]]
    raise ValueError(f"unknown split protocol {protocol!r}")


def regression_splits(pool, n_labeled, n_splits, seed):
    """Split i: ``n_labeled`` rows of ``pool`` drawn uniformly without replacement, seeded by
    ``(seed, i)`` (as :func:`random_split`); sorted."""
    pool = np.asarray(pool)
    return [np.sort(np.random.default_rng([seed, i]).choice(pool, size=n_labeled, replace=False))
            for i in range(n_splits)]
