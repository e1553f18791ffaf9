"""Build script: only the optional compiled extensions (everything else is in pyproject.toml).

``exactdp.engine._ckernel`` (the certified tree kernel) and ``exactdp.engine._cfloat`` (float
images for the Chernoff saddle search) are small C extensions (no dependency beyond the
Python headers and a C compiler).  Both are optional: when they cannot be compiled, the
install still succeeds, the certified kernel runs on python-flint alone
(:mod:`exactdp.engine.ckernel` names the engine that ran) and the saddle search on numpy
(:mod:`exactdp.engine.cfloat`).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("exactdp.engine._ckernel", ["exactdp/engine/_ckernel.c"],
                             extra_compile_args=["-O3"], optional=True),
                   Extension("exactdp.engine._cfloat", ["exactdp/engine/_cfloat.c"],
                             extra_compile_args=["-O2"], optional=True)])
