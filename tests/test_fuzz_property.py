"""Property-based fuzz test (hypothesis) of everything a user hands in: the spec file and the
data file.

Generated inputs, each written to a real file:

* spec documents built from the schema (every field of :mod:`sskernels.spec`, valid values
  of each, nested methods, params, readings), then mutated at random places: wrong types,
  numbers out of range (nan, inf, 1e300, 10**400, negatives), unicode and control
  characters, empty values, deep nesting, unknown keys, deleted keys;
* raw YAML text: token soup, a valid spec's text cut or spliced, tags (``!!int``,
  ``!!timestamp``, ``!!python/...``), anchors and aliases (bombs too), deep nesting,
  binary junk and other encodings;
* users' data files in every format :func:`sskernels.data.load_file` reads (csv; svmlight /
  libsvm), plain or ``.gz`` / ``.bz2``, clean or corrupt: ragged rows, NaN and huge numbers,
  missing labels, one class, stray indices, truncated or flipped bytes, wrong encodings.

The property: every input ends with success (a spec; a data set that is valid: finite
float64 features, one label per row, at least two classes) or with a
:class:`~sskernels.errors.UserError` whose message is one line naming the file.  Any other
exception is a traceback a user would have seen.  A sample of generated specs also goes
through the command line (``sskernels run``, in this process): exit 0, or exit 2 with one
``error:`` line on stderr, and never a traceback.

Budget: ``SSKERNELS_FUZZ_EXAMPLES`` (default 1,200) examples in all, shared by the four
generators; ``make test`` runs the default with ``derandomize`` (the same cases on every
machine, so CI is reproducible) and ``make fuzz`` runs 12,000 with fresh random cases each
time (a failure prints the ``@reproduce_failure`` blob).  No example database is written.
Each example has a generous deadline (hypothesis's own, 5 s; 30 s for a CLI run), and a
hang is caught whatever the deadline: a SIGALRM after :data:`HANG_SECONDS` raises inside the
stuck example, and :mod:`faulthandler` ends the process (with every thread's traceback) if
even that does not return.  The run's closing summary counts the examples each generator ran
(a long run's cases are new each time: ``--hypothesis-seed=N`` replays one).
"""

from __future__ import annotations

import bz2
import contextlib
import faulthandler
import gzip
import itertools
import math
import os
import signal
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_cli
import scipy.sparse as sp
import yaml
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from test_spec_fuzz import paths  # every path to a value of a nested document
from sskernels.data import load_file
from sskernels.data.transforms import PREPROCESSINGS
from sskernels.errors import SpecError, UserError
from sskernels.spec import (
    COVERS,
    MAX_YAML_DEPTH,
    PROTOCOLS,
    READING_FIELDS,
    READING_SET,
    SELECTIONS,
    SPLIT_FIELDS,
    TARGET_SCALES,
    TOP_FIELDS,
    load_spec,
)

# ---------------------------------------------------------------------------- budget

FUZZ_ENV = "SSKERNELS_FUZZ_EXAMPLES"
DEFAULT_EXAMPLES = 1200


def _budget():
    raw = os.environ.get(FUZZ_ENV, "").strip()
    if not raw:
        return DEFAULT_EXAMPLES
    try:
        value = int(raw)
    except ValueError:
        raise pytest.UsageError(
            f"{FUZZ_ENV}={raw!r}: expected a whole number of examples"
        ) from None
    return max(value, 4)


#: examples in all, across the four generators (make test: 1,200; make fuzz: 12,000)
TOTAL = _budget()
#: the long mode (``make fuzz``): fresh random cases each run instead of the fixed ones
LONG = TOTAL > DEFAULT_EXAMPLES
#: each generator's share of TOTAL
SHARES = {"spec_documents": 0.40, "yaml_text": 0.15, "csv_files": 0.25, "svmlight_files": 0.20}
EXAMPLES = {name: max(1, math.ceil(TOTAL * share)) for name, share in SHARES.items()}
#: specs run through the command line, apart from TOTAL (each a real run of one split)
CLI_EXAMPLES = int(os.environ.get("SSKERNELS_FUZZ_CLI_EXAMPLES") or (200 if LONG else 20))
#: an example still running after this long is a hang (SIGALRM); 4x: the process is ended
HANG_SECONDS = float(os.environ.get("SSKERNELS_FUZZ_HANG_SECONDS") or 60)

_HEALTH = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.large_base_example,
]
# make test: the same cases everywhere, reported as found (not shrunk: a failing case is
# reproducible as it is, and shrinking one costs minutes); make fuzz: new cases every run,
# each failure shrunk to its smallest document and printed with its @reproduce_failure blob.
# Neither has the "explain" phase: its tracer makes a deeply nested file's replay take 30 s.
settings.register_profile(
    "sskernels-test",
    deadline=timedelta(seconds=5),
    derandomize=True,
    database=None,
    suppress_health_check=_HEALTH,
    print_blob=False,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
settings.register_profile(
    "sskernels-fuzz",
    deadline=timedelta(seconds=5),
    derandomize=False,
    database=None,
    suppress_health_check=_HEALTH,
    print_blob=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
)
#: the profile of this run's fuzz tests (not loaded globally: other tests keep theirs)
PROFILE = settings.get_profile("sskernels-fuzz" if LONG else "sskernels-test")

#: examples run per generator, and the outcomes of the calls they made (an example may load
#: its spec under each reading it declares)
RAN = Counter()
OUTCOMES = Counter()


def fuzz_settings(name, **overrides):
    return settings(PROFILE, max_examples=EXAMPLES.get(name, CLI_EXAMPLES), **overrides)


def count_line():
    """One line: the examples each generator ran, and what became of their calls."""
    parts = []
    for name, n in RAN.items():
        outcomes = ", ".join(
            f"{OUTCOMES[(name, o)]} {o}" for o in ("accepted", "refused") if OUTCOMES[(name, o)]
        )
        parts.append(f"{name} {n} ({outcomes})")
    fuzzed = sum(n for name, n in RAN.items() if name in SHARES)
    return (
        f"fuzz examples ({'long mode, random' if LONG else 'derandomized'}; {FUZZ_ENV}="
        f"{TOTAL}): {'; '.join(parts)}; in all {fuzzed} generated specs and files, "
        f"and {RAN['cli_runs']} CLI runs"
    )


class _CountReport:
    """A plugin that prints :func:`count_line` in the run's closing summary."""

    def pytest_terminal_summary(self, terminalreporter):
        if RAN:
            terminalreporter.write_sep("-", "fuzz")
            terminalreporter.write_line(count_line())


@pytest.fixture(scope="module", autouse=True)
def _report_counts(request):
    manager = request.config.pluginmanager
    if not manager.has_plugin("sskernels-fuzz-counts"):
        manager.register(_CountReport(), "sskernels-fuzz-counts")
    yield


class Hang(BaseException):
    """An example that ran past :data:`HANG_SECONDS` (a BaseException: no ``except
    Exception`` in the code under test swallows it)."""


@contextlib.contextmanager
def hang_guard(seconds=HANG_SECONDS):
    """Stop an example that hangs: SIGALRM raises :class:`Hang` inside it after ``seconds``;
    a hang in C code that never returns to Python ends the process after 4x that, with the
    traceback of every thread (faulthandler)."""
    if not hasattr(signal, "setitimer") or sys.__stderr__ is None:  # pragma: no cover
        yield
        return

    def alarm(signum, frame):
        raise Hang(f"an example ran more than {seconds:g} s: a hang")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(4 * seconds, exit=True, file=sys.__stderr__)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        faulthandler.cancel_dump_traceback_later()


# ---------------------------------------------------------------------------- the property


def assert_one_line_naming(exc, path):
    """A user's error: one line (no line break, no other control character), naming the file,
    of a readable length."""
    msg = str(exc)
    assert msg, f"an empty {type(exc).__name__}"
    assert not any(c in msg for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), (
        f"a message of more than one line: {msg[:400]!r}"
    )
    assert str(path) in msg, f"the message does not name the file {path}: {msg[:400]!r}"
    assert len(msg) <= 5000, f"a message of {len(msg)} characters: {msg[:200]!r}"


def outcome(name, path, call):
    """Run ``call`` (under the hang guard); a UserError must be one line naming ``path``.
    Returns the result, or None when it was refused."""
    try:
        with hang_guard():
            result = call()
    except UserError as exc:
        assert_one_line_naming(exc, path)
        OUTCOMES[(name, "refused")] += 1
        return None
    OUTCOMES[(name, "accepted")] += 1
    return result


class Files:
    """Numbered files in one folder (hypothesis runs many examples per test function, so
    pytest's function-scoped tmp_path cannot serve)."""

    def __init__(self, root):
        self.root = Path(root)
        self.count = itertools.count()

    def path(self, suffix, stem="case"):
        folder = self.root / f"c{next(self.count)}"
        folder.mkdir(parents=True)
        return folder / f"{stem}{suffix}"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return Files(tmp_path_factory.mktemp("fuzz"))


@pytest.fixture(scope="module", autouse=True)
def _warm_imports(tmp_path_factory):
    """Import what a spec's validation imports (learners, graph, tables) before the first
    timed example, so that no deadline counts an import."""
    path = tmp_path_factory.mktemp("warm") / "warm.yaml"
    path.write_text(
        "dataset: sklearn-wine\nmethods: [harmonic, {name: tsk, paper_row: TSK}]\n"
        "paper: {table: liu2009_table3_uci_transductive_accuracy}\n"
    )
    load_spec(path)


# ---------------------------------------------------------------------------- values

_NAN, _INF = float("nan"), float("inf")
#: numbers at and beyond every edge a field could have
EDGE_NUMBERS = [
    0,
    -1,
    1,
    2,
    -0.0,
    0.5,
    -0.5,
    1e-300,
    5e-324,
    1e300,
    -1e300,
    1.7976931348623157e308,
    _NAN,
    _INF,
    -_INF,
    2**31,
    2**32,
    2**63,
    -(2**63),
    10**30,
    -(10**30),
    10**400,
    10_000,
    10_001,
    2**32 - 1,
]
#: strings a user might type, or that break naive code
EDGE_STRINGS = [
    "",
    " ",
    "\t",
    "auto",
    "none",
    "null",
    "~",
    "ünïcödé ✓",
    "x" * 5000,
    "a\nb",
    "\x00",
    "\r",
    "\u202e",
    "😀😀",
    "../../etc/passwd",
    "/",
    ".",
    "..",
    ".hidden",
    "a/b",
    "C:\\x",
    "~nosuchuserfz/out",
    "$HOME",
    "%s%n",
    "{}",
    "[]",
    "1e400",
    ".inf",
    ".nan",
    "2001-02-30",
    "yes",
    "0x10",
    "oracle",
    "random",
    "harmonic",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(EDGE_NUMBERS),
    st.sampled_from(EDGE_STRINGS),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.binary(max_size=8),
    st.dates(),
)
keys = st.one_of(st.text(max_size=10), st.integers(-3, 3), st.booleans(), st.none())
#: the wrong values that break code most often: nothing, empty, nested, unhashable, huge
CLASSIC_BAD = [
    None,
    "",
    [],
    {},
    [[1]],
    [None],
    [{}],
    {"a": None},
    {"k": [1]},
    0,
    -1,
    True,
    10**400,
    -(10**400),
    _NAN,
    _INF,
    1e300,
    "x" * 5000,
    "~nosuchuserfz/out",
    "\x00",
    "a\nb",
    "ünïcödé ✓",
    3.7,
    [1, "a"],
    2**63,
]
#: a wrong value of any type, possibly nested
bad_values = st.one_of(
    st.sampled_from(CLASSIC_BAD),
    st.sampled_from(CLASSIC_BAD),
    st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)
        ),
        max_leaves=8,
    ),
)


def nested(depth, leaf=1):
    """``depth`` levels of alternating lists and mappings around ``leaf``."""
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


deep_values = st.integers(MAX_YAML_DEPTH - 5, MAX_YAML_DEPTH + 20).map(nested)

# ---------------------------------------------------------------------------- the schema


def _schema():
    """Valid values of each spec field, read from the package (so new names are fuzzed)."""
    from sskernels.data import dataset_names
    from sskernels.data.registry import REGISTRY
    from sskernels.paper_tables import paper_table_names
    from sskernels.graph import METRICS, WEIGHTS
    from sskernels.graph.knn import METHODS as SEARCHES
    from sskernels.learners.registry import make_method, method_names

    params = {}
    for name in method_names():
        est = make_method(name)
        inner = getattr(est, "estimator", None)
        own = (inner if inner is not None else est).get_params(deep=False)
        params[name] = sorted(k for k, v in own.items() if not hasattr(v, "get_params"))
        params[name] += [
            "n_folds",
            "cv_protocol",
            "random_state",
            "n_neighbors",
            "weights",
            "sigma",
            "kernel_params",
            "kernel",
        ]
    return {
        "datasets": dataset_names(),
        "paper_tables": paper_table_names(),
        "weights": list(WEIGHTS),
        "metrics": list(METRICS),
        "searches": list(SEARCHES),
        "params": params,
        "methods": method_names("classification"),
        "regression_methods": method_names("regression"),
        "regression_sets": [n for n, e in REGISTRY.items() if e.task == "regression"],
    }


SCHEMA = _schema()


def _is_regression(dataset):
    name = dataset.get("name") if isinstance(dataset, dict) else dataset
    return name in SCHEMA["regression_sets"]


#: a parameter's plausible values: grids, "auto", numbers of every size, the strings learners
#: take
param_values = st.one_of(
    st.just("auto"),
    st.integers(-2, 60),
    st.floats(1e-6, 1e4),
    st.lists(st.floats(1e-4, 1e3), min_size=1, max_size=4),
    st.lists(st.integers(1, 30), min_size=1, max_size=3),
    st.sampled_from(
        [
            "rbf",
            "linear",
            "kfold",
            "standard",
            "one-fold-labeled",
            "median",
            "simplex",
            "normalized",
            "unnormalized",
            "exact",
            "auto",
            "cg",
            "direct",
            "gaussian",
            "eigenvectors",
            "laplacian",
            None,
            True,
            False,
            0.0,
            1e300,
            _NAN,
            _INF,
            -1.0,
            10**12,
        ]
    ),
    st.dictionaries(
        st.sampled_from(["b_scale", "C", "kernel_width", "gamma"]), st.floats(1e-3, 1e3), max_size=2
    ),
)


@st.composite
def method_entries(draw, name, index=0, simple=False):
    if draw(st.integers(0, 3)) == 0:
        return name
    entry = {"name": name}
    known = SCHEMA["params"][name]
    if known and draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(known), max_size=3, unique=True))
        entry["params"] = {k: draw(param_values) for k in chosen}
    select = draw(
        st.sampled_from(
            [None, None, None, None, "labeled", "oracle"] if simple else [None, None, *SELECTIONS]
        )
    )
    if select is not None:
        entry["select"] = select
    if draw(st.booleans()) or select in ("oracle", "oracle-mean"):
        entry["label"] = f"{name} {index}" + (" oracle" if select and select != "labeled" else "")
    if draw(st.integers(0, 4)) == 0:
        entry["paper"] = draw(st.sampled_from(["TSK", "harmonic", "SVM"]))
    if draw(st.integers(0, 5)) == 0:
        entry["protocol"] = "paper"
    return entry


def _label_of(entry):
    return entry if isinstance(entry, str) else entry.get("label", entry["name"])


@st.composite
def splits_sections(draw, simple=False):
    protocol = draw(st.sampled_from(["random", "random", "class-first"] if simple else PROTOCOLS))
    s = {"protocol": protocol}
    if draw(st.booleans()):
        s["n_splits"] = draw(st.integers(1, 40))
    if draw(st.booleans()):
        s["seed"] = draw(st.integers(0, 2**32 - 1))
    if protocol == "per-class":
        s["per_class"] = draw(
            st.one_of(
                st.lists(st.integers(1, 20), min_size=2, max_size=3),
                st.lists(
                    st.lists(st.integers(1, 20), min_size=2, max_size=3), min_size=1, max_size=3
                ),
            )
        )
    elif draw(st.integers(0, 3)):
        top = 20 if simple else 120
        s["n_labeled"] = draw(
            st.one_of(
                st.integers(1, top),
                st.lists(st.integers(1, top), min_size=1, max_size=3, unique=True),
            )
        )
    if protocol == "class-first" and draw(st.booleans()):
        s["cover"] = draw(st.sampled_from(COVERS))
    if protocol != "official" and draw(st.integers(0, 3)) == 0:
        s["holdout"] = draw(st.floats(0, 0.6))
    return s


@st.composite
def graph_sections(draw):
    g = {}
    for key, values in (
        ("k", st.integers(1, 60)),
        ("weights", st.sampled_from(SCHEMA["weights"])),
        ("sigma", st.one_of(st.none(), st.floats(0.01, 10))),
        ("metric", st.sampled_from(SCHEMA["metrics"])),
        ("method", st.sampled_from(SCHEMA["searches"])),
    ):
        if draw(st.booleans()):
            g[key] = draw(values)
    return g


@st.composite
def dataset_fields(
    draw, datasets=None, files=("data.csv", "sub/data.svm", "d.libsvm.gz"), simple=False
):
    kind = draw(st.integers(0, 3))
    names = datasets or SCHEMA["datasets"]
    if kind <= 1:
        return draw(st.sampled_from(names))
    if kind == 2:
        return {"name": draw(st.sampled_from(names))}
    d = {"file": draw(st.sampled_from(files))}
    csv = d["file"].endswith(".csv")
    if draw(st.booleans()):
        d["format"] = draw(
            st.sampled_from(
                (["csv"] if csv else ["svmlight", "libsvm"])
                if simple
                else ["csv", "svmlight", "libsvm"]
            )
        )
    if (csv or not simple) and draw(st.booleans()):
        d["label"] = draw(st.sampled_from(["class"] if simple else ["class", "cls", "y", "label"]))
    return d


@st.composite
def readings_sections(draw, methods, datasets=None, files=("data.csv",)):
    labels = [_label_of(m) for m in methods]
    out = []
    for i in range(draw(st.integers(1, 3))):
        r = {
            "name": draw(st.sampled_from(["standardized", f"raw-features{i}", f"r_{i}"])),
            "quote": draw(st.sampled_from(["The input features are normalized.", "q"])),
        }
        sets = {}
        for key in draw(
            st.lists(st.sampled_from(READING_SET), min_size=1, max_size=2, unique=True)
        ):
            sets[key] = draw(
                {
                    "preprocess": st.sampled_from(PREPROCESSINGS),
                    "graph": graph_sections(),
                    "splits": splits_sections(),
                    "dataset": dataset_fields(datasets, files),
                    "metrics": st.lists(st.sampled_from(["error", "alignment"]), max_size=2),
                }[key]
            )
        r["set"] = sets
        if labels and draw(st.booleans()):
            label = draw(st.sampled_from(labels))
            r["methods"] = {
                label: {
                    "params": {draw(st.sampled_from(["eta", "alpha", "C"])): draw(param_values)}
                }
            }
        if labels and draw(st.integers(0, 3)) == 0:
            r["only"] = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=2, unique=True))
        out.append(r)
    return out


@st.composite
def valid_ish_specs(
    draw,
    datasets=None,
    methods=None,
    files=("data.csv", "sub/data.svm", "d.libsvm.gz"),
    simple=False,
):
    """A spec document built from the schema: every field may appear, each with a value of
    its own kind (many such documents parse; the others fail on cross-field rules, e.g. an
    oracle without a grid).  ``simple``: fewer of those rules at stake (no oracle-mean, no
    official splits, no target_scale), for the specs that are run."""
    doc = {}
    if draw(st.booleans()):
        doc["name"] = draw(st.sampled_from(["fuzz", "a.b-c_1", "x" * 100, "T3"]))
    if draw(st.integers(0, 4)) == 0:
        doc["table"] = draw(st.sampled_from(["liu2009-t3", "t"]))
    doc["dataset"] = draw(dataset_fields(datasets, files, simple))
    if draw(st.booleans()):
        doc["preprocess"] = draw(st.sampled_from(PREPROCESSINGS))
    if draw(st.booleans()):
        doc["graph"] = draw(graph_sections())
    if draw(st.booleans()):
        doc["splits"] = draw(splits_sections(simple))
    pool = methods or (
        SCHEMA["regression_methods"]
        if _is_regression(doc["dataset"]) and draw(st.integers(0, 5))
        else SCHEMA["methods"]
    )
    names = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    entries = [draw(method_entries(name, i, simple)) for i, name in enumerate(names)]
    doc["methods"] = entries
    if draw(st.integers(0, 3)) == 0:
        doc["metrics"] = draw(
            st.one_of(
                st.sampled_from(["error", "alignment", "rmse"]),
                st.lists(
                    st.sampled_from(["accuracy", "error", "alignment", "rmse", "mse"]), max_size=3
                ),
            )
        )
    if draw(st.integers(0, 3)) == 0:
        paper = {}
        for key in ("table", "time_table"):
            if draw(st.booleans()):
                paper[key] = draw(st.sampled_from(SCHEMA["paper_tables"]))
        if draw(st.booleans()):
            paper["dataset"] = draw(st.sampled_from(["wine", "heart"]))
        doc["paper"] = paper
    if draw(st.integers(0, 3)) == 0:
        doc["output"] = draw(st.sampled_from(["out", "results/x", "a b/ü"]))
    if not simple and draw(st.integers(0, 6 if _is_regression(doc["dataset"]) else 12)) == 0:
        doc["target_scale"] = draw(st.sampled_from(TARGET_SCALES))
    if draw(st.integers(0, 2)) == 0:
        doc["readings"] = draw(readings_sections(entries, datasets, files))
    elif not simple and draw(st.integers(0, 8)) == 0:
        doc["reading"] = {"name": draw(st.sampled_from(["raw-features", "a b"])), "quote": "q"}
    return doc


def _get(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def _copy(obj):
    if isinstance(obj, dict):
        return {k: _copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_copy(v) for v in obj]
    return obj


#: every field name of the schema, at any level (a mutation sets one of them to a bad value)
FIELD_NAMES = sorted(
    set(TOP_FIELDS)
    | set(SPLIT_FIELDS)
    | set(READING_FIELDS)
    | {
        "k",
        "weights",
        "sigma",
        "metric",
        "method",
        "name",
        "file",
        "format",
        "label",
        "paper",
        "params",
        "select",
        "protocol",
        "table",
        "dataset",
        "time_table",
        "quote",
        "set",
    }
)


@st.composite
def mutated(draw, doc, protected=()):
    """``doc`` with one random change at a random place (not under a ``protected`` key)."""
    doc = _copy(doc)
    where = [p for p in paths(doc) if p and p[0] not in protected]
    if not where or draw(st.integers(0, 15)) == 0:  # now and then the whole document
        where = [()]
    path = draw(st.sampled_from(where))
    target = _get(doc, path)
    op = draw(
        st.sampled_from(
            [
                "replace",
                "replace",
                "replace",
                "field",
                "field",
                "delete",
                "unknown key",
                "wrap",
                "deep",
                "alias",
                "stringify",
            ]
        )
    )
    if op == "field" and isinstance(target, dict):
        target[draw(st.sampled_from(FIELD_NAMES))] = draw(bad_values)
        return doc
    if op in ("replace", "field"):
        new = draw(bad_values)
    elif op == "delete" and path:
        parent = _get(doc, path[:-1])
        del parent[path[-1]]
        return doc
    elif op == "unknown key" and isinstance(target, dict):
        target[draw(st.one_of(st.sampled_from(["unknown_ünï", "k ", "", "splits"]), keys))] = draw(
            bad_values
        )
        return doc
    elif op == "wrap":
        new = draw(st.sampled_from([[target], {"k": target}, [target, target]]))
    elif op == "deep" and draw(st.booleans()):
        new = draw(deep_values)
    elif op in ("alias", "deep"):  # the same object twice: YAML writes an anchor and an alias
        new = [target, target]
    else:
        new = str(target)
    if not path:
        return new
    _get(doc, path[:-1])[path[-1]] = new
    return doc


@st.composite
def spec_documents(draw, protected=(), mutations=(0, 0, 1, 1, 1, 1, 2, 2, 3), **kwargs):
    """A :func:`valid_ish_specs` document with a number of :func:`mutated` changes drawn
    from ``mutations``."""
    doc = draw(valid_ish_specs(**kwargs))
    for _ in range(draw(st.sampled_from(mutations))):
        doc = draw(mutated(doc, protected))
    return doc


def dump(doc, flow=False):
    """The YAML text of ``doc`` (block or flow style; long lines folded at 80 columns for
    half of the documents: a folded scalar must read back the same)."""
    width = 80 if isinstance(doc, dict) and len(doc) % 2 else 10_000
    return yaml.safe_dump(
        doc, allow_unicode=True, sort_keys=False, default_flow_style=flow, width=width
    )


def reading_names(doc):
    """The names of the readings a document declares (strings only), and one it does not."""
    readings = doc.get("readings") if isinstance(doc, dict) else None
    if not isinstance(readings, list):
        readings = []
    names = [r["name"] for r in readings if isinstance(r, dict) and isinstance(r.get("name"), str)]
    return names[:3] + ["no-such-reading"]


def check_spec_file(name, path, doc=None):
    """load_spec(path) and, if the document declares readings, load_spec under each."""
    spec = outcome(name, path, lambda: load_spec(path))
    if spec is not None:
        assert isinstance(spec.name, str) and spec.methods
        assert 1 <= spec.splits.n_splits <= 10_000 and 1 <= spec.graph.k <= 10_000
    if isinstance(doc, dict) and "readings" in doc:
        for reading in reading_names(doc):
            outcome(name, path, lambda r=reading: load_spec(path, reading=r))


# ---------------------------------------------------------------------------- specs


@fuzz_settings("spec_documents")
@given(doc=spec_documents(), flow=st.booleans())
def test_generated_spec_documents_parse_or_give_one_line(files, doc, flow):
    RAN["spec_documents"] += 1
    path = files.path(".yaml", stem="spec")
    path.write_text(dump(doc, flow), encoding="utf-8")
    note(f"the spec file:\n{path.read_text()[:3000]}")
    check_spec_file("spec_documents", path, doc)


YAML_TOKENS = [
    "name:",
    "dataset:",
    "methods:",
    "graph:",
    "splits:",
    "params:",
    "readings:",
    "k:",
    "n_labeled:",
    "- ",
    "-",
    ":",
    ": ",
    "? ",
    "{",
    "}",
    "[",
    "]",
    ",",
    "&a ",
    "&b ",
    "*a",
    "*b",
    "<<: *a",
    "<<: ",
    "!!str ",
    "!!int ",
    "!!float ",
    "!!bool ",
    "!!null ",
    "!!binary ",
    "!!timestamp ",
    "!!set ",
    "!!omap ",
    "!!pairs ",
    "!!seq ",
    "!!map ",
    "!!python/object/apply:os.system ",
    "!!python/name:os.system ",
    "!custom ",
    "!<tag:x> ",
    "%YAML 1.1\n",
    "%YAML 9.9\n",
    "%TAG ! tag:x,2000:\n",
    "---\n",
    "...\n",
    "|\n",
    ">-\n",
    "'",
    '"',
    "#",
    "\t",
    "  ",
    "    ",
    "\n",
    "\r\n",
    "\r",
    "\x85",
    "\u2028",
    "\ufeff",
    "\x00",
    "\x07",
    "\x1b",
    "2001-02-30",
    "2001-13-01",
    "2001-02-03T25:61:00",
    "2002-12-14",
    "1_000",
    "0x1F",
    "0o17",
    "0b101",
    "0b",
    "0x",
    "1.0e400",
    "-1.0e+400",
    ".inf",
    "-.inf",
    ".nan",
    "~",
    "null",
    "yes",
    "no",
    "on",
    "12:30:45",
    "190:20:30",
    "harmonic",
    "sklearn-wine",
    "tsk",
    "abc",
    "\\u00e9",
    "\\x",
    "\\",
    "\"\\xZZ\"",
    "'a''b'",
    "ünï",
    "😀",
    "9" * 30,
    "-" * 3,
    "? [a, b]\n: c",
    "{a: 1, a: 2}",
    "[*a, *a, *a]",
    "&a [*a]",
]


@st.composite
def token_soup(draw):
    return "".join(draw(st.lists(st.sampled_from(YAML_TOKENS), min_size=1, max_size=40)))


VALID_TEXT = dump(
    {
        "name": "fuzz",
        "dataset": "sklearn-wine",
        "preprocess": "minmax",
        "graph": {"k": 6, "weights": "hein-maier"},
        "splits": {"protocol": "random", "n_splits": 2, "n_labeled": 20},
        "methods": ["harmonic", {"name": "tsk", "params": {"eta": 2}}],
        "readings": [{"name": "std", "quote": "q", "set": {"preprocess": "standardize"}}],
    }
)


@st.composite
def spliced_text(draw):
    """The text of a valid spec with a few pieces cut, replaced or inserted."""
    text = VALID_TEXT
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        piece = draw(st.one_of(st.sampled_from(YAML_TOKENS), st.text(max_size=6), st.just("")))
        text = text[:i] + piece + text[j:]
    return text


@st.composite
def alias_bombs(draw):
    """'billion laughs': every level an alias list of the level below."""
    depth, width = draw(st.integers(1, 25)), draw(st.integers(2, 10))
    lines = ["a0: &a0 [lol]"]
    for i in range(1, depth + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    lines.append(f"dataset: sklearn-wine\nmethods: [harmonic]\nname: *a{depth}")
    return "\n".join(lines) + "\n"


@st.composite
def deep_text(draw):
    n = draw(st.integers(MAX_YAML_DEPTH - 3, 3000))
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return "methods: " + "[" * n + "harmonic" + "]" * n + "\ndataset: sklearn-wine\n"
    if kind == 1:
        return "graph: " + "{a: " * n + "1" + "}" * n + "\n"
    n = min(n, 400)
    return "".join(" " * i + "a:\n" for i in range(n)) + " " * n + "b\n"


def _encode(text, how):
    if how == "utf-8":
        return text.encode("utf-8")
    return text.encode(how, errors="replace")


#: scalars whose YAML tag or implicit type makes the loader itself fail (or not)
TRICKY_SCALARS = [
    "2001-02-30",
    "2001-13-01",
    "2001-02-03T25:61:00",
    "2002-12-14",
    "2002-12-14 21:59:43.10 -5",
    "!!int abc",
    "!!int 0x",
    "!!int 0b",
    "!!int ''",
    "!!float abc",
    "!!float ''",
    "!!bool maybe",
    "!!null x",
    "!!binary '=='",
    "!!binary ñ",
    "!!timestamp x",
    "!!timestamp 2001-02-30",
    "!!set [a]",
    "!!omap {a: 1}",
    "!!omap [1]",
    "!!pairs [a]",
    "!!str [a]",
    "!!seq a",
    "!!map a",
    "!!python/object/apply:os.system [x]",
    "!!python/name:os.system",
    "!foo bar",
    "!<tag:x> 1",
    "190:20:30",
    "1_000",
    "0o17",
    "0x_1F",
    "0b1_0",
    "+.inf",
    "1.0e400",
    "&x [*x]",
    "*undefined",
    "{<<: [1]}",
    "{<<: {a: 1}}",
    "{<<: *undefined}",
    "? [a]\n",
    "|\n  x",
    ">\n  y",
    "\"\\xZZ\"",
    "\"\\uD800\"",
    "\"\\U0010FFFF\"",
    "\"\\U00110000\"",
    "'\x00'",
]
SCALAR_FIELDS = [
    "name",
    "table",
    "dataset",
    "preprocess",
    "output",
    "metrics",
    "target_scale",
    "methods",
    "graph",
    "splits",
    "readings",
    "reading",
    "paper",
]


@st.composite
def scalar_injection(draw):
    """A valid spec with one field's value written as a tricky scalar."""
    fld = draw(st.sampled_from(SCALAR_FIELDS))
    value = draw(st.sampled_from(TRICKY_SCALARS))
    place = draw(st.sampled_from(["top", "method", "graph", "params"]))
    lines = {"dataset": "sklearn-wine", "methods": "[harmonic]"}
    if place == "top":
        lines[fld] = value
    elif place == "method":
        lines["methods"] = f"[{{name: {value}}}]" if "\n" not in value else "[harmonic]"
    elif place == "graph":
        lines["graph"] = f"{{k: {value}}}" if "\n" not in value else "{k: 6}"
    else:
        lines["methods"] = (
            f"[{{name: tsk, params: {{eta: {value}}}}}]" if "\n" not in value else "[tsk]"
        )
    return "".join(f"{k}: {v}\n" for k, v in lines.items())


@st.composite
def yaml_files(draw):
    kind = draw(st.integers(0, 8))
    if kind >= 7:
        text = draw(scalar_injection())
    elif kind == 0:
        text = draw(token_soup())
    elif kind == 1:
        text = draw(spliced_text())
    elif kind == 2:
        text = draw(alias_bombs())
    elif kind == 3:
        text = draw(deep_text())
    elif kind == 4:
        return draw(st.binary(max_size=300))
    elif kind == 5:
        text = draw(st.text(max_size=200))
    else:
        text = VALID_TEXT + draw(st.text(alphabet="ünï✓😀\u00e9", max_size=5))
    encoding = draw(st.sampled_from(["utf-8"] * 8 + ["utf-16", "latin-1", "cp1252"]))
    data = _encode(text, encoding)
    if draw(st.integers(0, 5)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return data


# A file nested thousands of levels deep takes PyYAML's recursive composer 1-3 s to reach
# Python's recursion limit (hypothesis raises it to 2,000 frames) before the spec refuses
# it: a cost bounded by that limit, not a hang, so this test's deadline is 20 s.
@fuzz_settings("yaml_text", deadline=timedelta(seconds=20))
@given(data=yaml_files())
def test_raw_yaml_text_parses_or_gives_one_line(files, data):
    RAN["yaml_text"] += 1
    path = files.path(".yaml", stem="raw")
    path.write_bytes(data)
    note(f"the spec file's bytes: {data[:3000]!r}")
    doc = None
    with contextlib.suppress(Exception):  # the readings it declares, if it has any
        doc = yaml.safe_load(data.decode("utf-8")) if b"readings" in data else None
    check_spec_file("yaml_text", path, doc)


# The fuzzer's findings in the spec's loader and schema, each as its smallest file, the
# reading it is loaded under (if any) and the field the error names: each is a one-line
# SpecError naming the file and that field, and through the CLI exit 2 with one line.
_W = "dataset: sklearn-wine\n"
_R = "readings: [{name: r, quote: q, set: {preprocess: l2}}]\n"
_F = "(file)"
SPEC_FINDINGS = {
    # PyYAML's constructors raise other errors than YAMLError on tags and implicit types
    "timestamp-day": (_W + "methods: [harmonic]\ntable: 2001-02-30\n", None, _F),
    "timestamp-hour": (_W + "methods: [harmonic]\nname: 2001-02-03T25:61:00\n", None, _F),
    "int-tag": (_W + "methods: [harmonic]\ntable: !!int abc\n", None, _F),
    "int-tag-empty": (_W + "methods: [harmonic]\ntable: !!int ''\n", None, _F),
    "float-tag": (_W + "methods: [harmonic]\ntable: !!float abc\n", None, _F),
    "bool-tag": (_W + "methods: [harmonic]\ntable: !!bool maybe\n", None, _F),
    "timestamp-tag": (_W + "methods: [harmonic]\ntable: !!timestamp 0o17\n", None, _F),
    "set-tag-on-mapping-field": (_W + "methods: [harmonic]\nsplits: !!set [a]\n", None, _F),
    "map-tag-on-scalar": (_W + "methods: [{name: !!map a}]\n", None, _F),
    "escape-beyond-unicode": (_W + "methods: [harmonic]\ntable: \"\\U00110000\"\n", None, _F),
    # (found beside them) an alias inside the value it names: a list that held itself
    "recursive-alias-in-params": (
        _W + "methods: [{name: tsk, params: {eta: &x [*x]}}]\n",
        None,
        _F,
    ),
    # readings: entries and overlays that are not mappings, labels that are not hashable
    "readings-null": (_W + "methods: [harmonic]\nreadings: [null]\n", None, "readings[0]"),
    "readings-methods-null": (
        _W + "methods: [harmonic]\nreadings: [{name: r, quote: q, methods: {harmonic: null}}]\n",
        None,
        "readings[0].methods.harmonic",
    ),
    "unhashable-method-with-readings": (_W + "methods: [[harmonic]]\n" + _R, None, "methods[0]"),
    "unhashable-label-with-readings": (
        _W + "methods: [{name: harmonic, label: {a: 1}}]\n" + _R,
        None,
        "methods[0].label",
    ),
    "readings-only-unhashable": (
        _W + "methods: [harmonic]\nreadings: [{name: r, quote: q, "
        "set: {preprocess: l2}, only: [[harmonic]]}]\n",
        None,
        "readings[0].only",
    ),
    # --reading NAME: the overlay is applied before methods: is validated
    "reading-methods-not-a-list": (_W + "methods: .nan\n" + _R, "r", "methods"),
    "reading-methods-null-entry": (_W + "methods: [harmonic, null]\n" + _R, "r", "methods[1]"),
    "reading-params-not-a-mapping": (
        _W + "methods: [{name: harmonic, params: [1]}]\nreadings: "
        "[{name: r, quote: q, methods: {harmonic: {params: "
        "{alpha: 1}}}}]\n",
        "r",
        "methods[0].params",
    ),
    # fields
    "oracle-mean-metrics-not-a-list": (
        _W + "methods: [{name: tsk, select: oracle-mean, label: tsk oracle}]\nmetrics: 5\n",
        None,
        "metrics",
    ),
    "sigma-integer-beyond-float": (
        _W + "methods: [harmonic]\ngraph: {sigma: " + "9" * 400 + "}\n",
        None,
        "graph.sigma",
    ),
    "holdout-integer-beyond-float": (
        _W + "methods: [harmonic]\nsplits: {holdout: " + "9" * 400 + "}\n",
        None,
        "splits.holdout",
    ),
    # (found beside them) the same integer as a parameter: float() overflowed in the fit
    "param-integer-beyond-float": (
        _W + "methods: [{name: tsk, params: {eta: " + "9" * 400 + "}}]\n",
        None,
        "methods[0].params.eta",
    ),
    "output-of-unknown-user": (
        _W + "methods: [harmonic]\noutput: ~nosuchuserfz/x\n",
        None,
        "output",
    ),
    "dataset-file-null": ("dataset: {file: null}\nmethods: [harmonic]\n", None, "dataset.file"),
    "param-key-null": (
        _W + "methods: [{name: harmonic, params: {null: 1}}]\n",
        None,
        "methods[0].params",
    ),
    "param-key-integer": (
        _W + "methods: [{name: tsk, params: {3: 1}}]\n",
        None,
        "methods[0].params",
    ),
    # a UserError that does not name the file
    "kernel-svm-kernel-a-number": (
        _W + "methods: [{name: kernel-svm, params: {kernel: 1.0e+300}}]\n",
        None,
        "methods[0].params.kernel",
    ),
    # a message of two lines: a field name holding a line separator other than \n and \r
    # (str.splitlines, and so the CLI's one line, breaks at \x1c-\x1e, \x85, \u2028 too)
    "field-name-with-record-separator": (
        _W + 'methods: [harmonic]\n"a\\x1eb": 1\n',
        None,
        "a\\x1eb",
    ),
    "field-name-with-line-separator": (
        _W + 'methods: [harmonic]\n"a\\u2028b": 1\n',
        None,
        "a\\u2028b",
    ),
}


@pytest.mark.parametrize("case", sorted(SPEC_FINDINGS))
def test_spec_findings(tmp_path, case):
    text, reading, field = SPEC_FINDINGS[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as err:
        load_spec(path, reading=reading)
    assert_one_line_naming(err.value, path)
    assert f"field '{field}'" in str(err.value), str(err.value)[:400]


@pytest.mark.parametrize("case", sorted(SPEC_FINDINGS))
def test_spec_findings_through_the_cli(tmp_path, case, monkeypatch_env):
    """The same files through ``sskernels run``: exit 2, one ``error:`` line naming the file
    and the field, no traceback."""
    text, reading, field = SPEC_FINDINGS[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(
        [
            "run",
            path,
            "--splits",
            "1",
            "--no-progress",
            *(["--reading", reading] if reading else []),
        ]
    )
    assert "Traceback" not in err and code == 2, (code, err[-2000:])
    assert_one_error_line(err)
    assert str(path) in err and f"field '{field}'" in err, err[-2000:]


# ---------------------------------------------------------------------------- data files


def assert_valid_dataset(ds):
    """What the runner relies on: float64 (n, d) features, finite, dense or CSR; one label per
    row; at least two classes; numeric labels finite."""
    X = ds.X
    assert (sp.issparse(X) and X.format == "csr") or (isinstance(X, np.ndarray) and X.ndim == 2)
    assert X.dtype == np.float64
    n, d = X.shape
    assert n >= 2 and d >= 1, X.shape
    assert np.all(np.isfinite(X.data if sp.issparse(X) else X))
    y = np.asarray(ds.y)
    assert y.shape == (n,), (y.shape, n)
    if y.dtype.kind == "f":
        assert np.all(np.isfinite(y)), y
    assert np.unique(y).size >= 2


#: cells of a csv table: clean numbers mostly, and everything that breaks a parser
CLEAN_CELLS = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: f"{x:.3g}"),
)
BAD_CELLS = st.sampled_from(
    [
        "",
        " ",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "Infinity",
        "1e308",
        "-1e308",
        "1.7e308",
        "1e400",
        "-1e400",
        "1e-400",
        "?",
        "NA",
        "abc",
        " 1 ",
        '"1,5"',
        '"2"',
        "0x10",
        "1_0",
        "１",
        "1e",
        "--1",
        "\x00",
        '"a\nb"',
        "ünï",
        "😀",
        "9" * 40,
        "x" * 300,
    ]
)
LABELS = st.one_of(
    st.sampled_from(["0", "1", "2", "-1", "cat", "dog", "1.5", "2.5", "A", "b"]),
    st.sampled_from(
        [
            "",
            "nan",
            "?",
            "NA",
            "inf",
            "1e400",
            "2e400",
            "99999999999999999999",
            "1e300",
            "2e300",
            " ",
            "ünï",
        ]
    ),
)


def _compress(draw, data, suffix, clean):
    """Plain, gzip or bzip2 (the suffix says which); unless ``clean``, sometimes cut, with a
    flipped byte or with junk appended."""
    how = draw(st.sampled_from(["", "", "", ".gz", ".bz2"]))
    if how == ".gz":
        data = gzip.compress(data, mtime=0)
    elif how == ".bz2":
        data = bz2.compress(data)
    damage = "none" if clean else draw(st.sampled_from(["none", "truncate", "flip", "junk"]))
    if damage == "truncate" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif damage == "flip" and data:
        i = draw(st.integers(0, len(data) - 1))
        data = data[:i] + bytes([data[i] ^ draw(st.integers(1, 255))]) + data[i + 1 :]
    elif damage == "junk":
        data = data + draw(st.binary(min_size=1, max_size=40))
    return data, suffix + how


def _sometimes(draw, clean, strategy, default):
    """``default`` in a clean case; in a dirty one, a draw from ``strategy`` one time in
    three (each defect apart, so that a failing case shrinks to the one that matters)."""
    if clean or draw(st.integers(0, 2)):
        return default
    return draw(strategy)


@st.composite
def csv_files(draw):
    """(bytes, file suffix, load_file keyword arguments) of a csv table: a clean one (most of
    them load), or one with a few defects."""
    clean = draw(st.booleans())
    n_features = draw(st.integers(1, 5)) if clean else draw(st.integers(0, 5))
    n_rows = draw(st.integers(2, 14)) if clean else draw(st.integers(0, 14))
    names = [f"f{j}" for j in range(n_features)] + ["class"]
    odd_names = st.one_of(
        st.sampled_from(["a", "class", "", "ü", "a b", '"q"', "f0"]), st.text(max_size=4)
    )
    names = _sometimes(
        draw, clean, st.lists(odd_names, min_size=n_features + 1, max_size=n_features + 1), names
    )
    label_pool = _sometimes(
        draw,
        clean,
        st.lists(LABELS, min_size=1, max_size=3),
        draw(
            st.sampled_from(
                [["0", "1"], ["cat", "dog"], ["1", "2", "3"], ["-1", "1"], ["1.5", "2.5"]]
            )
        ),
    )
    bad_cells = not clean and draw(st.booleans())
    rows = []
    for i in range(n_rows):
        row = [
            draw(st.one_of(CLEAN_CELLS, CLEAN_CELLS, BAD_CELLS) if bad_cells else CLEAN_CELLS)
            for _ in range(n_features)
        ]
        rows.append(
            row
            + [
                label_pool[i % len(label_pool)]
                if i < len(label_pool)
                else draw(st.sampled_from(label_pool))
            ]
        )
    if not clean and rows and draw(st.integers(0, 3)) == 0:  # a ragged row
        i = draw(st.integers(0, len(rows) - 1))
        rows[i] = rows[i][:-1] if draw(st.booleans()) else rows[i] + ["1"]
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    lines = [",".join(names)] + [",".join(r) for r in rows]
    if not clean and draw(st.integers(0, 3)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", ",,", "#c"])))
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    encoding = (
        draw(st.sampled_from(["utf-8", "utf-8-sig"]))
        if clean
        else _sometimes(draw, clean, st.sampled_from(["latin-1", "utf-16", "cp1252"]), "utf-8")
    )
    data, suffix = _compress(draw, _encode(text, encoding), ".csv", clean)
    kwargs = {"preprocess": draw(st.sampled_from(PREPROCESSINGS))}
    label = (
        draw(st.sampled_from([None, "class"]))
        if clean
        else _sometimes(draw, clean, st.sampled_from(["f0", "no such column", "", "a"]), None)
    )
    if label is not None:
        kwargs["label"] = label
    fmt = (
        draw(st.sampled_from([None, "csv", "CSV"]))
        if clean
        else _sometimes(draw, clean, st.sampled_from(["svmlight", "xls", "libsvm"]), None)
    )
    if fmt is not None:
        kwargs["format"] = fmt
    if not clean and draw(st.integers(0, 9)) == 0:  # a suffix that says nothing
        suffix = draw(st.sampled_from([".dat", "", ".csv.zip"]))
    return data, suffix, kwargs


@fuzz_settings("csv_files")
@given(case=csv_files())
def test_csv_files_load_or_give_one_line(files, case):
    RAN["csv_files"] += 1
    data, suffix, kwargs = case
    path = files.path(suffix, stem="data")
    path.write_bytes(data)
    ds = outcome("csv_files", path, lambda: load_file(path, **kwargs))
    if ds is not None:
        assert_valid_dataset(ds)


INDICES = st.one_of(
    st.integers(1, 12),
    st.integers(1, 12),
    st.sampled_from([0, -1, 10**5, 2**24 + 1, 10**9, 2**31, 2**32 + 5, 2**63, 10**20]),
)
VALUES = st.one_of(CLEAN_CELLS, CLEAN_CELLS, BAD_CELLS)
SVM_LABELS = st.one_of(
    st.sampled_from(["1", "-1", "+1", "0", "2", "1.0", "3.5"]),
    st.sampled_from(
        ["nan", "inf", "-inf", "1e400", "1e300", "2e300", "abc", "", "1,2", "99999999999999999999"]
    ),
)


@st.composite
def svmlight_lines(draw, clean, label):
    if clean:
        idx = sorted(set(draw(st.lists(st.integers(1, 12), min_size=1, max_size=5))))
        feats = [f"{j}:{draw(CLEAN_CELLS)}" for j in idx]
    else:
        idx = draw(st.lists(INDICES, max_size=5))
        if draw(st.booleans()):
            idx = sorted(set(idx))
        feats = [f"{j}:{draw(VALUES)}" for j in idx]
        if draw(st.integers(0, 6)) == 0:
            feats.insert(0, f"qid:{draw(st.integers(-2, 5))}")
        if draw(st.integers(0, 6)) == 0:
            feats.append(draw(st.sampled_from(["3", "3:", ":4", "1:2:3", "a:1", "# note"])))
    sep = " " if clean else draw(st.sampled_from([" ", " ", "\t", "  "]))
    return sep.join([label, *feats])


@st.composite
def svmlight_files(draw):
    """(bytes, file suffix, load_file keyword arguments) of an svmlight file, clean or with a
    few defects."""
    clean = draw(st.booleans())
    labels = (
        draw(st.sampled_from([["1", "-1"], ["0", "1", "2"], ["+1", "-1"], ["1", "0"]]))
        if clean
        else draw(st.lists(SVM_LABELS, min_size=1, max_size=3))
    )
    n = draw(st.integers(2, 12)) if clean else draw(st.integers(0, 12))
    dirty_lines = not clean and draw(st.booleans())
    lines = [
        draw(
            svmlight_lines(
                not dirty_lines,
                labels[i % len(labels)] if i < len(labels) else draw(st.sampled_from(labels)),
            )
        )
        for i in range(n)
    ]
    if not clean and draw(st.integers(0, 4)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "# c", "  "])))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    encoding = (
        "utf-8"
        if clean
        else _sometimes(draw, clean, st.sampled_from(["latin-1", "utf-16"]), "utf-8")
    )
    suffix = draw(st.sampled_from([".svm", ".svmlight", ".libsvm", ".txt"]))
    data, suffix = _compress(draw, _encode(text, encoding), suffix, clean)
    kwargs = {"preprocess": draw(st.sampled_from(PREPROCESSINGS))}
    fmt = (
        draw(st.sampled_from([None, "svmlight", "libsvm", "LibSVM"]))
        if clean
        else _sometimes(draw, clean, st.sampled_from(["csv", "xls"]), None)
    )
    if fmt is not None:
        kwargs["format"] = fmt
    if not clean and draw(st.integers(0, 9)) == 0:
        kwargs["label"] = "class"
    return data, suffix, kwargs


@fuzz_settings("svmlight_files")
@given(case=svmlight_files())
def test_svmlight_files_load_or_give_one_line(files, case):
    RAN["svmlight_files"] += 1
    data, suffix, kwargs = case
    path = files.path(suffix, stem="data")
    path.write_bytes(data)
    ds = outcome("svmlight_files", path, lambda: load_file(path, **kwargs))
    if ds is not None:
        assert_valid_dataset(ds)


@pytest.mark.parametrize(
    "name",
    [
        "x" * 5000 + ".csv",
        "x" * 5000 + ".svm",
        "a\nb.csv",
        "a\x00b.csv",
        "nul\x00.svm",
        "dir.csv",
        "missing.txt",
        "no_suffix",
    ],
    ids=["long-csv", "long-svm", "newline", "nul-csv", "nul-svm", "folder", "missing", "no-suffix"],
)
def test_odd_paths_give_one_line(tmp_path, name):
    """Names a file system refuses, or a path that is a folder: one line (with the control
    characters of the name escaped)."""
    path = tmp_path / name
    if name == "dir.csv":
        path.mkdir()
    with pytest.raises(UserError) as err:
        load_file(path)
    msg = str(err.value)
    assert "\n" not in msg and "\x00" not in msg and len(msg) <= 5000, msg[:300]


# ---------------------------------------------------------------------------- found, kept
# The fuzzer's findings in the readers, each as its smallest file: a one-line error now.

_GZ = gzip.compress(b"a,b,c\n1,2,0\n3,4,1\n5,6,0\n", mtime=0)


@pytest.mark.parametrize(
    "text, suffix, kwargs, expected",
    [
        # a corrupt gzip stream raised zlib.error (not an OSError): a traceback
        (_GZ[:12] + b"\xff" * 10 + _GZ[22:], ".csv.gz", {}, "cannot read as text"),
        # minmax over a range wider than the largest float gave NaN features, silently
        (b"a,c\n-1e308,0\n1e308,1\n", ".csv", {"preprocess": "minmax"}, "overflows float64"),
        # l2 of a row with a 1e200 entry: its norm overflows and the row became zeros, silently
        (b"a,b,c\n1e200,1,0\n2,3,1\n", ".csv", {"preprocess": "l2"}, "too large for preprocessing"),
        # an index beyond int64 raised OverflowError; 10**9 built a billion-column matrix
        (b"1 99999999999999:1\n0 2:1\n", ".svm", {}, "not a valid svmlight"),
        (b"1 1000000000:1\n0 2:1\n", ".svm", {"preprocess": "minmax"}, "accepted (a stray index?)"),
        # one class, no rows, NaN labels: a data set the runner cannot use
        (b"1 1:1\n1 2:1\n", ".svm", {}, "a single class"),
        (b"", ".svm", {}, "no data rows"),
        (b"1\n0\n", ".svm", {}, "no feature values"),
        (b"nan 1:1\n1 2:1\n", ".svm", {}, "expected a finite label"),
        # integer labels beyond int64 raised OverflowError
        (b"a,c\n1,99999999999999999999\n2,1\n", ".csv", {}, None),
        # a preprocessing refused: the message named "data", not the file
        (b"1 1:1\n0 2:1\n", ".svm", {"preprocess": "standardize"}, "would make the sparse"),
        # a quoted header name holding a line break: a message of two lines
        (b'"a\nb",c\n1,0\n2,1\n', ".csv", {"label": "zzz"}, "no label column"),
    ],
    ids=[
        "corrupt-gz",
        "minmax-overflow",
        "l2-overflow",
        "index-beyond-int64",
        "index-1e9",
        "one-class",
        "empty",
        "labels-only",
        "nan-label",
        "int-label-beyond-int64",
        "preprocess-refused",
        "line-break-in-header",
    ],
)
def test_reader_findings(tmp_path, text, suffix, kwargs, expected):
    path = tmp_path / f"data{suffix}"
    path.write_bytes(text)
    if expected is None:
        assert_valid_dataset(load_file(path, **kwargs))
        return
    with pytest.raises(UserError) as err:
        load_file(path, **kwargs)
    assert_one_line_naming(err.value, path)
    assert expected in str(err.value)


def test_labels_never_merge(tmp_path):
    """1e300 and 2e300 (or 1e400 and 2e400) are two classes, not one int64 (or inf)."""
    path = tmp_path / "d.svm"
    path.write_bytes(b"1e300 1:1\n2e300 1:2\n1e300 1:3\n")
    assert np.unique(load_file(path).y).size == 2
    path = tmp_path / "d.csv"
    path.write_bytes(b"a,c\n1,1e400\n2,2e400\n3,1e400\n")
    ds = load_file(path)
    assert np.unique(ds.y).size == 2 and ds.y.dtype.kind == "U"


# ---------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def cli_data(tmp_path_factory):
    """A tiny csv and svmlight file beside the CLI's specs (30 points, two classes)."""
    root = tmp_path_factory.mktemp("fuzzcli")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    (root / "tiny.csv").write_text(
        "a,b,c,class\n" + "".join(f"{r[0]:.4f},{r[1]:.4f},{r[2]:.4f},{c}\n" for r, c in zip(X, y))
    )
    (root / "tiny.svm").write_text(
        "".join(
            f"{c} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(r)) + "\n"
            for r, c in zip(X, y)
        )
    )
    return root


#: methods cheap enough on 30 points to run one split of in a CLI example
CHEAP = [
    "harmonic",
    "consistency",
    "1nn",
    "label-spreading",
    "osk",
    "tsk",
    "svm",
    "rsk",
    "dsk",
    "supervised-mr",
]
CLI_SETS = ["two-moons", "sklearn-iris"]


@fuzz_settings("cli_runs", deadline=timedelta(seconds=30))
@given(
    doc=spec_documents(
        datasets=CLI_SETS,
        methods=CHEAP,
        files=("tiny.csv", "tiny.svm"),
        simple=True,
        protected=("output",),
        mutations=(0, 0, 0, 1, 1, 2),
    ),
    extra=st.sampled_from(
        [
            [],
            [],
            ["--reading", "all"],
            ["--reading", "standardized"],
            ["--metric", "error"],
            ["--splits", "2"],
        ]
    ),
)
def test_cli_runs_end_with_exit_0_or_one_line(cli_data, doc, extra, monkeypatch_env):
    RAN["cli_runs"] += 1
    n = RAN["cli_runs"]
    if isinstance(doc, dict):
        doc["output"] = f"out/run{n}"  # each run its own folder, under the data's
        if isinstance(doc.get("splits"), dict) and isinstance(doc["splits"].get("n_splits"), int):
            doc["splits"]["n_splits"] = max(1, min(doc["splits"]["n_splits"], 3))
    path = cli_data / f"cli{n}.yaml"
    path.write_text(dump(doc), encoding="utf-8")
    note(f"the spec file:\n{path.read_text()[:3000]}")
    splits = [] if "--splits" in extra else ["--splits", "1"]
    with hang_guard():
        code, out, err = run_cli(["run", path, *splits, "--no-progress", *extra])
    assert "Traceback" not in err and "Traceback" not in out, err[-3000:]
    assert code in (0, 2), (code, err[-2000:])
    if code == 2:
        assert_one_error_line(err)
    OUTCOMES[("cli_runs", "accepted" if code == 0 else "refused")] += 1


#: the fuzzer's findings past the spec (a run's tracebacks), each as its smallest spec and
#: the field its error names: each is refused before any fit, exit 2 and one line.  The
#: estimator's constraints let a mapping (or a list of other things than numbers) through
#: where the parameter takes a sequence ("array-like"): the spec checks the shape itself.
_M = "dataset: two-moons\nmethods:\n- name: "
CLI_FINDINGS = {
    # the learner's fit raised TypeError (exit 1)
    "supervised-mr-gamma-I-a-mapping": (
        _M + "supervised-mr\n  params: {gamma_I: {}}\n",
        "methods[0].params.gamma_I",
    ),
    # (found beside it) the same through a list, and the other sequences' parameters
    "supervised-mr-gamma-I-a-list-of-mappings": (
        _M + "supervised-mr\n  params: {gamma_I: [{}]}\n",
        "methods[0].params.gamma_I",
    ),
    "supervised-mr-gamma-I-a-list-of-text": (
        _M + "supervised-mr\n  params: {gamma_I: [1, a]}\n",
        "methods[0].params.gamma_I",
    ),
    "simplemkl-widths-a-mapping": (
        _M + "simplemkl\n  params: {gaussian_widths: {a: 1}}\n",
        "methods[0].params.gaussian_widths",
    ),
    "label-aware-b-scales-a-mapping": (
        _M + "label-aware\n  params: {b_scales: {a: 1}}\n",
        "methods[0].params.b_scales",
    ),
    # an audit of extreme values: DSK's cone solver ("scale must be a positive vector") and
    # LapRLS's solve (singular matrix) failed in the fit, exit 1
    "dsk-eta-1e300": (_M + "dsk\n  params: {eta: 1.0e+300}\n", "methods[0].params.eta"),
    "laprls-gamma-A-1e-300": (
        _M + "laprls\n  params: {gamma_A: 1.0e-300}\n",
        "methods[0].params.gamma_A",
    ),
}


def assert_one_error_line(err):
    """stderr is one ``error:`` line: no line break of any kind (str.splitlines's)."""
    lines = err.rstrip("\n").splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err[-2000:]


@pytest.mark.parametrize("case", sorted(CLI_FINDINGS))
def test_cli_findings(tmp_path, case, monkeypatch_env):
    text, field = CLI_FINDINGS[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text + "output: out\n", encoding="utf-8")
    code, out, err = run_cli(["run", path, "--splits", "1", "--no-progress"])
    assert "Traceback" not in err and code == 2, (code, err[-2000:])
    assert_one_error_line(err)
    assert str(path) in err and f"field '{field}'" in err, err[-2000:]


@pytest.fixture(scope="module")
def monkeypatch_env(tmp_path_factory):
    """No download, no mirror, a throw-away cache: the CLI's runs read bundled data only."""
    mp = pytest.MonkeyPatch()
    mp.delenv("SSKERNELS_DATA_MIRROR", raising=False)
    mp.setenv("SSKERNELS_DATA_DIR", str(tmp_path_factory.mktemp("cache")))
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        mp.setenv(k, "http://127.0.0.1:9")
    yield
    mp.undo()


def test_the_budget_was_spent(request):
    """Each generator ran its share (at least SSKERNELS_FUZZ_EXAMPLES examples in all), when
    the whole module ran (not a -k selection) and passed (a failing fuzz test stops early)."""
    if not set(SHARES) <= set(RAN):
        pytest.skip("not every fuzz test ran in this session")
    if request.session.testsfailed:
        pytest.skip("a test failed before: its examples stopped at the failure")
    for name, n in EXAMPLES.items():
        assert RAN[name] >= n, (name, RAN[name], n)
    assert sum(RAN[name] for name in SHARES) >= TOTAL
