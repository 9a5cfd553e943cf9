"""What produced a number: package version, git commit, a hash of the code, library versions.

Records and summaries carry this so that a reader can tell which code made them,
and so that the runner never reuses a record made by other code:

* :func:`provenance` — the full description (a dict, stored in every record);
* :func:`provenance_key` — a short hash of the parts that decide the numbers,
  part of every record's key (:func:`sskernels.experiment.records.record_key`);
* :func:`summary_header` — one human-readable line for the top of a summary.

Everything is computed once per process (``functools.lru_cache``): hashing the
package's sources takes a few milliseconds, and no per-task cost is paid.
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

#: distributions whose versions are recorded (numerical results may depend on them)
LIBRARIES = ("numpy", "scipy", "scikit-learn", "highspy")

PACKAGE_DIR = Path(__file__).resolve().parent


def code_hash(root=None) -> str:
    """sha256 (hex) of the package's source: every ``*.py`` file and ``paper_tables/*.csv``.

    Files are taken in the order of their path relative to ``root`` (default: the
    installed ``sskernels`` directory), and each file's relative path is hashed
    with its bytes, so an edit, an added, a removed or a renamed file all change
    the hash.  Compiled files (``__pycache__``) are not read.  This is what makes a
    change of a learner's code invalidate its records even in a working tree with
    uncommitted edits, where the git commit says nothing.
    """
    if root is None:
        return _package_code_hash()
    return _hash_tree(Path(root))


@functools.lru_cache(maxsize=None)
def _package_code_hash():
    return _hash_tree(PACKAGE_DIR)


def _hash_tree(root: Path) -> str:
    files = [p for p in root.rglob("*.py") if "__pycache__" not in p.parts]
    files += list((root / "paper_tables").glob("*.csv"))
    h = hashlib.sha256()
    for rel in sorted(p.relative_to(root).as_posix() for p in files):
        data = (root / rel).read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _package_version():
    import sskernels

    return getattr(sskernels, "__version__", None) or _version("sskernels")


def _git(*args):
    """Output of ``git args`` run in the package directory, or None when git cannot answer."""
    try:
        res = subprocess.run(["git", *args], cwd=PACKAGE_DIR, capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout if res.returncode == 0 else None


def _git_state():
    """``(commit, dirty)`` of the source tree, ``(None, None)`` when it is not a git checkout.

    The package directory counts as a checkout only if its ``__init__.py`` is tracked
    (an installed copy inside some other repository, e.g. a venv in a clone, is not).
    ``dirty`` is True when a file under the package directory differs from the commit
    or is untracked: the state of the rest of the repository does not decide numbers.
    """
    if _git("ls-files", "--error-unmatch", "__init__.py") is None:
        return None, None
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--", ".")
    if commit is None:
        return None, None
    return commit.strip(), None if status is None else bool(status.strip())


@functools.lru_cache(maxsize=None)
def _provenance():
    commit, dirty = _git_state()
    info = {"sskernels": _package_version(), "git_commit": commit, "git_dirty": dirty,
            "code_hash": code_hash(), "python": platform.python_version()}
    info.update({lib: _version(lib) for lib in LIBRARIES})
    return info


def provenance() -> dict:
    """What produced this process's numbers (computed once per process; a fresh copy each call).

    Keys: ``sskernels`` (package version), ``git_commit`` and ``git_dirty`` (None
    outside a git checkout or without git), ``code_hash`` (:func:`code_hash`),
    ``python``, and the versions of numpy, scipy, scikit-learn and highspy (None
    when a library is not installed).
    """
    return dict(_provenance())


#: the parts of :func:`provenance` that decide the numbers
KEY_FIELDS = ("sskernels", "code_hash", "python") + LIBRARIES


def provenance_key() -> str:
    """A short hash (16 hex digits) of the code hash, the package version and library versions.

    ``git_commit`` and ``git_dirty`` are deliberately left out: the code hash already
    changes with every edit of the package's sources, committed or not, whereas a
    commit that touches no source file (documentation, configs, tests) or merely
    committing the edits that were already run must not invalidate the records.
    """
    info = _provenance()
    parts = {k: info[k] for k in KEY_FIELDS}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def summary_header() -> str:
    """One line naming the code and libraries, e.g.
    ``sskernels 0.1.0 (commit abc1234, dirty) · python 3.12.3 · numpy 2.4.6 · ... · code 1a2b3c4d``.
    """
    info = _provenance()
    head = f"sskernels {info['sskernels']}"
    if info["git_commit"]:
        state = {True: ", dirty", False: "", None: ""}[info["git_dirty"]]
        head += f" (commit {info['git_commit'][:7]}{state})"
    parts = [head, f"python {info['python']}"]
    parts += [f"{lib} {info[lib]}" for lib in LIBRARIES if info[lib] is not None]
    parts.append(f"code {info['code_hash'][:8]}")
    return " · ".join(parts)
