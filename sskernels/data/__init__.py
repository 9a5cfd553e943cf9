"""Data layer: registered data sets (fetched, verified, cached), users' files, preprocessing.

    >>> from sskernels.data import load_dataset
    >>> ds = load_dataset("heart", preprocess="minmax")     # doctest: +SKIP
    >>> ds.X.shape, ds.y[:3]                                 # doctest: +SKIP
    ((270, 13), array([2, 1, 2]))

Files come from ``$SSKERNELS_DATA_MIRROR`` (a folder holding the files under their registry
paths, e.g. ``uci/heart.dat``) if they are there, else from the cache
(``$SSKERNELS_DATA_DIR`` or the per-user pooch cache), else from their canonical URL; every
file is checked against its registered sha256.
"""

from .dataset import Dataset, DatasetInfo
from .load import dataset_names, fetch, list_datasets, load_dataset, load_file
from .transforms import PREPROCESSINGS, preprocess

__all__ = [
    "Dataset",
    "DatasetInfo",
    "PREPROCESSINGS",
    "dataset_names",
    "fetch",
    "list_datasets",
    "load_dataset",
    "load_file",
    "preprocess",
]
