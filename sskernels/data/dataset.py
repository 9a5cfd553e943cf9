"""The in-memory data set objects handed to the rest of sskernels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass
class Dataset:
    """A loaded data set: features, original labels, provenance and optional official splits.

    Made by :func:`load_dataset` and :func:`load_file`; every parameter is an attribute of
    the same name.

    Parameters
    ----------
    name : str
        The data set's name.
    X : ndarray or scipy.sparse.csr_matrix of shape (n, d)
        The features, float64, dense or CSR (sparse sources stay sparse).
    y : ndarray of shape (n,) or (n, k)
        The labels exactly as the source gives them (ints or strings, never re-encoded);
        a regression set's ``y`` holds finite float64 targets (n, k) instead of labels
        (the WiFi locations).
    source : str
        Where the data come from (e.g. ``"sklearn.datasets.load_wine"``, or a user
        file's path).
    description : str, default=""
        One line on the data set.
    splits : list of ndarray or None, default=None
        The official labelled-index sets (0-based) when the source ships them; a
        regression set's: the labeled rows of its source's partition.
    views : dict of str to (int, int) or None, default=None
        For multi-view sets, a view name's half-open column range ``(start, stop)`` in
        ``X``.
    groups : ndarray of shape (n,) or None, default=None
        A subclass of every point (the digit of ``odd-even``), which split protocols can
        ask to cover (``cover: groups``); it is never part of ``X``.  None when the data
        set has no subclasses.
    task : {"classification", "regression"}, default="classification"
        The task of the data set.
    X_extra : ndarray or scipy.sparse.csr_matrix of shape (n_extra, d) or None, default=None
        Further points that are always unlabeled and never evaluated (SecStr's 1,189,472
        extra points, ``secstr-extra``): the learners fit on ``X`` and these together, the
        accuracy is measured on ``X``'s unlabeled points only.  None for most data sets.

    Examples
    --------
    >>> from sskernels.data import load_dataset
    >>> ds = load_dataset("sklearn-wine")
    >>> ds
    Dataset('sklearn-wine', X=178x13 dense, 3 classes, source='sklearn.datasets.load_wine')
    >>> ds.X.shape, ds.task, ds.splits is None
    ((178, 13), 'classification', True)
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    source: str
    description: str = ""
    splits: list[np.ndarray] | None = None
    views: dict[str, tuple[int, int]] | None = None
    groups: np.ndarray | None = None
    task: str = "classification"
    X_extra: np.ndarray | sp.csr_matrix | None = None

    def __repr__(self) -> str:
        kind = "sparse" if sp.issparse(self.X) else "dense"
        n, d = self.X.shape
        extra = f", {len(self.splits)} splits" if self.splits else ""
        if self.groups is not None:
            extra += f", {len(np.unique(self.groups))} groups"
        if self.X_extra is not None:
            extra += f", {self.X_extra.shape[0]} extra unlabeled"
        target = (
            f"{len(np.unique(self.y))} classes"
            if self.task == "classification"
            else f"{self.task}, {np.atleast_2d(self.y.T).shape[0]} targets"
        )
        return f"Dataset({self.name!r}, X={n}x{d} {kind}, {target}{extra}, source={self.source!r})"


@dataclass(frozen=True)
class DatasetInfo:
    """One line of the data set catalogue (``list_datasets``); nothing is loaded to build it.

    ``cached`` is True when every raw file is present locally (in the mirror or the cache; the
    sha256 is checked when the set is loaded) or when the set is bundled with scikit-learn.
    ``task`` is ``"classification"`` or ``"regression"`` (``n_classes`` 0).
    """

    name: str
    n: int
    d: int
    n_classes: int
    source: str
    cached: bool
    description: str
    task: str = "classification"
