"""``sskernels bench`` quotes every stage against floors measured in the same run
(the benchmark's floors): the floors are real measurements of the stated operations, and the
written table's ratios are the seconds divided by them."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import yaml
from typer.testing import CliRunner

from sskernels.cli import app
from sskernels.experiment import floors as F


def test_floors_of_a_small_and_a_large_sparse_set():
    rng = np.random.default_rng(0)
    small = F.floors(rng.normal(size=(300, 5)), k=6, repeats=2)
    assert small["n"] == 300
    assert all(small[k] > 0 for k in ("solve", "knn", "eigh"))
    # the full eigendecomposition costs more than one solve of the same size
    assert small["eigh"] > small["solve"]
    big = F.floors(
        sp.random(F.DENSE_MAX_N + 1, 20, density=0.1, format="csr", random_state=0), k=3, repeats=1
    )
    assert big["solve"] is None and big["eigh"] is None and big["knn"] > 0


def test_ratio():
    assert F.ratio(3.0, 1.5) == 2.0
    assert F.ratio(3.0, None) is None and F.ratio(3.0, 0.0) is None
    assert F.ratio(None, 1.0) is None


def test_bench_writes_stages_with_their_floors(tmp_path):
    raw = {
        "name": "bf",
        "dataset": "sklearn-wine",
        "preprocess": "minmax",
        "graph": {"k": 6},
        "splits": {"n_splits": 2, "n_labeled": 20, "seed": 1},
        "methods": [{"name": "harmonic"}, {"name": "svm", "params": {"C": 1.0}}],
    }
    path = tmp_path / "bf.yaml"
    path.write_text(yaml.safe_dump(raw))
    stem = tmp_path / "out" / "bench_bf"
    res = CliRunner().invoke(app, ["bench", str(path), "--out", str(stem)])
    assert res.exit_code == 0, res.output
    df = pd.read_csv(stem.with_suffix(".csv"))
    assert list(df["stage"]) == ["graph + spectrum (once per data set)", "harmonic", "svm"]
    assert (df["n"] == 178).all()
    fit = df[df["floor"] == "dense solve"]
    assert len(fit) == 2 and fit["floor_seconds"].nunique() == 1
    np.testing.assert_allclose(fit["ratio"], fit["seconds"] / fit["floor_seconds"], rtol=0.02)
    md = stem.with_suffix(".md").read_text()
    assert "| bf | 178 | harmonic |" in md and "dense solve" in md
    assert "× dense solve" in res.output


def test_bench_without_floors(tmp_path):
    raw = {
        "name": "nf",
        "dataset": "sklearn-wine",
        "graph": {"k": 6},
        "splits": {"n_splits": 1, "n_labeled": 20, "seed": 1},
        "methods": [{"name": "harmonic"}],
    }
    path = tmp_path / "nf.yaml"
    path.write_text(yaml.safe_dump(raw))
    res = CliRunner().invoke(
        app, ["bench", str(path), "--no-floors", "--out", str(tmp_path / "nf")]
    )
    assert res.exit_code == 0, res.output
    df = pd.read_csv(tmp_path / "nf.csv")
    assert df["ratio"].isna().all()


def test_bench_loads_each_data_set_once(tmp_path, monkeypatch):
    """The floors and the timed run share one prepared data set (it was loaded twice)."""
    from sskernels.experiment import preparation as prepare

    calls = []
    real = prepare.load_data
    monkeypatch.setattr(prepare, "load_data", lambda spec: calls.append(spec.name) or real(spec))
    raw = {
        "name": "once",
        "dataset": "sklearn-wine",
        "graph": {"k": 6},
        "splits": {"n_splits": 1, "n_labeled": 20, "seed": 1},
        "methods": [{"name": "harmonic"}],
    }
    path = tmp_path / "once.yaml"
    path.write_text(yaml.safe_dump(raw))
    res = CliRunner().invoke(app, ["bench", str(path), "--out", str(tmp_path / "once")])
    assert res.exit_code == 0, res.output
    assert calls == ["once"]


def test_run_spec_refuses_another_specs_preparation(tmp_path):
    from sskernels.experiment.preparation import prepare
    from sskernels.experiment.runner import run_spec
    from sskernels.spec import parse_spec

    def spec(name):
        return parse_spec(
            {
                "name": name,
                "dataset": "sklearn-wine",
                "graph": {"k": 6},
                "splits": {"n_splits": 1, "n_labeled": 20, "seed": 1},
                "methods": [{"name": "harmonic"}],
                "output": str(tmp_path / name),
            },
            tmp_path / f"{name}.yaml",
        )

    a, b = spec("a"), spec("b")
    with pytest.raises(ValueError, match="another spec"):
        run_spec(b, progress=False, prepared=prepare(a))
    rec = run_spec(a, progress=False, prepared=prepare(a))
    assert len(rec) == 1


def test_bench_compare_against_the_committed_records_of_the_same_splits(tmp_path):
    """--compare: each row's fresh seconds per split against the archived records of the same
    splits (whatever their keys); a row the archive lacks has no ratio."""
    import gzip
    import json

    raw = {
        "name": "cmp",
        "dataset": "sklearn-wine",
        "graph": {"k": 6},
        "splits": {"n_splits": 2, "n_labeled": 20, "seed": 1},
        "methods": [{"name": "harmonic"}],
        "output": str(tmp_path / "runs" / "cmp"),
    }
    path = tmp_path / "cmp.yaml"
    path.write_text(yaml.safe_dump(raw))
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(path), "--no-progress"]).exit_code == 0
    assert runner.invoke(app, ["archive", str(tmp_path / "runs" / "cmp")]).exit_code == 0
    archive = tmp_path / "runs" / "cmp.records.jsonl.gz"
    lines = [json.loads(line) for line in gzip.open(archive, "rt")]
    for rec in lines:  # committed: 1000 s on split 0, 10 s on split 1
        if "seconds" in rec and "split" in rec:
            rec["seconds"], rec["key"] = (1000.0 if rec["split"] == 0 else 10.0), "old code"
    with gzip.open(archive, "wt") as fh:
        fh.write("".join(json.dumps(rec) + "\n" for rec in lines))
    raw["methods"].append({"name": "svm", "params": {"C": 1.0}})  # not in the archive
    path.write_text(yaml.safe_dump(raw))
    res = runner.invoke(
        app,
        [
            "bench",
            str(path),
            "--no-floors",
            "--splits",
            "1",
            "--compare",
            "--out",
            str(tmp_path / "b"),
        ],
    )
    assert res.exit_code == 0, res.output
    df = pd.read_csv(tmp_path / "b.csv").set_index("stage")
    assert df.loc["harmonic", "committed_seconds"] == 1000.0
    assert df.loc["harmonic", "vs_committed"] == pytest.approx(
        df.loc["harmonic", "seconds"] / 1000.0, abs=1e-3
    )
    assert np.isnan(df.loc["svm", "committed_seconds"]) and np.isnan(df.loc["svm", "vs_committed"])
    assert "fresh ÷ committed" in res.output
    md = (tmp_path / "b.md").read_text()
    assert "÷ committed |" in md and "| 1000.0000 |" in md
