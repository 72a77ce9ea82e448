"""A learner's edits in a generated notebook: told from the generator's cells, and backed up.

The Chinese notebooks are generated (:mod:`tools.production.notebook_translation`), yet a
learner types answers and notes into them. So that regenerating never silently replaces
those, every cell the generator writes carries the hash of its source in its metadata
(:func:`stamp`): a cell whose source no longer matches its hash, or a cell added without one,
is the learner's (:func:`learner_cells`). The generator refuses to overwrite such a notebook
(:class:`LearnerEditsError`) unless told to, and then first copies it to ``build/backup/``
(:func:`back_up`), never over an earlier backup: :func:`write` does all of that.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mishgrad.kernel.source import shown
from mishgrad.paths import REPOSITORY

from .translation_entries import english_hash

#: Where a generated notebook is copied before it overwrites a learner's cells.
BACKUPS: Final = REPOSITORY / "build" / "backup"


def cell_source(cell: dict) -> str:
    """A cell's source as one string (nbformat stores a string or a list of lines)."""
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def _stamp_of(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("mishgrad", {}).get("generated")


def stamp(cell: dict) -> dict:
    """The cell, with the hash of its source in its metadata: what the generator wrote."""
    cell["metadata"] = {
        **cell["metadata"],
        "mishgrad": {"generated": english_hash(cell_source(cell))},
    }
    return cell


def _as_generated(cell: dict, wanted: dict[str, str]) -> bool:
    """Whether a stored cell is as the generator wrote it (``wanted``: its sources now, by id).

    A stamped cell is compared with its stamp. A cell without one was written before cells
    were stamped, or added by the learner: it is the generator's only if its source is what
    the generator writes now.
    """
    found = _stamp_of(cell)
    if found is not None:
        return found == english_hash(cell_source(cell))
    return wanted.get(cell.get("id", "")) == cell_source(cell)


def learner_cells(stored: dict, generated: dict) -> list[str]:
    """The ids of the cells of a stored notebook that a learner typed in or added.

    ``generated`` is what the generator would write in its place (``{"cells": [...]}``).
    """
    wanted = {cell["id"]: cell_source(cell) for cell in generated["cells"]}
    cells = stored.get("cells", [])
    return [cell.get("id", "?") for cell in cells if not _as_generated(cell, wanted)]


def back_up(path: Path) -> Path:
    """Copy ``path`` into :data:`BACKUPS` under a new name (notebook, time, count); return it.

    The name is claimed atomically, so an earlier backup is never overwritten.
    """
    folder = BACKUPS / path.parent.name
    folder.mkdir(parents=True, exist_ok=True)
    data, now = path.read_bytes(), time.strftime("%Y%m%d-%H%M%S")
    names = (folder / f"{path.stem}.{now}-{n}{path.suffix}" for n in itertools.count(1))
    return next(name for name in names if _claimed(name, data))


def _claimed(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` if no file has that name yet (atomically); whether it did."""
    try:
        with path.open("xb") as file:
            file.write(data)
    except FileExistsError:
        return False
    return True


class LearnerEditsError(Exception):
    """Generated notebooks hold a learner's cells: nothing was overwritten.

    ``edits`` maps each notebook to the ids of those cells.
    """

    def __init__(self, edits: dict[Path, list[str]]) -> None:
        self.edits = edits
        named = "\n".join(f"{shown(path)}: cells {', '.join(ids)}" for path, ids in edits.items())
        super().__init__(
            "not rebuilt: cells that are not what the generator wrote, typed in or added by "
            f"you:\n{named}\nCopy out what you want to keep, or rebuild with `make notebooks "
            f"FORCE=1` (build --force), which first backs each notebook up to {shown(BACKUPS)}/."
        )


@dataclass(frozen=True)
class Rewrite:
    """A generated notebook to write: where, its new text, and the learner's cells it replaces."""

    target: Path
    text: str
    learner_cells: list[str]


def write(rewrites: list[Rewrite], force: bool) -> list[Path]:
    """Write each rewrite (backing up first those that replace a learner's cells); the backups.

    Raises
    ------
    LearnerEditsError
        Without ``force``, if a rewrite replaces a learner's cells (then nothing is written).

    """
    edits = {r.target: r.learner_cells for r in rewrites if r.learner_cells}
    if edits and not force:
        raise LearnerEditsError(edits)
    backups = [back_up(target) for target in edits]
    for rewrite in rewrites:
        rewrite.target.parent.mkdir(parents=True, exist_ok=True)
        rewrite.target.write_text(rewrite.text, encoding="utf-8")
    return backups
