"""Public entry points: load registered data sets or a user's own file, fetch, list."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..errors import DataError
from .cache import fetch_file, local_copy
from .dataset import Dataset, DatasetInfo
from .parsers import Parsed, parse_delimited, parse_svmlight
from .registry import REGISTRY, Entry, get_entry
from .transforms import check_preprocess
from .transforms import preprocess as apply_preprocess

FILE_FORMATS = {"csv": "csv", "svmlight": "svmlight", "libsvm": "svmlight"}
_SUFFIX_FORMATS = {
    ".csv": "csv",
    ".svm": "svmlight",
    ".svmlight": "svmlight",
    ".libsvm": "svmlight",
    ".txt": "svmlight",
}
_COMPRESSED = {".gz", ".bz2"}


def dataset_names() -> list[str]:
    """Names of all registered data sets, in registry order."""
    return list(REGISTRY)


def fetch(name: str) -> list[Path]:
    """Make the raw files of a registered data set available locally (verified); their paths.

    Bundled (scikit-learn) data sets have no files and give ``[]``.  Each file comes from
    ``$SSKERNELS_DATA_MIRROR`` if it is there, else from the cache, else from its canonical
    URL, and is checked against its registered sha256.

    Parameters
    ----------
    name : str
        A registered data set (:func:`list_datasets`).

    Returns
    -------
    list of pathlib.Path
        The verified local paths of its raw files, in registry order.

    Raises
    ------
    UnknownNameError
        For a name that is not registered.
    DataError
        If a file cannot be fetched or verified (no mirror copy and no network, a wrong
        sha256, a cache that is not writable, a missing package).

    Examples
    --------
    >>> from sskernels.data import fetch
    >>> fetch("sklearn-wine")                  # bundled with scikit-learn: no file
    []
    """
    return [fetch_file(rf) for rf in get_entry(name).files]


def list_datasets() -> list[DatasetInfo]:
    """The catalogue: one :class:`DatasetInfo` per registered data set (nothing is loaded).

    Returns
    -------
    catalogue : list of DatasetInfo
        One entry per registered data set, in registry order: ``name``, ``n``, ``d``,
        ``n_classes`` (0 for a regression set), ``source``, ``cached``, ``description``
        and ``task``.  ``cached`` is True when every raw file is present locally (in the
        mirror or the cache) or when the set is bundled with scikit-learn.

    Examples
    --------
    >>> from sskernels.data import list_datasets
    >>> wine = {info.name: info for info in list_datasets()}["sklearn-wine"]
    >>> wine.n, wine.d, wine.n_classes, wine.cached
    (178, 13, 3, True)
    """
    return [
        DatasetInfo(
            e.name,
            e.n,
            e.d,
            e.n_classes,
            e.source,
            all(local_copy(rf, verify=True) is not None for rf in e.files),
            e.description,
            e.task,
        )
        for e in REGISTRY.values()
    ]


def load_dataset(name: str, preprocess: str | None = None) -> Dataset:
    """Load a registered data set, fetching its files if needed.

    Files come from ``$SSKERNELS_DATA_MIRROR`` (a folder holding the files under their
    registry paths, e.g. ``uci/heart.dat``) if they are there, else from the cache (``$SSKERNELS_DATA_DIR``
    or the per-user pooch cache), else from their canonical URL; every file is checked
    against its registered sha256, and the parsed data against the registered shape and
    numbers of classes and groups.

    Parameters
    ----------
    name : str
        A registered data set (:func:`list_datasets`).
    preprocess : str, default=None
        None applies the entry's default preprocessing; otherwise one of
        ``"none"``, ``"minmax"``, ``"standardize"``, ``"l2"``, ``"standardize-l2"``
        or ``"rss-floor"`` (:data:`~sskernels.data.PREPROCESSINGS`,
        :func:`~sskernels.data.preprocess`).

    Returns
    -------
    dataset : Dataset
        The loaded, preprocessed data set.

    Raises
    ------
    UnknownNameError
        For an unknown data set or preprocessing
        (:class:`~sskernels.errors.UnknownNameError`).
    DataError
        For a file that cannot be fetched, verified or parsed, or data that do not match
        the registry (:class:`~sskernels.errors.DataError`).

    Examples
    --------
    >>> from sskernels.data import load_dataset
    >>> ds = load_dataset("sklearn-wine", preprocess="minmax")    # bundled: no download
    >>> ds.X.shape, float(ds.X.min()), float(ds.X.max())
    ((178, 13), 0.0, 1.0)
    """
    entry = get_entry(name)
    how = check_preprocess(entry.preprocess if preprocess is None else preprocess)
    parsed = entry.parse(*[fetch_file(rf) for rf in entry.files])
    _check_against_registry(entry, parsed)
    return _dataset(entry.name, parsed, how, entry.source, entry.description, entry.task)


def load_file(
    path, format: str | None = None, label: str | None = None, preprocess: str = "none"
) -> Dataset:
    """Load a user's own data file.

    Parameters
    ----------
    path : str or path-like
        The file.
    format : {"csv", "svmlight", "libsvm"}, default=None
        ``"csv"`` (header row; ``label`` names the label column) or
        ``"svmlight"``/``"libsvm"`` (X kept sparse; the label first on each line); when
        None it is inferred from the suffix (.csv; .svm, .svmlight, .libsvm, .txt,
        optionally followed by .gz or .bz2).
    label : str, default=None
        The name of a csv file's label column; None: the last column.  Only for csv
        files.
    preprocess : str, default="none"
        One of ``"none"``, ``"minmax"``, ``"standardize"``, ``"l2"``, ``"standardize-l2"``
        or ``"rss-floor"`` (:data:`~sskernels.data.PREPROCESSINGS`,
        :func:`~sskernels.data.preprocess`).

    Returns
    -------
    dataset : Dataset
        The data set, named after the file (its name up to the first dot), with the
        file's path as ``source``.

    Raises
    ------
    DataError
        One line naming the file (:class:`~sskernels.errors.DataError`), e.g. no such file, a
        format that is unknown or cannot be told from the suffix, ``label`` given for a
        svmlight file, a file that does not parse, NaN or infinite features.
    UnknownNameError
        For an unknown preprocessing (:class:`~sskernels.errors.UnknownNameError`).
    """
    path = Path(path)
    check_preprocess(preprocess)
    try:
        fmt = _file_format(path, format)
        try:
            exists = path.exists()
        except OSError as e:  # e.g. a file name longer than the system accepts
            raise DataError(f"{path}: cannot open ({e.strerror or e})") from None
        if not exists:
            raise DataError(f"{path}: no such file")
        if fmt == "csv":
            parsed = parse_delimited(
                path, delimiter=",", header=True, label=-1 if label is None else label
            )
        elif label is not None:
            raise DataError(
                f"{path}: label={label!r} applies to csv files only; "
                "svmlight files give the label first on each line"
            )
        else:
            parsed = parse_svmlight(path)
        name = path.name.split(".")[0] or path.stem
        return _dataset(name, parsed, preprocess, str(path), f"user file ({fmt})", where=str(path))
    except DataError as e:  # one line, whatever the path or a cell holds
        raise DataError(_one_line(str(e))) from None


#: the longest message of a user file's DataError (a 100 KB cell stays a readable error)
MAX_MESSAGE = 1000


def _one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one printable line of at most ``limit`` characters: control characters
    (a newline or a NUL in a file name or a cell) are escaped as ``\\n``, ``\\x00``."""
    out = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)
    return out if len(out) <= limit else f"{out[:limit]}... ({len(out)} characters)"


def _file_format(path: Path, format: str | None) -> str:
    """The normalized format name, given or inferred from the file suffix."""
    if format is not None:
        if format.lower() not in FILE_FORMATS:
            raise DataError(f"{path}: unknown format {format!r}; expected csv, svmlight or libsvm")
        return FILE_FORMATS[format.lower()]
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    if suffixes and suffixes[-1] in _SUFFIX_FORMATS:
        return _SUFFIX_FORMATS[suffixes[-1]]
    raise DataError(
        f"{path}: cannot tell the format from the suffix; expected .csv, .svm, "
        ".svmlight, .libsvm or .txt, or pass format='csv' or 'svmlight'"
    )


def _check_against_registry(entry: Entry, parsed: Parsed) -> None:
    """The parsed file must have the registered shape and numbers of classes and groups (a
    regression set: finite float targets of the registered shape, instead of classes)."""
    if entry.task == "regression":
        _check_targets(entry, parsed)
        return
    n_extra = 0 if parsed.extra is None else parsed.extra.shape[0]
    if n_extra != entry.n_extra:
        raise DataError(
            f"{entry.name}: parsed {n_extra} extra unlabeled points, registry says {entry.n_extra}"
        )
    got = (*parsed.X.shape, len(np.unique(parsed.y)))
    if got != (entry.n, entry.d, entry.n_classes):
        raise DataError(
            f"{entry.name}: parsed {got[0]} x {got[1]} with {got[2]} classes, "
            f"registry says {entry.n} x {entry.d} with {entry.n_classes}"
        )
    groups = 0 if parsed.groups is None else len(np.unique(parsed.groups))
    if groups != entry.n_groups:
        raise DataError(
            f"{entry.name}: parsed {groups} groups (subclasses), registry says {entry.n_groups}"
        )


def _check_targets(entry: Entry, parsed: Parsed) -> None:
    """A regression set: X (n, d), float targets (n, n_targets), all finite; no groups."""
    y = np.asarray(parsed.y)
    expected = (entry.n, entry.n_targets)
    if parsed.X.shape != (entry.n, entry.d) or y.shape != expected:
        raise DataError(
            f"{entry.name}: parsed {parsed.X.shape[0]} x {parsed.X.shape[1]} with "
            f"targets {y.shape}, registry says {entry.n} x {entry.d} with targets "
            f"{expected}"
        )
    if y.dtype.kind != "f":
        raise DataError(f"{entry.name}: regression targets must be floats, got {y.dtype}")
    bad = np.argwhere(~np.isfinite(y))
    if bad.size:
        raise DataError(
            f"{entry.name}: {len(bad)} NaN or infinite regression targets (first: "
            f"row {bad[0][0] + 1}, column {bad[0][1] + 1})"
        )
    if parsed.groups is not None:
        raise DataError(f"{entry.name}: a regression set carries no groups (subclasses)")


def _check_finite(name: str, X) -> None:
    """Refuse NaN or infinite features, naming the first such entry (row and column, 1-based)."""
    import scipy.sparse as sp

    if sp.issparse(X):
        Xc = X.tocoo()
        bad = np.flatnonzero(~np.isfinite(Xc.data))
        if bad.size:
            raise DataError(
                f"{name}: feature matrix has {bad.size} NaN or infinite entries "
                f"(first: row {Xc.row[bad[0]] + 1}, column {Xc.col[bad[0]] + 1})"
            )
        return
    bad = np.argwhere(~np.isfinite(np.asarray(X, dtype=float)))
    if bad.size:
        i, j = bad[0]
        raise DataError(
            f"{name}: feature matrix has {len(bad)} NaN or infinite entries "
            f"(first: row {i + 1}, column {j + 1})"
        )


#: preprocessings that square the features (row norms, variances): beyond this magnitude the
#: squares overflow float64 and the rows silently become zeros
SQUARING = ("l2", "standardize", "standardize-l2")
MAX_SQUARED_MAGNITUDE = 1e150


def _dataset(
    name: str,
    parsed: Parsed,
    how: str,
    source: str,
    description: str,
    task: str = "classification",
    where: str | None = None,
) -> Dataset:
    """The :class:`Dataset` of ``parsed``, preprocessed; errors name ``where`` (a user file's
    path), else the data set's ``name``."""
    where = name if where is None else where
    if parsed.extra is not None:  # the extra points are preprocessed with the others
        n = parsed.X.shape[0]
        stacked = (
            sp.vstack([parsed.X, parsed.extra], format="csr")
            if sp.issparse(parsed.X)
            else np.vstack([parsed.X, parsed.extra])
        )
        ds = _dataset(
            name, parsed._replace(X=stacked, extra=None), how, source, description, task, where
        )
        ds.X, ds.X_extra = ds.X[:n], ds.X[n:]
        return ds
    _check_finite(where, parsed.X)
    if how in SQUARING:
        data = parsed.X.data if sp.issparse(parsed.X) else np.asarray(parsed.X)
        top = float(np.max(np.abs(data))) if data.size else 0.0
        if top > MAX_SQUARED_MAGNITUDE:
            raise DataError(
                f"{where}: feature values up to {top:.3g} are too large for "
                f"preprocessing {how!r} (their squares overflow float64); rescale "
                "them, or use preprocess: minmax or none"
            )
    try:
        with np.errstate(over="raise"):
            X = apply_preprocess(parsed.X, how)
    except DataError as e:
        raise DataError(f"{where}: {e}") from None
    except FloatingPointError:
        raise DataError(
            f"{where}: preprocessing {how!r} overflows float64 on these feature "
            "values (a range wider than 1.8e308); rescale them, or use preprocess: "
            "none"
        ) from None
    _check_finite(where, X)
    groups = None if parsed.groups is None else np.asarray(parsed.groups)
    if groups is not None and groups.shape != (X.shape[0],):
        raise DataError(f"{name}: {groups.shape} groups for {X.shape[0]} points")
    return Dataset(
        name, X, parsed.y, source, description, parsed.splits, parsed.views, groups, task
    )
