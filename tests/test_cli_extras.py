"""``sskernels --version``, "did you mean" for a misspelt method, the paper rows of a spec
(``paper_row:``, labels for display only) and the packaged specs (``get-configs``, a spec
path that names one)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_cli

from sskernels.errors import SpecError
from sskernels.spec import load_spec, method_key, parse_spec

REPO = Path(__file__).resolve().parents[1]
LIU = "liu2009_table3_uci_transductive_accuracy"


def env(tmp):
    e = {k: v for k, v in os.environ.items() if not k.startswith("SSKERNELS_")}
    e["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else [])
    )
    e["SSKERNELS_DATA_DIR"] = str(Path(tmp) / "cache")
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        e[k] = "1"
    e["COLUMNS"] = "200"
    return e


def sskernels(args, tmp, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "sskernels", *map(str, args)],
        env=env(tmp),
        cwd=cwd or tmp,
        capture_output=True,
        text=True,
        timeout=300,
    )


# ------------------------------------------------------------------------------- --version


def project_version():
    """``[project] version`` of pyproject.toml."""
    text = (REPO / "pyproject.toml").read_text()
    return re.search(r'^\[project\]$.*?^version = "([^"]+)"$', text, re.S | re.M).group(1)


def test_version_prints_the_projects_version_and_exits_0(tmp_path):
    version = project_version()
    res = sskernels(["--version"], tmp_path)
    assert (res.returncode, res.stdout, res.stderr) == (0, f"sskernels {version}\n", "")
    import sskernels as pkg

    assert pkg.__version__ == version
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)


# ------------------------------------------------------------------------------ did you mean


def _spec(tmp_path, methods, paper=True, **extra):
    raw = {"dataset": "sklearn-wine", "methods": methods, "output": str(tmp_path / "o"), **extra}
    if paper:
        raw["paper"] = {"table": LIU, "dataset": "wine"}
    return parse_spec(raw, tmp_path / "spec.yaml")


def _error(tmp_path, methods, paper=True):
    with pytest.raises(SpecError) as exc:
        _spec(tmp_path, methods, paper)
    return exc.value


@pytest.mark.parametrize(
    "name,close",
    [
        ("harmonik", "harmonic"),
        ("consistancy", "consistency"),
        ("label-spreadin", "label-spreading"),
    ],
)
def test_a_misspelt_method_name_gets_did_you_mean(tmp_path, name, close):
    err = _error(tmp_path, ["harmonic", {"name": name, "label": "x"}])
    assert err.field == "methods[1].name" and f"did you mean {close!r}?" in str(err)
    assert "\n" not in str(err)


def test_a_name_far_from_every_method_gets_the_list_only(tmp_path):
    err = _error(tmp_path, [{"name": "zzzzqqq"}])
    assert "did you mean" not in str(err) and "harmonic" in str(err)


def test_the_cli_says_did_you_mean_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "s.yaml"
    spec.write_text(f"dataset: sklearn-wine\nmethods: [tks]\noutput: {tmp_path / 'o'}\n")
    code, out, err = run_cli(["run", spec])
    assert code == 2 and len(err.splitlines()) == 1, err
    assert str(spec) in err and "field 'methods[0].name'" in err and "did you mean 'tsk'?" in err


# -------------------------------------------------------------------------------- paper rows


def test_a_label_that_is_a_paper_row_is_compared_with_it(tmp_path):
    s = _spec(
        tmp_path,
        ["harmonic", {"name": "tsk", "label": "TSK"}, {"name": "tsk", "label": "TSK (mine)"}],
    )
    assert [m.paper for m in s.methods] == ["harmonic", "TSK", None]


def test_paper_row_and_its_old_name_paper(tmp_path):
    s = _spec(
        tmp_path,
        [
            {"name": "tsk", "label": "a", "paper_row": "TSK"},
            {"name": "tsk", "label": "b", "paper": "TSK"},
            {"name": "harmonic", "paper_row": None},
        ],
    )
    assert [m.paper for m in s.methods] == ["TSK", "TSK", None]
    err = _error(tmp_path, [{"name": "tsk", "paper_row": "TSK", "paper": "TSK"}])
    assert err.field == "methods[0].paper"


def test_a_label_matching_a_row_only_in_case_is_refused(tmp_path):
    err = _error(tmp_path, [{"name": "tsk", "label": "tsk"}])
    assert err.field == "methods[0].label" and "did you mean paper_row: TSK?" in str(err)
    err = _error(tmp_path, ["harmonic", {"name": "consistency", "label": "Consistency"}])
    assert err.field == "methods[1].label" and "paper_row: consistency?" in str(err)
    # a method's name taken as its label (once a silent miss) is refused the same way
    err = _error(tmp_path, ["harmonic", "tsk"])
    assert err.field == "methods[1].name" and "did you mean paper_row: TSK?" in str(err)
    s = _spec(
        tmp_path,
        [
            "harmonic",
            {"name": "tsk", "paper_row": "TSK"},
            {"name": "tsk", "label": "t2", "paper_row": None},
        ],
    )
    assert [m.paper for m in s.methods] == ["harmonic", "TSK", None]


@pytest.mark.parametrize("field", ["paper_row", "paper"])
def test_a_paper_row_not_in_the_paper_table_is_refused(tmp_path, field):
    err = _error(tmp_path, [{"name": "tsk", "label": "x", field: "Tsk"}])
    assert err.field == f"methods[0].{field}" and "did you mean paper_row: TSK?" in str(err)
    err = _error(tmp_path, [{"name": "rsk", field: "RSK"}])
    assert err.field == f"methods[0].{field}" and LIU in str(err)


def test_without_a_paper_table_nothing_is_compared_by_default(tmp_path):
    s = _spec(
        tmp_path,
        [{"name": "tsk", "label": "TSK"}, {"name": "tsk", "label": "b", "paper_row": "TSK"}],
        paper=False,
    )
    assert [m.paper for m in s.methods] == [None, "TSK"]


def test_the_summary_compares_with_the_specs_paper_row_not_the_records(tmp_path):
    """Records written when the label was the paper row (``paper: TSK`` in them) are
    compared with the row the spec names now: none for a label that is not a row."""
    from sskernels.experiment.tables import summarize

    s = _spec(
        tmp_path,
        [
            {"name": "tsk", "label": "TSK"},
            {"name": "tsk", "label": "T2"},
            {"name": "tsk", "label": "T3", "paper_row": "TSK"},
        ],
    )
    rows = []
    for label in ("TSK", "T2", "T3"):
        for i in range(3):
            rows.append(
                {
                    "table": "t",
                    "dataset": "wine",
                    "setting": "20 labeled",
                    "method": label,
                    "paper": "TSK",
                    "split": i,
                    "seconds": 0.1,
                    "n_labeled": 20,
                    "metric": "accuracy",
                    "value": 70.0 + i,
                }
            )
    df = summarize(pd.DataFrame(rows), s).set_index("method")
    assert df.loc["TSK", "paper_mean"] == 72.28 and df.loc["T3", "paper_mean"] == 72.28
    assert np.isnan(df.loc["T2", "paper_mean"]) and df.loc["T2", "paper_cell"] == ""


def test_a_registered_methods_key_has_no_grid(tmp_path):
    """``grid`` enters a method's key only when set: every existing key is unchanged."""
    from sskernels.hashing import json_digest

    s = _spec(tmp_path, ["harmonic"])
    m = s.methods[0]
    assert m.grid is None
    assert method_key(s, m) == json_digest(
        {"data": s.data_key(graph=True), "name": "harmonic", "params": {}}, length=16
    )


# ---------------------------------------------------------------------------- packaged specs


def test_get_configs_lists_and_writes_the_packaged_specs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shipped = sorted(
        p.relative_to(REPO / "configs").as_posix() for p in (REPO / "configs").rglob("*.yaml")
    )
    code, out, err = run_cli(["get-configs", "--list"])
    assert code == 0, err
    assert out.split() == shipped and "liu2009/heart.yaml" in shipped
    code, out, err = run_cli(["get-configs", "mine"])
    assert code == 0, err
    written = sorted(
        p.relative_to(tmp_path / "mine").as_posix() for p in (tmp_path / "mine").rglob("*.yaml")
    )
    assert written == shipped
    assert (tmp_path / "mine/liu2009/heart.yaml").read_bytes() == (
        REPO / "configs/liu2009/heart.yaml"
    ).read_bytes()
    (tmp_path / "mine/liu2009/heart.yaml").write_text("changed\n")
    code, out, err = run_cli(["get-configs", "mine"])
    assert code == 2 and "--force" in err and len(err.splitlines()) == 1
    code, out, err = run_cli(["get-configs", "mine", "--force"])
    assert (
        code == 0
        and (tmp_path / "mine/liu2009/heart.yaml").read_bytes()
        == (REPO / "configs/liu2009/heart.yaml").read_bytes()
    )


def test_a_packaged_specs_output_goes_under_the_current_directory(tmp_path, monkeypatch):
    from sskernels.spec_packaged import packaged_output_base, packaged_spec

    monkeypatch.chdir(tmp_path)
    for arg in ("liu2009/heart.yaml", "configs/liu2009/heart.yaml"):
        found = packaged_spec(arg)
        assert (
            found is not None
            and found.read_bytes() == (REPO / "configs/liu2009/heart.yaml").read_bytes()
        )
        spec = load_spec(found, output_base=packaged_output_base(found))
        assert Path(spec.output) == tmp_path / "results/liu2009/runs/heart"
    assert packaged_spec("liu2009/no_such.yaml") is None
    assert packaged_spec("../configs/liu2009/heart.yaml") is None
    (tmp_path / "liu2009").mkdir()
    (tmp_path / "liu2009/heart.yaml").write_text("x: 1\n")
    assert packaged_spec("liu2009/heart.yaml") is None  # a file here wins


def test_run_takes_a_packaged_spec_when_no_such_file_is_here(tmp_path, monkeypatch):
    """From a folder outside the repository: the packaged wine_default.yaml, said on stderr
    in one line; its records and summary under the current directory.  A name that is
    neither a file there nor a packaged spec: exit 2 naming it (in this process)."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    res = sskernels(
        ["run", "wine_default.yaml", "--splits", "1", "--no-progress"], tmp_path, cwd=cwd
    )
    assert res.returncode == 0, res.stderr
    notes = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(notes) == 1 and "packaged spec" in notes[0] and "wine_default.yaml" in notes[0]
    out = cwd / "results/runs/wine_default"
    assert (out / "summary.csv").is_file()
    assert len(list((out / "records").rglob("split_000.json"))) == 7
    monkeypatch.chdir(cwd)
    code, _, err = run_cli(["run", "no_such_spec.yaml"])
    assert code == 2 and "no_such_spec.yaml" in err, err


# ------------------------------------------------------------------------------------ README


def test_the_readmes_library_example_runs(tmp_path):
    """The first Python block of README.md, run as it is from a folder outside the
    repository: it prints the accuracy on the hidden labels (94.9 % on this split)."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len([line for line in block.splitlines() if line.strip()]) <= 11
    res = subprocess.run(
        [sys.executable, "-c", block],
        env=env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    m = re.fullmatch(r"accuracy on the hidden labels: (\d+\.\d)%\n", res.stdout)
    assert m and 85.0 <= float(m.group(1)) <= 100.0, res.stdout


def test_the_readmes_first_screen(tmp_path):
    """Install, the two make commands as the Makefile names them, the links; no path outside
    the repository."""
    text = (REPO / "README.md").read_text()
    first = text[: text.index("\n## ")]
    assert "pip install ." in first and "make setup" in first
    assert (
        "make run     # set up .venv, then run the default experiment (scikit-learn's "
        "bundled wine data, no network)"
    ) in first
    assert (
        "make test    # the test suite: unit tests, equation checks, CLI tests, table "
        "regressions" in first
    )
    assert "docs/_build/html/index.html" in first and "results/README.md" in first
    assert (REPO / "results/README.md").is_file()
    assert "../" not in text and "shared/datasets" not in text
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        if not target.startswith("http"):
            assert (REPO / target).exists(), target


def test_the_data_registry_loads_without_scikit_learn_or_pandas():
    """`sskernels datasets list` only reads the registry: importing it pulls in neither
    scikit-learn nor pandas (importing them took 1.5-2 s of the command's 2-10 s)."""
    import subprocess
    import sys

    code = (
        "import sys, sskernels.data; "
        "print(sorted(m for m in ('sklearn', 'pandas') if m in sys.modules))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"
