"""scripts/wang2015_claims.py on a synthetic table: each selection's counts, with the rows of
Sec. 4.3.2's protocol missing on a data set (as COIL's local Rademacher rows are).  No data
and no run needed."""

import importlib.util
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "wang2015_claims", ROOT / "scripts" / "wang2015_claims.py"
)
claims = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(claims)


def _table():
    """Three data sets; on C the Sec. 4.3.2 rows are missing.  Errors (better, worse):
    ours A (1, 2) B (3, 2) C (1, 2); oracle all better; Sec. 4.3.2 A better, B worse;
    paper all better.  Alignment higher for the better row everywhere but ours on A."""
    rows = []

    def add(ds, method, error, alignment, paper=(None, None)):
        for metric, value, pv in (("error", error, paper[0]), ("alignment", alignment, paper[1])):
            rows.append(
                {
                    "dataset": ds,
                    "method": method,
                    "metric": metric,
                    "mean": value,
                    "paper_mean": pv,
                    "paper_std": 0.5,
                }
            )

    for ds, ours, sec in (("A", (1, 2), (1, 2)), ("B", (3, 2), (4, 2)), ("C", (1, 2), None)):
        add(ds, "good", ours[0], 0.1 if ds == "A" else 0.9, paper=(1.0, 0.9))
        add(ds, "bad", ours[1], 0.5, paper=(2.0, 0.5))
        add(ds, "good" + claims.ORACLE, 1.0, 0.9, paper=(1.0, 0.9))
        add(ds, "bad" + claims.ORACLE, 2.0, 0.5, paper=(2.0, 0.5))
        if sec is not None:
            add(ds, "good" + claims.SEC432, sec[0], 0.9, paper=(1.0, 0.9))
            add(ds, "bad" + claims.SEC432, sec[1], 0.5, paper=(2.0, 0.5))
    return pd.DataFrame(rows)


def test_each_selection_is_counted_on_the_data_sets_that_have_its_rows():
    summary, lines = claims.compare(_table(), "good", "bad", "T")
    assert summary == (
        "T: error lower on 2 / 3 / 1 (of 2) / 3 of 3 data sets "
        "(ours / oracle / Sec. 4.3.2 / paper), alignment higher on 2 / 3 / 2 (of 2) / 3."
    )
    row_c = next(line for line in lines if line.startswith("| C |"))
    assert row_c.count("–") == 2  # no Sec. 4.3.2 rows on C: error and alignment


def test_cells_within_the_paper_std_are_counted_per_selection():
    out = claims.matched_lines(_table())
    # oracle: every value equals the paper's; Sec. 4.3.2: B's "good" error 4 is 3 from 1
    assert out == [
        "Oracle cells within the paper's std: error 6 of 6, alignment 6 of 6.",
        "Sec. 4.3.2 cells within the paper's std: error 3 of 4, alignment 4 of 4.",
    ]
