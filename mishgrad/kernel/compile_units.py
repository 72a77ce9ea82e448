"""Compiling the twin's translation units into a cache keyed by each unit's inputs.

An edit to one kernel file should recompile only the units that include it. Each unit's
object is kept under ``<cache>/objects/<identity>/<content>.o``:

- the *identity* hashes what names the unit: the compiler (its command and version), the
  flags and the source's path;
- the *content* hashes every file the unit read the last time it was compiled (the
  compiler's own dependency list, ``-MMD``), so a changed header changes it.

A unit whose files all hash as recorded reuses its object; any other is compiled, while a line
on stdout counts the units done and the seconds spent (``MISHGRAD_BUILD_PROGRESS=0`` silences
it, as ``make test`` and ``make notebooks`` do, so that stored notebook outputs never depend
on what the cache held). Objects are published by an atomic rename, like the libraries.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

#: A unit: its source and its own extra flags.
Unit = tuple[Path, tuple[str, ...]]

#: Set to 0 to build without the progress line.
PROGRESS_VARIABLE: Final = "MISHGRAD_BUILD_PROGRESS"


class CompileError(RuntimeError):
    """A unit did not compile (the message has the compiler's), or CXX wrote no object."""


def _digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode() if isinstance(part, str) else part)
        hasher.update(b"\0")
    return hasher.hexdigest()[:20]


def _content_key(files: Sequence[str]) -> str | None:
    """The hash of ``files``' paths and contents; None if one of them is gone."""
    try:
        return _digest(*(part for name in files for part in (name, Path(name).read_bytes())))
    except OSError:
        return None


def _dependencies(depfile: Path) -> list[str]:
    """The files a unit read (system headers aside), from ``-MMD``'s ``target: dep dep ...``."""
    text = depfile.read_text().replace("\\\n", " ")
    return sorted(dict.fromkeys(shlex.split(text.split(":", 1)[1])))


class _Progress:
    """``compiling the twin: 2 of 5 units, 7 s`` on one line of stdout, redrawn as units finish."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.shown = total > 0 and os.environ.get(PROGRESS_VARIABLE, "1") != "0"
        self.lock = threading.Lock()
        self._draw()

    def _draw(self, end: str = "") -> None:
        if self.shown:
            elapsed = time.monotonic() - self.start
            sys.stdout.write(
                f"\rcompiling the twin: {self.done} of {self.total} units, {elapsed:.0f} s{end}"
            )
            sys.stdout.flush()

    def step(self) -> None:
        with self.lock:
            self.done += 1
            self._draw("\n" if self.done == self.total else "")


class ObjectCache:
    """The compiled objects under ``root``, for one compiler and one set of shared flags."""

    def __init__(self, root: Path, compiler: Sequence[str], version: str, flags: Sequence[str]):
        self.root, self.compiler, self.flags = root / "objects", list(compiler), list(flags)
        self.version = version

    def _folder(self, unit: Unit) -> Path:
        source, extra = unit
        # The command too: CXX may carry flags that change the object (``g++ -O0``).
        identity = (repr(self.compiler), self.version, repr(self.flags), repr(extra), str(source))
        return self.root / _digest(*identity)

    def cached(self, unit: Unit) -> Path | None:
        """The unit's object, if its recorded files still hash as they did."""
        folder = self._folder(unit)
        try:
            files = json.loads((folder / "deps.json").read_text())
        except (OSError, ValueError):
            return None
        key = _content_key(files)
        obj = folder / f"{key}.o"
        return obj if key is not None and obj.is_file() else None

    def compile(self, unit: Unit, workdir: Path) -> Path:
        """Compile ``unit`` in ``workdir`` and publish its object in the cache."""
        source, extra = unit
        folder = self._folder(unit)
        target, depfile = workdir / f"{folder.name}.o", workdir / f"{folder.name}.d"
        command = [*self.compiler, *self.flags, *extra, "-MMD", "-MF", str(depfile)]
        command += ["-c", str(source), "-o", str(target)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise CompileError(f"compiling {source.name} failed:\n{result.stderr.strip()}")
        if not target.is_file() or not depfile.is_file():
            raise CompileError(
                f"`{' '.join(self.compiler)}` succeeded on {source.name} but wrote no .o file: "
                "is CXX a C++ compiler? Set it to one (or unset it for g++)"
            )
        files = _dependencies(depfile)
        folder.mkdir(parents=True, exist_ok=True)
        obj = folder / f"{_content_key(files)}.o"
        os.replace(target, obj)  # atomic: another builder sees no object or a whole one
        with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, suffix=".json") as record:
            json.dump(files, record)
        os.replace(record.name, folder / "deps.json")
        return obj

    def objects(self, units: Sequence[Unit], workdir: Path) -> list[Path]:
        """Every unit's object: from the cache, or compiled (in parallel, with progress)."""
        found = [self.cached(unit) for unit in units]
        missing = [unit for unit, obj in zip(units, found, strict=True) if obj is None]
        progress = _Progress(len(missing))

        def one(unit: Unit) -> Path:
            obj = self.compile(unit, workdir)
            progress.step()
            return obj

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            built = iter(list(pool.map(one, missing)))
        return [obj if obj is not None else next(built) for obj in found]
