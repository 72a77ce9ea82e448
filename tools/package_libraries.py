"""The three libraries of an installed custom package, checked as its installer checks them.

The package's installer is the ``install.sh`` the ``.run`` carries: asc-devkit's
``cmake/asc/fwk_modules/scripts/install.sh`` (cann/asc-devkit 82b89a1). Before it installs
anything it loads each library of the package with ``RTLD_NOW`` and stops at the first that
does not load (L139-178, L229-263, L583-588), when ``ASCEND_HOME_PATH`` is set; without it, it
checks only their machine type and glibc version (L265-287). :func:`check` runs ``ldd -r`` on
each instead, with the installer's ``LD_LIBRARY_PATH`` (the library's folder, the package's
``op_api/lib``, then the caller's: L139-146, L159), so every undefined symbol and missing
dependency is named, not only the first. The libraries and where the installer looks for
them (L12-15, L63-124): :data:`LIBRARIES`.

Usage: ``python3 tools/package_libraries.py VENDOR_DIR`` (an installed package's
``vendors/mishgrad_nn``, or a ``.run``'s ``packages/vendors/mishgrad_nn``); on an Ascend host
with CANN's ``set_env.sh`` sourced, which puts CANN's libraries on ``LD_LIBRARY_PATH``. Exit
status 1 if a library has a problem, 2 on a wrong argument.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

#: Each library and the folder of the package it is looked for in: the first two in a
#: ``<machine>/`` folder below it, the aclnn library right there (install.sh L63-104).
LIBRARIES: Final = {
    "libcust_opmaster_rt2.0.so": "op_impl/ai_core/tbe/op_tiling/lib/linux",
    "libcust_opsproto_rt2.0.so": "op_proto/lib/linux",
    "libcust_opapi.so": "op_api/lib",
}
#: The one library a package must have (install.sh L244-248): the tiling's.
REQUIRED: Final = "libcust_opmaster_rt2.0.so"
#: The ``<machine>/`` folder names the installer accepts (its ``map_arch``, L106-124).
MACHINES: Final = frozenset(
    {"x86_64", "X86_64", "amd64", "AMD64", "aarch64", "AArch64", "arm64", "ARM64"}
)
UNDEFINED: Final = re.compile(r"^undefined symbol: (\S+)", re.MULTILINE)
MISSING: Final = re.compile(r"^\s*(\S+) => not found", re.MULTILINE)


def libraries(vendor: Path) -> dict[str, list[Path]]:
    """The files of each of :data:`LIBRARIES` in the package folder ``vendor``."""
    found = {}
    for name, folder in LIBRARIES.items():
        if name == "libcust_opapi.so":
            candidates = [vendor / folder / name]
        else:
            machines = sorted(p for p in (vendor / folder).glob("*") if p.name in MACHINES)
            candidates = [next(iter(sorted(m.rglob(name))), m / name) for m in machines]
        found[name] = [path for path in candidates if path.is_file()]
    return found


def problems(library: Path, vendor: Path, environment: Mapping[str, str] = os.environ) -> list[str]:
    """What ``ldd -r`` finds unresolved in ``library`` with the installer's library path."""
    search = (
        f"{library.parent}:{vendor / 'op_api' / 'lib'}:{environment.get('LD_LIBRARY_PATH', '')}"
    )
    result = subprocess.run(
        ["ldd", "-r", str(library)],
        env={**environment, "LD_LIBRARY_PATH": search},
        capture_output=True,
        text=True,
        check=False,
    )
    output = result.stdout + result.stderr
    found = [f"undefined symbol {symbol}" for symbol in UNDEFINED.findall(output)]
    found += [f"{dependency} not found" for dependency in MISSING.findall(output)]
    if result.returncode != 0 and not found:
        found.append(output.strip() or f"ldd -r exited with status {result.returncode}")
    return found


def check(vendor: Path, environment: Mapping[str, str] = os.environ) -> dict[str, list[str]]:
    """Each library of the package (its path in ``vendor``) and its problems; [] if it resolves."""
    report = {}
    for name, paths in libraries(vendor).items():
        if not paths and name == REQUIRED:
            report[name] = ["not in the package, which the installer requires"]
        for path in paths:
            report[str(path.relative_to(vendor))] = problems(path, vendor, environment)
    return report


def main(argv: list[str]) -> int:
    """Check the package folder ``argv[1]``; print one line per library and a verdict."""
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print("usage: python3 tools/package_libraries.py VENDOR_DIR (a folder)", file=sys.stderr)
        return 2
    report = check(Path(argv[1]))
    for where, found in report.items():
        print(f"{'FAIL' if found else 'ok  '}  {where}", *(f"      {p}" for p in found), sep="\n")
    failed = sum(1 for found in report.values() if found)
    print(f"package_libraries: {len(report) - failed} of {len(report)} libraries resolve")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
