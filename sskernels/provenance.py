"""What produced a number: the code a computation runs, the library versions, the git commit.

A record's numbers depend on the code its method runs, not on the whole package.  This
module finds that code statically and hashes it:

* :func:`module_digest` — the hash of one module's *normalized* source: its syntax tree
  with docstrings removed, so comments, docstrings and formatting do not count;
* :func:`closure` — a set of modules and every package module they import, transitively
  (imports inside functions included).  A package's ``__init__`` re-exports are followed to
  the module that defines the name: ``from sskernels.learners import KernelSVM`` depends on
  ``learners/kernel_machines.py``, not on every learner ``learners/__init__.py`` imports;
* :func:`estimator_modules` — the modules of an estimator's class and of every estimator
  (or other package object) among its parameters, e.g. a kernel SVM's kernel learner;
* :func:`code_key` — a short hash of a closure's digests and the library versions: the code
  part of a record's key (:func:`sskernels.experiment.identity.record_key`);
* :func:`changed_modules` — which modules differ between two closures (what made a
  record stale);
* :func:`provenance` — the process-level description stored in every record (versions,
  git commit) and :func:`summary_header`, one line of it for a summary.

Examples
--------
>>> from sskernels.provenance import closure, code_key
>>> mods = closure(["sskernels.solvers.cg"])
>>> "sskernels.solvers.cg" in mods
True
>>> len(code_key(["sskernels.solvers.cg"]))
16
"""

from __future__ import annotations

import ast
import functools
import platform
import subprocess
import threading
from importlib import metadata
from pathlib import Path

#: distributions whose versions are recorded (numerical results may depend on them)
LIBRARIES = ("numpy", "scipy", "scikit-learn", "highspy")

PACKAGE = "sskernels"
PACKAGE_DIR = Path(__file__).resolve().parent


# ---------------------------------------------------------------------------- module files


def _module_file(name, root):
    """The file of dotted module ``name`` under the package directory ``root``, or None."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = Path(root).joinpath(*parts[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _is_package(name, root):
    path = _module_file(name, root)
    return path is not None and path.name == "__init__.py"


#: ast.parse is not thread-safe in CPython 3.11 ("AST constructor recursion depth mismatch" when
#: two threads parse at once: a Dask worker's tasks check the code key in parallel threads)
_PARSE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4096)
def _parse(path, mtime_ns, size):
    with _PARSE_LOCK:
        return ast.parse(Path(path).read_bytes(), filename=str(path))


def _tree(name, root):
    path = _module_file(name, root)
    if path is None:
        raise ValueError(f"no module {name!r} under {root}")
    st = path.stat()
    return _parse(str(path), st.st_mtime_ns, st.st_size)


def _strip_docstrings(tree):
    """``tree`` without the docstrings of its module, classes and functions (changed in place,
    and returned)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def module_digest(name, root=None):
    """The hash of module ``name``'s normalized source.

    The normalized source is the syntax tree without docstrings (comments and formatting are
    not in the tree): an edit that changes what the code does changes it, a docstring,
    comment or re-formatting does not.

    Parameters
    ----------
    name : str
        The dotted module name, e.g. ``"sskernels.solvers.cg"``.
    root : str or path-like, default=None
        The package directory to read the module from; None: this package's directory.

    Returns
    -------
    str
        The 32-character hex digest (:func:`sskernels.hashing.digest`) of the tree's dump.

    Raises
    ------
    ValueError
        When ``name`` is not a module of the package under ``root``.
    """
    path = _module_file(name, root or PACKAGE_DIR)
    if path is None:
        raise ValueError(f"no module {name!r} under {root or PACKAGE_DIR}")
    st = path.stat()
    return _digest_cached(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4096)
def _digest_cached(path, mtime_ns, size):
    from sskernels.hashing import digest

    # a tree of its own, stripped in place: parsing the file again costs a fifth of a deep
    # copy of the cached tree (:func:`_parse`'s, which the import resolution keeps reading)
    with _PARSE_LOCK:
        tree = ast.parse(Path(path).read_bytes(), filename=str(path))
    return digest(ast.dump(_strip_docstrings(tree), include_attributes=False))


# ---------------------------------------------------------------------------- imports


def _absolute(node, name, root):
    """The absolute dotted module of an ``ImportFrom`` in module ``name``."""
    if not node.level:
        return node.module or ""
    parts = name.split(".")
    package = parts if _is_package(name, root) else parts[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _resolve(module, attr, root, seen=None):
    """The module that defines ``attr`` when imported ``from module``: a submodule of that
    name, the module a package's ``__init__`` re-exports it from, or ``module`` itself."""
    sub = f"{module}.{attr}"
    if _module_file(sub, root) is not None:
        return sub
    if not _is_package(module, root):
        return module
    seen = set() if seen is None else seen
    if (module, attr) in seen:
        return module
    seen.add((module, attr))
    for node in _tree(module, root).body:  # a re-export at the top of __init__
        lazy = _lazy_exports(node)
        if attr in lazy and lazy[attr].split(".")[0] == PACKAGE:
            return _resolve(lazy[attr], attr, root, seen)
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == attr:
                    source = _absolute(node, module, root)
                    if source.split(".")[0] == PACKAGE:
                        return _resolve(source, alias.name, root, seen)
    return module


def _lazy_exports(node):
    """``{name: module}`` of a package's lazy re-exports: a top-level assignment
    ``_EXPORTS = {"Name": "package.module", ...}`` (read by its ``__getattr__``)."""
    if not (
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Dict)
        and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)
    ):
        return {}
    return {
        k.value: v.value
        for k, v in zip(node.value.keys, node.value.values)
        if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
    }


#: the package's imports by a module name computed at run time (``importlib.import_module``
#: with a variable), which no syntax tree can follow, and why each adds nothing to a closure;
#: any other such import is refused by :func:`imports` (a record key must not miss code)
DYNAMIC_IMPORTS = {
    f"{PACKAGE}.learners": "lazy re-exports: the names of _EXPORTS, each followed to its module",
    f"{PACKAGE}.experiment": "lazy re-exports: the names of _EXPORTS, each followed to its module",
    f"{PACKAGE}.learners.catalog": "a method's class by its catalog entry: a record's code is "
    "its estimator's class module (estimator_modules)",
    f"{PACKAGE}.memo": "the module that declares a shared memo, to store an artifact that "
    "module computed: already in the closure of the code that computed it",
    f"{PACKAGE}.learners.kernel_machines": "the default kernel learner (kernel_learner=None), "
    "by its module's name: estimator_modules adds that module for such an estimator "
    "(KernelSVM._default_modules)",
}


def _dynamic_import(node):
    """The argument node of an ``importlib.import_module(...)``, ``import_module(...)`` or
    ``__import__(...)`` call, or None for any other node."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    return node.args[0] if name in ("import_module", "__import__") else None


@functools.lru_cache(maxsize=4096)
def _imports_cached(name, root, stamp):
    out = set()
    for node in ast.walk(_tree(name, root)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE and _module_file(alias.name, root):
                    out.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, name, root)
            if source.split(".")[0] != PACKAGE or _module_file(source, root) is None:
                continue
            for alias in node.names:
                out.add(source if alias.name == "*" else _resolve(source, alias.name, root))
        elif (arg := _dynamic_import(node)) is not None:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                if arg.value.split(".")[0] == PACKAGE and _module_file(arg.value, root):
                    out.add(arg.value)  # a constant name: followed like an import
            elif name not in DYNAMIC_IMPORTS:
                raise ValueError(
                    f"{name} (line {node.lineno}) imports a module whose name is computed at "
                    "run time, which a record key cannot follow: import it by a constant "
                    "name, or add the module to sskernels.provenance.DYNAMIC_IMPORTS with "
                    "why it adds no code to a closure"
                )
    out.discard(name)
    return frozenset(out)


def imports(name, root=None):
    """The package modules module ``name`` imports.

    Imports anywhere in its code count, functions included; each is resolved to the module
    that defines what is imported.  ``importlib.import_module`` (or ``__import__``) of a
    constant name counts as an import; of a name computed at run time it is refused, unless
    the module is listed in :data:`DYNAMIC_IMPORTS` with why it adds no code.

    Parameters
    ----------
    name : str
        The dotted module name.
    root : str or path-like, default=None
        The package directory; None: this package's directory.

    Returns
    -------
    frozenset of str
        The dotted names of the imported package modules, ``name`` itself excluded.

    Raises
    ------
    ValueError
        When ``name`` is not a module of the package under ``root``, or imports a module by
        a name computed at run time and is not in :data:`DYNAMIC_IMPORTS`.
    """
    root = Path(root or PACKAGE_DIR)
    path = _module_file(name, root)
    if path is None:
        raise ValueError(f"no module {name!r} under {root}")
    st = path.stat()
    return _imports_cached(name, str(root), (st.st_mtime_ns, st.st_size))


#: modules that describe code and compute no number (this one: it finds and hashes the
#: closures): an import of them adds nothing to a closure, so editing them keeps every key
NOT_CODE = frozenset({f"{PACKAGE}.provenance"})


def closure(modules, root=None):
    """``modules`` and every package module they import, transitively.

    Imports of :data:`NOT_CODE` modules are not followed.

    Parameters
    ----------
    modules : iterable of str
        Dotted module names.
    root : str or path-like, default=None
        The package directory; None: this package's directory.

    Returns
    -------
    tuple of str
        The dotted names of the closure, sorted.

    Raises
    ------
    ValueError
        When a module of the closure is not a module of the package under ``root``.
    """
    todo, seen = list(modules), set()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo.extend(imports(m, root) - seen - NOT_CODE)
    return tuple(sorted(seen))


def estimator_modules(est):
    """The package modules of ``est``'s class and of every package object among its parameters.

    The parameters are walked recursively (``get_params(deep=False)`` of each object: a
    kernel machine's kernel learner, a graph builder, a selection wrapper's estimator); a
    parameter left at a default None that stands for another module's object (a class's
    ``_default_modules``) adds that module; a scikit-learn peer gives none (its code is
    covered by scikit-learn's version).

    Parameters
    ----------
    est : object
        An estimator (or a list, tuple or dict of them, or a callable).

    Returns
    -------
    set of str
        The dotted names of the modules.
    """
    out = set()
    for obj in walk_params(est):
        mod = getattr(obj, "__module__", None) if callable(obj) else type(obj).__module__
        if isinstance(mod, str) and mod.split(".")[0] == PACKAGE:
            out.add(mod)
        # a parameter whose default None stands for an object of another module, imported
        # by name when used (KernelSVM's kernel_learner: TSK)
        if not callable(obj) or not isinstance(obj, type):
            for param, module in getattr(type(obj), "_default_modules", {}).items():
                if getattr(obj, param, "") is None:
                    out.add(module)
    return out


def walk_params(est):
    """``est`` and every object among its parameters, each once.

    Lists, tuples and dicts are walked into, not yielded; an object's parameters are its
    ``get_params(deep=False)`` values (a kernel machine's kernel learner, a graph builder, a
    selection wrapper's estimator), walked in turn.

    Parameters
    ----------
    est : object
        An estimator (or a list, tuple or dict of them, or a callable).

    Yields
    ------
    object

    Examples
    --------
    >>> from sskernels.learners import make_method
    >>> from sskernels.provenance import walk_params
    >>> sorted(type(o).__name__ for o in walk_params(make_method("harmonic")))[:2]
    ['HarmonicFunction', 'KNNGraph']
    """
    todo, seen = [est], set()
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, tuple)):
            todo.extend(obj)
            continue
        if isinstance(obj, dict):
            todo.extend(obj.values())
            continue
        yield obj
        get_params = getattr(obj, "get_params", None)
        if callable(get_params) and not isinstance(obj, type):
            try:
                params = get_params(deep=False)
            except TypeError:
                continue
            todo.extend(params.values())


#: top-level packages whose code is covered by a version in every key (:data:`LIBRARIES`),
#: with the standard library's
_VERSIONED = frozenset({"sklearn", "numpy", "scipy", "highspy", "builtins"})


def foreign_modules(est):
    """``{module: digest}`` of the modules of a user's estimator classes inside ``est``.

    ``est`` itself and the estimators among its parameters, as :func:`estimator_modules`
    walks them, whose modules are neither the package's nor a versioned library's (nor the
    standard library's): a user's method is keyed by its own module's normalized source, so
    editing it makes its records stale.

    Parameters
    ----------
    est : object
        An estimator (or a list, tuple or dict of them).

    Returns
    -------
    dict of str to str
        The dotted name of each such module (of every class in the classes' MROs) and the
        digest of its normalized source (as :func:`module_digest`).

    Raises
    ------
    ValueError
        For a module without a readable source file (its records could not be told apart
        from another version's).
    """
    import sys

    out, todo, seen = {}, [est], set()
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, tuple, dict)):
            todo.extend(obj.values() if isinstance(obj, dict) else obj)
            continue
        cls = obj if isinstance(obj, type) else type(obj)
        for klass in cls.__mro__:
            mod = klass.__module__
            top = mod.split(".")[0]
            if top in (PACKAGE, *_VERSIONED) or top.startswith("_") or mod in out:
                continue
            if top in sys.stdlib_module_names:
                continue
            path = getattr(sys.modules.get(mod), "__file__", None)
            if not path or not str(path).endswith(".py") or not Path(path).is_file():
                raise ValueError(
                    f"{mod}: no Python source file to key its records on "
                    f"(class {klass.__qualname__})"
                )
            st = Path(path).stat()
            out[mod] = _digest_cached(str(path), st.st_mtime_ns, st.st_size)
        get_params = getattr(obj, "get_params", None)
        if callable(get_params) and not isinstance(obj, type):
            try:
                todo.extend(get_params(deep=False).values())
            except TypeError:
                continue
    return out


def estimator_digest(est):
    """:func:`sskernels.hashing.params_key` of ``est``: its class and parameters.

    The parameters are ``get_params(deep=True)``: the part of a record's key that says which
    estimator the registry (or a user's spec) built, so that the registry's own code need
    not be in it.

    Parameters
    ----------
    est : object
        The estimator.

    Returns
    -------
    str
        The 32-character hex digest.

    Examples
    --------
    >>> from sskernels.learners import LapRLS
    >>> from sskernels.provenance import estimator_digest
    >>> estimator_digest(LapRLS()) == estimator_digest(LapRLS())
    True
    >>> estimator_digest(LapRLS()) == estimator_digest(LapRLS(gamma_A=0.5))
    False
    """
    from sskernels.hashing import params_key

    return params_key(est)


def code_modules(modules, root=None):
    """``{module: digest}`` of :func:`closure` of ``modules``.

    Parameters
    ----------
    modules : iterable of str
        Dotted module names.
    root : str or path-like, default=None
        The package directory; None: this package's directory.

    Returns
    -------
    dict of str to str
        Each module of the closure and its :func:`module_digest`.

    Raises
    ------
    ValueError
        When a module of the closure is not a module of the package under ``root``.
    """
    return {m: module_digest(m, root) for m in closure(modules, root)}


def code_key(modules, root=None):
    """A short hash (16 hex digits) of the code that ``modules`` run.

    The hash covers :func:`code_modules`, the package version, Python's and the numerical
    libraries' versions: the code part of a record's key.  An edit of a module outside the
    closure leaves it unchanged.

    Parameters
    ----------
    modules : iterable of str
        Dotted module names.
    root : str or path-like, default=None
        The package directory; None: this package's directory.

    Returns
    -------
    str
        The 16 hex digits.

    Raises
    ------
    ValueError
        When a module of the closure is not a module of the package under ``root``.
    """
    return key_of(code_modules(modules, root))


def key_of(digests):
    """:func:`code_key` of an existing ``{module: digest}`` map.

    Parameters
    ----------
    digests : dict of str to str
        Module names and their digests (:func:`code_modules`).

    Returns
    -------
    str
        The 16 hex digits.
    """
    from sskernels.hashing import json_digest

    info = _provenance()
    parts = {k: info[k] for k in VERSION_FIELDS}
    parts["modules"] = dict(sorted(digests.items()))
    return json_digest(parts)


def changed_modules(old, new):
    """The modules whose digest differs between two ``{module: digest}`` maps.

    A module that only one of them holds counts as changed; for a stale record, what made it
    stale.

    Parameters
    ----------
    old, new : dict of str to str or None
        The two maps (None: an empty map).

    Returns
    -------
    list of str
        The changed modules, sorted.

    Examples
    --------
    >>> from sskernels.provenance import changed_modules
    >>> changed_modules({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"})
    ['b', 'c']
    """
    old, new = dict(old or {}), dict(new or {})
    return sorted(m for m in set(old) | set(new) if old.get(m) != new.get(m))


def module_path(name):
    """``sskernels/learners/spectral.py`` for ``sskernels.learners.spectral``.

    The path as a user sees the file (``__init__.py`` for a package).

    Parameters
    ----------
    name : str
        The dotted module name.

    Returns
    -------
    str
        The file's path relative to the package's parent directory; for a name that is not
        a module of the package, the name with dots as slashes and ``.py`` appended.

    Examples
    --------
    >>> from sskernels.provenance import module_path
    >>> module_path("sskernels.learners.spectral"), module_path("sskernels.graph")
    ('sskernels/learners/spectral.py', 'sskernels/graph/__init__.py')
    """
    path = _module_file(name, PACKAGE_DIR)
    if path is None:
        return name.replace(".", "/") + ".py"
    return f"{PACKAGE}/{path.relative_to(PACKAGE_DIR).as_posix()}"


# ---------------------------------------------------------------------------- the process


def library_version(dist):
    """The installed version of distribution ``dist``, or None when it is not installed.

    Examples
    --------
    >>> from sskernels.provenance import library_version
    >>> library_version("numpy") is not None, library_version("no-such-distribution")
    (True, None)
    """
    return _version(dist)


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


#: package modules whose numbers also depend on compiled code outside :data:`LIBRARIES`, with
#: the distributions that compile it: NN-descent (``graph/descent.py``) runs pynndescent,
#: compiled by numba for the CPU it runs on, and its random-projection trees split on
#: floating-point products whose rounding follows the instruction set, so the same seed and
#: threads can give another graph on another CPU
COMPILED = {"sskernels.graph.descent": ("pynndescent", "numba", "llvmlite")}


def compiled_key(modules):
    """What the compiled code among ``modules`` depends on beside the package: versions, CPU.

    Parameters
    ----------
    modules : iterable of str
        Module names (a method's :func:`code_modules`).

    Returns
    -------
    dict or None
        ``versions`` (of the distributions :data:`COMPILED` names for these modules) and
        ``cpu`` (the target numba compiles for: ``NUMBA_CPU_NAME`` and
        ``NUMBA_CPU_FEATURES`` when set, else the host's name and features); None when no
        module of :data:`COMPILED` is among ``modules``.

    Examples
    --------
    >>> from sskernels.provenance import compiled_key
    >>> compiled_key(["sskernels.solvers.cg"]) is None
    True
    >>> sorted(compiled_key(["sskernels.graph.descent"])["versions"])
    ['llvmlite', 'numba', 'pynndescent']
    """
    dists = sorted({d for m in modules for d in COMPILED.get(m, ())})
    if not dists:
        return None
    return {"versions": {d: _version(d) for d in dists}, "cpu": _jit_target()}


@functools.lru_cache(maxsize=None)
def _jit_target():
    """``(name, features)`` of the CPU numba compiles for (None when llvmlite is missing)."""
    import os

    try:
        import llvmlite.binding as llvm
    except ImportError:
        return None
    name = os.environ.get("NUMBA_CPU_NAME") or llvm.get_host_cpu_name()
    features = os.environ.get("NUMBA_CPU_FEATURES") or llvm.get_host_cpu_features().flatten()
    return [name, features]


def _package_version():
    import sskernels

    return getattr(sskernels, "__version__", None) or _version("sskernels")


def _git(*args):
    """Output of ``git args`` run in the package directory, or None when git cannot answer."""
    try:
        res = subprocess.run(
            ["git", *args], cwd=PACKAGE_DIR, capture_output=True, text=True, timeout=10
        )
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
    info = {
        "sskernels": _package_version(),
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
    }
    info.update({lib: _version(lib) for lib in LIBRARIES})
    return info


def provenance() -> dict:
    """What produced this process's numbers (computed once per process; a fresh copy each call).

    Keys: ``sskernels`` (package version), ``git_commit`` and ``git_dirty`` (None
    outside a git checkout or without git), ``python``, and the versions of numpy, scipy,
    scikit-learn and highspy (None when a library is not installed).  A record adds the
    code its method ran (``code``: its :func:`code_key`; ``modules``: the digests).
    """
    return dict(_provenance())


#: the parts of :func:`provenance` that decide the numbers, beside the code
VERSION_FIELDS = ("sskernels", "python") + LIBRARIES


@functools.lru_cache(maxsize=None)
def package_digests():
    """``{module: digest}`` of every module of the package."""
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(PACKAGE_DIR).with_suffix("")
        parts = [PACKAGE, *rel.parts]
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return {n: module_digest(n) for n in names}


def provenance_key() -> str:
    """A short hash of the whole package's normalized code and the library versions: the
    identity of a process's code (a Dask worker must run the driver's code), not a record's
    key (that is :func:`code_key` of the record's method)."""
    return key_of(package_digests())


def summary_header() -> str:
    """One line naming the code and libraries, e.g.
    ``sskernels 0.1.0 (commit abc1234, dirty) · python 3.12.3 · numpy 2.4.6 · ...``
    (each record holds the key of its own method's code).
    """
    info = _provenance()
    head = f"sskernels {info['sskernels']}"
    if info["git_commit"]:
        state = {True: ", dirty", False: "", None: ""}[info["git_dirty"]]
        head += f" (commit {info['git_commit'][:7]}{state})"
    parts = [head, f"python {info['python']}"]
    parts += [f"{lib} {info[lib]}" for lib in LIBRARIES if info[lib] is not None]
    return " · ".join(parts)
