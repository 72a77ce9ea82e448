"""Compiling translation units into a cache keyed by their content, shared by every copy.

An edit to one kernel file recompiles only the units that read it, and a new copy of ``kernel/``
(a learner's scratch copy) compiles nothing it did not change: a unit's object is kept under
``<cache>/objects/<identity>/<content>.o``. The *identity* hashes the compiler (command and
version), the flags and the source, every path inside the unit's *base* folder (the kernel
folder, where the compiler runs) written relative to it; the *content* hashes every file the
unit read when last compiled (the compiler's own list, ``-MMD``), whatever its modification time.

Each object is recorded with its size and SHA-256 and published by an atomic rename, so
processes share the cache safely and only a whole file is linked. A line on stdout counts the
units compiled (``MISHGRAD_BUILD_PROGRESS=0`` silences it, as ``make test`` and ``make
notebooks`` do, so that stored outputs never depend on the cache). The compiler is ``$CXX``
(:func:`compiler_command`), for every build of the project.
"""

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Final, NamedTuple

from .messages import translate

#: A unit: its source and its own extra flags.
Unit = tuple[Path, tuple[str, ...]]

#: Set to 0 to build without the progress line.
PROGRESS_VARIABLE: Final = "MISHGRAD_BUILD_PROGRESS"


class TwinBuildError(RuntimeError):
    """The twin could not be built (no compiler, or the sources do not compile).

    A learner's edit that does not compile ends here, so the message is in the notebook's
    language (:func:`~mishgrad.kernel.messages.translate`); the compiler's output in it is not.
    """

    def __init__(self, message: str) -> None:
        super().__init__(translate(message))


def compiler_command() -> list[str]:
    """``$CXX`` as a command (it may carry arguments: ``ccache g++``), default ``g++``.

    Raises
    ------
    TwinBuildError
        If ``CXX`` cannot be split into words as a shell would (an unbalanced quote).
    """
    value = os.environ.get("CXX") or "g++"
    try:
        command = shlex.split(value)
    except ValueError as error:
        raise TwinBuildError(
            f"CXX={value} cannot be read as a command ({error}): quote it as a shell would, "
            "e.g. CXX='ccache g++', or unset it for g++"
        ) from error
    if not command:
        raise TwinBuildError("CXX is blank: set it to a C++ compiler, or unset it for g++")
    return command


def found_compiler() -> list[str] | None:
    """The compiler command, or None if its program is not on PATH."""
    command = compiler_command()
    return command if shutil.which(command[0]) else None


def missing_compiler(what: str = "") -> TwinBuildError:
    """The error for a compiler that is not on PATH, saying how to install one."""
    shown = " ".join(compiler_command())
    return TwinBuildError(
        f"no C++ compiler '{shown}' on PATH{what}: install g++ (Debian/Ubuntu: `apt install "
        "g++`; Fedora: `dnf install gcc-c++`; macOS: `xcode-select --install`) or set CXX to "
        "your compiler"
    )


def check_written(compiler: Sequence[str], target: Path, what: str) -> None:
    """Raise unless the compiler, which succeeded on ``what``, wrote ``target``."""
    if not target.is_file():
        raise TwinBuildError(
            f"`{' '.join(compiler)}` succeeded on {what} but wrote no {target.suffix} file: is "
            "CXX a C++ compiler? Set it to one (or unset it for g++)"
        )


@cache
def compiler_version(command: tuple[str, ...]) -> str:
    """What ``command --version`` prints: part of every object's and library's name."""
    return subprocess.run(
        [*command, "--version"], capture_output=True, text=True, check=False
    ).stdout


def digest(*parts: str | bytes) -> str:
    """A short SHA-256 of ``parts``, each delimited, for the names of cached files."""
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode() if isinstance(part, str) else part)
        hasher.update(b"\0")
    return hasher.hexdigest()[:20]


@cache
def _file_digest(path: str, inode: int, size: int, mtime_ns: int, ctime_ns: int) -> str:
    # Cached on what a write changes: even a write that keeps the size and puts the old
    # modification time back (`cp -p`, `rsync -t`) changes the inode's ctime.
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_digest(path: Path) -> str:
    """The SHA-256 of the file at ``path``, read again only when the file was written."""
    stat = path.stat()
    return _file_digest(str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def content_key(files: Sequence[str], base: Path | None) -> str | None:
    """A hash of ``files``' names and contents (relative ones in ``base``); None if one is gone."""
    try:
        digests = [file_digest((base or Path()) / name) for name in files]  # absolute: as named
    except OSError:
        return None
    return digest(*(part for pair in zip(files, digests, strict=True) for part in pair))


#: A rule's target: everything up to the first unescaped ``:`` followed by a blank.
_TARGET: Final = re.compile(r"(?:\\.|[^\\:]|:(?!\s))*:(?=\s)", re.DOTALL)
#: A name: a run of non-blanks and escaped blanks (``\ ``).
_NAME: Final = re.compile(r"(?:\\[ #]|\S)+")
#: The escapes within a name: ``\ `` (a blank), ``\#`` (a ``#``) and ``$$`` (a ``$``).
_ESCAPE: Final = re.compile(r"\\([ #])|\$(\$)")


def dependencies(text: str) -> list[str]:
    """The files of a ``-MMD`` dependency list, ``target: dep dep ...``, as make reads it.

    A backslash-newline continues the line; unescaped blanks separate names.
    """
    rule = text.replace("\\\n", " ")
    target = _TARGET.match(rule)
    if target is None:
        raise TwinBuildError(f"the compiler's dependency list has no target: {rule[:200]!r}")
    return sorted({_ESCAPE.sub(r"\1\2", name) for name in _NAME.findall(rule, target.end())})


def relative(argument: str, base: Path | None) -> str:
    """``argument`` (a path, or ``-I`` and a path) with a path inside ``base`` made relative."""
    prefix = "-I" if argument.startswith("-I") else ""
    path = Path(argument[len(prefix) :])
    if base is None or not path.is_absolute() or not path.is_relative_to(base):
        return argument
    return prefix + str(path.relative_to(base))


def unit_arguments(unit: Unit, base: Path | None) -> list[str]:
    """What the compiler is told of ``unit`` beside the shared flags, relative to ``base``."""
    source, extra = unit
    return [*(relative(flag, base) for flag in extra), "-c", relative(str(source), base)]


class _Progress:
    """``compiling the twin (mishgrad_twin): 2 of 5 units, 7 s``, one line redrawn as units finish.

    ``library`` tells one build's line from the next (a notebook may build a library per dtype).
    """

    def __init__(self, total: int, library: str) -> None:
        self.total, self.library, self.done, self.start = total, library, 0, time.monotonic()
        self.shown = total > 0 and os.environ.get(PROGRESS_VARIABLE, "1") != "0"
        self.lock = threading.Lock()
        self._draw()

    def _draw(self, end: str = "") -> None:
        if self.shown:
            elapsed = time.monotonic() - self.start
            line = translate(
                f"compiling the twin ({self.library}): {self.done} of {self.total} units, "
                f"{elapsed:.0f} s"
            )
            print(f"\r{line}", end=end, flush=True)

    def step(self) -> None:
        with self.lock:
            self.done += 1
            self._draw("\n" if self.done == self.total else "")


class Compiled(NamedTuple):
    """A unit's object in the cache, and the files (as the compiler named them) it read."""

    obj: Path
    files: list[str]


class ObjectCache:
    """The compiled objects under ``root``, for one compiler, shared flags and ``base`` folder."""

    def __init__(
        self, root: Path, compiler: Sequence[str], flags: Sequence[str], base: Path | None
    ):
        self.root, self.compiler, self.base = root / "objects", list(compiler), base
        self.flags = [relative(flag, base) for flag in flags]

    def _arguments(self, unit: Unit) -> list[str]:
        return [*self.flags, *unit_arguments(unit, self.base)]

    def _folder(self, unit: Unit) -> Path:
        # The command too: CXX may carry flags that change the object (``g++ -O0``).
        version = compiler_version(tuple(self.compiler))
        return self.root / digest(repr(self.compiler), version, repr(self._arguments(unit)))

    def cached(self, unit: Unit) -> Compiled | None:
        """The unit's object, if the files it read still hash as they did (not verified)."""
        folder = self._folder(unit)
        try:
            files = json.loads((folder / "deps.json").read_text())
        except (OSError, ValueError):
            return None
        key = content_key(files, self.base)
        return None if key is None else Compiled(folder / f"{key}.o", files)

    def compile(self, unit: Unit, workdir: Path) -> Compiled:
        """Compile ``unit`` in ``workdir`` and publish its object in the cache."""
        source = unit[0]
        folder = self._folder(unit)
        target, depfile = workdir / f"{folder.name}.o", workdir / f"{folder.name}.d"
        outputs = ["-MMD", "-MF", str(depfile), "-o", str(target)]
        command = [*self.compiler, *self._arguments(unit), *outputs]
        result = subprocess.run(command, cwd=self.base, capture_output=True, text=True)
        if result.returncode != 0:
            raise TwinBuildError(f"compiling {source.name} failed:\n{result.stderr.strip()}")
        for written in (target, depfile):
            check_written(self.compiler, written, source.name)
        files = dependencies(depfile.read_text())
        folder.mkdir(parents=True, exist_ok=True)
        obj = folder / f"{content_key(files, self.base)}.o"
        publish_record(target, obj.with_suffix(".json"))
        os.replace(target, obj)  # atomic: another builder sees no object or a whole one
        _publish_json(folder / "deps.json", files)
        return Compiled(obj, files)

    def objects(self, units: Sequence[Unit], workdir: Path, library: str) -> list[Compiled]:
        """Every unit's object: from the cache if verified, else compiled (in parallel).

        ``library`` names what they are compiled for, in the progress line.
        """
        found = [self.cached(unit) for unit in units]
        found = [entry if entry and verified(entry.obj) else None for entry in found]
        missing = [unit for unit, entry in zip(units, found, strict=True) if entry is None]
        progress = _Progress(len(missing), library)

        def one(unit: Unit) -> Compiled:
            entry = self.compile(unit, workdir)
            progress.step()
            return entry

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            built = iter(list(pool.map(one, missing)))
        return [entry if entry is not None else next(built) for entry in found]


def _publish_json(path: Path, value: object) -> None:
    """Write ``value`` to ``path`` atomically: readers see the old file or the whole new one."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as file:
        json.dump(value, file)
    os.replace(file.name, path)


def verified(path: Path, record: Path | None = None) -> bool:
    """True if ``path`` is the file its record (default: beside it, ``.json``) describes."""
    try:
        expected = json.loads((record or path.with_suffix(".json")).read_text())
        return expected["size"] == path.stat().st_size and expected["sha256"] == file_digest(path)
    except (OSError, ValueError, KeyError, TypeError):
        return False


def publish_record(path: Path, record: Path, **more: object) -> None:
    """Record ``path``'s size and SHA-256, and ``more``, in ``record``.

    Written before ``path`` is published: :func:`verified` then accepts that file alone.
    """
    _publish_json(record, {"size": path.stat().st_size, "sha256": file_digest(path), **more})
