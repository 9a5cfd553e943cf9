"""Record archives: a spec's records in one compressed file, committed beside its output folder.

The per-split records under ``<output>/records/`` are many small files, not committed. An
archive ``<output>.records.jsonl.gz`` holds all of them, one JSON record per line, sorted,
gzip without a time stamp (the same records give the same bytes).  When a run looks for a
record it does not have, it looks in the spec's archive too and takes a record whose key
matches (the same method, data, split protocol and code: :mod:`sskernels.experiment.records`)
— so a fresh clone recomputes only what a change of code made stale, instead of every table.

``sskernels archive SPEC...`` (``make archive``) writes the archives of specs that have
records.

An oracle's candidate list (``oracle.params`` of a record, the same on every split of a row)
is stored once per archive when its JSON has :data:`SHARED_PARAMS_BYTES` or more (a line
``{"params_id": ..., "params": [...]}``; the records name it by ``oracle.params_ref``, its
content digest): Wang et al.'s Sec. 4.3.2 local Rademacher grids hold 6,300 candidates, 0.9 MB
of JSON a split, which gzip's 32 KiB window cannot share between records.  Reading restores
every record as it was written.

Examples
--------
>>> import json, tempfile
>>> from pathlib import Path
>>> from sskernels.experiment.archive import ArchivedRecords, archive_path, write_archive
>>> out = Path(tempfile.mkdtemp()) / "run"
>>> rec = out / "records" / "TSK" / "10_labeled" / "split_000.json"
>>> rec.parent.mkdir(parents=True)
>>> _ = rec.write_text(json.dumps({"key": "k1", "method": "TSK", "setting": "10 labeled",
...                                "split": 0, "metrics": {"accuracy": 90.0}}))
>>> write_archive(out)
1
>>> ArchivedRecords(out).get("k1", "10 labeled", 0)["metrics"]
{'accuracy': 90.0}
>>> archive_path(out).name
'run.records.jsonl.gz'
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from pathlib import Path

__all__ = ["ArchivedRecords", "archive_path", "archived_seconds", "write_archive"]


def archive_path(output):
    """``<output>.records.jsonl.gz``: the archive of the spec whose output folder is ``output``.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder (``spec.output``).

    Returns
    -------
    pathlib.Path
        The archive's path, beside the output folder.
    """
    output = Path(output)
    return output.with_name(output.name + ".records.jsonl.gz")


def archived_seconds(output):
    """``{(method label, setting, split): seconds}`` of a spec's archived records, whatever
    their keys (the committed cost of each record, for :command:`sskernels bench --compare`).

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder (``spec.output``).

    Returns
    -------
    dict
        Empty when there is no archive or it cannot be read.

    Examples
    --------
    >>> import tempfile
    >>> from sskernels.experiment.archive import archived_seconds
    >>> archived_seconds(tempfile.mkdtemp() + "/none")
    {}
    """
    return {
        (r["method"], r["setting"], r["split"]): float(r["seconds"])
        for r in _archive_entries(output)
        if {"method", "setting", "split", "seconds"} <= r.keys()
    }


#: an oracle's candidate list of at least this many bytes of JSON is stored once per archive
#: (module docstring); a shorter one stays in its record
SHARED_PARAMS_BYTES = 4096


def _archive_entries(output):
    """Every JSON object of a spec's archive (records and kept files), each record's shared
    candidate list put back (:func:`_restore_params`); an archive that cannot be read, or whose
    shared list no longer has the digest that names it, is no archive: ``[]``."""
    try:
        with gzip.open(archive_path(output), "rt") as fh:
            entries = [e for e in map(json.loads, fh) if isinstance(e, dict)]
    except (OSError, ValueError, EOFError):
        return []
    shared = {e["params_id"]: e.get("params") for e in entries if "params_id" in e}
    if any(_params_digest(v) != k for k, v in shared.items()):
        return []  # a list edited since it was written: not the records' candidates
    try:
        return [_restore_params(e, shared) for e in entries if "params_id" not in e]
    except ValueError:
        return []


def _share_params(rec, shared):
    """``rec`` with a long ``oracle.params`` replaced by ``oracle.params_ref`` (its digest),
    the list's JSON added to ``shared`` under that digest; other records unchanged."""
    oracle = rec.get("oracle")
    if not isinstance(oracle, dict) or not isinstance(oracle.get("params"), list):
        return rec
    text = _params_text(oracle["params"])
    if len(text) < SHARED_PARAMS_BYTES:
        return rec
    ref = _params_digest(oracle["params"], text)
    shared.setdefault(ref, text)
    slim = {k: v for k, v in oracle.items() if k != "params"}
    slim["params_ref"] = ref
    return {**rec, "oracle": slim}


def _params_text(params):
    """A candidate list's JSON as the archive writes it (keys sorted, no spaces)."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def _params_digest(params, text=None):
    """The name of a shared candidate list: the first 16 hex digits of its JSON's sha256."""
    text = _params_text(params) if text is None else text
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _restore_params(rec, shared):
    """``rec`` with ``oracle.params_ref`` replaced by the shared list it names (the records of
    one archive share the list object).  A reference the archive does not hold is an archive
    that cannot be read (ValueError)."""
    oracle = rec.get("oracle")
    if not isinstance(oracle, dict) or "params_ref" not in oracle:
        return rec
    ref = oracle["params_ref"]
    if ref not in shared:
        raise ValueError(f"the archive has no candidate list {ref!r}")
    full = {k: v for k, v in oracle.items() if k != "params_ref"}
    full["params"] = shared[ref]
    return {**rec, "oracle": full}


def write_archive(output):
    """Pack every record under ``<output>/records`` into :func:`archive_path` (atomically).

    The run files of :data:`FILES` that the folder holds go into the archive beside the
    records; a record file that cannot be read, or that has no ``key``, is left out.

    Parameters
    ----------
    output : str or pathlib.Path
        The spec's output folder.

    Returns
    -------
    int
        The number of records archived (0: nothing written).
    """
    from sskernels.experiment.records import atomic_write_bytes

    lines = []
    for name in FILES:  # the run's other files, when the records come back
        try:
            content = json.loads((Path(output) / name).read_text())
        except (OSError, ValueError):
            continue
        lines.append(
            json.dumps({"file": name, "content": content}, sort_keys=True, separators=(",", ":"))
        )
    records, shared = [], {}
    for path in sorted(Path(output).glob("records/*/*/split_*.json")):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(rec, dict) and "key" in rec:
            rec = _share_params(rec, shared)
            records.append(json.dumps(rec, sort_keys=True, separators=(",", ":")))
    n_records = len(records)
    if not n_records:
        return 0
    # the shared lists (sorted by digest), then the records: the same records, the same bytes
    lines += [f'{{"params":{shared[ref]},"params_id":"{ref}"}}' for ref in sorted(shared)]
    lines += records
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as gz:
        gz.write(("\n".join(lines) + "\n").encode())
    atomic_write_bytes(archive_path(output), buf.getvalue())
    return n_records


#: files of an output folder an archive keeps beside the records: the warm-up's seconds and
#: graph searches (a summary shows them), the data fingerprint the records were made on
#: (``sskernels table`` checks keys with it; a run writes the current one) and the stages
#: a table script measured (``scripts/secstr_table.py``)
FILES = ("graph_seconds.json", "data_fingerprint.json", "stages.json")


class ArchivedRecords:
    """The records of a spec's archive, indexed by ``(key, setting, split)`` (read lazily,
    once; an archive that cannot be read is no archive)."""

    def __init__(self, output):
        self.output = output
        self.path = archive_path(output)
        self._index = None

    def _build(self):
        self._index, self._places, self.files = {}, {}, {}
        for rec in _archive_entries(self.output):
            if {"key", "setting", "split"} <= rec.keys():
                self._index[(rec["key"], rec["setting"], rec["split"])] = rec
                self._places[(rec.get("method"), rec["setting"], rec["split"])] = rec
            elif rec.get("file") in FILES:
                self.files[rec["file"]] = rec.get("content")

    def get(self, key, setting, split):
        """The archived record with this key, setting and split, or None.

        Parameters
        ----------
        key : str
            The record key (:func:`~sskernels.experiment.records.record_key`).
        setting : str
            The setting's label, e.g. ``"10 labeled"``.
        split : int
            The split's index.

        Returns
        -------
        dict or None
            The record as archived; None when the archive holds none (or cannot be read).
        """
        self._load()
        return self._index.get((key, setting, split))

    def at(self, label, setting, split):
        """The archived record of method ``label``, ``setting`` and ``split``, whatever its
        key, or None (a stale one tells ``run --dry-run`` why it is stale).

        Parameters
        ----------
        label : str
            The method's label the record was archived under.
        setting : str
            The setting's label, e.g. ``"10 labeled"``.
        split : int
            The split's index.

        Returns
        -------
        dict or None
            The record as archived.
        """
        self._load()
        return self._places.get((label, setting, split))

    def settings(self, key):
        """The settings (e.g. ``"official 100 labeled"``) of the archived records with ``key``.

        Parameters
        ----------
        key : str
            The record key (:func:`~sskernels.experiment.records.record_key`).

        Returns
        -------
        list of str
            The settings' labels, sorted (empty when no record has that key).
        """
        self._load()
        return sorted({s for k, s, _ in self._index if k == key})

    def _load(self):
        if self._index is None:
            if self.path.is_file():
                self._build()
            else:
                self._index, self._places, self.files = {}, {}, {}

    def restore_files(self, output):
        """Write the archived run files (:data:`FILES`) the output folder lacks.

        A folder this creates (or finds empty) is marked as sskernels' (the marker
        :func:`~sskernels.experiment.records.claim_output` looks for), so that a later run
        may write to it: on a fresh clone ``sskernels table`` restores before any run.
        A file the folder already holds is kept as it is.

        Parameters
        ----------
        output : str or pathlib.Path
            The spec's output folder.
        """
        from sskernels.experiment.records import OUTPUT_MARKER, atomic_write_text

        self._load()
        out = Path(output)
        missing = [name for name in self.files if not (out / name).exists()]
        if missing and (not out.exists() or (out.is_dir() and not any(out.iterdir()))):
            atomic_write_text(
                out / OUTPUT_MARKER, "written by sskernels: records and summaries of runs\n"
            )
        for name in missing:
            atomic_write_text(out / name, json.dumps(self.files[name]))
