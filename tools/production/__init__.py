"""Book production: what makes the book, never what a notebook imports.

Run from the repository's root (``make notebooks``, ``make translations`` and
``make notebook-times`` do):

- ``python -m tools.production.notebook_translation``: the Chinese notebooks, generated from the
  English ones and ``translations/zh-CN`` (:mod:`~tools.production.translation_entries`,
  :mod:`~tools.production.output_strings` and :mod:`~tools.production.learner_edits` are its
  parts), and the check that the translations are in step;
- ``python -m tools.production.run_time --write``: every run-time statement of the book,
  rewritten from ``bench/results/notebook_times.json``.

These modules import :mod:`mishgrad`; nothing in :mod:`mishgrad` or a notebook imports them
(import-linter's ``tools`` contract, ``tests/test_architecture.py``).
"""
