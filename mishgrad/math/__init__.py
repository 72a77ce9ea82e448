"""The mathematics of MishGrad (notebooks 01-03): formulas, floats and the oracle.

- :mod:`~mishgrad.math.symbolic`: the derivative and the formulas' equality, proven with SymPy;
- :mod:`~mishgrad.math.numerics`: every formula evaluated in float32 arithmetic, step by step
  as a kernel would, with :mod:`~mishgrad.math.vector_math` the NPU's ``Exp`` and ``Div``
  under each numerics model;
- :mod:`~mishgrad.math.oracle`: the correctly rounded reference, and
  :mod:`~mishgrad.math.errors` the ULP metrics and the accuracy targets;
- :mod:`~mishgrad.math.dtypes`, :mod:`~mishgrad.math.thresholds`,
  :mod:`~mishgrad.math.samples`, :mod:`~mishgrad.math.near_root`: the float formats, their
  overflow points, the inputs the book measures on, the inputs around the root of d.

May import: :mod:`mishgrad.citations`, :mod:`mishgrad.paths`.
"""
