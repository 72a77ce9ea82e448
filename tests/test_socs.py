"""The package is built for Atlas A2 and A3 wherever it is built, and checked so.

One list, :data:`mishgrad.kernel.opsnn.SOCS`: the op definition registers a config for each
(CANN builds a package's kernel only for a SoC that has one), the workflow and the README's
recipe build them (``build.sh --soc``), and ``make opsnn-check`` hands them to the ops-nn kit,
which fails when the definition CANN's codegen compiled has no config for one; ``.ci/run`` runs
it so. The refusal to run on any other SoC is tested on the stand-in CANN
(``tests/test_ascend_backend.py``).
"""

from __future__ import annotations

import re
import subprocess

from mishgrad.kernel import opsnn, source

ROOT = source.REPOSITORY
SOC_LIST = ",".join(opsnn.SOCS)


def test_the_op_definition_registers_a_config_for_each_soc():
    definition = (source.OPERATOR_DIR / "op_host" / "mish_grad_def.cpp").read_text()
    assert re.findall(r'AddConfig\("(\w+)"', definition) == list(opsnn.SOCS)


def test_every_build_of_the_package_builds_each_soc():
    assert f"--soc={SOC_LIST} " in opsnn.BUILD_COMMAND
    for path in (".github/workflows/ascend.yml", "kernel/mish_grad/README.md"):
        builds = re.findall(r"build\.sh --pkg\s(?:[^`\n]|\n(?!\n))*", (ROOT / path).read_text())
        socs = [re.search(r"--soc=(\S*)", build) for build in builds]
        assert builds and all(soc and soc[1] == SOC_LIST for soc in socs), (path, builds)


def make_opsnn_check(*variables: str) -> str:
    """What ``make opsnn-check`` hands a kit whose ``check.sh`` prints what it was given."""
    result = subprocess.run(
        ["make", "--no-print-directory", "-s", "opsnn-check", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_make_opsnn_check_hands_the_kit_the_soc_list(tmp_path):
    (tmp_path / "check.sh").write_text('echo "OPSNN_SOC=$OPSNN_SOC $*"\n')
    kit = f"OPSNN_CHECK={tmp_path}"
    assert make_opsnn_check(kit) == f"OPSNN_SOC={SOC_LIST} {ROOT}"
    assert make_opsnn_check(kit, "OPSNN_SOC=ascend910b") == f"OPSNN_SOC=ascend910b {ROOT}"
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if "opsnn-check" in line]
    assert len(ci) == 2 and all(f"OPSNN_SOC={SOC_LIST}" in line for line in ci)
