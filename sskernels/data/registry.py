"""The registry of named data sets: where each comes from, how to parse it, what it holds.

Raw files, URLs and sha256 are those documented in ``shared/datasets/*/SOURCES.md``.
To add a data set, add one :class:`~sskernels.data.entry.Entry` to its source's module in
:mod:`sskernels.data.entries` (``n``, ``d``, ``n_classes`` and ``n_groups``,
or a regression set's ``n_targets``, are checked against the parsed file on every load).
"""

from __future__ import annotations

import difflib

from ..errors import UnknownNameError
from .entries.kscl import _KSCL_ENTRIES
from .entries.manifold import _MANIFOLD_ENTRIES
from .entries.sklearn_bundled import _SKLEARN_ENTRIES
from .entries.sslbook import _SSLBOOK_ENTRIES
from .entries.synthetic import _SYNTHETIC_ENTRIES
from .entries.uci import _UCI_ENTRIES
from .entries.wang2015 import _WANG_ENTRIES
from .entry import Entry

__all__ = ["REGISTRY", "Entry", "get_entry"]


REGISTRY: dict[str, Entry] = {
    e.name: e
    for e in (
        _UCI_ENTRIES
        + _SKLEARN_ENTRIES
        + _MANIFOLD_ENTRIES
        + _KSCL_ENTRIES
        + _WANG_ENTRIES
        + _SSLBOOK_ENTRIES
        + _SYNTHETIC_ENTRIES
    )
}


def get_entry(name: str) -> Entry:
    """The registry entry called ``name``; UnknownNameError listing the known names otherwise.

    Parameters
    ----------
    name : str
        A registered data set's name.

    Returns
    -------
    Entry
        Its registry entry.

    Raises
    ------
    UnknownNameError
        For a name that is not registered (the message suggests a close name).
    """
    try:
        return REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(name, REGISTRY, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise UnknownNameError(
            f"unknown data set {name!r}; {hint}known: {', '.join(REGISTRY)}"
        ) from None
