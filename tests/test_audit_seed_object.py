"""A SeedSequence passed as ``seed`` is read, never changed: the same object twice gives the same audit.

Found by helper H on 29 Nov 2026: ``check_seed`` returned the caller's object and the audits spawned
children from it, so a second call with the same object drew other numbers (ε_lower 0.92685, then
0.92950, on a Laplace pair at n = 10⁴).  Every public entry point that takes ``seed`` is checked on
the same object twice, against a fresh object of the same seed, and for the object's state after.
"""
from __future__ import annotations

import numpy as np
import pytest

from verify.audit import audit, audit_samples, audit_seed
from verify.audit.mechanisms import laplace_mechanism, oracle_eps_lower
from verify.audit.pooled import conditional_eps_lower
from verify.audit.tradeoff import tradeoff_audit


def rel0(rng, k):
    return rng.laplace(0.0, 1.0, k)


def rel1(rng, k):
    return 1.0 + rng.laplace(0.0, 1.0, k)


def _samples():
    rng = np.random.default_rng(np.random.SeedSequence(5))
    return rel0(rng, 4000), rel1(rng, 4000)


def _calls():
    d0, d1 = _samples()
    return {
        "audit": lambda s: audit(rel0, rel1, n=4000, seed=s, claim_eps=1.0).as_dict(),
        "audit_samples": lambda s: audit_samples(d0, d1, seed=s, claim_eps=1.0).as_dict(),
        "tradeoff_audit": lambda s: tradeoff_audit(d0, d1, seed=s).eps_lower,
        "oracle_eps_lower": lambda s: oracle_eps_lower(laplace_mechanism(1.0), 4000, seed=s),
        "conditional_eps_lower": lambda s: conditional_eps_lower(60, 1000, 5, 1000, confidence=0.95, seed=s),
    }


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return a == b


@pytest.mark.parametrize("name", list(_calls()))
def test_the_same_seed_object_twice_gives_the_same_numbers_and_is_not_changed(name):
    call = _calls()[name]
    ss = audit_seed(0, "seed-object", name)
    spawned, state = ss.n_children_spawned, ss.generate_state(4).tolist()
    first, second = call(ss), call(ss)
    fresh = call(audit_seed(0, "seed-object", name))
    assert _same(first, second) and _same(first, fresh)
    assert ss.n_children_spawned == spawned and ss.generate_state(4).tolist() == state


def test_an_object_that_spawned_before_gives_children_it_did_not_give_before():
    """The copy keeps the count of children spawned, so an audit never reuses a stream the caller took."""
    ss = np.random.SeedSequence(3)
    taken = ss.spawn(2)
    d0, d1 = _samples()
    r = audit_samples(d0, d1, seed=ss, claim_eps=1.0).as_dict()
    assert ss.n_children_spawned == 2
    assert _same(r, audit_samples(d0, d1, seed=ss, claim_eps=1.0).as_dict())
    # an integer seed and a fresh object of it agree (the copy adds nothing of its own)
    assert _same(audit_samples(d0, d1, seed=3, claim_eps=1.0).as_dict(),
                 audit_samples(d0, d1, seed=np.random.SeedSequence(3), claim_eps=1.0).as_dict())
    assert [c.spawn_key for c in taken] == [(0,), (1,)]
