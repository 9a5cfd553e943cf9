"""Named suites (sskernels/suites.py): declared once, equal to the Makefile's table targets.

Every ``sskernels run`` / ``figure`` line of a ``table-*`` / ``figure-*`` / ``figures-*``
target that writes a combined table or figure (``--table STEM`` / ``-o STEM``) is one suite:
same specs in the same order, same output stem, same metrics, and no suite without its line.
The lines are read from ``make -n`` (the Makefile's variables expanded by make itself).
"""

import re
import shlex
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from sskernels.cli import app
from sskernels.spec_packaged import packaged_specs
from sskernels.suites import SUITES, expand, get_suite

from conftest import REPO


def _make_targets():
    text = (REPO / "Makefile").read_text()
    return sorted(set(re.findall(r"^((?:table|figures?)-[\w-]+)(?:\s+[\w-]+)*\s*:", text, re.M)))


def _make_lines(target):
    """The sskernels command lines ``make -n TARGET`` prints (set-up not remade)."""
    res = subprocess.run(
        [
            "make",
            "-n",
            "--no-print-directory",
            "-o",
            ".venv/.installed",
            "SSK=sskernels",
            "PY=python",
            target,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    text = res.stdout.replace("\\\n", " ")  # a recipe's continued lines
    return [line for line in text.splitlines() if line.startswith("sskernels ")]


def _parse(line):
    """``(command, specs, output stem, metrics)`` of one sskernels command line."""
    tokens = shlex.split(line.split(">")[0])
    command, args = tokens[1], tokens[2:]
    specs = [t for t in args if t.endswith(".yaml")]
    output = metrics = None
    metrics = []
    for flag, value in zip(args, args[1:]):
        if flag in ("--table", "-t", "-o", "--output"):
            output = value
        if flag == "--metric":
            metrics.append(value)
    return command, specs, output, metrics


@pytest.fixture(scope="module")
def make_suites():
    """``{output stem: (target, specs, metrics)}`` of the Makefile's run and figure lines."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    found = {}
    for target in _make_targets():
        for line in _make_lines(target):
            command, specs, output, metrics = _parse(line)
            if command in ("run", "figure") and output is not None and specs:
                found.setdefault(output, (target, specs, metrics))
    return found


def test_every_makefile_table_is_a_suite_and_back(make_suites):
    assert len(make_suites) >= 10
    by_output = {s.output: s for s in SUITES.values()}
    assert sorted(make_suites) == sorted(by_output), (
        "a Makefile table without its suite "
        "(or a suite without its Makefile line): declare it in sskernels/suites.py"
    )
    for output, (target, specs, metrics) in make_suites.items():
        suite = by_output[output]
        assert [f"configs/{s}" for s in suite.specs] == specs, suite.name
        assert suite.target == target, suite.name
        assert list(suite.metrics) == metrics, suite.name


def test_every_suite_spec_is_packaged():
    packaged = set(packaged_specs())
    for suite in SUITES.values():
        assert suite.specs and set(suite.specs) <= packaged, suite.name
        assert (REPO / "configs").joinpath(suite.specs[0]).is_file()


def test_liu_table3_is_exactly_its_four_uci_specs():
    """The glob configs/liu2009/*.yaml pulled in WebKB's Fig. 1 specs; the suite does not."""
    specs = [p.as_posix() for p in expand(["liu2009/table3"])]
    assert specs == [f"configs/liu2009/{n}.yaml" for n in ("heart", "ionosphere", "sonar", "wine")]
    assert get_suite("liu2009/table3/") is get_suite("liu2009/table3")


def test_suites_list_names_each_suite():
    res = CliRunner().invoke(app, ["suites", "list"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    for name in SUITES:
        assert name in res.output
    assert "Liu et al. 2009, Table 3" in res.output


def test_a_suite_resolves_outside_a_checkout(tmp_path, monkeypatch):
    """From an empty folder a suite's name gives its packaged specs, loaded and checked."""
    from sskernels.cli import _specs

    monkeypatch.chdir(tmp_path)
    specs = _specs(["liu2009/table3"], with_=["Peer=sklearn.semi_supervised:LabelSpreading"])
    assert [s.name for s in specs] == [
        f"liu2009_{n}" for n in ("heart", "ionosphere", "sonar", "wine")
    ]
    assert all(s.methods[-1].label == "Peer" for s in specs)
    assert all(str(tmp_path) in s.output for s in specs)
