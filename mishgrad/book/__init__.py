"""What only the notebooks need: how results are shown, in which language, and the exercises.

- :mod:`~mishgrad.book.report` (tables and numbers), :mod:`~mishgrad.book.tiling_viz`,
  :mod:`~mishgrad.book.diagrams`, :mod:`~mishgrad.book.number_diagrams` (figures),
  :mod:`~mishgrad.book.exhaustive_report` (the tables of ``make exhaustive``) and
  :mod:`~mishgrad.book.notebook_display` (display settings, the figures' fonts and language);
- :mod:`~mishgrad.book.language` switches a notebook's language, :mod:`~mishgrad.book.i18n`
  translates the helpers' text from the files :mod:`~mishgrad.book.translation_files` reads;
  :mod:`~mishgrad.book.run_time` prints a run's time beside the book's measurement;
- :mod:`~mishgrad.book.exercises`: the exercises' checkers, one module per notebook.

What makes the book rather than what a notebook runs (the Chinese notebooks' generator, the
run-time statements' writer) is ``tools/production``.

May import: :mod:`mishgrad.evaluation`, :mod:`mishgrad.aclnn`, :mod:`mishgrad.kernel`,
:mod:`mishgrad.math`, :mod:`mishgrad.citations`, :mod:`mishgrad.paths`.
"""
