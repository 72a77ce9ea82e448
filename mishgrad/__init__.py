"""mishgrad: an executable textbook about MishGrad, the gradient of Mish, on Ascend NPUs.

The package follows the book's stages, each a layer that imports only the layers below it
(``docs/architecture.md``; ``make lint`` enforces it with import-linter):

- :mod:`mishgrad.book`: what only the notebooks need (tables, figures, the notebook's
  language, the exercises' checkers);
- :mod:`mishgrad.evaluation`: accuracy's inputs, the exhaustive run's regions, CANN's
  precision standard, the roofline;
- :mod:`mishgrad.aclnn`: the aclnn two-phase call through ctypes, on the twin or on CANN;
- :mod:`mishgrad.kernel`: the AscendC kernel built and run on the CPU twin, and its trace;
- :mod:`mishgrad.math`: the formulas in float32 arithmetic, the oracle, floats and ULPs;
- :mod:`mishgrad.citations`: the pinned permalinks every layer cites; :mod:`mishgrad.paths`:
  where the repository is.

Book production and maintainer measurement are not here: ``tools/production`` and ``bench/``
import the package, never the other way round.
"""
