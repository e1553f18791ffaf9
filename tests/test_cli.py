"""The CLI contract: keys, decimal strings, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from exactdp.apps.cli import main


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_eta_json_contract(capsys):
    rc, out, _ = run(capsys, "eta", "-N", "30", "-L", "3", "-q", "0.25", "--lam", "2", "--json",
                     "--quiet")
    assert rc == 0
    rec = json.loads(out)
    for key in ("eta", "N", "L", "q", "lam", "direction", "seconds"):
        assert key in rec
    lo, hi = Fraction(rec["eta"]["lower"]), Fraction(rec["eta"]["upper"])
    assert 0 < lo <= hi < 1 and isinstance(rec["eta"]["lower"], str)


@pytest.mark.parametrize("extra", [["--direction", "reverse"], ["--direction", "worst"],
                                   ["--inclusive"], ["--fast"], ["--digits", "30"]])
def test_eta_variants(capsys, extra):
    rc, out, _ = run(capsys, "eta", "-N", "40", "-L", "2", "-q", "1/5", "--eps", "1", "--json",
                     "--quiet", *extra)
    assert rc == 0 and "eta" in json.loads(out)


def test_delta_and_epsilon(capsys):
    rc, out, _ = run(capsys, "delta", "-N", "40", "-L", "2", "-q", "1/5", "--lam", "2", "--json",
                     "--quiet")
    assert rc == 0 and "delta" in json.loads(out)
    rc, out, _ = run(capsys, "epsilon", "-N", "40", "-L", "2", "-q", "1/5", "--delta", "1e-3",
                     "--direction", "worst", "--json", "--quiet")
    rec = json.loads(out)
    assert rc == 0 and Fraction(rec["eps"]["lower"]) < Fraction(rec["eps"]["upper"])
    rc, out, _ = run(capsys, "epsilon", "-N", "40", "-L", "2", "-q", "1/5", "--eta", "1e-2",
                     "--json", "--quiet")
    assert rc == 0 and "eps" in json.loads(out)


def test_dist_json_and_plot(capsys, tmp_path):
    png = tmp_path / "law.png"
    rc, out, _ = run(capsys, "dist", "-N", "30", "-L", "2", "-q", "1/4", "--bins", "8",
                     "--lam", "2", "--plot", str(png), "--json", "--quiet", "--digits", "8")
    rec = json.loads(out)
    assert rc == 0 and len(rec["bins"]) == 8 and png.stat().st_size > 1000
    total = sum(Fraction(b["mass"]["lower"]) for b in rec["bins"])
    assert total <= 1


BAD = [
    (["-q", "0.5"], "q must be"), (["-q", "0"], "q must be"), (["-q", "nan"], "q must be"),
    (["-q", "abc"], "q:"), (["-N", "0"], "N must be"), (["-N", "2.5"], "N must be"),
    (["-L", "0"], "L must be"), (["-L", "65"], "L must be"), (["--lam", "0.9"], "lam must be"),
    (["--lam", "inf"], "lam must be"), (["--digits", "0"], "digits must be"),
    (["--digits", "1000"], "digits must be"), (["--direction", "up"], "direction must be"),
    (["-N", "2000000000", "-L", "64"], "N must be"),
]


@pytest.mark.parametrize("override,needle", BAD)
def test_bad_input_one_line_exit_2(capsys, override, needle):
    args = {"-N": "100", "-L": "5", "-q": "0.2", "--lam": "2"}
    extra = []
    it = iter(override)
    for k in it:
        v = next(it)
        if k in args:
            args[k] = v
        else:
            extra += [k, v]
    argv = ["eta"] + [x for kv in args.items() for x in kv] + extra
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert len(lines) == 1 and needle in lines[0], err


def test_eps_negative_and_missing(capsys):
    rc, _, err = run(capsys, "eta", "-N", "10", "-L", "2", "-q", "0.2", "--eps=-1")
    assert rc == 2 and "eps must be" in err
    rc, _, err = run(capsys, "eta", "-N", "10", "-L", "2", "-q", "0.2")
    assert rc == 2


def test_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "exactdp", "eta", "-N", "20", "-L", "2", "-q",
                        "1/4", "--lam", "2", "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0 and "eta in [" in r.stdout
