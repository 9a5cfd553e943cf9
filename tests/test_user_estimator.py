"""A user's own estimator as a method: by import path (``estimator:``, ``run --with``) and by
an entry point of ``sskernels.methods``, beside the paper's rows in one combined table; a
broken one (cannot be imported, no fit, labels of the wrong length) is one line, exit 2.

The user's module and a distribution's metadata declaring its entry point are written to a
temporary folder, put on PYTHONPATH for the CLI's processes (``importlib.metadata`` finds the
``*.dist-info`` folder there) and on ``sys.path`` for the in-process checks.

Every command line runs in the test process (:func:`cli_helpers.run_cli`; with the
environment a subprocess would get, :func:`cli_helpers.run_in_process`): a subprocess cost an
interpreter start and the hashes of the package's code per command.  The fit that raises in
a worker process (``--jobs 2``) still runs in a spawned worker.
"""

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_cli, run_in_process
from sklearn.datasets import load_wine
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import minmax_scale

REPO = Path(__file__).resolve().parents[1]
LIU = "liu2009_table3_uci_transductive_accuracy"

USER_MODULE = '''
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import KNeighborsClassifier


class LabeledKNN(ClassifierMixin, BaseEstimator):
    """k-NN fitted on the labeled points only (-1 marks an unlabeled point)."""

    def __init__(self, n_neighbors=1):
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        y = np.asarray(y)
        lab = y != -1
        self.knn_ = KNeighborsClassifier(n_neighbors=self.n_neighbors).fit(X[lab], y[lab])
        self.classes_ = self.knn_.classes_
        self.transduction_ = self.knn_.predict(X)
        return self

    def predict(self, X):
        return self.knn_.predict(X)


class PredictOnly(ClassifierMixin, BaseEstimator):
    """No transduction_: the runner takes predict(X)."""

    def fit(self, X, y):
        y = np.asarray(y)
        self.knn_ = KNeighborsClassifier(n_neighbors=1).fit(X[y != -1], y[y != -1])
        return self

    def predict(self, X):
        return self.knn_.predict(X)


class NoFit:
    def predict(self, X):
        return np.zeros(len(X), dtype=int)


class WrongLength(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.transduction_ = np.zeros(3, dtype=int)
        return self


def _users_own_helper(X):
    return X[:, 0] / 0          # a line of the user's own code


class RaisesInFit(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        np.seterr(divide="raise")
        _users_own_helper(np.asarray(X))
        return self
'''

SPEC = """\
name: wine_user
dataset: sklearn-wine
preprocess: minmax
graph: {{k: 6, weights: hein-maier}}
splits: {{protocol: random, n_splits: 2, n_labeled: 20, seed: 0}}
methods:
  - name: harmonic
  - name: tsk
    label: TSK
    params: {{n_components: 10, eta: 2, beta: 10}}
  - estimator: usermod_ssk:LabeledKNN
    label: Mine (3-NN)
    params: {{n_neighbors: 3}}
paper: {{table: {liu}, dataset: wine}}
output: {output}
"""


@pytest.fixture(scope="module")
def user_dir(tmp_path_factory):
    """A folder holding the user's module ``usermod_ssk`` and the metadata of a distribution
    ``fakepkg`` whose entry point ``mine-knn`` names ``usermod_ssk:LabeledKNN``."""
    root = tmp_path_factory.mktemp("userpkg")
    (root / "usermod_ssk.py").write_text(USER_MODULE)
    (root / "brokenmod_ssk.py").write_text("import no_such_module_of_sskernels_tests\n")
    info = root / "fakepkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakepkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[sskernels.methods]\nmine-knn = usermod_ssk:LabeledKNN\n"
        "broken-knn = brokenmod_ssk:Anything\n"
    )
    return root


def env_with(tmp, user_dir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SSKERNELS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(user_dir)])
    env["SSKERNELS_DATA_DIR"] = str(Path(tmp) / "cache")
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = "1"
    env["COLUMNS"] = "200"
    return env


def sskernels(args, env, cwd):
    """``python -m sskernels ARGS`` with ``env`` in ``cwd``, run in this process."""
    return run_in_process(args, env, cwd)


def one_error_line(stderr, *needles):
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.fixture(scope="module")
def user_run(tmp_path_factory, user_dir):
    """The spec (with an ``estimator:`` method) run with ``--with`` an entry point's name and
    ``--table``: one combined table."""
    tmp = tmp_path_factory.mktemp("userrun")
    spec = tmp / "wine_user.yaml"
    spec.write_text(SPEC.format(liu=LIU, output=tmp / "out"))
    res = sskernels(
        [
            "run",
            spec,
            "--no-progress",
            "--with",
            "EP 1-NN=mine-knn",
            "--with",
            "usermod_ssk:PredictOnly",
            "--table",
            tmp / "combined.md",
        ],
        env_with(tmp, user_dir),
        tmp,
    )
    return {"tmp": tmp, "res": res, "out": tmp / "out"}


def read_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def knn_accuracy(k, split):
    """An independent computation: k-NN on the labeled points of split ``split`` of the
    spec's protocol, accuracy (%) on the unlabeled points."""
    from sskernels.experiment.splits import random_split

    X, y = load_wine(return_X_y=True)
    X = minmax_scale(X)
    labeled = random_split(y, 20, 0, split)
    unl = np.setdiff1d(np.arange(y.size), labeled)
    pred = KNeighborsClassifier(n_neighbors=k).fit(X[labeled], y[labeled]).predict(X[unl])
    return 100.0 * np.mean(pred == y[unl])


def test_the_users_rows_stand_beside_the_papers_in_the_combined_table(user_run):
    res = user_run["res"]
    assert res.returncode == 0, res.stderr
    rows = {
        r["method"]: r
        for r in read_rows(user_run["tmp"] / "combined.csv")
        if r["metric"] == "accuracy"
    }
    assert list(rows) == ["harmonic", "TSK", "Mine (3-NN)", "EP 1-NN", "usermod_ssk:PredictOnly"]
    assert float(rows["harmonic"]["paper_mean"]) == 67.78  # Liu et al., wine
    assert float(rows["TSK"]["paper_mean"]) == 72.28
    for label in ("Mine (3-NN)", "EP 1-NN", "usermod_ssk:PredictOnly"):
        assert rows[label]["paper_mean"] == "" and rows[label]["paper_cell"] == ""
        assert int(rows[label]["n_splits"]) == 2
    assert not (user_run["tmp"] / "combined.md.md").exists()  # OUT.md names the stem OUT
    md = (user_run["tmp"] / "combined.md").read_text()
    assert "| Mine (3-NN) | " in md and "| EP 1-NN | " in md and "| TSK | " in md


@pytest.mark.parametrize(
    "label,k", [("Mine (3-NN)", 3), ("EP 1-NN", 1), ("usermod_ssk:PredictOnly", 1)]
)
def test_the_users_records_equal_an_independent_computation(user_run, label, k):
    assert user_run["res"].returncode == 0, user_run["res"].stderr
    from sskernels.experiment.records import _safe

    for i in range(2):
        rec = json.loads(
            (
                user_run["out"] / "records" / _safe(label) / "20_labeled" / f"split_{i:03d}.json"
            ).read_text()
        )
        assert rec["paper"] is None
        assert rec["metrics"]["accuracy"] == pytest.approx(knn_accuracy(k, i), abs=1e-9)
        # the record's code key holds the user's module, hashed from its source
        assert "usermod_ssk.py" in rec["provenance"]["modules"]


def test_the_import_path_and_the_entry_point_name_the_same_class(user_run):
    assert user_run["res"].returncode == 0, user_run["res"].stderr
    rec = json.loads(
        (user_run["out"] / "records" / "EP_1-NN" / "20_labeled" / "split_000.json").read_text()
    )
    assert rec["method_name"] == "mine-knn"
    mine = json.loads(
        (user_run["out"] / "records" / "Mine_3-NN_" / "20_labeled" / "split_000.json").read_text()
    )
    assert mine["method_name"] == "usermod_ssk:LabeledKNN"


# ------------------------------------------------------------------------------ in process


@pytest.fixture
def on_path(user_dir, monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(user_dir))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    return tmp_path


def small_spec(tmp, methods="[harmonic]", n_splits=1):
    path = tmp / "s.yaml"
    path.write_text(
        f"dataset: sklearn-wine\npreprocess: minmax\nsplits: {{n_splits: {n_splits}}}\n"
        f"methods: {methods}\noutput: {tmp / 'out'}\n"
    )
    return path


@pytest.mark.parametrize(
    "target,field,needle",
    [
        ("brokenmod_ssk:Anything", "--with[0].estimator", "no_such_module_of_sskernels_tests"),
        ("usermod_ssk:NoSuchClass", "--with[0].estimator", "NoSuchClass"),
        ("usermod_ssk:NoFit", "--with[0].estimator", "no fit"),
        ("broken-knn", "--with[0].name", "no_such_module_of_sskernels_tests"),
        ("mine-knm", "--with[0].name", "did you mean 'mine-knn'?"),
        ("harmonik", "--with[0].name", "did you mean 'harmonic'?"),
    ],
)
def test_a_broken_with_is_one_line(on_path, target, field, needle):
    """The line names the flag and its value, not the spec it was to be added to."""
    spec = small_spec(on_path)
    code, out, err = run_cli(["run", spec, "--no-progress", "--with", target])
    assert code == 2, err
    one_error_line(err, f"error: --with {target}: ", needle)
    assert str(spec) not in err
    assert not (on_path / "out" / "records").exists()


@pytest.mark.parametrize(
    "entry,field,needle",
    [
        (
            "{estimator: 'brokenmod_ssk:Anything'}",
            "methods[1].estimator",
            "no_such_module_of_sskernels_tests",
        ),
        ("{estimator: 'usermod_ssk:NoFit'}", "methods[1].estimator", "no fit"),
        ("{estimator: usermod_ssk}", "methods[1].estimator", "pkg.module:Class"),
        ("{name: 'usermod_ssk:LabeledKNN'}", "methods[1].name", "estimator:"),
        ("{name: harmonic, estimator: 'usermod_ssk:LabeledKNN'}", "methods[1]", "exactly one"),
        (
            "{estimator: 'usermod_ssk:LabeledKNN', grid: {k: [1, 3]}}",
            "methods[1].grid.k",
            "n_neighbors",
        ),
        (
            "{estimator: 'usermod_ssk:LabeledKNN', grid: {n_neighbors: []}}",
            "methods[1].grid.n_neighbors",
            "non-empty list",
        ),
        (
            "{estimator: 'usermod_ssk:LabeledKNN', params: {k: 3}}",
            "methods[1].params.k",
            "n_neighbors",
        ),
        ("{name: consistency, grid: {alpha: [0.5, 0.9]}}", "methods[1].grid", "registered"),
        ("{name: harmonik}", "methods[1].name", "did you mean 'harmonic'?"),
    ],
)
def test_a_broken_estimator_in_a_spec_is_one_line_at_load(on_path, entry, field, needle):
    spec = small_spec(on_path, f"[harmonic, {entry}]")
    code, out, err = run_cli(["run", spec, "--no-progress"])
    assert code == 2, err
    one_error_line(err, str(spec), f"field '{field}'", needle)
    assert not (on_path / "out" / "records").exists()  # refused before any work


def test_labels_of_the_wrong_length_are_one_line_naming_the_method(on_path):
    spec = small_spec(on_path, "[harmonic, {estimator: 'usermod_ssk:WrongLength', label: Wrong}]")
    code, out, err = run_cli(["run", spec, "--no-progress"])
    assert code == 2, err
    one_error_line(err, str(spec), "usermod_ssk:WrongLength", "(3,)", "178")


def test_a_grid_is_selected_on_the_labeled_points_and_keyed(on_path):
    """``grid:`` wraps the estimator in the selection on the labeled points (its choice is
    recorded) and enters the method's key; a registered method's key has no grid."""
    from sskernels.experiment.collect import load_records
    from sskernels.spec import load_spec, method_key

    spec = small_spec(
        on_path,
        "[harmonic, {estimator: 'usermod_ssk:LabeledKNN', label: G, "
        "grid: {n_neighbors: [1, 3, 5]}}]",
    )
    code, out, err = run_cli(["run", spec, "--no-progress"])
    assert code == 0, err
    s = load_spec(spec)
    assert s.methods[1].grid == {"n_neighbors": [1, 3, 5]} and s.methods[0].grid is None
    rec = load_records(s)
    chosen = rec[rec["method"] == "G"]["selected"].iloc[0]
    assert chosen["n_neighbors"] in (1, 3, 5)
    other = load_spec(
        small_spec(
            on_path,
            "[harmonic, {estimator: 'usermod_ssk:LabeledKNN', "
            "label: G, grid: {n_neighbors: [1, 3]}}]",
        )
    )
    assert method_key(other, other.methods[1]) != method_key(s, s.methods[1])
    assert method_key(other, other.methods[0]) == method_key(s, s.methods[0])


def test_an_edit_of_the_users_module_changes_its_code_key(tmp_path, monkeypatch):
    """The code key of a user's method comes from its own module's source: a change of code
    makes its records stale; a registered method's key does not see it."""
    import importlib

    from sskernels.experiment.plan import method_code
    from sskernels.spec import load_spec

    mod = tmp_path / "editmod_ssk.py"
    mod.write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = small_spec(tmp_path, "[harmonic, {estimator: 'editmod_ssk:LabeledKNN'}]")
    s = load_spec(spec)
    before = [method_code(s, i) for i in range(2)]
    assert "editmod_ssk.py" in before[1]["modules"]
    assert not any("editmod" in m for m in before[0]["modules"])
    mod.write_text(USER_MODULE.replace("n_neighbors=1)", "n_neighbors=2)"))
    os.utime(mod, ns=(mod.stat().st_atime_ns, mod.stat().st_mtime_ns + 10**9))
    importlib.invalidate_caches()
    after = [method_code(s, i) for i in range(2)]
    assert after[1]["code"] != before[1]["code"]
    assert after[0]["code"] == before[0]["code"]


def test_methods_list_shows_the_entry_points(on_path):
    code, out, err = run_cli(["methods", "list"])
    assert code == 0, err
    rows = [
        line
        for line in out.splitlines()
        if line.startswith("│ mine-knn ") or line.startswith("│ broken-knn ")
    ]
    assert len(rows) == 2 and all("entry point" in r for r in rows)
    assert "cannot be used" in next(r for r in rows if "broken-knn" in r)
    assert "│ yes " in next(r for r in rows if "mine-knn" in r)  # it has predict


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_users_exception_is_one_line_and_its_own_traceback_under_debug(
    user_dir, tmp_path, jobs, monkeypatch, capfd
):
    """The user's fit raising: one line naming the method (exit 2); with ``--debug`` the
    traceback shows the user's own frames, also when the fit ran in a worker process.

    With ``--jobs 2`` the spec has two splits: a single task is fitted in the run's own
    process whatever ``--jobs`` says (runner._execute), two go to the local pool's spawned
    workers (checked: the pool was handed them).  Nothing else reaches stderr: the workers
    write to this process's file descriptor 2, which ``capfd`` reads."""
    from sskernels.experiment.executors import LocalExecutor

    pooled, imap = [], LocalExecutor.imap

    def spy(self, state, artifacts, tasks):
        pooled.append(list(tasks))
        return imap(self, state, artifacts, tasks)

    monkeypatch.setattr(LocalExecutor, "imap", spy)
    spec = small_spec(
        tmp_path, "[{estimator: 'usermod_ssk:RaisesInFit', label: Boom}]", n_splits=int(jobs)
    )
    env = env_with(tmp_path, user_dir)
    args = ["run", spec, "--no-progress", "--jobs", jobs]
    res = sskernels(args, env, tmp_path)
    assert res.returncode == 2, res.stderr
    one_error_line(res.stderr, "Boom", "FloatingPointError")
    res = sskernels(["--debug", *args], env, tmp_path)
    assert res.returncode == 2, res.stderr
    assert "usermod_ssk.py" in res.stderr and "_users_own_helper" in res.stderr, res.stderr
    assert "return X[:, 0] / 0" in res.stderr
    assert res.stderr.splitlines()[-1].startswith("error: ")
    assert len(pooled) == (2 if jobs == "2" else 0), pooled  # both runs' fits in workers
    assert capfd.readouterr().err == ""  # no worker wrote to stderr
