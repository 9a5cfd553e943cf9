"""The data sets and split protocols of "Kernel self-consistent labeling" (Sec. 6, Table 1).

Data sets: the three 20 Newsgroups tasks (ASU files), the two-spirals benchmark, the
odd-even / 10-digit substitute built from USPS, wine and yeast.  Split protocols:
``class-first`` (one labeled point per class, or per subclass, first) and ``per-class``
(exact labeled counts per class), with their spec validation and record keys.

Tests that read the mirror use the ``data_mirror`` fixture (conftest.py): a missing mirror or
data set fails under CI (``CI=true``) and skips elsewhere, naming what is missing.
"""

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import pdist

from sskernels.data import load_dataset
from sskernels.data.digits import area_weights, quantize, resample
from sskernels.data.registry import REGISTRY
from sskernels.data.synthetic import two_spirals
from sskernels.errors import DataError, UserError
from sskernels.experiment.records import data_fingerprint
from sskernels.experiment.preparation import prepare, setting_labels
from sskernels.experiment.runner import run_spec
from sskernels.experiment.splits import (
    SplitError,
    class_first_split,
    make_splits,
    per_class_split,
    random_split,
)
from sskernels.spec import _hash, load_spec, parse_spec

REPO = Path(__file__).resolve().parents[1]
DIGITS_NOTE = "substitute for the paper's simplified digits (Grudic's data), built from USPS"

# shapes and class counts: manifold/SOURCES.md, usps/SOURCES.md, uci/SOURCES.md, the formula
DOCUMENTED = {
    "baseball-hockey": (1993, 4862, {1: 994, 2: 999}),
    "religion-atheism": (1427, 4322, {1: 779, 2: 648}),
    "pc-mac": (1943, 3289, {1: 982, 2: 961}),
    "odd-even": (2000, 196, {"even": 1000, "odd": 1000}),
    "10-digit": (2000, 196, {d: 200 for d in range(10)}),
    "two-spirals": (194, 2, {0: 97, 1: 97}),
    "wine": (178, 13, {1: 59, 2: 71, 3: 48}),
    "yeast": (
        1484,
        8,
        {
            "CYT": 463,
            "NUC": 429,
            "MIT": 244,
            "ME3": 163,
            "ME2": 51,
            "ME1": 44,
            "EXC": 35,
            "VAC": 30,
            "POX": 20,
            "ERL": 5,
        },
    ),
}


def counts(y):
    return {k.item() if hasattr(k, "item") else k: v for k, v in Counter(y.tolist()).items()}


def spec_of(tmp_path, splits, dataset="sklearn-wine", check_names=True):
    return parse_spec(
        {
            "dataset": dataset,
            "splits": splits,
            "methods": ["harmonic"],
            "output": str(tmp_path / "out"),
        },
        tmp_path / "kscl.yaml",
        check_names=check_names,
    )


# ---------------------------------------------------------------------------- data sets


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_shapes_and_class_counts(data_mirror, name):
    n, d, documented = DOCUMENTED[name]
    ds = load_dataset(name)
    assert ds.X.shape == (n, d) and ds.X.dtype == np.float64
    assert counts(ds.y) == documented
    entry = REGISTRY[name]
    assert (entry.n, entry.d, entry.n_classes) == (n, d, len(documented))


@pytest.mark.parametrize(
    "name,max_count", [("baseball-hockey", 113), ("religion-atheism", 199), ("pc-mac", 149)]
)
def test_newsgroups_are_raw_dense_counts(data_mirror, name, max_count):
    ds = load_dataset(name)
    assert isinstance(ds.X, np.ndarray)  # dense, like every dense .mat
    assert ds.X.min() == 0 and ds.X.max() == max_count  # counts as given (manifold/SOURCES.md)
    assert np.all(ds.X == np.round(ds.X)) and ds.groups is None
    assert "no tf-idf, no normalisation" in ds.description


def test_descriptions_say_what_differs():
    rel = REGISTRY["religion-atheism"].description
    assert "1427" in rel and "1424" in rel and "all 1427 are used" in rel
    assert "'pcmac'" in REGISTRY["pc-mac"].description
    for name in ("odd-even", "10-digit"):
        assert DIGITS_NOTE in REGISTRY[name].description
        assert REGISTRY[name].n_groups == 10
    assert "ERL (5" in REGISTRY["yeast"].description
    assert "deterministic" in REGISTRY["two-spirals"].description


def test_two_spirals_is_the_classic_formula():
    X, y = two_spirals()
    assert X.shape == (194, 2) and y.tolist() == [1, 0] * 97
    for i in (0, 1, 8, 40, 96):
        a, r = i * math.pi / 16, 6.5 * (104 - i) / 104
        assert X[2 * i].tolist() == [r * math.sin(a), r * math.cos(a)]
        assert X[2 * i + 1].tolist() == [-r * math.sin(a), -r * math.cos(a)]
    np.testing.assert_allclose(X[0], [0.0, 6.5])
    np.testing.assert_allclose(X[16], [6.0, 0.0], atol=1e-12)  # i = 8: a = pi/2, r = 6
    np.testing.assert_allclose(X[192], [0.0, 0.5], atol=1e-12)  # i = 96: a = 6 pi, r = 0.5
    # the scale documented in the docstring (Table 1's sigma^2 = 5e-4 does not fit it)
    assert np.median(pdist(X, "sqeuclidean")) == pytest.approx(22.90625)
    np.testing.assert_array_equal(load_dataset("two-spirals").X, X)


def test_area_resampling_and_quantization():
    W = area_weights(16, 14)
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    np.testing.assert_allclose(W.sum(axis=0), 14 / 16)  # every input pixel fully used
    img = np.random.default_rng(0).uniform(size=(3, 16, 16))
    out = resample(img)
    assert out.shape == (3, 14, 14)
    np.testing.assert_allclose(out.sum(axis=(1, 2)), img.sum(axis=(1, 2)) * (14 / 16) ** 2)
    np.testing.assert_allclose(resample(np.full((1, 16, 16), 0.3)), 0.3)
    assert quantize(np.array([0.0, 0.05, 1 / 18, 0.5, 17 / 18, 1.0])).tolist() == [0, 0, 1, 5, 9, 9]


@pytest.mark.datasets("odd-even", "10-digit")
def test_digits_substitute(data_mirror):
    import h5py

    odd, ten = load_dataset("odd-even"), load_dataset("10-digit")
    for ds in (odd, ten):
        assert ds.X.shape == (2000, 196)
        assert np.all(ds.X == np.round(ds.X)) and set(np.unique(ds.X)) == set(range(10))
        assert counts(ds.groups) == {d: 200 for d in range(10)}
    np.testing.assert_array_equal(odd.X, ten.X)
    np.testing.assert_array_equal(ten.y, ten.groups)
    assert all(y == ("odd" if g % 2 else "even") for y, g in zip(odd.y, odd.groups))
    # the first 200 training images of each digit, in file order
    with h5py.File(data_mirror / "usps" / "usps.h5", "r") as fh:
        pixels, target = fh["train/data"][()], fh["train/target"][()]
    rows = np.sort(np.concatenate([np.flatnonzero(target == d)[:200] for d in range(10)]))
    np.testing.assert_array_equal(ten.groups, target[rows])
    expected = quantize(resample(pixels[rows].astype(np.float64).reshape(-1, 16, 16)))
    np.testing.assert_array_equal(ten.X, expected.reshape(2000, 196))


# ---------------------------------------------------------------------------- class-first


def test_class_first_covers_every_class_exactly_sized_and_deterministic():
    y = np.array([0] * 100 + [1] * 50 + [2] * 2 + [3] * 1)
    for index in range(20):
        lab = class_first_split(y, 6, seed=4, index=index)
        assert lab.size == 6 and np.unique(lab).size == 6
        assert set(y[lab]) == {0, 1, 2, 3}
        np.testing.assert_array_equal(lab, class_first_split(y, 6, seed=4, index=index))
    assert not np.array_equal(class_first_split(y, 6, 4, 0), class_first_split(y, 6, 4, 1))
    assert not np.array_equal(class_first_split(y, 6, 4, 0), class_first_split(y, 6, 5, 0))
    # split i does not depend on how many splits are drawn
    np.testing.assert_array_equal(
        make_splits(y, "class-first", 3, 6, 4)[2], make_splits(y, "class-first", 9, 6, 4)[2]
    )
    assert class_first_split(y, 4, 0, 0).tolist()[-1] == 152  # the one point of class 3


def test_class_first_covers_groups():
    y = np.repeat([0, 1], 50)
    groups = np.repeat(np.arange(10), 10)  # 5 groups per class, nested
    for index in range(10):
        lab = class_first_split(y, 12, 0, index, groups=groups)
        assert lab.size == 12 and set(groups[lab]) == set(range(10))
    with pytest.raises(SplitError, match="smaller than the number of subclasses") as err:
        class_first_split(y, 9, 0, 0, groups=groups)
    assert err.value.field == "splits.n_labeled"


def test_class_first_refuses_impossible_sizes():
    y = np.repeat([0, 1, 2], 3)
    with pytest.raises(SplitError, match="smaller than the number of classes"):
        class_first_split(y, 2, 0, 0)
    with pytest.raises(SplitError, match="leaves no unlabeled point"):
        class_first_split(y, 9, 0, 0)


@pytest.mark.datasets("yeast")
def test_yeast_class_first_with_10_labels(data_mirror, tmp_path):
    spec = spec_of(
        tmp_path, {"protocol": "class-first", "n_labeled": 10, "n_splits": 30}, dataset="yeast"
    )
    prep = prepare(spec)
    ((label, splits),) = prep.settings
    assert label == "10 labeled" and len(splits) == 30
    for lab in splits:  # 10 classes, 10 labels: one of each, ERL included
        assert lab.size == 10 and sorted(prep.y[lab]) == list(range(10))


@pytest.mark.datasets("odd-even")
def test_odd_even_class_first_covers_every_digit(data_mirror, tmp_path):
    spec = spec_of(
        tmp_path,
        {"protocol": "class-first", "n_labeled": [10, 20], "n_splits": 5, "cover": "groups"},
        dataset="odd-even",
    )
    prep = prepare(spec)
    groups = load_dataset("odd-even").groups
    for (label, splits), n in zip(prep.settings, (10, 20)):
        assert label == f"{n} labeled"
        for lab in splits:
            assert lab.size == n and set(groups[lab]) == set(range(10))


# ---------------------------------------------------------------------------- per-class


def test_per_class_exact_counts_and_deterministic():
    y = np.repeat([0, 1, 2], [40, 60, 30])
    for index in range(10):
        lab = per_class_split(y, [3, 7, 1], seed=2, index=index)
        assert np.bincount(y[lab]).tolist() == [3, 7, 1] and np.unique(lab).size == 11
        np.testing.assert_array_equal(lab, per_class_split(y, [3, 7, 1], 2, index))
    assert not np.array_equal(
        per_class_split(y, [3, 7, 1], 2, 0), per_class_split(y, [3, 7, 1], 2, 1)
    )


def test_per_class_errors():
    y = np.repeat([0, 1], [5, 20])
    with pytest.raises(SplitError, match="3 counts for 2 classes") as err:
        make_splits(y, "per-class", 2, per_class=[1, 1, 1], classes=np.array(["a", "b"]))
    assert err.value.field == "splits.per_class" and "(a, b)" in str(err.value)
    with pytest.raises(SplitError, match="class a asked for, but it has only 5"):
        make_splits(y, "per-class", 2, per_class=[6, 1], classes=np.array(["a", "b"]))


@pytest.mark.datasets("baseball-hockey")
def test_unbalanced_sequence_on_baseball_hockey(data_mirror, tmp_path):
    spec = spec_of(
        tmp_path,
        {
            "protocol": "per-class",
            "n_splits": 3,
            "per_class": [[10, 10], [10, 20], [10, 30], [10, 40]],
        },
        dataset="baseball-hockey",
    )
    assert spec.splits.n_labeled == [20, 30, 40, 50]
    labels = ["10/10 labeled", "10/20 labeled", "10/30 labeled", "10/40 labeled"]
    assert setting_labels(spec) == labels
    prep = prepare(spec)
    assert [label for label, _ in prep.settings] == labels
    for (_, splits), neg in zip(prep.settings, (10, 20, 30, 40)):
        for lab in splits:  # label 1 (baseball) first: sorted label order
            assert np.bincount(prep.y[lab]).tolist() == [10, neg]


def test_per_class_run_end_to_end(tmp_path):
    path = tmp_path / "spirals.yaml"
    path.write_text(
        "dataset: two-spirals\ngraph: {k: 4, weights: binary}\n"
        "splits: {protocol: per-class, per_class: [[2, 3], [2, 6]], n_splits: 2}\n"
        f"methods: [harmonic]\noutput: {tmp_path / 'out'}\n"
    )
    df = run_spec(load_spec(path), progress=False)
    assert sorted(set(zip(df["setting"], df["n_labeled"]))) == [
        ("2/3 labeled", 5),
        ("2/6 labeled", 8),
    ]
    assert (tmp_path / "out" / "records" / "harmonic" / "2_6_labeled" / "split_001.json").is_file()


# ---------------------------------------------------------------------------- spec


def test_yaml_syntax_of_the_new_options(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "dataset: sklearn-wine\nmethods: [harmonic]\n"
        "splits: {protocol: per-class, per_class: [[5, 5, 5], [5, 10, 5]]}\n"
    )
    s = load_spec(path).splits
    assert (s.per_class, s.n_labeled, s.cover) == ([[5, 5, 5], [5, 10, 5]], [15, 20], None)
    path.write_text(
        "dataset: sklearn-wine\nmethods: [harmonic]\n"
        "splits: {protocol: per-class, per_class: [5, 5, 5]}\n"
    )  # one setting
    assert load_spec(path).splits.per_class == [[5, 5, 5]]
    path.write_text(
        "dataset: sklearn-wine\nmethods: [harmonic]\n"
        "splits: {protocol: class-first, n_labeled: [3, 10]}\n"
    )
    s = load_spec(path).splits
    assert (s.cover, s.n_labeled, s.per_class) == ("classes", [3, 10], None)


BAD_SPLITS = [
    (
        {"protocol": "per-class", "per_class": [[5, 5, 5, 5]]},
        "sklearn-wine",
        "splits.per_class[0]",
        "3 counts",
    ),
    (
        {"protocol": "per-class", "per_class": [[5, 5, 5], [4, 5, 6]]},
        "sklearn-wine",
        "splits.per_class[1]",
        "different from",
    ),
    (
        {"protocol": "per-class", "per_class": [[5, 0, 5]]},
        "sklearn-wine",
        "splits.per_class[0][1]",
        ">= 1",
    ),
    ({"protocol": "per-class", "per_class": "10/20"}, "sklearn-wine", "splits.per_class", "list"),
    (
        {"protocol": "per-class", "per_class": [[5, True, 5]]},
        "sklearn-wine",
        "splits.per_class[0][1]",
        "integer",
    ),
    ({"protocol": "per-class"}, "sklearn-wine", "splits.per_class", "with protocol per-class"),
    (
        {"protocol": "per-class", "per_class": [5, 5, 5], "n_labeled": 15},
        "sklearn-wine",
        "splits.n_labeled",
        "no n_labeled",
    ),
    (
        {"protocol": "random", "per_class": [5, 5, 5]},
        "sklearn-wine",
        "splits.per_class",
        "no per_class with protocol random",
    ),
    ({"protocol": "official", "cover": "groups"}, "g50c", "splits.cover", "no cover"),
    (
        {"protocol": "class-first", "cover": "digits"},
        "sklearn-wine",
        "splits.cover",
        "classes, groups",
    ),
    (
        {"protocol": "class-first", "cover": "groups"},
        "sklearn-wine",
        "splits.cover",
        "no subclasses",
    ),
    (
        {"protocol": "class-first", "cover": "groups", "n_labeled": 5},
        "odd-even",
        "splits.n_labeled",
        "at least 10",
    ),
    ({"protocol": "class-first", "n_labeled": 9}, "yeast", "splits.n_labeled", "at least 10"),
    (
        {"protocol": "class-first", "n_labeled": 178},
        "sklearn-wine",
        "splits.n_labeled",
        "fewer labeled points",
    ),
    ({"protocol": "per-class", "per_class": [[1, 1]]}, "yeast", "splits.per_class[0]", "10 counts"),
]


@pytest.mark.parametrize("splits,dataset,field,expected", BAD_SPLITS)
def test_spec_errors_are_one_line_with_file_and_field(tmp_path, splits, dataset, field, expected):
    with pytest.raises(UserError) as err:  # before any data loads (no mirror needed)
        spec_of(tmp_path, splits, dataset=dataset)
    msg = str(err.value)
    assert "\n" not in msg and "kscl.yaml" in msg and f"field '{field}'" in msg, msg
    assert expected in msg, msg


def test_errors_found_when_the_data_load(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("a,b,label\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]}\n" for i in range(20)))
    cases = [
        (
            {"protocol": "per-class", "per_class": [2, 2, 2]},
            "splits.per_class[0]",
            "3 counts for 2 classes",
        ),
        (
            {"protocol": "per-class", "per_class": [[2, 2], [11, 1]]},
            "splits.per_class[1]",
            "only 10",
        ),
        ({"protocol": "class-first", "n_labeled": 1}, "splits.n_labeled", "smaller"),
    ]
    for splits, field, expected in cases:
        spec = spec_of(tmp_path, splits, dataset={"file": str(csv), "label": "label"})
        with pytest.raises(UserError) as err:
            prepare(spec)
        msg = str(err.value)
        assert "\n" not in msg and "kscl.yaml" in msg and f"field '{field}'" in msg, msg
        assert expected in msg, msg
    # cover: groups with a data file is refused before the file is read
    with pytest.raises(UserError, match="field 'splits.cover'"):
        spec_of(
            tmp_path,
            {"protocol": "class-first", "cover": "groups"},
            dataset={"file": str(tmp_path / "absent.csv")},
        )
    # and when the spec was parsed without name checks, by prepare
    spec = spec_of(
        tmp_path,
        {"protocol": "class-first", "cover": "groups"},
        dataset="sklearn-wine",
        check_names=False,
    )
    with pytest.raises(UserError, match="field 'splits.cover'.*no subclasses"):
        prepare(spec)


# ---------------------------------------------------------------------------- record keys


def test_existing_spec_keys_are_unchanged():
    """The dict hashed for a random-protocol spec holds no new field (no default added)."""
    spec = load_spec(REPO / "configs" / "liu2009" / "heart.yaml")
    hashed = {
        "dataset": {"name": "heart", "file": None, "format": None, "label": None},
        "preprocess": "minmax",
        "graph": {"k": 6, "weights": "hein-maier", "sigma": None, "metric": "euclidean"},
        "splits": {"protocol": "random", "seed": 0, "holdout": 0.0},
    }
    assert spec.data_key() == _hash(hashed)
    assert spec.splits.per_class is None and spec.splits.cover is None


def test_new_split_fields_enter_the_key(tmp_path):
    base = spec_of(tmp_path, {"protocol": "class-first", "n_labeled": 10}).data_key()
    groups = spec_of(
        tmp_path,
        {"protocol": "class-first", "n_labeled": 10, "cover": "groups"},
        dataset="odd-even",
    ).data_key()
    same_cover = spec_of(
        tmp_path, {"protocol": "class-first", "n_labeled": 20, "cover": "classes"}
    ).data_key()
    random = spec_of(tmp_path, {"protocol": "random", "n_labeled": 10}).data_key()
    assert base == same_cover and base != random and groups != base
    keys = {
        spec_of(tmp_path, {"protocol": "per-class", "per_class": pc}).data_key()
        for pc in ([[5, 5, 5]], [[5, 5, 6]], [[6, 5, 5]], [[5, 5, 5], [5, 5, 6]])
    }
    assert len(keys) == 4


def test_fingerprint_of_data_without_groups_is_unchanged(tmp_path):
    prep = prepare(spec_of(tmp_path, {"n_labeled": 10, "n_splits": 2}))
    assert prep.data_fingerprint == data_fingerprint(
        prep.X, prep.y, prep.classes, extra=(None, None, None)
    )
    # random splits are untouched by the new protocols
    np.testing.assert_array_equal(prep.settings[0][1][1], random_split(prep.y, 10, 0, 1))


def test_groups_mismatch_is_a_data_error(monkeypatch):
    from dataclasses import replace

    from sskernels.data import registry

    monkeypatch.setitem(
        registry.REGISTRY, "two-spirals", replace(registry.REGISTRY["two-spirals"], n_groups=3)
    )
    with pytest.raises(DataError, match="0 groups .* registry says 3"):
        load_dataset("two-spirals")
