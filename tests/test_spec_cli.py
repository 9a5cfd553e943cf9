"""The command line and the spec, end to end.

Malformed specs must end with exit code 2 and exactly one ``error: ...`` line on stderr that
names the file and the field.  Starting a Python process that imports scikit-learn costs about
2 s, so the many malformed specs are run by one driver process that imports the package once
and then forks one child per spec; each child runs ``python -m sskernels run SPEC`` through
``runpy`` with its own stderr file and real exit status.  A spec is also run as a plain
``python -m sskernels`` subprocess to check that the driver reports the same thing.

The valid run (``wine_run``) is a real ``python -m sskernels`` process too.  What follows it
(reruns that resume, more splits, ``--jobs 2``, the listings, the data access) runs the same
command line in the test process (:func:`cli_helpers.run_in_process`, with the environment a
subprocess would get): each such subprocess cost an interpreter start and, for a run, the
hashes of the package's code (seconds each) without checking anything more.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_in_process
from scipy.spatial.distance import cdist
from sklearn.datasets import load_wine
from sklearn.preprocessing import minmax_scale

from conftest import data_mirror_path

REPO = Path(__file__).resolve().parents[1]
# SSKERNELS_DATA_MIRROR if set, else ../shared/datasets; None when neither exists
MIRROR = data_mirror_path()
SCHEMA = (
    "table,dataset,setting,method,metric,mean,std,se,n_splits,paper_mean,paper_std,paper_spread,delta,matched,"
    "seconds,notes,selected,paper_cell,paper_n,protocol,reading"
).split(",")
HEART_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/heart/heart.dat"
# Liu et al. (2009), Table 3, wine column (the paper's own numbers)
PAPER_WINE = {"harmonic": (67.78, 3.20), "TSK": (72.28, 1.24)}


def cli_env(tmp, mirror=True, offline=False):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SSKERNELS_") and k.lower() not in ("no_proxy",)
    }
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    env["SSKERNELS_DATA_DIR"] = str(Path(tmp) / "cache")
    if mirror and MIRROR is not None:
        env["SSKERNELS_DATA_MIRROR"] = str(MIRROR)
    if offline:
        # any request goes to a closed local port: fails at once, reaches no server
        for k in (
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "http_proxy",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ):
            env[k] = "http://127.0.0.1:9"
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = "1"  # several processes share 2 cores; threaded BLAS only adds contention
    env["COLUMNS"] = "200"
    return env


def sskernels(args, env, cwd, timeout=180):
    return subprocess.run(
        [sys.executable, "-m", "sskernels", *map(str, args)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_one_error_line(stderr, *needles):
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: "), lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# ---------------------------------------------------------------------------- malformed specs

BASE = "dataset: sklearn-wine\nmethods: [harmonic]\n"

# name -> (spec text or None for "no such file", the field the message must name)
MALFORMED = {
    "invalid_yaml": ("dataset: [sklearn-wine\nmethods: [harmonic]\n", "field '(file)'"),
    "empty_file": ("", "field '(top level)'"),
    "top_level_list": ("- dataset: sklearn-wine\n- methods: [harmonic]\n", "field '(top level)'"),
    "unknown_top_field": (BASE + "colour: blue\n", "field 'colour'"),
    "unknown_dataset": ("dataset: no-such-set\nmethods: [harmonic]\n", "field 'dataset'"),
    "dataset_name_and_file": (
        "dataset: {name: heart, file: x.csv}\nmethods: [harmonic]\n",
        "field 'dataset'",
    ),
    "missing_methods": ("dataset: sklearn-wine\n", "field 'methods'"),
    "methods_not_a_list": ("dataset: sklearn-wine\nmethods: harmonic\n", "field 'methods'"),
    "unknown_method": ("dataset: sklearn-wine\nmethods: [harmonik]\n", "field 'methods[0].name'"),
    "unknown_method_param": (
        "dataset: sklearn-wine\nmethods:\n  - harmonic\n  - {name: tsk, params: {gamma: 3}}\n",
        "field 'methods[1].params.gamma'",
    ),
    "params_not_a_mapping": (
        "dataset: sklearn-wine\nmethods: [{name: tsk, params: [1, 2]}]\n",
        "field 'methods[0].params'",
    ),
    "graph_k_string": (BASE + "graph: {k: six}\n", "field 'graph.k'"),
    "graph_k_zero": (BASE + "graph: {k: 0}\n", "field 'graph.k'"),
    "graph_k_bool": (BASE + "graph: {k: true}\n", "field 'graph.k'"),
    "graph_weights_bogus": (BASE + "graph: {weights: gaussian}\n", "field 'graph.weights'"),
    "graph_sigma_negative": (BASE + "graph: {weights: heat, sigma: -1}\n", "field 'graph.sigma'"),
    "graph_unknown_field": (BASE + "graph: {kk: 6}\n", "field 'graph.kk'"),
    "splits_protocol_bogus": (BASE + "splits: {protocol: kfold}\n", "field 'splits.protocol'"),
    "splits_n_splits_zero": (BASE + "splits: {n_splits: 0}\n", "field 'splits.n_splits'"),
    "preprocess_bogus": (BASE + "preprocess: zscore\n", "field 'preprocess'"),
    "duplicate_labels": (
        "dataset: sklearn-wine\nmethods:\n  - harmonic\n  - {name: consistency, label: harmonic}\n",
        "field 'methods[1].label'",
    ),
    "paper_table_unknown": (
        BASE + "paper: {table: liu2009_table9, dataset: wine}\n",
        "field 'paper.table'",
    ),
    "missing_file": (None, "field '(file)'"),
    # method parameters are checked against the estimator's constraints before any data loads
    "consistency_alpha_out_of_range": (
        "dataset: sklearn-wine\nmethods: [{name: consistency, params: {alpha: 1.5}}]\n",
        "field 'methods[0].params.alpha'",
    ),
    "tsk_n_components_zero": (
        "dataset: sklearn-wine\nmethods: [{name: tsk, params: {n_components: 0}}]\n",
        "field 'methods[0].params.n_components'",
    ),
    "consistency_alpha_string": (
        "dataset: sklearn-wine\nmethods: [{name: consistency, params: {alpha: high}}]\n",
        "field 'methods[0].params.alpha'",
    ),
    "rsk_n_components_zero": (
        "dataset: sklearn-wine\nmethods: [{name: rsk, params: {n_components: 0}}]\n",
        "field 'methods[0].params.n_components'",
    ),
    "osk_n_components_zero": (
        "dataset: sklearn-wine\nmethods: [{name: osk, params: {n_components: 0}}]\n",
        "field 'methods[0].params.n_components'",
    ),
    "tsk_n_components_negative": (
        "dataset: sklearn-wine\nmethods: [{name: tsk, params: {n_components: -5}}]\n",
        "field 'methods[0].params.n_components'",
    ),
    "n_splits_huge": (BASE + "splits: {n_splits: 1000000000}\n", "field 'splits.n_splits'"),
    "duplicate_top_key": (BASE + "dataset: heart\n", "duplicate key 'dataset'"),
    "duplicate_param_key": (
        "dataset: sklearn-wine\nmethods: [{name: tsk, params: {beta: 1, beta: 2}}]\n",
        "duplicate key 'beta'",
    ),
    "name_with_separators": (BASE + "name: ../../x\n", "field 'name'"),
    "huge_name": (BASE + "name: " + "x" * 100_000 + "\n", "field 'name'"),
    # split protocols class-first and per-class (sskernels/experiment/splits.py)
    "splits_cover_without_groups": (
        BASE + "splits: {protocol: class-first, cover: groups}\n",
        "field 'splits.cover'",
    ),
    "splits_cover_bogus": (
        BASE + "splits: {protocol: class-first, cover: digits}\n",
        "field 'splits.cover'",
    ),
    "splits_cover_with_random": (BASE + "splits: {cover: classes}\n", "field 'splits.cover'"),
    "splits_per_class_too_many_counts": (
        BASE + "splits: {protocol: per-class, per_class: [[5, 5, 5, 5]]}\n",
        "field 'splits.per_class[0]'",
    ),
    "splits_per_class_same_total": (
        BASE + "splits: {protocol: per-class, per_class: [[5, 5, 5], [3, 6, 6]]}\n",
        "field 'splits.per_class[1]'",
    ),
    "splits_per_class_and_n_labeled": (
        BASE + "splits: {protocol: per-class, n_labeled: 15, per_class: [5, 5, 5]}\n",
        "field 'splits.n_labeled'",
    ),
    # found only when the data are loaded: still one line naming the file and the field
    "too_few_labeled": (BASE + "splits: {n_labeled: 2}\n", "field 'splits'"),
    "splits_per_class_class_too_small": (
        BASE + "splits: {protocol: per-class, per_class: [100, 5, 5]}\n",
        "field 'splits.per_class[0]'",
    ),
    # every number against its range and the data before any work
    "graph_sigma_overflows": (
        BASE + "graph: {weights: heat, sigma: 1.0e+300}\n",
        "field 'graph.sigma'",
    ),
    "holdout_leaves_nothing": (BASE + "splits: {holdout: 0.999999}\n", "field 'splits.holdout'"),
    "graph_k_above_n": (BASE + "graph: {k: 500}\n", "field 'graph.k'"),
    "grid_value_out_of_range": (
        "dataset: sklearn-wine\nmethods: [{name: consistency, params: {alpha: [1, 2]}}]\n",
        "field 'methods[0].params.alpha'",
    ),
    # the fuzzer's findings (tests/test_fuzz_property.py): a value PyYAML cannot build, a line
    # separator in a name, a shape the estimator's constraints let through
    "yaml_tag_it_cannot_build": (BASE + "table: !!int abc\n", "line 3, column 8"),
    "yaml_date_that_does_not_exist": (BASE + "table: 2001-02-30\n", "field '(file)'"),
    "field_name_with_line_separator": (BASE + '"a\\u2028b": 1\n', "field 'a\\u2028b'"),
    "param_a_mapping_for_a_number": (
        "dataset: sklearn-wine\nmethods: [{name: supervised-mr, params: {gamma_I: {}}}]\n",
        "field 'methods[0].params.gamma_I'",
    ),
    "param_integer_beyond_float": (
        "dataset: sklearn-wine\nmethods: [{name: tsk, params: {eta: " + "9" * 400 + "}}]\n",
        "field 'methods[0].params.eta'",
    ),
}

# errors raised while the splits run (inside the progress display)
RUNTIME = {
    "tsk_too_many_components": (
        "dataset: sklearn-wine\nmethods: [{name: tsk, params: {n_components: 500}}]\n",
        "methods[0] (tsk)",
    ),
}

DRIVER = r'''
import json, os, runpy, sys, traceback
import sskernels.cli, sskernels.experiment.runner, sskernels.spec, sskernels.data  # once
SPECS = sys.argv[1:]


def warm_up():
    """One throw-away ``run`` of a missing file, so that typer's lazy imports happen here."""
    saved = os.dup(2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    sys.argv = ["sskernels", "run", os.path.join(os.getcwd(), "no-such-spec.yaml")]
    try:
        runpy.run_module("sskernels", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)


warm_up()
results = {}
for path in SPECS:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            fd = os.open(path + ".stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            sys.argv = ["sskernels", "run", path]
            try:
                runpy.run_module("sskernels", run_name="__main__", alter_sys=True)
                code = 0
            except SystemExit as exc:   # what the interpreter does with SystemExit
                c = exc.code
                if c is None:
                    code = 0
                elif isinstance(c, int):
                    code = c
                else:
                    print(c, file=sys.stderr)
                    code = 1
            except BaseException:
                traceback.print_exc()
                code = 1
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    _, status = os.waitpid(pid, 0)
    results[path] = os.waitstatus_to_exitcode(status)
print(json.dumps(results))
'''


@pytest.fixture(scope="module")
def malformed_results(tmp_path_factory):
    """Run every malformed spec once; ``{name: (path, exit code, stderr)}``."""
    tmp = tmp_path_factory.mktemp("malformed")
    paths = {}
    for name, (text, _) in {**MALFORMED, **RUNTIME}.items():
        path = tmp / f"{name}.yaml"
        if text is not None:
            path.write_text(
                text + f"output: {tmp / 'out' / name}\n"
                if text and name not in ("top_level_list", "invalid_yaml")
                else text
            )
        paths[name] = path
    driver = subprocess.run(
        [sys.executable, "-c", DRIVER, *map(str, paths.values())],
        env=cli_env(tmp),
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert driver.returncode == 0, driver.stderr
    codes = json.loads(driver.stdout.strip().splitlines()[-1])
    assert set(codes) == {str(p) for p in paths.values()}
    out = {}
    for name, path in paths.items():
        err = Path(str(path) + ".stderr").read_text()
        out[name] = (path, codes[str(path)], err)
    return out


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_spec_gives_one_line_naming_file_and_field(malformed_results, name):
    path, code, err = malformed_results[name]
    assert code == 2, err
    assert_one_error_line(err, str(path), MALFORMED[name][1])
    assert len(err) < 1000, len(err)  # a 100 KB name gives a short line


@pytest.mark.parametrize("name", sorted(RUNTIME))
def test_error_during_splits_is_one_line(malformed_results, name):
    path, code, err = malformed_results[name]
    assert code == 2, err
    assert_one_error_line(err, str(path), RUNTIME[name][1])


@pytest.mark.parametrize("name", sorted(RUNTIME))
def test_error_during_splits_exits_2_and_names_the_method(malformed_results, name):
    path, code, err = malformed_results[name]
    assert code == 2 and "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith("error: ") and str(path) in last and RUNTIME[name][1] in last


def test_driver_matches_plain_subprocesses(malformed_results, tmp_path):
    names = ("unknown_method_param",)
    env = cli_env(tmp_path)
    procs = {
        n: subprocess.Popen(
            [sys.executable, "-m", "sskernels", "run", str(malformed_results[n][0])],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in names
    }
    for n, p in procs.items():
        out, err = p.communicate(timeout=120)
        _, code, derr = malformed_results[n]
        assert (p.returncode, err) == (code, derr)
        assert p.returncode == 2 and out == ""


# ---------------------------------------------------------------------------- a valid run

WINE_SPEC = """\
name: wine_small
dataset: sklearn-wine
preprocess: minmax
graph: {{k: 6, weights: hein-maier}}
splits: {{protocol: random, n_splits: 2, n_labeled: 20, seed: 0}}
methods:
  - name: harmonic
  - name: tsk
    label: TSK
    params: {{n_components: 10, eta: 2, beta: auto}}
paper: {{table: liu2009_table3_uci_transductive_accuracy, dataset: wine}}
output: {output}
"""


@pytest.fixture(scope="module")
def wine_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wine")
    spec = tmp / "wine_small.yaml"
    spec.write_text(WINE_SPEC.format(output=tmp / "out"))
    env = cli_env(tmp)
    res = sskernels(["run", spec, "--no-progress"], env, tmp)
    return {"tmp": tmp, "spec": spec, "out": tmp / "out", "env": env, "result": res}


def read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def without_seconds(csv_path_or_text):
    text = csv_path_or_text.read_text() if isinstance(csv_path_or_text, Path) else csv_path_or_text
    col = SCHEMA.index("seconds")
    return [row[:col] + row[col + 1 :] for row in csv.reader(text.splitlines())]


def record_files(out):
    return sorted((out / "records").rglob("split_*.json"))


def accuracies(out):
    return {
        (p.parent.parent.name, p.name): json.loads(p.read_text())["metrics"]["accuracy"]
        for p in record_files(out)
    }


def test_run_writes_summary_in_the_schema_with_paper_columns(wine_run):
    res = wine_run["result"]
    assert res.returncode == 0, res.stderr
    header, rows = read_csv(wine_run["out"] / "summary.csv")
    assert header == SCHEMA
    assert [r["method"] for r in rows] == ["harmonic", "TSK"]
    accs = accuracies(wine_run["out"])
    assert len(accs) == 4
    for r in rows:
        vals = [accs[(r["method"], f"split_{i:03d}.json")] for i in range(2)]
        assert r["table"] == "wine_small" and r["dataset"] == "wine"
        assert r["setting"] == "20 labeled" and r["metric"] == "accuracy"
        assert int(r["n_splits"]) == 2
        assert float(r["mean"]) == pytest.approx(np.mean(vals), abs=0.0051)
        assert float(r["std"]) == pytest.approx(np.std(vals, ddof=1), abs=0.0051)
        pm, ps = PAPER_WINE[r["method"]]
        assert float(r["paper_mean"]) == pm and float(r["paper_std"]) == ps
        assert float(r["delta"]) == pytest.approx(np.mean(vals) - pm, abs=0.0051)
        assert float(r["seconds"]) > 0
        # the paper cell's identity and the paper's number of splits (Liu et al.: 20)
        assert r["paper_cell"] == (
            f"liu2009_table3_uci_transductive_accuracy|wine|{r['method']}||accuracy"
        )
        assert float(r["paper_n"]) == 20 and r["protocol"] == "" and r["reading"] == ""


def _harmonic_accuracy(X, y, labeled, k=6):
    """The harmonic solution of Zhu et al. on the eq. (2) graph, densely."""
    D = cdist(X, X)
    h = np.sort(D + np.diag(np.full(len(X), np.inf)), axis=1)[:, k - 1]
    H = np.maximum(h[:, None], h[None, :])
    W = np.where((D <= H) & ~np.eye(len(X), dtype=bool), np.exp(-(D**2) / H**2), 0.0)
    L = np.diag(W.sum(axis=1)) - W
    unl = np.setdiff1d(np.arange(len(X)), labeled)
    C = np.eye(3)[y[labeled]]
    F = -np.linalg.solve(L[np.ix_(unl, unl)], L[np.ix_(unl, labeled)] @ C)
    return 100.0 * np.mean(F.argmax(axis=1) == y[unl])


def test_recorded_accuracy_equals_an_independent_computation(wine_run):
    from sskernels.experiment.splits import random_split

    X, y = load_wine(return_X_y=True)
    X = minmax_scale(X)
    for i in range(2):
        rec = json.loads(
            (
                wine_run["out"] / "records" / "harmonic" / "20_labeled" / f"split_{i:03d}.json"
            ).read_text()
        )
        labeled = random_split(y, 20, 0, i)
        assert rec["n_labeled"] == 20 and rec["n_unlabeled"] == 158
        assert rec["metrics"]["accuracy"] == pytest.approx(
            _harmonic_accuracy(X, y, labeled), abs=1e-9
        )
        tsk = json.loads(
            (wine_run["out"] / "records" / "TSK" / "20_labeled" / f"split_{i:03d}.json").read_text()
        )
        assert tsk["selected"]["beta"] in (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)


def test_rerun_resumes_and_recomputes_only_a_deleted_record(wine_run):
    out, spec, env, tmp = wine_run["out"], wine_run["spec"], wine_run["env"], wine_run["tmp"]
    assert wine_run["result"].returncode == 0
    before = {p: p.stat().st_mtime_ns for p in record_files(out)}
    acc_before = accuracies(out)
    summary = (out / "summary.csv").read_text()

    res = run_in_process(["run", spec, "--no-progress"], env, tmp)
    assert res.returncode == 0, res.stderr
    assert {p: p.stat().st_mtime_ns for p in record_files(out)} == before
    assert (out / "summary.csv").read_text() == summary

    gone = out / "records" / "TSK" / "20_labeled" / "split_001.json"
    gone.unlink()
    res = run_in_process(["run", spec, "--no-progress"], env, tmp)
    assert res.returncode == 0, res.stderr
    after = {p: p.stat().st_mtime_ns for p in record_files(out)}
    assert set(after) == set(before)
    assert [p for p in after if after[p] != before[p]] == [gone]
    assert accuracies(out) == acc_before
    # the recomputed record has a new fit time; everything else in the summary is unchanged
    assert without_seconds(out / "summary.csv") == without_seconds(summary)

    summary = (out / "summary.csv").read_text()
    res = run_in_process(["table", spec, "-o", tmp / "again"], env, tmp)
    assert res.returncode == 0, res.stderr
    assert (tmp / "again.csv").read_text() == summary
    assert (tmp / "again.md").is_file()


def test_more_splits_reuse_the_recorded_ones(wine_run, tmp_path):
    assert wine_run["result"].returncode == 0
    out = tmp_path / "out"
    shutil.copytree(wine_run["out"] / "records", out / "records")
    before = {p.relative_to(out): p.stat().st_mtime_ns for p in record_files(out)}
    spec = tmp_path / "wine_small.yaml"
    spec.write_text(WINE_SPEC.format(output=out).replace("n_splits: 2", "n_splits: 3"))
    res = run_in_process(["run", spec, "--no-progress"], wine_run["env"], tmp_path)
    assert res.returncode == 0, res.stderr
    after = {p.relative_to(out): p.stat().st_mtime_ns for p in record_files(out)}
    assert len(after) == 6
    assert {p: after[p] for p in before} == before


def test_two_jobs_give_the_same_records(wine_run):
    """--jobs 2 with two specs in one run (one set of workers, each loading the state of the
    spec its task belongs to) gives the records of --jobs 1; --no-reuse, so they are computed
    (the sibling folder's records have the same keys)."""
    tmp, env = wine_run["tmp"], wine_run["env"]
    assert wine_run["result"].returncode == 0
    spec2 = tmp / "wine_small_j2.yaml"
    spec2.write_text(WINE_SPEC.format(output=tmp / "out_j2").replace("wine_small", "wine_j2"))
    other = WINE_SPEC.replace("seed: 0", "seed: 4").replace("wine_small", "wine_seed4")
    spec3 = tmp / "wine_seed4_j2.yaml"
    spec3.write_text(other.format(output=tmp / "out_s4_j2"))
    spec4 = tmp / "wine_seed4_j1.yaml"
    spec4.write_text(other.format(output=tmp / "out_s4_j1"))
    res = run_in_process(
        ["run", spec2, spec3, "--jobs", "2", "--no-reuse", "--no-progress"], env, tmp
    )
    assert res.returncode == 0, res.stderr
    assert not any("reused_from" in json.loads(p.read_text()) for p in record_files(tmp / "out_j2"))
    res = run_in_process(["run", spec4, "--no-reuse", "--no-progress"], env, tmp)
    assert res.returncode == 0, res.stderr
    assert accuracies(tmp / "out_s4_j2") == accuracies(tmp / "out_s4_j1")
    assert accuracies(tmp / "out_s4_j2") != accuracies(wine_run["out"])  # other splits
    one, two = accuracies(wine_run["out"]), accuracies(tmp / "out_j2")
    assert len(two) == 4 and two == one
    sel = {
        p.relative_to(tmp / "out_j2"): json.loads(p.read_text())["selected"]
        for p in record_files(tmp / "out_j2")
    }
    sel1 = {
        p.relative_to(wine_run["out"]): json.loads(p.read_text())["selected"]
        for p in record_files(wine_run["out"])
    }
    assert sel == sel1


# ---------------------------------------------------------------------------- data access


def test_offline_without_mirror_names_url_and_mirror_variable(tmp_path):
    spec = tmp_path / "heart.yaml"
    spec.write_text(
        f"dataset: heart\npreprocess: minmax\nmethods: [harmonic]\noutput: {tmp_path / 'out'}\n"
    )
    env = cli_env(tmp_path, mirror=False, offline=True)
    res = run_in_process(["run", spec, "--no-progress"], env, tmp_path)
    assert res.returncode == 2
    assert_one_error_line(res.stderr, HEART_URL, "SSKERNELS_DATA_MIRROR")
    cache = tmp_path / "cache"
    assert not cache.exists() or not [p for p in cache.rglob("*") if p.is_file()]
    # the output folder was checked (and marked) before the data: nothing else in it
    out = tmp_path / "out"
    assert not out.exists() or [p.name for p in out.iterdir()] == [".sskernels-output"]


@pytest.mark.datasets("heart")
def test_heart_runs_from_the_mirror(tmp_path, data_mirror):
    assert Path(data_mirror) == MIRROR
    spec = tmp_path / "heart.yaml"
    spec.write_text(
        "dataset: heart\npreprocess: minmax\nsplits: {n_splits: 1}\n"
        f"methods: [harmonic]\noutput: {tmp_path / 'out'}\n"
    )
    res = run_in_process(["run", spec, "--no-progress"], cli_env(tmp_path, offline=True), tmp_path)
    assert res.returncode == 0, res.stderr
    rec = json.loads(
        (tmp_path / "out" / "records" / "harmonic" / "20_labeled" / "split_000.json").read_text()
    )
    assert rec["n_labeled"] == 20 and rec["n_unlabeled"] == 250
    assert 40.0 <= rec["metrics"]["accuracy"] <= 100.0


def _table_rows(stdout):
    rows = []
    for line in stdout.splitlines():
        if line.startswith("│"):
            rows.append([c.strip() for c in line.strip("│").split("│")])
    return rows


def test_methods_list_names_every_registered_method(tmp_path):
    from sskernels.learners.registry import METHODS

    res = run_in_process(["methods", "list"], cli_env(tmp_path), tmp_path)
    assert res.returncode == 0, res.stderr
    names = [r[0] for r in _table_rows(res.stdout) if r[0]]
    assert sorted(names) == sorted(METHODS) and "tsk" in names
    inductive = {r[0]: r[3] for r in _table_rows(res.stdout) if r[0]}
    assert inductive["tsk"] == "yes"


def test_datasets_list_reports_sizes_and_cache_state(tmp_path, monkeypatch):
    """A cached copy counts only when its sha256 is the registered one.  With the mirror the
    real heart.dat is cached; without it (a newcomer's clone) a stand-in file is, under the
    CLI with heart's sha256 registered as the stand-in's (for this test only).  Ionosphere's
    cached copy is corrupt (wrong bytes) and must be listed as not cached."""
    import dataclasses
    import hashlib

    from sskernels.data.registry import REGISTRY

    cache = tmp_path / "cache" / "uci"
    cache.mkdir(parents=True)
    (cache / "ionosphere.data").write_text("not the registered bytes\n")
    env = cli_env(tmp_path, mirror=False)
    src = MIRROR / "uci" / "heart.dat" if MIRROR is not None else None
    if src is not None and src.is_file():
        shutil.copy(src, cache / "heart.dat")
    else:
        (cache / "heart.dat").write_bytes(b"a stand-in for heart.dat\n")
        sha = hashlib.sha256((cache / "heart.dat").read_bytes()).hexdigest()
        entry = REGISTRY["heart"]
        assert sha != entry.files[0].sha256
        files = tuple(dataclasses.replace(f, sha256=sha) for f in entry.files)
        monkeypatch.setitem(REGISTRY, "heart", dataclasses.replace(entry, files=files))
    res = run_in_process(["datasets", "list"], env, tmp_path)
    assert res.returncode == 0, res.stderr
    rows = {r[0]: r for r in _table_rows(res.stdout) if r[0]}
    assert set(rows) == set(REGISTRY)
    assert rows["heart"][1:5] == ["270", "13", "2", "yes"]
    assert rows["ionosphere"][4] == "no"  # a corrupt cached copy is not cached
    assert rows["sklearn-wine"][1:5] == ["178", "13", "3", "yes"]


def test_the_error_line_escapes_every_line_break(monkeypatch, capsys):
    """A user's error holding any character str.splitlines breaks at (\\x1c-\\x1e, \\x85,
    \\u2028, \\u2029 as well as \\n, \\r) is still one line, escaped, not cut."""
    from sskernels import cli
    from sskernels.errors import UserError

    def app():
        raise UserError("spec.yaml: a\nb\x1ec\x85d\u2028e\u2029f")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert_one_error_line(err, "spec.yaml: a\\nb\\x1ec\\x85d\\u2028e\\u2029f")
