"""A model of the package's installer on its private route, and a stand-in ``.run`` for it.

ops-nn's ``build.sh --pkg`` packs asc-devkit's ``cmake/asc/fwk_modules/scripts/install.sh`` into
the ``.run`` (its ``func.cmake`` L479-498 copies ``scripts/`` and writes the vendor's name into
it; ops-nn ``cmake/package.cmake`` L12-23 packs the custom package with it). :func:`install`
does what that script does with ``--install-path`` (asc-devkit 82b89a1; the lines are its):

- the install folder, ``vendors/`` and ``vendors/<vendor>/``: created, or made, with every
  file in them, mode 0750 (``apply_chmod`` is ``chmod -R``: L300-323, L351-362, L563-581);
- the libraries checked before anything is copied, unless ``--force`` (L583-588; here with
  ``tools/package_libraries.py``, ``ldd -r`` where the script loads each with ``RTLD_NOW``);
- ``framework``, ``op_proto``, ``op_impl`` and ``op_api`` copied, each made 0750 (L394-462);
- ``uninstall.sh`` copied into ``scripts/``, which is then made 0550 (L525-548), so that its
  owner, unless root, can no longer delete it with ``rm -rf``;
- ``version.info`` copied, 0750 (L508-523);
- ``bin/set_env.bash`` written (L632-650): it prepends the package's folder to
  ``ASCEND_CUSTOM_OPP_PATH`` and its ``op_api/lib/`` to ``LD_LIBRARY_PATH``.

The stand-in ``.run`` (:func:`stand_in_run`) is the package as ``build.sh`` lays it out, its
libraries copies of a twin library; its ``uninstall.sh`` stands in for asc-devkit's, whose
place and mode the model reproduces, not its content.
"""

from __future__ import annotations

import os
import platform
import shutil
from pathlib import Path

from mishgrad.kernel import opsnn
from tools import package_libraries

#: The package's folders the installer copies, in its order (L590-613).
PARTS = ("framework", "op_proto", "op_impl", "op_api")
#: What the installer writes into ``bin/set_env.bash`` for the package folder ``{vendor}``.
SET_ENV = (
    "#!/bin/bash\n"
    "export ASCEND_CUSTOM_OPP_PATH={vendor}:${{ASCEND_CUSTOM_OPP_PATH}}\n"
    "export LD_LIBRARY_PATH={vendor}/op_api/lib/:${{LD_LIBRARY_PATH}}\n"
)


class InstallError(RuntimeError):
    """The installer stops: the message it would log."""


def stand_in_run(folder: Path, library: Path) -> Path:
    """An unpacked ``.run`` of this operator's package whose three libraries copy ``library``."""
    vendor = opsnn.stand_in_package(folder / "packages" / "vendors" / opsnn.VENDOR_DIR, library)
    machine = platform.machine()
    for name, where in package_libraries.LIBRARIES.items():
        target = vendor / where / (machine if where.endswith("linux") else "") / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(library, target)
    (vendor / "version.info").write_text("Version=stand-in\n")
    (folder / "uninstall.sh").write_text("#!/bin/bash\n# stands in for asc-devkit's uninstall.sh\n")
    return folder


def _chmod_tree(path: Path, mode: int) -> None:
    """``chmod -R``: ``path`` and everything below it."""
    for item in [path, *path.rglob("*")]:
        item.chmod(mode)


def _folder(path: Path, mode: int) -> Path:
    """``create_dir`` when missing, else ``apply_chmod``: either way ``chmod -R mode``."""
    path.mkdir(parents=True, exist_ok=True)
    _chmod_tree(path, mode)
    return path


def install(run: Path, install_path: Path, *, force: bool = False) -> Path:
    """Install the unpacked ``.run`` at ``run`` with ``--install-path``; return the package folder.

    Raises
    ------
    InstallError
        For a relative ``install_path`` (L352-355), or a library that does not resolve (L583-588).

    """
    if not install_path.is_absolute():
        raise InstallError("[ERROR] use absolute path for --install-path argument")
    (source,) = (run / "packages" / "vendors").iterdir()
    if not install_path.is_dir():
        _folder(install_path, 0o750)
    _folder(install_path / "vendors", 0o750)
    vendor = _folder(install_path / "vendors" / source.name, 0o750)
    if not force and os.environ.get("ASCEND_HOME_PATH"):
        for where, found in package_libraries.check(source).items():
            if found:
                raise InstallError(f"[ERROR] Failed to load {where}: {found[0]}")
    for part in (p for p in PARTS if (source / p).is_dir()):
        shutil.copytree(source / part, vendor / part, dirs_exist_ok=True)
        _chmod_tree(vendor / part, 0o750)
    scripts = _folder(vendor / "scripts", 0o750)
    shutil.copy(run / "uninstall.sh", scripts)
    _chmod_tree(scripts, 0o550)
    shutil.copy(source / "version.info", vendor)
    (vendor / "version.info").chmod(0o750)
    (_folder(vendor / "bin", 0o750) / "set_env.bash").write_text(SET_ENV.format(vendor=vendor))
    return vendor
