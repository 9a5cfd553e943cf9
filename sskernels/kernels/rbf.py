"""The Gaussian (RBF) kernel and its width rules: the package's only RBF code.

``K(x, z) = exp(-||x - z||^2 / (2 sigma^2))``; ``sigma`` is called the width.
Width rules (each a choice some paper makes, named where it is used):

* ``"median"`` — the median pairwise distance of the rows (all pairs up to
  :data:`MEDIAN_MAX_N` rows, else the pairs of a fixed subsample; a zero
  median falls back to the mean distance, then 1);
* ``"mean-norm"`` — the mean Euclidean norm of the rows (Mao & Tsang, Sec. 5.2).

A learner that selects the width selects a *scale* of its rule
(``kernel_width_scale``), e.g. ``{0.25, 0.5, 1, 2, 4} x`` the median.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.preprocessing import normalize

from sskernels.errors import ParameterError
from sskernels.hashing import fingerprint
from sskernels.memo import LRU

WIDTH_RULES = ("median", "mean-norm")
#: largest n for which the pairwise-distance median uses every pair (else a fixed subsample)
MEDIAN_MAX_N = 2000

_MEDIAN_CACHE_SIZE = 16
#: median distances by (fingerprint, metric): floats, bounded in entries only
_MEDIAN_CACHE = LRU(_MEDIAN_CACHE_SIZE)


def _prepare(X, metric):
    if metric == "euclidean":
        return X
    if metric == "cosine":
        return normalize(X)
    raise ParameterError(f"metric must be 'euclidean' or 'cosine', got {metric!r}")


def squared_distances(A, B=None, metric="euclidean"):
    """Squared Euclidean distances (dense), for dense or sparse inputs (cosine: unit rows).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n_a, n_features)
        The first point set.
    B : ndarray or sparse matrix of shape (n_b, n_features), default=None
        The second point set; None: ``A``.
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine" takes the distances between the rows scaled to unit norm.

    Returns
    -------
    ndarray of shape (n_a, n_b)
        The squared distances (negative round-off clipped to 0).

    Raises
    ------
    ParameterError
        For an unknown metric.
    """
    A = _prepare(A, metric)
    B = A if B is None else _prepare(B, metric)
    return np.maximum(euclidean_distances(A, B, squared=True), 0.0)


def rbf(D2, width):
    """``K = exp(-D2 / (2 width^2))`` from squared distances.

    Parameters
    ----------
    D2 : ndarray
        Squared distances.
    width : float
        The width ``sigma`` (> 0).

    Returns
    -------
    ndarray of the shape of ``D2``
        The kernel values.

    Raises
    ------
    ParameterError
        For a width that is not > 0.
    """
    width = float(width)
    if not width > 0:
        raise ParameterError(f"kernel width must be > 0, got {width}")
    return np.exp(-D2 / (2.0 * width**2))


def rbf_kernel(A, B, width, metric="euclidean"):
    """``K(a, b) = exp(-||a - b||^2 / (2 width^2))`` between the rows of A and B.

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n_a, n_features)
        The first point set.
    B : ndarray or sparse matrix of shape (n_b, n_features)
        The second point set.
    width : float
        The width ``sigma`` (> 0).
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine" takes the distances between the rows scaled to unit norm.

    Returns
    -------
    K : ndarray of shape (n_a, n_b)
        The Gram matrix.

    Raises
    ------
    ValueError
        For a width that is not > 0, or an unknown metric.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.rbf import rbf_kernel
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> rbf_kernel(X, X, width=5.0).round(4)        # distances 5 and 10
    array([[1.    , 0.6065, 0.1353],
           [0.6065, 1.    , 0.6065],
           [0.1353, 0.6065, 1.    ]])
    """
    return rbf(squared_distances(A, B, metric), width)


def mean_norm(X):
    """``(1/n) sum_i ||x_i||``: the RBF width of Mao & Tsang, Sec. 5.2.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The points.

    Returns
    -------
    float
        The mean Euclidean norm of the rows.
    """
    if sp.issparse(X):
        return float(np.mean(np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())))
    return float(np.mean(np.linalg.norm(X, axis=1)))


def mean_squared_distance(X, metric="euclidean"):
    """Mean squared distance over the pairs ``i != j`` of rows of X, in closed form (O(nd)).

    ``(1 / (n (n-1))) sum_{i != j} ||x_i - x_j||^2 = 2n/(n-1) (mean_i ||x_i||^2 - ||mean x||^2)``.
    Its inverse is the ``b0`` of Wang et al. (2015, Sec. 4.1) for the kernel
    ``exp(-b ||x - z||^2)`` (= :func:`rbf` with ``width = 1 / sqrt(2 b)``).  Zero (all rows
    equal, or one row) is returned as is; the caller decides.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The points.
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine" takes the distances between the rows scaled to unit norm.

    Returns
    -------
    float
        The mean squared distance (``>= 0``; 0 for fewer than two rows).

    Raises
    ------
    ParameterError
        For an unknown metric.
    """
    Z = _prepare(X, metric)
    n = Z.shape[0]
    if n < 2:
        return 0.0
    if sp.issparse(Z):
        sq = float(Z.multiply(Z).sum()) / n
        mean = np.asarray(Z.mean(axis=0)).ravel()
    else:
        sq = float(np.einsum("ij,ij->", Z, Z)) / n
        mean = Z.mean(axis=0)
    return max(2.0 * n / (n - 1) * (sq - float(mean @ mean)), 0.0)


def median_distance(X, metric="euclidean", key=None):
    """Median pairwise distance of the rows of X (label-independent; memoized).

    Every pair for ``n <= MEDIAN_MAX_N``, else the pairs of a fixed random
    subsample of that many rows (seed 0).  Falls back to the mean, then 1, when
    the median is 0.  Memoized by ``(fingerprint(X), metric)``.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The points.
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine" takes the distances between the rows scaled to unit norm.
    key : str, default=None
        A precomputed fingerprint of X (:func:`~sskernels.graph.fingerprint`).

    Returns
    -------
    distance : float
        The median distance (> 0).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.rbf import median_distance
    >>> median_distance(np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))   # of 5, 5 and 10
    5.0
    """
    fp = fingerprint(X) if key is None else key
    ck = (fp, metric)
    hit = _MEDIAN_CACHE.lookup(ck)
    if hit is not None:
        return hit
    Z = _prepare(X, metric)
    n = Z.shape[0]
    if n > MEDIAN_MAX_N:
        Z = Z[np.sort(np.random.default_rng(0).choice(n, MEDIAN_MAX_N, replace=False))]
    D = np.sqrt(squared_distances(Z))
    d = D[np.triu_indices(D.shape[0], k=1)]
    med = float(np.median(d)) if d.size else 1.0
    if not med > 0:
        med = float(np.mean(d)) if d.size and np.mean(d) > 0 else 1.0
    return _MEDIAN_CACHE.store(ck, med)


def resolve_width(X, width, scale=1.0, metric="euclidean"):
    """The width in use: a number as given, or a rule's value (``WIDTH_RULES``) times ``scale``.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The points the rules are computed on.
    width : float or {"median", "mean-norm"}
        A width (> 0), or a rule: ``"median"`` the median pairwise distance of the rows
        (:func:`median_distance`), ``"mean-norm"`` the mean Euclidean norm of the rows
        (Mao & Tsang, Sec. 5.2).
    scale : float, default=1.0
        The factor applied to the width (``kernel_width_scale``).
    metric : {"euclidean", "cosine"}, default="euclidean"
        The metric of the ``"median"`` rule.

    Returns
    -------
    width : float
        ``scale`` times the width or the rule's value.

    Raises
    ------
    ValueError
        For an unknown rule, or a numeric width that is not > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.rbf import resolve_width
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    >>> resolve_width(X, "median", scale=0.5), resolve_width(X, 2.0, scale=0.5)
    (2.5, 1.0)
    """
    if isinstance(width, str):
        if width == "median":
            base = median_distance(X, metric)
        elif width == "mean-norm":
            base = mean_norm(X)
        else:
            raise ParameterError(
                f"kernel_width must be a number or one of {WIDTH_RULES}, got {width!r}"
            )
        return float(scale) * base
    width = float(width)
    if not width > 0:
        raise ParameterError(f"kernel_width must be > 0, got {width}")
    return width * float(scale)


def clear_cache():
    _MEDIAN_CACHE.clear()
