"""Trial functions of the Monte Carlo engine, one module per paper.

A paper's trials live in ``simulations/trials/<paper id>.py`` (the id its
:mod:`bounds.papers` module declares) and are found by that id
(:func:`simulations.discovery.paper_module`); no module here lists the papers.
A paper's module defines module-level functions ``trial(config, rng) -> dict``
for :mod:`simulations.runner` (sample → exact fit with certificate → release →
measure), the adversarial neighbour searches used by the sensitivity checks,
and, at its end, its declarations: ``MECHANISMS``
(:class:`~simulations.mechanisms.Mechanism`, collected by
:func:`simulations.discovery.mechanisms`) and ``UTILITY_SETUPS``
(:class:`~simulations.trials.utility.UtilitySetup`, collected by
:func:`simulations.discovery.utility_setups`), plus any calibration that reads
the paper's statements.

Shared modules: :mod:`simulations.trials.utility` (privacy–utility on bundled
real data, for every declared setup).
"""
