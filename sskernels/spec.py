"""The YAML experiment spec: schema, defaults and one-line errors.

A spec names one data set, its preprocessing, a graph, a split protocol and a
list of methods::

    name: heart_tsk                 # optional, default: the file's stem
    table: liu2009-t3               # optional: the paper table this run belongs to
    dataset: heart                  # a registered name, or a mapping (see below)
    preprocess: minmax              # none | minmax | standardize | l2 | standardize-l2
    graph: {k: 6, weights: hein-maier}      # sigma, metric optional
    splits: {protocol: random, n_splits: 20, n_labeled: 20, seed: 0}
                                    # n_labeled may be a list (one setting each);
                                    # holdout: 0.2 sets a seeded 20 % aside as unseen points
    methods:
      - name: tsk                   # a registered method (``sskernels methods list``)
        label: TSK                  # optional display name (default: name)
        paper_row: TSK              # optional row of the paper table (old name: paper;
                                    # default: the label if the table has exactly that row)
        params: {n_components: 10, eta: 2}
        select: oracle              # optional, NOT the default: see "Selection" below
      - estimator: mypkg.module:MyClassifier   # a user's estimator (instead of name:)
        grid: {n_neighbors: [1, 3]}            # optional: selected on the labeled points
    metrics: [error, alignment]     # optional: metrics recorded beside accuracy (see below)
    paper: {table: liu2009_table3_uci_transductive_accuracy, dataset: heart}   # optional
                                    # (time_table: a paper table of seconds, for metric "seconds")
    output: ../results/runs/heart_tsk  # optional: where records and the summary go

A method's ``name`` may also be an entry point of the group ``sskernels.methods``; a
user's estimator, its ``grid:`` and its record key are described in
:mod:`sskernels.user_methods`, the paper rows (``paper_row:``) in
:mod:`sskernels.spec_params`.

Split protocols (:mod:`sskernels.experiment.splits`): ``random`` (uniform, redrawn until
every class occurs), ``official`` (the data set's own splits), ``class-first`` (one point per
class first, then uniform; ``cover: groups`` takes one point per subclass first, e.g. every
digit of ``odd-even``; default ``cover: classes``) and ``per-class`` (exact counts per class,
in sorted label order, one setting per inner list; no ``n_labeled``, it is each list's sum)::

    splits: {protocol: class-first, n_labeled: [10, 20, 40], cover: groups, n_splits: 30}
    splits: {protocol: per-class, per_class: [[10, 10], [10, 20], [10, 30], [10, 40]]}

A user's own file is ``dataset: {file: data.csv, label: class}`` (format
inferred from the suffix, or ``format: csv | svmlight``).  One rule for every
relative path of a spec (the data file and ``output``): it is taken relative to
the spec file's folder, so a spec, its data and its results move together.  The
default ``output`` is ``results/runs/NAME`` beside the spec; ``name`` may not hold
path separators.

Metrics.  Accuracy (%) on the unlabeled points is always recorded (and "inductive
accuracy" on held-out points).  ``metrics:`` asks for more, opt-in so that the records and
tables of the specs without it stay as they were: ``error`` (100 - accuracy, %; and
"inductive error") and ``alignment`` (the centered alignment, Cortes et al. 2010, of the
learned kernel's unlabeled block with the ideal kernel of the true unlabeled labels; only
for methods that learn a kernel, i.e. whose fitted estimator exposes ``kernel_``; Wang et
al. 2015, Tables 1-3).

Selection.  A method's parameters set to ``auto`` (or given as a list, or selected by
default) are selected on the labeled points only (``SelectOnLabeled``), the default and
the project's protocol.  ``select: oracle`` instead runs every candidate of the same grid
(nested grids, e.g. a kernel learner's, included) and keeps, per split, the one with the
best accuracy on the unlabeled points — it looks at the test labels, so it is never the
default and its label must say "oracle" (:mod:`sskernels.experiment.oracle`).  It exists
to reproduce papers that report the best grid point (Wang et al. 2015: "choose b ... that
gives the best performance").

Regression.  The task is the registered data set's (``Entry.task``; a data file is a
classification set).  On a regression data set (e.g. ``wifi``): the methods must be
regressors (``sskernels methods list``: svr, harmonic-regression, label-aware-svr) and on a
classification set classifiers; the metrics ``rmse`` and ``mse`` of the targets on the test
points are always recorded (``metrics:`` may list them and nothing else: ``error``,
``alignment`` and ``accuracy`` are refused); the protocol is ``random`` without ``holdout``:
split i draws ``n_labeled`` points, seeded by (seed, i), from the data set's labeled pool (the
rows of its official split; WiFi: its 505 'src' points) and the pool's other points are the
test points, while the rows outside the pool (WiFi's 2137 'tar' points) are unlabeled points
the learners may use and nobody is evaluated on; ``target_scale: minmax`` maps each target to
[0, 1] over all rows (Wang et al. 2015), ``none`` (default) keeps them; ``select: oracle`` is
refused (it ranks by accuracy)::

    dataset: wifi
    preprocess: rss-floor
    target_scale: minmax
    splits: {protocol: random, n_labeled: 100, n_splits: 10}
    metrics: [rmse, mse]
    methods: [svr, harmonic-regression, label-aware-svr]

Readings.  Where a paper's sentence can be read more than one way, the spec follows one
reading (its primary protocol) and may declare the others, each an overlay on the primary
spec quoting the sentence it interprets (``readings:``, :func:`_readings`); ``sskernels run
SPEC --reading NAME`` (or ``all``) runs them, their records beside the primary ones and their
rows marked with the reading's name, so that a match under a reading is never counted as a
match of the primary protocol.  A whole spec may itself be one reading of another
(``reading: {name: raw-features, quote: "..."}``).  A method marked ``protocol: paper`` is the
row that follows the paper's stated protocol for its paper cell where the spec has several.

Ranges.  Every number is checked before any work: nan and inf are refused everywhere
(a method's parameters, however nested, included); ``graph.k`` (and a method's own
``n_neighbors``) is 1 to :data:`MAX_NEIGHBORS`, ``graph.sigma`` (and a method's ``sigma``,
``kernel_width`` and ``kernel_width_scale``: RBF widths too) :data:`SIGMA_MIN` to
:data:`SIGMA_MAX`, a method's ``laplacian_degree`` 1 to :data:`MAX_LAPLACIAN_DEGREE`,
``splits.n_splits`` 1 to :data:`MAX_SPLITS`,
``splits.n_labeled`` and the ``per_class`` counts 1 to :data:`MAX_LABELED`, ``splits.seed``
0 to 2^32 - 1 and ``splits.holdout`` in [0, 1) (0 with protocol ``official``, and with a
precomputed input, ``graph: precomputed`` or ``kernel: precomputed``: held-out rows of an
(n, n) matrix leave a matrix that is not square).  A method's parameters are checked against
its estimator's constraints, every value of a grid it selects over included, and against the
shape the parameter takes where those constraints are loose (a parameter whose default is a
number takes no mapping, and a list only as a grid or where it takes a sequence, of numbers:
:func:`sskernels.spec_params._value_problems`).  What only the
data can tell (the held-out fraction against the classes, ``n_labeled`` and ``k`` against the
points the learners see) is checked once the data set loads, before any graph is built
(:func:`sskernels.experiment.preparation.prepare`).

Every problem is a :class:`~sskernels.errors.SpecError` naming the file, the
field and what was expected, in one line (:func:`one_line`: every line break and control
character a value or a name holds is escaped).  The file's YAML is read by
:mod:`sskernels.spec_yaml`: bounded before anything is built from it (:data:`MAX_YAML_NODES`
nodes with aliases expanded, :data:`MAX_YAML_DEPTH` levels), with no types a spec does not
take (sets, dates, binary), and whatever fails while reading it (a tag PyYAML cannot build, a
date that does not exist) is one such line with its line and column, not a traceback.

Reading the YAML is apart, in :mod:`sskernels.spec_yaml` (it knows nothing of the schema);
the checks of one method entry, its paper row and the packaged specs are in
:mod:`sskernels.spec_params`.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from sskernels.data.transforms import PREPROCESSINGS as PREPROCESS
from sskernels.errors import SpecError
from sskernels.hashing import json_digest

# the YAML reader (its bounds re-exported: they are the spec's)
from sskernels.spec_yaml import MAX_YAML_DEPTH, MAX_YAML_NODES  # noqa: F401
from sskernels.spec_yaml import SpecYAMLError, read_yaml
from sskernels.spec_limits import (  # noqa: F401 - the spec's bounds, used here and re-exported
    MAX_LABELED,
    MAX_LAPLACIAN_DEGREE,
    MAX_NEIGHBORS,
    MAX_SPLITS,
    METHOD_FIELDS,
    PARAM_MAGNITUDE,
    PROTOCOLS_OF_ROWS,
    SELECTIONS,
    SIGMA_MAX,
    SIGMA_MIN,
    SIGMA_REASON,
    WIDTH_REASON,
    _finite,
)
from sskernels.spec_params import method_entry, paper_row, paper_rows

PROTOCOLS = ("random", "official", "class-first", "per-class")
COVERS = ("classes", "groups")
SPLIT_FIELDS = ("protocol", "n_splits", "n_labeled", "seed", "holdout", "per_class", "cover")
NAME_RE = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,99}")


def maximum_reason(field_):
    """Why a field has its largest accepted value, as the error of a larger one says it.

    Parameters
    ----------
    field_ : str
        The field's dotted name (``"graph.k"``, ``"splits.n_splits"``, ...).

    Returns
    -------
    str
        The reason (e.g. "a bound on the run's length" for ``splits.n_splits``); "the
        largest accepted value" for a field without a reason of its own.
    """
    if field_.endswith("laplacian_degree"):
        return "each degree is one more product of the n x n Laplacian"
    return {
        "splits.n_splits": "a bound on the run's length",
        "graph.k": "a bound on the graph's size",
    }.get(field_, "the largest accepted value")


TOP_FIELDS = (
    "name",
    "table",
    "dataset",
    "preprocess",
    "graph",
    "splits",
    "methods",
    "paper",
    "output",
    "metrics",
    "target_scale",
    "readings",
    "reading",
)
#: metrics a spec may ask for beside accuracy (``metrics:``), in the order they are recorded
EXTRA_METRICS = ("error", "alignment")
#: the metrics of a regression data set, both always recorded (``metrics:`` may list them)
REGRESSION_METRICS = ("rmse", "mse")
#: ``target_scale:`` of a regression spec: none, or minmax (each target to [0, 1])
TARGET_SCALES = ("none", "minmax")
#: the fields of one reading (``readings:``) and the top-level fields its ``set:`` may replace
READING_FIELDS = ("name", "quote", "set", "methods", "only")
READING_SET = ("preprocess", "graph", "splits", "dataset", "metrics")


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


def method_key(spec, method):
    """A hash of the spec parts one method's records depend on.

    (Data set, preprocessing, graph, split protocol, the method's name and parameters.)

    Only the spec's side of a record's key: the runner adds the content of the
    prepared data and the code and library versions
    (:func:`sskernels.experiment.records.record_key`), which a spec cannot see.
    The spec's extra ``metrics``, a method's ``select: oracle`` and a user's ``grid`` enter
    the hash only when set, so the keys of the specs that predate them are unchanged.  The
    spec's graph enters only when the method uses it (:func:`graph_matters`), so the records
    of a method that ignores the graph are shared by specs that differ in it alone
    (``sskernels run`` reuses them; Wang et al.'s Tables 1 and 2 run the same label-aware
    rows).

    Parameters
    ----------
    spec : Spec
        The spec.
    method : MethodSpec
        One of its methods.

    Returns
    -------
    str
        The hash, 16 hexadecimal characters.
    """
    d = {
        "data": spec.data_key(graph=graph_matters(spec, method)),
        "name": method.name,
        "params": method.params,
    }
    metrics = getattr(spec, "metrics", None)
    if metrics:
        d["metrics"] = list(metrics)
    if getattr(method, "select", None) is not None:
        d["select"] = method.select
    if getattr(method, "grid", None):  # a user's estimator: older keys unchanged
        d["grid"] = method.grid
    return _hash(d)


def graph_matters(spec, method):
    """Whether the spec's graph reaches the method's estimator.

    It does when the estimator built with the
    spec's graph and with another (``k + 1``) differ in their (deep) parameters.  Decided on
    the parameters themselves, so a method that takes the graph in any nested estimator
    counts; an unbuildable method counts as using it (its key keeps the graph).

    Parameters
    ----------
    spec : Spec
        The spec.
    method : MethodSpec
        One of its methods.

    Returns
    -------
    bool
        True when the graph reaches the estimator (or the method cannot be built).
    """
    from sskernels.learners.registry import get_method, make_method

    try:
        if not get_method(method.name).uses_graph:
            return False
        g = spec.graph

        def built(k):
            est = make_method(
                method.name,
                n_neighbors=k,
                weights=g.weights,
                sigma=g.sigma,
                metric=g.metric,
                method=g.method,
                **method.params,
            )
            return repr(sorted((k_, repr(v)) for k_, v in est.get_params(deep=True).items()))

        return built(g.k) != built(g.k + 1)
    except Exception:  # noqa: BLE001 - be conservative: keep the graph in the key
        return True


# -- validation helpers -------------------------------------------------------


def one_line(text, limit=None):
    """``text`` as one printable line.

    Every character that is not printable, and so every
    one :meth:`str.splitlines` breaks at (``\\n``, ``\\r``, ``\\x0b``, ``\\x0c``,
    ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``, ``\\u2029``), is written as its escape;
    longer than ``limit`` characters (when given), it is cut and says how long it was.

    Parameters
    ----------
    text : object
        The text (anything else is taken as its ``str``).
    limit : int, default=None
        The most characters kept; None for no limit.

    Returns
    -------
    str
        The line.
    """
    text = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in str(text))
    if limit is not None and len(text) > limit:
        return f"{text[:limit]}... ({len(text)} characters)"
    return text


def _error(path, field_, expected, got=None):
    """A :class:`SpecError` whose message is one line whatever the path, the field's name or
    the values quoted in ``expected`` hold (``got`` is quoted by its ``repr``)."""
    return SpecError(one_line(path), one_line(field_), one_line(expected), got)


class _V:
    def __init__(self, path):
        self.path = path

    def fail(self, field_, expected, got=None):
        raise _error(self.path, field_, expected, got)

    def mapping(self, value, field_, allowed):
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(field_, "a mapping", value)
        for key in value if allowed is not None else ():
            if key not in allowed:
                self.fail(
                    f"{field_}.{key}" if field_ else str(key),
                    f"one of the fields {', '.join(allowed)} (unknown field)",
                )
        return value

    def integer(self, value, field_, minimum=None, maximum=None):
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field_, "an integer", value)
        if minimum is not None and value < minimum:
            self.fail(field_, f"an integer >= {minimum}", value)
        if maximum is not None and value > maximum:
            self.fail(field_, f"an integer <= {maximum} ({maximum_reason(field_)})", value)
        return value

    def number(
        self, value, field_, positive=False, optional=False, minimum=None, maximum=None, reason=None
    ):
        """A finite number (nan and inf are refused everywhere), within ``[minimum,
        maximum]`` when given (``reason``: why, said in the error); ``optional``: None
        passes."""
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(
                field_,
                "a number" + (" or null" if optional else "") + _yaml_number_hint(value),
                value,
            )
        if not _finite(value):
            self.fail(field_, "a finite number (within the range of a float)", value)
        if positive and not value > 0:
            self.fail(field_, "a positive number", value)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            lo = "" if minimum is None else f" >= {minimum:g}"
            hi = "" if maximum is None else f" <= {maximum:g}"
            self.fail(
                field_,
                f"a number{lo}{' and' if lo and hi else ''}{hi}"
                + (f" ({reason})" if reason else ""),
                value,
            )
        return float(value)

    def choice(self, value, field_, choices):
        if value not in choices:
            self.fail(field_, f"one of {', '.join(choices)}", value)
        return value

    def string(self, value, field_, optional=False):
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(field_, "a non-empty string", value)
        return value


def _yaml_number_hint(value):
    """A hint for a text that reads as a number (YAML 1.1 reads ``1e300`` as a string)."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return ""
        return " (YAML reads an exponent without a dot and sign as text: write 1.0e+300)"
    return ""


def load_spec(path, check_names=True, reading=None, extra_methods=(), output_base=None):
    """Read and validate a spec file; raises :class:`SpecError` with one line.

    The YAML is read by :func:`sskernels.spec_yaml.read_yaml` (bounded, strict about its
    types: any failure to read it is one such line, with its line and column).  ``reading``:
    the name of one of the spec's ``readings:``; the spec returned is the primary one with
    that reading's overlay applied (:func:`apply_reading`).  ``extra_methods``: ``(field,
    entry)`` pairs of method entries added after the spec's own (``sskernels run --with``;
    ``field`` names each in errors); ``output_base``: the folder a relative ``output`` is
    taken from instead of the spec's (a packaged spec: :mod:`sskernels.spec_params`).

    Parameters
    ----------
    path : str or pathlib.Path
        The spec file.
    check_names : bool, default=True
        Check the data set and method names against the registries (and the splits
        against the registered data set).
    reading : str, default=None
        The name of one of the spec's ``readings:``; None for the primary spec.
    extra_methods : sequence of tuple, default=()
        ``(field, entry)`` pairs of method entries added after the spec's own.
    output_base : str or pathlib.Path, default=None
        The folder a relative ``output`` is taken from; None for the spec file's folder.

    Returns
    -------
    Spec
        The validated spec.

    Raises
    ------
    SpecError
        For a missing or unreadable file, YAML that cannot be read, or any field that
        is not as expected (module docstring).
    """
    path = Path(path)
    if not path.is_file():
        raise _error(path, "(file)", "an existing YAML file", str(path))
    try:
        raw = read_yaml(path.read_text())
    except SpecYAMLError as exc:
        if exc.limit:
            raise _error(path, "(file)", exc.problem, exc.got) from None
        raise _error(path, "(file)", f"valid YAML; {_yaml_problem(exc)}") from None
    except yaml.YAMLError as exc:  # PyYAML's own: a syntax error, or a tag it cannot build
        what = "" if isinstance(exc, yaml.constructor.ConstructorError) else "parse error"
        raise _error(path, "(file)", f"valid YAML; {_yaml_problem(exc, what)}") from None
    except UnicodeDecodeError:
        raise _error(path, "(file)", "a UTF-8 text file") from None
    except OSError as exc:
        raise _error(path, "(file)", "a readable file", exc.strerror or str(exc)) from None
    return parse_spec(
        raw,
        path,
        check_names=check_names,
        reading=reading,
        extra_methods=extra_methods,
        output_base=output_base,
    )


def _yaml_problem(exc, what=""):
    """``[WHAT ]at line L, column C: PROBLEM`` of a YAML error (PyYAML's, or the loader's)."""
    mark = getattr(exc, "problem_mark", None)
    where = f"at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [""])[0]
    head = " ".join(x for x in (what, where) if x)
    return f"{head}: {problem}" if head else problem


def parse_spec(
    raw, path="<spec>", check_names=True, reading=None, extra_methods=(), output_base=None
):
    """Validate a spec's raw mapping (a spec file's YAML, read) and build its :class:`Spec`.

    :func:`load_spec` reads the file and calls it; the rules are those of the module
    docstring.  A relative ``dataset.file`` or ``output`` is taken from the folder of
    ``path``.

    Parameters
    ----------
    raw : object
        The spec's content, a mapping of its fields.
    path : str or pathlib.Path, default="<spec>"
        The spec file, named in errors.
    check_names : bool, default=True
        Check the data set and method names against the registries (and the splits
        against the registered data set).
    reading : str, default=None
        The name of one of the spec's ``readings:``, whose overlay is applied
        (:func:`apply_reading`); None for the primary spec.
    extra_methods : sequence of tuple, default=()
        ``(field, entry)`` pairs of method entries added after the spec's own.
    output_base : str or pathlib.Path, default=None
        The folder a relative ``output`` is taken from; None for the folder of ``path``.

    Returns
    -------
    Spec
        The validated spec.

    Raises
    ------
    SpecError
        For any field that is not as expected.

    Examples
    --------
    >>> from sskernels.spec import parse_spec
    >>> spec = parse_spec({"name": "demo", "dataset": "sklearn-wine", "preprocess": "minmax",
    ...                    "splits": {"n_splits": 2, "n_labeled": [10]},
    ...                    "methods": ["harmonic", {"name": "tsk", "params": {"beta": 1.0}}]})
    >>> [m.label for m in spec.methods], spec.splits.n_splits
    (['harmonic', 'tsk'], 2)
    >>> parse_spec({"name": "demo", "dataset": "sklearn-wine", "methods": ["harmonic"],
    ...             "splits": {"n_splits": 0}})
    Traceback (most recent call last):
    ...
    sskernels.errors.SpecError: <spec>: field 'splits.n_splits': expected an integer >= 1, got 0
    """
    v = _V(path)
    if not isinstance(raw, dict):
        raise _error(path, "(top level)", "a mapping of fields", type(raw).__name__)
    v.mapping(raw, "", TOP_FIELDS)
    readings = _readings(v, raw.get("readings"), raw.get("methods"))
    own = raw.get("reading")  # a whole spec that is one documented reading
    if own is not None:
        v.mapping(own, "reading", ("name", "quote"))
        own_name = v.string(own.get("name"), "reading.name")
        if not re.fullmatch(r"[A-Za-z0-9_\-]{1,60}", own_name):
            v.fail("reading.name", "a name of letters, digits, '_', '-'", own_name)
        v.string(own.get("quote"), "reading.quote")
        if readings:
            v.fail("readings", "no readings: in a spec that is itself a reading (reading:)")
    if reading is not None:
        if reading not in readings:
            v.fail(
                "readings",
                f"a reading named {reading!r} (the spec has {', '.join(readings) or 'none'})",
                reading,
            )
        raw = apply_reading(raw, readings[reading])
    name = v.string(raw.get("name", Path(str(path)).stem), "name")
    if not NAME_RE.fullmatch(name):
        v.fail(
            "name",
            "a name of letters, digits, '.', '_', '-' (no path separators, at most "
            "100 characters, not starting with '.')",
            name,
        )
    base_name = name
    if reading is not None:
        name = f"{name}.{reading}"

    ds = raw.get("dataset")
    if ds is None:
        v.fail("dataset", "a data set name or a mapping with 'name' or 'file'")
    if isinstance(ds, str):
        dataset = DatasetSpec(name=ds)
    else:
        v.mapping(ds, "dataset", ("name", "file", "format", "label"))
        if ("name" in ds) == ("file" in ds):
            v.fail("dataset", "exactly one of 'name' or 'file'")
        dataset = DatasetSpec(
            name=v.string(ds["name"], "dataset.name") if "name" in ds else None,
            file=v.string(ds["file"], "dataset.file") if "file" in ds else None,
            format=None
            if ds.get("format") is None
            else v.choice(ds["format"], "dataset.format", ("csv", "svmlight", "libsvm")),
            label=v.string(ds.get("label"), "dataset.label", optional=True),
        )
        if dataset.file is not None:
            f = Path(dataset.file)
            if not f.is_absolute():
                f = Path(path).parent / f
            dataset.file = str(f)
    if check_names and dataset.name is not None:
        from sskernels.data import dataset_names

        if dataset.name not in dataset_names():
            v.fail("dataset", f"a registered data set ({', '.join(dataset_names())})", dataset.name)
    task = "classification"
    if check_names and dataset.name is not None:
        from sskernels.data.registry import REGISTRY

        task = REGISTRY[dataset.name].task
    regression = task == "regression"

    preprocess = v.choice(raw.get("preprocess", "none"), "preprocess", PREPROCESS)

    g = v.mapping(raw.get("graph"), "graph", ("k", "weights", "sigma", "metric", "method"))
    from sskernels.graph import METRICS, WEIGHTS
    from sskernels.graph.descent import SEARCHES

    graph = GraphSpec(
        k=v.integer(g.get("k", 6), "graph.k", minimum=1, maximum=MAX_NEIGHBORS),
        weights=v.choice(g.get("weights", "hein-maier"), "graph.weights", WEIGHTS),
        sigma=v.number(
            g.get("sigma"),
            "graph.sigma",
            positive=True,
            optional=True,
            minimum=SIGMA_MIN,
            maximum=SIGMA_MAX,
            reason=SIGMA_REASON,
        ),
        metric=v.choice(g.get("metric", "euclidean"), "graph.metric", METRICS),
        method=v.choice(g.get("method", "auto"), "graph.method", SEARCHES),
    )

    s = v.mapping(raw.get("splits"), "splits", SPLIT_FIELDS)
    n_lab = s.get("n_labeled", 20)
    n_lab = n_lab if isinstance(n_lab, list) and n_lab else [n_lab]
    holdout = v.number(s.get("holdout", 0.0), "splits.holdout")
    if not 0.0 <= holdout < 1.0:
        v.fail("splits.holdout", "a fraction in [0, 1)", holdout)
    protocol = v.choice(s.get("protocol", "random"), "splits.protocol", PROTOCOLS)
    if holdout and protocol == "official":
        v.fail(
            "splits.holdout",
            "0 with protocol official (the data set's own splits name "
            "every point's role; none is left to hold out)",
            holdout,
        )
    per_class, cover = _split_options(v, s, protocol)
    if per_class is not None:
        n_labeled = [sum(counts) for counts in per_class]
    else:
        n_labeled = [
            v.integer(x, "splits.n_labeled", minimum=1, maximum=MAX_LABELED) for x in n_lab
        ]
    splits = SplitSpec(
        protocol=protocol,
        n_splits=v.integer(s.get("n_splits", 20), "splits.n_splits", minimum=1, maximum=MAX_SPLITS),
        n_labeled=n_labeled,
        seed=v.integer(s.get("seed", 0), "splits.seed", minimum=0, maximum=2**32 - 1),
        holdout=holdout,
        per_class=per_class,
        cover=cover,
    )
    if regression:
        if protocol != "random":
            v.fail(
                "splits.protocol",
                f"random (the only protocol of a regression data set, "
                f"{dataset.name}: n_labeled points drawn from its labeled pool)",
                protocol,
            )
        if holdout:
            v.fail(
                "splits.holdout",
                f"0 for a regression data set ({dataset.name}: the labeled "
                "pool's points that are not drawn are the test points)",
                holdout,
            )
    if check_names and not regression:
        _check_splits_against_data(v, splits, dataset)

    methods_raw = raw.get("methods")
    if not isinstance(methods_raw, list) or not methods_raw:
        v.fail("methods", "a non-empty list of methods", methods_raw)
    metrics = _metrics(v, raw.get("metrics"), regression, dataset.display)
    methods, labels, entries = [], set(), []
    for where, m in [(f"methods[{i}]", m) for i, m in enumerate(methods_raw)] + list(extra_methods):
        e = method_entry(v, where, m, metrics, holdout, graph, task, dataset.display, check_names)
        if e["label"] in labels:
            v.fail(f"{where}.label", "a label not used by another method of this spec", e["label"])
        labels.add(e["label"])
        entries.append((where, e["raw"], e["user"]))
        methods.append(
            MethodSpec(
                e["name"],
                e["label"],
                None,
                e["params"],
                e["select"],
                e["pick"],
                e["protocol"],
                e["grid"],
            )
        )

    p = v.mapping(raw.get("paper"), "paper", ("table", "dataset", "time_table"))
    paper = PaperSpec(
        table=v.string(p.get("table"), "paper.table", optional=True),
        dataset=v.string(p.get("dataset"), "paper.dataset", optional=True),
        time_table=v.string(p.get("time_table"), "paper.time_table", optional=True),
    )
    from sskernels.paper_tables import paper_table_names

    for fld in ("table", "time_table"):
        value = getattr(paper, fld)
        if value is not None and value not in paper_table_names():
            v.fail(f"paper.{fld}", f"one of {', '.join(paper_table_names())}", value)
    rows = paper_rows(paper)
    for method, (where, m, user) in zip(methods, entries):  # labels are for display only
        method.paper = paper_row(
            v, where, m, method.label, rows, paper.table or paper.time_table, user
        )
    if reading is not None and readings[reading].get("only"):  # --with's methods kept
        methods = [
            m
            for m, (where, _, _) in zip(methods, entries)
            if m.label in readings[reading]["only"] or not where.startswith("methods[")
        ]
    output = v.string(raw.get("output", f"results/runs/{base_name}"), "output")
    if "\x00" in output:
        v.fail("output", "a folder path", output)
    try:
        out_path = Path(output).expanduser()
    except RuntimeError:  # ~name of an unknown user
        v.fail("output", "a folder path (~ followed by a user's name: no such user)", output)
    if not out_path.is_absolute() and output_base is not None:  # a packaged spec
        out_path = Path(os.path.normpath(Path(output_base) / out_path))
        if not out_path.is_relative_to(Path.cwd()):
            v.fail(
                "output",
                "a relative folder that stays under the current directory (a "
                "packaged spec's output is taken from there)",
                output,
            )
    elif not out_path.is_absolute():  # one rule for every relative path: the spec's folder
        out_path = Path(path).parent / out_path
    if reading is not None:  # its own records, beside the primary spec's
        out_path = out_path.with_name(f"{out_path.name}.{reading}")
    output = str(out_path)
    table = v.string(raw.get("table"), "table", optional=True)
    target_scale = raw.get("target_scale")
    if target_scale is not None:
        if not regression:
            v.fail(
                "target_scale",
                f"no target_scale for a classification data set "
                f"({dataset.display} has labels, not targets)",
                target_scale,
            )
        v.choice(target_scale, "target_scale", TARGET_SCALES)
    return Spec(
        str(path),
        name,
        dataset,
        preprocess,
        graph,
        splits,
        methods,
        paper,
        output,
        table,
        metrics,
        task,
        target_scale,
        readings={k: r["quote"] for k, r in readings.items()},
        reading=reading if own is None else own["name"],
    )


def _readings(v, raw, methods):
    """The spec's ``readings:``, validated: ``{name: reading mapping}`` in file order.

    A reading is an alternative interpretation of a sentence of the paper that the primary
    spec reads one way::

        readings:
          - name: standardized                  # letters, digits, '_', '-'
            quote: "The input features are normalized to range [0, 1]."   # the sentence
            set: {preprocess: standardize}      # top-level fields replaced (graph and
                                                # splits: merged key by key)
            methods: {TSK: {params: {eta: 1}}}  # per method label: params merged
            only: [TSK, TSK+SVM]                # optional: the methods run under it
    """
    if raw is None:
        return {}
    if not isinstance(raw, list):
        v.fail(
            "readings", "a list of readings (mappings with name, quote, set, methods, only)", raw
        )
    labels = {
        label
        for label in map(_method_label, methods if isinstance(methods, list) else [])
        if label is not None
    }
    out = {}
    for i, r in enumerate(raw):
        where = f"readings[{i}]"
        if not isinstance(r, dict):
            v.fail(where, "a reading: a mapping with name, quote, set, methods, only", r)
        v.mapping(r, where, READING_FIELDS)
        name = v.string(r.get("name"), f"{where}.name")
        if not re.fullmatch(r"[A-Za-z0-9_\-]{1,60}", name) or name in out:
            v.fail(
                f"{where}.name",
                "a name of letters, digits, '_', '-' not used by another reading of this spec",
                name,
            )
        v.string(r.get("quote"), f"{where}.quote")
        sets = v.mapping(r.get("set"), f"{where}.set", READING_SET)
        per = v.mapping(r.get("methods"), f"{where}.methods", None)
        for label, change in per.items():
            if label not in labels:
                v.fail(
                    f"{where}.methods",
                    f"a method label of the spec ({', '.join(sorted(labels))})",
                    label,
                )
            if not isinstance(change, dict):
                v.fail(f"{where}.methods.{label}", "a mapping with params", change)
            v.mapping(change, f"{where}.methods.{label}", ("params",))
            v.mapping(change.get("params"), f"{where}.methods.{label}.params", None)
        only = r.get("only")
        if only is not None and (
            not isinstance(only, list)
            or not only
            or not all(isinstance(x, str) and x in labels for x in only)
        ):
            v.fail(f"{where}.only", "a non-empty list of the spec's method labels", only)
        if not sets and not per:
            v.fail(where, "a 'set' or 'methods' overlay (a reading that changes nothing)")
        out[name] = r
    return out


def _method_label(m):
    """The label of a raw ``methods:`` entry (its name by default), or None when the entry,
    or its label, is not text (the methods' own validation says what is wrong)."""
    if isinstance(m, dict):
        m = m.get("label") or m.get("name") or m.get("estimator")
    return m if isinstance(m, str) else None


def apply_reading(raw, reading):
    """The raw spec mapping with one reading's overlay applied.

    A new mapping; ``raw`` is
    not modified: ``set``'s fields replace the spec's (``graph`` and ``splits`` are merged
    key by key), ``methods``' params are merged into the labelled methods' params.  Only
    well-formed parts are overlaid; any other is left as it is, for the validation of the
    result to refuse (``methods: 5`` stays 5).

    Parameters
    ----------
    raw : dict
        The spec's raw mapping.
    reading : dict
        One reading (a mapping with ``set``, ``methods``, ...) of ``readings:``.

    Returns
    -------
    dict
        A new mapping, without ``readings``, with the overlay applied.
    """
    import copy

    out = copy.deepcopy({k: x for k, x in raw.items() if k != "readings"})
    for key, value in (reading.get("set") or {}).items():
        if (
            key in ("graph", "splits")
            and isinstance(out.get(key), dict)
            and isinstance(value, dict)
        ):
            out[key] = {**out[key], **value}
        else:
            out[key] = copy.deepcopy(value)
    per = reading.get("methods") or {}
    if not isinstance(out.get("methods"), list) or not isinstance(per, dict):
        return out
    methods = []
    for m in out["methods"]:
        change = per.get(_method_label(m)) if _method_label(m) is not None else None
        params = (m.get("params") if isinstance(m, dict) else None) or {}
        if (
            isinstance(change, dict)
            and isinstance(change.get("params"), dict)
            and isinstance(params, dict)
        ):
            m = {"name": m} if isinstance(m, str) else m
            m = {**m, "params": {**params, **copy.deepcopy(change["params"])}}
        methods.append(m)
    out["methods"] = methods
    return out


def _metrics(v, raw, regression=False, dataset=None):
    """The extra metrics of ``metrics:`` in :data:`EXTRA_METRICS` order (``accuracy``, always
    recorded, may be listed); [] when absent.  A regression data set records
    :data:`REGRESSION_METRICS` (both, always): ``metrics:`` may list them, nothing else."""
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [raw]
    allowed = REGRESSION_METRICS if regression else ("accuracy",) + EXTRA_METRICS
    what = f" (the metrics of the regression data set {dataset})" if regression else ""
    if not isinstance(raw, list):
        v.fail("metrics", f"a list of metrics among {', '.join(allowed)}{what}", raw)
    for i, x in enumerate(raw):
        if not isinstance(x, str) or x not in allowed:
            v.fail(f"metrics[{i}]", f"one of {', '.join(allowed)}{what}", x)
    if regression:
        return [m for m in REGRESSION_METRICS if m in raw]
    return [m for m in EXTRA_METRICS if m in raw]


def _split_options(v, s, protocol):
    """``(per_class, cover)`` of the ``splits`` mapping ``s``: validated, None where the
    protocol does not use them (and refused where it was given anyway)."""
    per_class = cover = None
    if protocol == "per-class":
        if "n_labeled" in s:
            v.fail(
                "splits.n_labeled",
                "no n_labeled with protocol per-class (each setting's "
                "number of labeled points is the sum of its per_class counts)",
                s["n_labeled"],
            )
        if "per_class" not in s:
            v.fail(
                "splits.per_class",
                "labeled counts per class with protocol per-class, e.g. "
                "[[10, 10], [10, 20]] (one list per setting, classes in sorted label order)",
            )
        per_class = _per_class(v, s["per_class"])
    elif "per_class" in s:
        v.fail(
            "splits.per_class",
            f"no per_class with protocol {protocol} (per_class needs protocol: per-class)",
            s["per_class"],
        )
    if protocol == "class-first":
        cover = v.choice(s.get("cover", "classes"), "splits.cover", COVERS)
    elif "cover" in s:
        v.fail(
            "splits.cover",
            f"no cover with protocol {protocol} (cover needs protocol: class-first)",
            s["cover"],
        )
    return per_class, cover


def _per_class(v, raw):
    """A list of settings, each a list of counts (integers >= 1); a flat list of counts is
    one setting.  Two settings may not have the same total (records are keyed by it)."""
    fld = "splits.per_class"
    if not isinstance(raw, list) or not raw:
        v.fail(fld, "a non-empty list of counts per class, or a list of such lists", raw)
    if not any(isinstance(x, list) for x in raw):
        raw = [raw]
    settings, totals = [], {}
    for i, counts in enumerate(raw):
        where = f"{fld}[{i}]"
        if not isinstance(counts, list) or len(counts) < 2:
            v.fail(where, "a list of labeled counts, one per class (at least 2)", counts)
        counts = [
            v.integer(c, f"{where}[{j}]", minimum=1, maximum=MAX_LABELED)
            for j, c in enumerate(counts)
        ]
        total = sum(counts)
        if total in totals:
            v.fail(
                where,
                f"a total number of labeled points different from {fld}"
                f"[{totals[total]}]'s ({total}): records are keyed by that number",
                counts,
            )
        totals[total] = i
        settings.append(counts)
    return settings


def _check_splits_against_data(v, splits, dataset):
    """What the registry tells about a registered data set (n, classes, groups) against the
    split options, before any data loads; a data file carries no groups."""
    if dataset.name is None:
        if splits.cover == "groups":
            v.fail("splits.cover", "classes (a data file carries no subclasses (groups))", "groups")
        return
    from sskernels.data.registry import REGISTRY

    entry = REGISTRY[dataset.name]
    if splits.cover == "groups" and not entry.n_groups:
        with_groups = [e.name for e in REGISTRY.values() if e.n_groups]
        v.fail(
            "splits.cover",
            f"classes ({dataset.name} has no subclasses (groups); data sets "
            f"with groups: {', '.join(with_groups)})",
            "groups",
        )
    if splits.protocol == "class-first":
        k = max(entry.n_classes, entry.n_groups if splits.cover == "groups" else 0)
        for n in splits.n_labeled:
            if n < k:
                v.fail(
                    "splits.n_labeled",
                    f"at least {k} (protocol class-first takes one "
                    f"labeled point per {'subclass' if splits.cover == 'groups' else 'class'}"
                    f" of {dataset.name} first)",
                    n,
                )
    for i, counts in enumerate(splits.per_class or []):
        if len(counts) != entry.n_classes:
            v.fail(
                f"splits.per_class[{i}]",
                f"{entry.n_classes} counts, one per class of {dataset.name} in sorted label order",
                counts,
            )
    for n in splits.n_labeled:
        if splits.protocol in ("class-first", "per-class") and n >= entry.n:
            fld = "splits.per_class" if splits.per_class else "splits.n_labeled"
            v.fail(fld, f"fewer labeled points than the {entry.n} points of {dataset.name}", n)
