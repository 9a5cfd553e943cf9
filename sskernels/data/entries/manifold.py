"""Sindhwani, Belkin & Niyogi's sets (``manifold/SOURCES.md``): LDS, WebKB: registry entries (:mod:`sskernels.data.registry`)."""

from __future__ import annotations

from functools import partial

from ..cache import RemoteFile
from ..entry import Entry
from ..parsers import (
    parse_mat,
)

_STAR_SVM = (
    "https://raw.githubusercontent.com/edche/star_svm/"
    "c96d22fd79e28287ed8b400b00d6251214cdf3e9/data/"
)
_WEBKB = RemoteFile(
    "manifold/WebKB.mat",
    "https://raw.githubusercontent.com/benyangxjtu/EMKMC/"
    "105aff81da2eb11942caa177f87039585c794e0d/WebKB.mat",
    "1a9cd6bc1b0dac7e6290779ff3bc792bb01307ca0b80851632abfc0b5ac426d8",
)


def _lds(name, file, sha256, n, d, k, description) -> Entry:
    """A Chapelle LDS benchmark file (X, y, idxLabs/idxUnls) with its 10 official splits."""
    rf = RemoteFile(f"manifold/{file}", _STAR_SVM + file, sha256)
    return Entry(
        name,
        n,
        d,
        k,
        rf.url,
        description + "; 10 official splits of 50 labelled points (Chapelle & Zien 2005)",
        partial(parse_mat, x="X", y="y", splits="idxLabs"),
        (rf,),
    )


def _webkb(name, views, d, description) -> Entry:
    return Entry(
        name,
        1051,
        d,
        2,
        _WEBKB.url,
        f"WebKB course vs non-course, {description}; label 1 = course, 2 = non-course",
        partial(parse_mat, x=views, y="Y"),
        (_WEBKB,),
    )


_MANIFOLD_ENTRIES = [
    _lds(
        "g50c",
        "g50c.mat",
        "9f0d95cb5884d817c1165861b347a428bcc255566d1e74c871bd0de58b23423f",
        550,
        50,
        2,
        "G50C, two 50-d Gaussians; labels -1/+1",
    ),
    _lds(
        "uspst",
        "uspst.mat",
        "53577dbe246b303b07e5a03bcd7ea93582c8c2bbfac1508040f829d24c4a4918",
        2007,
        256,
        10,
        "USPST, 16x16 USPS test digits; labels 0-9",
    ),
    _lds(
        "pcmac",
        "text1.mat",
        "2254d508519ae589afd132a3d00cd6b6de0d29caacc00168daa9fa1984618c09",
        1946,
        7511,
        2,
        "PCMAC (LDS 'text'), 20 Newsgroups mac vs windows, sparse unit-norm "
        "tf-idf; labels -1/+1 (which group is which is not recorded)",
    ),
    _webkb("webkb-page", "PAGE", 3000, "page-text view (tf-idf)"),
    _webkb("webkb-link", "LINK", 1840, "inbound-link-text view (tf-idf)"),
    _webkb("webkb", ("PAGE", "LINK"), 4840, "page (3000) then link (1840) columns"),
]
