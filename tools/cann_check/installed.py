"""Include directories of an installed CANN (``$ASCEND_HOME_PATH``), found as ops-nn finds them.

ops-nn builds against an installed CANN by asking CMake's ``find_path`` for one header per
package under ``$ASCEND_DIR/<arch>-linux/include`` (or ``pkg_inc``) and putting the folder that
holds it on the include path. :data:`PACKAGES` transcribes those look-ups from ops-nn's
``cmake/modules/Find*.cmake`` at commit ``e5c3fa9`` (hicann/ops-nn, the GitHub mirror of
gitcode.com/cann/ops-nn); :func:`installed_dirs` repeats them and builds the same per-target
lists as :func:`check.cann_dirs` does for the open-source trees.

Two packages are not part of an installed CANN: ops-nn downloads opbase at configure time
(``FindOPBASE.cmake`` searches ``OPBASE_SOURCE_PATH``) and its own ``common/`` folder comes from
the ops-nn checkout. Both are read from the same variables the recipe in
kernel/mish_grad/README.md sets: ``OPBASE_SOURCE_PATH`` and ``OPS_NN_DIR``. The AscendC headers
of a kernel come from ``<arch>-linux/asc/include`` (``cmake/ut.cmake`` L739) and CPU debug
mode's stubs from the toolkit's ``tools/tikicpulib/lib/include`` when present.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path


class LayoutError(RuntimeError):
    """A header ops-nn's build looks for is not where it looks."""


@dataclass(frozen=True)
class Package:
    """One ``find_path``: the header it names and the folders it searches (under the prefix)."""

    header: str
    search: tuple[str, ...]
    source: str  # ops-nn's find module and line


PACKAGES = {
    "metadef": Package("register/register.h", ("include",), "Findmetadef.cmake L27-L32"),
    "platform": Package("platform/platform_info.h", ("include",), "Findplatform.cmake L27-L32"),
    "acl": Package("acl/acl.h", ("include",), "Findruntime.cmake L18-L23"),
    "runtime": Package(
        "rt_external.h", ("pkg_inc/runtime",), "Findruntime.cmake L36-L41 (first choice)"
    ),
    "aclnn": Package("aclnn/aclnn_base.h", ("include",), "Findnnopbase.cmake L33-L38"),
    "opdev": Package("opdev/op_errno.h", ("include/aclnn",), "Findnnopbase.cmake L43-L48"),
    "tilingapi": Package("tiling/tiling_api.h", ("include",), "Findtilingapi.cmake L27-L32"),
    "securec": Package("securec.h", ("include",), "Findsecurec.cmake L23"),
}
#: opbase's include folders relative to its ``include`` (FindOPBASE.cmake L43-L51).
OPBASE_DIRS = (
    "", "op_common", "op_common/op_host", "op_common/op_graph", "../pkg_inc",
    "../pkg_inc/op_common", "../pkg_inc/op_common/op_host", "../pkg_inc/op_common/op_graph",
)  # fmt: skip
#: ops-nn's own folders on the op_api path (cmake/variables.cmake L162-L179).
OPS_NN_DIRS = ("", "common/inc", "common/inc/op_api", "common/stub/op_api")
#: ops-nn's own folders on the tiling and infershape paths (cmake/variables.cmake L181-L208,
#: OP_TILING_INCLUDE and OP_PROTO_INCLUDE, less the latter's matmul/conv/vfusion folders).
OPS_NN_TILING_DIRS = ("", "common/inc", "common/inc/op_host")
OPS_NN_INFERSHAPE_DIRS = ("", "common/inc")
#: The tiling API's folders relative to the parent of its include folder (Findtilingapi L47-L55).
TILINGAPI_DIRS = (
    "include", "ascendc", "ascendc/include", "ascendc/include/highlevel_api",
    "ascendc/include/highlevel_api/lib", "ascendc/include/highlevel_api/impl",
    "ascendc/include/highlevel_api/tiling",
)  # fmt: skip


def prefix(home: Path) -> Path:
    """``$ASCEND_DIR/<arch>-linux`` (ops-nn's ``SYSTEM_PREFIX``, CMakeLists.txt L45)."""
    return home / f"{platform.machine()}-linux"


def find(home: Path, name: str) -> Path:
    """The folder that holds ``PACKAGES[name].header``, as ``find_path`` returns it."""
    package = PACKAGES[name]
    for folder in package.search:
        candidate = prefix(home) / folder
        if (candidate / package.header).is_file():
            return candidate.resolve()
    places = ", ".join(str(prefix(home) / f) for f in package.search)
    raise LayoutError(
        f"cann-check: {package.header} ({name}) is not in {places}, where ops-nn's build looks "
        f"for it (ops-nn cmake/modules/{package.source})"
    )


def _source_tree(variable: str, marker: str, what: str) -> Path:
    given = os.environ.get(variable)
    if not given or not (Path(given) / marker).exists():
        raise LayoutError(
            f"cann-check: with an installed CANN, set {variable} to {what} "
            f"(it must contain {marker}); an installed CANN does not ship it"
        )
    return Path(given).resolve()


def _system(root: Path, subdirs: tuple[str, ...]) -> list[str]:
    return [f"-isystem{(root / sub).resolve()}" for sub in subdirs if (root / sub).is_dir()]


def installed_dirs(home: Path, stubs: Path) -> dict[str, list[str]]:
    """CANN's include directories per target for the CANN installed at ``home``.

    ``stubs`` is the project's stand-ins; each is used only where the toolkit's own file is
    missing (the stand-ins' folder comes after the toolkit's).
    """
    found = {name: find(home, name) for name in PACKAGES}
    opbase = _source_tree("OPBASE_SOURCE_PATH", "include/op_common/op_host", "an opbase checkout")
    ops_nn = _source_tree("OPS_NN_DIR", "cmake/func.cmake", "your ops-nn checkout")
    runtime = found["runtime"]
    npuruntime = [found["acl"], runtime, runtime / "runtime", runtime.parent / "profiling"]
    common = [
        found["securec"], found["platform"], found["metadef"], found["metadef"] / "exe_graph",
        *npuruntime, home / "include",
    ]  # fmt: skip
    host = [f"-isystem{folder}" for folder in common if folder.is_dir()]
    host += _system(found["tilingapi"].parent, TILINGAPI_DIRS)
    stub = f"-isystem{stubs / 'host'}"
    opbase_dirs = _system(opbase / "include", OPBASE_DIRS)
    asc = prefix(home) / "asc" / "include"
    if not (asc / "kernel_operator.h").is_file():
        raise LayoutError(
            f"cann-check: kernel_operator.h is not in {asc} (ops-nn cmake/ut.cmake L739)"
        )
    tikicpulib = home / "tools" / "tikicpulib" / "lib" / "include"
    return {
        "kernel": [*_system(tikicpulib, ("",)), f"-isystem{asc}", f"-isystem{stubs / 'kernel'}"],
        "host": [*host, stub],
        "tiling": [*host, *opbase_dirs, *_system(ops_nn, OPS_NN_TILING_DIRS), stub],
        "infershape": [*host, *opbase_dirs, *_system(ops_nn, OPS_NN_INFERSHAPE_DIRS), stub],
        "op_api": [
            *host,
            stub,
            *opbase_dirs,
            f"-isystem{found['aclnn']}",
            f"-isystem{found['opdev']}",
            *_system(ops_nn, OPS_NN_DIRS),
        ],
        "example": [f"-isystem{found['acl']}", f"-isystem{found['aclnn']}"],
    }
