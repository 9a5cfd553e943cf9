"""An opt-in store of the memoized graphs (with their spectra) on disk, across runs.

A k-NN graph and its Laplacian spectrum are label-independent: within one process every
split, method and spec on the same points shares them (:func:`sskernels.graph.get_graph`).
The store extends that memo across processes: a run with a store
(``sskernels run --artifacts DIR`` or ``SSKERNELS_ARTIFACTS=DIR``) loads the graphs that an
earlier run on the same points left there before its warm-up, and writes those its warm-up
built or grew (a spectrum added).  Without a store nothing is read or written.

What a stored graph is valid for.  A graph is filed under a *signature* of everything that
decides its numbers besides its memo key (the points' content and the graph parameters):

* the code of the whole graph package and of everything it imports (the digests records
  use, :func:`sskernels.provenance.code_modules`: every builder that memoizes a graph is in
  that package), the package's, Python's and the numerical libraries' versions;
* for compiled code (NN-descent), the versions of numba / pynndescent and the CPU target
  (:func:`sskernels.provenance.compiled_key`);
* the BLAS library, its version, its kernel family (OpenBLAS's core type) and the number of
  threads of the neighbour search (the warm-up's ``--jobs``).

An edit of any module of that closure, an upgrade, another CPU family or another ``--jobs``
gives another signature, so nothing stale is read; the store never moves a record's key
(records do not know whether their graph was loaded).  A stored file whose sha256 is not the
one written beside it is refused in one line that names it (delete the file, or the store).

The stage times a graph carries (its search's seconds, its spectrum's) are those of the run
that computed it; a run that loaded it records so in its ``graph_seconds.json``
(``artifacts``) and its warm-up seconds are the load's.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import platform
import time
import weakref
from contextlib import contextmanager
from pathlib import Path

from sskernels.errors import UserError

#: the environment variable naming the store's directory (unset: no store)
ENV = "SSKERNELS_ARTIFACTS"
#: the module whose memo is stored, and the package whose code its graphs depend on
GRAPH_MEMO = "sskernels.graph.cache"
GRAPH_PACKAGE = "sskernels.graph"

_ACTIVE = {"dir": None}
#: the graphs this process loaded from a store: memo key -> (a weak reference to the graph,
#: the seconds its build took); a graph built again after the memo forgot it is not one
_LOADED = {}


def store_dir():
    """The store's directory: the one :func:`using` set, else ``$SSKERNELS_ARTIFACTS``,
    else None (no store).

    Returns
    -------
    pathlib.Path or None
        The directory (not necessarily existing yet), or None.

    Examples
    --------
    >>> from sskernels.experiment.artifacts import store_dir, using
    >>> with using("/tmp/graphs"):
    ...     str(store_dir())
    '/tmp/graphs'
    """
    chosen = _ACTIVE["dir"] or os.environ.get(ENV) or None
    return None if chosen is None else Path(chosen).expanduser()


@contextmanager
def using(directory):
    """Use ``directory`` as the store inside the ``with`` block (None: the environment's).

    Parameters
    ----------
    directory : str or path-like or None
        The store's directory.

    Yields
    ------
    None
    """
    old = _ACTIVE["dir"]
    _ACTIVE["dir"] = None if directory is None else str(directory)
    try:
        yield
    finally:
        _ACTIVE["dir"] = old


def _graph_modules():
    """Every module of the graph package (the builders that memoize graphs)."""
    from sskernels import provenance

    root = provenance.PACKAGE_DIR / "graph"
    names = [GRAPH_PACKAGE]
    names += [
        f"{GRAPH_PACKAGE}.{p.stem}" for p in sorted(root.glob("*.py")) if p.stem != "__init__"
    ]
    return names


def _blas():
    """The BLAS libraries' identity: library, version, kernel family (threadpoolctl)."""
    from threadpoolctl import threadpool_info

    return sorted(
        [
            {k: info.get(k) for k in ("internal_api", "version", "architecture")}
            for info in threadpool_info()
            if info.get("user_api") == "blas"
        ],
        key=lambda d: json.dumps(d, sort_keys=True),
    ) + [{"OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE")}]


def signature(search_threads):
    """The signature the stored graphs are filed under (module docstring).

    Parameters
    ----------
    search_threads : int
        The threads of the warm-up's neighbour search (the run's ``--jobs``).

    Returns
    -------
    str
        16 hex digits.
    """
    from sskernels import provenance
    from sskernels.hashing import json_digest

    modules = provenance.code_modules(_graph_modules())
    return json_digest(
        {
            "code": provenance.key_of(modules),
            "compiled": provenance.compiled_key(modules),
            "blas": _blas(),
            "machine": platform.machine(),
            "search_threads": int(search_threads),
        }
    )


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            h.update(block)
    return h.hexdigest()


def _built_seconds(graph):
    """The seconds a graph's search and its spectrum took in the run that computed them (the
    search's wall seconds where measured), or None when it recorded neither."""
    info = getattr(graph, "knn_info", None) or {}
    search = info.get("wall_seconds", info.get("seconds"))
    spectrum = getattr(graph, "computed_spectrum", None)
    parts = [search, None if spectrum is None else spectrum.seconds]
    parts = [float(p) for p in parts if p is not None]
    return sum(parts) if parts else None


def _key_name(key):
    return hashlib.sha256(pickle.dumps(key, protocol=4)).hexdigest()[:24]


class GraphStore:
    """The graphs of one set of points under one signature, in ``root``.

    Layout: ``root/<signature>/<points fingerprint>/<key digest>.pkl`` (the pickled
    ``(key, graph)``) and ``.json`` beside it (its sha256, the memo key as text, bytes,
    when written); both written atomically, the ``.json`` last.

    Parameters
    ----------
    root : str or path-like
        The store's directory.
    points : str
        The fingerprint of the points the graphs are built on
        (:func:`sskernels.hashing.fingerprint`).
    search_threads : int
        The threads of the neighbour search (:func:`signature`).
    """

    def __init__(self, root, points, search_threads):
        self.root = Path(root)
        self.dir = self.root / signature(search_threads) / str(points)
        self.loaded = []
        self._sizes = {}

    def restore(self):
        """Put every stored graph of these points that this process does not hold into the
        graph memo; returns their memo keys (also kept in :attr:`loaded`).

        Raises
        ------
        UserError
            A stored file that cannot be read or whose sha256 differs from the one recorded.
        """
        from sskernels.graph.cache import _CACHE
        from sskernels.memo import put_shared

        if not self.dir.is_dir():
            return []
        for meta_path in sorted(self.dir.glob("*.json")):
            pkl = meta_path.with_suffix(".pkl")
            try:
                meta = json.loads(meta_path.read_text())
                ok = pkl.is_file() and _sha256(pkl) == meta["sha256"]
            except (OSError, ValueError, KeyError, TypeError):
                ok = False
            if not ok:
                raise UserError(
                    f"{pkl}: a stored graph whose sha256 is not the one recorded in "
                    f"{meta_path.name} (corrupt or unfinished); delete both files or the "
                    f"store ({self.root})"
                )
            with open(pkl, "rb") as f:
                key, graph = pickle.load(f)
            if key in _CACHE:
                continue
            put_shared(GRAPH_MEMO, key, graph)
            _LOADED[key] = (weakref.ref(graph), _built_seconds(graph))
            self.loaded.append(key)
        return list(self.loaded)

    def mark(self):
        """Remember the bytes of every memoized graph (before a warm-up), so that
        :meth:`save` writes only the graphs the warm-up built or grew."""
        from sskernels.graph.cache import _CACHE
        from sskernels.memo import sizeof

        self._sizes = {key: sizeof(g) for key, g in _CACHE.items()}

    def save(self):
        """Write the graphs built or grown since :meth:`mark`; returns how many.

        Returns
        -------
        int
            The number of graphs written.
        """
        from sskernels.graph.cache import _CACHE
        from sskernels.memo import sizeof

        written = 0
        for key, graph in _CACHE.items():
            size = sizeof(graph)
            if self._sizes.get(key) == size:
                continue
            self.dir.mkdir(parents=True, exist_ok=True)
            name = _key_name(key)
            pkl, meta = self.dir / f"{name}.pkl", self.dir / f"{name}.json"
            tmp = pkl.with_suffix(f".pkl.{os.getpid()}.tmp")
            with open(tmp, "wb") as f:
                pickle.dump((key, graph), f, protocol=pickle.HIGHEST_PROTOCOL)
            digest = _sha256(tmp)
            os.replace(tmp, pkl)
            tmp_meta = meta.with_suffix(f".json.{os.getpid()}.tmp")
            tmp_meta.write_text(
                json.dumps(
                    {
                        "sha256": digest,
                        "key": repr(key),
                        "bytes": size,
                        "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    }
                )
            )
            os.replace(tmp_meta, meta)
            self._sizes[key] = size
            written += 1
        return written


def open_store(points, search_threads):
    """The :class:`GraphStore` of ``points`` in the active store, or None without one.

    Parameters
    ----------
    points : array-like or sparse matrix
        The points the graphs are built on (the warm-up's, extra points included).
    search_threads : int
        The threads of the neighbour search.

    Returns
    -------
    GraphStore or None
    """
    root = store_dir()
    if root is None:
        return None
    from sskernels.hashing import fingerprint

    return GraphStore(root, fingerprint(points), search_threads)


def store_note(store, written, used):
    """What ``graph_seconds.json`` says of a run's store: its directory, which of the graphs
    the run used came from a store (in this process, by any earlier restore) with the
    seconds their build took, and how many graphs the warm-up wrote.

    Parameters
    ----------
    store : GraphStore
        The run's store, after :meth:`GraphStore.save`.
    written : int
        What :meth:`GraphStore.save` returned.
    used : iterable of tuple
        The memo keys of the graphs the run used (:func:`sskernels.graph.graphs_used`).

    Returns
    -------
    dict
    """
    from sskernels.graph.cache import _CACHE

    loaded = []
    for key in used:
        ref, seconds = _LOADED.get(key, (None, None))
        if ref is not None and key in _CACHE and _CACHE[key] is ref():
            loaded.append({"key": repr(key), "built_seconds": seconds})
    return {"store": str(store.dir), "loaded": loaded, "written": written}
