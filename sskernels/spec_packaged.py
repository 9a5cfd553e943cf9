"""The repository's ``configs/`` folder ships with the package (the wheel's
``sskernels/configs``, mapped in ``pyproject.toml``; a source checkout or an editable
install reads the repository's folder).  A spec path given to a command that does not exist
relative to the current directory is looked up there (:func:`packaged_spec`:
``liu2009/heart.yaml``, or ``configs/liu2009/heart.yaml``); a packaged spec's relative
``output:`` is then taken under the current directory, as if the current directory were the
repository's root (``../../results/liu2009/runs/heart`` of ``configs/liu2009/heart.yaml``
becomes ``./results/liu2009/runs/heart``), never inside the installed package
(:func:`packaged_output_base`).  A suite's name stands for several packaged specs
(:mod:`sskernels.suites`).
"""

from __future__ import annotations

import os
from pathlib import Path

#: the packaged specs' folder inside the installed package (a wheel)
PACKAGED_DIR = "configs"


def packaged_root():
    """The folder of the packaged specs, or None: the installed package's ``configs``
    folder (a wheel), the ``sskernels.configs`` package where an import finder maps it (an
    editable install), else the repository's ``configs/`` beside the package (a source
    checkout)."""
    import importlib.util

    import sskernels

    here = Path(sskernels.__file__).resolve().parent
    if (here / PACKAGED_DIR).is_dir():
        return here / PACKAGED_DIR
    try:
        spec = importlib.util.find_spec(f"sskernels.{PACKAGED_DIR}")
    except (ImportError, ValueError):
        spec = None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        if Path(location).is_dir():
            return Path(location)
    repo = here.parent / PACKAGED_DIR
    return repo if repo.is_dir() else None


def packaged_specs():
    """The packaged specs' paths relative to :func:`packaged_root`, sorted (``liu2009/
    heart.yaml``, ...); empty when there are none."""
    root = packaged_root()
    if root is None:
        return []
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml") if p.is_file())


def packaged_spec(arg):
    """The packaged spec a command-line spec path names, or None.

    ``arg`` relative to the packaged folder, with a leading ``configs/`` taken off
    (``configs/liu2009/heart.yaml`` names ``liu2009/heart.yaml``).  Only for a path that
    does not exist here and is not absolute.

    Parameters
    ----------
    arg : str or pathlib.Path
        The spec path given on the command line.

    Returns
    -------
    pathlib.Path or None
        The packaged spec file, or None (no packaged specs, an absolute or existing path,
        a path with ``..``, or no such packaged file).
    """
    path = Path(arg)
    root = packaged_root()
    if root is None or path.is_absolute() or path.exists():
        return None
    parts = path.parts
    if parts and parts[0] == PACKAGED_DIR:
        parts = parts[1:]
    if not parts or ".." in parts:
        return None
    found = root.joinpath(*parts)
    return found if found.is_file() else None


def packaged_output_base(found, cwd=None):
    """The folder a packaged spec's relative ``output:`` is taken from.

    The spec's folder as it lies under the repository's ``configs/``, placed under the
    current directory (``cwd/configs/liu2009`` for ``liu2009/heart.yaml``).

    Parameters
    ----------
    found : str or pathlib.Path
        The packaged spec file (:func:`packaged_spec`).
    cwd : str or pathlib.Path, default=None
        The current directory; None for :func:`os.getcwd`.

    Returns
    -------
    pathlib.Path
        The folder.
    """
    rel = Path(found).resolve().parent.relative_to(packaged_root().resolve())
    return Path(cwd or os.getcwd()) / PACKAGED_DIR / rel


def write_packaged(dest, force=False):
    """Copy every packaged spec to ``dest`` (its subfolders kept); returns the paths written.

    A file already there with other content is a UserError unless ``force``.

    Parameters
    ----------
    dest : str or pathlib.Path
        The folder to copy to (created as needed).
    force : bool, default=False
        Overwrite files there whose content differs.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    UserError
        If this installation has no packaged specs, or (without ``force``) a file there
        differs from its packaged spec.
    """
    from sskernels.errors import UserError

    root = packaged_root()
    if root is None:
        raise UserError("no packaged specs: this installation of sskernels has no configs")
    dest = Path(dest)
    names = packaged_specs()
    if not force:
        differ = [
            n
            for n in names
            if (dest / n).exists() and (dest / n).read_bytes() != (root / n).read_bytes()
        ]
        if differ:
            raise UserError(
                f"{dest}: {len(differ)} file(s) already there differ from the "
                f"packaged specs (first: {dest / differ[0]}); --force overwrites "
                "them"
            )
    written = []
    for name in names:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((root / name).read_bytes())
        written.append(target)
    return written
