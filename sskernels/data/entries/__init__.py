"""The registered data sets, one module per source (:mod:`sskernels.data.registry` joins them)."""
