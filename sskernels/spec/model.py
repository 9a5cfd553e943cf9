"""The validated spec's dataclasses: :class:`Spec` and its parts (:class:`DatasetSpec`,
:class:`GraphSpec`, :class:`SplitSpec`, :class:`MethodSpec`, :class:`PaperSpec`), and the hash
of a spec's data part (:meth:`Spec.data_key`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from sskernels.hashing import json_digest


@dataclass
class DatasetSpec:
    name: str | None = None
    file: str | None = None
    format: str | None = None
    label: str | None = None

    @property
    def display(self):
        return self.name or Path(self.file).stem


@dataclass
class GraphSpec:
    k: int = 6
    weights: str = "hein-maier"
    sigma: float | None = None
    metric: str = "euclidean"
    #: k-NN search: "auto" (exact up to ``sskernels.graph.knn.EXACT_MAX_N`` dense points,
    #: ``EXACT_MAX_N_SPARSE`` sparse ones, an approximate index above), "exact",
    #: "approximate" or "nndescent" (a million points: ``sskernels.graph.descent``)
    method: str = "auto"


@dataclass
class SplitSpec:
    """``per_class`` (protocol per-class: one list of counts per setting; ``n_labeled`` then
    holds their sums) and ``cover`` (protocol class-first: "classes" or "groups") are None
    for the protocols that do not use them."""

    protocol: str = "random"
    n_splits: int = 20
    n_labeled: list = field(default_factory=lambda: [20])
    seed: int = 0
    holdout: float = 0.0
    per_class: list | None = None
    cover: str | None = None


@dataclass
class MethodSpec:
    name: str
    label: str
    paper: str
    params: dict = field(default_factory=dict)
    #: None (selection on the labeled points, the default) or "oracle" (best test accuracy)
    select: str | None = None
    #: with select "oracle": None (the best candidate per split) or "mean" (``select:
    #: oracle-mean``, the candidate best on average over the splits, chosen when summarizing:
    #: the records are the per-split oracle's, every candidate's accuracy in each)
    pick: str | None = None
    #: "paper": this row follows the paper's stated protocol for its paper cell; None: ours
    protocol: str | None = None
    #: a user's estimator only (``estimator:``): ``{parameter: [values]}`` selected on the
    #: labeled points; None for every registered method (it selects through its params)
    grid: dict | None = None


@dataclass
class PaperSpec:
    table: str | None = None
    dataset: str | None = None
    time_table: str | None = None


@dataclass
class Spec:
    path: str
    name: str
    dataset: DatasetSpec
    preprocess: str
    graph: GraphSpec
    splits: SplitSpec
    methods: list
    paper: PaperSpec
    output: str
    table: str | None = None
    #: metrics recorded beside accuracy (:data:`EXTRA_METRICS`); empty by default
    metrics: list = field(default_factory=list)
    #: "classification" or "regression": the registered data set's task (a data file:
    #: classification)
    task: str = "classification"
    #: regression only: None (targets as stored) or "minmax" (each target column to [0, 1])
    target_scale: str | None = None
    #: the spec's alternative readings (``readings:``), by name: ``{name: quote}``
    readings: dict = field(default_factory=dict)
    #: the reading this spec was loaded under (``load_spec(..., reading=NAME)``), or None
    reading: str | None = None

    def data_key(self, graph=True):
        """A hash of everything a split's record depends on except the method.

        (``graph=False``: without the graph, for a method that does not use it.)

        ``n_splits`` is left out: split i depends only on the protocol, the
        number of labeled points, the seed and i, so adding splits keeps the
        recorded ones.  ``per_class`` and ``cover`` enter the hash when set (the
        per-class and class-first protocols) and are left out when None, so the
        keys of the specs that predate them are unchanged; so does the graph's ``method``
        ("auto" is left out).

        Parameters
        ----------
        graph : bool, default=True
            Whether the graph enters the hash.

        Returns
        -------
        str
            The hash, 16 hexadecimal characters.
        """
        splits = asdict(self.splits)
        splits.pop("n_splits")
        splits.pop("n_labeled")  # the setting is part of the record's path
        for name in ("per_class", "cover"):
            if splits[name] is None:
                splits.pop(name)
        g = asdict(self.graph)
        if g["method"] == "auto":  # the default search: older keys unchanged
            g.pop("method")
        d = {
            "dataset": asdict(self.dataset),
            "preprocess": self.preprocess,
            "graph": g,
            "splits": splits,
        }
        if not graph:
            d.pop("graph")
        if self.target_scale is not None:  # regression specs only: older keys unchanged
            d["target_scale"] = self.target_scale
        return _hash(d)


def _hash(obj):
    return json_digest(obj, length=16)
