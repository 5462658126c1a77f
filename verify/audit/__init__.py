"""Privacy audits: statistically valid lower bounds on ε, for the papers' mechanisms and for yours.

* :mod:`verify.audit.core` — the auditor: :func:`audit` (release functions), :func:`audit_samples`
  (saved outputs), :func:`audit_mechanism` (``release(dataset, rng, k)`` on two neighbouring data
  sets); scalar outputs, categories (integer codes, codes saved as floats, few distinct vector rows),
  (index, value) pairs and vectors; threshold and rare-event tests; a verdict with margin and p-value
  for a claim, and what it means at this n (``eps_max``, ``min_event_prob``, ``meaning()``).
* :mod:`verify.audit.tradeoff` — the trade-off-curve audit (μ-GDP lower bound, many thresholds at
  once), run on request (``tradeoff=True``, or ``None`` for the rule ``tradeoff_applies``) on the same
  statistic as its own line (``result.tradeoff``).
* :mod:`verify.audit.mechanisms` — textbook mechanisms of known ε and the ideal bound at n releases.
* :mod:`verify.audit.rows` — release models of perturbed estimators and audits as report rows.
* :mod:`verify.audit.clients` — real clients audited from their recorded outputs (``verify/data/clients/``).

Command line: ``python -m verify audit --samples FILE.npz --claim-eps E`` or
``python -m verify audit --mechanism module:function --claim-eps E`` (see :mod:`verify.cli`).

Examples
--------
>>> import numpy as np
>>> from verify.audit import audit_samples
>>> rng = np.random.default_rng(0)
>>> same = rng.normal(size=(2, 5_000))          # a mechanism that ignores its data
>>> audit_samples(same[0], same[1], claim_eps=0.0).verdict
'consistent'
"""

from typing import TYPE_CHECKING, Any

#: each public name and the submodule that defines it, imported on first use (module ``__getattr__``), so that
#: ``python -m verify audit --help`` and ``--samples`` load neither scipy.stats nor the report's figures
_LAZY = {
    "MAX_CATEGORIES": "core",
    "MIN_OUTPUTS": "core",
    "AuditResult": "core",
    "Event": "core",
    "Releases": "core",
    "as_outputs": "core",
    "audit": "core",
    "audit_mechanism": "core",
    "audit_samples": "core",
    "audit_seed": "core",
    "candidate_thresholds": "core",
    "choose_threshold": "core",
    "cp_upper": "core",
    "eps_from_rates": "core",
    "eps_lower_bound": "core",
    "few_values": "core",
    "min_event_prob": "core",
    "p_value": "core",
    "rare_events": "core",
    "TEXTBOOK": "mechanisms",
    "Textbook": "mechanisms",
    "gaussian_mechanism": "mechanisms",
    "gaussian_releases": "mechanisms",
    "gaussian_true_eps": "mechanisms",
    "ideal_eps_lower": "mechanisms",
    "laplace_mechanism": "mechanisms",
    "laplace_releases": "mechanisms",
    "randomized_response": "mechanisms",
    "report_noisy_max": "mechanisms",
    "LEAK_FUNCTION": "rows",
    "LEAK_VALUE": "rows",
    "audit_figure": "rows",
    "audit_markdown": "rows",
    "audit_result": "rows",
    "audit_row": "rows",
    "calibration_audits": "rows",
    "gp_function": "rows",
    "laplace_function": "rows",
    "laplace_value": "rows",
    "scalar_noise_audits": "rows",
    "client_audits": "clients",
    "client_markdown": "clients",
}

if TYPE_CHECKING:
    from .clients import client_audits, client_markdown
    from .core import (
        MAX_CATEGORIES,
        MIN_OUTPUTS,
        AuditResult,
        Event,
        Releases,
        as_outputs,
        audit,
        audit_mechanism,
        audit_samples,
        audit_seed,
        candidate_thresholds,
        choose_threshold,
        cp_upper,
        eps_from_rates,
        eps_lower_bound,
        few_values,
        min_event_prob,
        p_value,
        rare_events,
    )
    from .mechanisms import (
        TEXTBOOK,
        Textbook,
        gaussian_mechanism,
        gaussian_releases,
        gaussian_true_eps,
        ideal_eps_lower,
        laplace_mechanism,
        laplace_releases,
        randomized_response,
        report_noisy_max,
    )
    from .rows import (
        LEAK_FUNCTION,
        LEAK_VALUE,
        audit_figure,
        audit_markdown,
        audit_result,
        audit_row,
        calibration_audits,
        gp_function,
        laplace_function,
        laplace_value,
        scalar_noise_audits,
    )


def __getattr__(name: str) -> Any:
    import importlib

    mod = _LAZY.get(name)
    if mod is None:
        if name in ("core", "mechanisms", "rows", "tradeoff", "events", "clients"):   # a submodule not imported yet
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    obj = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = obj
    return obj


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "MAX_CATEGORIES", "MIN_OUTPUTS", "AuditResult", "Event", "Releases", "as_outputs", "audit", "audit_mechanism", "audit_samples",
    "audit_seed", "candidate_thresholds", "choose_threshold", "cp_upper", "eps_from_rates", "eps_lower_bound",
    "few_values", "min_event_prob", "p_value", "rare_events", "TEXTBOOK", "Textbook", "gaussian_mechanism", "gaussian_releases", "gaussian_true_eps",
    "ideal_eps_lower", "laplace_mechanism", "laplace_releases", "randomized_response", "report_noisy_max",
    "LEAK_FUNCTION", "LEAK_VALUE", "audit_figure", "audit_markdown", "audit_result", "audit_row",
    "calibration_audits", "gp_function", "laplace_function", "laplace_value", "scalar_noise_audits",
    "client_audits", "client_markdown",
]
