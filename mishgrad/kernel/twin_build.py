"""Building the CPU twin: the real kernel sources compiled with g++ into a cached library.

The twin library is ``kernel/twin`` (our host implementation of the AscendC API subset)
plus ``kernel/op_kernel/mish_grad.cpp`` compiled once per dtype, linked into one shared
library (:func:`kernel_spec`). :func:`build` builds it on demand into a cache directory whose
name is a hash of every source, header, flag and the compiler's version, so editing a kernel
file and re-running a cell rebuilds it, and an unchanged tree reuses the build. Concurrent
builders serialize on a lock file and publish with an atomic rename, so no process ever loads
a half-written library. :mod:`mishgrad.kernel.twin` loads and runs what this builds.

Each translation unit's object is cached on its own (:mod:`mishgrad.kernel.compile_units`), so
an edit recompiles only the units that read the edited file, with a progress line while it
does. The cache cannot hurt: each library's size and SHA-256 are recorded beside it when it is
built and checked before it is used, so a truncated or corrupt file (a full disk, a killed
copy) is rebuilt, never loaded; a build that was killed leaves only a work folder that the
next build of the same sources removes; and a populated cache serves a machine without a
compiler, by the sources' hash alone.

Environment variables: ``CXX`` (compiler and any arguments, default ``g++``; e.g.
``ccache g++``), ``MISHGRAD_CACHE`` (cache root; unset or empty: ``~/.cache/mishgrad``),
``MISHGRAD_TWIN_FLAVOUR`` (``release`` or ``asan``;
the asan flavour adds AddressSanitizer and UndefinedBehaviorSanitizer and must run in a
process started with the sanitizer runtime preloaded; see ``tests/test_sanitizers.py``).
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from . import opsnn
from .compile_units import CompileError, ObjectCache
from .source import KERNEL_DIR

_FLAVOURS: Final = {
    "release": ["-O2"],
    "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"],
}
_COMMON_FLAGS: Final = ["-std=c++17", "-fPIC", "-pthread", "-Wall", "-Wextra", "-Werror"]
# Every float operation rounded on its own, as the vector unit does: no fused multiply-add.
_FP_FLAGS: Final = ["-ffp-contract=off", "-fno-fast-math"]
# A null dereference in a learner's edit must fault (and be reported as SIGSEGV by the isolated
# runner), not let the optimizer treat the path as unreachable and run on into other code.
_NULL_FLAGS: Final = ["-fno-delete-null-pointer-checks", "-fno-isolate-erroneous-paths-dereference"]
#: The twin sources any kernel needs besides its own: virtual cores, and how Exp and Div round.
RUNTIME_SOURCES: Final = ("core.cpp", "numerics.cpp")
_KERNEL_TYPES: Final = {"float": "float", "half": "half", "bfloat16": "bfloat16_t"}
#: The dtypes' names, and the suffix of their kernel entry (``mish_grad_float``, ...).
_KERNEL_DTYPES: Final = {"float32": "float", "float16": "half", "bfloat16": "bfloat16"}
#: Beside each library: its size and SHA-256, and the hash of the sources it was built from.
_MANIFEST: Final = "manifest.json"
#: The prefix of a build's work folder; one left behind by a killed build is removed.
_WORK_PREFIX: Final = "build-"


class TwinBuildError(RuntimeError):
    """The twin could not be built (no compiler, or the sources do not compile)."""


def _sources_root(root: Path) -> Path:
    if not (root / "twin").is_dir():
        raise TwinBuildError(
            f"kernel sources not found at {root}: install mishgrad from a clone of the "
            "repository (`make lab` does this)"
        )
    return root


def _compiler_command() -> list[str]:
    """``$CXX`` as a command (it may carry arguments: ``ccache g++``), default ``g++``."""
    return shlex.split(os.environ.get("CXX") or "g++")


def _compiler() -> list[str] | None:
    """The compiler command, or None if its program is not on PATH."""
    command = _compiler_command()
    return command if command and shutil.which(command[0]) else None


def _no_compiler() -> TwinBuildError:
    shown = " ".join(_compiler_command()) or "''"
    return TwinBuildError(
        f"no C++ compiler '{shown}' on PATH, and no built twin for these sources in the cache: "
        "install g++ (Debian/Ubuntu: `apt install g++`; Fedora: `dnf install gcc-c++`; macOS: "
        "`xcode-select --install`) or set CXX to your compiler"
    )


@dataclass(frozen=True)
class BuildSpec:
    """What to compile into one library: sources (each with its extra flags) and includes.

    ``include_dirs`` are on every unit's path; a unit's own ``-I`` flags only on its own.
    ``libraries`` are system libraries to link (``("quadmath",)`` adds ``-lquadmath``).
    """

    name: str
    units: tuple[tuple[Path, tuple[str, ...]], ...]
    include_dirs: tuple[Path, ...]
    flavour: str
    libraries: tuple[str, ...] = ()

    def flags(self) -> list[str]:
        """Compiler flags shared by every translation unit."""
        includes = [f"-I{path}" for path in self.include_dirs]
        return [*_COMMON_FLAGS, *_FP_FLAGS, *_NULL_FLAGS, *_FLAVOURS[self.flavour], *includes]

    def files(self) -> list[Path]:
        """Every file that can affect the build: the sources and all headers they may include."""
        files = {path for path, _ in self.units}
        unit_dirs = {Path(f[2:]) for _, extra in self.units for f in extra if f.startswith("-I")}
        for folder in {*self.include_dirs, *unit_dirs, *(path.parent for path, _ in self.units)}:
            files.update(p for p in folder.rglob("*") if p.suffix in {".h", ".hpp", ".cpp"})
        return sorted(files)

    def sources_digest(self) -> str:
        """Hash of the flags, the units and the content of every file of :meth:`files`."""
        stats = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in self.files())
        units = [(str(p), f) for p, f in self.units]
        return _sources_digest(repr((self.flags(), units, self.libraries)), stats)

    def folder(self, compiler: Sequence[str]) -> str:
        """The cache folder's name: the sources' hash with the compiler's version."""
        # The command with its version: CXX may carry flags that change the build.
        digest = hashlib.sha256(repr(list(compiler)).encode())
        digest.update(_compiler_version(tuple(compiler)).encode())
        digest.update(self.sources_digest().encode())
        return f"{self.name}-{self.flavour}-{digest.hexdigest()[:20]}"


@cache
def _compiler_version(compiler: tuple[str, ...]) -> str:
    return subprocess.run(
        [*compiler, "--version"], capture_output=True, text=True, check=False
    ).stdout


@cache
def _sources_digest(recipe: str, stats: tuple[tuple[str, int, int], ...]) -> str:
    # Cached on the files' (path, mtime, size): an edit changes the key, and the contents are
    # read again; an unchanged tree costs one stat per file.
    hasher = hashlib.sha256(recipe.encode())
    for path, _, _ in stats:
        hasher.update(path.encode())
        hasher.update(Path(path).read_bytes())
    return hasher.hexdigest()[:20]


def kernel_spec(
    flavour: str | None = None, root: Path | None = None, dtype: str | None = None
) -> BuildSpec:
    """The twin library: the AscendC twin, the launcher, and the kernel once per dtype.

    ``root`` is the ``kernel/`` folder to build from: default the repository's, or a copy
    (a learner's scratch copy, or one in a test). ``dtype`` (``"float32"``, ``"float16"`` or
    ``"bfloat16"``) builds the kernel for that dtype only, a library of its own: what one
    launch needs, and a third of the kernel's compile time after an edit.
    """
    flavour = flavour or os.environ.get("MISHGRAD_TWIN_FLAVOUR", "release")
    if flavour not in _FLAVOURS:
        raise ValueError(f"MISHGRAD_TWIN_FLAVOUR must be one of {sorted(_FLAVOURS)}")
    if dtype is not None and dtype not in _KERNEL_DTYPES:
        raise ValueError(f"dtype must be one of {sorted(_KERNEL_DTYPES)}, got {dtype!r}")
    root = _sources_root(Path(root or KERNEL_DIR))
    # The twin's own sources also see the operator's headers; the kernel, an Ascend-side
    # source, sees exactly what ops-nn gives it, so an include that ops-nn cannot resolve
    # fails here too.
    twin_private = tuple(
        f"-I{root / folder}" for folder in ("op_kernel", "common", "op_host/op_api")
    )
    units = [(path, twin_private) for path in sorted((root / "twin" / "src").glob("*.cpp"))]
    kernel_includes = tuple(opsnn.include_flags("kernel", root))
    for dtype_of_unit, suffix in _KERNEL_DTYPES.items():
        if dtype in (None, dtype_of_unit):
            defines = (f"-DDTYPE_X={_KERNEL_TYPES[suffix]}", f"-Dmish_grad=mish_grad_{suffix}")
            units.append((root / "op_kernel" / "mish_grad.cpp", (*kernel_includes, *defines)))
    name = "mishgrad_twin" if dtype is None else f"mishgrad_twin_{dtype}"
    # twin/include stands in for CANN's headers (kernel_operator.h, acl/, aclnn/)
    return BuildSpec(name, tuple(units), (root / "twin" / "include",), flavour)


def cache_root() -> Path:
    """Where built libraries are kept: ``$MISHGRAD_CACHE``, or ``~/.cache/mishgrad``.

    An empty ``MISHGRAD_CACHE`` counts as unset.

    Raises
    ------
    TwinBuildError
        If ``MISHGRAD_CACHE`` names something that is not a folder.

    """
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mishgrad"
    value = os.environ.get("MISHGRAD_CACHE", "")
    if not value:
        return default
    root = Path(value).expanduser()
    if root.exists() and not root.is_dir():
        raise TwinBuildError(
            f"MISHGRAD_CACHE={value} is not a folder: set it to a folder (made if missing) "
            f"or unset it to use {default}"
        )
    return root


def _make_folder(folder: Path) -> None:
    """Create a cache folder, or say which setting to change if that is impossible."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-")
        probe.close()
    except OSError as error:
        where = (
            f"MISHGRAD_CACHE={os.environ['MISHGRAD_CACHE']}"
            if os.environ.get("MISHGRAD_CACHE")
            else f"the cache folder {folder.parent}"
        )
        raise TwinBuildError(
            f"cannot write the twin's build to {folder} ({error.strerror}): {where} is not "
            "writable; set MISHGRAD_CACHE to a writable folder"
        ) from error


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_manifest(folder: Path, library: Path, sources: str) -> None:
    """Record the library's size and SHA-256 (atomically, before the library is published)."""
    record = {"size": library.stat().st_size, "sha256": _file_digest(library), "sources": sources}
    partial = folder / f".{_MANIFEST}.partial"
    partial.write_text(json.dumps(record))
    os.replace(partial, folder / _MANIFEST)


def _manifest(folder: Path) -> dict[str, object]:
    try:
        return json.loads((folder / _MANIFEST).read_text())
    except (OSError, ValueError):
        return {}


def _verified(library: Path) -> bool:
    """True if ``library`` exists and is the file its manifest recorded (size and SHA-256)."""
    try:
        stat = library.stat()
    except OSError:
        return False
    return _matches_manifest(library, stat.st_mtime_ns, stat.st_size)


@cache
def _matches_manifest(library: Path, mtime_ns: int, size: int) -> bool:
    # Cached on (path, mtime, size): a rewritten library is checked again.
    record = _manifest(library.parent)
    return record.get("size") == size and record.get("sha256") == _file_digest(library)


def _cached_without_compiler(root: Path, spec: BuildSpec) -> Path | None:
    """A verified library of the sources of ``spec``, by any compiler, if the cache has one."""
    sources = spec.sources_digest()
    for folder in sorted(root.glob(f"{spec.name}-{spec.flavour}-*")):
        library = folder / f"lib{spec.name}.so"
        if _manifest(folder).get("sources") == sources and _verified(library):
            return library
    return None


def _remove_leftovers(folder: Path) -> None:
    """Delete the work folders of builds that were killed (the caller holds the lock)."""
    for leftover in folder.glob(f"{_WORK_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _check_written(compiler: list[str], target: Path, what: str) -> None:
    if not target.is_file():
        raise TwinBuildError(
            f"`{' '.join(compiler)}` succeeded on {what} but wrote no {target.suffix} file: is "
            "CXX a C++ compiler? Set it to one (or unset it for g++)"
        )


def build(spec: BuildSpec | None = None) -> Path:
    """Build ``spec`` (default: the kernel twin) unless its cached library exists; return its path.

    A cached library is used only if it is the file recorded when it was built; a corrupt one
    is rebuilt. Without a compiler, a library built from the same sources is used if the cache
    has one.

    Raises
    ------
    TwinBuildError
        If no compiler is found (and none is needed from the cache), the sources do not
        compile (with the compiler's message), ``CXX`` is no compiler, or the cache folder
        cannot be written (naming ``MISHGRAD_CACHE``).

    """
    spec = spec or kernel_spec()
    root = cache_root()
    compiler = _compiler()
    if compiler is None:
        cached = _cached_without_compiler(root, spec)
        if cached is None:
            raise _no_compiler()
        return cached
    folder = root / spec.folder(compiler)
    library = folder / f"lib{spec.name}.so"
    if _verified(library):
        return library
    _make_folder(folder)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; the others wait, then reuse
        if _verified(library):
            return library
        _remove_leftovers(folder)
        cache = ObjectCache(root, compiler, _compiler_version(tuple(compiler)), spec.flags())
        with tempfile.TemporaryDirectory(dir=folder, prefix=_WORK_PREFIX) as workdir:
            try:
                objects = cache.objects(spec.units, Path(workdir))
            except CompileError as error:
                raise TwinBuildError(str(error)) from error
            partial = Path(workdir) / library.name
            libraries = [f"-l{name}" for name in spec.libraries]
            link = [*compiler, *spec.flags(), "-shared", *map(str, objects), *libraries]
            link += ["-o", str(partial)]
            result = subprocess.run(link, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                raise TwinBuildError(f"linking {library.name} failed:\n{result.stderr.strip()}")
            _check_written(compiler, partial, f"linking {library.name}")
            _write_manifest(folder, partial, spec.sources_digest())
            os.replace(partial, library)  # atomic: readers see no library or a whole one
    return library


def build_extra(name: str, sources: Sequence[Path], flavour: str | None = None) -> ctypes.CDLL:
    """Build and load another library against the twin headers (used by the misuse tests)."""
    base = kernel_spec(flavour)
    runtime = tuple(unit for unit in base.units if unit[0].name in RUNTIME_SOURCES)
    spec = BuildSpec(
        name, runtime + tuple((Path(s), ()) for s in sources), base.include_dirs, base.flavour
    )
    return ctypes.CDLL(str(build(spec)))
