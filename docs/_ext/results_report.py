"""The docs' Results section: each paper's committed tables rendered by ``sskernels
report``'s own code (:mod:`sskernels.report`), so that the site and the HTML report show the
same tables, verdicts, leaderboards and per-split plots.

At ``config-inited`` the pages ``docs/results/index.rst`` and ``docs/results/FOLDER.rst`` are
written (generated, not committed), one per folder of the repository's ``results/`` that
holds a committed table in the summary schema, so that a new paper's folder gets its page
without editing the docs.  Each page holds the directive ``.. sskernels-report:: FOLDER``,
which renders that folder's committed tables (:func:`sskernels.report.build.load` without
the local run folders, then :func:`sskernels.report.html.render_body` without its title
heading) as raw HTML: the report's own style sheet (scoped under ``.ssk-report``) and its
images inlined, nothing fetched.  Each CSV read is a dependency of its page.

Directive options: ``:plots: no`` leaves the per-split figures out; ``:max-panels: N`` draws
at most N data sets per figure.
"""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives

ROOT = Path(__file__).resolve().parents[2]
#: page titles of the known folders (others: the folder's name)
TITLES = {
    "liu2009": "Liu et al. 2009",
    "sindhwani": "Sindhwani, Belkin and Niyogi",
    "kscl": "Kernel self-consistent labeling",
    "wang2015": "Wang et al. 2015",
    "mao2010": "Mao and Tsang 2010",
    "scale": "Scale (SecStr)",
}

INDEX = """Results
=======

.. This page and the others of docs/results/ are generated at every build from the
   committed tables of results/ (docs/_ext/results_report.py); edit the tables, not them.

Every reproduced paper table, rendered from the committed CSV files under ``results/`` by the
code of ``sskernels report`` (the same tables, verdicts, leaderboards and per-split plots as
the HTML report of a run): each table with the paper's value and ours side by side and the
verdict of each cell (the rules of ``results/fidelity.md``), a leaderboard per table (average
rank over the data sets; wins, ties and losses against every other row by a paired Wilcoxon
signed-rank test over the splits both rows have), and each data set's per-split values.  A
report of your own runs: ``sskernels report`` in the folder you ran them from.

.. toctree::
   :maxdepth: 1

"""

PAGE = """{title}
{rule}

.. Generated from results/{name}/ (docs/_ext/results_report.py).

The committed tables of ``results/{name}/``, rendered by the code of ``sskernels report``.

.. sskernels-report:: {name}
"""


def result_folders(results=ROOT / "results"):
    """The folders of ``results/`` holding a committed table in the summary schema."""
    from sskernels.report.build import find_sources

    return [d.name for d in sorted(results.iterdir()) if d.is_dir() and find_sources([d])[0]]


def _write(path, text):
    if not path.is_file() or path.read_text() != text:  # unchanged: not rebuilt
        path.write_text(text)


def write_results_pages(app, config):
    folder = Path(app.srcdir) / "results"
    folder.mkdir(exist_ok=True)
    names = result_folders()
    order = [n for n in TITLES if n in names] + [n for n in names if n not in TITLES]
    _write(folder / "index.rst", INDEX + "".join(f"   {n}\n" for n in order))
    for n in order:
        title = TITLES.get(n, n)
        _write(folder / f"{n}.rst", PAGE.format(title=title, rule="=" * len(title), name=n))
    for old in folder.glob("*.rst"):
        if old.stem not in order and old.stem != "index":
            old.unlink()


def _yes_no(value):
    return directives.choice(value or "yes", ("yes", "no")) == "yes"


class ReportDirective(Directive):
    """``.. sskernels-report:: FOLDER`` (under the repository's ``results/``)."""

    required_arguments = 1
    option_spec = {
        "plots": _yes_no,
        "max-panels": directives.positive_int,
        "title": directives.unchanged,
    }

    def run(self):
        from sskernels.report.build import load
        from sskernels.report.html import render_body

        env = self.state.document.settings.env
        folder = ROOT / "results" / self.arguments[0]
        if not folder.is_dir():
            raise self.error(f"sskernels-report: no folder {folder}")
        try:
            data = load([folder], run_folders=False)  # what is committed
        except ValueError as exc:
            raise self.error(f"sskernels-report: {exc}") from None
        # the sources as the repository names them (results/...), not this machine's paths
        rel = {s["path"]: Path(os.path.relpath(s["path"], ROOT)).as_posix() for s in data.sources}
        for s in data.sources:
            env.note_dependency(str(Path(s["path"]).resolve()))
            s["path"] = rel[s["path"]]
        data.rows["source"] = data.rows["source"].map(lambda p: rel.get(p, p))
        html = render_body(
            data,
            title=self.options.get("title", self.arguments[0]),
            plots=self.options.get("plots", True),
            max_panels=self.options.get("max-panels"),
            heading=False,
        )
        return [nodes.raw("", str(html), format="html")]


def setup(app):
    app.connect("config-inited", write_results_pages)
    app.add_directive("sskernels-report", ReportDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
