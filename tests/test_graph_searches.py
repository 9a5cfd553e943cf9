"""How a run's graphs were searched is recorded with the run and shown in its time table
(the approximate graph's recall is reported, not only kept in memory)."""

import json

import numpy as np
import pytest

from sskernels.experiment.records import read_graph_searches, write_graph_seconds
from sskernels.experiment.runner import run_spec
from sskernels.experiment.tables import summarize, to_markdown
from sskernels.graph import clear_cache, get_graph, graph_searches, search_summary
from sskernels.spec import parse_spec


def _blobs(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(c, 1.0, size=(n // 2, 5)) for c in (0.0, 4.0)])


def test_searches_of_the_cached_graphs_of_one_data_set_only():
    clear_cache()
    X, other = _blobs(), _blobs(seed=1)
    get_graph(X, k=6, method="exact")
    get_graph(X, k=6, weights="heat", method="approximate")
    get_graph(other, k=6)
    s = graph_searches(X)
    assert [(e["weights"], e["method"]) for e in s] == [
        ("hein-maier", "exact"),
        ("heat", "hnswlib"),
    ]
    approx = s[1]
    assert 0.0 <= approx["recall"] <= 1.0 and 0.0 <= approx["edge_recall"] <= 1.0
    assert approx["recall_rows"] == X.shape[0]  # min(RECALL_SAMPLE, n)
    # the line a table shows says what the search was and how good it is
    line = search_summary(approx)
    assert "approximate" in line and f"recall {approx['recall']:.4f}" in line
    assert "edges per point" in line
    exact = search_summary(s[0])
    assert "exact" in exact and "recall" not in exact


def test_searches_round_trip_and_old_files_read_as_none(tmp_path):
    clear_cache()
    X = _blobs()
    get_graph(X, k=5, method="approximate")
    write_graph_seconds(tmp_path, 1.5, graph_searches(X))
    back = read_graph_searches(tmp_path)
    assert back == json.loads(json.dumps(graph_searches(X)))
    assert back[0]["k"] == 5 and back[0]["n"] == X.shape[0]
    (tmp_path / "graph_seconds.json").write_text('{"seconds": 2.0}')  # before this change
    assert read_graph_searches(tmp_path) == []
    assert read_graph_searches(tmp_path / "missing") == []


@pytest.mark.parametrize("method", ["exact", "approximate"])
def test_a_run_records_its_search_and_the_time_table_shows_it(tmp_path, method):
    clear_cache()
    spec = parse_spec(
        {
            "dataset": "sklearn-iris",
            "preprocess": "minmax",
            "graph": {"k": 6, "method": method},
            "splits": {"n_splits": 2, "n_labeled": 15, "seed": 0},
            "methods": [{"name": "harmonic"}],
            "paper": {
                "table": "mao_tsang_table2_accuracy",
                "time_table": "mao_tsang_table3_time_seconds",
                "dataset": "COIL2",
            },
            "output": str(tmp_path / "out"),
        },
        tmp_path / "iris.yaml",
    )
    summary = summarize(run_spec(spec, progress=False), spec)
    (search,) = read_graph_searches(tmp_path / "out")
    assert search["k"] == 6 and search["n"] == 150
    assert search["method"] == ("exact" if method == "exact" else "hnswlib")
    graph_row = summary[summary.method == "graph (Lap)"]
    assert len(graph_row) == 1
    note = graph_row.notes.iloc[0]
    assert note == search_summary(search)
    if method == "approximate":
        assert "recall" in note and search["recall"] is not None
    md = to_markdown(summary)
    assert "neighbour searches" in md and note in md


def test_each_spec_records_only_its_own_graphs(tmp_path):
    """Two specs on the same data with different graphs in one process: each run's record
    names its own search only, not the other spec's graph still in the cache."""
    clear_cache()

    def spec(k, name):
        return parse_spec(
            {
                "dataset": "sklearn-iris",
                "preprocess": "minmax",
                "graph": {"k": k, "method": "exact"},
                "splits": {"n_splits": 1, "n_labeled": 15, "seed": 0},
                "methods": [{"name": "harmonic"}],
                "output": str(tmp_path / name),
            },
            tmp_path / f"{name}.yaml",
        )

    run_spec(spec(6, "a"), progress=False)
    run_spec(spec(9, "b"), progress=False)
    assert [s["k"] for s in read_graph_searches(tmp_path / "a")] == [6]
    assert [s["k"] for s in read_graph_searches(tmp_path / "b")] == [9]
    # a graph already in the cache (built by an earlier spec) is still this spec's graph
    run_spec(spec(6, "c"), progress=False, reuse=False)
    assert [s["k"] for s in read_graph_searches(tmp_path / "c")] == [6]
    # and without keys every graph of the data set is listed (the old behaviour)
    from sskernels.experiment.preparation import prepare

    X = prepare(spec(6, "d")).X
    assert sorted(s["k"] for s in graph_searches(X)) == [6, 9]
