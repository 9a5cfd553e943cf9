"""Wang et al. 2015's sets (USPS pairs, WiFi): registry entries (:mod:`sskernels.data.registry`)."""

from __future__ import annotations

from functools import partial

from ..cache import RemoteFile
from ..digits import parse_usps_odd_even, parse_usps_pair
from ..entry import Entry
from ..parsers import (
    parse_mat_regression,
)
from .kscl import _USPS_H5

# Label-aware base kernels (Table 1): four USPS digit pairs from the training part and odd/even
# from the test part of usps.h5 (data/digits.py), the SSL-book sets (below) and the ICDM 2007
# WiFi localization data (regression, wifi/SOURCES.md).

_WANG_USPS = (
    "Wang et al. 2015's USPS task: {what} of usps.h5 (Hull's split), pixels as "
    "stored (16x16, values in [0, 1]; the paper states no scaling)"
)


def _usps_pair(a, b, n, counts) -> Entry:
    what = f"every image of digits {a} and {b} in the TRAINING part (7291), in file order"
    return Entry(
        f"usps{a}{b}",
        n,
        256,
        2,
        _USPS_H5.url,
        f"USPS {a} vs {b}; labels {a} / {b} (the digit; {counts}); " + _WANG_USPS.format(what=what),
        partial(parse_usps_pair, pair=(a, b)),
        (_USPS_H5,),
    )


_WIFI = RemoteFile(
    "wifi/wifi_icdm2007.mat",
    "https://raw.githubusercontent.com/xyh2016/Dataset/"
    "81b7ddcda356ae4f8636655bdfee4291c31c614a/WiFi%20dataset/wifi_icdm2007.mat",
    "7b0ece00bfd8c07bb6b09d5f364c99132828c07e857eb5dc29e52ed13b35b6b5",
)

_WANG_ENTRIES = [
    _usps_pair(3, 8, 1200, "658/542"),
    _usps_pair(4, 9, 1296, "652/644"),
    _usps_pair(5, 6, 1220, "556/664"),
    _usps_pair(2, 7, 1376, "731/645"),
    Entry(
        "usps-odd-even",
        2007,
        256,
        2,
        _USPS_H5.url,
        "USPS odd vs even; labels 'even' (0, 2, 4, 6, 8: 1093) / 'odd' (1, 3, 5, 7, 9: 914), "
        "the digit kept as group (subclass); "
        + _WANG_USPS.format(what="the whole TEST part (2007 images)")
        + "; not 'odd-even' (kernel self-consistent labeling's substitute: 2000 TRAINING "
        "images, 200 per digit, resampled to 14x14 and quantized to 0-9) and not 'uspst' "
        "(Chapelle's USPST, a different image set)",
        parse_usps_odd_even,
        (_USPS_H5,),
        n_groups=10,
    ),
    Entry(
        "wifi",
        2642,
        101,
        0,
        _WIFI.url,
        "ICDM 2007 contest indoor WiFi localization (Xu's MATLAB conversion): REGRESSION, "
        "targets (2642, 2) float64 = the (x, y) location, x in [0, 144], y in [0, 36], as "
        "stored (Wang et al. 2015 rescale them to [0, 1]: a spec's target_scale: minmax); "
        "features = RSS of 101 access points in dBm, integers -97..0, 0 = not heard, as "
        "stored (preprocess rss-floor: 0 -> -100); rows 0-504 are the file's 505 'src' "
        "(training) points, rows 505-2641 its 2137 'tar' (test) points, and the one official "
        "split labels the 505 (Wang et al.'s split is unknown); in a spec the 505 are the "
        "labeled pool (n_labeled drawn, the rest test points) and the 2137 unlabeled only",
        partial(
            parse_mat_regression,
            struct="dataset",
            parts=(("src_X", "src_labels"), ("tar_X", "tar_labels")),
        ),
        (_WIFI,),
        task="regression",
        n_targets=2,
    ),
]
