"""Committed tables do not drift: re-run their first splits, compare with the record."""

import pytest

from sskernels.experiment import regression


@pytest.mark.parametrize("table", sorted(regression.SUITE))
def test_table_matches_expected(table, data_mirror):
    got = regression.compute(table)
    bad = regression.diff(table, got)
    assert bad.empty, (
        f"{table}: means over the first {regression.N_SPLITS} splits moved by more than "
        f"{regression.TOLERANCE} points (rerun `make regression-update` if intended):\n"
        + bad.to_string(index=False))
