"""simulations.discovery: what the papers' trial modules declare, found by paper id."""

from __future__ import annotations

import types

import numpy as np
import pytest

import bounds
from simulations import discovery
from simulations.estimators import DPKernelLeastSquares
from simulations.mechanisms import Mechanism, laplace_scale, mechanisms
from simulations.trials.utility import UtilitySetup, utility_setups


def test_every_trial_module_is_found_by_its_paper_id() -> None:
    ids = discovery.trial_paper_ids()
    assert ids and set(ids) <= set(bounds.registry.papers)
    for pid in ids:
        assert discovery.paper_module(pid).__name__ == f"simulations.trials.{pid}"
    assert discovery.paper_module("no_such_paper") is None


def test_mechanisms_are_the_union_of_the_declarations() -> None:
    found = mechanisms()
    declared = [m for pid in discovery.trial_paper_ids()
                for m in getattr(discovery.paper_module(pid), "MECHANISMS", ())]
    assert list(found) == [m.name for m in declared]
    for name, mech in found.items():
        assert isinstance(mech, Mechanism) and mech.name == name
        assert mech.scale_key in bounds.registry.keys() and bounds.registry.get(mech.scale_key) is mech.statement


def test_utility_setups_use_declared_mechanisms() -> None:
    setups = utility_setups()
    assert setups
    known = mechanisms()
    for name, s in setups.items():
        assert isinstance(s, UtilitySetup) and s.name == name
        assert known[s.mechanism.name] is s.mechanism and s.mechanism.applies_to(s.fit) and s.label


def test_bad_declarations_are_refused(monkeypatch) -> None:
    pid, other = discovery.trial_paper_ids()[:2]
    st, st_other = (next(iter(bounds.registry.papers[p].statements.values())) for p in (pid, other))
    mech = Mechanism(f"{other}.x", st_other, algorithms=("kls",))      # another paper's mechanism
    fake = types.SimpleNamespace(__name__=f"simulations.trials.{pid}", MECHANISMS=(mech,))
    monkeypatch.setattr(discovery, "paper_module", lambda p: fake if p == pid else None)
    with pytest.raises(ValueError, match="does not start with"):
        discovery.mechanisms()
    ok = Mechanism(f"{pid}.x", st, algorithms=("kls",))
    fake.MECHANISMS = (ok, ok)
    with pytest.raises(ValueError, match="declared by"):
        discovery.mechanisms()
    with pytest.raises(ValueError, match="'fit'"):
        UtilitySetup("s", "diabetes", "ridge", ok, "square")
    with pytest.raises(ValueError, match="'loss'"):
        UtilitySetup("s", "diabetes", "kls", ok, "hinge")
    with pytest.raises(ValueError, match="'mechanism'.*not a name"):
        UtilitySetup("s", "diabetes", "kls", f"{pid}.x", "square")
    with pytest.raises(ValueError, match=f"mechanism '{pid}.x'.*calibrates kls, not svm"):
        UtilitySetup("s", "diabetes", "svm", ok, "zero_one")


def test_unknown_mechanism_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown mechanism 'no.such'; declared: .+"):
        laplace_scale("no.such", kappa=1)
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match="parameter 'mechanism'"):
        DPKernelLeastSquares().fit(X, np.zeros(3))


def test_report_groups_setups_by_data_set() -> None:
    from verify.utility import setups

    got = setups()
    assert sorted(s.name for s in got) == sorted(utility_setups())
    datasets = [s.dataset for s in got]
    # each data set's setups are contiguous
    assert all(datasets.index(d) + datasets.count(d) - 1 == len(datasets) - 1 - datasets[::-1].index(d)
               for d in set(datasets))
