"""Write the kernel's identity header into an operator folder, and print the identity.

Usage, from the repository (no virtual environment needed): ``python3 -m tools.identity
OPERATOR_DIR``; ``make opsnn-check``, ``examples/run.sh`` and the Ascend workflow's copy step
run it, the workflow on the copy in ops-nn. The hash and the header are
:mod:`mishgrad.kernel.identity`'s, which every build of the twin writes too. Exit status 2 with
a usage line for anything but one folder, 1 if the folder is no operator folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mishgrad.kernel import identity


def main(argv: list[str]) -> int:
    """Write ``argv[1]``'s header; print its identity."""
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print("usage: python3 -m tools.identity OPERATOR_DIR", file=sys.stderr)
        return 2
    try:
        print(identity.write_header(Path(argv[1])))
    except OSError as error:
        print(f"tools.identity: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
