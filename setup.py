"""Build script: only the optional compiled kernel (everything else is in pyproject.toml).

``exactdp.engine._ckernel`` is a small C extension (no dependency beyond the Python
headers and a C compiler).  It is optional: when it cannot be compiled, the
install still succeeds and the certified kernel runs on python-flint alone
(:mod:`exactdp.engine.ckernel` names the engine that ran).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("exactdp.engine._ckernel", ["exactdp/engine/_ckernel.c"],
                             extra_compile_args=["-O3"], optional=True)])
