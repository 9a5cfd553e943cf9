"""Named suites: the packaged specs of one paper table, run by one name.

``sskernels run liu2009/table3`` runs exactly the specs of Liu et al.'s Table 3 that ship
with the package (the repository's ``configs/``, :func:`sskernels.spec_packaged.packaged_spec`)
and writes their combined table where the Makefile's target writes it (``results/liu2009/
table3.{md,csv}`` under the current folder), with the suite's title and metrics; ``--with
Mine=myssl:LabeledKNN`` adds a user's row to every spec.  ``sskernels suites list`` shows
them.  Every command taking specs takes a suite's name (``sskernels table liu2009/table3 -o
OUT``).

:data:`SUITES` is the one place suites are declared.  Each is one ``sskernels run`` (or
``figure``) line of a ``table-*`` / ``figure-*`` target of the repository's Makefile, and
``tests/test_suites.py`` checks that every such line's specs, output stem and metrics equal
its suite's, so the two cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Wang et al. 2015's twelve data sets, in the order of their tables (the Makefile's WANG_SETS)
_WANG = (
    "bci",
    "usps38",
    "usps49",
    "usps56",
    "usps27",
    "digit1",
    "coil2",
    "usps",
    "coil",
    "g241n",
    "text",
    "odd_even",
)
#: Mao & Tsang 2010's Table 2 specs (the Makefile's MAO)
_MAO = (
    "g50c",
    "uspst",
    "pcmac",
    "webkb_page",
    "webkb_pagelink",
    "digit1_10",
    "usps_10",
    "coil2_10",
    "coil_10",
    "text_10",
    "digit1_100",
    "usps_100",
    "coil2_100",
    "coil_100",
    "text_100",
)
_LIU_T3 = ("heart", "ionosphere", "sonar", "wine")


@dataclass(frozen=True)
class Suite:
    """One paper table (or figure) as a set of packaged specs.

    Attributes
    ----------
    name : str
        The suite's name, ``paper/table`` (``liu2009/table3``).
    specs : tuple of str
        The packaged specs, relative to the packaged ``configs`` folder, in table order.
    reproduces : str
        What it reproduces (the combined table's title).
    output : str
        The combined table's stem, relative to the current folder (the Makefile's).
    target : str
        The Makefile target that runs it.
    metrics : tuple of str
        The metrics the combined table keeps (empty: all recorded).
    """

    name: str
    specs: tuple
    reproduces: str
    output: str
    target: str
    metrics: tuple = ()


def _suite(name, stems, reproduces, output, target, metrics=()):
    specs = tuple(f"{name.split('/')[0]}/{s}.yaml" for s in stems)
    return Suite(name, specs, reproduces, output, target, tuple(metrics))


def _wang(table, prefix, what, target):
    return _suite(
        f"wang2015/{table.replace('_', '-')}",
        tuple(f"{prefix}_{s}" for s in _WANG),
        f"Wang et al. 2015, {what} (SVM error and centered alignment on the unlabeled points)",
        f"results/wang2015/{table}",
        target,
        ("error", "alignment"),
    )


def _kscl(name, stems, what):
    return _suite(
        f"kscl/{name}",
        stems,
        f"Kernel self-consistent labeling, {what}",
        f"results/kscl/{name.replace('-', '_')}",
        "figures-kscl",
    )


_KSCL_F2 = ("baseball_hockey", "religion_atheism", "pc_mac")
_KSCL_F4 = ("wine", "yeast", "ten_digit")

#: every suite by name, in the order ``sskernels suites list`` shows them
SUITES = {
    s.name: s
    for s in (
        _suite(
            "liu2009/table3",
            _LIU_T3,
            "Liu et al. 2009, Table 3 (transductive accuracy, UCI)",
            "results/liu2009/table3",
            "table-liu2009-t3",
        ),
        _suite(
            "liu2009/table3-raw",
            tuple(f"raw-features/{s}" for s in _LIU_T3),
            "Liu et al. 2009, Table 3 with raw (unscaled) features: a sensitivity variant",
            "results/liu2009/table3_raw",
            "table-liu2009-t3",
        ),
        _suite(
            "liu2009/figure1",
            ("webkb_page", "webkb_link"),
            "Liu et al. 2009, Fig. 1: WebKB error rates (80 % transductive / 20 % inductive)",
            "results/liu2009/figure1",
            "figure-liu2009-f1",
        ),
        _suite(
            "mao2010/table2",
            _MAO,
            "Mao & Tsang 2010, Table 2 (accuracy on the unlabeled points)",
            "results/mao2010/table2",
            "table-mao2010-t2",
            ("accuracy",),
        ),
        _suite(
            "sindhwani/linear",
            ("linear_pcmac", "linear_text_10", "linear_text_100"),
            "Sindhwani et al. Sec. 11.5: linear LapRLS by CG and linear LapSVM on sparse text",
            "results/sindhwani/linear_sparse",
            "table-sindhwani-linear",
        ),
        _wang("table1", "t1", "Table 1 (kernel designs)", "table-wang2015-t1"),
        _wang("table2", "t2", "Table 2 (single kernel)", "table-wang2015-t2"),
        _wang(
            "table2_lr",
            "t2lr",
            "Table 2 local Rademacher columns (single kernel)",
            "table-wang2015-t2-lr",
        ),
        _wang("table3", "t3", "Table 3 (multiple kernels)", "table-wang2015-t3"),
        _wang(
            "table3_lr",
            "t3lr",
            "Table 3 local Rademacher columns (multiple kernels)",
            "table-wang2015-t3-lr",
        ),
        _suite(
            "wang2015/wifi",
            ("wifi",),
            "Wang et al. 2015, Sec. 4.2: WiFi localization (regression; rmse and mse on the "
            "test points)",
            "results/wang2015/wifi",
            "figure-wang2015-wifi",
            ("rmse", "mse"),
        ),
        _kscl(
            "figure1",
            ("two_spirals", "two_spirals_unbalanced"),
            "Fig. 1: 2-spiral (Table 1's sigma^2)",
        ),
        _kscl(
            "figure1-scaled",
            ("two_spirals_scaled", "two_spirals_scaled_unbalanced"),
            "Fig. 1 variant: 2-spiral with sigma^2_SVM = 10 (ours, not the paper's)",
        ),
        _kscl("figure2", _KSCL_F2, "Fig. 2: 20 Newsgroups (word counts)"),
        _kscl("figure3", ("odd_even",), "Fig. 3: odd vs even (USPS substitute)"),
        _kscl("figure4", _KSCL_F4, "Fig. 4: wine, yeast, 10-digit (USPS substitute)"),
        _kscl(
            "unbalanced",
            tuple(f"{s}_unbalanced" for s in _KSCL_F2 + ("odd_even",)),
            "Sec. 6: unbalanced labeled sets #pos/#neg = 10/10 ... 10/40",
        ),
        _kscl(
            "figure4-wine-standardized",
            ("wine_standardized",),
            "Fig. 4 variant: wine, standardized then unit rows (ours)",
        ),
        _kscl(
            "sensitivity",
            tuple(
                f"{s}_sensitivity"
                for s in ("two_spirals", "two_spirals_scaled") + _KSCL_F2 + ("odd_even",) + _KSCL_F4
            ),
            "Sec. 6, not shown in the paper: r < 1, and r = 20 under other C1 = C2",
        ),
    )
}


def get_suite(name):
    """The suite named ``name`` (a trailing ``/`` ignored), or None.

    Parameters
    ----------
    name : str or pathlib.Path
        A command-line argument.

    Returns
    -------
    Suite or None
        The suite, or None when ``name`` names none.

    Examples
    --------
    >>> from sskernels.suites import get_suite
    >>> s = get_suite("liu2009/table3")
    >>> s.specs
    ('liu2009/heart.yaml', 'liu2009/ionosphere.yaml', 'liu2009/sonar.yaml', 'liu2009/wine.yaml')
    >>> get_suite("liu2009/heart.yaml") is None
    True
    """
    return SUITES.get(Path(str(name)).as_posix().strip("/"))


def expand(paths):
    """Command-line spec arguments with each suite's name replaced by its specs.

    A path that exists here is kept (a file named like a suite wins); a suite's specs are
    given as ``configs/NAME``, which a checkout's root holds and otherwise names the
    packaged spec (:func:`sskernels.spec_packaged.packaged_spec`).

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        The arguments.

    Returns
    -------
    list
        The spec paths.

    Examples
    --------
    >>> from sskernels.suites import expand
    >>> [str(p) for p in expand(["liu2009/figure1", "my.yaml"])]
    ['configs/liu2009/webkb_page.yaml', 'configs/liu2009/webkb_link.yaml', 'my.yaml']
    """
    out = []
    for p in paths:
        suite = None if Path(p).exists() else get_suite(p)
        out += [p] if suite is None else [Path("configs", s) for s in suite.specs]
    return out
