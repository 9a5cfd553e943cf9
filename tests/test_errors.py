"""Errors that tell the truth: the user's errors are one line and exit 2, ours are internal errors
with their traceback and exit 1; ``--debug`` shows the traceback of any error."""

import pickle
import sys

import pytest

from sskernels.errors import InternalError, ParameterError, UserError, is_user_error

SPEC = """\
name: wine_errors
dataset: sklearn-wine
splits: {{n_splits: 2, n_labeled: 10, seed: 0}}
methods: [{method}]
output: {output}
"""


def run_main(monkeypatch, capsys, *args):
    """``sskernels ARGS`` in this process, as the console script runs it: (exit code, stderr)."""
    from sskernels import cli

    monkeypatch.setattr(cli, "_DEBUG", [False])
    monkeypatch.setattr(sys, "argv", ["sskernels", *map(str, args)])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    return exc.value.code, capsys.readouterr().err


def spec_file(tmp_path, method="harmonic"):
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC.format(method=method, output=tmp_path / "out"))
    return path


def test_a_defect_inside_fit_is_an_internal_error_with_its_traceback(tmp_path, monkeypatch, capsys):
    from sskernels.learners.propagation import HarmonicFunction

    def broken_fit(self, X, y):
        return None + self  # a TypeError of ours, not the user's

    monkeypatch.setattr(HarmonicFunction, "fit", broken_fit)
    code, err = run_main(monkeypatch, capsys, "run", spec_file(tmp_path), "--no-progress")
    assert code == 1
    assert "Traceback (most recent call last)" in err and "broken_fit" in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: internal error") and "TypeError" in last
    assert "methods[0] (harmonic), split 0" in last


def test_a_parameter_refused_inside_fit_stays_one_line_exit_2(tmp_path, monkeypatch, capsys):
    spec = spec_file(tmp_path, "{name: tsk, params: {n_components: 500}}")
    code, err = run_main(monkeypatch, capsys, "run", spec, "--no-progress")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "methods[0] (tsk)" in lines[0]
    assert "Traceback" not in err


def test_a_spec_typo_is_one_line_exit_2_and_debug_shows_its_traceback(
    tmp_path, monkeypatch, capsys
):
    spec = spec_file(tmp_path)
    spec.write_text(spec.read_text().replace("splits:", "splitz:"))
    code, err = run_main(monkeypatch, capsys, "run", spec, "--no-progress")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "splitz" in lines[0], lines
    code, err = run_main(monkeypatch, capsys, "--debug", "run", spec, "--no-progress")
    assert code == 2
    assert "Traceback (most recent call last)" in err and "splitz" in err.strip().splitlines()[-1]


def test_internal_error_keeps_message_and_traceback_across_processes():
    exc = InternalError("spec.yaml: methods[0] (x), split 0: TypeError: boom", "Traceback ...\n")
    back = pickle.loads(pickle.dumps(exc))
    assert str(back) == str(exc) and back.detail == "Traceback ...\n"
    assert back.exit_code == 1 and not isinstance(back, UserError)


def test_which_exceptions_are_the_users():
    from sklearn.utils._param_validation import InvalidParameterError

    assert is_user_error(ParameterError("k must be >= 1"))
    assert is_user_error(InvalidParameterError("alpha must be a float"))
    assert is_user_error(UserError("bad spec"))
    assert not is_user_error(ValueError("operands could not be broadcast"))
    assert not is_user_error(TypeError("unsupported operand type(s)"))
    assert isinstance(ParameterError("x"), ValueError) and isinstance(
        ParameterError("x"), TypeError
    )
