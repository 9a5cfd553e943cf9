"""scripts/secstr_table.py (``make table-secstr``): the peer runs beside our spectrum and fits,
on a small analogue (wine: a graph spec and a scikit-learn peer spec).  Pipelining must not
change a number: the records are those of each spec run alone, and the table has its stage,
wall and memory rows."""

import importlib.util
import json
from pathlib import Path

import pandas as pd
import yaml

from sskernels.experiment.runner import run_spec
from sskernels.graph import clear_cache
from sskernels.spec import load_spec

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("secstr_table", ROOT / "scripts" / "secstr_table.py")
secstr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(secstr)


def _write(tmp, name, methods, graph=True):
    raw = {
        "name": name,
        "table": "scale-secstr",
        "dataset": "sklearn-wine",
        "preprocess": "minmax",
        "splits": {"n_splits": 3, "n_labeled": 20, "seed": 2},
        "methods": methods,
        "output": str(tmp / "runs" / name),
    }
    if graph:
        raw["graph"] = {"k": 6, "weights": "heat", "method": "exact"}
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _values(out):
    recs = {}
    for p in sorted((Path(out) / "records").rglob("split_*.json")):
        r = json.loads(p.read_text())
        recs[str(p.relative_to(out))] = (r["metrics"], r["selected"])
    return recs


def test_the_pipelined_table_has_the_numbers_of_each_spec_run_alone(tmp_path):
    ours = _write(
        tmp_path,
        "ours",
        [{"name": "harmonic"}, {"name": "skl-kta", "params": {"n_components": 20}}],
    )
    peer = _write(
        tmp_path,
        "peer",
        [{"name": "label-spreading", "params": {"kernel": "knn", "n_neighbors": 6}}],
        graph=False,
    )
    alone = tmp_path / "alone"
    alone.mkdir()
    for p in (ours, peer):
        clear_cache()
        s = load_spec(p)
        s.output = str(alone / s.name)
        run_spec(s, progress=False, reuse=False)
    clear_cache()
    out = tmp_path / "table" / "secstr"
    assert secstr.main([str(ours), str(peer), "--jobs", "2", "--out", str(out)]) == 0
    for name in ("ours", "peer"):
        assert _values(tmp_path / "runs" / name) == _values(alone / name)
    df = pd.read_csv(f"{out}.csv")
    rows = set(df.method)
    assert {
        "harmonic",
        "label-spreading",
        "stage: k-NN graph",
        "stage: spectrum",
        "wall time of the table, every spec (s)",
        "peak memory of the table run, all processes (MB)",
    } <= rows, rows
    peak = df[df.method == "peak memory of the table run, all processes (MB)"]["mean"].iloc[0]
    assert 50 < peak < 20000  # this process and its workers, summed
    # the run's graph record holds the graph built before the run plus its warm-up
    stages = json.loads((tmp_path / "runs" / "ours" / "stages.json").read_text())
    graph = json.loads((tmp_path / "runs" / "ours" / "graph_seconds.json").read_text())
    assert graph["seconds"] >= stages["graph_seconds"] * 0.99
    assert [s["k"] for s in graph["searches"]] == [6]
    md = Path(f"{out}.md").read_text()
    assert "run beside ours" in md
    # a second call computes nothing and keeps the recorded stages
    before = (tmp_path / "runs" / "ours" / "stages.json").read_text()
    assert secstr.main([str(ours), str(peer), "--jobs", "2", "--out", str(out)]) == 0
    assert (tmp_path / "runs" / "ours" / "stages.json").read_text() == before


def test_each_spec_reports_the_stages_of_its_own_graph(tmp_path):
    """The stage rows are read right after each spec's run: a later spec's graphs (which
    clear or evict the memo: the 1.27 M-point graph with SKL_KTA's spectrum is larger than
    the graph memo) must not replace an earlier spec's."""

    def ours(name, k):
        path = _write(tmp_path, name, [{"name": "harmonic"}])
        raw = yaml.safe_load(path.read_text())
        raw["graph"]["k"] = k
        path.write_text(yaml.safe_dump(raw))
        return path

    a, b = ours("six", 6), ours("nine", 9)
    clear_cache()
    out = tmp_path / "table" / "two"
    assert secstr.main([str(a), str(b), "--jobs", "1", "--out", str(out)]) == 0
    for name, k in (("six", 6), ("nine", 9)):
        stages = json.loads((tmp_path / "runs" / name / "stages.json").read_text())
        assert f"k = {k}," in stages["graph_detail"], stages["graph_detail"]


def test_a_spectrum_is_a_stage_only_of_specs_whose_methods_compute_one(tmp_path):
    # the 1.27 M-point graph loaded from the artifact store carries SKL_KTA's spectrum: the
    # main extra-points table (CG propagation, linear LapRLS) must not report it as its stage
    assert not secstr._needs_spectrum(load_spec(ROOT / "configs/scale/secstr_extra_100.yaml"))
    assert secstr._needs_spectrum(load_spec(ROOT / "configs/scale/secstr_extra_skl_100.yaml"))
    assert secstr._needs_spectrum(load_spec(_write(tmp_path, "tsk", ["tsk"])))
    assert not secstr._needs_spectrum(load_spec(_write(tmp_path, "hf", ["harmonic"])))


def test_a_graph_the_table_builds_goes_to_the_artifact_store(tmp_path):
    """The table builds its graphs before the run (to time the stage), so the run's warm-up
    finds them built and stores nothing unless a method grows them (a spectrum): a graph-only
    spec's graph must still reach ``--artifacts``, so the next table on the same points (the
    SKL_KTA table after the extra-points table) loads it instead of building it again."""
    spec = _write(tmp_path, "hf", [{"name": "harmonic"}])
    store = tmp_path / "store"
    clear_cache()
    argv = [str(spec), "--jobs", "1", "--out", str(tmp_path / "t"), "--artifacts", str(store)]
    assert secstr.main(argv) == 0
    assert len(list(store.rglob("*.pkl"))) == 1
    again = _write(tmp_path, "hf2", [{"name": "harmonic"}, {"name": "consistency"}])
    clear_cache()
    argv = [str(again), "--jobs", "1", "--out", str(tmp_path / "t2"), "--artifacts", str(store)]
    assert secstr.main(argv) == 0
    stages = json.loads((tmp_path / "runs" / "hf2" / "stages.json").read_text())
    assert "loaded from the artifact store" in json.dumps(stages)


def test_the_stage_notes_say_what_came_from_the_artifact_store(tmp_path):
    store = tmp_path / "store"

    def table(name, methods):
        clear_cache()
        spec = _write(tmp_path, name, methods)
        argv = [str(spec), "--jobs", "1", "--out", str(tmp_path / name), "--artifacts", str(store)]
        assert secstr.main(argv) == 0
        return json.loads((tmp_path / "runs" / name / "stages.json").read_text())

    skl = {"name": "skl-kta", "params": {"n_components": 20}}
    assert "warm_detail" not in table("built", [{"name": "harmonic"}])  # nothing loaded
    graph_only = table("graph", [{"name": "consistency"}])["warm_detail"]
    assert graph_only.startswith("graph loaded") and "spectrum" not in graph_only
    assert table("spectrum", [skl])["warm_detail"].endswith("the spectrum computed by this run")
    # other parameters: records of its own (a sibling's would be reused, with no warm-up)
    both = table("both", [{"name": "skl-kta", "params": {"n_components": 25}}])["warm_detail"]
    assert both.startswith("graph and spectrum loaded from the artifact store")
    # two specs sharing one graph, stored without a spectrum: the first computes it, and the
    # second finds it computed by this table, not loaded
    shared = tmp_path / "shared-store"
    clear_cache()
    argv = [str(_write(tmp_path, "g", [{"name": "harmonic"}])), "--jobs", "1"]
    assert secstr.main([*argv, "--out", str(tmp_path / "g"), "--artifacts", str(shared)]) == 0
    first = _write(tmp_path, "first", [{"name": "skl-kta", "params": {"n_components": 30}}])
    second = _write(tmp_path, "second", [{"name": "skl-kta", "params": {"n_components": 35}}])
    clear_cache()
    argv = [str(first), str(second), "--jobs", "1", "--share-graphs", "--artifacts", str(shared)]
    assert secstr.main([*argv, "--out", str(tmp_path / "two")]) == 0
    for name in ("first", "second"):
        stages = json.loads((tmp_path / "runs" / name / "stages.json").read_text())
        assert stages["warm_detail"].endswith("the spectrum computed by this run"), name


def test_a_spec_restored_from_its_archive_shows_its_recorded_wall_time_not_the_restore(tmp_path):
    import shutil

    from sskernels.experiment.archive import write_archive

    ours = _write(tmp_path, "ours", [{"name": "harmonic"}])
    peer = _write(
        tmp_path,
        "peer",
        [{"name": "label-spreading", "params": {"kernel": "knn", "n_neighbors": 6}}],
        graph=False,
    )
    out = tmp_path / "table" / "secstr"
    clear_cache()
    assert secstr.main([str(ours), str(peer), "--jobs", "1", "--out", str(out)]) == 0
    wall = "wall time of peer (s)"
    ran = pd.read_csv(f"{out}.csv").set_index("method")["mean"]

    def fresh_clone(keep_stages=True):  # the archives only
        for name in ("ours", "peer"):
            folder = tmp_path / "runs" / name
            if not keep_stages:
                (folder / "stages.json").unlink()
            write_archive(folder)
            for p in folder.iterdir():
                if not p.name.endswith(".records.jsonl.gz"):
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
        clear_cache()
        assert secstr.main([str(ours), str(peer), "--jobs", "1", "--out", str(out)]) == 0
        return pd.read_csv(f"{out}.csv").set_index("method")["mean"]

    restored = fresh_clone()
    assert restored[wall] == ran[wall] and restored["stage: k-NN graph"] == ran["stage: k-NN graph"]
    # an archive without the stages (made before they were kept): no wall time at all
    restored = fresh_clone(keep_stages=False)
    assert wall not in restored.index and "stage: k-NN graph" not in restored.index
    assert {"harmonic", "label-spreading"} <= set(restored.index)
