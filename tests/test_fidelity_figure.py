"""scripts/fidelity_figure.py: paper against ours per cell, on a small results tree."""

import importlib.util
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("fidelity_figure",
                                              ROOT / "scripts" / "fidelity_figure.py")
fidelity = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fidelity)

COLS = ["table", "dataset", "setting", "method", "metric", "mean", "std", "n_splits",
        "paper_mean", "paper_std", "delta", "seconds", "notes"]


def write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows, columns=COLS).to_csv(path, index=False)


def test_counts_matched_cells_and_only_oracle_rows_where_a_table_has_them(tmp_path):
    # a: plain rows; 1 of 2 within the paper's std, a seconds row and a cell without a paper value
    write(tmp_path / "p1" / "t.csv", [
        ["p1", "d1", "s", "m", "accuracy", 80.0, 1.0, 10, 81.0, 1.5, -1.0, 0.1, ""],
        ["p1", "d2", "s", "m", "accuracy", 70.0, 1.0, 10, 75.0, 1.0, -5.0, 0.1, ""],
        ["p1", "d1", "s", "m", "seconds", 0.1, 0.0, 10, 9.0, None, None, 0.1, ""],
        ["p1", "d3", "s", "m", "accuracy", 60.0, 1.0, 10, None, None, None, 0.1, ""]])
    # b: an oracle row (matched) beside our row (not matched): only the oracle row counts
    write(tmp_path / "p2" / "u.csv", [
        ["p2", "d1", "s", "k", "error", 10.0, 1.0, 30, 5.0, 1.0, 5.0, 0.1, ""],
        ["p2", "d1", "s", "k (oracle: best test accuracy)", "error", 5.5, 1.0, 30, 5.0, 1.0,
         0.5, 0.1, ""]])
    # per-split and time files are skipped even in the schema
    write(tmp_path / "p2" / "u_time.csv", [
        ["p2", "d1", "s", "k", "seconds", 1.0, 0.0, 30, 2.0, 0.1, -1.0, 1.0, ""]])
    assert fidelity.main([str(tmp_path)]) == 0
    md = (tmp_path / "fidelity.md").read_text()
    assert "| p1/t | accuracy | std | 2 | 1 | 0 | 1 | -3 |" in md
    assert "| p2/u | error | std | 1 | 1 | 0 | 0 | +0.5 |" in md
    assert "u_time" not in md
    assert "In all: 2 of 3 cells matched, 0 beyond reach by a bound, 1 open." in md
    assert (tmp_path / "fidelity.png").stat().st_size > 10_000


def test_no_table_with_paper_values_is_one_line_and_exit_2(tmp_path, capsys):
    write(tmp_path / "p" / "t.csv", [
        ["p", "d", "s", "m", "accuracy", 1.0, 0.0, 1, None, None, None, 0.1, ""]])
    assert fidelity.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no summary CSV with paper values" in err[0]


def test_matched_as_the_summary_says_and_beyond_reach_from_a_bound_file(tmp_path):
    """A summary's own ``matched`` (a paper spread read as a standard error: |delta| 1.0 >
    se 0.5, not matched though within our std) wins over the std rule; a bound file's "beyond
    reach" verdict moves an unmatched cell from open to beyond reach (a matched cell stays
    matched)."""
    cols = COLS[:10] + ["paper_spread", "delta", "matched", "seconds", "notes"]
    rows = [["p1", "d1", "s", "m", "accuracy", 80.0, 1.0, 10, 81.0, 0.5, "se", -1.0, False,
             0.1, ""],
            ["p1", "d2", "s", "m", "accuracy", 70.0, 1.0, 10, 75.0, 1.0, "std", -5.0, False,
             0.1, ""],
            ["p1", "d3", "s", "m", "accuracy", 70.0, 1.0, 10, 70.5, 1.0, "std", -0.5, True,
             0.1, ""]]
    (tmp_path / "p1").mkdir()
    pd.DataFrame(rows, columns=cols).to_csv(tmp_path / "p1" / "t.csv", index=False)
    pd.DataFrame({"table": "p1", "dataset": ["d2", "d3"], "setting": "s", "method": "m",
                  "bound": [71.0, 72.0], "verdict": ["beyond reach", "beyond reach"]}).to_csv(
        tmp_path / "p1" / "t_bound.csv", index=False)
    assert fidelity.main([str(tmp_path)]) == 0
    md = (tmp_path / "fidelity.md").read_text()
    assert "| p1/t | accuracy | se/std | 3 | 1 | 1 | 1 | -1 |" in md
