"""Data sets built from USPS (``usps/usps.h5``, Hull's split): the substitute for the
simplified digits of the kernel self-consistent labeling paper, and the USPS tasks of Wang et
al. 2015 (at the end).  One reader, :func:`read_usps`, serves all of them.

The kernel self-consistent labeling paper (Sec. 6) uses "a simplified form [of handwritten
digits] available at http://www.cs.colorado.edu/~grudic/data, with 196 features each ranging
between 0 and 9", 200 examples of each digit (2000 in all), for two tasks: odd vs even and
the 10 digits.  That data is not obtainable, so the ``odd-even`` and ``10-digit`` data sets
are built, as closely as we can, from Hull's USPS training split (``usps/usps.h5``,
``train/data``: 7291 16x16 images, row-major, pixel values in [0, 1]; ``train/target``: the
digit).  Every step is deterministic (no random choice):

1. **Selection**: the first :data:`PER_DIGIT` (200) training images of each digit, in file
   order; the selected rows keep their file order (they are not sorted by digit).
2. **Resampling 16x16 -> 14x14** (196 features) by area averaging (a box filter): output
   pixel (i, j) is the mean of the input image over the square
   ``[i s, (i+1) s) x [j s, (j+1) s)`` with ``s = 16/14``, each input pixel weighted by the
   area it shares with that square (:func:`area_weights`).  Chosen over dropping the outer
   ring of pixels because USPS digits are scaled to fill the 16x16 box: the outer rows and
   columns hold ink (the mean of the top and bottom rows is about 0.16, against 0.25-0.30
   inside), which cropping would cut off.  Area averaging keeps all the ink and keeps values
   in [0, 1].
3. **Quantization** to the integers 0..9, linearly: ``q = floor(9 v + 1/2)``, i.e. ``9 v``
   rounded half up (blank background 0 -> 0, full ink 1 -> 9).

Labels: ``odd-even``: the strings ``"even"`` / ``"odd"`` (sorted order: even first);
``10-digit``: the digit 0-9.  Both carry the digit as the points' subclass (``groups``), so
that split protocols can require every digit among the labeled points (the paper: "all
classes, including each digit as subclasses for the odd-even dataset, must be present in
labeled set"; ``splits: {protocol: class-first, cover: groups}``).

The paper normalises these feature vectors to unit length (Sec. 6: "All input feature vectors
are normalized to have length 1, except the three 20 newsgroup datasets and the 2-spiral
dataset"); that is the spec's ``preprocess: l2``, not done here.

**Wang et al. 2015** (label-aware base kernels, Table 1) use four USPS digit pairs and odd
vs even, with sizes that identify their source exactly: the pairs are every image of the two
digits in the *training* part (3 vs 8: 658 + 542 = 1200; 4 vs 9: 652 + 644 = 1296; 5 vs 6:
556 + 664 = 1220; 2 vs 7: 731 + 645 = 1376), odd/even is the whole *test* part (2007: 914
odd, 1093 even).  The paper states no scaling of these features, so they are the file's
pixels as stored (256 values in [0, 1]), not resampled or quantized.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError
from .parsers import Parsed, parse_hdf5

#: the USPS image side, the substitute's image side, the number of grey levels
USPS_SIDE, SIDE, LEVELS = 16, 14, 10
#: images taken per digit (the paper: "We extracted 200 examples from each class")
PER_DIGIT = 200
TASKS = ("odd-even", "10-digit")
#: the parts of usps.h5 (Hull's split)
USPS_PARTS = ("train", "test")


def area_weights(n_in: int = USPS_SIDE, n_out: int = SIDE) -> np.ndarray:
    """The (n_out, n_in) matrix of 1-D area-averaging weights; each row sums to 1.

    Output cell ``i`` covers ``[i s, (i+1) s)`` in input pixel units, ``s = n_in / n_out``;
    its weight on input pixel ``j`` is the length of ``[j, j+1)`` inside that interval,
    divided by ``s``.  An image is resampled as ``W @ image @ W.T``.

    Parameters
    ----------
    n_in : int, default=USPS_SIDE
        The input side, in pixels.
    n_out : int, default=SIDE
        The output side, in pixels.

    Returns
    -------
    W : ndarray of shape (n_out, n_in)
        The weights.
    """
    s = n_in / n_out
    lo, hi = np.arange(n_out)[:, None] * s, (np.arange(n_out)[:, None] + 1) * s
    j = np.arange(n_in)[None, :]
    overlap = np.clip(np.minimum(hi, j + 1) - np.maximum(lo, j), 0.0, None)
    return overlap / s


def resample(images: np.ndarray, side: int = SIDE) -> np.ndarray:
    """(m, n, n) images area-averaged to (m, side, side) (see :func:`area_weights`).

    Parameters
    ----------
    images : ndarray of shape (m, n, n)
        The square images.
    side : int, default=SIDE
        The output side, in pixels.

    Returns
    -------
    ndarray of shape (m, side, side)
        The resampled images.
    """
    W = area_weights(images.shape[1], side)
    return np.einsum("ij,mjk,lk->mil", W, images, W)


def quantize(values: np.ndarray, levels: int = LEVELS) -> np.ndarray:
    """Values in [0, 1] mapped linearly to the integers ``0..levels-1`` (rounded half up).

    Parameters
    ----------
    values : array-like
        Values in [0, 1].
    levels : int, default=LEVELS
        The number of levels.

    Returns
    -------
    ndarray of float64
        ``floor((levels - 1) v + 1/2)`` clipped to ``[0, levels - 1]``, in the shape of
        ``values``.
    """
    q = np.floor(np.asarray(values, dtype=np.float64) * (levels - 1) + 0.5)
    return np.clip(q, 0, levels - 1)


def first_per_class(y: np.ndarray, per_class: int) -> np.ndarray:
    """Indices (ascending, i.e. file order) of the first ``per_class`` points of every label.

    Parameters
    ----------
    y : ndarray of shape (n,)
        The labels.
    per_class : int
        The most points kept per label.

    Returns
    -------
    ndarray of int
        The kept indices, ascending.
    """
    keep = np.zeros(y.size, dtype=bool)
    for label in np.unique(y):
        keep[np.flatnonzero(y == label)[:per_class]] = True
    return np.flatnonzero(keep)


def read_usps(path, part: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """One part of ``usps.h5`` (``"train"``: 7291 images, ``"test"``: 2007), checked.

    The pixels (m, 256) as float64, as stored (16x16 row-major, values in [0, 1]), and the
    digits (m,) int64, in file order.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``usps.h5`` file.
    part : {"train", "test"}, default="train"
        The part of Hull's split.

    Returns
    -------
    pixels : ndarray of shape (m, 256)
        The images, float64 in [0, 1].
    digits : ndarray of shape (m,)
        The digits, int64.

    Raises
    ------
    ValueError
        For an unknown ``part``.
    DataError
        If the file cannot be read, or its pixels or digits are not as described.
    """
    if part not in USPS_PARTS:
        raise ValueError(f"part must be one of {USPS_PARTS}, got {part!r}")
    raw = parse_hdf5(path, x=f"{part}/data", y=f"{part}/target")
    digits = np.asarray(raw.y)
    if raw.X.shape[1] != USPS_SIDE**2:
        raise DataError(
            f"{path}: '{part}/data' has {raw.X.shape[1]} columns, expected "
            f"{USPS_SIDE}x{USPS_SIDE} = {USPS_SIDE**2} pixels"
        )
    if digits.dtype.kind != "i" or not set(np.unique(digits)) <= set(range(10)):
        raise DataError(f"{path}: '{part}/target' should hold the digits 0-9")
    if raw.X.min() < 0 or raw.X.max() > 1:
        raise DataError(
            f"{path}: '{part}/data' pixels should lie in [0, 1], found "
            f"[{raw.X.min():g}, {raw.X.max():g}]"
        )
    return raw.X, digits.astype(np.int64)


def odd_even_labels(digits: np.ndarray) -> np.ndarray:
    """The strings ``"even"`` / ``"odd"`` of every digit.

    Parameters
    ----------
    digits : array-like of int
        The digits.

    Returns
    -------
    ndarray of str
        ``"even"`` or ``"odd"`` for each digit, in its shape.
    """
    return np.where(np.asarray(digits) % 2 == 0, "even", "odd")


def parse_usps_digits(path, *, task: str, per_digit: int = PER_DIGIT) -> Parsed:
    """The digits substitute (module docstring) from ``usps.h5``.

    X (2000, 196) of integers 0..9 as float64, labels by ``task`` (``"odd-even"`` or
    ``"10-digit"``), groups = digit.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``usps.h5`` file.
    task : {"odd-even", "10-digit"}
        The labels: ``"even"``/``"odd"``, or the digit.
    per_digit : int, default=PER_DIGIT
        The training images taken per digit (the first ones, in file order).

    Returns
    -------
    Parsed
        X (10 ``per_digit``, 196), the labels and the digits as ``groups``.

    Raises
    ------
    ValueError
        For an unknown ``task``.
    DataError
        If the file cannot be read, is not as described, or has fewer than ``per_digit``
        training images of some digit.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    pixels, digits = read_usps(path, "train")
    rows = first_per_class(digits, per_digit)
    short = {
        int(d): int(c)
        for d, c in zip(*np.unique(digits[rows], return_counts=True))
        if c < per_digit
    }
    if short or np.unique(digits).size != 10:
        raise DataError(
            f"{path}: fewer than {per_digit} training images of some digit "
            f"({short or 'a digit is missing'})"
        )
    images = pixels[rows].reshape(-1, USPS_SIDE, USPS_SIDE)
    X = quantize(resample(images)).reshape(rows.size, SIDE * SIDE)
    group = digits[rows]
    y = odd_even_labels(group) if task == "odd-even" else group.copy()
    return Parsed(X, y, groups=group)


# ---------------------------------------------------------------------------- Wang et al. 2015


def parse_usps_pair(path, *, pair: tuple[int, int]) -> Parsed:
    """Two digits of the USPS **training** part (``usps38``: 3 vs 8, ...).

    Every training
    image of either digit, in file order, pixels as stored (256 features in [0, 1]); the
    label is the digit.  Wang et al. 2015, Table 1 (usps38 1200, usps49 1296, usps56 1220,
    usps27 1376 points: the training part's counts).

    Parameters
    ----------
    path : str or pathlib.Path
        The ``usps.h5`` file.
    pair : tuple of (int, int)
        The two digits.

    Returns
    -------
    Parsed
        X (m, 256) and the digits as labels.

    Raises
    ------
    DataError
        If the file cannot be read, is not as described, or has no training image of a
        digit of the pair.
    """
    pixels, digits = read_usps(path, "train")
    rows = np.flatnonzero(np.isin(digits, pair))
    missing = sorted(set(pair) - set(digits[rows].tolist()))
    if missing:
        raise DataError(f"{path}: no training image of digit(s) {missing}")
    return Parsed(pixels[rows], digits[rows])


def parse_usps_odd_even(path) -> Parsed:
    """The whole USPS **test** part (2007 images), odd vs even.

    Wang et al. 2015, Table 1 (2007 x 256): pixels as stored, labels ``"even"`` / ``"odd"``,
    groups = digit.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``usps.h5`` file.

    Returns
    -------
    Parsed
        X (2007, 256), the labels and the digits as ``groups``.

    Raises
    ------
    DataError
        If the file cannot be read or is not as described.
    """
    pixels, digits = read_usps(path, "test")
    return Parsed(pixels, odd_even_labels(digits), groups=digits)
