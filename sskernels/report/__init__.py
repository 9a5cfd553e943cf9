"""``sskernels report``: one self-contained HTML page from recorded runs.

Paper and ours side by side with each cell's verdict, the user's rows highlighted, a
leaderboard per suite (average rank over the data sets; wins, ties and losses against every
other row by a paired test over the splits), per-split distributions per data set, and the
provenance of the numbers.  :mod:`~sskernels.report.build` reads the tables and computes,
:mod:`~sskernels.report.html` renders (pandas' Styler, matplotlib, one Jinja template),
:mod:`~sskernels.report.command` is the command.

Examples
--------
>>> import tempfile, pathlib
>>> from sskernels.report import write_report
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "t.csv").write_text(
...     "table,dataset,setting,method,metric,mean,std,se,n_splits\\n"
...     "demo,wine,10 labeled,a,accuracy,90,1,0.5,4\\n"
...     "demo,wine,10 labeled,b,accuracy,80,2,1,4\\n")
>>> out = write_report([d], d / "report.html", plots=False)
>>> out.name, "<table" in out.read_text()
('report.html', True)
"""

from __future__ import annotations

from pathlib import Path

#: the names this package offers, imported on first use (the command line imports
#: :mod:`~sskernels.report.command` at start-up: pandas, Jinja and matplotlib only load when a
#: report is written)
_LAZY = {
    "ReportData": "build",
    "leaderboard": "build",
    "leaderboards": "build",
    "load": "build",
    "render_body": "html",
    "render_report": "html",
}

__all__ = [
    "ReportData",
    "leaderboard",
    "leaderboards",
    "load",
    "render_body",
    "render_report",
    "write_report",
]


def write_report(paths, out, highlight=(), title="sskernels report", plots=True):
    """Read the recorded tables under ``paths`` and write the report to ``out``.

    Parameters
    ----------
    paths : iterable of path-like
        Combined tables or folders (:func:`sskernels.report.build.load`).
    out : path-like
        The HTML file written (its folder created).
    highlight : iterable of str, default=()
        Method labels shown as the user's, beside those the records say are.
    title : str, default="sskernels report"
        The page's title.
    plots : bool, default=True
        Draw the per-split figures (they need matplotlib).

    Returns
    -------
    pathlib.Path
        ``out``.
    """
    import os
    import tempfile

    from sskernels.report.build import load
    from sskernels.report.html import render_report

    data = load(paths, highlight=highlight)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    page = render_report(data, title=title, plots=plots)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as any file the user writes (mkstemp's is 0600)
        os.replace(tmp, out)  # a reader never sees half a page
    except BaseException:
        os.unlink(tmp)
        raise
    return out


def __getattr__(name):
    if _LAZY.get(name) == "build":
        from sskernels.report import build

        return getattr(build, name)
    if _LAZY.get(name) == "html":
        from sskernels.report import html

        return getattr(html, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
