"""Summary tables in the one schema every table of the project shares.

Columns: ``table, dataset, setting, method, metric, mean, std, se, n_splits,
paper_mean, paper_std, paper_spread, delta, matched, seconds, notes`` — one row per cell;
``mean``/``std``
over splits (std with ddof=1, as MATLAB's ``std``), ``se = std / sqrt(n_splits)`` the
standard error of the mean (some papers print it where they say std: compare like with
like), ``seconds`` the mean fit +
predict time per split, paper columns empty where the paper has no value,
``delta = mean - paper_mean`` (a paper table may give the complement of a metric, e.g.
error for our accuracy: see :func:`_paper_value`); ``paper_spread`` how the paper's printed
± reads (``std`` or ``se``, from the paper table's ``spread`` column: :func:`paper_spread`),
``matched`` whether ``|delta| <= paper_std`` (:func:`within_spread`: ours rounded to the
paper's printed decimals first) — the paper's spread as printed, so where it is
a standard error the cell must be within the paper's standard error (and the Markdown shows
the paper's value with "se"); empty for times and cells without a paper value; ``selected``
the grid values chosen per split (:func:`selected_text`, e.g. ``"alpha 0.9 x7, 0.5 x3"``:
selection on the labeled points, or on the test labels in an oracle row); ``notes`` lists each fallback or degenerate-fit
note of the cell's records (``record["report"]["notes"]``, see
:mod:`sskernels.solvers.report`) with the number of splits it fired in, e.g.
``"fallback: svm-dual highs->libsvm (time limit) x3/20"`` (several joined by
``"; "``), empty when there is none; ``paper_cell`` the identity of the paper's cell
(:func:`paper_cell`: one id for a cell the paper prints in two tables) and ``paper_n`` the
number of splits behind the paper's value; ``protocol`` ``paper`` on the row that follows the
paper's stated protocol for its cell (the spec's ``protocol: paper``; empty: ours);
``reading`` the name of the documented alternative reading the row ran under (empty: the
primary spec).

Beside a combined table ``STEM.csv`` the per-split values are published as
``STEM_splits.csv`` (:data:`SPLITS_SCHEMA`: one row per record and accuracy-type
metric, full precision): a rerun of a few splits is compared with them
(``paper/regression.py`` in the repository), which a mean over all splits does not allow.

The modules (imports go downward only):

* :mod:`~sskernels.experiment.tables.schema`: the columns (:data:`SCHEMA`,
  :data:`SPLITS_SCHEMA`), the metrics' decimals and :func:`table_name`;
* :mod:`~sskernels.experiment.tables.paper`: the paper's value, spread and cell of a row
  (:func:`paper_row_of`, :func:`paper_spread`, :func:`paper_cell`);
* :mod:`~sskernels.experiment.tables.matching`: the verdicts (:func:`within_spread`,
  :func:`paper_se`, :func:`beyond_reading`);
* :mod:`~sskernels.experiment.tables.notes`: the ``notes`` column (:func:`split_notes`);
* :mod:`~sskernels.experiment.tables.summary`: the rows (:func:`summarize`,
  :func:`summary_row`, :func:`selected_text`);
* :mod:`~sskernels.experiment.tables.markdown`: :func:`to_markdown`;
* :mod:`~sskernels.experiment.tables.files`: the files (:func:`write_table`,
  :func:`split_rows`, :func:`write_splits`, :func:`read_splits`).

Every name is importable from this package, as from the single module it was.
"""

from __future__ import annotations

# every name of the single module it was, its private helpers too (``name as name``: some are
# imported by tests and scripts)
from sskernels.experiment.tables.schema import (
    METRIC_DECIMALS,
    REGRESSION_METRICS,
    SCHEMA,
    SPLITS_SCHEMA,
    SPREADS,
    TIME_METRICS,
    table_name,
)
from sskernels.experiment.tables.paper import (
    _NOT_ACCURACY as _NOT_ACCURACY,
    COMPLEMENT,
    _paper_hit as _paper_hit,
    _paper_value as _paper_value,
    paper_cell,
    paper_row_of,
    paper_spread,
)
from sskernels.experiment.tables.matching import (
    BEYOND_SE,
    PAPER_DECIMALS,
    beyond_reading,
    paper_se,
    within_spread,
)
from sskernels.experiment.tables.notes import (
    _NOTE_SPLIT as _NOTE_SPLIT,
    _notes as _notes,
    _record_notes as _record_notes,
    split_notes,
)
from sskernels.experiment.tables.summary import (
    _format_value as _format_value,
    _time_rows as _time_rows,
    selected_text,
    summarize,
    summary_row,
)
from sskernels.experiment.tables.markdown import (
    _cell as _cell,
    _footnote_text as _footnote_text,
    _header as _header,
    to_markdown,
)
from sskernels.experiment.tables.files import (
    read_splits,
    select_metrics,
    split_rows,
    splits_path,
    write_splits,
    write_table,
)

__all__ = [
    "BEYOND_SE",
    "COMPLEMENT",
    "METRIC_DECIMALS",
    "PAPER_DECIMALS",
    "REGRESSION_METRICS",
    "SCHEMA",
    "SPLITS_SCHEMA",
    "SPREADS",
    "TIME_METRICS",
    "beyond_reading",
    "paper_cell",
    "paper_row_of",
    "paper_se",
    "paper_spread",
    "read_splits",
    "select_metrics",
    "selected_text",
    "split_notes",
    "split_rows",
    "splits_path",
    "summarize",
    "summary_row",
    "table_name",
    "to_markdown",
    "within_spread",
    "write_splits",
    "write_table",
]
