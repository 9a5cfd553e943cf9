"""The scale ladder's script (``make bench-scale``) on a small case: its stages run, and
``--merge`` re-runs one stage at one size without dropping that size's other stages."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def _ladder():
    spec = importlib.util.spec_from_file_location(
        "scale_ladder", REPO / "scripts" / "scale_ladder.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_merge_replaces_only_the_stages_that_ran(tmp_path):
    ladder = _ladder()
    out = tmp_path / "ladder"
    common = ["--data", "blobs", "--sizes", "400", "--out", str(out), "--timeout", "300"]
    assert ladder.main(common + ["--stages", "load,graph"]) == 0
    first = pd.read_csv(f"{out}.csv")
    assert set(zip(first["stage"], first["impl"])) == {
        ("load", "ours"),
        ("graph", "ours"),
        ("graph", "floor"),
    }
    assert (first["seconds"] >= 0).all() and (first["peak_mb"] > 0).all()
    graph_seconds = first.loc[first["stage"] == "graph", "seconds"].tolist()

    assert ladder.main(common + ["--stages", "load", "--merge"]) == 0
    merged = pd.read_csv(f"{out}.csv")
    # the graph rows of the first run stay, with their own seconds; load is the new run's
    assert sorted(merged["stage"]) == ["graph", "graph", "load"]
    assert merged.loc[merged["stage"] == "graph", "seconds"].tolist() == graph_seconds
    assert "graph (ours)" in Path(f"{out}.md").read_text()

    assert ladder.main(common + ["--stages", "load"]) == 0  # without --merge: replaced
    assert sorted(pd.read_csv(f"{out}.csv")["stage"]) == ["load"]
