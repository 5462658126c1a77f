"""Audits of real clients from their recorded outputs (issue 32, item 6).

A *client* is a third-party implementation of a paper's mechanism whose outputs on a neighbouring
pair were recorded once (fitting them again needs the client installed and minutes of CPU) and ship
with the package in ``verify/data/clients/``: one ``NAME.npz`` (arrays ``w0``, released on D, and
``w1``, released on D′) and one manifest ``NAME.json`` saying what was run (implementation, versions,
parameters, pair, seeds), what is claimed, which statistic it audits and whether that statistic was fixed
before the draws, which registered statement's mechanism it implements, at which values of the statement's
relaxed parameters (``statement.at``: a relaxed parameter → the implementation's parameter), how its
calibration differs from the statement's, the command that regenerates the file and the npz's SHA-256.
The premise text is the registry's (:attr:`bounds.core.Statement.relaxes`), never the manifest's.

Every manifest in the directory is found (:func:`discover`), checked (:func:`load_client`: a
ValueError naming the file and the field), and the recorded outputs are audited again on every run
(:func:`client_audits`): once with the manifest's statistic, once with the auditor's default (a second,
separate audit).  The rows have key ``""`` (like the auditor's calibration rows), so they never enter a
statement's verdict: they audit an external implementation with its own calibration, not the statement's
mechanism as the statement calibrates it.

The statistics are code, named by the manifest: :data:`STATISTICS` maps a name to a factory taking
the manifest's ``params`` (``abs_margin(q)``: ``|q·w₁|``).

Examples
--------
>>> from verify.audit.clients import discover, load_client
>>> c = load_client(discover()[0])
>>> c.name, c.n, c.statement["key"]
('diffprivlib_logreg_q20_eps1', 13000, 'cms.alg2.privacy')
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bounds.evidence import Result

#: where the recorded clients live (package data)
CLIENTS_DIR = Path(__file__).resolve().parents[1] / "data" / "clients"


def abs_margin(q: float) -> Callable[[np.ndarray], np.ndarray]:
    """``|q·w₁|``: the margin of a replaced record q·e₁ under released coefficients w (small says D).

    Examples
    --------
    >>> f = abs_margin(20)
    >>> f.__name__, f(np.array([[-0.05, 3.0], [0.1, 0.0]])).tolist()
    ('abs_margin_q20', [1.0, 2.0])
    """
    q = float(q)
    if not (math.isfinite(q) and q > 0):
        raise ValueError(f"parameter 'q' = {q!r} of abs_margin must be finite and positive")

    def stat(w: np.ndarray) -> np.ndarray:
        w = np.atleast_2d(np.asarray(w, dtype=float))
        return np.abs(q * w[:, 0])
    stat.__name__ = f"abs_margin_q{q:g}"
    return stat


#: the named statistics a manifest may use: name → factory(**params) → statistic on an (n, k) array
STATISTICS: dict[str, Callable[..., Callable[[np.ndarray], np.ndarray]]] = {"abs_margin": abs_margin}

#: fields every manifest has, with their type
FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str, "title": str, "implementation": dict, "pair": dict, "seeds": str, "claim": dict,
    "statistic": dict, "statement": dict, "n": int, "file": str, "sha256": str, "regenerate": str, "doc": str,
}


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


@dataclass(frozen=True)
class Client:
    """A recorded client: its manifest (``path``) and the outputs it names (``npz``)."""

    path: Path
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return self.manifest["name"]

    @property
    def n(self) -> int:
        return self.manifest["n"]

    @property
    def npz(self) -> Path:
        return self.path.parent / self.manifest["file"]

    @property
    def statement(self) -> dict[str, str]:
        return self.manifest["statement"]

    @property
    def claim_eps(self) -> float:
        return float(self.manifest["claim"]["epsilon"])

    @property
    def delta(self) -> float:
        return float(self.manifest["claim"].get("delta", 0.0))

    def statistic(self) -> Callable[[np.ndarray], np.ndarray]:
        """The manifest's statistic, built from :data:`STATISTICS`."""
        st = self.manifest["statistic"]
        return STATISTICS[st["name"]](**st.get("params", {}))

    def outputs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(w0, w1)`` from the npz, after checking its SHA-256 against the manifest's (ValueError if not)."""
        try:
            data = self.npz.read_bytes()
        except OSError as exc:
            raise ValueError(f"client manifest {self.path}: field 'file' = {self.manifest['file']!r}: "
                             f"cannot read {self.npz} ({exc})") from exc
        got = hashlib.sha256(data).hexdigest()
        if got != self.manifest["sha256"].lower():
            raise ValueError(f"client manifest {self.path}: field 'sha256' = {self.manifest['sha256']!r} does not "
                             f"match {self.npz.name} (SHA-256 {got}): the recorded outputs are not the ones described")
        with np.load(self.npz, allow_pickle=False) as z:
            missing = [k for k in ("w0", "w1") if k not in z.files]
            if missing:
                raise ValueError(f"client manifest {self.path}: field 'file': {self.npz.name} lacks array(s) "
                                 f"{', '.join(missing)}")
            w0, w1 = np.asarray(z["w0"]), np.asarray(z["w1"])
        for k, w in (("w0", w0), ("w1", w1)):
            if w.ndim != 2 or w.shape[0] != self.n:
                raise ValueError(f"client manifest {self.path}: field 'n' = {self.n} but {self.npz.name}:{k} "
                                 f"has shape {w.shape}, not (n, k) with n = {self.n}")
            if not np.issubdtype(w.dtype, np.number) or not np.all(np.isfinite(w)):
                raise ValueError(f"client manifest {self.path}: field 'file': {self.npz.name}:{k} holds values "
                                 "that are not finite numbers")
        if w0.shape != w1.shape:
            raise ValueError(f"client manifest {self.path}: field 'file': {self.npz.name} has w0 of shape "
                             f"{w0.shape} but w1 of shape {w1.shape}")
        return w0, w1


def discover(directory: str | Path | None = None) -> list[Path]:
    """Every manifest (``*.json``) in ``directory`` (default :data:`CLIENTS_DIR`), sorted by name.

    The packaged directory (the default) must exist and hold a manifest: a broken install raises
    (ValueError) rather than dropping the client rows silently; an explicit directory may be empty or absent.

    Examples
    --------
    >>> [p.name for p in discover()]
    ['diffprivlib_logreg_q20_eps1.json']
    """
    d = CLIENTS_DIR if directory is None else Path(directory)
    found = sorted(d.glob("*.json")) if d.is_dir() else []
    if directory is None and not found:
        raise ValueError(f"the packaged clients directory {d} is missing or holds no manifest (*.json): "
                         "the install lacks verify/data/clients (package-data in pyproject.toml)")
    return found


def load_client(path: str | Path) -> Client:
    """Read and check one manifest; a ValueError names the file and the field that is wrong.

    Examples
    --------
    >>> load_client(discover()[0]).claim_eps
    1.0
    """
    path = Path(path)
    try:
        man = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"client manifest {path}: not readable JSON ({exc})") from exc
    if not isinstance(man, dict):
        raise ValueError(f"client manifest {path}: not a JSON object")

    def bad(field: str, why: str) -> ValueError:
        return ValueError(f"client manifest {path}: field {field!r} {why}")

    for f, t in FIELDS.items():
        if f not in man:
            raise bad(f, "is missing")
        if not isinstance(man[f], t) or (t is int and isinstance(man[f], bool)):
            raise bad(f, f"= {man[f]!r} is not a {getattr(t, '__name__', t)}")
    if man["n"] < 20:
        raise bad("n", f"= {man['n']} is below the 20 outputs per data set an audit needs")
    if Path(man["file"]).name != man["file"] or not man["file"].endswith(".npz"):
        raise bad("file", f"= {man['file']!r} is not an .npz file name in the manifest's directory")
    if len(man["sha256"]) != 64 or any(c not in "0123456789abcdefABCDEF" for c in man["sha256"]):
        raise bad("sha256", f"= {man['sha256']!r} is not 64 hexadecimal digits")
    eps = man["claim"].get("epsilon")
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not (math.isfinite(eps) and eps >= 0):
        raise bad("claim.epsilon", f"= {eps!r} is not a finite ε ≥ 0")
    dl = man["claim"].get("delta", 0.0)
    if not isinstance(dl, (int, float)) or isinstance(dl, bool) or not 0 <= dl < 1:
        raise bad("claim.delta", f"= {dl!r} is not in [0, 1)")
    for f in ("package", "version", "class", "parameters"):
        if f not in man["implementation"]:
            raise bad(f"implementation.{f}", "is missing")
    for f in ("package", "version", "class"):
        if not isinstance(man["implementation"][f], str) or not man["implementation"][f]:
            raise bad(f"implementation.{f}", f"= {man['implementation'][f]!r} is not a non-empty string")
    pars = man["implementation"]["parameters"]
    if not isinstance(pars, dict):
        raise bad("implementation.parameters", f"= {pars!r} is not an object (name → value)")
    env = man["implementation"].get("environment", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise bad("implementation.environment", f"= {env!r} is not an object of package → version strings")
    for f in ("key", "source", "calibration"):
        if not isinstance(man["statement"].get(f), str) or not man["statement"][f]:
            raise bad(f"statement.{f}", "is missing or empty")
    key = man["statement"]["key"]
    import bounds

    try:
        statement = bounds.get(key)
    except (KeyError, ValueError) as exc:
        raise bad("statement.key", f"= {key!r} is not a registered statement ({exc})") from exc
    at = man["statement"].get("at")
    if not isinstance(at, dict) or not at:
        raise bad("statement.at", f"= {at!r} is not an object naming, for each relaxed parameter of {key} "
                                  "the client sets, the implementation's parameter holding its value")
    for k, v in at.items():
        if k not in statement.relaxes:
            raise bad(f"statement.at.{k}", f"is not a relaxed parameter of {key} "
                                           f"({', '.join(statement.relaxes) or 'it relaxes none'})")
        if not isinstance(v, str) or not _number(pars.get(v)):
            raise bad(f"statement.at.{k}", f"= {v!r} does not name a numeric implementation.parameters entry")
    st = man["statistic"]
    if st.get("name") not in STATISTICS:
        raise bad("statistic.name", f"= {st.get('name')!r} is not a known statistic ({', '.join(STATISTICS)})")
    if not isinstance(st.get("params", {}), dict):
        raise bad("statistic.params", "is not an object")
    frac = st.get("selection_fraction")
    if frac is not None and not (isinstance(frac, (int, float)) and 0 < frac < 1):
        raise bad("statistic.selection_fraction", f"= {frac!r} is not in (0, 1)")
    try:
        STATISTICS[st["name"]](**st.get("params", {}))
    except (TypeError, ValueError) as exc:
        raise bad("statistic.params", f"= {st.get('params')!r} do not fit {st['name']} ({exc})") from exc
    if not isinstance(st.get("fixed_before_draws"), bool):
        raise bad("statistic.fixed_before_draws", f"= {st.get('fixed_before_draws')!r} is not true or false "
                                                  "(required: whether the statistic was chosen before any draw)")
    for k, v in st.get("params", {}).items():
        if k in at and v != pars[at[k]]:
            raise bad(f"statistic.params.{k}", f"= {v!r} differs from implementation.parameters.{at[k]} = "
                                               f"{pars[at[k]]!r}, the client's {k}")
    return Client(path, man)


def clients(directory: str | Path | None = None) -> list[Client]:
    """Every recorded client of ``directory`` (default :data:`CLIENTS_DIR`), checked."""
    return [load_client(p) for p in discover(directory)]


def client_audits(seed: int, confidence: float, directory: str | Path | None = None) -> list[Result]:
    """The recorded clients' audit rows: per client, the manifest's statistic, then the auditor's default.

    Each row is :func:`verify.audit.rows.audit_result` with key ``""`` (never a statement's evidence),
    ``regime="outside"`` (the paper's own regime is ‖x‖ ≤ 1; the statement's relaxed premise is shown),
    a name naming the client, and ``details`` saying ``client: True``, the implementation, the statement,
    the values of its relaxed parameters (``at``), the registry's premise text, the calibration, the
    recorded n and the file.  The audit of statistic ``S`` of client ``C`` draws from
    ``audit_seed(seed, "client", C, S)``.

    Examples
    --------
    >>> rows = client_audits(0, 0.95)
    >>> [(r.key, r.details["client"], r.details["audit_statistic"]) for r in rows]
    [('', True, 'abs_margin'), ('', True, 'default')]
    >>> rows[0].details["at"], rows[0].details["premise"]
    ({'q': 20.0}, '‖x‖ ≤ q (the paper: ‖x‖ ≤ 1)')
    """
    import bounds

    from .core import audit_samples, audit_seed
    from .rows import audit_result

    out: list[Result] = []
    for c in clients(directory):
        w0, w1 = c.outputs()
        st = c.manifest["statistic"]
        imp = c.manifest["implementation"]
        stm = bounds.get(c.statement["key"])
        at = {k: float(imp["parameters"][v]) for k, v in c.statement["at"].items()}
        premise = "; ".join(stm.relaxes[k][1] for k in at)              # the registry's text, not the manifest's
        at_text = ", ".join(f"{k} = {v:g}" for k, v in at.items())
        params = ", ".join(f"{k}={v!r}" for k, v in imp["parameters"].items())
        source = f"{imp['package']} {imp['version']} `{imp['class'].rsplit('.', 1)[-1]}({params})`"
        base = {"client": True, "client_name": c.name, "title": c.manifest["title"],
                "implementation": f"`{imp['class']}` of {imp['package']} {imp['version']}",
                "parameters": imp["parameters"], "environment": imp.get("environment", {}),
                "statement": stm.key, "statement_source": c.statement["source"], "at": at,
                "at_parameters": dict(c.statement["at"]), "premise": premise,
                "calibration_differs": c.statement["calibration"], "recorded_n": c.n,
                "file": f"verify/data/clients/{c.npz.name}", "manifest": f"verify/data/clients/{c.path.name}",
                "sha256": c.manifest["sha256"], "seeds": c.manifest["seeds"], "regenerate": c.manifest["regenerate"],
                "doc": c.manifest["doc"], "pair_relation": c.manifest["pair"].get("relation", "")}
        leak = (f"an implementation of the mechanism of `{stm.key}` at {at_text}, inside the statement's relaxed "
                f"premise {premise}, whose noise is calibrated {c.statement['calibration']}; the cause is "
                f"argued in the repository's `{c.manifest['doc']}`: the audit measures ε, not the cause")
        for which in (st["name"], "default"):
            kw: dict[str, Any] = {}
            if which != "default":
                kw = {"score": c.statistic(), "selection_fraction": st.get("selection_fraction")}
            r = audit_samples(w0, w1, claim_eps=c.claim_eps, delta=c.delta, confidence=confidence,
                              seed=audit_seed(seed, "client", c.name, which), tradeoff=False, **kw)
            mine = which != "default"
            fixed = mine and st["fixed_before_draws"] is True
            det = dict(base, audit_statistic=which, p_value=r.p_value, fixed_before_draws=fixed,
                       statistic_why=st.get("why", "") if mine else "")
            if not mine:            # the default statistic's classifier: its numbers change with the version
                from importlib.metadata import version

                det["scikit_learn"] = version("scikit-learn")
            attack = (f"threshold on {r.details.get('statistic')}" + (", fixed before the draws" if fixed else "")
                      if mine else f"threshold on the auditor's default statistic ({r.details.get('statistic')}"
                      f", scikit-learn {det['scikit_learn']})")
            release = (f"recorded outputs, statistic `{which}`" if mine
                       else f"recorded outputs, default statistic (scikit-learn {det['scikit_learn']})")
            row = audit_result("", mechanism=c.name, source=source, release=release,
                               calibration="as shipped", claimed=c.claim_eps, result=r, attack=attack,
                               delta=c.delta, leak=leak, details=det)
            out.append(replace(row, regime="outside", name=f"{c.name}: {row.name}"))
    return out


def client_markdown(rows: list[Result]) -> list[str]:
    """One paragraph per audited client, from its rows (:func:`client_audits`): what, from which file, what it means.

    The conclusion rests on the manifest's statistic alone, and only when the manifest says it was fixed
    before the draws: one test at the rows' confidence.  The default statistic's row is a second, separate
    audit, not combined with it (combining the two would need a Bonferroni split of α).

    Examples
    --------
    >>> text = " ".join(client_markdown(client_audits(0, 0.95)))
    >>> "verify/data/clients/diffprivlib_logreg_q20_eps1.npz" in text and "cms.alg2.privacy" in text
    True
    """
    by: dict[str, list[Result]] = {}
    for r in rows:
        if r.details.get("client"):
            by.setdefault(r.details["client_name"], []).append(r)
    L: list[str] = []
    for name, rs in by.items():
        D = rs[0].details
        parts = []
        for r in rs:
            p = r.details.get("p_value")
            mine = r.details["audit_statistic"] != "default"
            sk = r.details.get("scikit_learn")
            what = (f"the statistic `{r.details['audit_statistic']}`"
                    + (" fixed before the draws" if r.details.get("fixed_before_draws") else
                       " (the manifest does not say it was fixed before the draws)")
                    + (f" ({r.details['statistic_why']})" if r.details.get("statistic_why") else "") if mine else
                    "the auditor's default statistic, a second, separate audit"
                    + (f" (a classifier of scikit-learn {sk}, whose numbers change with its version)" if sk else ""))
            parts.append(f"with {what}: ε_lower = {r.statistic:.3f} at {r.confidence:.0%} confidence, "
                         f"**{r.verdict}** against the claimed ε = {r.bound:g}"
                         + (f" (p = {p:.2g})" if isinstance(p, float) and r.verdict == "violated" else ""))
        fixed = [r for r in rs if r.details.get("fixed_before_draws")]
        if fixed:
            f = fixed[0]
            conclusion = (
                f"The conclusion rests on the statistic `{f.details['audit_statistic']}` fixed before the draws "
                f"alone (one test at {f.confidence:.0%} confidence; the default statistic's row is a separate audit, "
                "not combined with it): "
                + ("the violation holds for these recorded fits on this pair; it says nothing about other pairs "
                   "or parameters, and on other data a consistent result would mean only that the test found "
                   "nothing" if f.verdict == "violated" else
                   "a consistent verdict means only that this test found nothing at this n, on this pair")
                + ".  ")
        else:
            conclusion = ("No statistic of these rows is recorded as fixed before the draws, so no conclusion is "
                          "drawn from them: each row is a separate audit at its own confidence.  ")
        env = ", ".join(f"{k} {v}" for k, v in D.get("environment", {}).items())
        at = ", ".join(f"{k} = {v:g}" for k, v in D["at"].items())
        via = ", ".join(f"{k} is `{v}`" for k, v in D["at_parameters"].items())
        L.append(
            f"**Client `{name}` (recorded outputs).**  {D['implementation']}"
            + (f" (fitted with {env})" if env else "") + f", an implementation of the mechanism of `{D['statement']}` "
            f"({D['statement_source']}) at {at} ({via}), inside the statement's relaxed premise {D['premise']}, "
            f"whose noise is calibrated {D['calibration_differs']} (the cause is argued in the repository's "
            f"`{D['doc']}`; the audit measures ε, not its cause).  Audited again on every run that includes the "
            f"audits (`python -m verify` without `--only` / `--no-empirical`) from the {D['recorded_n']} + "
            f"{D['recorded_n']} outputs recorded in `{D['file']}` (manifest `{D['manifest']}`, SHA-256 checked; "
            f"{D['pair_relation']}), not refitted: " + "; ".join(parts) + ".  " + conclusion
            + f"These rows do not enter `{D['statement']}`'s verdict: they audit an external implementation with "
            f"its own calibration, not the statement's mechanism as the statement calibrates it.  The account, and "
            f"how the file is regenerated: the repository's `{D['doc']}` ([link](../{D['doc']})).")
        L.append("")
    return L
