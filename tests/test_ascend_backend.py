"""MISHGRAD_BACKEND=ascend and ascend-builtin on a stand-in CANN install: which operator ran.

The stand-in (:func:`mishgrad.opsnn.stand_in_install`) is laid out like CANN, with copies of
the twin library, one per role.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mishgrad import acl, opsnn, twin


def stand_in_cann(root: Path, *, package: bool, builtin: bool) -> Path:
    """CANN's runtime libraries, with our package and/or the built-in operator library."""
    return opsnn.stand_in_install(root, twin.build(), package=package, builtin=builtin)


@pytest.fixture
def fresh_backends(monkeypatch):
    """No cached backend and no custom-package paths from the environment."""
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    acl._ascend_backend.cache_clear()
    yield monkeypatch
    acl._ascend_backend.cache_clear()


def test_without_the_package_ascend_stops_and_says_how_to_build_it(tmp_path, fresh_backends):
    cann = stand_in_cann(tmp_path, package=False, builtin=True)
    fresh_backends.setenv("ASCEND_HOME_PATH", str(cann))
    for kind in ("ascend", "auto"):  # auto finds CANN, so it means ascend: no fallback
        with pytest.raises(OSError, match="package is not installed") as error:
            acl.load_backend(kind)
        message = str(error.value)
        assert str(cann / opsnn.CUSTOM_OPAPI) in message
        assert opsnn.BUILD_COMMAND in message and opsnn.INSTALL_COMMAND in message
        assert "MISHGRAD_BACKEND=ascend-builtin" in message


def test_with_the_package_ascend_reports_the_library_that_serves_the_api(tmp_path, fresh_backends):
    cann = stand_in_cann(tmp_path, package=True, builtin=True)
    fresh_backends.setenv("ASCEND_HOME_PATH", str(cann))
    backend = acl.load_backend("ascend")
    assert backend.name == "ascend"
    assert backend.served_by == str((cann / opsnn.CUSTOM_OPAPI).resolve())
    assert backend.libraries["runtime"] == str(cann / "lib64" / "libascendcl.so")


def test_the_built_in_operator_is_an_explicit_choice(tmp_path, fresh_backends):
    cann = stand_in_cann(tmp_path, package=True, builtin=True)
    fresh_backends.setenv("ASCEND_HOME_PATH", str(cann))
    backend = acl.load_backend("ascend-builtin")
    assert backend.served_by == str((cann / "lib64" / "libopapi_nn.so").resolve())


def test_the_built_in_choice_names_what_is_missing(tmp_path, fresh_backends):
    cann = stand_in_cann(tmp_path, package=True, builtin=False)
    fresh_backends.setenv("ASCEND_HOME_PATH", str(cann))
    with pytest.raises(OSError, match=r"libopapi_nn\.so"):
        acl.load_backend("ascend-builtin")


def test_a_package_installed_with_install_path_is_found(tmp_path, fresh_backends):
    cann = stand_in_cann(tmp_path, package=False, builtin=False)
    vendor = tmp_path / "elsewhere" / opsnn.VENDOR_DIR
    target = vendor / "op_api" / "lib" / "libcust_opapi.so"
    target.parent.mkdir(parents=True)
    shutil.copy(twin.build(), target)
    fresh_backends.setenv("ASCEND_HOME_PATH", str(cann))
    fresh_backends.setenv("ASCEND_CUSTOM_OPP_PATH", f"{tmp_path / 'other_nn'}:{vendor}")
    assert acl.load_backend("ascend").served_by == str(target.resolve())


def test_the_twin_reports_its_own_library():
    backend = acl.load_backend("twin")
    assert backend.served_by == str(twin.build().resolve())
