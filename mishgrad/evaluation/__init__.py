"""Judging the kernel (notebooks 03, 10, 12): accuracy, CANN's precision standard, speed.

- :mod:`~mishgrad.evaluation.accuracy`: every formula and the kernel against the oracle;
- :mod:`~mishgrad.evaluation.exhaustive`: the float32 kernel's statistics per region of x
  (its C++ half is ``native/``; ``bench/exhaustive_run.py`` runs all 2³² inputs);
- :mod:`~mishgrad.evaluation.precision`: CANN's precision standard;
- :mod:`~mishgrad.evaluation.upstream`: ops-nn's v1 and MishGradV2, their operation orders;
- :mod:`~mishgrad.evaluation.roofline`: a roofline model of the NPU.

May import: :mod:`mishgrad.kernel`, :mod:`mishgrad.math`, :mod:`mishgrad.citations`,
:mod:`mishgrad.paths`.
"""
