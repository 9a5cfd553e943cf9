"""Kernels and their label-independent artifacts, in one place.

* :mod:`sskernels.kernels.rbf` — the Gaussian (RBF) kernel and its width rules
  (median pairwise distance, mean norm), the only RBF code of the package;
* :mod:`sskernels.kernels.spectra` — leading eigenpairs of an RBF Gram matrix
  (memoized), the basis of DSK and the other spectral transforms;
* :mod:`sskernels.kernels.alignment` — kernel-target alignment;
* :mod:`sskernels.kernels.deformed` — the graph-deformed kernel of Sindhwani et
  al. (eq. (11.15)), the intrinsic regularizer ``L^p`` and the deformation basis;
* :mod:`sskernels.kernels.mkl` — SimpleMKL's bank of Gaussian and polynomial base
  kernels and their unit-trace normalization (Mao & Tsang, Sec. 5.3).
"""
