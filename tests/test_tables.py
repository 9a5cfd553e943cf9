"""Summaries: the notes column and its footnotes, the provenance header, and the per-split
files written beside every combined table (``STEM_splits.csv``)."""

import csv
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from sskernels.cli import app
from sskernels.experiment.tables import (
    SCHEMA,
    SPLITS_SCHEMA,
    read_splits,
    split_notes,
    split_rows,
    summarize,
    to_markdown,
    write_splits,
    write_table,
)
from sskernels.spec import parse_spec

FALLBACK = "fallback: svm-dual highs->libsvm (time limit)"
DEGENERATE = "degenerate: constant prediction"


def _spec(tmp_path, **extra):
    raw = {
        "dataset": "sklearn-wine",
        "methods": ["harmonic", "tsk"],
        "table": "t1",
        "output": str(tmp_path / "out"),
        **extra,
    }
    return parse_spec(raw, tmp_path / "spec.yaml")


def _records(notes_by_split, method="tsk", n=4, with_report=True):
    rows = []
    for i in range(n):
        rec = {
            "table": "t1",
            "dataset": "wine",
            "setting": "20 labeled",
            "method": method,
            "paper": method,
            "split": i,
            "seconds": 0.01,
            "n_labeled": 20,
            "order": 0,
        }
        if with_report:
            rec["report"] = {"solvers": ["highs-lp"], "notes": notes_by_split.get(i, [])}
        for metric, value in (("accuracy", 70.0 + i), ("inductive accuracy", 60.0 + i)):
            rows.append({**rec, "metric": metric, "value": value})
    return pd.DataFrame(rows)


def test_notes_count_the_splits_each_note_fired_in(tmp_path):
    spec = _spec(tmp_path)
    rec = _records({0: [FALLBACK], 2: [FALLBACK, DEGENERATE], 3: [FALLBACK, FALLBACK]})
    df = summarize(rec, spec)
    assert list(df.columns) == SCHEMA
    assert set(df["notes"]) == {f"{FALLBACK} x3/4; {DEGENERATE} x1/4"}
    assert split_notes(df["notes"].iloc[0]) == [f"{FALLBACK} x3/4", f"{DEGENERATE} x1/4"]


def test_se_is_the_standard_error_of_the_mean_and_shown_in_markdown(tmp_path):
    """``se = std / sqrt(n)`` (std with ddof = 1), one split: 0; the Markdown cell shows it."""
    spec = _spec(tmp_path)
    df = summarize(_records({}, n=4), spec)
    acc = df[df["metric"] == "accuracy"].iloc[0]
    vals = 70.0 + np.arange(4)
    assert acc["std"] == pytest.approx(round(np.std(vals, ddof=1), 2))
    assert acc["se"] == pytest.approx(round(np.std(vals, ddof=1) / 2.0, 2))
    assert f"71.50 ± {acc['std']:.2f}, se {acc['se']:.2f}" in to_markdown(df, header="")
    one = summarize(_records({}, n=1), spec)
    assert (one["se"] == 0).all() and ", se" not in to_markdown(one, header="")


def test_records_without_a_report_have_no_notes(tmp_path):
    spec = _spec(tmp_path)
    assert set(summarize(_records({}, with_report=False), spec)["notes"]) == {""}
    assert set(summarize(_records({}), spec)["notes"]) == {""}
    # a mix: records written before reports existed count as no notes
    rec = _records({1: [DEGENERATE]})
    rec.loc[rec["split"] == 0, "report"] = None
    assert set(summarize(rec, spec)["notes"]) == {f"{DEGENERATE} x1/4"}


def test_markdown_has_the_header_and_footnotes(tmp_path):
    spec = _spec(tmp_path)
    rec = pd.concat([_records({2: [FALLBACK]}), _records({}, method="harmonic")])
    df = summarize(rec, spec)
    md = to_markdown(df, "T", header="sskernels 9.9 · code abcd")
    lines = md.splitlines()
    assert lines[0] == "# T" and "Produced by sskernels 9.9 · code abcd" in lines[2]
    tsk_row = next(line for line in lines if line.startswith("| tsk |"))
    harmonic_row = next(line for line in lines if line.startswith("| harmonic |"))
    assert tsk_row.endswith("[1] |") and "[" not in harmonic_row
    assert f"- [1] tsk, wine: {FALLBACK} (in 1 of 4 splits)" in lines
    # the inductive table of the same records refers to the same note
    assert md.count("- [1] tsk, wine") == 2 and "[2]" not in md


def test_default_header_is_the_provenance_line(tmp_path):
    provenance = pytest.importorskip("sskernels.provenance")
    df = summarize(_records({}), _spec(tmp_path))
    assert f"Produced by {provenance.summary_header()}" in to_markdown(df, "T")


def test_written_table_has_the_notes_column_and_reads_back(tmp_path):
    spec = _spec(tmp_path)
    df = summarize(_records({0: [FALLBACK]}), spec)
    write_table(df, str(tmp_path / "x"))
    back = pd.read_csv(tmp_path / "x.csv")
    assert list(back.columns) == SCHEMA
    assert back["notes"].tolist() == [f"{FALLBACK} x1/4"] * 2
    # the existing readers select columns by name: the ranks script's view still works
    acc = back[back["metric"] == "accuracy"]
    assert acc[["dataset", "setting", "method", "mean"]].shape == (1, 4)


def test_split_rows_keep_full_precision_and_leave_times_out(tmp_path):
    spec = _spec(tmp_path)
    rec = _records({})
    rec.loc[0, "value"] = 100.0 * 2 / 3
    rec = pd.concat([rec, rec.iloc[:1].assign(metric="seconds", value=0.5)])
    rows = split_rows(rec, spec)
    assert list(rows.columns) == SPLITS_SCHEMA and "seconds" not in set(rows["metric"])
    assert len(rows) == 8 and set(rows["table"]) == {"t1"}
    path = write_splits(rows, str(tmp_path / "x"))
    assert path == f"{tmp_path / 'x'}_splits.csv"
    back = read_splits(path)
    assert back["value"].iloc[0] == 100.0 * 2 / 3  # bit for bit
    pd.testing.assert_frame_equal(back, rows)
    assert write_splits(rows, str(tmp_path / "y"), metrics=["seconds"]) is None
    assert not (tmp_path / "y_splits.csv").exists()


WINE = """\
name: wine_small
table: wine-t
dataset: sklearn-wine
preprocess: minmax
graph: {{k: 6, weights: hein-maier}}
splits: {{protocol: random, n_splits: 2, n_labeled: 20, seed: 0}}
methods: [harmonic, {{name: consistency, params: {{alpha: 0.99}}}}]
output: {output}
"""


def test_run_table_and_table_command_write_the_same_splits_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    spec = tmp_path / "wine.yaml"
    spec.write_text(WINE.format(output=tmp_path / "out"))
    cli = CliRunner()
    res = cli.invoke(
        app,
        ["run", str(spec), "--no-progress", "--table", str(tmp_path / "t"), "--metric", "accuracy"],
    )
    assert res.exit_code == 0, res.output
    with open(tmp_path / "t_splits.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == SPLITS_SCHEMA and len(rows) == 4
    for r in rows:
        label = "harmonic" if r["method"] == "harmonic" else "consistency"
        rec = json.loads(
            (
                tmp_path
                / "out"
                / "records"
                / label
                / "20_labeled"
                / f"split_{int(r['split']):03d}.json"
            ).read_text()
        )
        assert float(r["value"]) == rec["metrics"]["accuracy"]
        assert (r["table"], r["dataset"], r["setting"], r["metric"]) == (
            "wine-t",
            "sklearn-wine",
            "20 labeled",
            "accuracy",
        )
    summary = pd.read_csv(tmp_path / "t.csv")
    means = pd.DataFrame(rows).astype({"value": float}).groupby("method")["value"].mean()
    np.testing.assert_allclose(
        summary.set_index("method")["mean"], means[summary["method"]], atol=0.0051
    )
    res = cli.invoke(
        app, ["table", str(spec), "-o", str(tmp_path / "again"), "--metric", "accuracy"]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "again_splits.csv").read_text() == (tmp_path / "t_splits.csv").read_text()
    # a table of times only has no per-split file
    res = cli.invoke(
        app, ["table", str(spec), "-o", str(tmp_path / "times"), "--metric", "seconds"]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "times.csv").is_file() and not (tmp_path / "times_splits.csv").exists()


def test_paper_spread_is_read_per_row_and_matched_uses_it(tmp_path):
    """Liu et al.'s Table 3: the kernel machines' ± reads as a standard error, the
    transductive rows' as a std (the paper table's ``spread`` column); ``matched`` is
    ``|delta| <= paper_std`` as printed, the Markdown marks an se and a match."""
    from sskernels.experiment.tables import paper_spread

    liu = "liu2009_table3_uci_transductive_accuracy"
    assert paper_spread(liu, "heart", "TSK+SVM", None, "accuracy") == "se"
    assert paper_spread(liu, "heart", "LapSVM", None, "accuracy") == "se"
    assert paper_spread(liu, "heart", "TSK", None, "accuracy") == "std"
    assert paper_spread(liu, "heart", "no such method", None, "accuracy") == ""
    wang = "wang2015_table2_single_kernel"
    assert paper_spread(wang, "BCI", "alignf_label_aware", None, "accuracy") == "std"
    spec = parse_spec(
        {
            "dataset": "sklearn-wine",
            "methods": [
                {"name": "tsk", "label": "TSK"},
                {"name": "kernel-svm", "label": "TSK+SVM", "params": {"kernel": "tsk"}},
            ],
            "paper": {"table": liu, "dataset": "wine"},
            "output": str(tmp_path / "o"),
        },
        tmp_path / "spec.yaml",
    )
    # paper wine: TSK 72.28 ± 1.24 (std), TSK+SVM 96.34 ± 0.33 (se)
    rec = pd.concat([_records({}, method="TSK"), _records({}, method="TSK+SVM")])
    rec["value"] = np.where(
        rec["method"] == "TSK",
        rec["value"] + 2.5,  # mean 74.0
        rec["value"] + 25.5,
    )  # mean 97.0
    rec["dataset"] = "wine"
    df = summarize(rec, spec)
    acc = df[df["metric"] == "accuracy"].set_index("method")
    assert acc.loc["TSK", "paper_spread"] == "std" and acc.loc["TSK+SVM", "paper_spread"] == "se"
    assert acc.loc["TSK", "delta"] == pytest.approx(1.72)  # 74.0 - 72.28 > 1.24
    assert not acc.loc["TSK", "matched"]
    assert acc.loc["TSK+SVM", "delta"] == pytest.approx(0.66)  # 97.0 - 96.34 > 0.33 (se)
    assert not acc.loc["TSK+SVM", "matched"]
    rec.loc[rec["method"] == "TSK+SVM", "value"] -= 0.5  # 96.5: |0.16| <= 0.33
    acc = summarize(rec, spec).query("metric == 'accuracy'").set_index("method")
    assert acc.loc["TSK+SVM", "matched"]
    md = to_markdown(summarize(rec, spec), header="")
    assert "(96.34 ± 0.33 se, Δ +0.16 ✓)" in md and "(72.28 ± 1.24, Δ +1.72)" in md
    # no paper value: neither spread nor matched
    assert set(df[df["metric"] == "inductive accuracy"]["matched"]) <= {"", True, False}
