"""The code that knows this repository's layout (``configs/``, ``results/``): the regression
checks of the committed tables against their published per-split values, and the writer of
those values.  Not part of the installed package; run from the repository root
(``python -m paper.regression``, ``make regression``).
"""
