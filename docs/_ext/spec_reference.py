"""``.. spec-table:: KIND``: the experiment spec's field tables, read from sskernels.spec.

The allowed values and defaults are taken from the constants and dataclasses of
:mod:`sskernels.spec` (``TOP_FIELDS``, ``SPLIT_FIELDS``, ``PROTOCOLS``, ``SELECTIONS``,
``PROTOCOLS_OF_ROWS``, ``GraphSpec``, ``SplitSpec``, ...) when the documentation is built, so
the page cannot drift from the validator.  Only the one-line descriptions are written here; a
field of ``TOP_FIELDS``, ``SPLIT_FIELDS``, ``METHOD_FIELDS``, ``READING_FIELDS`` or
``GraphSpec`` without a description here is a build warning (an error under ``make docs``),
naming the field.

KIND is one of ``top``, ``graph``, ``splits``, ``methods``, ``readings``.
"""

from __future__ import annotations

import dataclasses

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)


def _choices(values):
    return " | ".join(f"``{v}``" for v in values)


def _top(spec):
    from sskernels.data.transforms import PREPROCESSINGS

    return {
        "name": ("the file's stem", "the run's name (no path separators)"),
        "table": ("none", "the paper table the rows belong to (a label for the summaries)"),
        "dataset": (
            "required",
            "a registered name (``sskernels datasets list``) or a mapping "
            "``{file: data.csv, label: COLUMN}`` (``format: csv | svmlight`` "
            "when the suffix does not tell)",
        ),
        "preprocess": ("``none``", _choices(PREPROCESSINGS)),
        "graph": ("see below", "the k-NN graph of the graph-based methods"),
        "splits": ("see below", "the split protocol"),
        "methods": ("required", "a list of method names or mappings (see below)"),
        "paper": (
            "none",
            "``{table: NAME, dataset: NAME, time_table: NAME}``: the paper table "
            "(``sskernels/paper_tables/NAME.csv``) whose values sit beside ours",
        ),
        "output": (
            "``results/runs/NAME`` beside the spec",
            "the folder of the records and ``summary.csv`` / ``summary.md`` "
            "(relative to the spec's folder)",
        ),
        "metrics": (
            "``[]``",
            "metrics recorded beside accuracy: "
            + _choices(spec.EXTRA_METRICS)
            + " (classification), "
            + _choices(spec.REGRESSION_METRICS)
            + " (regression, always recorded)",
        ),
        "target_scale": ("``none``", "regression only: " + _choices(spec.TARGET_SCALES)),
        "readings": (
            "none",
            "documented alternative readings of the paper, each an overlay "
            "on this spec (see below)",
        ),
        "reading": (
            "none",
            "``{name: NAME, quote: TEXT}``: this whole spec is one reading of another",
        ),
    }, spec.TOP_FIELDS


def _graph(spec):
    from sskernels.graph.knn import METHODS, METRICS, WEIGHTS

    d = {f.name: f.default for f in dataclasses.fields(spec.GraphSpec)}
    return {
        "k": (f"``{d['k']}``", f"neighbours, 1 to {spec.MAX_NEIGHBORS:,}"),
        "weights": (
            f"``{d['weights']}``",
            _choices(WEIGHTS) + ": Liu et al. eq. (2) (Hein & Maier), Gaussian, or 1 on every edge",
        ),
        "sigma": (
            "none (root mean squared edge length)",
            f"width of ``heat`` weights, {spec.SIGMA_MIN:g} to {spec.SIGMA_MAX:g}",
        ),
        "metric": (f"``{d['metric']}``", _choices(METRICS)),
        "method": (
            f"``{d['method']}``",
            _choices(METHODS) + ": the neighbour search "
            "(exact up to 20,000 dense points, an hnswlib index above)",
        ),
    }, tuple(d)


def _splits(spec):
    d = {f.name: f.default for f in dataclasses.fields(spec.SplitSpec)}
    return {
        "protocol": (f"``{d['protocol']}``", _choices(spec.PROTOCOLS)),
        "n_splits": (f"``{d['n_splits']}``", f"1 to {spec.MAX_SPLITS:,}"),
        "n_labeled": (
            "``20``",
            "labeled points per split; a list is one setting per value (not with ``per-class``)",
        ),
        "seed": (f"``{d['seed']}``", "0 to 2\\ :sup:`32` - 1; split i is drawn from (seed, i)"),
        "holdout": (
            f"``{d['holdout']}``",
            "a seeded fraction in [0, 1) set aside as unseen points (inductive accuracy)",
        ),
        "per_class": (
            "none",
            "protocol ``per-class``: one list of counts per setting, in "
            "sorted label order, e.g. ``[[10, 10], [10, 20]]``",
        ),
        "cover": (
            "``classes``",
            "protocol ``class-first``: "
            + _choices(spec.COVERS)
            + " (one point per class, or per subclass, first)",
        ),
    }, spec.SPLIT_FIELDS


def _methods(spec):
    return {
        "name": (
            "required (or ``estimator``)",
            "a registered method (``sskernels methods list``) or an entry point of the "
            "group ``sskernels.methods``",
        ),
        "estimator": (
            "none",
            "instead of ``name``: a user's estimator, "
            "``package.module:Class`` (:doc:`/benchmark_your_own`)",
        ),
        "label": ("the name", "display name of the row"),
        "paper_row": (
            "the label, if the paper table has that row",
            "the paper table's row this one is compared with",
        ),
        "paper": ("", "the old name of ``paper_row``"),
        "params": (
            "``{}``",
            "the estimator's parameters; ``auto`` or a list selects on the labeled points",
        ),
        "grid": (
            "none",
            "a user's estimator only: ``{param: [values]}`` selected on the labeled points",
        ),
        "select": (
            f"``{spec.SELECTIONS[0]}``",
            _choices(spec.SELECTIONS)
            + ": selection on the labeled points, or an oracle on the test labels "
            "(its label must say \"oracle\")",
        ),
        "protocol": (
            "none",
            _choices(spec.PROTOCOLS_OF_ROWS)
            + ": this row follows the paper's stated protocol for its cell",
        ),
    }, getattr(spec, "METHOD_FIELDS", None)


def _readings(spec):
    return {
        "name": ("required", "the reading's name (``--reading NAME``)"),
        "quote": ("required", "the paper's sentence it interprets"),
        "set": (
            "none",
            "top-level fields it replaces (``graph`` and ``splits`` merged key by "
            "key): " + _choices(spec.READING_SET),
        ),
        "methods": ("none", "per method label, ``{params: {...}}`` merged into its params"),
        "only": ("all", "the method labels that run under it"),
    }, spec.READING_FIELDS


KINDS = {
    "top": _top,
    "graph": _graph,
    "splits": _splits,
    "methods": _methods,
    "readings": _readings,
}


class SpecTable(SphinxDirective):
    required_arguments = 1

    def run(self):
        import sskernels.spec as spec

        kind = self.arguments[0]
        if kind not in KINDS:
            raise self.error(f"spec-table: unknown kind {kind!r} (one of {', '.join(KINDS)})")
        described, fields = KINDS[kind](spec)
        fields = tuple(described) if fields is None else tuple(fields)
        for f in fields:
            if f not in described:
                logger.warning(
                    "spec-table %s: sskernels.spec has the field %r, which "
                    "docs/_ext/spec_reference.py does not describe",
                    kind,
                    f,
                    location=self.get_location(),
                )
        rows = [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 18 22 60",
            "",
            "   * - field",
            "     - default",
            "     - values",
        ]
        for f in fields:
            default, text = described.get(f, ("", ""))
            rows += [f"   * - ``{f}``", f"     - {default}", f"     - {text}"]
        content = StringList(rows, source="spec_reference")
        container = nodes.container()
        self.state.nested_parse(content, self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("spec-table", SpecTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
