"""Start-up cost: ``import exactdp`` and ``exactdp --version`` stay light.

Each check runs a fresh interpreter (a subprocess) so that modules imported by
other tests in this session cannot hide an eager import.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import exactdp

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("sympy", "matplotlib", "scipy", "numpy", "flint")


def _python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=120)


def _loaded_after(statement: str) -> set[str]:
    r = _python(f"import sys\n{statement}\n"
                f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))")
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def test_import_exactdp_loads_no_numerical_library():
    loaded = _loaded_after("import exactdp")
    assert "exactdp" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_fast_path_does_not_load_sympy_scipy_matplotlib():
    loaded = _loaded_after("import exactdp\n"
                           "d = exactdp.from_randomized_response(40, 2, '1/5')\n"
                           "d.eta(2, method='fast')")
    from exactdp.engine.ckernel import available
    if available():   # the compiled walk ran: no numpy at all
        assert "numpy" not in loaded
    else:             # the numpy float tree ran
        assert "numpy" in loaded
    assert not loaded & {"sympy", "scipy", "matplotlib"}, loaded


def test_fast_queries_at_issue16_sizes_load_no_numpy():
    """N = 5000, L = 5 (issue 16's benchmark): eta and delta in both directions answer
    from the compiled walk without the tree-size prediction (numpy, ~0.1 s)."""
    from exactdp.engine.ckernel import available
    if not available():
        pytest.skip("compiled kernel not built")
    loaded = _loaded_after("import exactdp\n"
                           "for d in ('forward', 'reverse'):\n"
                           "    m = exactdp.from_randomized_response(5000, 5, '0.1778', d)\n"
                           "    m.eta(2, method='fast'); m.delta(2, method='fast')")
    assert "numpy" not in loaded


def test_fast_small_gives_the_estimate_of_the_predicted_route(monkeypatch):
    """The compiled-first try is the float tree choose_method picks: the same estimate."""
    from exactdp.law import distribution as dist
    for direction in ("forward", "reverse"):
        first = exactdp.from_randomized_response(3000, 5, "0.2109", direction)
        a = (first.eta(2, method="fast"), first.delta(2, method="fast"))
        monkeypatch.setattr(dist, "FAST_COMPILED_FIRST_MAX_N", 0)
        other = exactdp.from_randomized_response(3000, 5, "0.2109", direction)
        assert other.choose_method(fast=True, x=2) == "tree"
        b = (other.eta(2, method="fast"), other.delta(2, method="fast"))
        monkeypatch.undo()
        assert [(e.value, e.error) for e in a] == [(e.value, e.error) for e in b]


def test_cli_module_loads_no_numerical_library():
    loaded = _loaded_after("import exactdp.apps.cli")
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_lazy_names_resolve_and_are_listed():
    for name in exactdp.__all__:
        assert name in dir(exactdp)
        assert getattr(exactdp, name).__name__ == name
    with pytest.raises(AttributeError):
        exactdp.no_such_name  # noqa: B018


def test_from_import_of_public_names_in_fresh_interpreter():
    r = _python("from exactdp import from_randomized_response, Interval, ParameterError\n"
                "from exactdp import *\n"
                "print(from_randomized_response.__module__, Mechanism.__module__)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["exactdp.law.distribution", "exactdp.model.mechanism"]


def test_version_flag():
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "exactdp", "--version"], capture_output=True,
                       text=True, cwd=REPO, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    name, version = r.stdout.split()
    assert name == "exactdp" and version[0].isdigit()
    assert r.stderr == ""
