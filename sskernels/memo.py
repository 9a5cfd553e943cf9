"""The one rule every label-independent cache follows: a :class:`LRU` bounded in entries and in
bytes, whose stored arrays are read-only, keyed by :mod:`sskernels.hashing`.

A memo holds arrays and solver results (spectra, bases, factors, LP solutions, graphs), never
a fitted estimator: two estimators must not share a mutable fitted object.  The module-level
caches of the package are all :class:`LRU` instances (``graph._CACHE``, ``kernels.spectra.
_RBF_CACHE``, ``kernels.rbf._MEDIAN_CACHE``, ``kernels.deformed._BASIS_CACHE``,
``learners.graph_base._PRECOMPUTED``, ``learners.linear_manifold._GRAMS``, the learners' and
solvers' memos).  The other module-level dicts are not value caches of their own:
``hashing._FINGERPRINTS`` remembers the digest of read-only arrays by weak reference (64
entries at most), and ``kernels.deformed._INTRINSIC`` / ``_DENSE`` hold read-only products of a graph or matrix only as long as it lives (weak
references), so they are bounded by the LRUs that hold those objects.

One switch turns every memo off: ``SSKERNELS_CACHE=off`` in the environment (inherited by a
run's worker processes; ``sskernels run --no-cache`` sets it), or :func:`set_caching` /
:func:`caching` in a program.  Off, a memo keeps nothing: every lookup misses and every
value is computed where it is needed, with the same numbers (a stored value's arrays are
read-only either way).  The on-disk graph store (``--artifacts``) is a separate, opt-in
switch.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections import OrderedDict
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

from sskernels.errors import ParameterError
from sskernels.hashing import digest

__all__ = [
    "LRU",
    "caching",
    "caching_enabled",
    "clear_shared",
    "content_key",
    "freeze",
    "put_shared",
    "set_caching",
    "shared_items",
    "sizeof",
]

#: the shared memos by their module's name (:class:`LRU` ``shared=__name__``)
_SHARED: dict = {}
#: every memo of the process, by weak reference: what :func:`set_caching` empties
_ALL: list = []
#: the environment variable of the switch, and the words it accepts
CACHE_ENV = "SSKERNELS_CACHE"
_WORDS = {"on": True, "1": True, "true": True, "yes": True}
_WORDS.update({"off": False, "0": False, "false": False, "no": False})
#: the switch set by :func:`set_caching`; None: follow ``$SSKERNELS_CACHE``
_SWITCH: list = [None]


def caching_enabled():
    """Whether the memos keep what they are given.

    :func:`set_caching`'s choice when one was made, else ``$SSKERNELS_CACHE`` (``on`` or
    ``off``; also ``1``/``0``, ``true``/``false``, ``yes``/``no``; unset: on).

    Returns
    -------
    bool
        True when the memos are on.

    Raises
    ------
    ParameterError
        When ``$SSKERNELS_CACHE`` holds another word.

    Examples
    --------
    >>> from sskernels.memo import caching, caching_enabled
    >>> with caching(False):
    ...     caching_enabled()
    False
    """
    if _SWITCH[0] is not None:
        return _SWITCH[0]
    raw = os.environ.get(CACHE_ENV, "on")
    try:
        return _WORDS[raw.strip().lower()]
    except KeyError:
        raise ParameterError(f"${CACHE_ENV}={raw!r}: expected on or off") from None


def _memos():
    """The live memos of the process."""
    _ALL[:] = [ref for ref in _ALL if ref() is not None]
    return [ref() for ref in _ALL]


def set_caching(enabled):
    """Turn every memo of the process on or off; off also empties them.

    Parameters
    ----------
    enabled : bool or None
        True: on; False: off (each memo emptied); None: follow ``$SSKERNELS_CACHE`` again.

    Returns
    -------
    bool or None
        The previous choice (None when the environment decided).
    """
    previous = _SWITCH[0]
    _SWITCH[0] = None if enabled is None else bool(enabled)
    if enabled is not None and not enabled:
        for memo in _memos():
            memo.clear()
    return previous


@contextmanager
def caching(enabled):
    """:func:`set_caching` for the body of a ``with`` block, then the previous choice again.

    Parameters
    ----------
    enabled : bool
        Whether the memos keep values inside the block.

    Yields
    ------
    None
    """
    previous = set_caching(enabled)
    try:
        yield
    finally:
        _SWITCH[0] = previous


def sizeof(value):
    """The bytes of the arrays ``value`` holds.

    An array's ``nbytes`` (a sparse matrix's data, indices and indptr), summed over a tuple,
    list or dict's items and a dataclass's fields; an object's own integer ``nbytes``
    otherwise, else 0.

    Parameters
    ----------
    value : object
        An array, a sparse matrix, a container of them, a dataclass, or any object.

    Returns
    -------
    int
        The number of bytes counted.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.memo import sizeof
    >>> sizeof((np.zeros(3), {"b": np.zeros((2, 2), dtype=np.float32)}, "text"))
    40
    """
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if sp.issparse(value):
        return sum(
            int(getattr(value, a).nbytes)
            for a in ("data", "indices", "indptr")
            if hasattr(value, a)
        )
    if isinstance(value, (tuple, list)):
        return sum(sizeof(v) for v in value)
    if isinstance(value, dict):
        return sum(sizeof(v) for v in value.values())
    n = getattr(value, "nbytes", None)
    if isinstance(n, (int, np.integer)):
        return int(n)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(sizeof(getattr(value, f.name)) for f in dataclasses.fields(value))
    return 0


def freeze(value):
    """Make the arrays ``value`` holds read-only, in place, and return ``value``.

    See :func:`sizeof` for what it holds; an object with a ``freeze()`` method freezes
    itself.

    Parameters
    ----------
    value : object
        An array, a sparse matrix, a tuple, list or dict of them, an object with a
        ``freeze()`` method, or a dataclass; anything else is left as it is.

    Returns
    -------
    object
        ``value`` itself.
    """
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif sp.issparse(value):
        for a in ("data", "indices", "indptr"):
            if isinstance(getattr(value, a, None), np.ndarray):
                getattr(value, a).setflags(write=False)
    elif isinstance(value, (tuple, list)):
        for v in value:
            freeze(v)
    elif isinstance(value, dict):
        for v in value.values():
            freeze(v)
    elif callable(getattr(value, "freeze", None)) and not isinstance(value, type):
        value.freeze()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            freeze(getattr(value, f.name))
    return value


class LRU(OrderedDict):
    """``OrderedDict`` bounded to ``size`` entries and, with ``max_bytes``, to that many bytes of
    values (:func:`sizeof`; the newest entry is kept even alone over the bound).

    :meth:`store` makes the value's arrays read-only (:func:`freeze`) and evicts the least
    recently used; :meth:`lookup` refreshes.  The byte total is kept as entries come and go
    (a store costs O(1) besides the evictions); a value that grows after it was stored (a
    graph's lazily computed spectrum) is measured again when it is looked up.

    ``shared``: the defining module's ``__name__`` for a memo of label-independent
    artifacts that the runner computes once and hands to its workers (graphs, spectra,
    bases): :func:`shared_items` lists every such memo, :func:`put_shared` fills one in a
    worker, :func:`clear_shared` empties them all.  A new memoizing module declares itself
    this way and nothing else changes.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.memo import LRU
    >>> memo = LRU(2)
    >>> a = memo.store("a", np.zeros(3))
    >>> a.flags.writeable, memo.lookup("a") is a
    (False, True)
    >>> _ = memo.store("b", 1.0); _ = memo.store("c", 2.0)
    >>> list(memo)                      # the least recently used dropped
    ['b', 'c']
    """

    def __init__(self, size, max_bytes=None, shared=None):
        super().__init__()
        self.size = int(size)
        self.max_bytes = max_bytes
        self._sizes = {}
        self._total = 0
        _ALL.append(weakref.ref(self))
        if shared is not None:
            _SHARED[shared] = self

    def _measure(self, key, value):
        n = sizeof(value)
        self._total += n - self._sizes.get(key, 0)
        self._sizes[key] = n

    def __delitem__(self, key):
        super().__delitem__(key)
        self._total -= self._sizes.pop(key, 0)

    def popitem(self, last=True):
        """Remove and return an entry, keeping the byte total.

        Parameters
        ----------
        last : bool, default=True
            True: the most recently used entry; False: the least recently used one.

        Returns
        -------
        tuple
            The removed ``(key, value)``.

        Raises
        ------
        KeyError
            When the memo is empty.
        """
        key, value = super().popitem(last=last)
        self._total -= self._sizes.pop(key, 0)
        return key, value

    def pop(self, key, *default):
        """Remove ``key`` and return its value, keeping the byte total.

        Parameters
        ----------
        key : hashable
            The key to remove.
        *default : object
            At most one value, returned when ``key`` is not stored.

        Returns
        -------
        object
            The value stored under ``key``, else ``default``.

        Raises
        ------
        KeyError
            When ``key`` is not stored and no ``default`` is given.
        """
        if key in self:
            self._total -= self._sizes.pop(key, 0)
        return super().pop(key, *default)

    def clear(self):
        super().clear()
        self._sizes.clear()
        self._total = 0

    def lookup(self, key):
        """The value stored under ``key`` (now the most recent), or None.

        Its size is measured again (a value may have grown since it was stored).

        Parameters
        ----------
        key : hashable
            The key looked up.

        Returns
        -------
        object or None
            The stored value, or None when ``key`` is not stored (always None when the
            memos are off, :func:`caching_enabled`).
        """
        if not caching_enabled():
            return None
        hit = self.get(key)
        if hit is not None:
            self.move_to_end(key)
            self._measure(key, hit)
        return hit

    def nbytes(self):
        """The bytes of the stored values (:func:`sizeof`, as last measured)."""
        return self._total

    def store(self, key, value):
        """Store ``value`` (its arrays made read-only) under ``key``; returns it.

        Then drop the oldest entries past ``size`` (or past ``max_bytes``, but never ``value``).
        When the memos are off (:func:`caching_enabled`), ``value`` is frozen and returned but
        not kept.

        Parameters
        ----------
        key : hashable
            The key to store under (an existing entry is replaced).
        value : object
            The value; its arrays are made read-only in place (:func:`freeze`).

        Returns
        -------
        object
            ``value`` itself.
        """
        freeze(value)
        if not caching_enabled():
            return value
        self[key] = value
        self.move_to_end(key)
        self._measure(key, value)
        while len(self) > self.size or (
            self.max_bytes is not None and len(self) > 1 and self._total > self.max_bytes
        ):
            self.popitem(last=False)
        return value


def content_key(*parts):
    """A 128-bit hex digest of arrays' contents and shapes (:func:`sskernels.hashing.digest`).

    Scalars count as 0-d arrays, as float: the key of a memo whose value is a function of
    exactly these inputs.

    Parameters
    ----------
    *parts : array-like or scalar
        The inputs; each is hashed as ``numpy.asarray(part, dtype=float)``.

    Returns
    -------
    str
        The 32-character hex digest.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.memo import content_key
    >>> content_key(np.eye(2), 0.5) == content_key(np.eye(2, dtype=int), 0.5)
    True
    >>> content_key(np.eye(2), 0.5) == content_key(np.eye(2), 1)
    False
    """
    return digest(*[np.asarray(a, dtype=float) for a in parts])


def shared_items():
    """``{module: [(key, artifact)]}`` of every shared memo (``LRU(shared=__name__)``): what
    a worker receives so that it computes no graph, spectrum or basis again."""
    return {name: list(memo.items()) for name, memo in sorted(_SHARED.items())}


def put_shared(module, key, artifact):
    """Store ``artifact`` under ``key`` in the shared memo of ``module``; returns it.

    ``module`` is imported first, so that its memo exists in this process.

    Parameters
    ----------
    module : str
        The dotted name of the module that declares the memo (``LRU(shared=__name__)``).
    key : hashable
        The key to store under.
    artifact : object
        The value to store (its arrays are made read-only, :meth:`LRU.store`).

    Returns
    -------
    object
        ``artifact`` itself.

    Raises
    ------
    KeyError
        When ``module`` declares no shared memo.
    ModuleNotFoundError
        When ``module`` cannot be imported.
    """
    import importlib

    if module not in _SHARED:
        importlib.import_module(module)
    if module not in _SHARED:
        raise KeyError(f"{module} declares no shared memo (LRU(..., shared=__name__))")
    return _SHARED[module].store(key, artifact)


def clear_shared():
    """Empty every shared memo."""
    for memo in _SHARED.values():
        memo.clear()
