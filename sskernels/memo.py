"""A small least-recently-used memo, the one rule every label-independent cache follows."""

from __future__ import annotations

from collections import OrderedDict


class LRU(OrderedDict):
    """``OrderedDict`` bounded to ``size`` entries; :meth:`lookup` refreshes, :meth:`store` evicts
    the least recently used."""

    def __init__(self, size):
        super().__init__()
        self.size = int(size)

    def lookup(self, key):
        """The value stored under ``key`` (now the most recent), or None."""
        hit = self.get(key)
        if hit is not None:
            self.move_to_end(key)
        return hit

    def store(self, key, value):
        """Store ``value`` under ``key``, drop the oldest entries past ``size``; returns it."""
        self[key] = value
        while len(self) > self.size:
            self.popitem(last=False)
        return value
