"""The package's installer as it is, the check of its three libraries, and the uninstall.

The installer is asc-devkit's ``install.sh``, which the ``.run`` carries; ``installer_model``
does what it does with ``--install-path`` on a stand-in ``.run`` whose libraries are copies of
the twin library. ``tools/package_libraries.py`` checks those libraries as the installer does,
with ``ldd -r``. The uninstall runs as an unprivileged user, because root ignores the mode 0550
that makes a plain ``rm -rf`` fail: as root, through ``setpriv`` as uid 65534 (never skipped).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from installer_model import InstallError, install, stand_in_run

from mishgrad.kernel import installed, opsnn, source, twin_build
from tools import package_libraries, uninstall

VENDOR = f"vendors/{opsnn.VENDOR_DIR}"
UNPRIVILEGED = 65534  # nobody
AS_NOBODY = (
    "setpriv",
    f"--reuid={UNPRIVILEGED}",
    f"--regid={UNPRIVILEGED}",
    "--clear-groups",
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An unpacked stand-in ``.run`` of the package."""
    return stand_in_run(tmp_path_factory.mktemp("run"), twin_build.build())


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_installer_s_modes_and_set_env_bash(run, tmp_path):
    vendor = install(run, tmp_path / "opp")
    assert vendor == tmp_path / "opp" / VENDOR
    assert {mode(p) for p in (tmp_path / "opp", vendor, vendor / "op_api" / "lib")} == {0o750}
    assert mode(vendor / "op_api" / "lib" / "libcust_opapi.so") == 0o750
    assert mode(vendor / "scripts") == mode(vendor / "scripts" / "uninstall.sh") == 0o550
    script = f'source {vendor}/bin/set_env.bash; echo "$ASCEND_CUSTOM_OPP_PATH|$LD_LIBRARY_PATH"'
    shell = subprocess.run(
        ["bash", "-c", script],
        env={"ASCEND_CUSTOM_OPP_PATH": "/other_nn", "LD_LIBRARY_PATH": "/cann/lib64"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert shell.stdout.strip() == f"{vendor}:/other_nn|{vendor}/op_api/lib/:/cann/lib64"
    # what a shell that sourced it gives the resolver: the package, found as a private install
    env = {"ASCEND_CUSTOM_OPP_PATH": f"{vendor}:/other_nn", "MISHGRAD_OPP_PATH": "/none"}
    assert installed.find_package(env) == installed.Package(vendor, "private")
    with pytest.raises(InstallError, match="absolute path"):
        install(run, Path("opp"))


@pytest.fixture
def owned_by_an_unprivileged_user() -> Iterator[tuple[Path, tuple[str, ...]]]:
    """A folder in /tmp owned by uid 65534 when run as root, and the command prefix to run as it.

    A user who is not root runs the commands as themselves: they are unprivileged already.
    """
    folder = Path(tempfile.mkdtemp(prefix="mishgrad-unprivileged-"))
    try:
        yield folder, AS_NOBODY if os.geteuid() == 0 else ()
    finally:
        if os.geteuid() != 0:
            subprocess.run(["chmod", "-R", "u+w", str(folder)], check=False)
        shutil.rmtree(folder)


def test_the_owner_can_uninstall_what_rm_rf_cannot_delete(run, owned_by_an_unprivileged_user):
    folder, prefix = owned_by_an_unprivileged_user
    opp = folder / "opp"
    vendor = install(run, opp)
    if prefix:
        subprocess.run(["chown", "-R", f"{UNPRIVILEGED}:{UNPRIVILEGED}", str(folder)], check=True)
    removed = subprocess.run(
        [*prefix, "rm", "-rf", str(opp)], capture_output=True, text=True, check=False
    )
    assert removed.returncode != 0 and "Permission denied" in removed.stderr
    assert (vendor / "scripts" / "uninstall.sh").exists()
    command = [*prefix, sys.executable, "-m", "tools.uninstall"]
    result = subprocess.run(
        command,
        cwd=source.REPOSITORY,
        env={"PATH": os.environ["PATH"], "MISHGRAD_OPP_PATH": str(opp)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"removed {opp}\n" and not opp.exists()


def test_uninstall_deletes_only_an_install(tmp_path):
    opp = tmp_path / "opp"
    assert uninstall.uninstall({"MISHGRAD_OPP_PATH": str(opp)}) == f"nothing installed at {opp}"
    (opp / "vendors").mkdir(parents=True)
    (opp / "notes.txt").write_text("mine")
    with pytest.raises(installed.PackageError, match=r"holds more than an install \(notes.txt\)"):
        uninstall.uninstall({"MISHGRAD_OPP_PATH": str(opp)})
    assert (opp / "notes.txt").exists()


def planted(folder: Path, code: str, *libraries: str) -> Path:
    """A shared library from ``code`` linked against ``libraries`` (given as ``-l`` flags)."""
    target = folder / "libplanted.so"
    command = ["g++", "-shared", "-fPIC", "-x", "c++", "-", "-o", str(target), f"-L{folder}"]
    subprocess.run([*command, *libraries], input=code, text=True, check=True, capture_output=True)
    return target


def test_the_libraries_check_names_what_does_not_resolve(run, tmp_path):
    vendor = shutil.copytree(run / "packages" / VENDOR, tmp_path / "vendor")
    report = package_libraries.check(vendor)
    assert len(report) == 3 and all(found == [] for found in report.values())
    opapi = vendor / "op_api" / "lib" / "libcust_opapi.so"
    undefined = 'extern "C" void aclnnNotThere(); extern "C" void call() { aclnnNotThere(); }'
    shutil.copy(planted(tmp_path, undefined), opapi)
    assert package_libraries.check(vendor)["op_api/lib/libcust_opapi.so"] == [
        "undefined symbol aclnnNotThere"
    ]
    gone = planted(tmp_path, 'extern "C" void gone() {}')
    gone.rename(tmp_path / "libmishgrad_gone.so")
    needs = planted(tmp_path, 'extern "C" void gone(); void call() { gone(); }', "-lmishgrad_gone")
    shutil.copy(needs, opapi)
    (tmp_path / "libmishgrad_gone.so").unlink()
    assert (
        "libmishgrad_gone.so not found"
        in package_libraries.check(vendor)["op_api/lib/libcust_opapi.so"]
    )
    shutil.rmtree(vendor / "op_impl" / "ai_core" / "tbe" / "op_tiling")
    assert package_libraries.check(vendor)[package_libraries.REQUIRED] == [
        "not in the package, which the installer requires"
    ]


def test_the_installer_stops_at_a_library_that_does_not_resolve(run, tmp_path, monkeypatch):
    broken = shutil.copytree(run, tmp_path / "run")
    opapi = broken / "packages" / VENDOR / "op_api" / "lib" / "libcust_opapi.so"
    shutil.copy(planted(tmp_path, 'extern "C" void no(); void call() { no(); }'), opapi)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))  # CANN sourced: it loads them
    with pytest.raises(InstallError, match=r"op_api/lib/libcust_opapi\.so: undefined symbol no$"):
        install(broken, tmp_path / "opp")
    assert install(broken, tmp_path / "forced", force=True).is_dir()


def test_the_libraries_check_on_the_command_line(run, tmp_path):
    script = [sys.executable, str(source.REPOSITORY / "tools" / "package_libraries.py")]
    ok = subprocess.run([*script, str(run / "packages" / VENDOR)], capture_output=True, text=True)
    assert ok.returncode == 0 and "3 of 3 libraries resolve" in ok.stdout
    usage = subprocess.run([*script, str(tmp_path / "none")], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr
