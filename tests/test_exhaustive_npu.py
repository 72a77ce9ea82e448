"""`make exhaustive` with MISHGRAD_BACKEND=ascend: the sweep an Atlas A2 runs first, on a stand-in.

The stand-in CANN is the package installed privately (as ``--install-path`` leaves it), with a
runtime and nnopbase that are links to the package's own library: the twin plays all three
roles, and one file mapped once keeps one runtime's state (copies would not share tensors).
It poses as a 910B3 (``aclrtGetSocName``) whose vector unit rounds as the twin's ``hardware``
model. ``bench/exhaustive.py --backend ascend`` runs in a process of its own (the ascend backend
loads CANN's libraries with global scope) on every 4096th float32 bit pattern, the specials
among them, and every finite float16 and bfloat16 input; its report must be the twin's, and a
kernel built with a planted fault, or a vector unit that saturates, must be reported.
"""

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import exhaustive_check
import exhaustive_results
import exhaustive_run
import numpy as np
import pytest
from exhaustive_device import Device
from exhaustive_run import Plan
from rules.exhaustive import layout_problems

from mishgrad.evaluation import exhaustive
from mishgrad.kernel import scratch, twin_build
from mishgrad.paths import REPOSITORY
from tools import npu_rehearsal

STRIDE = 4096
SOC = npu_rehearsal.SOC_NAME
SCRIPT = REPOSITORY / "bench" / "exhaustive.py"


def run_on_the_stand_in(root: Path, library: Path) -> subprocess.CompletedProcess:
    """`bench/exhaustive.py --backend ascend` on a stand-in of ``library``, in ``root/runs``.

    The stand-in is the rehearsal's (tools/npu_rehearsal.py), laid out under ``root``, its
    vector unit rounding as the twin's ``hardware`` model.
    """
    environment = npu_rehearsal.environment(root, library) | {"MISHGRAD_TWIN_NUMERICS": "hardware"}
    command = [sys.executable, str(SCRIPT), "--backend", "ascend", "--stride", str(STRIDE)]
    return subprocess.run(
        [*command, "--folder", str(root / "runs")], env=environment, capture_output=True, text=True
    )


def sweep_on_the_stand_in(root: Path, library: Path) -> tuple[int, dict, str]:
    """The run's status, its result file and its tables."""
    status = run_on_the_stand_in(root, library)
    stem = root / "runs" / f"results-ascend-stride{STRIDE}"
    assert stem.with_suffix(".json").exists(), status.stderr
    return status.returncode, exhaustive_run.load(stem), stem.with_suffix(".md").read_text()


@pytest.fixture(scope="module")
def on_the_stand_in(tmp_path_factory) -> tuple[int, dict, str]:
    return sweep_on_the_stand_in(tmp_path_factory.mktemp("npu"), twin_build.build())


@pytest.fixture(scope="module")
def on_the_twin(tmp_path_factory) -> dict:
    """The same stride on the twin, under the model the stand-in's vector unit follows."""
    with Device.open("twin") as device:
        return exhaustive_run.measure(
            device, Plan(STRIDE), ["hardware"], tmp_path_factory.mktemp("twin")
        )


def test_the_npu_s_report_names_the_backend_and_soc_and_is_laid_out_as_the_twin_s(
    on_the_stand_in,
):
    status, results, tables = on_the_stand_in
    assert status == 0
    assert results["backend"]["name"] == "ascend" and results["backend"]["soc"] == SOC
    assert tables.startswith(f"Backend ascend on {SOC}: this build of this repository's kernel ran")
    assert results["plan"] == {"stride": STRIDE, "inputs": 1 << 20}
    assert layout_problems(results, ["ascend"]) == []
    assert list(results["references"]) == list(exhaustive_run.REFERENCES)
    assert list(results["sixteen_bit"]["ascend"]) == list(exhaustive_run.SIXTEEN_BIT)
    assert tables.count("as assumed |") == len(exhaustive_check.VECTOR_UNIT)
    assert "MISSED" not in tables and "NOT as assumed" not in tables


def test_the_npu_s_figures_are_those_of_the_twin_under_the_same_arithmetic(
    on_the_stand_in, on_the_twin
):
    _, results, _ = on_the_stand_in
    npu, twin = results["models"]["ascend"], on_the_twin["models"]["hardware"]
    assert npu["regions"] == twin["regions"] and npu["targets"] == twin["targets"]
    assert results["sixteen_bit"]["ascend"] == on_the_twin["sixteen_bit"]["hardware"]
    assert exhaustive.combined(npu["regions"])["count"] == 1 << 20
    specials = npu["regions"][exhaustive.REGIONS[-1]]
    assert specials["count"] == STRIDE  # NaN, +inf and -inf are among the patterns visited


@pytest.mark.slow
def test_a_planted_fault_is_reported(tmp_path):
    # The clamp after Exp gone, as if the vector unit's Maxs let -inf through: d(+-inf) and d
    # of the largest finite |x| (whose sum overflows) become NaN.
    copy = scratch.scratch_kernel("planted", root=tmp_path)
    copy.replace("op_kernel/mish_grad.h", "Maxs(a, a, -kArgumentClamp, count);", "")
    library = twin_build.build(twin_build.kernel_spec(root=copy.path))
    status, results, tables = sweep_on_the_stand_in(tmp_path, library)
    assert status == 1
    specials = results["models"]["ascend"]["regions"][exhaustive.REGIONS[-1]]
    assert specials["count"] - specials["correctly_rounded"] == 2  # d(+inf) and d(-inf)
    spurious = results["models"]["ascend"]["targets"][0]
    assert spurious["criterion"] == "spurious NaN/Inf" and spurious["measured"] > 2
    assert re.search(r"^\| spurious NaN/Inf = 0 \| \d+ MISSED \|$", tables, re.MULTILINE)
    for assumption in ("`Maxs` and `Mins` IEEE on ±inf and NaN", "saturation mode off"):
        assert f"| {assumption}: NaN, ±inf x with a wrong d = 0 | 2 NOT as assumed |" in tables
    assert not exhaustive_results.met(results)


@pytest.mark.slow
def test_a_package_whose_kernel_is_not_ours_is_refused_before_the_run(tmp_path, cann_s_own_library):
    status = run_on_the_stand_in(tmp_path, cann_s_own_library)  # its kernel leaves no stamp
    assert status.returncode == 1
    assert status.stderr.startswith(
        "exhaustive.py: MISHGRAD_BACKEND=ascend would measure the wrong kernel: not this repo"
    )
    assert not (tmp_path / "runs").exists()


@dataclass
class Saturating:
    """A vector unit in saturation mode, modelled on the twin: every NaN result becomes 0."""

    twin: Device
    name: str = "saturating"
    soc: str = "a model"
    models: tuple[str, ...] = ("saturating",)

    def derivative(self, x, model):
        d = self.twin.derivative(x, "hardware")
        return np.where(np.isnan(d), 0, d).astype(d.dtype)

    def kernel_identity(self):
        return self.twin.kernel_identity()

    def describe(self):
        return {"name": self.name, "soc": self.soc, "kernel": self.twin.kernel}


def test_a_saturating_vector_unit_is_reported_in_float32_and_in_16_bit(tmp_path):
    with Device.open("twin") as twin:
        results = exhaustive_run.measure(Saturating(twin), Plan(STRIDE), ["saturating"], tmp_path)
    checks = exhaustive_check.vector_unit(results["models"]["saturating"]["regions"])
    failed = [check.criterion.split(":")[0] for check in checks if not check.met]
    assert failed == ["`Maxs` and `Mins` IEEE on ±inf and NaN", "saturation mode off"]
    for entry in results["sixteen_bit"]["saturating"].values():
        specials = entry["targets"][-1]
        assert specials["criterion"] == "NaN, ±inf x with a wrong d" and specials["measured"] == 1
    assert not exhaustive_results.met(results)
    tables = exhaustive_results.markdown(results)
    assert "| float16: NaN, ±inf x with a wrong d = 0 | 1 MISSED |" in tables
