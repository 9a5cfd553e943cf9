"""A record's identity in one module (``sskernels.experiment.identity``), and ``run --dry-run``.

* the key is built from its parts in ``identity`` only: ``records`` and ``plan`` hand out the
  same functions, and a new record stores every part of its key (the spec part included);
* ``dry_run`` on a committed spec with its archive computes nothing; after a simulated edit
  of ``graph/knn.py`` (its digest changed, the file untouched) it names the file and every
  method whose closure holds it;
* the reasons: new, data changed, parameters changed, versions changed, key differs.
"""

import dataclasses
import shutil
from pathlib import Path

import pytest
from conftest import require_data

from sskernels import provenance
from sskernels.experiment import identity, plan, records
from sskernels.experiment.identity import dry_run_text, record_key, stale_reasons
from sskernels.experiment.runner import dry_run, run_spec
from sskernels.spec import load_spec, method_key, parse_spec

REPO = Path(__file__).resolve().parents[1]
HEART = REPO / "configs" / "liu2009" / "heart.yaml"


def _small(tmp_path, methods=("harmonic", "svm")):
    return parse_spec(
        {
            "name": "demo",
            "dataset": "sklearn-wine",
            "preprocess": "minmax",
            "splits": {"n_splits": 2, "n_labeled": [10]},
            "methods": list(methods),
            "output": str(tmp_path / "demo"),
        }
    )


def test_the_key_is_built_in_one_module():
    # the store and the plan hand out identity's functions, not copies of them
    assert records.record_key is identity.record_key
    assert records.data_fingerprint is identity.data_fingerprint
    assert records.data_code_key is identity.data_code_key
    assert plan.fitted_points is identity.fitted_points
    assert plan.optional_libraries is identity.optional_libraries


def test_a_run_builds_its_keys_through_identity_and_stores_their_parts(tmp_path, monkeypatch):
    calls = []
    real = identity.record_key

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(identity, "record_key", counted)
    spec = _small(tmp_path)
    df = run_spec(spec, progress=False, reuse=False)
    assert len(calls) == len(spec.methods) and len(df) == 4
    for path in sorted((tmp_path / "demo" / "records").rglob("split_*.json")):
        import json

        rec = json.loads(path.read_text())
        prov = rec["provenance"]
        mi = [m.label for m in spec.methods].index(rec["method"])
        assert prov["method_key"] == method_key(spec, spec.methods[mi])
        # the record's parts give its key back
        assert rec["key"] == real(prov["method_key"], rec["data_fingerprint"], prov["code"])


@pytest.fixture
def heart(tmp_path, monkeypatch):
    """The committed heart spec with its output folder in tmp_path, holding only its archive
    (a fresh clone); its data from the mirror (a missing mirror fails under CI, skips
    elsewhere: :func:`conftest.require_data`)."""
    mirror = require_data("heart", who="tests/test_identity.py")
    monkeypatch.setenv("SSKERNELS_DATA_MIRROR", str(mirror))
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    spec = load_spec(HEART)
    archive = Path(spec.output).with_name(Path(spec.output).name + ".records.jsonl.gz")
    out = tmp_path / "heart"
    shutil.copy(archive, tmp_path / archive.name.replace(Path(spec.output).name, "heart", 1))
    return dataclasses.replace(spec, output=str(out))


@pytest.mark.regression  # the committed archive's keys hold the pinned versions
def test_dry_run_of_a_committed_spec_computes_nothing(heart):
    df = dry_run([heart])
    assert not df["compute"].any()
    assert set(df["reason"]) == {"in the archive"}
    assert df["records"].sum() == len(heart.methods) * 20
    assert dry_run_text(df).splitlines()[0].endswith(": 0 of 260 records to compute")
    assert not Path(heart.output).exists()  # nothing written


@pytest.mark.regression  # the committed archive's keys hold the pinned versions
def test_dry_run_after_an_edit_of_knn_names_the_file_and_the_methods(heart, monkeypatch):
    real = provenance.module_digest

    def edited(name, root=None):  # graph/knn.py's code changed, the file itself untouched
        return "0" * 64 if name == "sskernels.graph.knn" else real(name, root)

    monkeypatch.setattr(provenance, "module_digest", edited)
    df = dry_run([heart])
    todo = df[df["compute"]]
    assert set(todo["reason"]) == {"code of sskernels/graph/knn.py changed"}
    # every method whose code holds graph/knn.py: those that build a graph
    holds = [
        m.label
        for i, m in enumerate(heart.methods)
        if "sskernels/graph/knn.py" in plan.method_code(heart, i)["modules"]
    ]
    assert sorted(todo["method"]) == sorted(holds) and holds
    assert not any(label.startswith(("SVM", "1-NN", "sklearn")) for label in holds)
    text = dry_run_text(df)
    assert "sskernels/graph/knn.py" in text
    assert all(f"  {label}: 20  code of sskernels/graph/knn.py changed" in text for label in holds)


def test_dry_run_says_new_then_current_then_parameters_changed(tmp_path):
    spec = _small(tmp_path, methods=("harmonic",))
    assert dry_run([spec])["reason"].tolist() == ["new"]
    run_spec(spec, progress=False, reuse=False)
    assert dry_run([spec])["reason"].tolist() == ["current"]
    other = dataclasses.replace(
        spec,
        methods=[
            dataclasses.replace(
                spec.methods[0], params={**spec.methods[0].params, "class_mass_normalization": True}
            )
        ],
    )
    df = dry_run([other])
    assert df["compute"].all() and set(df["reason"]) == {"parameters changed"}


def _wanted(**over):
    base = {
        "key": "new",
        "method_key": "m",
        "data_fingerprint": "d",
        "code": "c",
        "modules": {"sskernels/a.py": "1", "estimator": "e", "flags": "f"},
        "versions": {"sskernels": "0.1.0", "numpy": "2.4.6"},
    }
    return {**base, **over}


def _stored(**prov):
    base = {
        "code": "c",
        "modules": {"sskernels/a.py": "1", "estimator": "e", "flags": "f"},
        "sskernels": "0.1.0",
        "numpy": "2.4.6",
    }
    return {"key": "old", "data_fingerprint": "d", "provenance": {**base, **prov}}


def test_stale_reasons():
    assert stale_reasons(_stored(), _wanted(key="old")) == []
    assert stale_reasons(None, _wanted()) == ["new"]
    # an old record (no spec part stored) with the same code and data: the spec part
    assert stale_reasons(_stored(), _wanted()) == ["parameters changed"]
    assert stale_reasons(_stored(method_key="m0"), _wanted()) == ["parameters changed"]
    assert stale_reasons({**_stored(), "data_fingerprint": "d0"}, _wanted(code="c2")) == [
        "data changed"
    ]
    assert stale_reasons(_stored(numpy="2.3.0"), _wanted(code="c2")) == [
        "versions changed (numpy 2.3.0 -> 2.4.6)"
    ]
    assert stale_reasons(
        _stored(modules={"sskernels/a.py": "1", "estimator": "e0", "flags": "f"}),
        _wanted(code="c2"),
    ) == ["parameters changed"]
    assert stale_reasons(
        _stored(
            modules={"sskernels/a.py": "0", "sskernels/b.py": "1", "estimator": "e", "flags": "f"}
        ),
        _wanted(code="c2"),
    ) == ["code of sskernels/a.py, sskernels/b.py changed"]
    assert stale_reasons({"key": "old"}, _wanted()) == ["key differs"]


def test_the_hashes_of_the_parts_are_those_of_before():
    # pinned to the values the code gave before it moved here (the committed records' keys
    # depend on them): the key of three parts, a fingerprint with string and integer classes
    import numpy as np

    assert record_key("a", "b", "c") == "1e424c7cfae4e732"
    X = np.arange(6.0).reshape(3, 2)
    assert (
        identity.data_fingerprint(
            X, [0, 1, 1], np.array(["x", "y"]), extra=(None, [np.array([0, 2])])
        )
        == "b7a10fd0d72caf94"
    )
    assert identity.data_fingerprint(np.eye(2), [0, 1], np.array([3, 7])) == "f9c8a455a25aad46"


# ------------------------------------------------------------- the command, on an edited copy


@pytest.mark.regression  # the committed archive's keys hold the pinned versions
def test_run_dry_run_after_an_edit_of_knn_in_a_copy_of_the_package(tmp_path):
    """``sskernels run --dry-run`` as a user runs it: the committed heart spec on its archive
    (a fresh clone's output folder), then with a package copy whose graph/knn.py has one more
    function: every method whose code holds knn.py is named, with the file."""
    import re

    from test_spec_cli import cli_env, sskernels

    require_data("heart", who="tests/test_identity.py")
    spec = load_spec(HEART)
    text, n = re.subn(r"(?m)^output: .*$", f"output: {tmp_path / 'heart'}", HEART.read_text())
    assert n == 1
    (tmp_path / "heart.yaml").write_text(text)
    archive = Path(spec.output).with_name(Path(spec.output).name + ".records.jsonl.gz")
    shutil.copy(archive, tmp_path / "heart.records.jsonl.gz")
    env = cli_env(tmp_path)
    args = ["run", "--dry-run", tmp_path / "heart.yaml"]
    res = sskernels(args, env, tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].endswith("(liu2009_heart): 0 of 260 records to compute")

    copy = tmp_path / "pkg"
    shutil.copytree(
        REPO / "sskernels", copy / "sskernels", ignore=shutil.ignore_patterns("__pycache__")
    )
    knn = copy / "sskernels" / "graph" / "knn.py"
    knn.write_text(knn.read_text() + "\n\ndef _edited():\n    return 1\n")
    res = sskernels(args, dict(env, PYTHONPATH=str(copy)), tmp_path)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    named = {
        m.group(1)
        for m in map(
            re.compile(r"  (.+): 20  code of sskernels/graph/knn\.py changed$").match, lines[1:]
        )
        if m
    }
    holds = {
        m.label
        for i, m in enumerate(spec.methods)
        if "sskernels/graph/knn.py" in plan.method_code(spec, i)["modules"]
    }
    # the methods that build a graph, not the SVM, the 1-NN or scikit-learn's peers
    assert lines[0].endswith(f"(liu2009_heart): {20 * len(holds)} of 260 records to compute")
    assert named == holds and holds < {m.label for m in spec.methods}
    assert "sklearn LabelSpreading (knn, k=6)" not in named
    assert {"TSK", "LapSVM", "TSK+SVM"} <= named
    assert not (tmp_path / "heart").exists()  # nothing written
