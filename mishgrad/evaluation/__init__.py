"""Judging the kernel (notebooks 03, 10, 12): accuracy, CANN's precision standard, speed.

- :mod:`~mishgrad.evaluation.accuracy`: every formula and the kernel against the oracle;
- :mod:`~mishgrad.evaluation.exhaustive` and :mod:`~mishgrad.evaluation.exhaustive_run`: the
  float32 kernel on all 2³² inputs, resumable (its C++ half is ``native/``);
- :mod:`~mishgrad.evaluation.precision`: CANN's precision standard;
- :mod:`~mishgrad.evaluation.upstream`: ops-nn's v1 and MishGradV2, their operation orders;
- :mod:`~mishgrad.evaluation.roofline` and :mod:`~mishgrad.evaluation.throughput`: a roofline
  model of the NPU, and the twin's measured throughput.

May import: :mod:`mishgrad.kernel`, :mod:`mishgrad.math`, :mod:`mishgrad.citations`,
:mod:`mishgrad.paths`.
"""
