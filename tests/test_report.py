"""``sskernels report``: the leaderboard's ranks and paired wins against hand-computed values,
the exact signed-rank test against scipy's, the verdicts against ``results/fidelity.md``'s
rules (``scripts/fidelity_figure.py``), the user's rows found in the records and marked in
the page, and the page self-contained (no script, no address off the machine).

The browser checks are in ``tests/test_browser.py``.
"""

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from sskernels.report.build import (
    average_ranks,
    leaderboard,
    load,
    paired_outcome,
    signed_rank_pvalue,
)
from sskernels.report.html import render_report
from sskernels.report.verdicts import verdict

REPO = Path(__file__).resolve().parents[1]
SPLITS = np.arange(6)
BASE = 10.0 + SPLITS  # 10 .. 15, mean 12.5
STEPS = 1.0 + SPLITS  # 1 .. 6


def synthetic():
    """Three rows a, b, c on two data sets, six splits each (values in the module's test).

    d1: a = BASE, b = a - STEPS (a wins: six positive distinct differences, exact p =
    2/64), c = a + [1, -2, 3, -4, 5, -6] (a tie).  d2: a = BASE, b = a + STEPS (b wins),
    c = a (no difference: a tie).
    """
    values = {
        ("d1", "a"): BASE,
        ("d1", "b"): BASE - STEPS,
        ("d1", "c"): BASE + STEPS * np.array([1, -1, 1, -1, 1, -1]),
        ("d2", "a"): BASE,
        ("d2", "b"): BASE + STEPS,
        ("d2", "c"): BASE.copy(),
    }
    rows, splits = [], []
    for (ds, m), v in values.items():
        rows.append(
            {
                "suite": "s",
                "table": "t",
                "dataset": ds,
                "setting": "6 labeled",
                "method": m,
                "metric": "accuracy",
                "mean": v.mean(),
                "std": v.std(ddof=1),
                "user": m == "c",
            }
        )
        splits += [
            {
                "suite": "s",
                "table": "t",
                "dataset": ds,
                "setting": "6 labeled",
                "method": m,
                "metric": "accuracy",
                "split": int(i),
                "value": float(x),
            }
            for i, x in zip(SPLITS, v)
        ]
    return pd.DataFrame(rows), pd.DataFrame(splits)


def test_leaderboard_ranks_and_paired_wins_match_hand_computed_values():
    rows, splits = synthetic()
    lb = leaderboard(rows, splits, "s", "accuracy")
    t = lb.table
    # ranks: d1 a 12.5 > c 12.0 > b 9.0 -> 1, 2, 3; d2 b 16 > a = c 12.5 -> 1, 2.5, 2.5
    assert t["rank"].to_dict() == {"a": 1.75, "b": 2.0, "c": 2.25}
    assert list(t.index) == ["a", "b", "c"] and list(t["position"]) == [1, 2, 3]
    assert (t["datasets"] == 2).all() and (t["untested"] == 0).all()
    # a-b: d1 win, d2 loss; a-c: ties (d1 mixed signs, d2 identical); b-c: d1 tie (3 nonzero
    # differences: p = 0.25), d2 win
    assert lb.pairs.at["a", "b"] == "1-0-1" and lb.pairs.at["b", "a"] == "1-0-1"
    assert lb.pairs.at["a", "c"] == "0-2-0" and lb.pairs.at["c", "a"] == "0-2-0"
    assert lb.pairs.at["b", "c"] == "1-1-0" and lb.pairs.at["c", "b"] == "0-1-1"
    assert t.loc["a", ["wins", "ties", "losses"]].tolist() == [1, 2, 1]
    assert t.loc["b", ["wins", "ties", "losses"]].tolist() == [2, 1, 1]
    assert t.loc["c", ["wins", "ties", "losses"]].tolist() == [0, 3, 1]
    assert t["user"].to_dict() == {"a": False, "b": False, "c": True}


def test_an_error_metric_ranks_the_lowest_first_and_flips_the_wins():
    rows, splits = synthetic()
    rows["metric"], splits["metric"] = "error", "error"
    lb = leaderboard(rows, splits, "s", "error")
    assert lb.table["rank"].to_dict() == {"c": 1.75, "b": 2.0, "a": 2.25}
    assert lb.pairs.at["b", "c"] == "0-1-1"
    m = pd.DataFrame({"x": [1.0, 3.0], "y": [2.0, np.nan]})
    assert average_ranks(m, better=-1).to_dict("index") == {
        "x": {"rank": 1.0, "datasets": 2},
        "y": {"rank": 2.0, "datasets": 1},
    }


def test_rows_without_per_split_values_are_ranked_but_untested():
    rows, splits = synthetic()
    lb = leaderboard(rows, splits[splits["method"] != "c"], "s", "accuracy")
    assert lb.table.loc["c", "untested"] == 4 and lb.table.loc["a", "untested"] == 2
    assert lb.pairs.at["a", "c"] == "0-0-0" and lb.pairs.at["a", "b"] == "1-0-1"


@pytest.mark.parametrize("n", [3, 5, 6, 9, 14, 20, 30])
def test_the_exact_signed_rank_p_value_is_scipys(n):
    from scipy.stats import wilcoxon

    rng = np.random.default_rng(n)
    d = rng.normal(0.7, 1.0, n)
    p, direction = signed_rank_pvalue(d)
    assert p == pytest.approx(wilcoxon(d, method="exact").pvalue, rel=1e-9)
    assert direction == np.sign(np.sum(np.sign(d) * pd.Series(np.abs(d)).rank()) or 0)


def test_ties_and_zeros_give_a_deterministic_exact_p_value():
    d = [1.0, 1.0, 2.0, 0.0, 2.0, 3.0, 3.0, 3.0]  # zeros dropped, ties averaged
    assert signed_rank_pvalue(d) == signed_rank_pvalue(d)
    p, direction = signed_rank_pvalue(d)
    assert direction == 1 and p == pytest.approx(2 / 2**7)
    assert paired_outcome([1, 2], [1, 2]) == "tie"
    assert paired_outcome(np.arange(8.0), np.arange(8.0) + 1.0) == "loss"


def _fidelity():
    spec = importlib.util.spec_from_file_location(
        "fidelity_figure", REPO / "scripts" / "fidelity_figure.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_verdicts_are_those_of_results_fidelity_md_on_every_committed_row():
    """The report's verdict class of every committed row with a paper value is the one
    ``scripts/fidelity_figure.py`` (results/fidelity.md) gives it."""
    fid = _fidelity()
    results = REPO / "results"
    rows, bounds = fid.load_rows(results), fid.load_bounds(results)
    assert len(rows) > 300
    theirs = [fid._verdict(r, bounds)[0] for _, r in rows.iterrows()]
    ours = [verdict(r, bounds)[0] for r in rows.to_dict("records")]
    differ = [
        (r["source"], r["dataset"], r["method"], a, b)
        for r, a, b in zip(rows.to_dict("records"), theirs, ours)
        if a != b
    ]
    assert not differ, differ[:5]
    assert {"matched", "open", "near"} <= set(ours)


def run_folder(root, user_label="Mine", n_splits=3):
    """A run folder as ``sskernels run`` writes it: summary.csv beside records/, the
    user's method recorded by its import path."""
    out = root / "results" / "demo" / "runs" / "wine"
    rows = []
    for label, name, base in (
        ("harmonic", "harmonic", 90.0),
        ("TSK", "tsk", 85.0),
        (user_label, "myssl:LabeledKNN", 80.0),
    ):
        vals = [base + s for s in range(n_splits + 2)]  # two splits beyond n_splits
        for s, v in enumerate(vals):
            f = out / "records" / label / "10_labeled" / f"split_{s:03d}.json"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(
                json.dumps(
                    {
                        "table": "demo-t1",
                        "dataset": "wine",
                        "setting": "10 labeled",
                        "method": label,
                        "method_name": name,
                        "split": s,
                        "metrics": {"accuracy": v},
                        "provenance": {"sskernels": "0.1.0", "git_commit": "abc", "numpy": "2.0"},
                    }
                )
            )
        v = np.array(vals[:n_splits])
        rows.append(
            {
                "table": "demo-t1",
                "dataset": "wine",
                "setting": "10 labeled",
                "method": label,
                "metric": "accuracy",
                "mean": v.mean(),
                "std": v.std(ddof=1),
                "se": 0.5,
                "n_splits": n_splits,
                "paper_mean": 91.0 if label == "harmonic" else np.nan,
                "paper_std": 2.0 if label == "harmonic" else np.nan,
                "paper_spread": "std",
                "seconds": 0.01,
                "notes": "fallback: a -> b x1/3" if label == "TSK" else "",
            }
        )
    pd.DataFrame(rows).to_csv(out / "summary.csv", index=False)
    return out


def test_the_users_rows_are_found_in_the_records_and_marked_in_the_page(tmp_path):
    run_folder(tmp_path)
    data = load([tmp_path])
    assert data.suites == ["demo-t1"]
    assert data.rows.loc[data.rows["user"], "method"].tolist() == ["Mine"]
    # only the splits the summary counts (3 of the 5 recorded)
    assert sorted(data.splits["split"].unique()) == [0, 1, 2]
    assert data.rows.set_index("method").at["harmonic", "verdict"] == "matched"
    page = render_report(data)
    row = re.search(
        r'<tr class="user" data-method="Mine" data-position="(\d)" '
        r'data-rank="([\d.]+)"',
        page,
    )
    assert row and row.groups() == ("3", "3.00")
    assert re.search(r'<td [^>]*class="[^"]*\buser\b[^"]*"[^>]*><span class="method">Mine', page)
    assert "<details><summary>1 note</summary>" in page
    assert '<img class="plot" src="data:image/png;base64,' in page
    # self-contained: no script, no link or source off the page
    assert "<script" not in page
    assert not re.search(r'(src|href)="(?!data:|#)', page)
    assert "abc" in page  # the records' provenance


def test_highlight_marks_a_row_of_a_combined_table(tmp_path):
    (tmp_path / "mine.csv").write_text(
        "table,dataset,setting,method,metric,mean,std,se,n_splits\n"
        "t,wine,10 labeled,a,accuracy,90,1,0.5,4\nt,wine,10 labeled,B,error,20,2,1,4\n"
    )
    data = load([tmp_path / "mine.csv"], highlight=["B"])
    assert data.suites == [f"{tmp_path.name}/mine"]  # the folder and the file's stem
    assert data.rows["user"].tolist() == [False, True]


def test_the_command_writes_the_report_of_the_current_folder(tmp_path, monkeypatch):
    from sskernels.cli import app

    run_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["report", "--no-plots"])
    assert res.exit_code == 0, res.output
    assert "wrote report.html" in res.output
    assert 'data-method="Mine"' in (tmp_path / "report.html").read_text()


def test_the_command_says_in_one_line_when_there_is_nothing_to_report(tmp_path, monkeypatch):
    from sskernels.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", ["sskernels", "report"])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2


def test_a_report_of_the_committed_liu2009_tables(tmp_path):
    from sskernels.report import write_report

    out = write_report([REPO / "results" / "liu2009"], tmp_path / "r.html", plots=False)
    page = out.read_text()
    for suite in ("liu2009/table3", "liu2009/figure1", "liu2009/readings"):
        assert f'data-suite="{suite}"' in page
    assert "verdict-matched" in page and 'class="leaderboard"' in page


def test_text_from_the_tables_is_escaped(tmp_path):
    (tmp_path / "t.csv").write_text(
        "table,dataset,setting,method,metric,mean,std,se,n_splits,notes\n"
        't,<i>wine</i>,10,<b>x</b>,accuracy,90,1,0.5,4,"<script>alert(1)</script>; b"\n'
        "t,<i>wine</i>,10,y,accuracy,80,1,0.5,4,\n"
    )
    page = render_report(load([tmp_path]), plots=False)
    assert "<script" not in page and "<b>x" not in page and "<i>wine" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b&gt;x&lt;/b&gt;" in page
