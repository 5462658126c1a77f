"""simulations: the numeric layer of dp-erm-verify (data, kernels, solvers, mechanisms, trials).

It may import :mod:`bounds` (noise calibration) and never :mod:`verify`.  The
Monte Carlo engine arrives with its own issue; this package is the place for it.
"""
