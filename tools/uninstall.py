"""Delete the package's private install as its owner, root or not.

The private install is the ``--install-path`` folder, ``$MISHGRAD_OPP_PATH``, default
``build/opp`` (:func:`mishgrad.kernel.installed.private_opp`). Its installer, asc-devkit's
``install.sh``, which the ``.run`` carries (cann/asc-devkit 82b89a1,
``cmake/asc/fwk_modules/scripts/install.sh``), leaves the package's ``scripts/`` at mode 0550
(L525-548), and a user who is not root cannot delete a file in a folder without write
permission: ``rm -rf build/opp`` fails for the install's own user (root ignores the mode). So
the owner's write bits are given back first, as the package's own ``uninstall.sh`` does (L28
of ``scripts/uninstall.sh``); that script is no help with a private install, because it then
requires the ``config.ini`` such an install has none of and exits 1 (L36-40).

Usage, from the repository (no virtual environment needed): ``python3 -m tools.uninstall``.
Exit status 1, and nothing deleted, if the folder holds anything but the installer's
``vendors/``.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Mapping

from mishgrad.kernel.installed import PackageError, private_opp


def uninstall(env: Mapping[str, str] = os.environ) -> str:
    """Delete the private install; say what was done.

    Raises
    ------
    mishgrad.kernel.installed.PackageError
        If the folder holds anything but the installer's ``vendors/``: it is kept.

    """
    folder = private_opp(env)
    if not folder.exists():
        return f"nothing installed at {folder}"
    others = sorted(set(os.listdir(folder)) - {"vendors"})
    if others:
        raise PackageError(f"{folder} holds more than an install ({', '.join(others)}): kept")
    folders = [folder, *(p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink())]
    for path in folders:
        path.chmod(path.stat().st_mode | stat.S_IRWXU)
    shutil.rmtree(folder)
    return f"removed {folder}"


def main() -> int:
    """Uninstall; print what was done, or why not (exit status 1)."""
    try:
        print(uninstall())
    except PackageError as error:
        print(f"uninstall: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
