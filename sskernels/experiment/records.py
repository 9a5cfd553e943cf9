"""Per-split records, written atomically, read back for summaries and resumption.

One JSON file per (method, setting, split) under
``<output>/records/<label>/<setting>/split_NNN.json``.
A record carries the key of the spec parts it depends on, so that a rerun
recomputes exactly the records whose inputs changed and skips the rest.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path


def atomic_write_text(path, text):
    """Write ``text`` to ``path`` through a temporary file and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _safe(label):
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", label)


def record_path(output, label, setting, split):
    return Path(output) / "records" / _safe(label) / _safe(setting) / f"split_{split:03d}.json"


def write_record(output, record):
    path = record_path(output, record["method"], record["setting"], record["split"])
    atomic_write_text(path, json.dumps(record, indent=1, sort_keys=True, default=_jsonable))


def read_record(output, label, setting, split, key=None):
    """The record of ``(label, setting, split)``, or None when absent, unreadable or stale."""
    path = record_path(output, label, setting, split)
    try:
        rec = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if key is not None and rec.get("key") != key:
        return None
    return rec


def _jsonable(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def write_graph_seconds(output, seconds):
    """Record the time of the label-independent work (graphs, spectra) of a run."""
    atomic_write_text(Path(output) / "graph_seconds.json", json.dumps({"seconds": seconds}))


def read_graph_seconds(output):
    try:
        return float(json.loads((Path(output) / "graph_seconds.json").read_text())["seconds"])
    except (OSError, ValueError, KeyError):
        return None
