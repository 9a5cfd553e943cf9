"""Shared test fixtures."""

from pathlib import Path

import pytest

SHARED_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


@pytest.fixture
def data_mirror(monkeypatch, tmp_path):
    """Read data from the shared mirror with a throw-away cache; skip when there is no mirror."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"no data mirror at {SHARED_DATASETS}")
    monkeypatch.setenv("SSKERNELS_DATA_MIRROR", str(SHARED_DATASETS))
    monkeypatch.setenv("SSKERNELS_DATA_DIR", str(tmp_path / "cache"))
    return SHARED_DATASETS
