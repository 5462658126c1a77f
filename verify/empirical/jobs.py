"""Whole jobs for the executor: one audit, the auditor's calibration, the recorded clients' audits.

The report job (``python -m verify``) submits every audit as one task
(:meth:`simulations.executors.Executor.submit`) so the audits run on the workers while the
main process dispatches the trials of the empirical checks.  A job builds its own
:class:`~verify.empirical.core.Context` with the ``serial`` executor (it already *is* on a
worker) and the same profile, seed and cache, so its rows are the rows
:func:`~verify.empirical.run_spec` computes in the main process: every audit draws its
releases from a seed derived from the root seed and its own name
(:func:`verify.audit.core.audit_seed`), never from the order in which jobs run.

Examples
--------
>>> from verify.empirical import PROFILES, select
>>> from verify.empirical.jobs import audit_job
>>> spec = next(s for s in select("pr.thm5_1") if s.evidence == "audit")
>>> callable(audit_job)
True
"""

from __future__ import annotations

from typing import Any

from bounds.evidence import Result


def audit_job(task: tuple[Any, int, str | None, Any]) -> list[Result]:
    """Run one audit spec: ``task = (profile, seed, cache, spec)``; returns its rows."""
    from . import run_spec
    from .core import Context

    profile, seed, cache, spec = task
    ctx = Context(profile, seed=seed, executor="serial", cache=cache, progress=False)
    try:
        return run_spec(ctx, spec)
    finally:
        ctx.close()


def calibration_job(task: tuple[int, int, float]) -> list[Result]:
    """The auditor's calibration rows (:func:`verify.audit.calibration_audits`): ``(n, seed, confidence)``."""
    from ..audit import calibration_audits

    n, seed, confidence = task
    return calibration_audits(n, seed, confidence)


def client_job(task: tuple[int, float]) -> list[Result]:
    """The recorded clients' audit rows (:func:`verify.audit.clients.client_audits`): ``(seed, confidence)``."""
    from ..audit.clients import client_audits

    seed, confidence = task
    return client_audits(seed, confidence)
