"""The docs' Results section (``docs/_ext/results_report.py``): one generated page per folder
of ``results/`` with committed tables, each rendered by ``sskernels report``'s code; checked
with a small Sphinx build of one page (about 3 s), without building the whole site."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "docs" / "_ext"))

sphinx = pytest.importorskip("sphinx", reason="the docs' requirements (docs/requirements.txt)")


def test_every_results_folder_with_a_table_gets_a_page():
    from results_report import result_folders

    names = result_folders()
    assert {"liu2009", "mao2010", "wang2015", "kscl", "sindhwani"} <= set(names)
    assert "bench" not in names  # timings, not tables in the schema


def test_a_results_page_renders_the_reports_tables_in_sphinx(tmp_path):
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO / 'docs' / '_ext')!r})\n"
        "extensions = ['results_report']\n"
    )
    (src / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   results/index\n")
    app = Sphinx(
        str(src),
        str(src),
        str(tmp_path / "html"),
        str(tmp_path / "doctrees"),
        "html",
        status=None,
        warning=sys.stderr,
        freshenv=True,
        confoverrides={"exclude_patterns": ["results/[!is]*.rst"]},
    )
    app.build()
    assert app.statuscode == 0
    assert {p.stem for p in (src / "results").glob("*.rst")} >= {"index", "liu2009", "sindhwani"}
    page = (tmp_path / "html" / "results" / "sindhwani.html").read_text()
    assert 'class="ssk-report"' in page and 'data-suite="sindhwani/linear_sparse"' in page
    assert "<code>results/sindhwani/linear_sparse.csv</code>" in page  # not this machine's
    assert 'class="leaderboard"' in page and "verdict-" in page
