"""The package resolver on the command line: where the package is, and how to run with it.

Usage, from the repository (no virtual environment needed): ``python3 -m tools.resolve
ascend|ascend-builtin``, as ``kernel/mish_grad/examples/run.sh`` and the Ascend workflow run it.
It prints ``key=value`` lines: ``vendor`` and ``route`` of the package (``ascend`` only, on the
SoC of ``$ASCEND_HOME_PATH``'s runtime) and ``ascend_custom_opp_path``, the value to run the
program with; on an error, its message on stderr and exit status 1 (2 for a usage error). The
resolving is :mod:`mishgrad.kernel.installed`'s, which the Python backends use too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mishgrad.kernel.installed import PackageError, activation, soc_name


def main(argv: list[str]) -> int:
    """Resolve ``argv[1]`` and print what ``run.sh`` reads."""
    if len(argv) != 2 or argv[1] not in ("ascend", "ascend-builtin"):
        print("usage: python3 -m tools.resolve ascend|ascend-builtin", file=sys.stderr)
        return 2
    runtime = Path(os.environ.get("ASCEND_HOME_PATH", "")) / "lib64" / "libascendcl.so"
    try:
        found = activation(argv[1], soc=soc_name(runtime) if argv[1] == "ascend" else None)
    except PackageError as error:
        print(error, file=sys.stderr)
        return 1
    if found.package is not None:
        print(f"vendor={found.package.vendor}\nroute={found.package.route}")
    print(f"ascend_custom_opp_path={found.custom_opp_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
