"""A registered data set's description (:class:`Entry`); the entries are in
:mod:`sskernels.data.entries`, joined by :mod:`sskernels.data.registry`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .cache import PackageFile, RemoteFile
from .parsers import Parsed

__all__ = ["Entry"]


@dataclass(frozen=True)
class Entry:
    """A registered data set.

    ``parse`` is called with the local paths of ``files`` (in order) and returns a
    :class:`~sskernels.data.parsers.Parsed`; ``preprocess`` is the default preprocessing.
    ``files`` are downloadable :class:`RemoteFile` s or :class:`PackageFile` s shipped in an
    installed Python package.  ``n_groups`` is the number of subclasses the points carry
    (``Dataset.groups``, e.g. the 10 digits of ``odd-even``), 0 when they carry none; specs
    are checked against it before any data loads (``splits.cover: groups``).

    ``task`` is ``"classification"`` or ``"regression"``.  A regression set has no classes
    (``n_classes`` 0): its parser returns float targets (n, ``n_targets``), loaded as they are
    (never encoded) and checked to be finite instead of the label checks; a spec naming it
    is a regression spec (regressors only, metrics rmse and mse; ``sskernels.spec``), its
    official split the labeled pool the runner draws labeled points from.
    """

    name: str
    n: int
    d: int
    n_classes: int
    source: str
    description: str
    parse: Callable[..., Parsed]
    files: tuple[RemoteFile | PackageFile, ...] = ()
    preprocess: str = "none"
    n_groups: int = 0
    task: str = "classification"
    n_targets: int = 0
    n_extra: int = 0
