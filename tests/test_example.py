"""The C++ aclnn example (kernel/mish_grad/examples): built and run the way a user runs it.

``make example`` builds ``test_aclnn_mish_grad.cpp`` against the twin; its printed values
must be as close to the correctly rounded gradient as the targets promise
(``error_checks.operator_close``, the tolerance of every run of the operator, NPU included).
``run.sh`` is for an Ascend host and cannot run against CANN here; what can be checked is
its syntax, its message when CANN is missing, and its choice of headers and
libraries, on a stand-in CANN tree whose headers and libraries are the twin's.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import error_checks
import numpy as np
import pytest

from mishgrad.aclnn import provenance
from mishgrad.kernel import identity, opsnn, twin_build
from mishgrad.math import oracle

REPO = Path(__file__).resolve().parent.parent
RUN_SH = REPO / "kernel" / "mish_grad" / "examples" / "run.sh"
# tools/ is not a package: load the ShellCheck runner from its file, as test_setup does.
_SHELL_CHECK = importlib.util.spec_from_file_location(
    "shell_check", REPO / "tools" / "shell_check.py"
)
shell_check = importlib.util.module_from_spec(_SHELL_CHECK)
_SHELL_CHECK.loader.exec_module(shell_check)
CANN_SET_ENV = (
    Path("/usr/local/Ascend/cann/set_env.sh"),
    Path("/usr/local/Ascend/ascend-toolkit/set_env.sh"),
)

# The example's data (shape {4, 2}, float32).
GRAD_OUTPUT = np.arange(8, dtype=np.float32).reshape(4, 2)
SELF = np.array([1, 1, 1, 2, 2, 2, 3, 3], dtype=np.float32).reshape(4, 2)

VALUE_LINE = re.compile(r"^gradInput\[(\d+)\] = (\S+)$", re.MULTILINE)


def environment(**extra: str) -> dict[str, str]:
    """This process's environment without an outer make's flags (``make test`` runs pytest)."""
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
    for name in (
        "ASCEND_HOME_PATH",
        "ASCEND_OPP_PATH",
        "ASCEND_CUSTOM_OPP_PATH",
        "MISHGRAD_OPP_PATH",
    ):
        env.pop(name, None)
    return {**env, **extra}


def run(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=REPO,
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def check_example_output(result: subprocess.CompletedProcess[str]) -> None:
    """Exit status 0, `status: ok` last, and every value as close to the oracle as promised."""
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.stdout.splitlines()[-1] == "status: ok"
    lines = VALUE_LINE.findall(result.stdout)
    assert [int(index) for index, _ in lines] == list(range(GRAD_OUTPUT.size))
    # %.9g gives back the exact float32.
    values = np.array([float(text) for _, text in lines], dtype=np.float32).reshape(SELF.shape)
    truth = oracle.mish_backward_oracle(GRAD_OUTPUT, SELF)
    assert np.all(error_checks.operator_close(values, truth)), f"printed {values}, oracle {truth}"


@pytest.fixture(scope="module")
def make_example() -> subprocess.CompletedProcess[str]:
    assert shutil.which("make"), "make is one of the project's requirements (README)"
    return run(["make", "--no-print-directory", "example"])


def test_make_example_prints_the_correctly_rounded_gradient(make_example):
    check_example_output(make_example)


def test_make_example_shows_the_workspace_size_and_which_kernel_ran(make_example):
    # Contiguous float32 tensors of one shape: only the kernel's own workspace, for its stamp.
    lines = make_example.stdout.splitlines()
    assert f"workspaceSize = {provenance.STAMP_WORDS * 4}" in lines
    assert this_build() in lines


def this_build() -> str:
    """The example's line for a stamp that names this checkout's sources."""
    checkout = identity.of(REPO / "kernel" / "mish_grad")
    return f"kernel: this build of this repository's (its stamp names sources {checkout[:16]})"


def test_run_sh_is_valid_bash():
    result = subprocess.run(
        ["bash", "-n", str(RUN_SH)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_run_sh_finds_cann_or_says_it_is_missing():
    result = run(["bash", str(RUN_SH)])
    if any(p.exists() for p in CANN_SET_ENV):  # an Ascend host: the script builds and runs
        assert "run.sh: sourcing" in result.stdout
    else:
        assert result.returncode == 1
        assert "CANN not found" in result.stderr
        assert "make example" in result.stderr  # points to the twin instead


def test_run_sh_rejects_a_wrong_ascend_home_path(tmp_path):
    result = run(["bash", str(RUN_SH)], ASCEND_HOME_PATH=str(tmp_path / "missing"))
    assert result.returncode == 1
    assert "is not a directory" in result.stderr


def stand_in_cann(root: Path, vendor: bool, cann_s_own: Path | None = None) -> Path:
    """A directory laid out like CANN whose headers and operator library are the twin's.

    libnnopbase is empty (the twin library exports its functions too); libascendcl is a copy of
    the twin library, whose ``aclrtGetSocName`` the resolver asks which SoC this is.
    With ``vendor``, the operator comes from this repository's package, installed privately
    into ``root/opp`` (pass ``MISHGRAD_OPP_PATH``); otherwise from CANN's built-in operator
    headers and libopapi_nn.so, a copy of ``cann_s_own`` (a twin whose kernel leaves no stamp).
    """
    compiler = os.environ.get("CXX", "g++")
    assert shutil.which(compiler), f"no C++ compiler {compiler}"
    cann = root / "cann"
    (cann / "lib64").mkdir(parents=True)
    for folder in ("acl", "aclnn"):
        shutil.copytree(REPO / "kernel" / "twin" / "include" / folder, cann / "include" / folder)
    if vendor:
        opsnn.stand_in_package(root / "opp" / "vendors" / opsnn.VENDOR_DIR, twin_build.build())
    else:
        (cann / "include" / "aclnnop").mkdir(parents=True)
        shutil.copy(
            REPO / "kernel" / "mish_grad" / "op_host" / "op_api" / "aclnn_mish_backward.h",
            cann / "include" / "aclnnop",
        )
        shutil.copy(cann_s_own or twin_build.build(), cann / "lib64" / "libopapi_nn.so")
    shutil.copy(twin_build.build(), cann / "lib64" / "libascendcl.so")
    empty_library = [compiler, "-shared", "-x", "c++", os.devnull, "-o"]
    subprocess.run(
        [*empty_library, str(cann / "lib64" / "libnnopbase.so")], check=True, capture_output=True
    )
    return cann


@pytest.mark.parametrize(
    ("vendor", "backend", "library"),
    [(True, "ascend", "libcust_opapi.so"), (False, "ascend-builtin", "libopapi_nn.so")],
    ids=["package", "builtin"],
)
@pytest.mark.slow
def test_run_sh_builds_and_runs_against_a_stand_in_cann(
    tmp_path, vendor, backend, library, cann_s_own_library
):
    cann = stand_in_cann(tmp_path, vendor, cann_s_own_library)
    result = run(
        ["bash", str(RUN_SH)],
        ASCEND_HOME_PATH=str(cann),
        MISHGRAD_BACKEND=backend,
        MISHGRAD_OPP_PATH=str(tmp_path / "opp"),
        MISHGRAD_BUILD_DIR=str(tmp_path / "build"),
        LD_LIBRARY_PATH=str(cann / "lib64"),  # what set_env.sh provides on a real host
    )
    *program, served = result.stdout.splitlines()  # run.sh's last line: the linker's report
    assert served.startswith(f"run.sh: aclnnMishBackward served by {tmp_path}")
    assert served.endswith(library)
    result.stdout = "\n".join(program)
    check_example_output(result)
    assert f"operator library {library}" in result.stdout
    assert (tmp_path / "build" / "test_aclnn_mish_grad_cann").exists()
    theirs = "kernel: not this repository's (no stamp in the workspace)"
    assert (this_build() if vendor else theirs) in result.stdout.splitlines()
    if vendor:
        package = tmp_path / "opp" / "vendors" / opsnn.VENDOR_DIR
        assert f"run.sh: this repository's package from {package}" in result.stdout


def test_run_sh_fails_when_the_kernel_that_ran_is_not_the_one_asked_for(tmp_path):
    cann = stand_in_cann(tmp_path, vendor=False)  # "CANN's" library runs our stamped kernel
    result = run(
        ["bash", str(RUN_SH)],
        ASCEND_HOME_PATH=str(cann),
        MISHGRAD_BACKEND="ascend-builtin",
        MISHGRAD_BUILD_DIR=str(tmp_path / "build"),
        LD_LIBRARY_PATH=str(cann / "lib64"),
    )
    assert result.returncode == 1
    assert (
        f"run.sh: MISHGRAD_BACKEND=ascend-builtin, but the program reports {this_build()}"
        in result.stderr
    )


def test_run_sh_without_the_package_stops_instead_of_using_cann_s_operator(tmp_path):
    cann = stand_in_cann(tmp_path, vendor=False)  # only CANN's built-in operator
    result = run(
        ["bash", str(RUN_SH)],
        ASCEND_HOME_PATH=str(cann),
        MISHGRAD_BACKEND="ascend",
        MISHGRAD_OPP_PATH=str(tmp_path / "opp"),
    )
    assert result.returncode == 1
    assert "its package is not installed" in result.stderr
    assert f"{tmp_path / 'opp'}/vendors/mishgrad_nn/op_api/lib/libcust_opapi.so" in result.stderr
    assert "--ops=mish_grad --vendor_name=mishgrad" in result.stderr
    assert f"--install-path={tmp_path / 'opp'}" in result.stderr
    assert "MISHGRAD_BACKEND=ascend-builtin" in result.stderr


def test_run_sh_stops_on_a_soc_the_package_has_no_kernel_for(tmp_path):
    cann = stand_in_cann(tmp_path, vendor=True)
    vendor = tmp_path / "opp" / "vendors" / opsnn.VENDOR_DIR
    (vendor / opsnn.KERNEL_CONFIG.format(soc="ascend910_93")).unlink()  # an A2-only build
    result = run(
        ["bash", str(RUN_SH)],
        ASCEND_HOME_PATH=str(cann),
        MISHGRAD_OPP_PATH=str(tmp_path / "opp"),
        MISHGRAD_TWIN_SOC_NAME="Ascend910_9391",  # the stand-in runtime poses as an Atlas A3
    )
    assert result.returncode == 1
    assert "this NPU is Ascend910_9391" in result.stderr
    assert "MISHGRAD_BACKEND=ascend cannot run here" in result.stderr


def test_run_sh_will_not_call_a_shared_install_cann_s_own_kernel(tmp_path):
    cann = stand_in_cann(tmp_path, vendor=False)
    shared = cann / "opp" / "vendors"
    opsnn.stand_in_package(shared / opsnn.VENDOR_DIR, twin_build.build())
    (shared / "config.ini").write_text(f"load_priority={opsnn.VENDOR_DIR}\n")
    result = run(
        ["bash", str(RUN_SH)], ASCEND_HOME_PATH=str(cann), MISHGRAD_BACKEND="ascend-builtin"
    )
    assert result.returncode == 1
    assert "cannot run CANN's own MishGrad kernel" in result.stderr
    assert "MISHGRAD_BACKEND=ascend-builtin cannot run here" in result.stderr


# CANN's set_env.sh reads variables that may be unset: under `set -u` it would stop the script.
STAND_IN_SET_ENV = """\
if [ -n "$MISHGRAD_SURELY_UNSET_VARIABLE" ]; then echo unexpected; fi
export ASCEND_HOME_PATH={home}
export LD_LIBRARY_PATH={home}/lib64:$LD_LIBRARY_PATH
"""


def stand_in_set_env(folder: Path, home: Path) -> Path:
    set_env = folder / "set_env.sh"
    set_env.write_text(STAND_IN_SET_ENV.format(home=home))
    return set_env


def test_run_sh_sources_a_set_env_that_reads_unset_variables(tmp_path):
    cann = stand_in_cann(tmp_path, vendor=True)
    set_env = stand_in_set_env(tmp_path, cann)
    result = run(
        ["bash", str(RUN_SH)],
        CANN_SET_ENV=str(set_env),
        MISHGRAD_OPP_PATH=str(tmp_path / "opp"),
        MISHGRAD_BUILD_DIR=str(tmp_path / "build"),
        LD_LIBRARY_PATH="",
    )
    assert f"run.sh: sourcing {set_env}" in result.stdout, result.stderr
    assert result.stdout.splitlines()[-1].startswith(
        f"run.sh: aclnnMishBackward served by {tmp_path / 'opp'}"
    )
    missing = run(["bash", str(RUN_SH)], CANN_SET_ENV=str(tmp_path / "nowhere.sh"))
    assert missing.returncode == 1 and "CANN_SET_ENV=" in missing.stderr


def test_every_workflow_block_sources_set_env_before_set_u(tmp_path):
    # each step sources .ci/cann_env.sh, which sources CANN_SET_ENV before its `set -u`
    blocks = [
        body
        for workflow in sorted((REPO / ".github" / "workflows").glob("*.yml"))
        for _, body in shell_check.run_blocks(workflow)
        if "source .ci/cann_env.sh" in body
    ]
    assert blocks, "the Ascend workflow sources CANN's environment"
    home = tmp_path / "cann"
    set_env = stand_in_set_env(tmp_path, home)
    for body in blocks:
        lines = body.splitlines()
        sourced = next(i for i, line in enumerate(lines) if "source .ci/cann_env.sh" in line)
        prefix = "\n".join(lines[: sourced + 1])
        script = tmp_path / "block.sh"
        script.write_text(prefix + '\necho "home=$ASCEND_HOME_PATH"\n')
        # as GitHub runs a bash step: bash -eo pipefail
        result = run(["bash", "-eo", "pipefail", str(script)], CANN_SET_ENV=str(set_env))
        assert result.returncode == 0 and f"home={home}" in result.stdout, (prefix, result.stderr)


def test_shell_check_finds_a_planted_fault(tmp_path):
    script = tmp_path / "bad.sh"
    script.write_text("#!/usr/bin/env bash\nfolder=$1\nrm -rf $folder/build\n")
    assert "SC2086" in shell_check.shellcheck(script)  # an unquoted variable


def test_make_example_prints_the_bits_python_gets_on_the_twin(make_example):
    from mishgrad import aclnn

    printed = [float(text) for _, text in VALUE_LINE.findall(make_example.stdout)]
    from_c = np.array(printed, dtype=np.float32).reshape(SELF.shape)
    from_python = aclnn.mish_backward(GRAD_OUTPUT, SELF, backend="twin")
    assert np.array_equal(from_c.view(np.uint32), from_python.view(np.uint32))
