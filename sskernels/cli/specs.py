"""The specs a command is given: spec paths, packaged specs' names and suites' names read
into specs (:func:`_specs`), the help of the options that change them (``--with``,
``--reading``) and the ``--methods`` filter."""

from __future__ import annotations

import sys
from pathlib import Path

from sskernels.errors import UserError


def _specs(paths, readings=None, with_=()):
    """The specs of ``paths``; with ``readings`` (names, or ``["all"]``) each spec under each
    of those readings it declares instead (:func:`sskernels.spec.load_spec`'s ``reading``):
    a named reading a spec does not declare is an error, ``all`` skips specs without any.
    A path that does not exist here may name a packaged spec (:func:`_spec_file`) or a
    suite of them (:func:`sskernels.suites.expand`); each ``with_`` value (``--with``) adds
    its method to every spec (checked first: an error names the flag)."""
    from functools import partial

    from sskernels.spec import load_spec
    from sskernels.suites import expand, get_suite
    from sskernels.user_methods import check_with, importable_cwd

    importable_cwd()
    extra = [(f"--with[{i}]", check_with(w)) for i, w in enumerate(with_ or ())]
    files = []
    for p in paths:
        suite = None if Path(p).exists() else get_suite(p)
        if suite is not None:  # one note for the suite, not one per spec
            print(
                f"note: suite {suite.name}: {len(suite.specs)} specs, {suite.reproduces} "
                f"(outputs under {Path.cwd()})",
                file=sys.stderr,
            )
        files += [_spec_file(q, quiet=suite is not None) for q in expand([p])]
    loads = [
        partial(load_spec, path, extra_methods=extra, output_base=base) for path, base in files
    ]
    if not readings:
        return [load() for load in loads]
    out = []
    for load in loads:
        names = list(load().readings) if readings == ["all"] else readings
        out += [load(reading=name) for name in names]
    if not out:
        raise UserError("--reading all: none of the specs declares a reading (readings:)")
    return out


def _spec_file(path, quiet=False):
    """``(file, output_base)`` of a spec path given on the command line: the path itself, or,
    when it does not exist here, the packaged spec it names, whose relative output is taken
    under the current directory (said in one line on stderr unless ``quiet``: a suite's
    specs, which :func:`_specs` announces once)."""
    from sskernels.spec_packaged import packaged_output_base, packaged_spec

    found = packaged_spec(path)
    if found is None:
        return path, None
    base = packaged_output_base(found)
    if not quiet:
        print(
            f"note: {path} is not a file here; running the packaged spec {found} (its "
            f"outputs under {Path.cwd()})",
            file=sys.stderr,
        )
    return found, base


_WITH_HELP = (
    "Add a method to every spec (repeatable): a user's estimator by its import path "
    "pkg.module:Class, a registered method's name or an entry point of "
    "'sskernels.methods'; LABEL=... names its row (default: the path or name).  The "
    "estimator takes -1 for unlabeled points and gives transduction_ or predict."
)


_READING_HELP = (
    "Run the specs under these documented alternative readings (their "
    "'readings:' overlays; repeatable, or 'all' for every reading each spec "
    "declares) instead of the primary specs.  Their records go beside the "
    "primary ones (OUTPUT.NAME) and their rows carry the reading's name."
)


def _only_methods(spec, methods):
    """Keep only the spec's methods labelled in the comma-separated ``methods`` (None: all)."""
    if methods:
        wanted = [m.strip() for m in methods.split(",")]
        spec.methods = [m for m in spec.methods if m.label in wanted]
        if not spec.methods:
            raise UserError(f"{spec.path}: no method labelled {', '.join(wanted)}")
    return spec
