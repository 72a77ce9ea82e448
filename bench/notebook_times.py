"""How long each notebook takes to run: the figures every run-time statement of the book uses.

Runs every English notebook top to bottom in a fresh Jupyter kernel, twice:

1. **first**: from an empty build cache (``MISHGRAD_CACHE`` in a temporary folder, and
   ``build/ut``, where notebook 13 builds the unit tests, removed), the notebooks in book
   order, as a learner meets them the first time — each compiles what the ones before it
   did not;
2. **warm**: again, everything it compiles now cached.

Each time is the cells' run, from the first cell to the last, without the kernel's start-up.
Then the twin's cold build and its rebuild after a one-line kernel edit
(``bench/build_times.py``). Prints the table and writes
``bench/results/notebook_times.json``; ``python -m tools.production.run_time --write`` then
rewrites the book's run-time statements from it. Stored outputs are left alone (the runs
work on copies). Takes about twice the book's run time plus its builds: minutes.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import build_times
import nbformat
from nbclient import NotebookClient

from mishgrad.book import run_time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tools/
from tools import ut

NOTEBOOKS = sorted((run_time.REPOSITORY / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def run_seconds(path: Path) -> float:
    """Seconds to run the notebook's cells in a started kernel (a copy; the file is untouched)."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=600, resources={"metadata": {"path": str(path.parent)}}
    )
    with client.setup_kernel():
        start = time.perf_counter()
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
        return time.perf_counter() - start


def measure() -> dict:
    """Run every notebook from an empty cache, then warm; build the twin cold and after an edit."""
    os.environ["MISHGRAD_BUILD_PROGRESS"] = "0"
    times: dict[str, dict[str, float]] = {}
    shutil.rmtree(ut.BUILD_DIR, ignore_errors=True)  # a build cache: rebuilt on demand
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MISHGRAD_CACHE"] = cache  # the kernels inherit it
        for path in NOTEBOOKS:
            times[path.stem] = {"first": run_seconds(path)}
            print(f"  {path.stem:40} first {times[path.stem]['first']:6.1f} s", flush=True)
        for path in NOTEBOOKS:
            times[path.stem]["warm"] = run_seconds(path)
            print(f"  {path.stem:40} warm  {times[path.stem]['warm']:6.1f} s", flush=True)
    twin = build_times.twin_build_times()
    return {
        "cores": os.cpu_count(),
        "twin": {"cold": round(twin.cold, 1), "edit": round(twin.edit, 1)},
        "notebooks": {
            name: {"warm": round(t["warm"], 1), "first": round(t["first"], 1)}
            for name, t in times.items()
        },
    }


def main() -> int:
    print(f"Running the {len(NOTEBOOKS)} notebooks on {os.cpu_count()} cores")
    results = measure()
    run_time.RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    times = run_time.load()
    print(f"\n{'notebook':40} {'warm s':>7} {'first s':>8}  (as stated)")
    for name, t in times.notebooks.items():
        stated = f"{run_time.rounded(t.warm)} / {run_time.rounded(t.first)}"
        print(f"{name:40} {t.warm:7.1f} {t.first:8.1f}  {stated}")
    warm = sum(t.warm for t in times.notebooks.values())
    first = sum(t.first for t in times.notebooks.values())
    print(f"{'all':40} {warm:7.1f} {first:8.1f}")
    print(
        f"\ntwin build, float32: cold {times.twin_cold:.1f} s, after a one-line edit "
        f"{times.twin_edit:.1f} s"
    )
    print(
        f"wrote {run_time.RESULTS.relative_to(run_time.REPOSITORY)}; now run "
        "`python -m tools.production.run_time --write`"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
