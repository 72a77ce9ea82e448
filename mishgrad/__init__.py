"""mishgrad: an executable textbook about MishGrad, the gradient of Mish, on Ascend NPUs.

The package follows the book's stages, each a layer that imports only the layers below it
(``docs/architecture.md``; ``make lint`` enforces it with import-linter):

- :mod:`mishgrad.book`: what only the notebooks need (reports, figures, the Chinese edition,
  the exercises' checkers);
- :mod:`mishgrad.evaluation`: accuracy, CANN's precision standard, the roofline, throughput;
- :mod:`mishgrad.aclnn`: the aclnn two-phase call through ctypes, on the twin or on CANN;
- :mod:`mishgrad.kernel`: the AscendC kernel built and run on the CPU twin, and its trace;
- :mod:`mishgrad.math`: the formulas in float32 arithmetic, the oracle, floats and ULPs;
- :mod:`mishgrad.citations`: the pinned permalinks every layer cites.
"""
