"""The book's run times: measured once by ``bench/notebook_times.py``, read from here.

Every run-time statement of the book comes from one file, ``bench/results/notebook_times.json``,
so they cannot disagree: the cell that ends each lesson prints this run's time beside the
book's (:func:`report`); each notebook's opening **Run time** paragraph and README's line are
written by ``tools/production/run_time.py``.
"""

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mishgrad.paths import REPOSITORY

from . import i18n

RESULTS: Final = REPOSITORY / "bench" / "results" / "notebook_times.json"


@dataclass(frozen=True)
class NotebookTime:
    """Seconds to run one notebook top to bottom."""

    warm: float  # once what it compiles (the twin, the C++ example, the unit tests) is cached
    #: From an empty build cache, the notebooks run in book order: what a learner waits for the
    #: first time through the book (a notebook compiles what the ones before it did not).
    first: float


@dataclass(frozen=True)
class RunTimes:
    """What ``bench/notebook_times.py`` measured."""

    cores: int
    twin_cold: float  # the twin's build from an empty cache
    twin_edit: float  # its rebuild after a one-line edit of the kernel (of a scratch copy)
    notebooks: dict[str, NotebookTime]


def load(path: Path = RESULTS) -> RunTimes:
    """The measured run times (``bench/notebook_times.py`` writes the file)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return RunTimes(
        cores=data["cores"],
        twin_cold=data["twin"]["cold"],
        twin_edit=data["twin"]["edit"],
        notebooks={name: NotebookTime(**t) for name, t in data["notebooks"].items()},
    )


def rounded(seconds: float) -> str:
    """A duration as the book states it: 0.5, 4, 15, 140 (no false precision)."""
    if seconds < 1:
        return f"{seconds:.1f}"
    if seconds < 20:
        return str(round(seconds))
    return str(5 * round(seconds / 5))


def report(started: float, stem: str) -> None:
    """Print how long this run of notebook ``stem`` took, beside the book's measurement."""
    mine = load().notebooks[stem]
    elapsed = time.perf_counter() - started
    print(
        i18n.translate(
            f"This run: {elapsed:.1f} s. Measured for the book: {rounded(mine.warm)} s, or "
            f"{rounded(mine.first)} s from an empty build cache."
        )
    )
