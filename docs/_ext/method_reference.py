"""The API reference's page of registered methods, written from the registry at every build.

``docs/api/methods.rst`` (generated, not committed) lists every method of
:data:`sskernels.learners.registry.METHODS` -- its name in specs, the class it builds, the
paper, whether it induces -- and an autosummary of every registered class that no section of
``api/index.rst`` names, so that a family added with one registry entry is documented without
editing the documentation.  Written at ``config-inited``, before Sphinx looks for its sources
(and autosummary for its entries).
"""

from __future__ import annotations

import re
from pathlib import Path

HEAD = """.. _api-methods:

Registered methods
==================

.. This page is generated from sskernels.learners.registry.METHODS at every build
   (docs/_ext/method_reference.py); edit the registry, not this file.

Every method a spec or the command line can name (``sskernels methods list``), with the
estimator class it builds.

.. currentmodule:: sskernels.learners

.. list-table::
   :header-rows: 1
   :widths: 20 25 30 10

   * - name
     - estimator
     - paper
     - inductive
"""


def _rows(methods):
    out = []
    for info in sorted(methods.values(), key=lambda m: m.name):
        cls = getattr(info.factory, "cls_name", None)
        module = getattr(info.factory, "module", "")
        if cls and module.startswith("sskernels."):
            est = f":class:`~{module}.{cls}`"
        else:
            est = f"``{getattr(info.factory, '__name__', '')}`` (scikit-learn)"
        out.append(
            f"   * - ``{info.name}``\n     - {est}\n     - {info.paper}\n"
            f"     - {'yes' if info.inductive else 'no'}\n"
        )
    return out


def write_methods_page(app, config):
    from sskernels.learners.registry import METHODS

    docs = Path(app.srcdir)
    listed = set(
        re.findall(
            r"^\s{3}([A-Za-z_][\w.]*)\s*$", (docs / "api" / "index.rst").read_text(), flags=re.M
        )
    )
    unlisted = sorted(
        {
            f.cls_name
            for f in (m.factory for m in METHODS.values())
            if getattr(f, "module", "").startswith("sskernels.learners.")
            and getattr(f, "cls_name", None) not in listed
        }
    )
    text = HEAD + "".join(_rows(METHODS))
    if unlisted:
        text += (
            "\nRegistered estimators without a section of their own\n"
            "-----------------------------------------------------\n\n"
            ".. autosummary::\n   :toctree: generated\n   :nosignatures:\n\n"
            + "".join(f"   {name}\n" for name in unlisted)
        )
    path = docs / "api" / "methods.rst"
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def setup(app):
    app.connect("config-inited", write_methods_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
