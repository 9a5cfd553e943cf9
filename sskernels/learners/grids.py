"""The parameter grids that several learner families share (the papers' choices).

Kept in a module of its own that imports nothing of the package, so that a family that
only needs another family's grid does not depend on that family's code: a record's code
key (:mod:`sskernels.provenance`) holds this module, not the other learner.

Examples
--------
>>> from sskernels.learners.grids import ALPHAS, WIDE_B_SCALES
>>> ALPHAS[-1], WIDE_B_SCALES[-1]
(0.99, 100.0)
"""

#: the grid of consistency's alpha when it is selected (Zhou et al. 2004 use 0.99)
ALPHAS = (0.1, 0.5, 0.9, 0.99)

#: Wang et al.'s width factors (Sec. 4.1): b in b0 x these
B_SCALES = (1 / 50, 1 / 25, 1 / 10, 1 / 5, 1.0, 5.0, 10.0)

#: width factors for the regression task: Sec. 4.1's grid, then 20, 50, 100
#: (:mod:`sskernels.learners.label_aware_regression`)
WIDE_B_SCALES = tuple(B_SCALES) + (20.0, 50.0, 100.0)

#: the SVR's C grid (Wang et al., Sec. 4.2)
SVR_C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)

#: kernel widths as multiples of the width rule's value (the median pairwise distance)
WIDTH_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
