"""What only the notebooks need: how results are shown, in which language, and the exercises.

- :mod:`~mishgrad.book.report` (sentences and tables), :mod:`~mishgrad.book.viz`,
  :mod:`~mishgrad.book.tiling_viz`, :mod:`~mishgrad.book.acl_viz` (figures),
  :mod:`~mishgrad.book.exhaustive_report` (the tables of ``make exhaustive``) and
  :mod:`~mishgrad.book.notebook_display` (display settings, the figures' fonts and language);
- :mod:`~mishgrad.book.language` switches a notebook's language, :mod:`~mishgrad.book.i18n`
  translates the helpers' text; :mod:`~mishgrad.book.notebook_translation`,
  :mod:`~mishgrad.book.translation_files` and :mod:`~mishgrad.book.output_strings` generate
  and check the Chinese edition, :mod:`~mishgrad.book.learner_edits` keeps what a learner
  typed into it from being overwritten;
- :mod:`~mishgrad.book.exercises`: the exercises' checkers, one module per notebook.

May import: :mod:`mishgrad.evaluation`, :mod:`mishgrad.aclnn`, :mod:`mishgrad.kernel`,
:mod:`mishgrad.math`, :mod:`mishgrad.citations`, :mod:`mishgrad.paths`.
"""
