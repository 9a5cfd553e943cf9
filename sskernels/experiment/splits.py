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
    """Labeled indices of split ``index``: uniform, redrawn until every class occurs.

    The draws come from a generator seeded by ``(seed, index)``, at most :data:`MAX_DRAWS`
    of them.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels.
    n_labeled : int
        The number of labeled points.
    seed : int
        The protocol's seed.
    index : int
        The split's index.

    Returns
    -------
    numpy.ndarray
        The labeled points' indices, sorted.

    Raises
    ------
    ValueError
        When ``n_labeled`` is smaller than the number of classes or leaves no unlabeled
        point, or when no draw covers every class.
    """
    y = np.asarray(y)
    classes = np.unique(y)
    if n_labeled < classes.size:
        raise ValueError(
            f"n_labeled={n_labeled} is smaller than the number of classes "
            f"({classes.size}): a split needs one labeled point per class"
        )
    if n_labeled >= y.size:
        raise ValueError(f"n_labeled={n_labeled} leaves no unlabeled point (n={y.size})")
    rng = np.random.default_rng([seed, index])
    for _ in range(MAX_DRAWS):
        idx = rng.choice(y.size, size=n_labeled, replace=False)
        if np.unique(y[idx]).size == classes.size:
            return np.sort(idx)
    raise ValueError(
        f"could not draw {n_labeled} labeled points covering all {classes.size} "
        f"classes in {MAX_DRAWS} draws (a class is too rare)"
    )


def _class_names(classes, k):
    return list(classes) if classes is not None else list(range(k))


def class_first_split(y, n_labeled, seed, index, groups=None):
    """Labeled indices of split ``index``: one point per class first, then uniform among the rest.

    One point per class (or, with ``groups``, per distinct (class, group) pair) drawn first,
    uniformly within it, then ``n_labeled - k`` uniformly among the other points; sorted.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels.
    n_labeled : int
        The number of labeled points.
    seed : int
        The protocol's seed.
    index : int
        The split's index (the generator is seeded by ``(seed, index)``).
    groups : array-like of shape (n_samples,), default=None
        Each point's group (subclass); None: cover the classes.

    Returns
    -------
    numpy.ndarray
        The labeled points' indices, sorted.

    Raises
    ------
    SplitError
        On ``splits.cover`` when ``groups`` does not have one entry per point; on
        ``splits.n_labeled`` when ``n_labeled`` is smaller than the number of classes (or
        subclasses) or leaves no unlabeled point.
    """
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
        raise SplitError(
            f"n_labeled={n_labeled} is smaller than the number of {what} ({k}): "
            f"protocol class-first takes one labeled point of each first",
            fld,
        )
    if n_labeled >= y.size:
        raise SplitError(f"n_labeled={n_labeled} leaves no unlabeled point (n={y.size})", fld)
    rng = np.random.default_rng([seed, index])
    first = np.array([rng.choice(np.flatnonzero(units == u)) for u in range(k)], dtype=np.int64)
    taken = np.zeros(y.size, dtype=bool)
    taken[first] = True
    rest = rng.choice(np.flatnonzero(~taken), size=n_labeled - k, replace=False)
    return np.sort(np.concatenate([first, rest]))


def check_per_class(y, counts, classes=None):
    """Raise :class:`SplitError` unless ``counts`` fit the labels ``y``.

    ``counts`` (one per class, sorted label order) fit ``y`` (encoded ``0..k-1``): one count
    per class, each at most the class's size, and at least one unlabeled point left.

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        The encoded labels.
    counts : sequence of int
        The labeled points of each class.
    classes : sequence, default=None
        The class names, for the messages; None: ``0..k-1``.

    Raises
    ------
    SplitError
        On ``splits.per_class``, when the counts do not fit.
    """
    y = np.asarray(y)
    sizes = np.bincount(y, minlength=int(y.max()) + 1 if y.size else 0)
    names = _class_names(classes, sizes.size)
    if len(counts) != sizes.size:
        raise SplitError(
            f"{len(counts)} counts for {sizes.size} classes: give one count per "
            f"class, in sorted label order ({', '.join(map(str, names))})",
            "splits.per_class",
        )
    for c, (want, have) in enumerate(zip(counts, sizes)):
        if want > have:
            raise SplitError(
                f"{want} labeled points of class {names[c]!s} asked for, but it has only {have}",
                "splits.per_class",
            )
    if sum(counts) >= y.size:
        raise SplitError(
            f"{sum(counts)} labeled points leave no unlabeled point (n={y.size})",
            "splits.per_class",
        )


def per_class_split(y, counts, seed, index, classes=None):
    """Labeled indices of split ``index``: ``counts[c]`` points of class ``c``, sorted.

    The classes are encoded ``0..k-1``, i.e. sorted label order; each class's points are
    drawn uniformly within it.

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        The encoded labels.
    counts : sequence of int
        The labeled points of each class.
    seed : int
        The protocol's seed.
    index : int
        The split's index (the generator is seeded by ``(seed, index)``).
    classes : sequence, default=None
        The class names, for the messages.

    Returns
    -------
    numpy.ndarray of int64
        The labeled points' indices, sorted.

    Raises
    ------
    SplitError
        When the counts do not fit (:func:`check_per_class`).
    """
    y = np.asarray(y)
    check_per_class(y, counts, classes)
    rng = np.random.default_rng([seed, index])
    parts = [
        rng.choice(np.flatnonzero(y == c), size=int(m), replace=False) for c, m in enumerate(counts)
    ]
    return np.sort(np.concatenate(parts)).astype(np.int64)


def make_splits(
    y,
    protocol="random",
    n_splits=20,
    n_labeled=20,
    seed=0,
    official=None,
    *,
    per_class=None,
    groups=None,
    classes=None,
):
    """The list of labeled-index arrays of a protocol.

    ``per_class`` is the counts of one ``per-class`` setting; ``groups`` (``class-first``)
    the subclass of every point to cover instead of the classes; ``classes`` the class names
    of the encoded ``y``, for messages.  Split ``i`` depends only on the protocol, its
    sizes, ``seed`` and ``i``, not on how many splits are drawn.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels (encoded ``0..k-1`` for ``per-class``).
    protocol : {"random", "class-first", "per-class", "official"}, default="random"
        The split protocol (:data:`PROTOCOLS`).
    n_splits : int, default=20
        The number of splits (``official``: at most that many of the official ones).
    n_labeled : int, default=20
        Labeled points per split (``random``, ``class-first``).
    seed : int, default=0
        The seed.
    official : list of array-like, default=None
        The data set's official labeled index sets (``official``).
    per_class : sequence of int, default=None
        The labeled points of each class (``per-class``).
    groups : array-like of shape (n_samples,), default=None
        Each point's subclass (``class-first``); None: cover the classes.
    classes : sequence, default=None
        The class names of the encoded ``y``, for messages.

    Returns
    -------
    list of numpy.ndarray
        The labeled points' indices of each split, sorted.

    Raises
    ------
    SplitError
        For ``per-class`` counts that are missing or do not fit the data, and a
        ``class-first`` setting that cannot be drawn (groups that do not fit the points, too
        few labeled points to cover every class or subclass, none left unlabeled).
    ValueError
        For an unknown protocol, ``official`` without official splits, or a ``random``
        setting that cannot be drawn.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.experiment import make_splits
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    >>> splits = make_splits(y, "random", n_splits=3, n_labeled=4, seed=0)
    >>> [s.size for s in splits], all(set(y[s]) == {0, 1, 2} for s in splits)
    ([4, 4, 4], True)
    >>> np.array_equal(make_splits(y, "random", n_splits=1, n_labeled=4, seed=0)[0], splits[0])
    True
    >>> [np.bincount(y[s]).tolist() for s in make_splits(y, "per-class", n_splits=2,
    ...                                                   per_class=[1, 2, 1])]
    [[1, 2, 1], [1, 2, 1]]
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
    """Split i: ``n_labeled`` rows of ``pool`` drawn uniformly without replacement; sorted.

    Each split is seeded by ``(seed, i)`` (as :func:`random_split`).

    Parameters
    ----------
    pool : array-like of int
        The rows the labeled points are drawn from.
    n_labeled : int
        Labeled points per split.
    n_splits : int
        The number of splits.
    seed : int
        The seed.

    Returns
    -------
    list of numpy.ndarray
        The labeled rows of each split, sorted.
    """
    pool = np.asarray(pool)
    return [
        np.sort(np.random.default_rng([seed, i]).choice(pool, size=n_labeled, replace=False))
        for i in range(n_splits)
    ]
