"""Documented alternative readings (``readings:``), ``select: oracle-mean`` and ``protocol:
paper`` in a spec; the paper-cell identity of the summary rows."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from sskernels.errors import SpecError
from sskernels.experiment.collect import best_on_average
from sskernels.experiment.tables import paper_cell
from sskernels.spec import load_spec

BASE = {
    "name": "w",
    "dataset": "sklearn-wine",
    "preprocess": "minmax",
    "graph": {"k": 6, "weights": "hein-maier"},
    "splits": {"protocol": "random", "n_splits": 3, "n_labeled": 12, "seed": 0},
    "methods": [
        {"name": "harmonic"},
        {"name": "consistency", "params": {"alpha": 0.9}},
        {
            "name": "svm",
            "label": "SVM (oracle: C best on average)",
            "paper": "SVM",
            "select": "oracle-mean",
            "protocol": "paper",
            "params": {"C_grid": [0.1, 1.0, 10.0]},
        },
    ],
    "readings": [
        {
            "name": "standardized",
            "quote": "The input features are normalized to range [0, 1].",
            "set": {"preprocess": "standardize"},
        },
        {
            "name": "binary",
            "quote": "k-NN graph using eq. (2)",
            "set": {"graph": {"weights": "binary"}},
            "methods": {"consistency": {"params": {"alpha": 0.5}}},
            "only": ["consistency"],
        },
    ],
}


def write(tmp_path, spec, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def test_a_reading_is_the_primary_spec_with_its_overlay(tmp_path):
    path = write(tmp_path, BASE)
    primary = load_spec(path)
    assert primary.reading is None and list(primary.readings) == ["standardized", "binary"]
    std = load_spec(path, reading="standardized")
    assert std.preprocess == "standardize" and std.graph == primary.graph
    assert std.name == "w.standardized" and std.output == primary.output + ".standardized"
    assert [m.label for m in std.methods] == [m.label for m in primary.methods]
    binary = load_spec(path, reading="binary")
    assert binary.graph.weights == "binary" and binary.graph.k == 6  # merged, not replaced
    assert [m.label for m in binary.methods] == ["consistency"]
    assert binary.methods[0].params == {"alpha": 0.5}
    assert primary.methods[1].params == {"alpha": 0.9}  # the primary untouched


def test_oracle_mean_and_protocol_paper_are_read(tmp_path):
    m = load_spec(write(tmp_path, BASE)).methods[2]
    assert (m.select, m.pick, m.protocol, m.paper) == ("oracle", "mean", "paper", "SVM")


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda s: s["readings"][0].pop("quote"), "readings[0].quote"),
        (lambda s: s["readings"][0].update(set={"methods": []}), "readings[0].set.methods"),
        (lambda s: s["readings"][1].update(only=["nope"]), "readings[1].only"),
        (
            lambda s: s["readings"][1].update(methods={"nope": {"params": {}}}),
            "readings[1].methods",
        ),
        (lambda s: s["readings"].append(dict(s["readings"][0])), "readings[2].name"),
        (lambda s: s["readings"].append({"name": "x", "quote": "q"}), "readings[2]"),
        (lambda s: s["methods"][0].update(protocol="ours"), "methods[0].protocol"),
        (lambda s: s["methods"][2].update(label="SVM best on average"), "methods[2].label"),
        (lambda s: s.update(metrics=["alignment"]), "methods[2].select"),
    ],
)
def test_a_bad_reading_or_selection_is_one_error_naming_the_field(tmp_path, change, field):
    import copy

    spec = copy.deepcopy(BASE)
    change(spec)
    with pytest.raises(SpecError) as err:
        load_spec(write(tmp_path, spec))
    assert field in str(err.value)


def test_an_unknown_reading_names_the_ones_the_spec_has(tmp_path):
    with pytest.raises(SpecError) as err:
        load_spec(write(tmp_path, BASE), reading="heat")
    assert "standardized" in str(err.value) and "binary" in str(err.value)


def test_a_whole_spec_may_be_one_reading(tmp_path):
    spec = {k: v for k, v in BASE.items() if k != "readings"}
    spec["reading"] = {"name": "raw-features", "quote": "normalized to range [0, 1]"}
    assert load_spec(write(tmp_path, spec)).reading == "raw-features"


def frame(accs, params):
    """Long records of one oracle-mean method: accuracy and error per split."""
    rows = []
    for split, acc in enumerate(accs):
        info = {"best_index": int(np.argmax(acc)), "params": params, "accuracy": list(acc)}
        for metric, value in (("accuracy", max(acc)), ("error", 100 - max(acc))):
            rows.append(
                {
                    "method": "M (oracle)",
                    "setting": "10 labeled",
                    "split": split,
                    "metric": metric,
                    "value": value,
                    "oracle": info,
                    "selected": {"C": params[info["best_index"]]["C"], "kernel_width_": 2},
                }
            )
    return pd.DataFrame(rows)


def test_oracle_mean_takes_the_candidate_best_on_average_not_each_splits_best():
    params = [{"C": 100.0}, {"C": 1.0}, {"C": 0.01}]
    accs = [[90.0, 80.0, 50.0], [60.0, 85.0, 50.0], [70.0, 84.0, 50.0]]
    # per split best: 90, 85, 84 (mean 86.3); best on average: C = 1 (83.0 vs 73.3)
    out = best_on_average(frame(accs, params), "M (oracle)")
    acc = out[out["metric"] == "accuracy"].sort_values("split")
    assert acc["value"].tolist() == [80.0, 85.0, 84.0]
    assert out[out["metric"] == "error"].sort_values("split")["value"].tolist() == [
        20.0,
        15.0,
        16.0,
    ]
    assert all(s["C"] == 1.0 and s["kernel_width_"] == 2 for s in out["selected"])
    # ties go to the first candidate in grid order
    tied = best_on_average(frame([[80.0, 80.0, 10.0]] * 2, params), "M (oracle)")
    assert {s["C"] for s in tied["selected"]} == {100.0}


def test_paper_cell_follows_a_declared_repeat_to_the_first_table():
    t1, n = paper_cell(
        "wang2015_table1_kernel_design", "usps49", "label_aware_ours", None, "accuracy"
    )
    t2, _ = paper_cell(
        "wang2015_table2_single_kernel", "usps49", "alignf_label_aware", None, "error"
    )
    assert t1 == t2 == "wang2015_table2_single_kernel|usps49|alignf_label_aware||error"
    assert n == 30
    own, n = paper_cell("liu2009_table3_uci_transductive_accuracy", "heart", "TSK", 20, "accuracy")
    assert own == "liu2009_table3_uci_transductive_accuracy|heart|TSK||accuracy" and n == 20
    assert (
        paper_cell("liu2009_table3_uci_transductive_accuracy", "heart", "nope", 20, "accuracy")[0]
        == ""
    )


def test_a_declared_repeat_whose_value_differs_is_an_error(monkeypatch):
    from sskernels.experiment.tables import paper as tables

    real = tables.paper_table

    def fake(name):
        df = real(name)
        if name == "wang2015_table1_kernel_design":
            df = df.copy()
            df.loc[df["method"] == "label_aware_ours", "mean"] += 1.0
        return df

    monkeypatch.setattr(tables, "paper_table", fake)
    with pytest.raises(ValueError, match="declared the same cell"):
        paper_cell("wang2015_table1_kernel_design", "usps49", "label_aware_ours", None, "error")


def test_run_reading_help_and_an_unknown_reading_exit_2(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "sskernels", "run", "--help"], capture_output=True, text=True
    )
    assert "--reading" in out.stdout
    path = write(tmp_path, BASE)
    out = subprocess.run(
        [sys.executable, "-m", "sskernels", "run", str(path), "--reading", "nope", "--no-progress"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "readings" in out.stderr
