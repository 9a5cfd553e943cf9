"""Output folders: one rule for relative paths, one-line refusals before anything runs, and
never a file overwritten that sskernels did not write.

The refusals are those of the command line, run in the test process
(:func:`cli_helpers.run_in_process`, with the environment a subprocess would get): an
interpreter start per refusal checked nothing more."""

import os
from pathlib import Path

import pytest
from cli_helpers import run_in_process

from sskernels.errors import SpecError
from sskernels.experiment.records import OUTPUT_MARKER, claim_output
from sskernels.spec import parse_spec

BASE = {
    "dataset": "sklearn-wine",
    "methods": ["harmonic"],
    "splits": {"n_splits": 1, "n_labeled": 20},
}


def _sskernels(*args, cwd):
    """``sskernels ARGS`` in folder ``cwd`` with this process's environment."""
    return run_in_process(args, dict(os.environ), cwd)


def test_relative_output_is_relative_to_the_spec_folder(tmp_path):
    spec = parse_spec({**BASE, "output": "out/here"}, tmp_path / "sub" / "s.yaml")
    assert Path(spec.output) == tmp_path / "sub" / "out" / "here"
    default = parse_spec(BASE, tmp_path / "sub" / "s.yaml")
    assert Path(default.output) == tmp_path / "sub" / "results" / "runs" / "s"


@pytest.mark.parametrize("name", ["../../x", "a/b", ".hidden", "x" * 101, ""])
def test_names_with_path_separators_are_refused(tmp_path, name):
    with pytest.raises(SpecError, match="field 'name'"):
        parse_spec({**BASE, "name": name}, tmp_path / "s.yaml")


@pytest.mark.parametrize(
    "make_output",
    [
        lambda tmp: "/proc/sskernels-x",  # cannot be created
        lambda tmp: (tmp / "afile").write_text("x") and str(tmp / "afile"),  # a regular file
        lambda tmp: str(tmp / ("a" * 5000)),  # a name too long
    ],
    ids=["proc", "file", "long"],
)
def test_unusable_output_is_one_line_exit_2_before_any_work(tmp_path, make_output):
    out = make_output(tmp_path)
    spec = tmp_path / "s.yaml"
    spec.write_text(
        f"dataset: no-need-to-load\nmethods: [harmonic]\noutput: {out}\n".replace(
            "no-need-to-load", "sklearn-wine"
        )
    )
    r = _sskernels("run", spec, "--no-progress", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "field 'output'" in lines[0] and "s.yaml" in lines[0], lines
    assert len(lines[0]) < 700
    assert "Traceback" not in r.stderr


def test_a_foreign_folder_is_never_overwritten(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "summary.csv").write_text("my own numbers\n")
    spec = parse_spec({**BASE, "output": str(mine)}, tmp_path / "s.yaml")
    with pytest.raises(SpecError, match="did not create"):
        claim_output(spec)
    assert (mine / "summary.csv").read_text() == "my own numbers\n"


def test_own_folder_is_marked_and_reused(tmp_path):
    spec = parse_spec({**BASE, "output": "o"}, tmp_path / "s.yaml")
    path = claim_output(spec)
    assert (path / OUTPUT_MARKER).is_file()
    (path / "summary.csv").write_text("ours\n")
    assert claim_output(spec) == path  # marked: ours to write again


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    spec = parse_spec({**BASE, "output": str(ro / "x")}, tmp_path / "s.yaml")
    with pytest.raises(SpecError, match="field 'output'"):
        claim_output(spec)


def test_splits_beyond_the_spec_are_refused(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("dataset: sklearn-wine\nmethods: [harmonic]\nsplits: {n_splits: 2}\n")
    r = _sskernels("run", spec, "--splits", 5, "--no-progress", cwd=tmp_path)
    assert r.returncode == 2 and "exceeds the spec's splits.n_splits (2)" in r.stderr, r.stderr
