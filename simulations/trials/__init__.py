"""Trial functions of the Monte Carlo engine, one module per seed paper.

Each module defines module-level functions ``trial(config, rng) -> dict`` for
:mod:`simulations.runner` (sample → exact fit with certificate → release →
measure) and the adversarial neighbour searches used by the sensitivity checks:

* :mod:`simulations.trials.jia`: seed 000 (output perturbation, general loss,
  least squares §5.1, SVM §5.2);
* :mod:`simulations.trials.jamp`: seed 001 (clipped least squares);
* :mod:`simulations.trials.ttz`: seed 002 (private Frank–Wolfe, mirror descent);
* :mod:`simulations.trials.jcc`: seed 003 (online kernel regression);
* :mod:`simulations.trials.pr`: seed 004 (large-margin Gaussian classifier, objective perturbation);
* :mod:`simulations.trials.utility`: privacy–utility on bundled real data.
"""
