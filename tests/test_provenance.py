"""Provenance: a record's key covers the data's content and the code, so stale records are
recomputed by ``run`` and refused by ``table``; every record says what produced it."""

import json
import re
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import load_wine

from sskernels import provenance as prov
from sskernels.errors import UserError
from sskernels.experiment import plan, runner
from sskernels.experiment.tasks import method_code_modules
from sskernels.hashing import json_digest
from sskernels.experiment.collect import load_records
from sskernels.experiment.runner import run_spec
from sskernels.solvers.report import FitReport, SolveInfo
from sskernels.spec import load_spec, parse_spec

SPEC = """\
name: wine_csv
dataset: {{file: wine.csv, label: class}}
preprocess: minmax
graph: {{k: 6}}
splits: {{n_splits: 3, n_labeled: 10, seed: 0}}
methods: [harmonic]
output: {output}
"""


def write_wine_csv(path, relabel=False):
    """scikit-learn's wine data as a CSV with a ``class`` column; ``relabel`` shifts the
    class of rows 2-40 by one."""
    X, y = load_wine(return_X_y=True)
    if relabel:
        y = y.copy()
        y[2:41] = (y[2:41] + 1) % 3
    header = ",".join([f"f{j}" for j in range(X.shape[1])] + ["class"])
    lines = [header] + [
        ",".join([repr(float(v)) for v in row] + [str(lab)]) for row, lab in zip(X, y)
    ]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def wine_csv_spec(tmp_path):
    write_wine_csv(tmp_path / "wine.csv")
    path = tmp_path / "wine_csv.yaml"
    path.write_text(SPEC.format(output=tmp_path / "out"))
    return path


@pytest.fixture
def tasks_run(monkeypatch):
    """The tasks the runner executes from now on (the task function wrapped with a counter)."""
    ran = []
    task = runner.run_record

    def counting(t, prep):
        ran.append(t)
        return task(t, prep)

    monkeypatch.setattr(runner, "run_record", counting)
    return ran


def records(out):
    """``{record file name: record}`` of an output folder."""
    return {
        p.relative_to(out).as_posix(): json.loads(p.read_text())
        for p in sorted((out / "records").rglob("split_*.json"))
    }


def mtimes(out):
    return {p: p.stat().st_mtime_ns for p in (out / "records").rglob("split_*.json")}


# ---------------------------------------------------------------------------- record keys


def test_rerun_unchanged_reuses_every_record(wine_csv_spec, tasks_run):
    spec = load_spec(wine_csv_spec)
    out = wine_csv_spec.parent / "out"
    first = run_spec(spec, progress=False)
    assert len(tasks_run) == 3
    before = mtimes(out)
    again = run_spec(load_spec(wine_csv_spec), progress=False)
    assert len(tasks_run) == 3  # 0 tasks the second time
    assert mtimes(out) == before
    assert again["value"].tolist() == first["value"].tolist()
    recs = records(out)
    assert len(recs) == 3
    for rec in recs.values():
        assert {k: rec["provenance"][k] for k in prov.provenance()} == prov.provenance()
        assert rec["provenance"]["code"] == plan.method_code(spec, 0)["code"]
        assert rec["report"].keys() == {"solvers", "notes"}
        assert (
            rec["data_fingerprint"]
            == json.loads((out / "data_fingerprint.json").read_text())["data_fingerprint"]
        )


def test_edited_data_file_recomputes_every_record(wine_csv_spec, tasks_run):
    out = wine_csv_spec.parent / "out"
    first = run_spec(load_spec(wine_csv_spec), progress=False)
    old, old_fp = records(out), (out / "data_fingerprint.json").read_text()

    write_wine_csv(wine_csv_spec.parent / "wine.csv", relabel=True)  # same path, new content
    second = run_spec(load_spec(wine_csv_spec), progress=False)
    assert len(tasks_run) == 6  # all three recomputed
    new = records(out)
    assert new.keys() == old.keys()
    assert all(new[p]["key"] != old[p]["key"] for p in new)
    assert (out / "data_fingerprint.json").read_text() != old_fp
    assert second["value"].tolist() != first["value"].tolist()
    assert [r["metrics"]["accuracy"] for r in new.values()] == second["value"].tolist()


def changed_code(monkeypatch, module):
    """From now on ``module``'s code hashes as if it had been edited."""
    real = prov.module_digest
    monkeypatch.setattr(
        prov,
        "module_digest",
        lambda name, root=None: ("edited" if name == module else "") + real(name, root),
    )


def test_changed_code_recomputes_every_record(wine_csv_spec, tasks_run, monkeypatch):
    out = wine_csv_spec.parent / "out"
    first = run_spec(load_spec(wine_csv_spec), progress=False)
    old = records(out)
    assert len(tasks_run) == 3

    changed_code(monkeypatch, "sskernels.learners.propagation")
    second = run_spec(load_spec(wine_csv_spec), progress=False)
    assert len(tasks_run) == 6
    new = records(out)
    assert all(new[p]["key"] != old[p]["key"] for p in new)
    assert second["value"].tolist() == first["value"].tolist()  # the same code really ran
    run_spec(load_spec(wine_csv_spec), progress=False)
    assert len(tasks_run) == 6  # and is reused from now on


# ---------------------------------------------------------------------------- provenance()


def test_provenance_has_every_key_and_string_versions():
    import numpy

    info = prov.provenance()
    assert set(info) == {
        "sskernels",
        "git_commit",
        "git_dirty",
        "python",
        "numpy",
        "scipy",
        "scikit-learn",
        "highspy",
    }
    for lib in ("sskernels", "python", "numpy", "scipy", "scikit-learn", "highspy"):
        assert isinstance(info[lib], str) and info[lib], lib
    assert info["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", info["git_commit"])
    assert info["git_dirty"] in (True, False, None)
    header = prov.summary_header()
    assert f"numpy {numpy.__version__}" in header and "\n" not in header
    assert header.startswith(f"sskernels {info['sskernels']}")
    # a copy: a caller's change does not leak into the cached description
    info["numpy"] = "0"
    assert prov.provenance()["numpy"] == numpy.__version__


def test_code_key_ignores_the_commit_but_not_the_code_or_libraries(monkeypatch):
    base = dict(prov.provenance())
    digests = prov.code_modules(["sskernels.solvers.cg"])
    key = prov.key_of(digests)
    assert re.fullmatch(r"[0-9a-f]{16}", key) and key == prov.code_key(["sskernels.solvers.cg"])

    def key_with(**changes):
        monkeypatch.setattr(prov, "_provenance", lambda: {**base, **changes})
        return prov.key_of(digests)

    assert key_with(git_commit="0" * 40, git_dirty=not base["git_dirty"]) == key
    assert key_with(numpy="0.0.1") != key
    assert key_with(highspy="0.0.1") != key
    monkeypatch.undo()
    assert prov.key_of({**digests, "sskernels.solvers.cg": "0" * 32}) != key


def test_record_key_of_a_method_is_its_code_key(wine_csv_spec):
    """The record key holds the method's own code key: the same for a spec run twice, another
    for a method whose code differs."""
    spec = load_spec(wine_csv_spec)
    code = plan.method_code(spec, 0)
    est = plan.build(spec, spec.methods[0])
    run = plan.method_run(spec, 0)
    assert code["code"] == prov.key_of(
        {
            **prov.code_modules(method_code_modules(est)),
            "estimator": prov.estimator_digest(est),
            "flags": json_digest(run.flags()),
        }
    )
    assert code["modules"]["estimator"] == prov.estimator_digest(est)[:12]
    assert "sskernels/learners/propagation.py" in code["modules"]
    assert "sskernels/learners/spectral.py" not in code["modules"]


# ---------------------------------------------------------------------------- sskernels table


def run_main(monkeypatch, capsys, *args):
    """``sskernels ARGS`` in this process, as the console script runs it: (exit code, stderr)."""
    from sskernels import cli

    monkeypatch.setattr(sys, "argv", ["sskernels", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    return exc.value.code, capsys.readouterr().err


def assert_one_line(err, *needles):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_table_rerenders_current_records(wine_csv_spec, tmp_path):
    from typer.testing import CliRunner

    from sskernels.cli import app

    run_spec(load_spec(wine_csv_spec), progress=False)
    res = CliRunner().invoke(app, ["table", str(wine_csv_spec), "-o", str(tmp_path / "t")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "t.csv").is_file()


def test_table_on_records_of_other_code_exits_2_with_one_line(
    wine_csv_spec, tmp_path, monkeypatch, capsys
):
    from typer.testing import CliRunner

    from sskernels.cli import app

    run_spec(load_spec(wine_csv_spec), progress=False)
    changed_code(monkeypatch, "sskernels.learners.propagation")
    res = CliRunner().invoke(app, ["table", str(wine_csv_spec), "-o", str(tmp_path / "t")])
    assert isinstance(res.exception, UserError)
    code, err = run_main(monkeypatch, capsys, "table", wine_csv_spec, "-o", tmp_path / "t")
    assert code == 2
    assert_one_line(
        err,
        str(wine_csv_spec),
        "stale",
        "sskernels run",
        "code changed in sskernels/learners/propagation.py",
    )
    assert not (tmp_path / "t.csv").exists()


def test_table_without_data_fingerprint_counts_records_as_stale(
    wine_csv_spec, tmp_path, monkeypatch, capsys
):
    out = wine_csv_spec.parent / "out"
    run_spec(load_spec(wine_csv_spec), progress=False)
    (out / "data_fingerprint.json").unlink()
    with pytest.raises(UserError, match="3 record.* stale"):
        load_records(load_spec(wine_csv_spec))
    code, err = run_main(monkeypatch, capsys, "table", wine_csv_spec, "-o", tmp_path / "t")
    assert code == 2
    assert_one_line(err, "stale", "sskernels run")


def test_table_without_records_exits_2_with_one_line(wine_csv_spec, tmp_path, monkeypatch, capsys):
    code, err = run_main(monkeypatch, capsys, "table", wine_csv_spec, "-o", tmp_path / "t")
    assert code == 2
    assert_one_line(err, str(wine_csv_spec), "missing", "sskernels run")


# ---------------------------------------------------------------------------- fit reports


class FakeSelector:
    """Stands for a model-selection wrapper: public precompute, best_params_, fit_report_."""

    precomputed = []

    def __init__(self, **params):
        pass

    def precompute(self, X):
        FakeSelector.precomputed.append(X.shape)

    def _graph(self, X):
        raise AssertionError("the runner must not reach into _graph when precompute exists")

    def fit(self, X, y):
        self.transduction_ = np.where(y == -1, 0, y)
        self.best_params_ = {"beta": np.float64(10.0), "grid": (np.int64(1), 2), "kernel": "tsk"}
        self.best_estimator_ = SimpleNamespace(
            selected_params_={"beta_": np.float64(10.0), "mu_": np.array([0.5, 0.25])}
        )
        self.fit_report_ = FitReport()
        self.fit_report_.add(SolveInfo("highs-lp", fallback="lp highs->nnls (test)"))
        return self


class FakePeer:
    """Stands for a foreign (scikit-learn peer) estimator: no fit_report_, no precompute;
    the runner must not reach into its private ``_graph``."""

    spectra = []

    def __init__(self, n_components=None, **params):
        self.n_components = n_components

    def _graph(self, X):
        return SimpleNamespace(spectrum=lambda m: FakePeer.spectra.append(m))

    def fit(self, X, y):
        self.transduction_ = np.where(y == -1, 0, y)
        self.beta_ = np.float32(0.5)
        return self

    @property
    def selected_params_(self):  # the estimator's own hook: what it selected
        return {"beta_": self.beta_}


def test_record_holds_fit_report_and_selected_parameters(tmp_path, monkeypatch):
    FakeSelector.precomputed.clear()
    FakePeer.spectra.clear()
    fakes = {"harmonic": FakeSelector, "tsk": FakePeer}
    monkeypatch.setattr(plan, "make_method", lambda name, **params: fakes[name](**params))
    spec = parse_spec(
        {
            "dataset": "sklearn-wine",
            "splits": {"n_splits": 1, "n_labeled": 10},
            "methods": ["harmonic", {"name": "tsk", "params": {"n_components": 7}}],
            "output": str(tmp_path / "out"),
        },
        tmp_path / "fake.yaml",
    )
    run_spec(spec, progress=False)
    assert FakeSelector.precomputed == [(178, 13)]
    assert FakePeer.spectra == []  # no reaching into estimator internals
    recs = records(tmp_path / "out")
    sel = recs["records/harmonic/10_labeled/split_000.json"]
    assert sel["selected"] == {
        "beta": 10.0,
        "grid": [1, 2],
        "kernel": "tsk",
        "beta_": 10.0,
        "mu_": [0.5, 0.25],
    }
    assert sel["report"] == {"solvers": ["highs-lp"], "notes": ["fallback: lp highs->nnls (test)"]}
    peer = recs["records/tsk/10_labeled/split_000.json"]
    assert peer["selected"] == {"beta_": 0.5}
    assert peer["report"] == {"solvers": [], "notes": []}
