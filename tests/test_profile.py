"""exactdp profile: delta(eps) grid with the guarantee bracket and the peers."""

import json
from fractions import Fraction as F

import pytest

from exactdp.apps.cli import main
from exactdp.core.errors import ParameterError
from exactdp.apps.guarantee import guarantee
from exactdp.apps.peers import REFUTED, certified_peer_deltas
from exactdp.apps.profile import default_grid, profile


def test_profile_rows_match_guarantee_and_peers():
    rows = profile(40, 2, "1/4", eps_grid=["0", "1/2", "1"])
    assert [r["eps"] for r in rows] == ["0", "0.5", "1"]
    for r in rows:
        g = guarantee(40, 2, "1/4", eps=r["eps_value"], digits=4)
        assert (r["lower"], r["upper"]) == (g.lower, g.upper)
        assert r["upper"] <= min(v for k, v in r["peers"].items() if k not in REFUTED)
    # delta(eps) is non-increasing along the grid, at both ends and for every peer
    for a, b in zip(rows, rows[1:]):
        assert b["lower"] <= a["lower"] and b["upper"] <= a["upper"]
        assert all(b["peers"][k] <= a["peers"][k] for k in a["peers"])
    below = certified_peer_deltas(40, 2, "1/4", F(16487212707, 10**10))   # lam < e^(1/2)
    above = certified_peer_deltas(40, 2, "1/4", F(16487212708, 10**10))   # lam > e^(1/2)
    for k, v in rows[1]["peers"].items():
        assert above[k].upper <= v <= below[k].upper


def test_default_grid():
    g = default_grid(100, 1, "1/4", points=5)
    assert len(g) == 5 and g[0] == 0 and all(a < b for a, b in zip(g, g[1:]))
    assert g[-1] <= F(10987, 10**4)      # capped at eps0 = log 3
    assert default_grid(100, 1, "1/4", points=3, eps_max="0.3") == [0, F(3, 20), F(3, 10)]
    with pytest.raises(ParameterError):
        default_grid(100, 1, "1/4", points=1)
    with pytest.raises(ParameterError):
        default_grid(100, 1, "1/4", eps_max="0")


def test_cli_json_equals_api(capsys):
    assert main(["profile", "-N", "30", "-L", "1", "-q", "1/4", "--eps-max", "0.4",
                 "--points", "3", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    rows = profile(30, 1, "1/4", eps_grid=["0", "0.2", "0.4"])
    assert [r["eps"] for r in rec] == ["0", "0.2", "0.4"]
    for a, b in zip(rec, rows):
        assert F(a["lower"]) <= b["lower"] and b["upper"] <= F(a["upper"])
        assert a["upper_bound"] == b["upper_bound"]


def test_cli_plot_and_bad_input(tmp_path, capsys):
    out = tmp_path / "p.png"
    assert main(["profile", "-N", "30", "-L", "2", "-q", "1/4", "--eps-max", "1",
                 "--points", "3", "--plot", str(out)]) == 0
    assert out.stat().st_size > 1000
    capsys.readouterr()
    for bad in (["--points", "1"], ["--points", "x"], ["--eps-max", "-1"],
                ["--plot", str(tmp_path / "no" / "p.png")], ["--digits", "0"]):
        assert main(["profile", "-N", "30", "-L", "1", "-q", "1/4", *bad]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert main(["profile", "-N", "30", "-L", "1", "-q", "0.7"]) == 2
    assert "q" in capsys.readouterr().err
