"""MISHGRAD_BACKEND=ascend and ascend-builtin on a stand-in CANN install: which operator ran.

The stand-in (:func:`mishgrad.kernel.opsnn.stand_in_install`) is laid out like CANN, with copies of
the twin library, one per role. Each probe runs in a fresh process
(:func:`mishgrad.kernel.opsnn.probe_backend`): the ascend backend loads its libraries with global
scope, which must not leak into this test process.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mishgrad import aclnn
from mishgrad.kernel import opsnn, twin_build


def stand_in_cann(root: Path, *, package: bool, builtin: bool) -> Path:
    """CANN's runtime libraries, with our package and/or the built-in operator library."""
    return opsnn.stand_in_install(root, twin_build.build(), package=package, builtin=builtin)


def test_without_the_package_ascend_stops_and_says_how_to_build_it(tmp_path):
    cann = stand_in_cann(tmp_path, package=False, builtin=True)
    for kind in ("ascend", "auto"):  # auto finds CANN, so it means ascend: no fallback
        outcome = opsnn.probe_backend(cann, kind)
        assert outcome.startswith("stops: MISHGRAD_BACKEND=ascend runs this repository's operator")
        assert str(cann / opsnn.CUSTOM_OPAPI) in outcome
        assert opsnn.BUILD_COMMAND in outcome and opsnn.INSTALL_COMMAND in outcome
        assert "MISHGRAD_BACKEND=ascend-builtin" in outcome


def test_with_the_package_ascend_reports_the_library_that_serves_the_api(tmp_path):
    cann = stand_in_cann(tmp_path, package=True, builtin=True)
    assert (
        opsnn.probe_backend(cann, "ascend") == f"served by $ASCEND_HOME_PATH/{opsnn.CUSTOM_OPAPI}"
    )


def test_the_built_in_operator_is_an_explicit_choice(tmp_path):
    cann = stand_in_cann(tmp_path, package=True, builtin=True)
    served = opsnn.probe_backend(cann, "ascend-builtin")
    assert served == "served by $ASCEND_HOME_PATH/lib64/libopapi_nn.so"


def test_the_built_in_choice_names_what_is_missing(tmp_path):
    cann = stand_in_cann(tmp_path, package=True, builtin=False)
    outcome = opsnn.probe_backend(cann, "ascend-builtin")
    assert outcome.startswith("stops:") and "libopapi_nn.so" in outcome


def test_a_package_installed_with_install_path_is_found(tmp_path, monkeypatch):
    cann = stand_in_cann(tmp_path, package=False, builtin=False)
    vendor = cann / "elsewhere" / opsnn.VENDOR_DIR
    target = vendor / "op_api" / "lib" / "libcust_opapi.so"
    target.parent.mkdir(parents=True)
    shutil.copy(twin_build.build(), target)
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", f"{tmp_path / 'other_nn'}:{vendor}")
    served = opsnn.probe_backend(cann, "ascend", keep=("ASCEND_CUSTOM_OPP_PATH",))
    assert (
        served
        == f"served by $ASCEND_HOME_PATH/elsewhere/{opsnn.VENDOR_DIR}/op_api/lib/libcust_opapi.so"
    )


def test_the_twin_reports_its_own_library():
    backend = aclnn.load_backend("twin")
    assert backend.served_by == str(twin_build.build().resolve())
