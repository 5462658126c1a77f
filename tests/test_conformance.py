"""Conformance of every discovered paper, as scikit-learn's ``estimator_checks`` are of every estimator.

Each test is parametrised over the papers that :func:`bounds.discovery.discover_papers` finds, so a new
paper is checked the moment its module exists; no paper, seed file or id is named here.  A paper read
from a seed file and one read from its citation are held to the same rules.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import sympy as sp

import bounds
from bounds.evidence import EVIDENCE, KINDS, STATUSES, Result
from bounds.verdict import verdicts as verdicts_of
from simulations.runner import ConfigError, trial_spec, validate_config
from verify.empirical import discover_checks, paper_module, run_spec, select
from verify.empirical.core import CheckSpec

PAPERS = bounds.discover_papers()
IDS = [p.id for p in PAPERS]


def _cites(paper: bounds.Paper, doc: str) -> bool:
    """A statement's docstring cites its source: the seed file, or the citation's first author."""
    if paper.seed:
        return paper.seed in doc
    first_author = paper.citation.split(",")[0].strip()
    return first_author in doc


def test_at_least_the_papers_have_units() -> None:
    assert len(PAPERS) >= 2 and len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_paper_declares_a_source(paper: bounds.Paper) -> None:
    assert paper.citation and paper.title
    assert paper.source == (paper.seed or paper.citation)
    assert paper.source_kind in ("seed", "citation")
    if paper.seed:
        assert paper.seed.endswith(".txt")
    assert Path(paper.file).name == f"{paper.id}.py" and paper.module == f"bounds.papers.{paper.id}"


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_every_statement_has_a_source_and_a_computed_status(paper: bounds.Paper) -> None:
    assert paper.statements, f"paper {paper.id} declares no statement"
    for key, st in paper.statements.items():
        assert key.startswith(paper.id + ".") and st.paper == paper.id
        assert st.source == paper.source, key
        assert _cites(paper, st.doc), f"{key}: docstring does not cite {paper.source!r}"
        assert st.label and st.equation, key
        assert Path(st.file) == Path(paper.file) and st.line > 0, key
        ev = bounds.registry.evaluate(key)
        assert ev.status in STATUSES, key
        for c in ev.checks:
            assert isinstance(c, Result) and c.evidence == "symbolic" and c.key == key
        if ev.status == "erratum":
            assert any(not c.ok for c in ev.checks) and ev.detail, key
        for d in st.depends:
            assert d.startswith(paper.id + "."), f"{key} depends on another paper's {d}"


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_paper_declares_its_regime_and_every_statement_gets_one_verdict(paper: bounds.Paper) -> None:
    from bounds.evidence import STATEMENT_VERDICTS

    reg = paper.regime
    assert (reg.ranges or reg.schedules) and reg.note, f"paper {paper.id} declares no operating regime"
    for sched in reg.schedules:   # a schedule evaluates to finite values in its own ranges over its span
        for name, expr in sched.items():
            assert name in paper.symbols and isinstance(expr, (sp.Expr, int, float)), (paper.id, name)
    vs = verdicts_of(bounds.registry, keys=list(paper.statements))
    for key, v in vs.items():
        assert v.verdict in STATEMENT_VERDICTS, key
        if v.is_finding:
            assert v.root and all(r.startswith(paper.id + ".") for r in v.root), key
            assert v.reasons, f"{key}: a finding without a reason"
        else:
            assert not v.root, key


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_paper_symbols_are_its_own(paper: bounds.Paper) -> None:
    """A paper's own parameters live in its namespace, never in the shared one or another paper's."""
    from bounds.symbols import SHARED

    own = set(paper.symbols._own)
    for other in PAPERS:
        if other is not paper:
            for name in own:
                # another paper sees the name only if it defines it itself or it is shared, never this paper's
                if name in other.symbols:
                    assert other.symbols[name] is not paper.symbols[name]
                    assert name in other.symbols._own or name in SHARED
    for st in paper.statements.values():
        for name in st.params:
            assert name in paper.symbols, f"{st.key}: parameter {name!r} outside the paper's namespace"


def _trials(pid: str) -> list:
    mod = paper_module(pid, "simulations.trials")
    if mod is None:
        return []
    return [f for n, f in vars(mod).items() if inspect.isfunction(f) and f.__module__ == mod.__name__
            and (n.endswith("_trial") or trial_spec(f) is not None) and not n.startswith("_")]


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_every_trial_validates_its_configuration(paper: bounds.Paper) -> None:
    for fn in _trials(paper.id):
        spec = trial_spec(fn)
        assert spec is not None, f"{fn.__qualname__} does not declare its configuration (@trial)"
        if spec.requires:
            with pytest.raises(ConfigError, match=spec.requires[0]):
                validate_config(fn, {})
            assert issubclass(ConfigError, ValueError)
        full = dict.fromkeys(spec.requires, 1)
        validate_config(fn, full)
        with pytest.raises(ValueError, match="unknown key '__typo__'"):
            validate_config(fn, dict(full, __typo__=1))


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_checks_and_audits_are_registered_against_own_statements(paper: bounds.Paper) -> None:
    reg = discover_checks([paper.id])
    for spec in reg:
        assert spec.key in paper.statements, f"{spec.name} ({spec.where}) tests an unknown statement"
        assert spec.evidence in EVIDENCE and spec.kind in KINDS[spec.evidence]
        assert spec.module == f"verify.empirical.{paper.id}"
        hints = inspect.signature(spec.fn).return_annotation
        assert "Result" in str(hints), f"{spec.name}: annotate the return type as list[Result]"
        assert spec in select(spec.key, registry=reg), f"{spec.name} is not selectable by its key"


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_pick_constants_name_pickable_statements(paper: bounds.Paper) -> None:
    from bounds.pick import pickable

    for key, consts in paper.pick.items():
        assert key in paper.statements
        st = pickable(key)
        for name in consts:
            assert name in st.ns, f"{key}: constant {name!r} is not a parameter of the paper"


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_where_finds_every_statement(paper: bounds.Paper) -> None:
    from verify.where import locate

    for key in list(paper.statements)[:3]:
        info = locate(key)
        assert info["defined"].endswith(f"{paper.id}.py:{paper.statements[key].line}")


def test_a_check_returning_the_wrong_type_is_refused() -> None:
    spec = CheckSpec("x.y", "risk", lambda ctx: [{"verdict": "holds"}])
    with pytest.raises(TypeError, match="list of bounds.evidence.Result"):
        run_spec(None, spec)


def test_an_isolated_registry_leaves_the_global_one_untouched() -> None:
    import sympy as sp

    from bounds.core import Registry
    from bounds.paper import Paper
    from bounds.symbols import S

    before = (len(bounds.registry), set(bounds.PAPERS))
    demo = Paper("demo_iso", title="Demo", citation="Doe, J.: Demo (2026)")
    demo.define("beta", sp.Symbol("beta", positive=True), description="not the shared β")
    demo.add("thm1", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda dep: 1 / S.m, relation="upper",
             params=("m",), equation="(1)", doc="Doe (2026), Theorem 1, (1).")
    reg = Registry([demo])
    assert reg.evaluate("demo_iso.thm1").status == "consistent"
    assert (len(bounds.registry), set(bounds.PAPERS)) == before
    assert "demo_iso.thm1" not in bounds.registry


@pytest.mark.parametrize("paper", PAPERS, ids=IDS)
def test_paper_mechanisms_carry_their_statement_objects(paper: bounds.Paper) -> None:
    """A paper's declared mechanisms are objects holding its registered Statement handles (not string keys)."""
    from simulations.discovery import paper_module
    from simulations.mechanisms import Mechanism

    mod = paper_module(paper.id)
    for mech in getattr(mod, "MECHANISMS", ()) if mod is not None else ():
        assert isinstance(mech, Mechanism) and mech.name.startswith(paper.id + ".")
        for st in mech.statements:
            assert paper.statements.get(st.key) is st and bounds.registry.get(st.key) is st, (mech.name, st.key)
        assert mech.algorithms, mech.name
