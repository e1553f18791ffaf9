"""``--pair`` on the CLI: any neighbouring pair for eta, delta, epsilon and dist,
the same numbers as the Python API (``exactdp.from_pair``)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from exactdp import from_pair, from_randomized_response
from exactdp.apps.cli import main
from exactdp.model.pair import Pair


def _run(capsys, argv):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def _frac(s: str) -> Fraction:
    return Fraction(s)


PAIRS = ["3x00 + 01; 11 -> 10", "4x000; 001 -> 111", "2x00 + 01; 01 -> 11"]


@pytest.mark.parametrize("spec", PAIRS)
@pytest.mark.parametrize("which", ["eta", "delta"])
def test_cli_pair_equals_api(capsys, spec, which):
    rc, out, _ = _run(capsys, [which, "--pair", spec, "-q", "1/4", "--lam", "3/2", "--json"])
    assert rc == 0
    rec = json.loads(out)
    d = from_pair(Pair.parse(spec), q="1/4")
    want = getattr(d, which)(lam=Fraction(3, 2))
    got = rec[which]
    assert _frac(got["lower"]) <= want.upper and want.lower <= _frac(got["upper"])
    assert rec["pair"] == Pair.parse(spec).spec() and rec["N"] == Pair.parse(spec).N


def test_cli_pair_of_000_is_the_canonical_command(capsys):
    a = json.loads(_run(capsys, ["eta", "--pair", "9x000; 000 -> 111", "-q", "1/4", "--lam", "2",
                                 "--json"])[1])
    b = json.loads(_run(capsys, ["eta", "-N", "10", "-L", "3", "-q", "1/4", "--lam", "2", "--json"])[1])
    assert a["eta"] == b["eta"] and a["strategy"] == b["strategy"] == "tree"
    api = from_randomized_response(10, 3, "1/4").eta(lam=2)       # the decimals are outward-rounded
    assert _frac(a["eta"]["lower"]) <= api.lower and api.upper <= _frac(a["eta"]["upper"])


def test_cli_pair_epsilon_and_dist(capsys):
    rc, out, _ = _run(capsys, ["epsilon", "--pair", "3x00 + 01; 11 -> 10", "-q", "1/4",
                               "--delta", "1e-3", "--json"])
    assert rc == 0
    eps = json.loads(out)["eps"]
    d = from_pair(Pair.parse("3x00 + 01; 11 -> 10"), q="1/4")
    assert d.delta(eps=_frac(eps["upper"])).upper <= Fraction(1, 1000)
    assert d.delta(eps=_frac(eps["lower"])).lower > Fraction(1, 1000)
    rc, out, _ = _run(capsys, ["dist", "--pair", "3x00 + 01; 11 -> 10", "-q", "1/4", "--bins", "4",
                               "--json"])
    assert rc == 0 and len(json.loads(out)["bins"]) >= 3


@pytest.mark.parametrize("argv,msg", [
    (["eta", "--pair", "3x00; 00 -> 11", "-N", "4", "-q", "1/4", "--lam", "2"], "either --pair or -N"),
    (["eta", "-N", "4", "-q", "1/4", "--lam", "2"], "-N and -L are required"),
    (["eta", "--pair", "3x00 00 -> 11", "-q", "1/4", "--lam", "2"], "BASE; X -> X_M"),
    (["eta", "--pair", "3x00; 00 -> 1", "-q", "1/4", "--lam", "2"], "lengths"),
    (["delta", "--pair", "3x00; 00 -> 00 -> 11", "-q", "1/4", "--lam", "2"], "0s and 1s"),
])
def test_cli_pair_bad_input_is_one_line_exit_2(capsys, argv, msg):
    rc, out, err = _run(capsys, argv)
    assert rc == 2 and msg in err and len(err.strip().splitlines()) == 1
