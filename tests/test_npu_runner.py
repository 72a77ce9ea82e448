"""A test run fit for an NPU runner: nothing installed that is present, one worker on CANN,
nbval's sanitizers for what differs with the NPU, and the rehearsal on a stand-in CANN."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import conftest
import pytest
from nbval.plugin import get_sanitize_patterns

from mishgrad.kernel import opsnn, source
from tools import npu_rehearsal

REPOSITORY = source.REPOSITORY
INSTALL_MISSING = REPOSITORY / "tools" / "install_missing.sh"


def tools_folder(folder: Path, **scripts: str) -> Path:
    """A folder for PATH: a shell script per keyword, and links to grep, env and true."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("grep", "env", "true"):
        (folder / name).symlink_to(shutil.which(name))
    for name, body in scripts.items():
        script = folder / name.replace("_", "-")
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
    return folder


def make(targets: list[str], path: Path, *arguments: str) -> subprocess.CompletedProcess:
    command = [shutil.which("make"), "-s", "-C", str(REPOSITORY), *targets, *arguments]
    return subprocess.run(
        command, env={"PATH": str(path)}, capture_output=True, text=True, check=False
    )


def test_make_installs_nothing_that_is_present(tmp_path):
    header = tmp_path / "gtest.h"
    header.touch()
    present = tools_folder(
        tmp_path / "present", shellcheck="exit 0", fc_list="echo 'Noto Sans CJK SC'", id="echo 0"
    )
    # INSTALL_MISSING=false: any call to the installer fails the target
    result = make(
        ["shellcheck", "gtest", "fonts"], present, f"GTEST_HEADER={header}", "INSTALL_MISSING=false"
    )
    assert result.returncode == 0, result.stderr
    missing = tools_folder(tmp_path / "missing", fc_list="exit 0", id="echo 0")
    result = make(
        ["shellcheck", "gtest", "fonts"],
        missing,
        f"GTEST_HEADER={tmp_path / 'none.h'}",
        "INSTALL_MISSING=echo install:",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "install: ShellCheck shellcheck",
        f"install: gtest ({tmp_path / 'none.h'}) libgtest-dev",
        "install: a Simplified Chinese font (fontconfig) fontconfig fonts-noto-cjk",
    ]


def install_missing(path: Path, *arguments: str) -> subprocess.CompletedProcess:
    command = ["/bin/bash", str(INSTALL_MISSING), *arguments]
    return subprocess.run(
        command, env={"PATH": str(path)}, capture_output=True, text=True, check=False
    )


APT_GET = 'echo "apt-get $DEBIAN_FRONTEND $*" >> "${0%/*}/log"'


def test_a_missing_package_is_installed_as_root_or_through_sudo_without_a_password(tmp_path):
    root = tools_folder(tmp_path / "root", id="echo 0", apt_get=APT_GET)
    assert install_missing(root, "ShellCheck", "shellcheck").returncode == 0
    assert (root / "log").read_text().splitlines() == [
        "apt-get  update -q",
        "apt-get noninteractive install -y -q --no-install-recommends shellcheck",
    ]
    sudo = 'echo "sudo $*" >> "${0%/*}/log"; [ "$1" = -n ] && shift; exec "$@"'
    user = tools_folder(tmp_path / "user", id="echo 1000", apt_get=APT_GET, sudo=sudo)
    assert install_missing(user, "fonts", "fontconfig", "fonts-noto-cjk").returncode == 0
    log = (user / "log").read_text().splitlines()
    assert log[0] == "sudo -n true"  # asked first whether it needs a password
    assert (
        "apt-get noninteractive install -y -q --no-install-recommends fontconfig "
        + ("fonts-noto-cjk")
        in log
    )


def test_where_nothing_can_be_installed_it_says_what_is_missing(tmp_path):
    # a runner's user: not root, sudo wants a password (sudo -n fails)
    user = tools_folder(tmp_path / "user", id="echo 1000", apt_get=APT_GET, sudo="exit 1")
    result = install_missing(user, "gtest (/usr/include/gtest/gtest.h)", "libgtest-dev")
    assert result.returncode == 1 and not (user / "log").exists()
    assert result.stderr.startswith(
        "missing: gtest (/usr/include/gtest/gtest.h). It cannot be installed here (not root, "
        "and sudo is missing or asks for a password): install Debian's libgtest-dev or"
    )
    assert "on a CI runner, the runner image should have it" in result.stderr
    no_apt = tools_folder(tmp_path / "openeuler", id="echo 0")
    result = install_missing(no_apt, "ShellCheck", "shellcheck")
    assert result.returncode == 1 and "(this system has no apt-get)" in result.stderr
    assert install_missing(no_apt, "ShellCheck").returncode == 2  # usage


@pytest.mark.parametrize(
    ("backend", "workers"), [("ascend", 1), ("ascend-builtin", 1), ("twin", None)]
)
def test_on_cann_auto_means_one_worker(monkeypatch, backend, workers):
    monkeypatch.setenv("MISHGRAD_BACKEND", backend)
    assert conftest.pytest_xdist_auto_num_workers() == workers


def test_on_cann_more_than_one_worker_is_refused():
    env = {**os.environ, "MISHGRAD_BACKEND": "ascend"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2"]
    result = subprocess.run(
        [*command, "--collect-only", "-q", "tests/test_npu_runner.py"],
        cwd=REPOSITORY,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "MISHGRAD_BACKEND=ascend runs on the NPU, device 0: run one worker" in result.stderr


def sanitized(text: str, *files: Path) -> str:
    for file in files:
        for regex, replace in get_sanitize_patterns(file.read_text()):
            text = re.sub(regex, replace, text)
    return text


def stored_output(notebook: str, code: str) -> str:
    """The stored text output of the first code cell of ``notebook`` that contains ``code``."""
    cells = json.loads((REPOSITORY / "notebooks" / notebook).read_text())["cells"]
    cell = next(c for c in cells if c["cell_type"] == "code" and code in "".join(c["source"]))
    texts = []
    for output in cell["outputs"]:
        data = output.get("data", {})
        texts.append("".join(output.get("text", data.get("text/markdown", ""))))
    return "".join(texts)


@pytest.mark.parametrize(
    ("notebook", "code", "recorded", "on_the_npu"),
    [  # the stamp's blockDim on a 910B3; CANN's system workspace (16 MiB) added to the kernel's
        (
            "00_mishgrad_in_ten_minutes.ipynb",
            "STAMP_LABELS",
            r"\| blockDim \| 48 \|",
            "| blockDim | 40 |",
        ),
        (
            "08_the_aclnn_two_phase_call.ipynb",
            'print("workspaceSize ="',
            r"workspaceSize = \d+",
            "workspaceSize = 16777280",
        ),
    ],
)
def test_the_npu_s_sanitizers_cover_what_differs_with_the_chip(
    notebook, code, recorded, on_the_npu
):
    stored = stored_output(notebook, code)
    npu = re.sub(recorded, on_the_npu, stored, count=1)
    assert npu != stored
    base = REPOSITORY / "tests" / "nbval_sanitize.cfg"
    assert sanitized(npu, base) != sanitized(stored, base)  # the twin's check is not weakened
    assert sanitized(npu, base, conftest.NPU_SANITIZERS) == sanitized(
        stored, base, conftest.NPU_SANITIZERS
    )


def test_on_cann_nbval_reads_both_sets_of_sanitizers():
    base = REPOSITORY / "tests" / "nbval_sanitize.cfg"
    config = SimpleNamespace(option=SimpleNamespace(nbval_sanitize_with=str(base)))
    conftest.add_npu_sanitizers(config)
    assert config.option.nbval_sanitize_with == str(conftest.COMBINED_SANITIZERS)
    combined = conftest.COMBINED_SANITIZERS.read_text()
    assert combined.startswith(base.read_text())
    assert combined.endswith(conftest.NPU_SANITIZERS.read_text())
    conftest.add_npu_sanitizers(config)  # a worker's copy of the option: left as it is
    assert config.option.nbval_sanitize_with == str(conftest.COMBINED_SANITIZERS)


PROBE = """
from mishgrad import aclnn
with aclnn.Session() as npu, aclnn.Session("twin") as twin:
    print(npu.lib.name, npu.lib.served_by)
    print(aclnn.which_kernel(npu).stamp.block_dim, aclnn.which_kernel(twin).stamp.block_dim)
"""


def test_the_rehearsal_s_stand_in_poses_as_a_910b3(tmp_path):
    env = npu_rehearsal.stand_in(tmp_path / "rehearsal")
    vendor = Path(env["MISHGRAD_OPP_PATH"]) / "vendors" / opsnn.VENDOR_DIR
    library = vendor / "op_api" / "lib" / "libcust_opapi.so"
    for name in ("libascendcl.so", "libnnopbase.so"):
        assert (Path(env["ASCEND_HOME_PATH"]) / "lib64" / name).resolve() == library
    assert env["MISHGRAD_BACKEND"] == "ascend"
    assert (env["MISHGRAD_TWIN_SOC_NAME"], env["MISHGRAD_TWIN_VECTOR_CORES"]) == (
        "Ascend910B3",
        "40",
    )

    def probe(**variables: str) -> subprocess.CompletedProcess:
        # as npu_rehearsal.main runs its command: no install of the calling shell in the way
        outer = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_")}
        return subprocess.run(
            [sys.executable, "-c", PROBE],
            env={**outer, **env, **variables},
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            check=False,
        )

    result = probe()
    assert result.returncode == 0, result.stderr
    # one process, two runtimes: the stand-in CANN on the 910B3's 40 cores, the twin on 48
    assert result.stdout.splitlines() == [f"ascend {library}", "40 48"]
    result = probe(MISHGRAD_TWIN_VECTOR_CORES="forty")
    assert "aclInit: MISHGRAD_TWIN_VECTOR_CORES=forty is not a count of vector cores" in (
        result.stderr
    )


def test_the_rehearsal_needs_a_command(capsys):
    assert npu_rehearsal.main([]) == 2
    assert "usage: python -m tools.npu_rehearsal COMMAND" in capsys.readouterr().err


CANN_ENV = REPOSITORY / ".ci" / "cann_env.sh"
WORKFLOW = REPOSITORY / ".github" / "workflows" / "ascend.yml"


def source_cann_env(set_env: str, then: str = "") -> subprocess.CompletedProcess:
    """Source .ci/cann_env.sh as a workflow step does (GitHub runs bash -eo pipefail)."""
    script = f'source "{CANN_ENV}"; {then}'
    env = {"PATH": os.environ["PATH"], "CANN_SET_ENV": set_env}
    command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


def test_a_step_sources_exactly_one_cann_and_fails_loudly(tmp_path):
    good = tmp_path / "good.sh"  # reads an unset variable, as CANN's does
    good.write_text('[ -n "$UNSET_HERE" ] || export ASCEND_HOME_PATH=/opt/cann\n')
    result = source_cann_env(str(good), 'echo "$ASCEND_HOME_PATH $-"')
    assert result.returncode == 0, result.stderr
    home, flags = result.stdout.splitlines()[-1].split()
    assert home == "/opt/cann" and "u" in flags and "e" in flags  # set -euo pipefail after it
    failing = tmp_path / "failing.sh"
    failing.write_text("echo 'set_env: no driver' >&2\nfalse\n")
    result = source_cann_env(str(failing), "echo went on")
    assert result.returncode == 1 and "went on" not in result.stdout
    assert "set_env: no driver" in result.stderr  # its own message, not hidden
    assert f"cann_env.sh: sourcing {failing} failed" in result.stderr
    silent = tmp_path / "silent.sh"
    silent.write_text("true\n")
    result = source_cann_env(str(silent))
    assert result.returncode == 1 and "did not set ASCEND_HOME_PATH" in result.stderr
    result = source_cann_env(str(tmp_path / "none.sh"))
    assert result.returncode == 1 and "none.sh" in result.stderr


def test_the_ascend_workflow_starts_by_hand_or_by_label_and_downloads_nothing():
    import yaml

    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers == {"workflow_dispatch": None, "pull_request": {"types": ["labeled"]}}
    job = workflow["jobs"]["npu"]
    assert "github.event.label.name == 'ascend'" in job["if"]
    runs = [step["run"] for step in job["steps"] if "run" in step]
    text = WORKFLOW.read_text()
    assert "set_env.sh" not in "".join(runs) and "2>/dev/null ||" not in text
    builds = [line for run in runs for line in run.splitlines() if "bash build.sh" in line]
    assert len(builds) == 2
    for run in runs:
        if "build.sh" in run or ".venv/bin/python" in run or "make test" in run:
            assert "source .ci/cann_env.sh" in run, run
        if "bash build.sh" in run:
            assert '--cann_3rd_lib_path="$CANN_3RD_LIB_PATH"' in run, run


FAKE_CXX = """#!/bin/sh
# A compiler stand-in: the "program" is a script that prints a good run's kernel line and never
# binds aclnnMishBackward, so the dynamic linker's report has no line for it.
while [ "$#" -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
cat > "$out" <<'PROGRAM'
#!/bin/sh
echo "kernel: this build of this repository's (its stamp names sources 0123456789abcdef)"
PROGRAM
chmod +x "$out"
"""


def test_run_sh_finishes_a_good_run_when_no_binding_is_reported(tmp_path):
    cann = tmp_path / "cann"
    (cann / "include" / "acl").mkdir(parents=True)
    (cann / "include" / "acl" / "acl.h").touch()
    (cann / "lib64").mkdir()
    shutil.copy(npu_rehearsal.twin_build.build(), cann / "lib64" / "libascendcl.so")
    opsnn.stand_in_package(
        tmp_path / "opp" / "vendors" / opsnn.VENDOR_DIR, npu_rehearsal.twin_build.build()
    )
    compiler = tmp_path / "fake-cxx"
    compiler.write_text(FAKE_CXX)
    compiler.chmod(0o755)
    env = {
        "PATH": os.environ["PATH"],
        "ASCEND_HOME_PATH": str(cann),
        "MISHGRAD_OPP_PATH": str(tmp_path / "opp"),
        "MISHGRAD_BUILD_DIR": str(tmp_path / "build"),
        "CXX": str(compiler),
    }
    run_sh = REPOSITORY / "kernel" / "mish_grad" / "examples" / "run.sh"
    result = subprocess.run(
        ["bash", str(run_sh)], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "run.sh: aclnnMishBackward served by (unknown)"
    assert not list((tmp_path / "build").glob("bindings.*"))
