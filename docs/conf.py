"""Sphinx configuration of the sskernels documentation (``make docs``).

Built with warnings as errors (``-W --keep-going``).  Pages are MyST Markdown (myst-parser)
and reStructuredText; the API reference is autosummary + numpydoc, the CLI page is generated
from the Typer app (``_ext/cli_reference.py``), the gallery from ``examples/`` (sphinx-gallery, every
example executed at each build), the spec reference from :mod:`sskernels.spec`'s constants
(``_ext/spec_reference.py``) and the paper pages include the committed tables of
``results/`` as they are.
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import sskernels  # noqa: E402

# -- project -----------------------------------------------------------------------------

project = "sskernels"
author = "the sskernels developers"
copyright = "the sskernels developers"
release = version = getattr(sskernels, "__version__", None) or "0.1.0"

# -- extensions --------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3.2.2's files shipped by a pip package (docs/requirements.txt), copied into
    # _static/mathjax and loaded from there: the maths renders offline, no CDN request
    "sphinx-mathjax-offline",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "spec_reference",  # _ext/: the spec's field tables from sskernels.spec
    "cli_reference",  # _ext/: the CLI page from the Typer app
    "method_reference",  # _ext/: api/methods.rst from the method registry
    "results_report",  # _ext/: results/*.rst, the committed tables by sskernels report
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "requirements.txt",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "**/*.codeobj.json",
]
templates_path = ["_templates"]
# option names (--jobs), code-like text in generated pages and the committed tables stay as
# written: no "--" to en dash, no curly quotes
smartquotes = False

# -- MyST --------------------------------------------------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- autodoc / autosummary / numpydoc -----------------------------------------------------

autosummary_generate = True
autosummary_imported_members = True

autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# style checks are not enforced yet; the build itself must be warning-free
numpydoc_validation_checks = set()
numpydoc_xref_param_type = False

intersphinx_mapping = {}  # the build needs no network

# -- sphinx-gallery ----------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"plot_",
    # every example runs at every build (no md5 caching between builds: a fresh output
    # folder is what CI has; locally `make docs` reruns the changed ones and Sphinx's
    # environment keeps the others' output only while their source is unchanged)
    "run_stale_examples": True,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "plot_gallery": "True",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "show_memory": False,
    "min_reported_time": 1,
    # "Examples using X" on each API page
    "doc_module": ("sskernels",),
    "backreferences_dir": "gen_modules/backreferences",
    # the execution-times page loads jQuery and DataTables from CDNs: not written (the site
    # works offline; tests/test_browser.py opens every page with the network refused)
    "write_computation_times": False,
}

# -- HTML --------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = "sskernels"
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 5,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = []
# the theme's light/dark switch: without a default mode it logs "Got invalid theme mode" in the
# browser's console on a first visit
html_context = {"default_mode": "auto"}
html_show_sourcelink = False

os.environ.setdefault("MPLBACKEND", "Agg")


# -- consistency checks --------------------------------------------------------------------


def _check_api_page(app):
    """Warn (an error under -W) when a public class or function of sskernels.learners is
    missing from the API page: ``sskernels.learners.__all__`` is the list to document."""
    import inspect

    import sskernels.learners as learners
    from sphinx.util import logging

    text = (DOCS / "api" / "index.rst").read_text()
    listed = {line.strip() for line in text.splitlines()}
    for name in learners.__all__:
        obj = getattr(learners, name)
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and name not in listed:
            logging.getLogger(__name__).warning(
                "sskernels.learners.%s is public (__all__) but not on docs/api/index.rst", name
            )


def _close_heading_gaps(app, relative_path, parent_docname, content):
    """The committed Markdown under ``results/`` is included as it is, except that a heading
    more than one level below the one before it (the lab book's "# ..." then "### ...") is
    lifted to the next level, keeping the nesting: MyST would warn about the gap.  Text,
    tables and the order of sections are untouched."""
    if not str(relative_path).replace("\\", "/").startswith("../results/"):
        return
    import re

    out, stack, fence = [], [], None
    for line in content[0].split("\n"):
        m = re.match(r"(`{3,}|~{3,})", line.lstrip())
        if m and (fence is None or m.group(1)[0] == fence[0]):
            fence = m.group(1) if fence is None else None
        h = None if fence else re.match(r"(#{1,6})(\s.*)$", line)
        if h:
            level = len(h.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            new = stack[-1][1] + 1 if stack else 1
            stack.append((level, new))
            line = "#" * new + h.group(2)
        out.append(line)
    content[0] = "\n".join(out)


def _skip_sklearn_members(app, what, name, obj, skip, options):
    """The API pages document what sskernels defines, not scikit-learn's own machinery that
    every estimator inherits (``get_params``, ``score``, ``set_output``, metadata routing):
    scikit-learn documents those."""
    if str(getattr(obj, "__module__", "") or "").startswith("sklearn."):
        return True
    return None


def setup(app):
    app.connect("builder-inited", _check_api_page)
    app.connect("autodoc-skip-member", _skip_sklearn_members)
    app.connect("include-read", _close_heading_gaps)
