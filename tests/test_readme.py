"""The README's shell examples print what the README shows, and agree with its Python examples.

The Python blocks of README.md run as doctests (``--doctest-glob='*.md'``); the ``console`` blocks
are run here: every ``$ python -m bounds ...`` line is executed in-process and its output compared
with the lines shown under it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from bounds.cli import main as bounds_main

README = Path(__file__).resolve().parents[1] / "README.md"


def console_examples() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of every ``$ python -m bounds`` line of a console block."""
    out: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), flags=re.S):
        cmd: str | None = None
        lines: list[str] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd is not None:
                    out.append((cmd, lines))
                cmd, lines = line[2:], []
            elif cmd is not None:
                lines.append(line)
        if cmd is not None:
            out.append((cmd, lines))
    return out


EXAMPLES = console_examples()


def test_the_readme_has_console_examples():
    assert len(EXAMPLES) >= 2
    assert all(cmd.startswith("python -m bounds ") for cmd, _ in EXAMPLES)


def matches(got: list[str], expected: list[str]) -> bool:
    """Whether the printed lines are the README's: a README line ending in ``…`` stands for any line
    that starts with the text before it (a long regime summary, say); every other line is exact.

    Examples
    --------
    >>> matches(["a b c", "d"], ["a …", "d"]), matches(["a b c"], ["b …"]), matches(["x"], ["x", "y"])
    (True, False, False)
    """
    if len(got) != len(expected):
        return False
    return all(g.startswith(e[:-1].rstrip()) if e.endswith("…") else g == e for g, e in zip(got, expected, strict=True))


@pytest.mark.parametrize("cmd, expected", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_console_example_prints_what_the_readme_shows(cmd, expected, capsys):
    """stdout, then the ``error:``/``warning:`` lines of stderr; a shown ``error:`` line means exit status 2."""
    argv = shlex.split(cmd)[3:]
    code = bounds_main(argv)
    out = capsys.readouterr()
    err = [line for line in out.err.splitlines() if line.startswith(("error:", "warning:"))]
    got = out.out.rstrip("\n").splitlines() + err
    assert code == (2 if any(line.startswith("error:") for line in expected) else 0)
    assert matches(got, expected), "\n".join(got)


def test_the_worked_section_covers_pick_and_calibrate():
    """The section "Choose ε, λ and the noise for m = 50,000" runs pick for DP kernel least squares and
    calibrate for the cms objective perturbation, at m = n = 50,000."""
    text = README.read_text()
    head = "### Choose ε, λ and the noise for m = 50,000"
    assert head in text
    section = text.split(head, 1)[1].split("\n### ", 1)[0]
    cmds = [c for c, _ in console_examples() if c in section]
    assert any(" pick jia.s5_1.bound " in c and "--m 50000" in c for c in cmds)
    assert any(" calibrate cms.alg2." in c and "n=50000" in c for c in cmds)


def test_shell_and_python_examples_agree():
    """The shell pick uses the constants of the Python example and gives its numbers (0.3402, 2774)."""
    from bounds.pick import min_m, optimise

    c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    text = README.read_text()
    o = optimise("jia.thm4", m=10_000, **c)
    assert f"bound = {o.bound:.6g}" in text
    assert f"m={min_m('jia.thm4', 0.5, eps=0.1, **c)}" in text
    for cmd, _ in EXAMPLES:
        if " pick jia.thm4 " in cmd:
            assert all(f"{k}={v}" in cmd for k, v in c.items()), cmd
