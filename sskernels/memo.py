"""A small least-recently-used memo, the one rule every label-independent cache follows."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np


class LRU(OrderedDict):
    """``OrderedDict`` bounded to ``size`` entries and, with ``max_bytes``, to that many bytes of
    values (a value's ``nbytes``; 0 without one; the newest entry is kept even alone over the
    bound); :meth:`lookup` refreshes, :meth:`store` evicts the least recently used."""

    def __init__(self, size, max_bytes=None):
        super().__init__()
        self.size = int(size)
        self.max_bytes = max_bytes

    def lookup(self, key):
        """The value stored under ``key`` (now the most recent), or None."""
        hit = self.get(key)
        if hit is not None:
            self.move_to_end(key)
        return hit

    def nbytes(self):
        """The bytes of the stored values (their ``nbytes``)."""
        return sum(int(getattr(v, "nbytes", 0)) for v in self.values())

    def store(self, key, value):
        """Store ``value`` under ``key``, drop the oldest entries past ``size`` (or past
        ``max_bytes``, but never ``value``); returns it."""
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size or (self.max_bytes is not None and len(self) > 1
                                         and self.nbytes() > self.max_bytes):
            self.popitem(last=False)
        return value


def content_key(*parts):
    """A 128-bit hex digest of arrays' contents and shapes (scalars count as 0-d arrays, as
    float): the key of a memo whose value is a function of exactly these inputs."""
    h = hashlib.blake2b(digest_size=16)
    for a in parts:
        h.update(np.ascontiguousarray(a, dtype=float).tobytes())
        h.update(str(np.shape(a)).encode())
    return h.hexdigest()
