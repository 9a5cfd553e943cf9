"""The Dask back end's label-independent work: the exact k-NN search's row
blocks as tasks on the cluster, from the driver or from a worker's task (bit-identical
graphs), and each spec's warm-up as a task on the cluster whose artifacts (graphs, spectra,
bases) stay there under their content keys, made once for every spec that uses them and
never computed on the driver.  Skipped when Dask's ``distributed`` cannot be imported.

The row-block tests search under ``pairwise_dist_chunk_size = 20`` (the least scikit-learn
allows, as tests/test_knn_parallel.py does): 320-row blocks, so 900 points make two blocks
(the default's 4,096-row blocks would need 8,192 points; tests/test_knn_parallel.py checks
that layout).  The configuration travels with the blocks: each runs under the caller's.
"""

import json
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import config_context

pytest.importorskip("distributed", reason="needs Dask's 'distributed' package")

from sskernels.experiment.dask_backend import DaskPool, artifact_name  # noqa: E402
from sskernels.experiment.runner import run_spec  # noqa: E402
from sskernels.experiment.worker import artifact_items, clear_artifact_caches  # noqa: E402
from sskernels.graph import knn as knn_mod  # noqa: E402
from sskernels.spec import parse_spec  # noqa: E402


@pytest.fixture(scope="module")
def pool():
    with DaskPool(2) as p:
        yield p


class Spy:
    """A block mapper that counts the blocks it hands to the pool."""

    def __init__(self, pool):
        self.pool, self.calls = pool, []

    def __call__(self, fn, shared, items, cfg):
        self.calls.append((fn.__name__, len(items)))
        return self.pool.block_map(fn, shared, items, cfg)


def _one_hot(n, positions=6, symbols=4, seed=0):
    """SecStr-like rows: one symbol per position, so distances take few values (ties)."""
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, symbols, size=(n, positions)) + symbols * np.arange(positions)
    return sp.csr_matrix(
        (np.ones(n * positions), cols.ravel(), np.arange(0, n * positions + 1, positions)),
        shape=(n, positions * symbols),
    )


#: scikit-learn's ``pairwise_dist_chunk_size`` of the row-block tests: blocks of 16 chunks,
#: 320 rows (module docstring)
CHUNK = 20
#: points of the row-block tests: two blocks (320 rows and the remaining 580)
N_POINTS = 900


@pytest.mark.parametrize("data", ["sparse ties", "dense"])
def test_row_blocks_on_the_cluster_give_the_local_graph(pool, data):
    if data == "dense":
        X = np.random.default_rng(1).standard_normal((N_POINTS, 5))
    else:
        X = _one_hot(N_POINTS)
    with config_context(pairwise_dist_chunk_size=CHUNK):
        local = knn_mod.knn_graph(X, k=6, method="exact", return_info=True)
        spy = Spy(pool)
        with knn_mod.search_mapper(spy):
            remote = knn_mod.knn_graph(X, k=6, method="exact", return_info=True)
    # more than one block went to the cluster (320-row blocks; the crowded rows' radius
    # pass too, in 256-row blocks, where there are ties)
    assert spy.calls and spy.calls[0] == ("_kneighbors_block", 2)
    if data == "sparse ties":
        assert local[3]["crowded"]["rows"] > 0
        assert ("_radius_block", -(-local[3]["crowded"]["rows"] // 256)) in spy.calls
    W0, W1 = local[0], remote[0]
    for a in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(W0, a), getattr(W1, a))
    assert np.array_equal(local[1], remote[1]) and local[2] == remote[2]


def test_one_block_stays_local(pool):
    spy = Spy(pool)
    X = np.random.default_rng(2).standard_normal((300, 4))
    with knn_mod.search_mapper(spy):
        knn_mod.knn_graph(X, k=5, method="exact")
    assert spy.calls == []


def _spec(tmp_path, name, methods, k=6):
    return parse_spec(
        {
            "name": name,
            "dataset": "sklearn-wine",
            "preprocess": "minmax",
            "graph": {"k": k},
            "splits": {"n_splits": 3, "n_labeled": 20, "seed": 3},
            "methods": methods,
            "output": str(tmp_path / name),
        },
        tmp_path / f"{name}.yaml",
    )


def _metrics(out):
    return {
        p.name + p.parent.name: json.loads(p.read_text())["metrics"]
        for p in sorted(out.rglob("split_*.json"))
    }


def _driver_artifacts():
    """This process's artifact caches (graphs, spectra, bases), as counts per module."""
    return {m: len(items) for m, items in artifact_items().items()}


TSK = {"name": "tsk", "params": {"n_components": 10, "eta": 2, "beta": 1.0}}


def test_warm_ups_run_on_the_cluster_and_share_their_artifacts(pool, tmp_path):
    a = [{"name": "harmonic"}, TSK]
    b = [{"name": "consistency"}, TSK]
    clear_artifact_caches()
    for name, methods in (("a", a), ("b", b)):
        run_spec(_spec(tmp_path / "local", name, methods), progress=False, reuse=False)
    local = _driver_artifacts()
    assert local["sskernels.graph.cache"] == 1  # one graph (with its spectrum) locally
    clear_artifact_caches()
    made0 = pool.artifacts_made
    run_spec(_spec(tmp_path, "a", a), progress=False, reuse=False, workers=pool)
    first = pool.artifacts_made - made0
    assert first >= 1  # the graph with its spectrum
    run_spec(_spec(tmp_path, "b", b), progress=False, reuse=False, workers=pool)
    assert pool.artifacts_made - made0 == first  # the same graph and spectrum: none made
    # nothing of the warm-ups was computed here, and the cluster holds what was made
    assert _driver_artifacts() == {m: 0 for m in local}
    assert [m for m, _, _ in pool.artifacts()] == ["sskernels.graph.cache"]
    for name in ("a", "b"):
        assert _metrics(tmp_path / name) == _metrics(tmp_path / "local" / name)
        seconds = json.loads((tmp_path / name / "graph_seconds.json").read_text())
        local_seconds = json.loads((tmp_path / "local" / name / "graph_seconds.json").read_text())
        # the graph's search report comes back from the warm-up task (timings aside)
        assert [{k: v for k, v in s.items() if k != "seconds"} for s in seconds["searches"]] == [
            {k: v for k, v in s.items() if k != "seconds"} for s in local_seconds["searches"]
        ]
        assert seconds["seconds"] > 0


def test_a_graph_whose_spectrum_grew_is_a_new_artifact(pool, tmp_path):
    # the harmonic function needs the graph only, TSK its spectrum too
    small, large = [{"name": "harmonic"}], [TSK]
    clear_artifact_caches()
    # another graph than the other tests' (k = 7): the pool holds their cache state
    for name, methods in (("s", small), ("l", large)):
        run_spec(_spec(tmp_path / "local", name, methods, k=7), progress=False, reuse=False)
    clear_artifact_caches()
    run_spec(_spec(tmp_path, "s", small, k=7), progress=False, reuse=False, workers=pool)
    ((_, key, fut_small),) = [a for a in pool.artifacts() if a[1][1] == 7]
    assert fut_small.result().state_token() is None
    made = pool.artifacts_made
    run_spec(_spec(tmp_path, "l", large, k=7), progress=False, reuse=False, workers=pool)
    ((_, key_large, fut_large),) = [a for a in pool.artifacts() if a[1][1] == 7]
    # the same graph (memo key) with its spectrum: made once more, the old one released
    assert key_large == key and fut_large.key != fut_small.key
    assert pool.artifacts_made == made + 1
    assert fut_small.key not in pool._artifacts
    g = fut_large.result()
    assert g.state_token() is not None
    assert artifact_name("sskernels.graph.cache", key, g) == fut_large.key
    for name in ("s", "l"):
        assert _metrics(tmp_path / name) == _metrics(tmp_path / "local" / name)


def _graph_in_a_worker_task(X):
    """Run on a worker: the exact k-NN graph with its row blocks submitted from the task
    (the warm-up task's mapper), and the blocks it handed out; 320-row blocks
    (:data:`CHUNK`)."""
    from sklearn import config_context

    from sskernels.experiment.dask_backend import _worker_blocks
    from sskernels.graph import knn

    calls = []

    def spy(fn, shared, items, cfg):
        calls.append((fn.__name__, len(items)))
        return _worker_blocks(fn, shared, items, cfg)

    with config_context(pairwise_dist_chunk_size=CHUNK), knn.search_mapper(spy):
        W, h, sigma, _ = knn.knn_graph(X, k=6, method="exact", return_info=True)
    return W, h, sigma, calls


def test_row_blocks_submitted_from_a_worker_task_give_the_local_graph(pool):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers lack tests/
    X = _one_hot(N_POINTS, seed=5)
    with config_context(pairwise_dist_chunk_size=CHUNK):
        W0, h0, s0, info = knn_mod.knn_graph(X, k=6, method="exact", return_info=True)
    assert info["crowded"]["rows"] > 0  # ties: the radius pass runs too
    W1, h1, s1, calls = pool.client().submit(_graph_in_a_worker_task, X, pure=False).result()
    assert calls and calls[0] == ("_kneighbors_block", 2)
    for a in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(W0, a), getattr(W1, a))
    assert np.array_equal(h0, h1) and s0 == s1


def test_the_local_cluster_leaves_this_process_environment_as_it_was():
    """Dask's nannies write OMP_NUM_THREADS=1, PYTHONHASHSEED, ... into the driver's
    environment; a later subprocess of the driver (or of the test session: the Ctrl-C tests
    ran with them and failed) must get the driver's own."""
    import os

    before = dict(os.environ)
    with DaskPool(1) as p:
        p.client()
        assert dict(os.environ) == before
    assert dict(os.environ) == before


def _die(shared, item):
    """A row block whose worker process dies (a machine lost mid-search)."""
    import os

    os._exit(3)


def test_a_row_block_whose_workers_die_is_one_line_not_a_traceback():
    """block_map's failures read like a task's (DaskRunError, exit code 1): KilledWorker from
    the gather of the row blocks used to escape as a Dask traceback."""
    import cloudpickle
    import dask
    import sys

    from sskernels.experiment.dask_backend import DaskRunError

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/
    try:
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}), DaskPool(1) as p:
            with pytest.raises(DaskRunError) as err:
                p.block_map(_die, np.zeros(3), [0, 1], {})
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    msg = str(err.value)
    assert "row blocks" in msg and "died" in msg and "KilledWorker" in msg and "rerun" in msg
    assert "\n" not in msg and err.value.exit_code == 1
