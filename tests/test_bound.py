"""``sskernels bound``: the reachability bound equals a brute-force search over the grid.

On wine (bundled with scikit-learn), 3 splits: every candidate of consistency's alpha grid and
TSK's beta grid is fitted by hand on each split and scored on the unlabeled points; the bound
(each split's best, averaged) and the best fixed candidate (best mean) must be what the
command writes.  Also: a parameter the spec fixes is freed (or not, ``--no-free``), the spec's
own result sits beside the bound once it has been run, the verdict's rule, and a spec with
nothing to bound is one line and exit 2.
"""

import csv
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from test_spec_cli import cli_env

SPEC = """
name: wine_bound_test
table: test
dataset: sklearn-wine
preprocess: minmax
graph: {{k: 6, weights: hein-maier}}
splits: {{protocol: random, n_splits: 3, n_labeled: 20, seed: 0}}
methods:
{methods}
paper: {{table: liu2009_table3_uci_transductive_accuracy, dataset: wine}}
output: {out}
"""


def write_spec(tmp_path, methods, name="wine.yaml"):
    path = tmp_path / name
    path.write_text(SPEC.format(methods=methods, out=tmp_path / "out"))
    return path


def sskernels(args, tmp_path):
    return subprocess.run(
        [sys.executable, "-m", "sskernels", *map(str, args)],
        env=cli_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


def read(path):
    with open(path) as fh:
        return {r["method"]: r for r in csv.DictReader(fh)}


def brute_force(spec_path, name, param, values, **fixed):
    """``(mean of per-split best, best mean over candidates, its value)`` by hand."""
    from sskernels.experiment.preparation import prepare
    from sskernels.learners.registry import make_method
    from sskernels.spec import load_spec

    spec = load_spec(spec_path)
    prep = prepare(spec)
    ((_, splits),) = prep.settings
    A = np.zeros((len(splits), len(values)))
    for s, lab in enumerate(splits):
        yp = np.full(prep.y.size, -1)
        yp[lab] = prep.y[lab]
        for j, v in enumerate(values):
            est = make_method(name, n_neighbors=6, weights="hein-maier", **fixed, **{param: v}).fit(
                prep.X, yp
            )
            A[s, j] = 100 * np.mean(est.transduction_[yp < 0] == prep.y[yp < 0])
    means = A.mean(axis=0)
    return A.max(axis=1).mean(), means.max(), values[int(np.argmax(means))]


def test_bound_equals_a_brute_force_search_and_frees_fixed_parameters(tmp_path):
    from sskernels.learners.propagation import ALPHAS
    from sskernels.learners.spectral import BETA_GRID

    spec = write_spec(
        tmp_path,
        """
  - name: harmonic
  - name: consistency
    params: {alpha: 0.99}
  - name: tsk
    label: TSK
    params: {n_components: 10, eta: 2, beta: auto}
""",
    )
    r = sskernels(["run", spec, "--no-progress"], tmp_path)
    assert r.returncode == 0, r.stderr
    r = sskernels(["bound", spec, "--no-progress", "-o", tmp_path / "all"], tmp_path)
    assert r.returncode == 0, r.stderr
    rows = read(tmp_path / "out_bound" / "bound.csv")
    assert set(rows) == {"consistency", "TSK"}  # harmonic: nothing to choose
    assert "harmonic" in (tmp_path / "out_bound" / "bound.md").read_text()
    assert read(tmp_path / "all.csv") == rows

    alphas = sorted(ALPHAS, reverse=True)  # the grid's preference order
    bound, fixed, at = brute_force(spec, "consistency", "alpha", alphas)
    c = rows["consistency"]
    assert c["grid"] == "alpha (4) (freed: alpha)"
    assert float(c["bound"]) == pytest.approx(bound, abs=0.006)
    assert float(c["best_fixed"]) == pytest.approx(fixed, abs=0.006)
    assert c["best_fixed_params"] == f"alpha={at:g}"
    betas = sorted(BETA_GRID, reverse=True)
    bound, fixed, at = brute_force(spec, "tsk", "beta", betas, n_components=10, eta=2)
    t = rows["TSK"]
    assert t["grid"] == "beta (7)"
    assert float(t["bound"]) == pytest.approx(bound, abs=0.006)
    assert float(t["best_fixed"]) == pytest.approx(fixed, abs=0.006)

    # the spec's own result beside (consistency at alpha = 0.99 from the run), the paper's value
    ours = pd.read_csv(tmp_path / "out" / "summary.csv")
    mine = ours[(ours["method"] == "consistency") & (ours["metric"] == "accuracy")]["mean"]
    assert float(c["ours"]) == pytest.approx(float(mine.iloc[0]), abs=0.006)
    assert float(c["ours"]) <= float(c["bound"]) + 1e-9
    assert float(c["paper_mean"]) == 68.39 and c["paper_spread"] == "std"
    assert float(c["gap"]) == pytest.approx(68.39 - float(c["bound"]), abs=0.006)
    assert c["verdict"] == "within reach"

    # --no-free: the spec's own grids only (consistency's alpha stays 0.99: nothing to bound)
    r = sskernels(["bound", spec, "--no-progress", "--no-free"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert set(read(tmp_path / "out_bound" / "bound.csv")) == {"TSK"}


def test_a_spec_with_nothing_to_bound_is_one_line_and_exit_2(tmp_path):
    spec = write_spec(tmp_path, "  - name: harmonic\n")
    r = sskernels(["bound", spec, "--no-progress"], tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "no method of this spec has a parameter grid" in lines[0]
    assert str(spec) in lines[0]


def test_verdict_beyond_reach_needs_a_gap_of_two_standard_errors():
    from types import SimpleNamespace

    from sskernels.experiment.bound import LABEL_SUFFIX, bound_rows

    def frame(values):
        return pd.DataFrame(
            {
                "setting": "20 labeled",
                "method": "TSK" + LABEL_SUFFIX,
                "metric": "accuracy",
                "value": values,
                "dataset": "wine",
                "paper": "TSK",
                "n_labeled": 20,
                "oracle": [
                    {"params": [{"beta": 1.0}, {"beta": 2.0}], "accuracy": [v, v - 1]}
                    for v in values
                ],
            }
        )

    spec = SimpleNamespace(
        table="t",
        name="t",
        path="configs/liu2009/wine.yaml",
        preprocess="minmax",
        reading=None,
        dataset=SimpleNamespace(name="wine", file=None),
        graph=SimpleNamespace(k=6, weights="hein-maier", metric="euclidean"),
        splits=SimpleNamespace(protocol="random", seed=0),
    )
    bspec = SimpleNamespace(paper=SimpleNamespace(table="liu2009_table3_uci_transductive_accuracy"))
    # paper TSK wine 72.28 ± 1.24 (a std over its 20 splits: se 0.277): bound 70, se 0.29
    # -> gap 2.28 > 2 x sqrt(0.29^2 + 0.277^2) = 0.80: beyond our reading
    row = bound_rows(frame([69.5, 70.0, 70.5]), spec, bspec, {}).iloc[0]
    assert row["verdict"] == "beyond our reading" and row["best_fixed_params"] == "beta=1"
    assert row["best_fixed"] == pytest.approx(70.0)
    assert row["paper_se"] == pytest.approx(1.24 / np.sqrt(20), abs=0.005)
    assert "preprocess" in row["reading"]
    assert "data wine (wine.data, 178 x 13)" in row["reading"]  # the file it rests on
    # se 1.12: the bound's se alone (gap 2.28 > 2.24) would say beyond; with the paper's own
    # sampling error, 2 x sqrt(1.12^2 + 0.277^2) = 2.31 > 2.28: within reach
    row = bound_rows(frame([68.06, 70.0, 71.94]), spec, bspec, {}).iloc[0]
    assert row["bound_se"] == pytest.approx(1.12, abs=0.005)
    assert row["verdict"] == "within reach"
    # se 1.15 -> gap 2.28 < 2.37: within reach
    row = bound_rows(frame([68.0, 70.0, 72.0]), spec, bspec, {}).iloc[0]
    assert row["verdict"] == "within reach"
    # one split: no standard error, so no verdict (it used to read "within reach")
    row = bound_rows(frame([60.0]), spec, bspec, {}).iloc[0]
    assert row["verdict"].startswith("no verdict") and np.isnan(row["bound_se"])


def test_a_method_whose_grid_cannot_be_built_is_named_not_skipped(tmp_path, monkeypatch):
    # an error building the grid used to read as "no parameter to choose" (method left out)
    import sskernels.learners.selection as oracle
    from sskernels.experiment.bound import bound_spec
    from sskernels.spec import load_spec

    spec = load_spec(
        write_spec(tmp_path, "  - name: tsk\n    label: TSK here\n    params: {beta: auto}\n")
    )

    def broken(est):
        raise ValueError("no grid for you")

    monkeypatch.setattr(oracle, "flatten", broken)
    with pytest.raises(
        ValueError,
        match=r"'TSK here' \(tsk\): cannot build its parameter "
        r"grid: no grid for you",
    ):
        bound_spec(spec)
