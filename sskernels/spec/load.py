"""Loading a spec file: its YAML read (:mod:`sskernels.spec_yaml`), every failure to
read it one line, then validated by :func:`~sskernels.spec.parse.parse_spec`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from sskernels.spec.parse import parse_spec
from sskernels.spec.validate import _error
from sskernels.spec_yaml import SpecYAMLError, read_yaml


def load_spec(path, check_names=True, reading=None, extra_methods=(), output_base=None):
    """Read and validate a spec file; raises :class:`SpecError` with one line.

    The YAML is read by :func:`sskernels.spec_yaml.read_yaml` (bounded, strict about its
    types: any failure to read it is one such line, with its line and column).  ``reading``:
    the name of one of the spec's ``readings:``; the spec returned is the primary one with
    that reading's overlay applied (:func:`apply_reading`).  ``extra_methods``: ``(field,
    entry)`` pairs of method entries added after the spec's own (``sskernels run --with``;
    ``field`` names each in errors); ``output_base``: the folder a relative ``output`` is
    taken from instead of the spec's (a packaged spec: :mod:`sskernels.spec_packaged`).

    Parameters
    ----------
    path : str or pathlib.Path
        The spec file.
    check_names : bool, default=True
        Check the data set and method names against the registries (and the splits
        against the registered data set).
    reading : str, default=None
        The name of one of the spec's ``readings:``; None for the primary spec.
    extra_methods : sequence of tuple, default=()
        ``(field, entry)`` pairs of method entries added after the spec's own.
    output_base : str or pathlib.Path, default=None
        The folder a relative ``output`` is taken from; None for the spec file's folder.

    Returns
    -------
    Spec
        The validated spec.

    Raises
    ------
    SpecError
        For a missing or unreadable file, YAML that cannot be read, or any field that
        is not as expected (:mod:`sskernels.spec`).
    """
    path = Path(path)
    if not path.is_file():
        raise _error(path, "(file)", "an existing YAML file", str(path))
    try:
        raw = read_yaml(path.read_text())
    except SpecYAMLError as exc:
        if exc.limit:
            raise _error(path, "(file)", exc.problem, exc.got) from None
        raise _error(path, "(file)", f"valid YAML; {_yaml_problem(exc)}") from None
    except yaml.YAMLError as exc:  # PyYAML's own: a syntax error, or a tag it cannot build
        what = "" if isinstance(exc, yaml.constructor.ConstructorError) else "parse error"
        raise _error(path, "(file)", f"valid YAML; {_yaml_problem(exc, what)}") from None
    except UnicodeDecodeError:
        raise _error(path, "(file)", "a UTF-8 text file") from None
    except OSError as exc:
        raise _error(path, "(file)", "a readable file", exc.strerror or str(exc)) from None
    return parse_spec(
        raw,
        path,
        check_names=check_names,
        reading=reading,
        extra_methods=extra_methods,
        output_base=output_base,
    )


def _yaml_problem(exc, what=""):
    """``[WHAT ]at line L, column C: PROBLEM`` of a YAML error (PyYAML's, or the loader's)."""
    mark = getattr(exc, "problem_mark", None)
    where = f"at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [""])[0]
    head = " ".join(x for x in (what, where) if x)
    return f"{head}: {problem}" if head else problem
