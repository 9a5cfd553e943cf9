"""A spec fuzz test: hundreds of malformed specs, zero tracebacks, zero hangs.

Every mutation of a valid spec (a wrong type at every level, unknown keys, huge and
negative numbers, unicode, empty values) must either parse or raise a
:class:`~sskernels.errors.UserError` whose message is one line naming the file.  A sample
of the specs that parse is run on one split: the run too may only succeed or raise a
``UserError``, and does the work of the one split asked (``n_splits=1``), not of the
spec's ``n_splits``.  Nothing here is timed (speed is for benchmarks): a hang is stopped by the
test run's own limits.
"""

from __future__ import annotations

import copy
import itertools
import random
from pathlib import Path


from sskernels.errors import UserError
from sskernels.experiment.runner import run_spec
from sskernels.spec import parse_spec

VALID = {
    "name": "fuzz",
    "dataset": "sklearn-wine",
    "preprocess": "minmax",
    "graph": {"k": 6, "weights": "hein-maier"},
    "splits": {"protocol": "random", "n_splits": 2, "n_labeled": 20, "seed": 0},
    "methods": [
        {"name": "harmonic"},
        {"name": "consistency", "params": {"alpha": 0.9}},
        {"name": "tsk", "label": "TSK", "params": {"n_components": 5, "eta": 2, "beta": "auto"}},
        {"name": "lapsvm", "params": {"gamma_A": 0.01, "gamma_I": 1.0}},
    ],
    "paper": {"table": "liu2009_table3_uci_transductive_accuracy", "dataset": "wine"},
}

#: replacement values: wrong types, out-of-range numbers, unicode, empties
BAD_VALUES = [
    None,
    "",
    " ",
    "ünïcödé ✓",
    "x" * 5000,
    -1,
    0,
    10**12,
    -(10**12),
    1e308,
    -0.5,
    float("nan"),
    float("inf"),
    True,
    [],
    [1, "a"],
    {},
    {"k": "v"},
    "auto",
    3.7,
    "../../etc",
    "\x00",
]


def paths(obj, prefix=()):
    """Every (path to a value) in a nested dict/list spec."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


def mutate(spec, path, value):
    out = copy.deepcopy(spec)
    if not path:
        return value
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def add_key(spec, path, key):
    out = copy.deepcopy(spec)
    node = out
    for k in path:
        node = node[k]
    if isinstance(node, dict):
        node[key] = 1
    return out


def cases():
    rng = random.Random(0)
    all_paths = list(paths(VALID))
    out = []
    for path, value in itertools.product(all_paths, BAD_VALUES):
        out.append(mutate(VALID, path, value))
    dict_paths = [p for p in all_paths if isinstance(_get(VALID, p), dict)]
    for path in dict_paths:
        out.append(add_key(VALID, path, "unknown_ünï"))
    rng.shuffle(out)
    return out


def _get(obj, path):
    for k in path:
        obj = obj[k]
    return obj


CASES = cases()


def test_there_are_enough_cases():
    assert len(CASES) >= 200


def test_no_malformed_spec_gives_a_traceback_or_hangs(tmp_path):
    parsed, refused = [], 0
    for i, raw in enumerate(CASES):
        try:
            spec = parse_spec(raw, tmp_path / f"case{i}.yaml")
        except UserError as exc:
            msg = str(exc)
            assert "\n" not in msg and f"case{i}.yaml" in msg, (raw, msg)
            assert len(msg) < 2000, msg[:200]
            refused += 1
        else:
            parsed.append((i, spec))
    assert refused > len(CASES) // 2
    # a sample of the specs that parse must run (or fail with one line) on few splits
    for i, spec in parsed[:12]:
        spec.output = str(tmp_path / f"out{i}")
        try:
            run_spec(spec, progress=False, n_splits=1)
        except UserError as exc:
            assert "\n" not in str(exc), str(exc)
        # the work done, counted: at most split 0 of each method and setting, as asked
        written = {p.name for p in Path(spec.output).rglob("split_*.json")}
        assert written <= {"split_000.json"}, (i, sorted(written))
