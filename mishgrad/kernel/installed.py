"""Where this repository's operator package is installed on a CANN host, and who gets its kernel.

One resolver for :mod:`mishgrad.aclnn` (``MISHGRAD_BACKEND=ascend`` and ``ascend-builtin``),
``kernel/mish_grad/examples/run.sh`` and the Ascend workflow (the last two through ``python3 -m
tools.resolve``: standard library only, so it runs before the virtual environment exists). The
package is installed into a folder of its own (:func:`private_opp`) and activated per process
(:func:`activation`): nnopbase builds one kernel table per process, and a package in CANN's
``opp/vendors`` would replace ``MishGrad`` for every program on the host.

The routes of the installer, asc-devkit's ``cmake/asc/fwk_modules/scripts/install.sh`` (82b89a1,
L351-380 and L632-673), in the order :func:`find_package` tries them: ``private``,
``--install-path=DIR`` (``DIR/vendors/mishgrad_nn``, found at :func:`private_opp` or as an entry
of ``$ASCEND_CUSTOM_OPP_PATH``); ``custom``, with ``$ASCEND_CUSTOM_OPP_PATH`` set (its
``vendors/mishgrad_nn``, listed in a ``config.ini`` nnopbase does not read); ``shared``, neither
(``$ASCEND_OPP_PATH/vendors/mishgrad_nn``, listed in CANN's ``config.ini``: every process).
"""

import ctypes
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from . import opsnn

#: The folder the book installs the package into (``--install-path``), unless
#: ``$MISHGRAD_OPP_PATH`` names another: ``build/opp`` of this repository.
DEFAULT_PRIVATE_OPP: Final = Path(__file__).resolve().parents[2] / "build" / "opp"
#: The kernel folder nnopbase reads on each Atlas A2 and A3 ``aclrtGetSocName`` names (opbase
#: aa3cd74, ``op_kernel_lib.cpp`` L101-L130): one of :data:`opsnn.SOCS`.
SOC_FOLDERS: Final = {
    **dict.fromkeys(("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4"), "ascend910b"),
    **dict.fromkeys(("Ascend910B4-1", "Ascend910B2C"), "ascend910b"),
    **dict.fromkeys(("Ascend910_9391", "Ascend910_9381", "Ascend910_9372"), "ascend910_93"),
    **dict.fromkeys(("Ascend910_9392", "Ascend910_9382", "Ascend910_9362"), "ascend910_93"),
}


class PackageError(OSError):
    """The package is missing, or the process cannot get the kernel it asked for."""


@dataclass(frozen=True)
class Package:
    """An installed copy of the package: its vendor folder and the route that put it there."""

    vendor: Path
    route: str

    @property
    def opapi(self) -> Path:
        """The aclnn library, ``libcust_opapi.so``."""
        return self.vendor / "op_api" / "lib" / "libcust_opapi.so"


def private_opp(env: Mapping[str, str] = os.environ) -> Path:
    """The ``--install-path`` folder: ``$MISHGRAD_OPP_PATH``, else :data:`DEFAULT_PRIVATE_OPP`."""
    return Path(env.get("MISHGRAD_OPP_PATH") or DEFAULT_PRIVATE_OPP)


def opp_path(env: Mapping[str, str] = os.environ) -> Path | None:
    """CANN's ``opp``: ``$ASCEND_OPP_PATH``, else ``$ASCEND_HOME_PATH/opp``; None without either."""
    if env.get("ASCEND_OPP_PATH"):
        return Path(env["ASCEND_OPP_PATH"])
    return Path(env["ASCEND_HOME_PATH"]) / "opp" if env.get("ASCEND_HOME_PATH") else None


def custom_paths(env: Mapping[str, str] = os.environ) -> list[Path]:
    """The entries of ``$ASCEND_CUSTOM_OPP_PATH``, in order."""
    return [Path(p) for p in env.get("ASCEND_CUSTOM_OPP_PATH", "").split(":") if p]


def candidates(env: Mapping[str, str] = os.environ) -> list[Package]:
    """Every place an install route may have put the package, in the order they are tried."""
    found = [Package(private_opp(env) / "vendors" / opsnn.VENDOR_DIR, "private")]
    for entry in custom_paths(env):
        if entry.name == opsnn.VENDOR_DIR:  # added by the package's bin/set_env.bash
            found.append(Package(entry, "private"))
        else:
            found.append(Package(entry / "vendors" / opsnn.VENDOR_DIR, "custom"))
    opp = opp_path(env)
    return found + ([Package(opp / "vendors" / opsnn.VENDOR_DIR, "shared")] if opp else [])


def install_command(env: Mapping[str, str] = os.environ) -> str:
    """The command that installs a freshly built package privately (run in the ops-nn checkout)."""
    return f"{opsnn.INSTALL_COMMAND} --install-path={private_opp(env)}"


def find_package(env: Mapping[str, str] = os.environ) -> Package:
    """The first installed copy of the package among :func:`candidates`.

    Raises
    ------
    PackageError
        Naming every place looked in, and how to build and install the package.
    """
    places = candidates(env)
    for package in places:
        if package.opapi.is_file():
            return package
    looked = "\n".join(f"  {p.opapi} ({p.route})" for p in places)
    raise PackageError(
        "MISHGRAD_BACKEND=ascend runs this repository's operator, but its package is not "
        f"installed; looked for:\n{looked}\nBuild it in an ops-nn checkout "
        f"(kernel/mish_grad/README.md): copy kernel/mish_grad (all but its twin/) to "
        f"{opsnn.OPS_NN_OP_DIR}, then `{opsnn.BUILD_COMMAND} && "
        f"{install_command(env)}`. To run CANN's built-in operator instead, choose it "
        "explicitly: MISHGRAD_BACKEND=ascend-builtin"
    )


def built_for(vendor: Path) -> list[str]:
    """The SoC folders of ``vendor`` whose kernel configs have an entry for MishGrad.

    nnopbase merges every ``*.json`` of ``op_impl/ai_core/tbe/config/<soc>/`` of the SoC it
    runs on into its table by op type (op_kernel_lib.cpp L291-351, L353-384), so such an
    entry replaces CANN's kernel on that SoC; on another, the tiling, registered by op type
    alone, is still this operator's.
    """
    socs = []
    for config in sorted((vendor / "op_impl" / "ai_core" / "tbe" / "config").glob("*/*.json")):
        try:
            entries = json.loads(config.read_text())
        except (OSError, ValueError):
            continue  # nnopbase would fail on it too; it replaces nothing here
        if isinstance(entries, dict) and opsnn.OP_TYPE in entries:
            socs.append(config.parent.name)
    return list(dict.fromkeys(socs))


def listed_vendors(env: Mapping[str, str] = os.environ) -> list[Path]:
    """The vendor folders of CANN's ``opp/vendors/config.ini`` (``load_priority``), in order."""
    opp = opp_path(env)
    try:
        lines = (opp / "vendors" / "config.ini").read_text().splitlines() if opp else []
    except OSError:
        return []
    for line in lines:  # nnopbase reads the first line that mentions "priority" (L218-254)
        if not line.startswith("#") and "priority" in line and "=" in line:
            names = line.split("=", 1)[1].strip().split(",")
            return [opp / "vendors" / name.strip() for name in names if name.strip()]
    return []


def kernel_overrides(env: Mapping[str, str] = os.environ) -> list[Path]:
    """The folders whose MishGrad kernel a process with ``env`` gets instead of CANN's own."""
    folders = [*custom_paths(env), *listed_vendors(env)]
    return [folder for folder in dict.fromkeys(folders) if built_for(folder)]


def _without_package(env: Mapping[str, str]) -> list[str]:
    return [str(p) for p in custom_paths(env) if p.name != opsnn.VENDOR_DIR]


@dataclass(frozen=True)
class Activation:
    """What a process runs with to get the kernel it asked for, found before CANN is loaded."""

    package: Package | None  # this repository's package (``ascend``), or None
    custom_opp_path: str  # the process's ASCEND_CUSTOM_OPP_PATH; empty: unset it


def soc_name(runtime: Path, mode: int = ctypes.RTLD_GLOBAL) -> str:
    """The SoC CANN's runtime library ``runtime`` names: ``aclrtGetSocName``, before ``aclInit``.

    ``mode``: how ``dlopen`` loads it, global as a backend loads CANN's libraries.

    Raises
    ------
    PackageError
        If the library cannot be loaded or names no SoC (no NPU driver).
    """
    try:
        function = ctypes.CDLL(str(runtime), mode=mode).aclrtGetSocName
    except (OSError, AttributeError) as error:
        raise PackageError(f"cannot ask CANN's runtime which SoC this is: {error}") from error
    function.restype, function.argtypes = ctypes.c_char_p, []
    name = function()
    if not name:
        raise PackageError(f"{runtime}: aclrtGetSocName names no SoC (no NPU driver?)")
    return name.decode()


def _require_soc(package: Package, soc: str) -> None:
    socs = built_for(package.vendor)
    if SOC_FOLDERS.get(soc) not in socs:
        raise PackageError(
            f"MISHGRAD_BACKEND=ascend: this NPU is {soc}, but the package at {package.vendor} "
            f"has MishGrad kernels for {', '.join(socs) or 'no SoC'} only, so CANN would run "
            "its own kernel with this repository's tiling: "
            + (
                f"rebuild it with `{opsnn.BUILD_COMMAND}` and install it again"
                if soc in SOC_FOLDERS
                else f"the operator is built for {', '.join(opsnn.SOCS)} only"
            )
        )


def loaded_nnopbase(maps: Path = Path("/proc/self/maps")) -> list[str]:
    """The nnopbase libraries this process has mapped already (torch_npu maps one on import)."""
    paths = {line.split(maxsplit=5)[-1] for line in maps.read_text().splitlines() if line.strip()}
    return sorted(path for path in paths if Path(path).name.startswith("libnnopbase.so"))


def require_unread(found: Activation, loaded: list[str]) -> None:
    """Raise :class:`PackageError` where nnopbase, ``loaded`` already, may have read another value.

    It reads ``ASCEND_CUSTOM_OPP_PATH`` once, at the first operator (opbase aa3cd74,
    ``kernel_mgr.cpp`` L383-L390 and L456-L471, ``op_kernel_lib.cpp`` L353-L384).
    """
    value = found.custom_opp_path
    if loaded and os.environ.get("ASCEND_CUSTOM_OPP_PATH", "") != value:
        raise PackageError(
            f"MISHGRAD_BACKEND={'ascend' if found.package else 'ascend-builtin'}: nnopbase is "
            f"loaded in this process already ({', '.join(loaded)}: torch_npu, for one, loads "
            "it), and it reads ASCEND_CUSTOM_OPP_PATH once, when the first operator runs, so the "
            f"kernel it chose then would stay. Start the process with ASCEND_CUSTOM_OPP_PATH="
            f"'{value}', or choose the backend before anything loads nnopbase"
        )


def activation(
    kind: str, env: Mapping[str, str] = os.environ, *, soc: str | None = None
) -> Activation:
    """The package and ``ASCEND_CUSTOM_OPP_PATH`` that give a process the kernel ``kind`` names.

    ``ascend``: the package's folder first on ``ASCEND_CUSTOM_OPP_PATH``, so nnopbase prefers its
    kernel in this process only, on ``soc`` (:func:`soc_name`). ``ascend-builtin``: the package
    taken off that path.

    Raises
    ------
    PackageError
        ``ascend`` without the package (:func:`find_package`) or on a SoC it has no kernel for;
        ``ascend-builtin`` when a folder nnopbase reads for every process still replaces
        CANN's MishGrad (a shared install).
    ValueError
        For another ``kind``, or ``ascend`` without ``soc``.
    """
    if kind == "ascend":
        if soc is None:
            raise ValueError("activation('ascend') needs the SoC it runs on (soc_name)")
        package = find_package(env)
        _require_soc(package, soc)
        paths = [str(package.vendor), *_without_package(env)]
        return Activation(package, ":".join(dict.fromkeys(paths)))
    if kind != "ascend-builtin":
        raise ValueError(f"kind must be 'ascend' or 'ascend-builtin', not {kind!r}")
    cleaned = {**env, "ASCEND_CUSTOM_OPP_PATH": ":".join(_without_package(env))}
    if overrides := kernel_overrides(cleaned):
        listed = ", ".join(map(str, overrides))
        raise PackageError(
            f"MISHGRAD_BACKEND=ascend-builtin cannot run CANN's own MishGrad kernel: {listed} "
            "replaces it in every process on this host (CANN's vendors/config.ini, or an entry of "
            "ASCEND_CUSTOM_OPP_PATH). Uninstall it (its scripts/uninstall.sh) and install the "
            f"package privately: {install_command(env)}"
        )
    return Activation(None, cleaned["ASCEND_CUSTOM_OPP_PATH"])
