"""Building the CPU twin: the real kernel sources compiled with g++ into a cached library.

The twin library is ``kernel/twin`` (our host implementation of the AscendC API subset)
plus ``kernel/op_kernel/mish_grad.cpp`` compiled once per dtype, linked into one shared
library (:func:`kernel_spec`). :func:`build` builds it on demand into a cache directory whose
name is a hash of every source, header, flag and the compiler's version, so editing a kernel
file and re-running a cell rebuilds it, and an unchanged tree reuses the build. Concurrent
builders serialize on a lock file and publish with an atomic rename, so no process ever loads
a half-written library. :mod:`mishgrad.kernel.twin` loads and runs what this builds.

Environment variables: ``CXX`` (compiler, default ``g++``), ``MISHGRAD_CACHE`` (cache
root, default ``~/.cache/mishgrad``), ``MISHGRAD_TWIN_FLAVOUR`` (``release`` or ``asan``;
the asan flavour adds AddressSanitizer and UndefinedBehaviorSanitizer and must run in a
process started with the sanitizer runtime preloaded; see ``tests/test_sanitizers.py``).
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from . import opsnn
from .source import KERNEL_DIR

_FLAVOURS: Final = {
    "release": ["-O2"],
    "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"],
}
_COMMON_FLAGS: Final = ["-std=c++17", "-fPIC", "-pthread", "-Wall", "-Wextra", "-Werror"]
# Every float operation rounded on its own, as the vector unit does: no fused multiply-add.
_FP_FLAGS: Final = ["-ffp-contract=off", "-fno-fast-math"]
#: The twin sources any kernel needs besides its own: virtual cores, and how Exp and Div round.
RUNTIME_SOURCES: Final = ("core.cpp", "numerics.cpp")
_KERNEL_TYPES: Final = {"float": "float", "half": "half", "bfloat16": "bfloat16_t"}


class TwinBuildError(RuntimeError):
    """The twin could not be built (no compiler, or the sources do not compile)."""


def _sources_root(root: Path) -> Path:
    if not (root / "twin").is_dir():
        raise TwinBuildError(
            f"kernel sources not found at {root}: install mishgrad from a clone of the "
            "repository (`make lab` does this)"
        )
    return root


def _compiler() -> str:
    compiler = os.environ.get("CXX", "g++")
    if shutil.which(compiler) is None:
        raise TwinBuildError(
            f"no C++ compiler '{compiler}' on PATH: install g++ (Debian/Ubuntu: "
            "`apt install g++`; Fedora: `dnf install gcc-c++`; macOS: `xcode-select --install`) "
            "or set CXX to your compiler"
        )
    return compiler


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
        return [*_COMMON_FLAGS, *_FP_FLAGS, *_FLAVOURS[self.flavour], *includes]

    def files(self) -> list[Path]:
        """Every file that can affect the build: the sources and all headers they may include."""
        files = {path for path, _ in self.units}
        unit_dirs = {Path(f[2:]) for _, extra in self.units for f in extra if f.startswith("-I")}
        for folder in {*self.include_dirs, *unit_dirs, *(path.parent for path, _ in self.units)}:
            files.update(p for p in folder.rglob("*") if p.suffix in {".h", ".hpp", ".cpp"})
        return sorted(files)

    def digest(self, compiler: str) -> str:
        """Hash of compiler version, flags and the content of every file of :meth:`files`."""
        stats = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in self.files())
        units = [(str(p), f) for p, f in self.units]
        return _digest(compiler, repr((self.flags(), units, self.libraries)), stats)


@cache
def _compiler_version(compiler: str) -> str:
    return subprocess.run(
        [compiler, "--version"], capture_output=True, text=True, check=False
    ).stdout


@cache
def _digest(compiler: str, recipe: str, stats: tuple[tuple[str, int, int], ...]) -> str:
    # Cached on the files' (path, mtime, size): an edit changes the key, and the contents are
    # read again; an unchanged tree costs one stat per file.
    hasher = hashlib.sha256(_compiler_version(compiler).encode())
    hasher.update(recipe.encode())
    for path, _, _ in stats:
        hasher.update(path.encode())
        hasher.update(Path(path).read_bytes())
    return hasher.hexdigest()[:20]


def kernel_spec(flavour: str | None = None, root: Path | None = None) -> BuildSpec:
    """The twin library: the AscendC twin, the launcher, and the kernel once per dtype.

    ``root`` is the ``kernel/`` folder to build from: default the repository's, or a copy
    (a learner's scratch copy, or one in a test).
    """
    flavour = flavour or os.environ.get("MISHGRAD_TWIN_FLAVOUR", "release")
    if flavour not in _FLAVOURS:
        raise ValueError(f"MISHGRAD_TWIN_FLAVOUR must be one of {sorted(_FLAVOURS)}")
    root = _sources_root(Path(root or KERNEL_DIR))
    # The twin's own sources also see the operator's headers; the kernel, an Ascend-side
    # source, sees exactly what ops-nn gives it, so an include that ops-nn cannot resolve
    # fails here too.
    twin_private = tuple(
        f"-I{root / folder}" for folder in ("op_kernel", "common", "op_host/op_api")
    )
    units = [(path, twin_private) for path in sorted((root / "twin" / "src").glob("*.cpp"))]
    kernel_includes = tuple(opsnn.include_flags("kernel", root))
    units += [
        (
            root / "op_kernel" / "mish_grad.cpp",
            (*kernel_includes, f"-DDTYPE_X={ctype}", f"-Dmish_grad=mish_grad_{suffix}"),
        )
        for suffix, ctype in _KERNEL_TYPES.items()
    ]
    # twin/include stands in for CANN's headers (kernel_operator.h, acl/, aclnn/)
    return BuildSpec("mishgrad_twin", tuple(units), (root / "twin" / "include",), flavour)


def cache_root() -> Path:
    """Where built libraries are kept (``$MISHGRAD_CACHE`` or ``~/.cache/mishgrad``)."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mishgrad"
    return Path(os.environ.get("MISHGRAD_CACHE", default))


def _compile(compiler: str, spec: BuildSpec, workdir: Path) -> list[Path]:
    def one(index_unit: tuple[int, tuple[Path, tuple[str, ...]]]) -> Path:
        index, (source, extra) = index_unit
        target = workdir / f"{index:02d}_{source.stem}.o"
        command = [compiler, *spec.flags(), *extra, "-c", str(source), "-o", str(target)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise TwinBuildError(f"compiling {source.name} failed:\n{result.stderr.strip()}")
        return target

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(one, enumerate(spec.units)))


def build(spec: BuildSpec | None = None) -> Path:
    """Build ``spec`` (default: the kernel twin) unless its cached library exists; return its path.

    Raises
    ------
    TwinBuildError
        If no compiler is found or the sources do not compile (with the compiler's message).

    """
    spec = spec or kernel_spec()
    compiler = _compiler()
    folder = cache_root() / f"{spec.name}-{spec.flavour}-{spec.digest(compiler)}"
    library = folder / f"lib{spec.name}.so"
    if library.exists():
        return library
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; the others wait, then reuse
        if library.exists():
            return library
        with tempfile.TemporaryDirectory(dir=folder) as workdir:
            objects = _compile(compiler, spec, Path(workdir))
            partial = Path(workdir) / library.name
            libraries = [f"-l{name}" for name in spec.libraries]
            link = [compiler, *spec.flags(), "-shared", *map(str, objects), *libraries]
            link += ["-o", str(partial)]
            result = subprocess.run(link, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                raise TwinBuildError(f"linking {library.name} failed:\n{result.stderr.strip()}")
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
