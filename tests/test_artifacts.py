"""The graph store (``sskernels run --artifacts DIR``): graphs and spectra kept across runs."""

import json

import numpy as np
import yaml

from cli_helpers import run_cli
from sskernels import provenance
from sskernels.experiment import artifacts
from sskernels.experiment.artifacts import signature, using
from sskernels.experiment.runner import run_spec
from sskernels.experiment.tables.summary import _time_rows
from sskernels.graph import clear_cache
from sskernels.spec import parse_spec


def _spec(tmp_path, out):
    raw = {
        "name": "store",
        "dataset": "sklearn-wine",
        "preprocess": "minmax",
        "splits": {"n_splits": 2, "n_labeled": [10]},
        # a graph and its spectrum (SKL_KTA's eigenpairs are grown on the memoized graph)
        "methods": ["harmonic", {"name": "skl-kta", "params": {"n_components": 20}}],
        "output": str(tmp_path / out),
        # a paper time table, so that the summary has its "graph (Lap)" row
        "paper": {"time_table": "mao_tsang_table3_time_seconds", "dataset": "G50C"},
    }
    return parse_spec(raw, tmp_path / f"{out}.yaml")


def _stored(root):
    return sorted(p for p in root.rglob("*") if p.is_file())


def _graph_json(out):
    return json.loads((out / "graph_seconds.json").read_text())


def test_a_second_run_loads_the_graph_and_its_records_are_the_same(tmp_path):
    store = tmp_path / "store"
    clear_cache()
    with using(store):
        first = run_spec(_spec(tmp_path, "a"), progress=False)
    files = _stored(store)
    assert [p.suffix for p in files] == [".json", ".pkl"]  # one graph, spectrum inside
    note = _graph_json(tmp_path / "a")["artifacts"]
    assert note["loaded"] == [] and note["written"] == 1

    clear_cache()  # a new process as far as the memo knows
    with using(store):
        second = run_spec(_spec(tmp_path, "b"), progress=False, reuse=False)
    note = _graph_json(tmp_path / "b")["artifacts"]
    assert len(note["loaded"]) == 1 and note["written"] == 0
    assert note["loaded"][0]["built_seconds"] > 0
    assert _stored(store) == files  # nothing rewritten: the spectrum came with the graph
    cols = ["method", "split", "metric", "value"]
    a = first.sort_values(cols[:3])[cols].reset_index(drop=True)
    b = second.sort_values(cols[:3])[cols].reset_index(drop=True)
    assert len(a) == 4 and a.equals(b)
    # the table's warm-up row says where its graph came from
    (lap,) = [r for r in _time_rows(second, _spec(tmp_path, "b")) if r["method"] == "graph (Lap)"]
    assert "1 graph(s) loaded from the artifact store" in lap["notes"]


def test_without_a_store_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(artifacts.ENV, raising=False)
    clear_cache()
    run_spec(_spec(tmp_path, "a"), progress=False)
    assert "artifacts" not in _graph_json(tmp_path / "a")
    assert artifacts.store_dir() is None


def test_the_environment_variable_names_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv(artifacts.ENV, str(tmp_path / "env-store"))
    clear_cache()
    run_spec(_spec(tmp_path, "a"), progress=False)
    assert len(_stored(tmp_path / "env-store")) == 2


def test_the_signature_moves_with_the_graph_code_jobs_and_blas(monkeypatch):
    base = signature(1)
    assert signature(1) == base
    assert signature(2) != base  # the neighbour search's threads
    monkeypatch.setenv("OPENBLAS_CORETYPE", "SomethingElse")
    assert signature(1) != base
    monkeypatch.undo()
    real = provenance.code_modules

    def edited(modules, root=None):
        out = dict(real(modules, root))
        out["sskernels.graph.knn"] = "0" * 16  # an edit of the neighbour search
        return out

    monkeypatch.setattr(provenance, "code_modules", edited)
    assert signature(1) != base


def test_the_graph_package_and_its_imports_are_covered():
    modules = provenance.closure(artifacts._graph_modules())
    # every builder that memoizes a graph, and what they import
    for name in ("sskernels.graph.cache", "sskernels.graph.descent", "sskernels.graph.knn"):
        assert name in modules
    # and the k-NN searches behind knn_graph
    for name in ("sskernels.graph.exact", "sskernels.graph.search", "sskernels.graph.approximate"):
        assert name in modules
    assert "sskernels.graph.laplacian" in modules


def test_an_edit_of_the_graph_code_loads_nothing(tmp_path, monkeypatch):
    store = tmp_path / "store"
    clear_cache()
    with using(store):
        run_spec(_spec(tmp_path, "a"), progress=False)
    real = provenance.code_modules

    def edited(modules, root=None):
        out = dict(real(modules, root))
        out["sskernels.graph.laplacian"] = "f" * 16
        return out

    monkeypatch.setattr(provenance, "code_modules", edited)
    clear_cache()
    with using(store):
        run_spec(_spec(tmp_path, "b"), progress=False, reuse=False)
    note = _graph_json(tmp_path / "b")["artifacts"]
    assert note["loaded"] == [] and note["written"] == 1
    assert len(_stored(store)) == 4  # filed under the new signature beside the old


def test_the_store_is_outside_every_record_key():
    """Records never depend on the store: it is not in any method's code closure."""
    closure = provenance.closure(["sskernels.experiment.tasks", "sskernels.experiment.oracle"])
    assert "sskernels.experiment.artifacts" not in closure


def test_a_corrupt_stored_graph_is_refused_in_one_line(tmp_path):
    store = tmp_path / "store"
    spec = tmp_path / "a.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "store",
                "dataset": "sklearn-wine",
                "preprocess": "minmax",
                "splits": {"n_splits": 1, "n_labeled": [10]},
                "methods": ["harmonic"],
                "output": str(tmp_path / "out"),
            }
        )
    )
    clear_cache()
    code, _, err = run_cli(["run", spec, "--artifacts", store, "--no-progress"])
    assert code == 0, err
    (pkl,) = [p for p in _stored(store) if p.suffix == ".pkl"]
    data = bytearray(pkl.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pkl.write_bytes(bytes(data))
    clear_cache()
    code, _, err = run_cli(["run", spec, "--artifacts", store, "--no-progress", "--no-reuse"])
    # the records exist: the run has nothing to do and does not read the store
    assert code == 0, err
    import shutil

    shutil.rmtree(tmp_path / "out")
    code, _, err = run_cli(["run", spec, "--artifacts", store, "--no-progress"])
    assert code == 2
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and str(pkl) in lines[0] and "sha256" in lines[0]
    assert "Traceback" not in err


def test_stored_points_are_matched_by_content(tmp_path):
    """Other points (another preprocessing) find nothing of the first run's."""
    store = tmp_path / "store"
    clear_cache()
    with using(store):
        run_spec(_spec(tmp_path, "a"), progress=False)
        raw = {
            "name": "store2",
            "dataset": "sklearn-wine",
            "preprocess": "standardize",
            "splits": {"n_splits": 1, "n_labeled": [10]},
            "methods": ["harmonic"],
            "output": str(tmp_path / "c"),
        }
        clear_cache()
        run_spec(parse_spec(raw, tmp_path / "c.yaml"), progress=False, reuse=False)
    note = _graph_json(tmp_path / "c")["artifacts"]
    assert note["loaded"] == [] and note["written"] == 1
    assert np.unique([p.parent for p in _stored(store)]).size == 2
