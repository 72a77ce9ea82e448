"""``make cann-check`` against an installed CANN: the include folders ops-nn's build would use.

An installed CANN is not available here, so these tests build the skeleton of one (empty
headers where ops-nn's find modules look) and check what the look-ups find and what they say
when something is missing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools" / "cann_check"
sys.path.insert(0, str(TOOLS))
import installed  # noqa: E402


def make_install(home: Path) -> None:
    """Touch every header ops-nn looks for, where it looks first."""
    prefix = installed.prefix(home)
    for package in installed.PACKAGES.values():
        header = prefix / package.search[0] / package.header
        header.parent.mkdir(parents=True, exist_ok=True)
        header.touch()
    (prefix / "asc" / "include").mkdir(parents=True)
    (prefix / "asc" / "include" / "kernel_operator.h").touch()


@pytest.fixture
def install(tmp_path, monkeypatch):
    home = tmp_path / "cann"
    make_install(home)
    (tmp_path / "opbase" / "include" / "op_common" / "op_host").mkdir(parents=True)
    (tmp_path / "ops-nn" / "cmake").mkdir(parents=True)
    (tmp_path / "ops-nn" / "cmake" / "func.cmake").touch()
    (tmp_path / "ops-nn" / "common" / "inc").mkdir(parents=True)
    monkeypatch.setenv("OPBASE_SOURCE_PATH", str(tmp_path / "opbase"))
    monkeypatch.setenv("OPS_NN_DIR", str(tmp_path / "ops-nn"))
    return home


def test_each_target_gets_the_folders_ops_nn_finds(install, tmp_path):
    dirs = installed.installed_dirs(install, TOOLS / "stubs")
    prefix = installed.prefix(install).resolve()
    assert f"-isystem{prefix / 'include'}" in dirs["host"]
    assert f"-isystem{prefix / 'pkg_inc' / 'runtime'}" in dirs["host"]
    assert f"-isystem{prefix / 'include' / 'aclnn'}" in dirs["op_api"]
    assert f"-isystem{(tmp_path / 'opbase' / 'include' / 'op_common').resolve()}" in dirs["op_api"]
    assert f"-isystem{(tmp_path / 'ops-nn' / 'common' / 'inc').resolve()}" in dirs["op_api"]
    assert dirs["kernel"][0] == f"-isystem{prefix / 'asc' / 'include'}"
    # The stand-ins come after CANN's own folders, so the toolkit's files win where present.
    assert dirs["kernel"][-1] == f"-isystem{TOOLS / 'stubs' / 'kernel'}"
    assert dirs["host"][-1] == f"-isystem{TOOLS / 'stubs' / 'host'}"


def test_tiling_and_infershape_get_opbase_for_the_op_log(install, tmp_path):
    # log/log.h (OP_LOGE) is in opbase's include/op_common, on ops-nn's tiling and infershape
    # paths (OP_TILING_INCLUDE, OP_PROTO_INCLUDE); op_def gets neither opbase nor ops-nn.
    (tmp_path / "ops-nn" / "common" / "inc" / "op_host").mkdir()
    dirs = installed.installed_dirs(install, TOOLS / "stubs")
    op_common = f"-isystem{(tmp_path / 'opbase' / 'include' / 'op_common').resolve()}"
    op_host = f"-isystem{(tmp_path / 'ops-nn' / 'common' / 'inc' / 'op_host').resolve()}"
    assert op_common in dirs["tiling"] and op_common in dirs["infershape"]
    assert op_host in dirs["tiling"] and op_host not in dirs["infershape"]
    assert op_common not in dirs["host"]
    stub = f"-isystem{TOOLS / 'stubs' / 'host'}"
    assert dirs["tiling"][-1] == dirs["infershape"][-1] == stub


def test_a_missing_header_names_itself_and_ops_nn_s_look_up(install):
    header = installed.prefix(install) / "include" / "register" / "register.h"
    header.unlink()
    with pytest.raises(
        installed.LayoutError, match=r"register/register\.h \(metadef\).*Findmetadef"
    ):
        installed.installed_dirs(install, TOOLS / "stubs")


def test_opbase_must_be_given(install, monkeypatch):
    monkeypatch.delenv("OPBASE_SOURCE_PATH")
    with pytest.raises(installed.LayoutError, match="OPBASE_SOURCE_PATH"):
        installed.installed_dirs(install, TOOLS / "stubs")


def test_the_check_stops_with_the_reason(install, monkeypatch):
    import subprocess

    (installed.prefix(install) / "asc" / "include" / "kernel_operator.h").unlink()
    monkeypatch.delenv("CANN_HEADERS", raising=False)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(install))
    result = subprocess.run(
        [sys.executable, str(TOOLS / "check.py")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "kernel_operator.h" in result.stderr and "ut.cmake" in result.stderr
