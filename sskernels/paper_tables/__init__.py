"""The papers' tables, transcribed: one CSV per table (long format: method, dataset, mean,
std, ...), read by the specs (``paper.table``) and the summaries (paper beside ours).

Examples
--------
>>> from sskernels.paper_tables import paper_table, paper_table_names
>>> "liu2009_table3_uci_transductive_accuracy" in paper_table_names()
True
>>> sorted(paper_table("liu2009_table3_uci_transductive_accuracy")["dataset"].unique())[:2]
['heart', 'ionosphere']
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

__all__ = ["paper_table", "paper_table_names"]


def paper_table_names():
    """The names of the transcribed tables (their CSV files without ``.csv``), sorted."""
    files = resources.files(__name__)
    return sorted(p.name[:-4] for p in files.iterdir() if p.name.endswith(".csv"))


@lru_cache(maxsize=None)
def paper_table(name):
    """A transcribed paper table (long format: method, dataset, mean, std, ...) as a
    pandas DataFrame."""
    import pandas as pd

    path = resources.files(__name__) / f"{name}.csv"
    with path.open() as fh:
        return pd.read_csv(fh, comment="#", dtype={"method": str, "dataset": str})
