"""``sskernels figure`` on a table with one labeled-set size per data set (Liu et al.'s
Table 3): one panel per data set, every row (the --with rows highlighted) a dot with its
std, the paper's value marked, instead of curves that put every method at one x."""

import pytest
import yaml
from typer.testing import CliRunner

from sskernels.cli import app

pytest.importorskip("matplotlib")

PEER = "Peer=sklearn.semi_supervised:LabelSpreading"


def _spec(tmp_path):
    spec = {
        "name": "wine_one_setting",
        "dataset": "sklearn-wine",
        "preprocess": "minmax",
        "splits": {"n_splits": 2, "n_labeled": 20, "seed": 0},
        "methods": [{"name": "harmonic"}, {"name": "consistency", "params": {"alpha": 0.99}}],
        "paper": {"table": "liu2009_table3_uci_transductive_accuracy", "dataset": "wine"},
        "output": "out",
    }
    path = tmp_path / "wine.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_single_setting_figure_has_a_panel_per_data_set_and_the_users_row(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from sskernels.experiment import figures

    path = _spec(tmp_path)
    runner = CliRunner()
    res = runner.invoke(app, ["run", str(path), "--with", PEER, "--no-progress"])
    assert res.exit_code == 0, res.output
    drawn = {}
    real = figures.setting_dots

    def spy(*args, **kwargs):
        drawn["fig"] = fig = real(*args, **kwargs)
        drawn["labels"] = [t.get_text() for t in fig.axes[0].get_yticklabels()]
        drawn["bold"] = [
            t.get_text() for t in fig.axes[0].get_yticklabels() if t.get_fontweight() == "bold"
        ]
        drawn["paper"] = [c.get_label() for c in fig.axes[0].collections]
        return fig

    monkeypatch.setattr(figures, "setting_dots", spy)
    res = runner.invoke(
        app,
        [
            "figure",
            str(path),
            "--with",
            PEER,
            "-o",
            str(tmp_path / "fig"),
            "--title",
            "one setting",
        ],
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "fig.png").stat().st_size > 1000
    assert len(drawn["fig"].axes) == 1  # one panel: one data set
    assert drawn["labels"] == ["harmonic", "consistency", "Peer"][::-1] or sorted(
        drawn["labels"]
    ) == sorted(["harmonic", "consistency", "Peer"])
    assert drawn["bold"] == ["Peer"]
    assert "paper" in drawn["paper"]  # the paper's values marked
    plt.close("all")
