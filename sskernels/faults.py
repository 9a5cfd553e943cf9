"""Faults of the machine, not of sskernels nor of the spec: each one line with its own exit code.

A full disk, a lost permission, too many open files, too little memory, a worker process
killed by the system: the run cannot go on, but nothing is wrong with the program or the
input.  The command line says so in one line that names the resource and where it ran out,
says that a rerun resumes (the records written so far stay readable: every file is written
through a temporary file and a rename, :mod:`sskernels.experiment.records`), and exits with
the fault's code:

====  =======================================================================
code  fault
====  =======================================================================
3     no space left (``ENOSPC``, ``EDQUOT``) or the file-size limit (``EFBIG``)
4     no permission, or a read-only file system (``EACCES``, ``EPERM``, ``EROFS``)
5     too many open files (``EMFILE``, ``ENFILE``)
6     out of memory (``MemoryError``, numpy's allocation errors), or refused before the
      first fit when a method's dense n x n matrices cannot fit (:func:`check_dense_memory`)
7     a worker process of the local pool was killed (the system's out-of-memory killer,
      a signal)
====  =======================================================================

(2 is a spec, data or parameter error, 1 an internal error with its traceback, 130 an
interrupt.)  ``sskernels --debug`` shows the traceback of a fault too.

Examples
--------
>>> import errno
>>> from sskernels.faults import environment_fault
>>> fault = environment_fault(OSError(errno.ENOSPC, "No space left on device",
...                                   "/runs/wine/records/harmonic/.split_003.json.x.tmp"))
>>> fault.exit_code, str(fault).split(":")[0]
(3, 'no space left on the device of /runs/wine/records/harmonic (writing .split_003.json.x.tmp)')
>>> environment_fault(ValueError("not a fault of the machine")) is None
True
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

from sskernels.errors import UserError

#: what the message ends with: nothing is lost
RESUME = "the records written so far are kept: rerun the same command to resume"


class EnvironmentFault(UserError):
    """A limit of the machine the run met (disk, permission, files, memory, a killed worker):
    one line, its own exit code (:data:`exit_code`), no traceback unless ``--debug``."""

    exit_code = 3


class NoSpace(EnvironmentFault):
    """No space left on the device, the disk quota, or the file-size limit (exit 3)."""

    exit_code = 3


class NoPermission(EnvironmentFault):
    """No permission to write, or a read-only file system (exit 4)."""

    exit_code = 4


class TooManyFiles(EnvironmentFault):
    """The limit of open files reached (exit 5)."""

    exit_code = 5


class OutOfMemory(EnvironmentFault):
    """An allocation the memory available could not serve (exit 6)."""

    exit_code = 6


class WorkerKilled(EnvironmentFault):
    """A worker process of the local pool died while it ran a task (exit 7)."""

    exit_code = 7


_NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_NO_PERMISSION = {errno.EACCES, errno.EPERM, errno.EROFS}
_TOO_MANY_FILES = {errno.EMFILE, errno.ENFILE}


def _where(filename):
    """``"the device of FOLDER (writing NAME)"``-style place of a file, or ``""``."""
    if not filename:
        return ""
    path = Path(str(filename))
    return f"{path.parent} (writing {path.name})"


def _open_files_limit():
    try:
        import resource

        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return None


def _proc_kb(path, field):
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def available_memory():
    """The bytes of memory this process may still take: the smaller of what the system
    reports available (``MemAvailable``) and what the address-space limit (``ulimit -v``)
    leaves beside what the process maps already; None where neither can be read.

    Returns
    -------
    int or None

    Examples
    --------
    >>> from sskernels.faults import available_memory
    >>> available_memory() is None or available_memory() > 0
    True
    """
    found = []
    avail = _proc_kb("/proc/meminfo", "MemAvailable")
    if avail is not None:
        found.append(avail)
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            found.append(max(int(soft) - (_proc_kb("/proc/self/status", "VmSize") or 0), 0))
    except (ImportError, OSError, ValueError):
        pass
    return min(found) if found else None


def check_dense_memory(where, need, what, avoid, processes=1):
    """Refuse, before anything is computed, a fit whose dense n x n matrices cannot fit.

    Parameters
    ----------
    where : str
        The method, data set and n (``"spec.yaml: methods[0] (laprls) on big (n = 6000)"``).
    need : int
        The fewest bytes the fit holds at once (0: nothing to check).
    what, avoid : str
        What the matrices are; the setting that avoids them.
    processes : int, default=1
        How many fits run at once, each in its own process (``--jobs``).

    Raises
    ------
    OutOfMemory
        When ``need * processes`` exceeds :func:`available_memory`.
    """
    avail = available_memory()
    if not need or avail is None or need * processes <= avail:
        return
    each = f" in each of {processes} worker processes" if processes > 1 else ""
    fewer = "fewer --jobs, or " if processes > 1 and need <= avail else ""
    raise OutOfMemory(
        f"{where} needs at least {_gb(need)}{each} for {what}, more than the "
        f"{_gb(avail)} this process can take; {fewer}{avoid}; nothing was "
        f"computed"
    )


def _gb(n):
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"


def environment_fault(exc, where=None):
    """The :class:`EnvironmentFault` ``exc`` is, or None when it is not a fault of the machine.

    Parameters
    ----------
    exc : BaseException
        The exception that stopped the run.
    where : str, default=None
        What was running (``"spec.yaml: methods[2] (TSK) on sklearn-digits, split 3"``); the
        message starts with it.

    Returns
    -------
    EnvironmentFault or None
    """
    head = f"{where}: " if where else ""
    if isinstance(exc, EnvironmentFault):
        return exc
    if isinstance(exc, MemoryError):
        asked = re.search(
            r"Unable to allocate ([\d.]+ \w+) for an array with shape "
            r"(\([^)]*\))",
            str(exc),
        )
        what = f"an array of {asked.group(1)} (shape {asked.group(2)})" if asked else "memory"
        avail = available_memory()
        have = f", with at most {_gb(avail)} for this process" if avail else ""
        return OutOfMemory(
            f"{head}out of memory: the machine could not give {what}{have}; "
            f"use fewer --jobs, a sparse graph (a smaller graph.k), an "
            f"approximate search or a partial spectrum, or a machine with "
            f"more memory; {RESUME}"
        )
    if not isinstance(exc, OSError) or exc.errno is None:
        return None
    place = _where(exc.filename)
    if exc.errno in _NO_SPACE:
        what = (
            "the file-size limit (ulimit -f) reached"
            if exc.errno == errno.EFBIG
            else "no space left"
        )
        return NoSpace(
            f"{head}{what} on the device of {place or 'the output folder'}: free "
            f"space there or choose another output folder; {RESUME}"
        )
    if exc.errno in _NO_PERMISSION:
        what = "read-only file system" if exc.errno == errno.EROFS else "no permission to write"
        return NoPermission(
            f"{head}{what}: {place or exc.strerror}; give the run write "
            f"access there or choose another output folder; {RESUME}"
        )
    if exc.errno in _TOO_MANY_FILES:
        limit = _open_files_limit()
        cap = f" (the limit, ulimit -n, is {limit})" if limit else ""
        return TooManyFiles(
            f"{head}too many open files{cap}"
            f"{' at ' + place if place else ''}: raise the limit or use "
            f"fewer --jobs; {RESUME}"
        )
    return None
