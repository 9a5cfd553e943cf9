"""Shared test fixtures.

Data: :func:`data_mirror_path` finds the folder of raw data files the way the README says
(``SSKERNELS_DATA_MIRROR`` if set, else ``<repo>/../shared/datasets``), and
:func:`require_data` makes a test that needs data sets fail under CI (``CI=true``) with a
message naming them, and skip elsewhere, when they are not there.
"""

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_moons
from threadpoolctl import ThreadpoolController

from sskernels.graph import clear_cache

REPO = Path(__file__).resolve().parents[1]
#: the mirror beside a clone, used when SSKERNELS_DATA_MIRROR is not set
DEFAULT_MIRROR = REPO.parent / "shared" / "datasets"
MIRROR_ENV = "SSKERNELS_DATA_MIRROR"
# read once, at start: fixtures (e.g. test_data.py's isolated cache) unset the variable
_MIRROR_ENV_AT_START = os.environ.get(MIRROR_ENV) or None


def data_mirror_path():
    """The data mirror folder, or None: ``$SSKERNELS_DATA_MIRROR`` (as set when the tests
    started; a relative path is taken from the working directory) if it is a folder, else
    ``<repo>/../shared/datasets`` if that is a folder."""
    candidates = [Path(_MIRROR_ENV_AT_START).expanduser()] if _MIRROR_ENV_AT_START else []
    for path in candidates + [DEFAULT_MIRROR]:
        if path.is_dir():
            return path.resolve()
    return None


def on_ci():
    return os.environ.get("CI") == "true"


def missing_data(message):
    """A test's data are not there: a failure under CI (``CI=true``), a skip elsewhere."""
    if on_ci():
        pytest.fail(f"{message} (CI=true: missing data fail the run)", pytrace=False)
    pytest.skip(message)


def _missing_files(mirror, name):
    """Registered files of data set ``name`` that cannot be read without a download."""
    from sskernels.data.cache import PackageFile, package_dir
    from sskernels.data.registry import get_entry

    missing = []
    for f in get_entry(name).files:
        if isinstance(f, PackageFile):
            root = package_dir(f.package)
            if root is None or not (root / f.path).is_file():
                missing.append(f"{f.path} of the Python package {f.package}")
        elif mirror is None or not (mirror / f.path).is_file():
            missing.append(f.path)
    return missing


def require_data(*datasets, who=None):
    """The data mirror folder (may be None when ``datasets`` need none), after checking that
    every registered file of ``datasets`` is there; otherwise :func:`missing_data`, naming the
    data sets and files.  Without ``datasets`` only the mirror folder itself is required."""
    mirror = data_mirror_path()
    where = (
        f"{MIRROR_ENV}={_MIRROR_ENV_AT_START!r} is not a folder and "
        if _MIRROR_ENV_AT_START
        else f"{MIRROR_ENV} is not set and "
    )
    where += f"{DEFAULT_MIRROR} does not exist"
    for_whom = f" (needed by {who})" if who else ""
    if not datasets:
        if mirror is None:
            missing_data(
                f"no data mirror: {where}; set {MIRROR_ENV} to a folder laid out like "
                f"shared/datasets{for_whom}"
            )
        return mirror
    gaps = {name: _missing_files(mirror, name) for name in dict.fromkeys(datasets)}
    gaps = {name: files for name, files in gaps.items() if files}
    if gaps:
        listed = "; ".join(f"{name} ({', '.join(files)})" for name, files in gaps.items())
        place = f"in the data mirror {mirror}" if mirror is not None else f"({where})"
        missing_data(f"data set(s) not available {place}: {listed}{for_whom}")
    return mirror


def _test_datasets(request):
    """The data sets a test names: ``@pytest.mark.datasets(...)``, or its ``name`` parameter
    when that is a registered data set."""
    from sskernels.data.registry import REGISTRY

    marker = request.node.get_closest_marker("datasets")
    if marker is not None:
        return tuple(marker.args)
    callspec = getattr(request.node, "callspec", None)
    name = callspec.params.get("name") if callspec is not None else None
    return (name,) if isinstance(name, str) and name in REGISTRY else ()


@pytest.fixture
def data_mirror(request, monkeypatch, tmp_path):
    """Read data from the mirror (:func:`data_mirror_path`) with a throw-away cache; a missing
    mirror or data set fails under CI and skips elsewhere (:func:`require_data`).  A test whose
    named data sets need no mirror file (bundled, package or synthetic data) runs without one
    (the fixture is then None)."""
    names = _test_datasets(request)
    mirror = require_data(*names, who=request.node.nodeid)
    if mirror is None and not (names and all(_without_mirror(n) for n in names)):
        mirror = require_data(who=request.node.nodeid)
    if mirror is not None:
        monkeypatch.setenv(MIRROR_ENV, str(mirror))
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    return mirror


def _without_mirror(name):
    """True when data set ``name`` needs no mirror file (bundled, package or synthetic data)."""
    from sskernels.data.cache import RemoteFile
    from sskernels.data.registry import get_entry

    return not any(isinstance(f, RemoteFile) for f in get_entry(name).files)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "datasets(*names): the registered data sets a test reads (named when they are missing)",
    )
    config.addinivalue_line(
        "markers",
        "regression: needs the versions behind the committed results (constraints/"
        "reproduce.txt): re-runs the first splits of the committed tables and compares them "
        "with results/*_splits.csv, or reads committed records whose keys hold those versions",
    )


#: why ``--dist loadgroup`` does not group this run (set on a worker), or absent
_LOADGROUP_BROKEN = pytest.StashKey[str]()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under ``--dist loadgroup`` (pyproject.toml's addopts), check that pytest-xdist grouped
    the tests marked ``xdist_group``: it tags each one's node id with ``@group`` on the worker,
    and pytest 9.2 drops the tag (pytest-xdist issue #1386), so every grouped test would run
    wherever it lands (the NN-descent tests then compile numba's code on both workers, about
    two CPU-minutes more) without a word.  The grouped tests then fail, naming the cause."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        marks = list(item.iter_markers("xdist_group"))
        names = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks}
        )
        if names and not item.nodeid.endswith("@" + "_".join(names)):
            config.stash[_LOADGROUP_BROKEN] = (
                f"--dist loadgroup did not group {item.nodeid} (xdist_group {names[0]!r}): "
                f"pytest {pytest.__version__} drops pytest-xdist's group tag (pytest-xdist issue "
                "#1386); install the test extra's versions: pip install -e '.[test]'"
            )
            return


@pytest.fixture(autouse=True)
def _grouped_tests_run_grouped(request):
    """A test marked ``xdist_group`` fails when ``--dist loadgroup`` did not group it
    (:func:`pytest_collection_modifyitems`)."""
    broken = request.config.stash.get(_LOADGROUP_BROKEN, None)
    if broken and next(request.node.iter_markers("xdist_group"), None) is not None:
        pytest.fail(broken, pytrace=False)


#: the loaded thread pools (BLAS, OpenMP), looked up again only when a module was imported
#: since the last look-up: a look-up (what ``threadpool_limits`` does on every call) walks
#: every loaded shared library, ~3 ms, and the suite has thousands of tests
_POOLS = {"controller": None, "modules": -1}


def _thread_pools():
    if _POOLS["modules"] != len(sys.modules):
        _POOLS.update(controller=ThreadpoolController(), modules=len(sys.modules))
    return _POOLS["controller"]


@pytest.fixture(autouse=True)
def _one_blas_thread_and_fresh_graphs():
    """Every test: one BLAS thread (2-core machines, reproducible timings) and an empty
    graph cache, so no test sees another's memoized graphs."""
    clear_cache()
    with _thread_pools().limit(limits=1):
        yield
    clear_cache()


@pytest.fixture(scope="session")
def moons_small():
    """80 noisy two-moons points, 6 labels per class, and 25 unseen points:
    ``(X, y, y_partial, labeled, X_new)``."""
    X, y = make_moons(80, noise=0.12, random_state=3)
    Xnew, _ = make_moons(25, noise=0.12, random_state=4)
    rng = np.random.default_rng(0)
    labeled = np.sort(
        np.concatenate([rng.choice(np.flatnonzero(y == c), 6, replace=False) for c in (0, 1)])
    )
    yp = np.full(y.size, -1)
    yp[labeled] = y[labeled]
    return X, y, yp, labeled, Xnew


@pytest.fixture
def sigint_not_ignored():
    """SIGINT handled (not ignored) in this process while a test sends a child Ctrl-C: a suite
    started as a background job of a non-interactive shell inherits SIGINT ignored, which every
    child would inherit too (the run would then finish instead of stopping at the Ctrl-C)."""
    import signal

    old = signal.getsignal(signal.SIGINT)
    if old == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)
