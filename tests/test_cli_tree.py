"""One CLI parser tree: every subcommand is a branch of ``exactdp.apps.cli.build_parser`` and
accepts ``--json`` and ``--quiet``; only the branch being run imports its module."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from exactdp.apps.cli import APPS, build_parser

COMMANDS = ["eta", "delta", "epsilon", "dist", "calibrate", *APPS]


def _branches(ap):
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def test_the_whole_tree_builds_with_every_command():
    assert set(_branches(build_parser())) == set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_takes_json_and_quiet(name):
    branch = _branches(build_parser(name))[name]
    opts = {s for a in branch._actions for s in a.option_strings}
    assert {"--json", "--quiet", "-h"} <= opts, name


def test_running_one_branch_does_not_import_the_others():
    code = ("import sys; from exactdp.apps.cli import build_parser; build_parser('eta'); "
            "print(sorted(m for m in sys.modules if m.startswith('exactdp.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for mod in ("audit", "conjectures", "figures", "sweep", "guarantee", "profile", "proofs"):
        assert f"exactdp.{mod}'" not in out and f".{mod}'" not in out, (mod, out)
