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


@pytest.mark.parametrize("cmd, expected", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_console_example_prints_what_the_readme_shows(cmd, expected, capsys):
    argv = shlex.split(cmd)[3:]
    code = bounds_main(argv)
    assert code in (0, None)
    got = capsys.readouterr().out.rstrip("\n").splitlines()
    assert got == expected


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
