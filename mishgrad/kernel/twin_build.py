"""Building the CPU twin: the real kernel sources compiled with g++ into a cached library.

An operator's twin library (:func:`kernel_spec`) links ``kernel/twin`` (our host implementation
of the AscendC API subset, the ACL runtime and the launcher), the operator's twin glue (its
folder's ``twin/``) and its kernel entry (``op_kernel/<name>.cpp``), once per dtype. :func:`build`
links it from objects cached per unit (:mod:`mishgrad.kernel.compile_units`) into a folder
named by its compiler and its objects. Builders take turns (a lock file) and publish with an
atomic rename; a library is used only if it is the file recorded when it was written, and
published only once it loaded in a process of its own, its entry points found. A populated cache
serves a machine without a compiler, by the sources' content alone.

Environment variables: ``CXX``, ``MISHGRAD_CACHE`` (:func:`cache_root`) and
``MISHGRAD_TWIN_FLAVOUR`` (``release`` or ``asan``, which adds AddressSanitizer and
UndefinedBehaviorSanitizer and runs only in a process started with the sanitizer runtime
preloaded; see ``tests/test_sanitizers.py``).
"""

import ctypes
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from . import compile_units, identity, opsnn
from .compile_units import Compiled, TwinBuildError, Unit
from .operators import MISH_GRAD, OperatorSpec
from .source import TWIN_DIR
from .twin_abi import require_sanitizer_runtime

__all__ = ["BuildSpec", "TwinBuildError", "build", "build_extra", "cache_root", "kernel_spec"]

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
#: Its own calls bind to its own code, not to a copy loaded before (the rehearsal's stand-in CANN).
_LINK_FLAGS: Final = ["-Wl,-Bsymbolic"]
#: The twin sources any kernel needs besides its own: virtual cores, and how Exp and Div round.
RUNTIME_SOURCES: Final = ("core.cpp", "numerics.cpp")
#: Beside each library: its size and SHA-256, and what it was built from.
_MANIFEST: Final = "manifest.json"
#: Where builds work (``<cache>/building/build-*``); a folder a killed build left is removed.
_WORK: Final = "building"
_WORK_PREFIX: Final = "build-"
#: Loads a library and looks up its entry points, in a process of its own (:func:`_check_loads`).
_LOAD_CHECK: Final = (
    "import ctypes, sys\n"
    "library = ctypes.CDLL(sys.argv[1])\n"
    "missing = [name for name in sys.argv[2:] if not hasattr(library, name)]\n"
    "sys.exit('missing entry points: ' + ', '.join(missing) if missing else 0)\n"
)


@dataclass(frozen=True)
class BuildSpec:
    """What to compile into one library: sources (each with its extra flags) and includes."""

    name: str
    units: tuple[Unit, ...]  # a unit's own -I flags are on its include path alone
    include_dirs: tuple[Path, ...]  # on every unit's include path
    flavour: str
    libraries: tuple[str, ...] = ()  # system libraries to link: ("quadmath",) adds -lquadmath
    #: The folder the compiler runs in, paths inside it given relative to it, so that every copy
    #: of it builds the same objects (the kernel folder; None: paths as they are).
    base: Path | None = None
    exports: tuple[str, ...] = ()  # entry points the library must have to be published

    def flags(self) -> list[str]:
        """Compiler flags shared by every translation unit."""
        includes = [f"-I{path}" for path in self.include_dirs]
        return [*_COMMON_FLAGS, *_FP_FLAGS, *_NULL_FLAGS, *_FLAVOURS[self.flavour], *includes]

    def recipe(self) -> str:
        """Everything the compiler is told, relative to :attr:`base`, the compiler aside."""
        flags = [compile_units.relative(flag, self.base) for flag in self.flags()]
        units = [compile_units.unit_arguments(unit, self.base) for unit in self.units]
        return repr((flags, units, self.libraries, _LINK_FLAGS))


def kernel_spec(
    flavour: str | None = None,
    root: Path | None = None,
    dtype: str | None = None,
    operator: OperatorSpec = MISH_GRAD,
) -> BuildSpec:
    """The twin library of ``operator``: the twin, its glue, and its kernel once per dtype.

    ``root`` is the folder to build from: default the operator's, or a copy (a learner's, or a
    test's). ``dtype`` (one of the operator's) builds that dtype's kernel only, a library of its
    own: what one launch needs, and a third of the kernel's compile time after an edit.

    Raises
    ------
    ValueError
        For an unknown flavour or a dtype the operator does not support.
    TwinBuildError
        If the sources are not there (mishgrad installed from elsewhere than a clone).
    OSError
        If a stamped operator's identity header cannot be written into ``root``.
    """
    flavour = flavour or os.environ.get("MISHGRAD_TWIN_FLAVOUR", "release")
    if flavour not in _FLAVOURS:
        raise ValueError(f"MISHGRAD_TWIN_FLAVOUR must be one of {sorted(_FLAVOURS)}")
    dtypes = operator.dtypes if dtype is None else (dtype,)
    entries = tuple(operator.entry(each) for each in dtypes)  # checks the dtype
    root = Path(root or operator.directory)
    if not TWIN_DIR.is_dir() or not (root / "op_kernel").is_dir():
        raise TwinBuildError(
            f"kernel sources not found at {root} and {TWIN_DIR}: install mishgrad from a clone "
            "of the repository (`make lab` does this)"
        )
    if operator.stamped:
        identity.write_header(root)  # the stamp names its build
    # The glue also sees the operator's headers; the twin sees none; the kernel, an
    # Ascend-side source, sees exactly what ops-nn gives it, so an include that ops-nn cannot
    # resolve fails here too.
    glue = tuple(f"-I{root / folder}" for folder in operator.glue_includes)
    units = [(path, ()) for path in sorted((TWIN_DIR / "src").glob("*.cpp"))]
    units += [(path, glue) for path in sorted((root / "twin").glob("*.cpp"))]
    kernel_includes = tuple(opsnn.include_flags("kernel", root))
    entry_source = root / "op_kernel" / f"{operator.name}.cpp"
    units += [(entry_source, (*kernel_includes, *operator.defines(each))) for each in dtypes]
    name = operator.library_name if dtype is None else f"{operator.library_name}_{dtype}"
    # twin/include stands in for CANN's headers (kernel_operator.h, acl/, aclnn/)
    include = (TWIN_DIR / "include",)
    return BuildSpec(name, tuple(units), include, flavour, base=root, exports=entries)


def cache_root() -> Path:
    """Where built libraries are kept: ``$MISHGRAD_CACHE`` if not empty, or ``~/.cache/mishgrad``.

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
        setting = os.environ.get("MISHGRAD_CACHE")
        where = f"MISHGRAD_CACHE={setting}" if setting else f"the cache folder {folder.parent}"
        raise TwinBuildError(
            f"cannot write the twin's build to {folder} ({error.strerror}): {where} is not "
            "writable; set MISHGRAD_CACHE to a writable folder"
        ) from error


def _library(root: Path, spec: BuildSpec, compiler: list[str], objects: Sequence[Compiled]) -> Path:
    """Where the library of ``spec`` linked from ``objects`` lives, named by their cache paths."""
    names = [str(entry.obj.relative_to(root)) for entry in objects]
    version = compile_units.compiler_version(tuple(compiler))
    name = compile_units.digest(repr(compiler), version, spec.recipe(), *names)
    return root / f"{spec.name}-{spec.flavour}-{name}" / f"lib{spec.name}.so"


def _sources_key(spec: BuildSpec, files: Sequence[str]) -> str | None:
    """What the library is made of, with no compiler in it: the recipe and the files' content."""
    key = compile_units.content_key(files, spec.base)
    return None if key is None else compile_units.digest(spec.recipe(), key)


def _cached_without_compiler(root: Path, spec: BuildSpec) -> Path | None:
    """A verified library of the sources of ``spec``, by any compiler, if the cache has one."""
    for folder in sorted(root.glob(f"{spec.name}-{spec.flavour}-*")):
        library = folder / f"lib{spec.name}.so"
        try:
            record = json.loads((folder / _MANIFEST).read_text())
            files = record["files"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        same = record.get("sources") == _sources_key(spec, files)
        if same and compile_units.verified(library, folder / _MANIFEST):
            return library
    return None


def _check_loads(library: Path, spec: BuildSpec, compiler: list[str]) -> None:
    """Load ``library`` in a process of its own and find its entry points, or say why not.

    A library that cannot load (a C compiler leaves the C++ library unlinked) or lacks a
    kernel must never be published: every later launch would fail, or the process would end.
    """
    check = [sys.executable, "-c", _LOAD_CHECK, str(library), *spec.exports]
    result = subprocess.run(check, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or ["it ended without a message"])[-1]
        raise TwinBuildError(
            f"the freshly linked {library.name} does not load: {why}. Is CXX "
            f"(`{' '.join(compiler)}`) a C++ compiler that links the C++ library, such as "
            "g++ or clang++?"
        )


def _link(spec: BuildSpec, compiler: list[str], objects: Sequence[Path], partial: Path) -> None:
    libraries = [f"-l{name}" for name in spec.libraries]
    link = [*compiler, *spec.flags(), "-shared", *_LINK_FLAGS, *map(str, objects), *libraries]
    result = subprocess.run([*link, "-o", str(partial)], capture_output=True, text=True)
    if result.returncode != 0:
        raise TwinBuildError(f"linking {partial.name} failed:\n{result.stderr.strip()}")
    compile_units.check_written(compiler, partial, f"linking {partial.name}")
    _check_loads(partial, spec, compiler)


def _publish(spec: BuildSpec, compiled: list[Compiled], partial: Path, library: Path) -> None:
    """Record the library's size, SHA-256 and sources beside it, then move it into place."""
    files = sorted({name for entry in compiled for name in entry.files})
    library.parent.mkdir(parents=True, exist_ok=True)
    manifest = library.parent / _MANIFEST
    compile_units.publish_record(partial, manifest, files=files, sources=_sources_key(spec, files))
    os.replace(partial, library)  # atomic: readers see no library or a whole one


def build(spec: BuildSpec | None = None) -> Path:
    """Build ``spec`` (default: the kernel twin) unless its cached library exists; return its path.

    Raises
    ------
    TwinBuildError
        If no compiler is found (and none is needed from the cache), the sources do not
        compile (with the compiler's message), ``CXX`` is no C++ compiler or cannot be read,
        or the cache folder cannot be written (naming ``MISHGRAD_CACHE``), or an asan build
        is asked for in a process that could not load it.
    """
    spec = spec or kernel_spec()
    if spec.flavour == "asan":
        require_sanitizer_runtime(f"the {spec.name} library")
    root = cache_root()
    compiler = compile_units.found_compiler()
    if compiler is None:
        cached = _cached_without_compiler(root, spec)
        if cached is None:
            raise compile_units.missing_compiler(
                ", and no built twin for these sources in the cache"
            )
        return cached
    cache = compile_units.ObjectCache(root, compiler, spec.flags(), spec.base)
    known = [cache.cached(unit) for unit in spec.units]
    if all(known):
        library = _library(root, spec, compiler, known)  # type: ignore[arg-type]
        if compile_units.verified(library, library.parent / _MANIFEST):
            return library
    work = root / _WORK
    _make_folder(work)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; the others wait, then reuse
        for leftover in work.glob(f"{_WORK_PREFIX}*"):  # what killed builds left
            shutil.rmtree(leftover, ignore_errors=True)
        with tempfile.TemporaryDirectory(dir=work, prefix=_WORK_PREFIX) as workdir:
            compiled = cache.objects(spec.units, Path(workdir), spec.name)
            library = _library(root, spec, compiler, compiled)
            if not compile_units.verified(library, library.parent / _MANIFEST):
                partial = Path(workdir) / library.name
                _link(spec, compiler, [entry.obj for entry in compiled], partial)
                _publish(spec, compiled, partial, library)
    return library


def build_extra(name: str, sources: Sequence[Path]) -> ctypes.CDLL:
    """Build and load another library against the twin headers (used by the misuse tests)."""
    base = kernel_spec()
    runtime = tuple(unit for unit in base.units if unit[0].name in RUNTIME_SOURCES)
    units = runtime + tuple((Path(s), ()) for s in sources)
    spec = BuildSpec(name, units, base.include_dirs, base.flavour, base=base.base)
    return ctypes.CDLL(str(build(spec)))
