"""The import graph of the package: layers, one direction, no cycles, no private names.

Every ``import`` of an exactdp module -- at module level or inside a function
(lazy imports count: they are dependencies all the same) -- is read from the
source with :mod:`ast`.  The test fails when a module imports from a higher
layer, when the graph has a cycle, when a private name (``_x``) is imported from
another module, or when anything but an application or a test imports a
reference oracle.  docs/architecture.md describes the layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import exactdp

PKG = Path(exactdp.__file__).parent

#: layer of each subpackage, lowest first; a module may import its own layer and below
LAYERS = ("core", "model", "engine", "reductions", "law", "apps")
#: reference oracles: beside the layers, imported only by ``apps`` and tests
ORACLES = "oracles"


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        rel = p.relative_to(PKG).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(("exactdp",) + parts)] = p
    return out


def _resolve(mod: str, node: ast.ImportFrom, is_pkg: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.split(".")
    base = base if is_pkg else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(mods) -> dict[str, set[tuple[str, str]]]:
    """module -> {(imported module, imported name or '')}."""
    out = {}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text())
        deps = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom):
                target = _resolve(mod, n, path.name == "__init__.py")
                if not target.startswith("exactdp"):
                    continue
                for a in n.names:
                    sub = f"{target}.{a.name}"
                    if sub in mods:          # "from . import domains" imports a module
                        deps.add((sub, ""))
                    else:
                        deps.add((target, a.name))
            elif isinstance(n, ast.Import):
                for a in n.names:
                    if a.name.startswith("exactdp"):
                        deps.add((a.name, ""))
        out[mod] = deps
    return out


MODS = _modules()
GRAPH = _imports(MODS)


def _layer(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[1] if len(parts) > 2 else None


def test_every_module_lives_in_a_layer():
    loose = [m for m, p in MODS.items() if p.parent == PKG and p.name not in ("__init__.py", "__main__.py")]
    assert not loose, f"modules outside the layered subpackages: {loose}"
    bad = [m for m in MODS if _layer(m) not in LAYERS + (ORACLES, None)]
    assert not bad, f"unknown subpackages: {bad}"


def test_dependencies_point_down():
    bad = []
    for mod, deps in GRAPH.items():
        lm = _layer(mod)
        for dep, _ in deps:
            ld = _layer(dep)
            if lm is None or ld is None or dep == "exactdp":
                continue
            if ld == ORACLES:
                if lm not in ("apps", ORACLES):
                    bad.append(f"{mod} imports the oracle {dep}")
            elif lm == ORACLES:
                if LAYERS.index(ld) > LAYERS.index("model"):
                    bad.append(f"oracle {mod} imports {dep} (oracles use core and model only)")
            elif LAYERS.index(ld) > LAYERS.index(lm):
                bad.append(f"{mod} ({lm}) imports {dep} ({ld})")
    assert not bad, "\n".join(bad)


def test_no_import_cycle():
    graph = {m: {d for d, _ in deps if d in MODS and d != m} for m, deps in GRAPH.items()}
    graph = {m: {d for d in ds if not m.startswith(d + ".")} for m, ds in graph.items()}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(m, stack):
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cycle.extend(stack[stack.index(d):] + [d] if d in stack else [m, d])
                return True
            if state.get(d) is None and visit(d, stack + [d]):
                return True
        state[m] = 2
        return False

    for m in sorted(graph):
        if state.get(m) is None and visit(m, [m]):
            break
    assert not cycle, " -> ".join(cycle)


def test_no_private_name_crosses_modules():
    bad = [f"{mod} imports {name} from {dep}" for mod, deps in GRAPH.items()
           for dep, name in deps if name.startswith("_") and not name.startswith("__")]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("oracle", ["bruteforce", "moments", "pgf", "proofs"])
def test_oracles_exist_beside_the_engine(oracle):
    assert f"exactdp.{ORACLES}.{oracle}" in MODS


#: Functions allowed more than six positional parameters (issue 15 asks for none): keep it empty.
MANY_POSITIONAL: set = set()


def test_at_most_six_positional_parameters():
    """Beyond six, parameters are keyword-only (issue 15): a call reads as what it sets."""
    found = set()
    for mod, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                pos = [a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]
                if len(pos) > 6:
                    found.add((mod, node.name))
    assert found <= MANY_POSITIONAL, sorted(found - MANY_POSITIONAL)
