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
