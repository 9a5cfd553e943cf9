"""The heavy graph libraries are an extra (``pip install 'sskernels[scale]'``).

* Without hnswlib, pynndescent and numba, ``import sskernels`` works and the default run
  (``make run``'s spec) computes its table: they are imported only by the searches that
  use them.
* A spec whose graph needs one of them refuses, before any graph is built, in one line that
  names the spec, the method, the library and the extra to install (exit 2).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import run_cli

from sskernels.experiment.plan import missing_extras
from sskernels.learners import make_method

REPO = Path(__file__).resolve().parent.parent

#: a process in which the scale extra's libraries cannot be imported
_WITHOUT_SCALE = textwrap.dedent("""\
    import sys

    BLOCKED = {"hnswlib", "pynndescent", "numba", "llvmlite"}


    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
            return None


    sys.meta_path.insert(0, Block())
    sys.argv = ["sskernels", *sys.argv[1:]]
    from sskernels.cli import main

    main()
    """)


def _without_scale(tmp_path, *args):
    script = tmp_path / "without_scale.py"
    script.write_text(_WITHOUT_SCALE)
    return subprocess.run(
        [sys.executable, str(script), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )


def test_the_default_run_needs_no_extra(tmp_path):
    spec = tmp_path / "wine.yaml"
    text = (REPO / "configs" / "wine_default.yaml").read_text()
    spec.write_text(text.replace("output:", "# output:") + f"\noutput: {tmp_path / 'out'}\n")
    res = _without_scale(tmp_path, "run", spec, "--splits", "1", "--no-progress")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "out" / "summary.csv").exists()
    assert "blocked by the test" not in res.stderr


def _nndescent_spec(tmp_path):
    spec = tmp_path / "descent.yaml"
    spec.write_text(
        textwrap.dedent(f"""\
        name: descent
        dataset: sklearn-wine
        preprocess: minmax
        graph: {{k: 6, method: nndescent}}
        splits: {{n_splits: 1, n_labeled: [20]}}
        methods: [harmonic]
        output: {tmp_path / "out"}
        """)
    )
    return spec


def test_a_graph_that_needs_the_extra_says_which_to_install(tmp_path):
    res = _without_scale(tmp_path, "run", _nndescent_spec(tmp_path), "--no-progress")
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert "descent.yaml" in lines[0] and "harmonic" in lines[0]
    assert "pynndescent" in lines[0] and "pip install 'sskernels[scale]'" in lines[0]
    assert not (tmp_path / "out" / "records").exists()


def test_the_approximate_search_names_hnswlib(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "hnswlib" else real(name, *a)
    )
    est = make_method("harmonic")
    assert missing_extras(est, (500, False)) == []  # exact below the threshold
    assert [lib for _, lib, _ in missing_extras(est, (50_000, False))] == ["hnswlib"]
    assert missing_extras(est, (50_000, True)) == []  # sparse rows: exact up to 100,000


@pytest.mark.skipif(importlib.util.find_spec("pynndescent") is None, reason="no pynndescent")
def test_with_the_extra_installed_nothing_is_refused(tmp_path):
    from sskernels.spec import load_spec

    spec = load_spec(_nndescent_spec(tmp_path))
    from sskernels.experiment.plan import method_runs

    assert missing_extras(method_runs(spec)[0].estimator, (178, False)) == []
    code, _, err = run_cli(["run", "--dry-run", _nndescent_spec(tmp_path)])
    assert code == 0, err
