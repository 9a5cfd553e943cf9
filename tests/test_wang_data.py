"""The data sets of "Enhancing semi-supervised learning through label-aware base kernels"
(Wang et al. 2015, Tables 1-3 and Sec. 4.2).

USPS digit pairs from the training part of usps.h5 and odd/even from its test part (sizes as
the paper prints them), the SSL-book sets (already registered; their shapes against the
paper's), and the ICDM 2007 WiFi localization data, a regression data set.

Tests that read the mirror use the ``data_mirror`` fixture (conftest.py): a missing mirror or
data set fails under CI (``CI=true``) and skips elsewhere, naming what is missing.
"""

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from sskernels.data import list_datasets, load_dataset
from sskernels.data.parsers import Parsed, parse_mat_regression
from sskernels.data.registry import REGISTRY
from sskernels.errors import DataError, UserError
from sskernels.spec import parse_spec

# shapes and class counts of Table 1 (sizes) and usps/SOURCES.md (Hull's class counts)
PAPER = {
    "usps38": (1200, 256, {3: 658, 8: 542}),
    "usps49": (1296, 256, {4: 652, 9: 644}),
    "usps56": (1220, 256, {5: 556, 6: 664}),
    "usps27": (1376, 256, {2: 731, 7: 645}),
    "usps-odd-even": (2007, 256, {"odd": 914, "even": 1093}),
}
PAIRS = {"usps38": (3, 8), "usps49": (4, 9), "usps56": (5, 6), "usps27": (2, 7)}
# Tables 1-3, "Data size/dim" of the SSL-book sets, and the registered names
SSLBOOK_IN_PAPER = {
    "digit1": (1500, 241),
    "usps-sslbook": (1500, 241),
    "coil2": (1500, 241),
    "bci": (400, 241),
    "coil": (1500, 241),
    "g241n": (1500, 241),
    "text-sslbook": (1500, 11960),
}
WANG_NAMES = [*PAPER, "wifi"]


def counts(y):
    return {k.item() if hasattr(k, "item") else k: v for k, v in Counter(y.tolist()).items()}


def usps_part(mirror, part):
    import h5py

    with h5py.File(mirror / "usps" / "usps.h5", "r") as fh:
        return fh[f"{part}/data"][()].astype(np.float64), fh[f"{part}/target"][()]


# ---------------------------------------------------------------------------- USPS


@pytest.mark.parametrize("name", sorted(PAPER))
def test_shapes_and_class_counts_as_the_paper(data_mirror, name):
    n, d, documented = PAPER[name]
    ds = load_dataset(name)
    assert ds.X.shape == (n, d) and ds.X.dtype == np.float64 and ds.task == "classification"
    assert counts(ds.y) == documented
    entry = REGISTRY[name]
    assert (entry.n, entry.d, entry.n_classes, entry.task) == (n, d, 2, "classification")


@pytest.mark.datasets(*PAIRS)
def test_pairs_are_the_training_part_as_stored(data_mirror):
    pixels, target = usps_part(data_mirror, "train")
    assert target.size == 7291
    for name, pair in PAIRS.items():
        ds = load_dataset(name)
        rows = np.flatnonzero(np.isin(target, pair))  # every such image, in file order
        np.testing.assert_array_equal(ds.X, pixels[rows])  # pixels as stored, in [0, 1]
        np.testing.assert_array_equal(ds.y, target[rows])
        assert ds.groups is None and ds.splits is None
        assert "TRAINING part" in ds.description and "states no scaling" in ds.description


@pytest.mark.datasets("usps-odd-even", "odd-even")
def test_odd_even_is_the_whole_test_part(data_mirror):
    pixels, target = usps_part(data_mirror, "test")
    ds = load_dataset("usps-odd-even")
    np.testing.assert_array_equal(ds.X, pixels)
    np.testing.assert_array_equal(ds.groups, target)
    assert ds.X.min() == 0 and ds.X.max() == 1 and len(np.unique(ds.X)) > 10  # not quantized
    assert all(y == ("odd" if g % 2 else "even") for y, g in zip(ds.y, ds.groups))
    assert counts(ds.groups) == {
        0: 359,
        1: 264,
        2: 198,
        3: 166,
        4: 200,
        5: 160,
        6: 170,
        7: 147,
        8: 166,
        9: 177,
    }  # Hull's test counts
    # the kernel self-consistent labeling substitute is another data set
    kscl = load_dataset("odd-even")
    assert kscl.X.shape == (2000, 196) and ds.X.shape == (2007, 256)
    for words in ("TEST part", "not 'odd-even'", "TRAINING", "not 'uspst'"):
        assert words in ds.description


# ---------------------------------------------------------------------------- SSL book


def test_sslbook_shapes_against_the_paper():
    """Tables 1-3 print the sizes of the SSL-book sets: all agree with the files but BCI's
    dimension (the paper's 241 is a misprint for 117), which its description says."""
    for name, (n, d) in SSLBOOK_IN_PAPER.items():
        entry = REGISTRY[name]
        assert entry.n == n
        assert entry.d == (117 if name == "bci" else d), name
    for name in ("bci", "bci-10", "bci-100"):
        assert "print 400 x 241, a misprint" in REGISTRY[name].description


# ---------------------------------------------------------------------------- WiFi


@pytest.mark.datasets("wifi")
def test_wifi_shape_targets_and_partition(data_mirror):
    import scipy.io

    ds = load_dataset("wifi")
    assert ds.task == "regression" and "regression" in repr(ds)
    assert ds.X.shape == (2642, 101) and ds.X.dtype == np.float64
    assert ds.y.shape == (2642, 2) and ds.y.dtype == np.float64 and np.all(np.isfinite(ds.y))
    assert ds.X.min() == -97 and ds.X.max() == 0 and np.all(ds.X == np.round(ds.X))
    np.testing.assert_array_equal(ds.y.min(axis=0), [0, 0])
    np.testing.assert_array_equal(ds.y.max(axis=0), [144, 36])
    # the file's partition: 505 'src' (labeled) rows first, then the 2137 'tar' rows
    assert len(ds.splits) == 1
    np.testing.assert_array_equal(ds.splits[0], np.arange(505))
    rec = scipy.io.loadmat(data_mirror / "wifi" / "wifi_icdm2007.mat")["dataset"][0, 0]
    np.testing.assert_array_equal(ds.X, np.vstack([rec["src_X"].T, rec["tar_X"].T]))
    np.testing.assert_array_equal(ds.y, np.vstack([rec["src_labels"], rec["tar_labels"]]))
    assert ds.groups is None
    entry = REGISTRY["wifi"]
    assert (entry.n, entry.d, entry.n_classes, entry.n_targets) == (2642, 101, 0, 2)


@pytest.mark.datasets("wifi")
def test_wifi_targets_are_checked(data_mirror, monkeypatch):
    from sskernels.data import registry

    entry = registry.REGISTRY["wifi"]
    monkeypatch.setitem(registry.REGISTRY, "wifi", replace(entry, n_targets=3))
    with pytest.raises(DataError, match=r"targets \(2642, 2\), registry says .* \(2642, 3\)"):
        load_dataset("wifi")

    def with_nan(path):
        parsed = entry.parse(path)
        y = parsed.y.copy()
        y[7, 1] = np.nan
        return Parsed(parsed.X, y, parsed.splits)

    monkeypatch.setitem(registry.REGISTRY, "wifi", replace(entry, parse=with_nan))
    with pytest.raises(DataError, match="1 NaN or infinite regression targets .*row 8, column 2"):
        load_dataset("wifi")


def test_regression_struct_parser_errors(tmp_path):
    import scipy.io

    path = tmp_path / "r.mat"
    good = {
        "a_X": np.ones((3, 4)),
        "a_y": np.zeros((4, 2)),
        "b_X": np.ones((3, 2)),
        "b_y": np.zeros((2, 2)),
    }
    scipy.io.savemat(path, {"s": good})
    parsed = parse_mat_regression(path, struct="s", parts=(("a_X", "a_y"), ("b_X", "b_y")))
    assert parsed.X.shape == (6, 3) and parsed.y.shape == (6, 2)
    np.testing.assert_array_equal(parsed.splits[0], np.arange(4))
    with pytest.raises(DataError, match="no field 'c_y'"):
        parse_mat_regression(path, struct="s", parts=(("a_X", "c_y"),))
    with pytest.raises(DataError, match="not a MATLAB struct"):
        scipy.io.savemat(path, {"s": np.ones(3)})
        parse_mat_regression(path, struct="s", parts=(("a_X", "a_y"),))
    scipy.io.savemat(path, {"s": {**good, "a_y": np.zeros((3, 2))}})
    with pytest.raises(DataError, match="one target row per sample"):
        parse_mat_regression(path, struct="s", parts=(("a_X", "a_y"),))
    scipy.io.savemat(path, {"s": {**good, "a_y": np.full((4, 2), np.inf)}})
    with pytest.raises(DataError, match="NaN or infinite targets"):
        parse_mat_regression(path, struct="s", parts=(("a_X", "a_y"),))


def test_a_classifier_on_a_regression_set_is_refused(tmp_path):
    """A regression data set takes regressors only (tests/test_wifi_regression.py: the rest)."""
    with pytest.raises(UserError) as err:  # before any data loads
        parse_spec({"dataset": "wifi", "methods": ["harmonic"]}, tmp_path / "w.yaml")
    msg = str(err.value)
    assert "\n" not in msg and "w.yaml" in msg and "field 'methods[0].name'" in msg, msg
    assert "regression" in msg and "harmonic-regression" in msg, msg


@pytest.mark.datasets("wifi")
def test_the_runner_refuses_a_regression_set_to_a_classification_spec(data_mirror, tmp_path):
    from sskernels.experiment.preparation import prepare

    # without the registry's names the spec cannot know the task: the runner checks it
    spec = parse_spec(
        {"dataset": "wifi", "methods": ["harmonic"]}, tmp_path / "w.yaml", check_names=False
    )
    with pytest.raises(
        UserError, match="field 'dataset'.*classification data set, got wifi .a regression"
    ):
        prepare(spec)


# ---------------------------------------------------------------------------- catalogue


def test_catalogue_and_datasets_list_show_them(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from sskernels.cli import app

    monkeypatch.delenv("SSKERNELS_DATA_MIRROR", raising=False)  # the list reads no data
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    infos = {i.name: i for i in list_datasets()}
    assert all(name in infos for name in WANG_NAMES)
    assert infos["wifi"].task == "regression" and infos["usps38"].task == "classification"
    res = CliRunner().invoke(app, ["datasets", "list"])
    assert res.exit_code == 0, res.output
    rows = {
        cells[1].strip(): [c.strip() for c in cells[2:]]
        for cells in (line.split("│") for line in res.output.splitlines())
        if len(cells) > 5
    }
    for name in WANG_NAMES:
        n, d, k = (2642, 101, "regression") if name == "wifi" else (*PAPER[name][:2], "2")
        assert rows[name][:3] == [str(n), str(d), k], (name, rows.get(name))
