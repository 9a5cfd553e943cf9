"""Feature preprocessing applied after loading: none, minmax, standardize, l2, standardize-l2.

Dense input gives a new float64 array; sparse input stays CSR wherever the result is still
sparse ("none", "l2", and "minmax" when no column would need a shift that fills in zeros).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import DataError, UnknownNameError

PREPROCESSINGS = ("none", "minmax", "standardize", "l2", "standardize-l2", "rss-floor")
#: the value ``rss-floor`` gives an access point that was not heard (stored as 0 dBm)
RSS_FLOOR = -100.0


def check_preprocess(how: str) -> str:
    """Return ``how`` if it names a preprocessing, else raise UnknownNameError.

    Parameters
    ----------
    how : str
        The preprocessing's name.

    Returns
    -------
    str
        ``how``, one of :data:`PREPROCESSINGS`.

    Raises
    ------
    UnknownNameError
        If ``how`` is not one of :data:`PREPROCESSINGS`.
    """
    if how not in PREPROCESSINGS:
        raise UnknownNameError(
            f"unknown preprocessing {how!r}; expected one of {', '.join(PREPROCESSINGS)}"
        )
    return how


def preprocess(X, how: str):
    """Apply a preprocessing to the rows of ``X`` (n samples x d features).

    - ``"none"``: unchanged (as float64);
    - ``"minmax"``: each feature mapped to [0, 1]; constant features become 0;
    - ``"standardize"``: each feature to mean 0, standard deviation 1; constant features become 0;
    - ``"l2"``: each row scaled to unit Euclidean norm; all-zero rows stay zero;
    - ``"standardize-l2"``: ``"standardize"``, then ``"l2"`` (unit-length rows of features on
      one scale: without the first step one large-valued feature, e.g. wine's proline, is
      nearly the whole unit vector);
    - ``"rss-floor"``: WiFi received signal strengths (dBm, e.g. ``wifi``): an entry of 0, which
      the file uses for "access point not heard", becomes :data:`RSS_FLOOR` (-100 dBm, below the
      weakest reading, -97), so that "not heard" is the weakest signal, not the strongest; other
      values unchanged (a choice for Wang et al. 2015's WiFi task, which states no scaling).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The features.
    how : {"none", "minmax", "standardize", "l2", "standardize-l2", "rss-floor"}
        The preprocessing (:data:`PREPROCESSINGS`).

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The preprocessed features, float64: a new dense array for dense input, CSR for
        sparse input.

    Raises
    ------
    UnknownNameError
        For an unknown ``how``.
    DataError
        For sparse input that the preprocessing would make dense (``"standardize"``,
        ``"standardize-l2"``, ``"rss-floor"``, or ``"minmax"`` of a column with a negative
        minimum and implicit zeros).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.data import preprocess
    >>> X = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 40.0]])
    >>> preprocess(X, "minmax")
    array([[0.        , 0.        ],
           [0.5       , 0.33333333],
           [1.        , 1.        ]])
    >>> preprocess(np.array([[3.0, 4.0], [0.0, 0.0]]), "l2")      # an all-zero row stays zero
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    check_preprocess(how)
    sparse = sp.issparse(X)
    X = sp.csr_matrix(X, dtype=np.float64) if sparse else np.asarray(X, dtype=np.float64)
    if how == "none":
        return X
    if how == "l2":
        return _l2(X)
    if how == "rss-floor":
        if sparse:
            raise DataError("rss-floor would make the sparse feature matrix dense; densify X first")
        return np.where(X == 0, RSS_FLOOR, X)
    if how == "minmax":
        return _minmax_sparse(X) if sparse else _minmax_dense(X)
    if sparse:
        raise DataError(
            f"{how} would make the sparse feature matrix dense; "
            "use 'l2' or 'minmax', or densify X first"
        )
    std = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
    return _l2(X) if how == "standardize-l2" else X


def _l2(X):
    """Unit-length rows (scikit-learn's ``normalize``, imported here: importing the data
    registry stays fast)."""
    from sklearn.preprocessing import normalize

    return normalize(X, norm="l2")


def _inverse_range(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """1 / (hi - lo), with 0 for constant features (so they map to 0)."""
    span = hi - lo
    return np.divide(1.0, span, out=np.zeros_like(span), where=span > 0)


def _minmax_dense(X: np.ndarray) -> np.ndarray:
    lo = X.min(axis=0)
    return (X - lo) * _inverse_range(lo, X.max(axis=0))


def _minmax_sparse(X: sp.csr_matrix) -> sp.csr_matrix:
    """Min-max scaling that touches stored entries only.

    A column whose minimum is 0 only needs dividing by its maximum; a column with no implicit
    zeros can be shifted too.  A column with a negative minimum and implicit zeros cannot be
    scaled without filling in its zeros, which is refused.
    """
    X = X.copy()
    X.sum_duplicates()
    lo = X.min(axis=0).toarray().ravel()
    hi = X.max(axis=0).toarray().ravel()
    stored = np.bincount(X.indices, minlength=X.shape[1])
    dense_shift = (lo != 0) & (stored < X.shape[0])
    if dense_shift.any():
        j = int(np.flatnonzero(dense_shift)[0])
        raise DataError(
            f"minmax of a sparse feature matrix needs non-negative columns "
            f"(column {j} has minimum {lo[j]:g}); use 'l2', or densify X first"
        )
    X.data = (X.data - lo[X.indices]) * _inverse_range(lo, hi)[X.indices]
    X.eliminate_zeros()
    return X
