"""The one content hash: every cache key, fingerprint and record key is made here.

blake2b (:mod:`hashlib`) of an unambiguous encoding of the parts: each part is written with a
type tag and its length, so that no two different sequences of parts give the same bytes.
Checksums of downloaded files (sha256, :mod:`sskernels.data.cache`) are a different job and
stay there; so does the keyed blake2b ranking of :func:`sskernels.learners.label_aware.
landmark_indices` (a pseudo-random order that decides numbers, not a key).
"""

from __future__ import annotations

import hashlib
import json
import pickle
import weakref

import numpy as np
import scipy.sparse as sp

__all__ = ["digest", "fingerprint", "json_digest", "params_key"]


def _chunk(h, tag, data):
    h.update(tag)
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


def _update(h, part):
    if isinstance(part, bytes):
        _chunk(h, b"b", part)
    elif isinstance(part, str):
        _chunk(h, b"s", part.encode())
    elif sp.issparse(part):
        X = part.tocsr()
        _chunk(h, b"S", repr((X.shape, str(X.dtype))).encode())
        for a in (X.data, X.indices, X.indptr):
            _update(h, np.asarray(a))
    elif isinstance(part, np.ndarray):
        a = np.ascontiguousarray(part)
        _chunk(h, b"a", repr((a.shape, a.dtype.str)).encode())
        _chunk(h, b"d", a.tobytes())
    elif isinstance(part, (tuple, list)):
        _chunk(h, b"t", str(len(part)).encode())
        for p in part:
            _update(h, p)
    elif part is None or isinstance(part, (bool, int, float, complex, np.generic)):
        _chunk(h, b"x", f"{type(part).__name__}:{part!r}".encode())
    else:
        raise TypeError(
            f"cannot hash a {type(part).__name__} (bytes, str, arrays, sparse "
            "matrices, scalars, None and tuples or lists of them)"
        )


def digest(*parts, size=16):
    """A hex blake2b digest of ``parts``: the key of anything that is a function of them.

    Parameters
    ----------
    *parts : bytes, str, numpy.ndarray, scipy.sparse matrix, scalar, None, tuple or list
        An array counts by its contents, shape and dtype; a sparse matrix by its CSR arrays
        (data, indices, indptr: its sparsity pattern), shape and dtype; a scalar by its type
        and ``repr``; a tuple or list by its length and items (recursively).
    size : int, default=16
        Bytes of the digest (the hex string has twice as many characters).

    Returns
    -------
    str
        The hex digest.

    Raises
    ------
    TypeError
        For a part of another type.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.hashing import digest
    >>> a = np.arange(6.0)
    >>> digest(a, "rbf") == digest(a.copy(), "rbf")
    True
    >>> digest(a) == digest(a.reshape(2, 3)), digest(a) == digest(a.astype(np.float32))
    (False, False)
    >>> len(digest(a)), len(digest(a, size=8))
    (32, 16)
    """
    h = hashlib.blake2b(digest_size=int(size))
    for part in parts:
        _update(h, part)
    return h.hexdigest()


def json_digest(obj, length=16):
    """The first ``length`` hex characters of the blake2b digest of ``obj``'s canonical JSON
    (``json.dumps(obj, sort_keys=True, default=str)``): the key of a spec part or a record.

    Parameters
    ----------
    obj : JSON-serializable object
        Anything else inside is written as its ``str``.
    length : int, default=16
        Hex characters kept (at most 128).

    Returns
    -------
    str

    Examples
    --------
    >>> from sskernels.hashing import json_digest
    >>> json_digest({"a": 1, "b": [2, 3]}) == json_digest({"b": [2, 3], "a": 1})
    True
    >>> json_digest({"a": 1}) == json_digest({"a": 2}), len(json_digest({"a": 1}))
    (False, 16)
    """
    text = json.dumps(obj, sort_keys=True, default=str).encode()
    return hashlib.blake2b(text).hexdigest()[: int(length)]


#: ``id -> (weakref, digest)`` of read-only dense arrays already hashed (see :func:`fingerprint`):
#: not a memo of values but of digests, by weak reference and bounded to 64 entries (dead ones
#: dropped first), so not a :class:`sskernels.memo.LRU`
_FINGERPRINTS: dict = {}


def _frozen(a):
    """True when ``a`` and every array it views are read-only (their contents cannot change)."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return a is None


def fingerprint(X):
    """A content hash of a dense or sparse matrix.

    A dense array that is read-only all the way down (``_frozen``; the runner freezes its
    data) is hashed once: its digest is kept against a weak reference to it (the experiment
    grid asks for the fingerprint of the same ``X`` on every fit).  Anything writable is
    hashed every time.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
        The matrix; anything not sparse is hashed as ``numpy.asarray(X)``.

    Returns
    -------
    str
        The 32-character hex digest (:func:`digest`) of ``X``'s contents, shape and dtype (a
        sparse matrix: of its CSR arrays).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import fingerprint
    >>> X = np.arange(6.0).reshape(3, 2)
    >>> fingerprint(X) == fingerprint(X.copy()), fingerprint(X) == fingerprint(X.T)
    (True, False)
    >>> len(fingerprint(X))
    32
    """
    frozen = isinstance(X, np.ndarray) and _frozen(X)
    if frozen:
        hit = _FINGERPRINTS.get(id(X))
        if hit is not None and hit[0]() is X:
            return hit[1]
    digest = _fingerprint(X)
    if frozen:
        if len(_FINGERPRINTS) >= 64:
            for k in [k for k, (ref, _) in _FINGERPRINTS.items() if ref() is None]:
                del _FINGERPRINTS[k]
        if len(_FINGERPRINTS) < 64:
            _FINGERPRINTS[id(X)] = (weakref.ref(X), digest)
    return digest


def _fingerprint(X):
    return digest(X if sp.issparse(X) else np.asarray(X))


def _param_part(value):
    """A learner parameter as a part of :func:`digest`: an estimator by its
    class (its parameters are listed by ``get_params(deep=True)`` themselves), an array or
    scalar as it is, anything else by its pickle (a ``RandomState``: its state), else its
    ``repr``."""
    if hasattr(value, "get_params") and not isinstance(value, type):
        return "estimator:" + type(value).__module__ + "." + type(value).__qualname__
    if isinstance(value, (tuple, list)):
        return [type(value).__name__] + [_param_part(v) for v in value]
    try:
        digest(value)
        return value
    except TypeError:
        pass
    try:
        return pickle.dumps(value, protocol=4)
    except Exception:
        return "repr:" + repr(value)


def params_key(estimator):
    """A digest of ``estimator``'s class and its ``get_params(deep=True)``.

    Nested estimators' parameters are included: the digest is equal for equal parameters,
    different when any differs.  The key of a memoized fit, and the part of a record's key
    that says which estimator was built.

    Parameters
    ----------
    estimator : object
        An estimator (anything with ``get_params``); an object without ``get_params`` is
        keyed by its class alone.

    Returns
    -------
    str
        A 32-character hex digest (:func:`digest`) of the class's qualified name and the
        sorted parameters (an estimator parameter by its class, an array or scalar as it is,
        anything else by its pickle, else its ``repr``).

    Examples
    --------
    >>> from sklearn.svm import SVC
    >>> from sskernels.hashing import params_key
    >>> params_key(SVC(C=2.0)) == params_key(SVC(C=2.0)), params_key(SVC()) == params_key(SVC(C=2.0))
    (True, False)
    """
    get_params = getattr(estimator, "get_params", None)  # none: its class alone
    params = sorted(get_params(deep=True).items()) if callable(get_params) else []
    return digest(
        type(estimator).__module__ + "." + type(estimator).__qualname__,
        [(k, _param_part(v)) for k, v in params],
    )
