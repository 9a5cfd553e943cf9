"""Tests of the data layer: registry, mirror/cache/download, parsers, preprocessing.

Mirror-dependent tests use the ``data_mirror`` fixture (conftest.py), which points
``SSKERNELS_DATA_MIRROR`` at the data mirror (``$SSKERNELS_DATA_MIRROR`` as set when the tests
started, else ``../shared/datasets``); a missing mirror or data set (named by the test's
``datasets`` mark or ``name`` parameter) fails the test under CI (``CI=true``) and skips it
elsewhere.
Every test gets a throw-away cache, so nothing is written to the user's cache.
"""

import functools
import hashlib
import http.server
import threading
import time
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (makes sp.linalg available)
from sklearn.datasets import load_wine

from sskernels.data import (
    Dataset,
    dataset_names,
    fetch,
    list_datasets,
    load_dataset,
    load_file,
    preprocess,
)
from sskernels.data.cache import RemoteFile, fetch_file
from sskernels.data.registry import REGISTRY
from sskernels.errors import DataError, UnknownNameError

HEART_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/heart/heart.dat"

# Shapes and class counts as documented in shared/datasets/uci/SOURCES.md.
UCI_DOCUMENTED = {
    "heart": (270, 13, {1: 150, 2: 120}),
    "ionosphere": (351, 34, {"g": 225, "b": 126}),
    "sonar": (208, 60, {"M": 111, "R": 97}),
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


@pytest.fixture(autouse=True)
def isolated_cache(monkeypatch, tmp_path):
    """No mirror and an empty private cache unless a test asks for the mirror."""
    monkeypatch.delenv("SSKERNELS_DATA_MIRROR", raising=False)
    cache = tmp_path / "cache"
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(cache))
    return cache


def files_under(folder):
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def counts(y):
    return {k.item() if hasattr(k, "item") else k: v for k, v in Counter(y.tolist()).items()}


# ---------------------------------------------------------------------------- registered sets


@pytest.mark.parametrize("name", sorted(UCI_DOCUMENTED))
def test_uci_sets_have_documented_shape_and_class_counts(data_mirror, name):
    n, d, documented = UCI_DOCUMENTED[name]
    ds = load_dataset(name)
    assert isinstance(ds, Dataset) and ds.name == name
    assert ds.X.shape == (n, d) and ds.X.dtype == np.float64 and ds.y.shape == (n,)
    assert counts(ds.y) == documented
    assert ds.source.startswith("https://archive.ics.uci.edu/")


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_registered_set_loads_with_registered_size(data_mirror, name):
    entry, ds = REGISTRY[name], load_dataset(name)
    assert ds.X.shape == (entry.n, entry.d) and ds.task == entry.task
    if entry.task == "regression":  # float targets (n, k), no classes
        assert ds.y.shape == (entry.n, entry.n_targets) and np.all(np.isfinite(ds.y))
    else:
        assert len(np.unique(ds.y)) == entry.n_classes
    assert ds.source == entry.source


@pytest.mark.datasets("wine")
def test_wine_label_is_the_first_column(data_mirror):
    first = (data_mirror / "uci" / "wine.data").read_text().splitlines()[0].split(",")
    ds = load_dataset("wine")
    assert ds.y[0] == int(first[0])
    np.testing.assert_array_equal(ds.X[0], [float(v) for v in first[1:]])


@pytest.mark.datasets("yeast")
def test_yeast_drops_the_sequence_name(data_mirror):
    ds = load_dataset("yeast")
    np.testing.assert_array_equal(ds.X[0], [0.58, 0.61, 0.47, 0.13, 0.50, 0.00, 0.48, 0.22])
    assert ds.y[0] == "MIT"


def test_sklearn_wine_equals_load_wine():
    X, y = load_wine(return_X_y=True)
    ds = load_dataset("sklearn-wine")
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert ds.source == "sklearn.datasets.load_wine"
    assert fetch("sklearn-wine") == []


@pytest.mark.datasets("heart")
def test_heart_minmax_maps_each_column_to_unit_interval(data_mirror):
    X = load_dataset("heart", preprocess="minmax").X
    np.testing.assert_allclose(X.min(axis=0), 0.0)
    np.testing.assert_allclose(X.max(axis=0), 1.0)


@pytest.mark.datasets("g50c")
def test_g50c_official_splits_are_zero_based(data_mirror):
    ds = load_dataset("g50c")
    assert len(ds.splits) == 10
    for split in ds.splits:
        assert split.shape == (50,) and len(np.unique(split)) == 50
        assert split.min() >= 0 and split.max() < 550
    # SOURCES.md: split 1 labels 25 points per class (fails if indices were not shifted)
    assert counts(ds.y[ds.splits[0]]) == {-1: 25, 1: 25}


@pytest.mark.datasets("uspst", "pcmac")
def test_uspst_and_pcmac_splits_and_sparsity(data_mirror):
    uspst = load_dataset("uspst")
    # SOURCES.md: split 1 has 10/6/2/3/4/6/7/5/2/5 labelled points of digits 0..9
    assert [counts(uspst.y[uspst.splits[0]]).get(c, 0) for c in range(10)] == [
        10,
        6,
        2,
        3,
        4,
        6,
        7,
        5,
        2,
        5,
    ]
    pcmac = load_dataset("pcmac")
    assert sp.issparse(pcmac.X) and pcmac.X.format == "csr" and pcmac.X.shape == (1946, 7511)
    assert counts(pcmac.y) == {-1: 961, 1: 985}
    assert all(len(s) == 50 and s.max() < 1946 for s in pcmac.splits)


@pytest.mark.datasets("webkb-page", "webkb-link", "webkb")
def test_webkb_views(data_mirror):
    page, link, both = (load_dataset(n) for n in ("webkb-page", "webkb-link", "webkb"))
    assert (page.X.shape, link.X.shape, both.X.shape) == ((1051, 3000), (1051, 1840), (1051, 4840))
    np.testing.assert_array_equal(both.X, np.hstack([page.X, link.X]))
    assert both.views == {"page": (0, 3000), "link": (3000, 4840)}
    assert counts(both.y) == {1: 230, 2: 821}
    assert page.splits is None


@pytest.mark.datasets("heart", "webkb")
def test_catalogue_and_fetch(data_mirror, isolated_cache):
    infos = {i.name: i for i in list_datasets()}
    assert list(infos) == dataset_names()
    assert infos["heart"].cached and infos["sklearn-iris"].cached
    assert (infos["heart"].n, infos["heart"].d, infos["heart"].n_classes) == (270, 13, 2)
    assert fetch("webkb") == [data_mirror / "manifold" / "WebKB.mat"]
    assert files_under(isolated_cache) == []  # mirror files are read in place


def test_catalogue_without_local_copies():
    infos = {i.name: i for i in list_datasets()}
    assert not infos["heart"].cached and infos["sklearn-wine"].cached


def test_unknown_name_lists_known_names():
    with pytest.raises(UnknownNameError) as err:
        load_dataset("hearts")
    msg = str(err.value)
    assert "'hearts'" in msg and "heart" in msg and "sonar" in msg and "\n" not in msg


def test_unknown_preprocessing_is_rejected():
    with pytest.raises(UnknownNameError, match="minmax"):
        load_dataset("sklearn-iris", preprocess="zscore")


# ---------------------------------------------------------------------------- fetching


@pytest.mark.datasets("heart")
def test_corrupt_mirror_file_is_rejected(data_mirror, tmp_path, monkeypatch, isolated_cache):
    mirror = tmp_path / "mirror"
    (mirror / "uci").mkdir(parents=True)
    bad = mirror / "uci" / "heart.dat"
    data = bytearray((data_mirror / "uci" / "heart.dat").read_bytes())
    data[10] ^= 0x01
    bad.write_bytes(bytes(data))
    monkeypatch.setenv("SSKERNELS_DATA_MIRROR", str(mirror))
    with pytest.raises(DataError) as err:
        load_dataset("heart")
    msg = str(err.value)
    assert "sha256" in msg and str(bad) in msg
    assert REGISTRY["heart"].files[0].sha256 in msg and hashlib.sha256(data).hexdigest() in msg
    assert files_under(isolated_cache) == []


def test_no_mirror_no_network_fails_fast(monkeypatch, isolated_cache):
    """Fast = little work, counted (never timed): one request, with a connect timeout (where
    connections hang rather than being refused), no retry and no wait between attempts."""
    import requests.adapters

    # Route all traffic to a closed local port, so the test is offline even on a networked host.
    for var in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")
    timeouts, waits = [], []
    send = requests.adapters.HTTPAdapter.send

    def counted_send(self, request, *args, **kwargs):
        timeouts.append(kwargs.get("timeout"))
        return send(self, request, *args, **kwargs)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", counted_send)
    monkeypatch.setattr(time, "sleep", waits.append)  # a retry's wait: recorded, not waited
    with pytest.raises(DataError) as err:
        load_dataset("heart")
    assert len(timeouts) == 1 and waits == [], (timeouts, waits)
    connect = timeouts[0][0] if isinstance(timeouts[0], tuple) else timeouts[0]
    assert connect is not None and 0 < connect <= 15, timeouts
    msg = str(err.value)
    assert HEART_URL in msg and "SSKERNELS_DATA_MIRROR" in msg and "\n" not in msg
    assert files_under(isolated_cache) == []


@pytest.fixture
def local_server(tmp_path, monkeypatch):
    """A throw-away HTTP server on 127.0.0.1 serving tmp_path/www; yields (folder, base URL)."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    www = tmp_path / "www"
    www.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(www))
    )
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield www, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_download_is_verified_cached_and_reused_offline(local_server, isolated_cache):
    www, base = local_server
    payload = b"1 2 3\n4 5 6\n"
    (www / "t.dat").write_bytes(payload)
    rf = RemoteFile("uci/t.dat", f"{base}/t.dat", hashlib.sha256(payload).hexdigest())
    path = fetch_file(rf)
    assert path == isolated_cache / "uci" / "t.dat" and path.read_bytes() == payload
    (www / "t.dat").unlink()  # the server no longer has it: the cached copy must be used
    assert fetch_file(rf) == path


def test_download_with_wrong_checksum_leaves_nothing(local_server, isolated_cache):
    www, base = local_server
    (www / "t.dat").write_bytes(b"tampered\n")
    expected = hashlib.sha256(b"original\n").hexdigest()
    rf = RemoteFile("uci/t.dat", f"{base}/t.dat", expected)
    with pytest.raises(DataError) as err:
        fetch_file(rf)
    msg = str(err.value)
    assert rf.url in msg and expected in msg and hashlib.sha256(b"tampered\n").hexdigest() in msg
    assert files_under(isolated_cache) == []


def test_corrupt_cache_entry_is_replaced(local_server, isolated_cache):
    www, base = local_server
    (www / "t.dat").write_bytes(b"good\n")
    rf = RemoteFile("uci/t.dat", f"{base}/t.dat", hashlib.sha256(b"good\n").hexdigest())
    (isolated_cache / "uci").mkdir(parents=True)
    (isolated_cache / "uci" / "t.dat").write_bytes(b"bad\n")
    assert fetch_file(rf).read_bytes() == b"good\n"


# ---------------------------------------------------------------------------- users' files


def test_user_csv_with_named_label_column(tmp_path):
    path = tmp_path / "toy.csv"
    path.write_text("a,kind,b\n1.5,cat,2\n-3,dog,4e1\n0,cat,7\n")
    ds = load_file(path, label="kind")
    np.testing.assert_array_equal(ds.X, [[1.5, 2.0], [-3.0, 40.0], [0.0, 7.0]])
    assert ds.y.tolist() == ["cat", "dog", "cat"]
    assert ds.name == "toy" and ds.source == str(path)


def test_user_csv_label_defaults_to_last_column(tmp_path):
    path = tmp_path / "toy.csv"
    path.write_text("x1,x2,y\n1,2,0\n3,4,1\n")
    ds = load_file(path, preprocess="minmax")
    np.testing.assert_array_equal(ds.X, [[0.0, 0.0], [1.0, 1.0]])
    assert ds.y.tolist() == [0, 1] and ds.y.dtype.kind == "i"


def test_user_svmlight_stays_sparse(tmp_path):
    path = tmp_path / "toy.svm"
    path.write_text("1 1:0.5 3:2\n-1 2:1\n1 3:-1\n")
    ds = load_file(path)
    assert sp.issparse(ds.X) and ds.X.format == "csr"
    np.testing.assert_array_equal(ds.X.toarray(), [[0.5, 0, 2], [0, 1, 0], [0, 0, -1]])
    assert ds.y.tolist() == [1, -1, 1]


@pytest.mark.parametrize(
    "text, kwargs, expected",
    [
        ("a,b,c\n1,2,0\n", {"label": "klass"}, "no label column 'klass'"),
        ("a,b,c\n1,2,0\n3,oops,1\n", {}, "line 3, column 'b': expected a number, got 'oops'"),
        ("a,b,c\n1,2,0\n3,4\n", {}, "line 3: expected 3 fields, got 2"),
    ],
)
def test_bad_user_csv_names_path_and_problem(tmp_path, text, kwargs, expected):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataError) as err:
        load_file(path, **kwargs)
    assert str(path) in str(err.value) and expected in str(err.value)


def test_bad_user_files(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        load_file(tmp_path / "missing.csv")
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:0.5\nnot a line\n")
    with pytest.raises(DataError, match="bad.svm"):
        load_file(bad)
    with pytest.raises(DataError, match="format"):
        load_file(tmp_path / "data.xyz")


# ---------------------------------------------------------------------------- preprocessing


def test_preprocess_dense():
    X = np.array([[1.0, 5.0, 0.0], [3.0, 5.0, 4.0], [2.0, 5.0, 2.0]])
    mm = preprocess(X, "minmax")
    np.testing.assert_allclose(mm, [[0, 0, 0], [1, 0, 1], [0.5, 0, 0.5]])
    st = preprocess(X, "standardize")
    np.testing.assert_allclose(st.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(st.std(axis=0), [1, 0, 1])
    np.testing.assert_allclose(np.linalg.norm(preprocess(X, "l2"), axis=1), 1)
    np.testing.assert_array_equal(preprocess(X, "none"), X)
    sl = preprocess(X, "standardize-l2")  # unit rows of the standardized features
    norms = np.linalg.norm(st, axis=1, keepdims=True)  # row 3 is the mean: stays zero
    np.testing.assert_allclose(sl, np.divide(st, norms, out=np.zeros_like(st), where=norms > 0))
    assert np.all(sl[2] == 0) and np.allclose(np.linalg.norm(sl[:2], axis=1), 1)


def test_preprocess_sparse():
    X = sp.csr_matrix(np.array([[0.0, 2.0, 1.0], [4.0, 2.0, 3.0], [2.0, 2.0, 0.0]]))
    mm = preprocess(X, "minmax")
    assert sp.issparse(mm)
    np.testing.assert_allclose(mm.toarray(), preprocess(X.toarray(), "minmax"))
    np.testing.assert_allclose(sp.linalg.norm(preprocess(X, "l2"), axis=1), 1)
    with pytest.raises(DataError, match="standardize"):
        preprocess(X, "standardize")
    with pytest.raises(DataError, match="column 0"):
        preprocess(sp.csr_matrix(np.array([[-1.0], [0.0], [2.0]])), "minmax")
    with pytest.raises(UnknownNameError):
        preprocess(X, "zscore")
