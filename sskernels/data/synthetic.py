"""Two-dimensional toy data sets: seeded (Sindhwani, Belkin & Niyogi, Sec. 11.1-11.4 figures)
and the deterministic two-spirals benchmark (kernel self-consistent labeling, Sec. 6).

Every generator returns ``(X, y)``: ``X`` float64 of shape ``(n, 2)``, ``y`` int64 class
labels ``0..k-1``; the same ``seed`` gives the same arrays (:func:`two_spirals` takes none:
it involves no randomness).

* :func:`two_moons` — two interleaving half circles (``sklearn.datasets.make_moons``):
  class 0 the upper moon (centre (0, 0), radius 1), class 1 the lower moon
  (centre (1, 0.5)); Figs. 11.4 and 11.6.
* :func:`two_circles` — two concentric circles (``sklearn.datasets.make_circles``):
  class 0 the outer circle (radius 1), class 1 the inner one (radius ``factor``);
  Figs. 11.1 and 11.8.
* :func:`gaussian_blobs` — isotropic Gaussians with explicit, well separated centres
  on a circle of radius 5 (centre ``k`` at angle ``2 pi k / centers``; adjacent
  centres are ``10 sin(pi / centers)`` apart, 8.7 for three, i.e. > 10 ``std`` at
  ``std = 0.8``); Fig. 11.3.
* :func:`curve` — a 1-D manifold in 2-D, as Fig. 11.2: one and a half turns of the
  Archimedean spiral ``r(t) = 0.3 + t``, angle ``3 pi t``, ``t`` uniform on
  [0, 1], plus Gaussian noise of std 0.01.  Class 0 is the inner half of the
  curve (``t < 1/2``), class 1 the outer half.  Successive turns lie 2/3 apart
  while neighbouring samples along the curve are far closer, so points that are
  near in the plane can be far along the curve: the situation of Fig. 11.2.
* :func:`two_spirals` — Lang & Witbrock's (1988) two intertwined spirals, 97 points each,
  exactly as the classic CMU benchmark generator (Wieland's ``mkspiral.c``) writes them.
"""

from __future__ import annotations

import numpy as np


def _out(X, y):
    return np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


def two_moons(n=200, noise=0.05, seed=0):
    """Two moons, ``n`` points (``ceil(n/2)`` in class 0), Gaussian noise of std ``noise``.

    Parameters
    ----------
    n : int, default=200
        The number of points.
    noise : float, default=0.05
        The std of the Gaussian noise.
    seed : int, default=0
        The random seed.

    Returns
    -------
    X : ndarray of shape (n, 2)
        The points, float64.
    y : ndarray of shape (n,)
        The class labels, int64.
    """
    from sklearn.datasets import make_moons  # not at import: `datasets list` stays fast

    X, y = make_moons(n_samples=int(n), noise=noise, random_state=seed)
    return _out(X, y)


def two_circles(n=200, noise=0.03, factor=0.5, seed=0):
    """Two concentric circles of radii 1 (class 0) and ``factor`` (class 1), noise std ``noise``.

    Parameters
    ----------
    n : int, default=200
        The number of points.
    noise : float, default=0.03
        The std of the Gaussian noise.
    factor : float, default=0.5
        The radius of the inner circle.
    seed : int, default=0
        The random seed.

    Returns
    -------
    X : ndarray of shape (n, 2)
        The points, float64.
    y : ndarray of shape (n,)
        The class labels, int64.
    """
    from sklearn.datasets import make_circles

    X, y = make_circles(n_samples=int(n), noise=noise, factor=factor, random_state=seed)
    return _out(X, y)


def blob_centers(centers=3, radius=5.0):
    """The explicit centres of :func:`gaussian_blobs`: ``centers`` points on a circle.

    Centre ``k`` lies at angle ``2 pi k / centers``.

    Parameters
    ----------
    centers : int, default=3
        The number of centres.
    radius : float, default=5.0
        The radius of the circle.

    Returns
    -------
    ndarray of shape (centers, 2)
        The centres.
    """
    a = 2.0 * np.pi * np.arange(int(centers)) / int(centers)
    return radius * np.column_stack([np.cos(a), np.sin(a)])


def gaussian_blobs(n=300, centers=3, std=0.8, seed=0):
    """``n`` points from ``centers`` isotropic Gaussians of std ``std`` at :func:`blob_centers`.

    Parameters
    ----------
    n : int, default=300
        The number of points.
    centers : int, default=3
        The number of Gaussians (classes), ``>= 1``.
    std : float, default=0.8
        The std of each Gaussian.
    seed : int, default=0
        The random seed.

    Returns
    -------
    X : ndarray of shape (n, 2)
        The points, float64.
    y : ndarray of shape (n,)
        The class labels, int64.

    Raises
    ------
    ValueError
        If ``centers < 1``.
    """
    if int(centers) < 1:
        raise ValueError(f"centers must be >= 1, got {centers!r}")
    from sklearn.datasets import make_blobs

    X, y = make_blobs(
        n_samples=int(n), centers=blob_centers(centers), cluster_std=std, random_state=seed
    )
    return _out(X, y)


def curve(n=200, seed=0, noise=0.01):
    """A spiral curve in 2-D (see the module docstring); class = which half of the curve.

    Parameters
    ----------
    n : int, default=200
        The number of points.
    seed : int, default=0
        The random seed.
    noise : float, default=0.01
        The std of the Gaussian noise.

    Returns
    -------
    X : ndarray of shape (n, 2)
        The points, float64.
    y : ndarray of shape (n,)
        The class labels, int64.
    """
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0.0, 1.0, int(n)))
    r = 0.3 + t
    a = 3.0 * np.pi * t
    X = np.column_stack([r * np.cos(a), r * np.sin(a)]) + noise * rng.standard_normal((int(n), 2))
    return _out(X, (t >= 0.5).astype(int))


def two_spirals(per_spiral=97):
    """Lang & Witbrock's two-spirals benchmark (194 points, 2 features); no randomness.

    For ``i = 0 .. per_spiral-1``: angle ``a = i pi / 16``, radius
    ``r = 6.5 (104 - i) / 104``; the point ``(r sin a, r cos a)`` is class 1 and its mirror
    image through the origin ``(-r sin a, -r cos a)`` class 0 — the points, labels and
    interleaved order of the classic CMU benchmark file (Wieland's ``mkspiral.c``: row
    ``2i`` is point ``i`` of the class-1 spiral, row ``2i+1`` its negation).  Three turns
    per spiral, radius from 6.5 (``i = 0``, the point (0, 6.5)) down to 0.5.

    Scale (no normalisation: the kernel self-consistent labeling paper normalises nothing for
    2-spiral): coordinates lie in [-6.5, 6.5]; the median squared distance over the 18721
    pairs of distinct points is 22.90625 (mean 30.78, max 169); the squared distance of a
    point to its nearest neighbour ranges from 0.0147 to 1.0 (median 0.466).  The paper's
    Table 1 gives sigma^2_SVM = 5e-4 for 2-spiral (w = exp(-d^2 / 2 sigma^2)): at this scale
    the kernel between nearest neighbours is at most exp(-14.7) ~ 4e-7 (median ~1e-203), an
    identity Gram matrix to double precision; the mismatch is documented, not rescaled.

    Parameters
    ----------
    per_spiral : int, default=97
        The number of points of each spiral.

    Returns
    -------
    X : ndarray of shape (2 per_spiral, 2)
        The points, float64.
    y : ndarray of shape (2 per_spiral,)
        The class labels, int64.
    """
    i = np.arange(int(per_spiral))
    a = i * np.pi / 16.0
    r = 6.5 * (104 - i) / 104.0
    P = np.column_stack([r * np.sin(a), r * np.cos(a)])
    X = np.empty((2 * i.size, 2))
    X[0::2], X[1::2] = P, -P
    y = np.tile([1, 0], i.size)
    return _out(X, y)


#: name -> generator (called with its defaults by :func:`load_synthetic`)
SYNTHETIC = {
    "two-moons": two_moons,
    "two-circles": two_circles,
    "gaussian-blobs": gaussian_blobs,
    "curve": curve,
    "two-spirals": two_spirals,
}


def load_synthetic(name, **kwargs):
    """``(X, y)`` of the synthetic data set ``name`` (a key of :data:`SYNTHETIC`).

    Parameters
    ----------
    name : str
        The data set, a key of :data:`SYNTHETIC`.
    **kwargs : dict
        The generator's parameters (its defaults otherwise).

    Returns
    -------
    X : ndarray of shape (n, 2)
        The points, float64.
    y : ndarray of shape (n,)
        The class labels, int64.

    Raises
    ------
    KeyError
        For an unknown ``name``.
    """
    try:
        gen = SYNTHETIC[name]
    except KeyError:
        raise KeyError(
            f"unknown synthetic data set {name!r}; known: {', '.join(SYNTHETIC)}"
        ) from None
    return gen(**kwargs)
