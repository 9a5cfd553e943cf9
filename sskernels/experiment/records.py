"""Per-split records, written atomically, read back for summaries and resumption.

One JSON file per (method, setting, split) under
``<output>/records/<label>/<setting>/split_NNN.json``.
A record carries a key of everything its numbers depend on: the spec parts, the content of
the data the learners saw, and the code and library versions
(:mod:`sskernels.experiment.identity` builds it and says why a record is stale).  A rerun
recomputes exactly the records whose key changed and
skips the rest; a stale record is never reused.

``<output>/data_fingerprint.json`` holds the data fingerprint of the last run,
so that ``sskernels table`` can check the keys without loading the data.

Every file is written through a temporary file beside it and a rename
(:func:`atomic_write_bytes`), so a killed run never leaves half a record; what it can leave
is that temporary file, ``.split_NNN.json.XXXXXXXX.tmp``.  The next run into the folder
removes those (:func:`remove_stale_temporaries`, from :func:`claim_output`), but never one
a live writer may still rename: a writer holds a shared lock (``flock``) on the folder of
its temporary file while it exists, and a folder is cleaned only under an exclusive lock.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

# the key's parts are built by the identity module; the names stay importable from here
from sskernels.experiment.identity import (  # noqa: F401
    DATA_MODULES,
    data_code_key,
    data_fingerprint,
    record_key,
)


def atomic_write_text(path, text):
    """Write ``text`` to ``path`` through a temporary file and an atomic rename.

    The text is encoded as UTF-8 and written by :func:`atomic_write_bytes` (its folder is
    created if needed): a reader sees the old file or the new one, never half of it.

    Parameters
    ----------
    path : str or pathlib.Path
        The file to write (replaced if it exists).
    text : str
        Its new content.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sskernels.experiment import atomic_write_text
    >>> path = Path(tempfile.mkdtemp()) / "new folder" / "note.txt"
    >>> atomic_write_text(path, "first")
    >>> atomic_write_text(path, "second")
    >>> path.read_text(), sorted(p.name for p in path.parent.iterdir())   # no temporary left
    ('second', ['note.txt'])
    """
    atomic_write_bytes(path, text.encode())


def atomic_write_bytes(path, data):
    """Write ``data`` (bytes) to ``path`` through a temporary file and an atomic rename.

    The temporary file, ``.<name>.XXXXXXXX.tmp`` beside ``path`` (:data:`TMP_NAME`), lives
    only while the folder is locked shared (:class:`_FolderLock`): a process killed before
    the rename leaves it, and :func:`remove_stale_temporaries` removes it later, never while
    a writer may still rename it.  The parent folder is created if needed; the file gets the
    permissions the umask allows (not ``mkstemp``'s 0600), and an exception during the write
    removes the temporary file.

    Parameters
    ----------
    path : str or pathlib.Path
        The file to write (replaced if it exists).
    data : bytes
        Its new content.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _FolderLock(path.parent, exclusive=False):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.fchmod(fd, 0o666 & ~_umask())
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError) and exc.filename is None:
                exc.filename = str(path)  # a full disk's error names the file it met
            raise


#: the name of :func:`atomic_write_bytes`'s temporary file for target ``NAME``:
#: ``.NAME.XXXXXXXX.tmp``, the 8 characters ``tempfile.mkstemp``'s random part
TMP_NAME = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp")
#: the names a record's target may have (:func:`record_path`)
_RECORD_NAME = re.compile(r"split_\d{3,}\.json")


class _FolderLock:
    """An advisory lock (``flock``) on a folder, held while the ``with`` block runs.

    Shared (``exclusive=False``): a writer whose temporary file is in the folder; it waits
    while a cleaner holds the folder.  Exclusive: a cleaner (:func:`remove_stale_temporaries`),
    which does not wait: the ``with`` gives False when a writer holds the folder, as it does
    where folders cannot be locked (no ``fcntl``, or a file system refusing the lock), so
    that nothing is removed there.  The kernel drops the lock of a killed process."""

    def __init__(self, folder, exclusive=False):
        self.folder, self.exclusive, self._fd = folder, exclusive, None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # no flock (Windows): writers go on, nothing is cleaned
            return False
        try:
            self._fd = os.open(self.folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            return False
        try:
            fcntl.flock(
                self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB if self.exclusive else fcntl.LOCK_SH
            )
        except OSError:
            return False
        except BaseException:  # a Ctrl-C while waiting: __exit__ will not run
            self.__exit__()
            raise
        return True

    def __exit__(self, *exc):
        if self._fd is not None:
            os.close(self._fd)  # releases the lock
            self._fd = None
        return False


def _names(folder):
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _stale(name, pattern, target=None):
    """Whether ``name`` is a temporary file of :func:`atomic_write_bytes` (``pattern``) for
    a target whose name matches ``target`` (any when None)."""
    m = pattern.fullmatch(name)
    return m is not None and (target is None or target.fullmatch(m["target"]) is not None)


def remove_stale_temporaries(output):
    """Remove the temporary files of writes that never finished from the output folder ``output``.

    Those are left by a run killed between writing a file and renaming it (``SIGKILL``, a
    power cut): ``.split_NNN.json.XXXXXXXX.tmp`` in its record folders
    (``records/<label>/<setting>/``) and ``.NAME.XXXXXXXX.tmp`` (:data:`TMP_NAME`) beside its
    summaries.  Only names of that form, only in those folders, and only in a folder no
    writer holds (:class:`_FolderLock`): a run writing into the same folder right now keeps
    its temporary files (that folder is cleaned by a later run).

    Parameters
    ----------
    output : str or pathlib.Path
        The output folder.

    Returns
    -------
    list of pathlib.Path
        The paths removed.
    """
    output = Path(output)
    folders = [(output, TMP_NAME, None)]
    folders += [
        (p, TMP_NAME, _RECORD_NAME) for p in sorted(output.glob("records/*/*")) if p.is_dir()
    ]
    removed = []
    for folder, pattern, target in folders:
        if not any(_stale(n, pattern, target) for n in _names(folder)):
            continue
        with _FolderLock(folder, exclusive=True) as held:
            if not held:
                continue
            for name in [n for n in _names(folder) if _stale(n, pattern, target)]:
                path = folder / name
                try:
                    if path.is_file() or path.is_symlink():
                        path.unlink()
                        removed.append(path)
                except OSError:  # not ours to remove after all (permissions)
                    pass
    return removed


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _safe(label):
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", label)


def record_path(output, label, setting, split):
    """The file of the record of ``(label, setting, split)`` under the output folder ``output``.

    ``<output>/records/<label>/<setting>/split_NNN.json``: in the label and the setting, every
    run of characters other than letters, digits and ``_.+-`` becomes one ``_``; ``NNN`` is
    the split's index with at least three digits.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    label : str
        The method's label in the spec.
    setting : str
        The setting's label, e.g. ``"10 labeled"``.
    split : int
        The split's index.

    Returns
    -------
    pathlib.Path
        The record's path (whether or not the file exists).
    """
    return Path(output) / "records" / _safe(label) / _safe(setting) / f"split_{split:03d}.json"


def write_record(output, record):
    """Write ``record`` (atomically) and return it as a resumed run reads it back.

    The record read back has sorted keys and plain JSON values (numpy scalars and arrays
    converted, anything else not JSON-native as its ``str``): a fresh run's summaries are
    then those of a resumed one, row order and the ``selected`` text included.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    record : dict
        The record; its ``method``, ``setting`` and ``split`` name its file
        (:func:`record_path`).

    Returns
    -------
    dict
        The record as written to its file, read back.
    """
    path = record_path(output, record["method"], record["setting"], record["split"])
    text = json.dumps(record, indent=1, sort_keys=True, default=_jsonable)
    atomic_write_text(path, text)
    return json.loads(text)


def read_record(output, label, setting, split, key=None):
    """The record of ``(label, setting, split)``, or None when absent, unreadable or stale.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    label : str
        The method's label in the spec.
    setting : str
        The setting's label, e.g. ``"10 labeled"``.
    split : int
        The split's index.
    key : str, default=None
        The record key expected (:func:`~sskernels.experiment.identity.record_key`): a
        record with another key is stale.
        None accepts any key.

    Returns
    -------
    dict or None
        The current record, or None.
    """
    state, rec = record_state(output, label, setting, split, key)
    return rec if state == "current" else None


class SharedRecords:
    """Records other specs already computed, to be reused instead of recomputed.

    A record's key (:func:`~sskernels.experiment.identity.record_key`) hashes everything
    its numbers depend on: the data
    (their content), the split protocol, the method's name and parameters, and the code
    and library versions.  Two specs that run the same method on the same data (Wang et
    al.'s Table 3 repeats Table 2's single-kernel rows) share keys, so a record with the
    same key, setting and split written under a *sibling* output folder (the same parent
    folder as ``output``) is that very computation.  The index reads one record per
    (sibling, method, setting) folder, lazily, once.
    """

    def __init__(self, output):
        self.output = Path(output).resolve()
        self._index = None

    def _build(self):
        self._index = {}
        parent = self.output.parent
        if not parent.is_dir():
            return
        for run in sorted(p for p in parent.iterdir() if p.is_dir() and p != self.output):
            for setting_dir in sorted(run.glob("records/*/*")):
                first = next(iter(sorted(setting_dir.glob("split_*.json"))), None)
                try:
                    rec = json.loads(first.read_text()) if first is not None else None
                except (OSError, ValueError):
                    rec = None
                if rec and "key" in rec and "setting" in rec:
                    self._index.setdefault((rec["key"], rec["setting"]), setting_dir)

    def get(self, key, setting, split):
        """A sibling's record with this key, setting and split, or None.

        Parameters
        ----------
        key : str
            The record key (:func:`~sskernels.experiment.identity.record_key`).
        setting : str
            The setting's label, e.g. ``"10 labeled"``.
        split : int
            The split's index.

        Returns
        -------
        dict or None
            The record as a sibling output folder holds it, or None when no sibling has one
            whose ``key``, ``setting`` and ``split`` all match (or it cannot be read).
        """
        if self._index is None:
            self._build()
        folder = self._index.get((key, setting))
        if folder is None:
            return None
        try:
            rec = json.loads((folder / f"split_{split:03d}.json").read_text())
        except (OSError, ValueError):
            return None
        if rec.get("key") != key or rec.get("setting") != setting or rec.get("split") != split:
            return None
        return rec


def stored_record(output, label, setting, split):
    """The record file of ``(label, setting, split)`` as stored, whatever its key; None when
    it is absent or unreadable (what ``run --dry-run`` explains a stale record from).

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    label : str
        The method's label in the spec.
    setting : str
        The setting's label, e.g. ``"10 labeled"``.
    split : int
        The split's index.

    Returns
    -------
    dict or None
        The record, or None.
    """
    try:
        rec = json.loads(record_path(output, label, setting, split).read_text())
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) else None


def record_state(output, label, setting, split, key=None):
    """The state of the record of ``(label, setting, split)`` and the record if it is current.

    ``("current", record)``, or ``("stale", None)`` when the record's key is not ``key``,
    or ``("missing", None)`` when there is no readable record.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    label : str
        The method's label in the spec.
    setting : str
        The setting's label, e.g. ``"10 labeled"``.
    split : int
        The split's index.
    key : str, default=None
        The record key expected (:func:`~sskernels.experiment.identity.record_key`); None:
        any record is current.

    Returns
    -------
    state : str
        ``"current"``, ``"stale"`` or ``"missing"``.
    record : dict or None
        The record when current, else None.
    """
    rec = stored_record(output, label, setting, split)
    if rec is None:
        return "missing", None
    if key is not None and rec.get("key") != key:
        return "stale", None
    return "current", rec


def plain(obj):
    """``obj`` with numpy scalars and arrays, tuples and non-string keys made JSON-native.

    So that a record in memory equals the record read back from its file.  Dicts, lists
    and tuples are converted recursively (tuples and arrays become lists, a non-string key
    the ``str`` of its plain value); None, str, int, float and bool are kept; any other
    object becomes its ``str``.

    Parameters
    ----------
    obj : object
        A record or any part of one.

    Returns
    -------
    object
        The JSON-native value.
    """
    import numpy as np

    if isinstance(obj, dict):
        return {k if isinstance(k, str) else str(plain(k)): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def _jsonable(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def write_graph_seconds(output, seconds, searches=(), artifacts=None):
    """Record the time of the label-independent work (graphs, spectra) of a run.

    Also how its graphs' neighbours were searched (``searches``:
    :func:`sskernels.graph.graph_searches`; method, recall, tie handling).  Both go to
    ``<output>/graph_seconds.json``, written atomically.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    seconds : float
        The seconds of the warm-up.
    searches : sequence of dict, default=()
        One dict per graph (:func:`sskernels.graph.graph_searches`).
    artifacts : dict or None, default=None
        With a graph store (:mod:`sskernels.experiment.artifacts`): its directory, the
        graphs loaded from it (then ``seconds`` is the load's and the searches' seconds are
        those of the run that built them) and how many graphs were written.
    """
    out = {"seconds": seconds, "searches": list(searches)}
    if artifacts is not None:
        out["artifacts"] = artifacts
    atomic_write_text(Path(output) / "graph_seconds.json", json.dumps(plain(out)))


def _graph_file(output):
    """The dict ``<output>/graph_seconds.json`` holds, {} when it is absent or unreadable."""
    try:
        out = json.loads((Path(output) / "graph_seconds.json").read_text())
    except (OSError, ValueError):
        return {}
    return out if isinstance(out, dict) else {}


def read_graph_searches(output):
    """The neighbour searches :func:`write_graph_seconds` recorded ([] if none).

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.

    Returns
    -------
    list of dict
        The searches; [] when the file is absent, unreadable or holds none.
    """
    out = _graph_file(output).get("searches", [])
    return out if isinstance(out, list) else []


def read_graph_store(output):
    """What :func:`write_graph_seconds` recorded of the run's graph store (its
    ``artifacts``), or None (no store, or no file).

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.

    Returns
    -------
    dict or None
    """
    art = _graph_file(output).get("artifacts")
    return art if isinstance(art, dict) else None


def read_graph_artifacts(output):
    """The graphs a run loaded from its store (:func:`read_graph_store`'s ``loaded``):
    ``[{"key": text, "built_seconds": float or None}]``, [] when none or no store.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.

    Returns
    -------
    list of dict
    """
    loaded = (read_graph_store(output) or {}).get("loaded", [])
    return [d for d in loaded if isinstance(d, dict)] if isinstance(loaded, list) else []


def read_graph_seconds(output):
    """The seconds of the label-independent work :func:`write_graph_seconds` recorded.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.

    Returns
    -------
    float or None
        The seconds; None when ``graph_seconds.json`` is absent or unreadable.
    """
    try:
        return float(_graph_file(output)["seconds"])
    except (KeyError, TypeError, ValueError):
        return None


def write_data_fingerprint(output, fingerprint, points):
    """Record the data fingerprint a run's record keys were made with (see ``load_records``).

    The file, ``<output>/data_fingerprint.json``, holds the fingerprint, the code key of
    what computed it (:func:`~sskernels.experiment.identity.data_code_key`) and the size
    of the points the methods are
    fitted on (which libraries enter a key depends on it:
    :func:`sskernels.experiment.plan.optional_libraries`); it is written (atomically) only
    when it does not already hold them.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    fingerprint : str
        The data fingerprint (:func:`~sskernels.experiment.identity.data_fingerprint`).
    points : tuple of (int, bool)
        ``(n, sparse)`` (:func:`sskernels.experiment.plan.fitted_points`).
    """
    path = Path(output) / "data_fingerprint.json"
    stored = {
        "data_fingerprint": fingerprint,
        "data_code": data_code_key(),
        "points": [int(points[0]), bool(points[1])],
    }
    if _read_fingerprint_file(output) != stored:
        atomic_write_text(path, json.dumps(stored))


def _read_fingerprint_file(output):
    try:
        stored = json.loads((Path(output) / "data_fingerprint.json").read_text())
    except (OSError, ValueError):
        return None
    return stored if isinstance(stored, dict) else None


def read_data_fingerprint(output, with_code=False):
    """The data fingerprint of the last run into ``output``, or None.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.
    with_code : bool, default=False
        Also return the data code key the fingerprint was computed with
        (:func:`~sskernels.experiment.identity.data_code_key`) and the points'
        ``(n, sparse)``; each None for a file
        written before it was stored.

    Returns
    -------
    str or None, or tuple
        The fingerprint :func:`write_data_fingerprint` recorded; None when the file is
        absent or unreadable.  With ``with_code``, (fingerprint, data code, points).
    """
    stored = _read_fingerprint_file(output) or {}
    fp, code, points = (stored.get(k) for k in ("data_fingerprint", "data_code", "points"))
    fp = str(fp) if isinstance(fp, str) else None
    code = code if isinstance(code, str) and fp is not None else None
    ok = (
        isinstance(points, list)
        and len(points) == 2
        and isinstance(points[0], int)
        and isinstance(points[1], bool)
    )
    points = (points[0], points[1]) if ok and code is not None else None
    return (fp, code, points) if with_code else fp


#: the file that marks a folder as an sskernels output folder (the run may write there)
OUTPUT_MARKER = ".sskernels-output"


def claim_output(spec):
    """Check, before anything is computed, that the spec's output folder can take the run.

    The folder is created if needed and marked as ours; a path that is a file, that cannot be
    created or written, or a non-empty folder that sskernels did not create (its files could
    be overwritten: a user's own ``summary.csv``) is refused with one line naming the spec
    file and the field.  A folder of an earlier version (holding ``records/``) is adopted.
    The temporary files a killed run left there are removed
    (:func:`remove_stale_temporaries`).

    Parameters
    ----------
    spec : Spec
        The experiment spec; its ``output`` is the folder.

    Returns
    -------
    pathlib.Path
        The output folder.

    Raises
    ------
    SpecError
        On the field ``output``, when the folder is refused
        (:class:`~sskernels.errors.SpecError`).
    """
    from sskernels.errors import SpecError

    path = Path(spec.output)
    shown = str(path) if len(str(path)) <= 200 else str(path)[:200] + "..."

    def refuse(why):
        raise SpecError(
            spec.path, "output", f"a folder sskernels can write its records to ({shown}: {why})"
        )

    try:
        if path.exists() and not path.is_dir():
            refuse("exists and is not a folder")
        if path.is_dir() and not (path / OUTPUT_MARKER).exists():
            entries = [p.name for p in path.iterdir()]
            if entries and "records" not in entries:
                refuse(
                    f"a non-empty folder that sskernels did not create ({len(entries)} "
                    "entries); its files could be overwritten: choose another output"
                )
        path.mkdir(parents=True, exist_ok=True)
        marker = path / OUTPUT_MARKER
        if not marker.exists():
            atomic_write_text(marker, "written by sskernels: records and summaries of runs\n")
        elif not os.access(path, os.W_OK):
            refuse("not writable")
    except OSError as exc:
        refuse(f"cannot create or write it: {exc.strerror or exc}")
    remove_stale_temporaries(path)
    return path
