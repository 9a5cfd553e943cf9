"""What the package holds: ``sskernels datasets list|fetch``, ``methods list``,
``suites list`` and ``get-configs`` (the packaged specs)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from sskernels.cli.console import out
from sskernels.errors import UserError


def datasets_list():
    """Name, size, classes ("regression" for a regression set), source and whether the files
    are cached."""
    from sskernels.data import list_datasets

    t = Table(title="data sets")
    for col in ("name", "n", "d", "classes", "cached", "source"):
        t.add_column(col)
    for info in list_datasets():
        classes = str(info.n_classes) if info.task == "classification" else info.task
        t.add_row(
            info.name,
            str(info.n),
            str(info.d),
            classes,
            "yes" if info.cached else "no",
            info.source,
        )
    out.print(t)


def datasets_fetch(names: List[str] = typer.Argument(..., help="Registered data set names.")):
    """Download (or take from SSKERNELS_DATA_MIRROR) and verify a data set's files."""
    from sskernels.data import fetch

    for name in names:
        for path in fetch(name):
            out.print(f"{name}: {path}")


def methods_list():
    """Name, paper, equation and whether the method predicts unseen points; then the methods
    installed packages register (entry points of 'sskernels.methods')."""
    from sskernels.learners.registry import METHODS, get_method
    from sskernels.user_methods import entry_point_names

    t = Table(title="methods")
    t.add_column("name", no_wrap=True, min_width=max(len(n) for n in METHODS))  # never cut
    for col in ("paper", "equation", "inductive", "description"):
        t.add_column(col)
    for m in sorted(METHODS.values(), key=lambda m: m.name):
        t.add_row(m.name, m.paper, m.equation, "yes" if m.inductive else "no", m.description)
    for name in entry_point_names():
        if name in METHODS:
            continue
        try:
            m = get_method(name)
        except Exception as exc:  # noqa: BLE001 - a broken package: listed, not fatal
            t.add_row(name, "entry point", "", "", f"cannot be used: {exc}")
            continue
        t.add_row(name, "entry point", m.equation, "yes" if m.inductive else "no", m.description)
    out.print(t)


def suites_list():
    """Name, number of specs, what paper table it reproduces and the Makefile target of each
    suite; `sskernels run NAME` runs its packaged specs and writes its combined table."""
    from sskernels.suites import SUITES

    t = Table(title="suites (sskernels run NAME [--with LABEL=module:Class])")
    t.add_column("name", no_wrap=True)
    t.add_column("specs", justify="right")
    t.add_column("reproduces")
    t.add_column("combined table")
    for s in SUITES.values():
        t.add_row(s.name, str(len(s.specs)), s.reproduces, s.output)
    out.print(t)


def get_configs(
    dest: Optional[Path] = typer.Argument(
        None,
        help="Folder to write the packaged specs to (./configs gives the repository's "
        "layout: their outputs then go under ./results).",
    ),
    list_: bool = typer.Option(False, "--list", help="List the packaged specs instead."),
    force: bool = typer.Option(
        False, "--force", help="Overwrite files in DEST that differ from the packaged."
    ),
):
    """Write out the paper specs that ship with the package (the repository's configs/), or
    list them.  Any command also takes a packaged spec by its name, e.g. `sskernels run
    liu2009/heart.yaml`, when no such file exists here."""
    from sskernels.spec_packaged import packaged_specs, write_packaged

    if list_:
        for name in packaged_specs():
            typer.echo(name)
        return
    if dest is None:
        raise UserError("get-configs: give a folder to write the packaged specs to, or --list")
    written = write_packaged(dest, force=force)
    typer.echo(f"wrote {len(written)} specs under {dest}")
