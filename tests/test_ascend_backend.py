"""MISHGRAD_BACKEND=ascend and ascend-builtin on stand-in CANN installs: which operator and kernel.

The stand-in (:func:`mishgrad.kernel.opsnn.stand_in_install`) is laid out like CANN, with copies of
the twin library, one per role; the package is laid out in each place an install route of
ops-nn's installer puts it (:func:`mishgrad.kernel.opsnn.stand_in_package`). Each probe runs in a
fresh process (:func:`mishgrad.kernel.opsnn.probe_backend`): the ascend backend loads its
libraries with global scope, which must not leak into this test process, and sets the
process's own ``ASCEND_CUSTOM_OPP_PATH``, which the probe reports.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mishgrad import aclnn
from mishgrad.aclnn import provenance
from mishgrad.kernel import identity, installed, opsnn, scratch, source, twin_build

OPAPI = f"{opsnn.VENDOR_DIR}/op_api/lib/libcust_opapi.so"


def stand_in_cann(root: Path, *, package: bool = False, builtin: bool = True) -> Path:
    """CANN's runtime libraries, with its own operator and/or a shared install of ours."""
    return opsnn.stand_in_install(root, twin_build.build(), package=package, builtin=builtin)


def private_install(folder: Path) -> Path:
    """The package as ``--install-path=folder`` leaves it; returns its vendor folder."""
    return opsnn.stand_in_package(folder / "vendors" / opsnn.VENDOR_DIR, twin_build.build())


def test_without_the_package_ascend_stops_and_says_how_to_build_it(tmp_path):
    cann = stand_in_cann(tmp_path)
    for kind in ("ascend", "auto"):  # auto finds CANN, so it means ascend: no fallback
        outcome = opsnn.probe_backend(cann, kind)
        assert outcome.startswith("stops: MISHGRAD_BACKEND=ascend runs this repository's operator")
    env = {"ASCEND_HOME_PATH": str(cann), "MISHGRAD_OPP_PATH": str(tmp_path / "opp")}
    with pytest.raises(installed.PackageError) as error:
        installed.find_package(env)
    message = str(error.value)
    for candidate in installed.candidates(env):  # every place looked in is named
        assert str(candidate.opapi) in message
    assert opsnn.BUILD_COMMAND in message and installed.install_command(env) in message
    assert f"--install-path={tmp_path / 'opp'}" in message
    assert "MISHGRAD_BACKEND=ascend-builtin" in message


def test_a_private_install_is_active_only_in_the_process_that_asks(tmp_path):
    cann = stand_in_cann(tmp_path)
    vendor = private_install(tmp_path / "opp")
    ours = opsnn.probe_backend(cann, "ascend", MISHGRAD_OPP_PATH=str(tmp_path / "opp"))
    assert ours == (
        f"served by ROOT/opp/vendors/{OPAPI}; "
        f"ASCEND_CUSTOM_OPP_PATH=ROOT/opp/vendors/{opsnn.VENDOR_DIR}"
    )
    # any other process on the host: nnopbase's table has no folder that replaces CANN's kernel
    assert installed.kernel_overrides({"ASCEND_HOME_PATH": str(cann)}) == []
    assert installed.kernel_overrides({"ASCEND_CUSTOM_OPP_PATH": str(vendor)}) == [vendor]
    builtin = opsnn.probe_backend(cann, "ascend-builtin", MISHGRAD_OPP_PATH=str(tmp_path / "opp"))
    assert builtin == "served by ROOT/cann/lib64/libopapi_nn.so; ASCEND_CUSTOM_OPP_PATH="


def test_set_env_bash_s_entry_is_found_and_kept_off_the_built_in_process(tmp_path):
    cann = stand_in_cann(tmp_path)
    vendor = private_install(tmp_path / "elsewhere")
    other = tmp_path / "other_nn"
    custom = f"{other}:{vendor}"  # as the package's bin/set_env.bash leaves it, after another
    ours = opsnn.probe_backend(cann, "ascend", ASCEND_CUSTOM_OPP_PATH=custom)
    assert ours == (
        f"served by ROOT/elsewhere/vendors/{OPAPI}; ASCEND_CUSTOM_OPP_PATH="
        f"ROOT/elsewhere/vendors/{opsnn.VENDOR_DIR}:ROOT/other_nn"
    )
    builtin = opsnn.probe_backend(cann, "ascend-builtin", ASCEND_CUSTOM_OPP_PATH=custom)
    assert (
        builtin == "served by ROOT/cann/lib64/libopapi_nn.so; ASCEND_CUSTOM_OPP_PATH=ROOT/other_nn"
    )


def test_the_installer_s_custom_opp_route_is_found(tmp_path):
    cann = stand_in_cann(tmp_path)
    private_install(tmp_path / "custom")  # install.sh with $ASCEND_CUSTOM_OPP_PATH set
    env = {"ASCEND_CUSTOM_OPP_PATH": str(tmp_path / "custom"), "ASCEND_HOME_PATH": str(cann)}
    package = installed.find_package({**env, "MISHGRAD_OPP_PATH": str(tmp_path / "none")})
    assert (package.route, package.vendor) == ("custom", tmp_path / "custom/vendors/mishgrad_nn")
    assert installed.kernel_overrides(env) == []  # nnopbase does not look into custom/vendors
    ours = opsnn.probe_backend(cann, "ascend", ASCEND_CUSTOM_OPP_PATH=env["ASCEND_CUSTOM_OPP_PATH"])
    assert ours.startswith(f"served by ROOT/custom/vendors/{OPAPI}; ")


def test_a_shared_install_is_named_and_blocks_the_built_in_comparison(tmp_path):
    cann = stand_in_cann(tmp_path, package=True)
    vendor = cann / "opp" / "vendors" / opsnn.VENDOR_DIR
    package = installed.find_package({"ASCEND_HOME_PATH": str(cann), "MISHGRAD_OPP_PATH": "/no"})
    assert (package.route, package.vendor) == ("shared", vendor)
    # every process on the host gets this kernel, whatever it asks for
    assert installed.kernel_overrides({"ASCEND_HOME_PATH": str(cann)}) == [vendor]
    outcome = opsnn.probe_backend(cann, "ascend-builtin")
    assert outcome.startswith(
        "stops: MISHGRAD_BACKEND=ascend-builtin cannot run CANN's own MishGrad"
    )
    assert f"ROOT/cann/opp/vendors/{opsnn.VENDOR_DIR} replaces it" in outcome
    assert "--install-path=ROOT/no-private-opp" in outcome


def test_a_private_install_comes_before_a_shared_one(tmp_path):
    cann = stand_in_cann(tmp_path, package=True)
    private_install(tmp_path / "opp")
    env = {"ASCEND_HOME_PATH": str(cann), "MISHGRAD_OPP_PATH": str(tmp_path / "opp")}
    assert installed.find_package(env).route == "private"
    assert [p.route for p in installed.candidates(env)] == ["private", "shared"]


def test_another_vendor_that_replaces_mish_grad_blocks_the_built_in_comparison(tmp_path):
    cann = stand_in_cann(tmp_path)
    opsnn.stand_in_package(cann / "opp" / "vendors" / "acme_nn", twin_build.build())
    (cann / "opp" / "vendors" / "config.ini").write_text("# vendors\nload_priority=x_nn,acme_nn\n")
    assert installed.kernel_overrides({"ASCEND_HOME_PATH": str(cann)}) == [
        cann / "opp" / "vendors" / "acme_nn"
    ]
    for soc in opsnn.SOCS:
        config = cann / "opp" / "vendors" / "acme_nn" / opsnn.KERNEL_CONFIG.format(soc=soc)
        config.write_text('{"Relu": {}}')
    assert installed.kernel_overrides({"ASCEND_HOME_PATH": str(cann)}) == []


def probe_on(cann: Path, soc: str, opp: Path) -> str:
    """:func:`opsnn.probe_backend` for ``ascend`` on a stand-in CANN whose runtime names ``soc``."""
    return opsnn.probe_backend(
        cann, "ascend", MISHGRAD_OPP_PATH=str(opp), MISHGRAD_TWIN_SOC_NAME=soc
    )


def test_the_package_runs_on_atlas_a2_and_a3_which_it_is_built_for(tmp_path):
    cann = stand_in_cann(tmp_path)
    private_install(tmp_path / "opp")
    assert installed.built_for(tmp_path / "opp/vendors" / opsnn.VENDOR_DIR) == sorted(opsnn.SOCS)
    for soc in ("Ascend910B2", "Ascend910B4-1", "Ascend910_9391", "Ascend910_9362"):
        assert probe_on(cann, soc, tmp_path / "opp").startswith(
            f"served by ROOT/opp/vendors/{OPAPI}; "
        ), soc


def test_on_a_soc_the_package_has_no_kernel_for_ascend_stops_and_names_it(tmp_path):
    cann = stand_in_cann(tmp_path)
    vendor = tmp_path / "opp/vendors" / opsnn.VENDOR_DIR
    opsnn.stand_in_package(vendor, twin_build.build(), socs=("ascend910b",))  # an A2-only build
    assert probe_on(cann, "Ascend910B3", tmp_path / "opp").startswith("served by ")
    a3 = probe_on(cann, "Ascend910_9391", tmp_path / "opp")
    assert a3 == (
        "stops: MISHGRAD_BACKEND=ascend: this NPU is Ascend910_9391, but the package at "
        f"ROOT/opp/vendors/{opsnn.VENDOR_DIR} has MishGrad kernels for ascend910b only, so CANN "
        "would run its own kernel with this repository's tiling: rebuild it with "
        f"`{opsnn.BUILD_COMMAND}` and install it again"
    )
    other = probe_on(cann, "Ascend310P3", tmp_path / "opp")
    assert other.startswith("stops: MISHGRAD_BACKEND=ascend: this NPU is Ascend310P3, ")
    assert other.endswith("the operator is built for ascend910b, ascend910_93 only")
    no_driver = probe_on(cann, "", tmp_path / "opp")  # the stand-in's aclrtGetSocName: null
    assert no_driver.startswith("stops: ROOT/cann/lib64/libascendcl.so: aclrtGetSocName names no")
    with pytest.raises(ValueError, match="needs the SoC"):
        installed.activation("ascend", {"MISHGRAD_OPP_PATH": str(tmp_path / "opp")})


def test_one_process_runs_one_of_the_two_kernels(tmp_path):
    cann = stand_in_cann(tmp_path)
    private_install(tmp_path / "opp")
    script = (
        "from mishgrad import aclnn; aclnn.load_backend('ascend')\n"
        "try:\n    aclnn.load_backend('ascend-builtin')\nexcept OSError as e:\n    print(e)"
    )
    env = {
        "ASCEND_HOME_PATH": str(cann),
        "MISHGRAD_OPP_PATH": str(tmp_path / "opp"),
        "PATH": "/usr/bin:/bin",
    }
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert "already loaded MISHGRAD_BACKEND=ascend" in result.stdout
    assert "needs a process of its own" in result.stdout


def test_the_command_line_prints_what_run_sh_reads(tmp_path):
    cann = stand_in_cann(tmp_path, package=True)
    env = {"ASCEND_HOME_PATH": str(cann), "MISHGRAD_OPP_PATH": str(tmp_path / "none")}
    command = [sys.executable, "-S", "-m", "tools.resolve"]  # -S: the standard library alone
    root = Path(installed.__file__).parents[2]
    ours = subprocess.run([*command, "ascend"], env=env, cwd=root, capture_output=True, text=True)
    vendor = cann / "opp" / "vendors" / opsnn.VENDOR_DIR
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.splitlines() == [
        f"vendor={vendor}",
        "route=shared",
        f"ascend_custom_opp_path={vendor}",
    ]
    builtin = subprocess.run(
        [*command, "ascend-builtin"], env=env, cwd=root, capture_output=True, text=True
    )
    assert builtin.returncode == 1 and "cannot run CANN's own MishGrad" in builtin.stderr
    usage = subprocess.run([*command, "twin"], env=env, cwd=root, capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr
    on_a3 = {**env, "MISHGRAD_TWIN_SOC_NAME": "Ascend910_9391"}
    (vendor / opsnn.KERNEL_CONFIG.format(soc="ascend910_93")).unlink()  # an A2-only build
    refused = subprocess.run(
        [*command, "ascend"], env=on_a3, cwd=root, capture_output=True, text=True
    )
    assert refused.returncode == 1 and "this NPU is Ascend910_9391" in refused.stderr


@pytest.mark.slow
def test_the_stamp_says_which_kernel_ran(cann_s_own_kernel):
    with aclnn.Session("twin") as session:
        ours = aclnn.which_kernel(session)
    assert ours.ours and str(ours) == (
        "this build of this repository's kernel ran: its stamp in the workspace (blockDim 48, "
        "tileLength 4096)"
    )
    checkout = identity.of(source.OPERATOR_DIR)
    assert ours.stamp == provenance.Stamp(
        provenance.STAMP_VERSION, 4, 48, 4096, False, 4096, checkout
    )
    with aclnn.Session(aclnn.twin_backend(cann_s_own_kernel)) as session:
        theirs = aclnn.which_kernel(session, length=1000)
    assert theirs.verdict == provenance.NOT_OURS and theirs.stamp is None
    assert str(theirs) == "not this repository's kernel: no stamp in the 64-byte workspace"


def test_the_stamp_is_read_only_where_its_magic_is():
    build = bytes(range(32))
    words = [*provenance.STAMP_MAGIC, provenance.STAMP_VERSION, 2, 7, 512, 1, 99]
    stamp = np.array([0, 5, *words], dtype="<u4").tobytes() + build + bytes(4)
    found = provenance.Stamp(provenance.STAMP_VERSION, 2, 7, 512, True, 99, build.hex())
    assert provenance.find_stamp(stamp) == found
    assert provenance.find_stamp(stamp[:-8]) is None  # cut short
    assert provenance.find_stamp(bytes(64)) is None
    assert provenance.find_stamp(b"MISHGRAD"[::-1] + stamp[16:]) is None
    report = aclnn.KernelReport("twin", "x", 98, 64, found, build.hex())
    assert report.verdict == provenance.ANOTHER_BUILD  # a stamp for another call is not this one
    old = np.array([*provenance.STAMP_MAGIC, 1, 4, 7, 512, 0, 98], dtype="<u4").tobytes()
    assert provenance.find_stamp(old) == provenance.Stamp(1, 4, 7, 512, False, 98, "")  # 8 words


def test_the_twin_reports_its_own_library():
    backend = aclnn.load_backend("twin")
    assert backend.served_by == str(twin_build.build().resolve())


@pytest.mark.slow
def test_a_stamp_left_in_the_data_cache_is_an_error(tmp_path):
    copy = scratch.scratch_kernel("no-write-back", root=tmp_path)
    copy.replace("op_kernel/mish_grad_stamp.h", "    WriteBack(stamp, userWorkspace);\n", "")
    with aclnn.Session(aclnn.twin_backend(copy.path)) as session:
        with pytest.raises(aclnn.AclError) as error:
            aclnn.which_kernel(session)
    words = provenance.STAMP_WORDS  # every word of the stamp: none was written back
    assert f"{words} scalar writes to global memory were still in the data" in str(error.value)


# The operator directory the package is built from, as ops-nn reads it (notebook 13, sections
# 1-3, which show these values; the checks are here).
KERNEL = source.OPERATOR_DIR

# Which ops-nn target compiles each Ascend-side source.
TARGETS = {
    "op_kernel/mish_grad.cpp": "kernel",
    "op_kernel/mish_grad.h": "kernel",
    "op_host/mish_grad_def.cpp": "op_def",
    "op_host/mish_grad_infershape.cpp": "infershape",
    "op_host/mish_grad_tiling.cpp": "tiling",
    "common/mish_grad_tiling.h": "tiling",
    "op_host/op_api/aclnn_mish_backward.cpp": "op_api",
    "op_host/op_api/mish_grad.cpp": "op_api",
    "common/mish_grad_contract.h": "op_api",
    "common/mish_grad_dtypes.h": "op_api",
    "examples/test_aclnn_mish_grad.cpp": "example",
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def include_report(op_dir: Path) -> list[tuple[str, str, str, str]]:
    """Each quoted include of the Ascend-side sources: (file, target, include, resolved file).

    The resolved file is relative to ``op_dir``, or ``CANN`` when the operator has no such file.
    """
    rows = []
    for relative, target in TARGETS.items():
        path = op_dir / relative
        for name in INCLUDE.findall(path.read_text()):
            found = opsnn.resolve_include(path, name, target, op_dir)
            where = "CANN" if found is None else str(found.relative_to(op_dir.resolve()))
            rows.append((relative, target, name, where))
    return rows


def operator_files(op_dir: Path) -> list[Path]:
    """The files that go into ops-nn: everything but the CPU twin and caches, sorted."""
    return sorted(
        p.relative_to(op_dir)
        for p in op_dir.rglob("*")
        if p.is_file() and op_dir / "twin" not in p.parents and "__pycache__" not in p.parts
    )


def test_the_operator_files_are_kernel_without_the_twin():
    files = operator_files(KERNEL)
    assert Path("op_host/CMakeLists.txt") in files  # what makes ops-nn take it as an operator
    assert Path("twin") not in {Path(f.parts[0]) for f in files}


def test_the_names_ops_nn_derives_from_the_directory_agree():
    name = Path(opsnn.OPS_NN_OP_DIR).name
    definition = (KERNEL / "op_host" / f"{name}_def.cpp").read_text()
    cmake = (KERNEL / "op_host" / "CMakeLists.txt").read_text()
    entry = (KERNEL / "op_kernel" / f"{name}.cpp").read_text()
    assert name == opsnn.OP_NAME
    assert re.search(r"OP_ADD\((\w+)\)", definition)[1] == opsnn.OP_TYPE
    assert re.search(r'"opFile\.value",\s*"(\w+)"', definition)[1] == name
    assert re.search(r"OPTYPE\s+(\w+)", cmake)[1] == name
    assert re.search(r"__aicore__ void (\w+)\(", entry)[1] == name


def test_every_include_of_an_operator_file_resolves_with_ops_nn_s_paths():
    report = include_report(KERNEL)
    names = {p.name for p in operator_files(KERNEL)}
    ours = [row for row in report if row[3] != "CANN"]
    lost = [row for row in report if row[3] == "CANN" and Path(row[2]).name in names]
    assert lost == []
    assert ours  # the operator's own headers are found, not taken for CANN's
    assert all(Path(found).name == Path(include).name for _, _, include, found in ours)
