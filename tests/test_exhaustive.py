"""`make exhaustive`: its C++ oracle and metrics against the Python definitions, its resuming,
its file formats, and a 2**24-input stride of it on the twin under every numerics model
(tests/test_exhaustive_npu.py runs it on a stand-in NPU)."""

from __future__ import annotations

import json

import error_summary
import exhaustive_check
import exhaustive_results
import exhaustive_run
import numpy as np
import precision_standard
import pytest
from exhaustive_device import Device
from exhaustive_run import Plan
from rules.exhaustive import layout_problems

from mishgrad.evaluation import exhaustive
from mishgrad.kernel import twin, twin_build
from mishgrad.math import dtypes, errors, oracle, samples


def neighbours(value: float, count: int) -> np.ndarray:
    """The ``count`` float32 values on each side of ``value``, and itself."""
    key = dtypes.ordered(np.array([value], dtype=np.float32))[0]
    return dtypes.from_ordered(key + np.arange(-count, count + 1), "float32")


def hard_inputs() -> np.ndarray:
    """Where the oracle is tested: the root, large |x|, subnormal d, specials, and a sample."""
    parts = [
        neighbours(-1.19243, 3000),  # the root of d, where t and p cancel
        samples.float32_every(*errors.ROOT_WINDOW, 97),
        samples.float32_every(-104.5, -87.0, 257),  # e^x subnormal, then d subnormal
        samples.float32_grid(-3.4e38, 3.4e38, 20_000),  # every binade, both signs
        samples.float32_uniform(20_000),
        np.random.default_rng(5).integers(0, 1 << 32, 50_000, dtype=np.uint32).view(np.float32),
        neighbours(0.0, 50),  # +-0 and subnormal x
        np.array([np.nan, np.inf, -np.inf, 3.4028235e38, -3.4028235e38], dtype=np.float32),
        dtypes.from_ordered([0x7FC00001, -0x7FFFFFFF], "float32"),  # NaNs with payloads
    ]
    return np.concatenate(parts)


@pytest.fixture(scope="module")
def hard() -> tuple[np.ndarray, np.ndarray]:
    x = hard_inputs()
    with np.errstate(invalid="ignore"):  # casting a signalling NaN to float64 flags "invalid"
        return x, oracle.dmish_oracle(x)


def test_fast_oracle_is_bit_identical_to_the_python_oracle(hard):
    x, truth = hard
    fast = exhaustive_check.oracle(x)
    nan = np.isnan(truth)
    assert np.array_equal(np.isnan(fast), nan)
    differ = np.flatnonzero(dtypes.uint_view(fast[~nan]) != dtypes.uint_view(truth[~nan]))
    assert differ.size == 0, f"differ at x = {x[~nan][differ[:5]]}"


def test_binary128_decides_where_float64_cannot(hard):
    x, truth = hard
    stats = exhaustive_check.check(x, truth)  # the truth itself: every error is zero
    near_root = stats[exhaustive.REGIONS[1]]
    assert near_root["fallbacks"] > 20  # the float32 neighbours of the root
    assert sum(s["undecided"] for s in stats.values()) == 0
    assert all(s["correctly_rounded"] == s["count"] for s in stats.values())


def test_the_c_struct_holds_the_sums_then_the_maxima_and_their_x():
    names = [name for name, _ in exhaustive_check.RegionStats._fields_]
    maxima = [*exhaustive.MAXIMA, *exhaustive.MAXIMA.values(), "undecided_x"]
    assert names == [*exhaustive.SUMS, *maxima]


def test_regions():
    cases = [
        (0.0, 0.6, 0),
        (-0.0, 0.6, 0),
        (3.0, 1.0, 0),
        (-1.2, -0.001, 1),
        (-1.16, 0.001, 1),
        (-1.1, 0.01, 2),
        (-87.0, -1e-36, 2),
        (-90.0, -7e-38, 3),
        (-100.0, -1e-41, 4),
        (-200.0, -0.0, 4),
        (np.nan, np.nan, 5),
        (-np.inf, 0.0, 5),
    ]
    x, d, expected = np.array(cases).T
    regions = exhaustive_check.regions_of(x.astype(np.float32), d.astype(np.float32))
    assert list(regions) == list(expected)


def perturbed(truth: np.ndarray, rng: np.random.Generator, nonfinite: bool) -> np.ndarray:
    """The truth with errors: ULP offsets, sign flips, zeros, and NaN and inf if asked."""
    keys = dtypes.ordered(truth) + rng.integers(-3, 4, truth.size)
    actual = np.where(np.isnan(truth), truth, dtypes.from_ordered(keys, "float32"))
    kinds = rng.integers(0, 40, truth.size)
    if nonfinite:
        actual[kinds == 0] = np.nan
        actual[kinds == 1] = np.inf
    actual[kinds == 2] = -actual[kinds == 2]
    actual[kinds == 3] = 0.0
    actual[kinds == 4] = truth[kinds == 4] * np.float32(1.5)
    return actual


def python_stats(x: np.ndarray, actual: np.ndarray, truth: np.ndarray) -> dict:
    """The statistics of math.errors and evaluation.precision, on one region's elements."""
    normal = np.isfinite(truth) & (np.abs(truth) >= np.finfo(np.float32).tiny)
    summary = error_summary.summarize(actual, truth, rel_mask=normal, abs_mask=~normal)
    relative = precision_standard.relative_errors(actual, truth)
    finite = np.isfinite(actual) & np.isfinite(truth)
    return {
        "count": x.size,
        "correctly_rounded": round(summary.correctly_rounded_pct * x.size / 100),
        "within_1ulp": round(summary.within_1ulp_pct * x.size / 100),
        "spurious_nonfinite": summary.spurious_nonfinite,
        "wrong_sign": summary.wrong_sign,
        "flushes": int(np.sum(normal & (actual == 0))),
        "sum_relative": float(relative.sum()),
        "mare": float(relative.max()),
        "max_ulp": float(errors.ulp_distance(actual, truth)[finite].max(initial=0)),
        "max_rel_error": np.nan_to_num(summary.max_rel_error),
        "max_abs_error": np.nan_to_num(summary.max_abs_error),
    }


@pytest.mark.parametrize("nonfinite", [False, True])
def test_metrics_match_the_python_definitions(hard, nonfinite):
    x, truth = hard
    actual = perturbed(truth, np.random.default_rng(9), nonfinite)
    stats = exhaustive_check.check(x, actual)
    labels = exhaustive_check.regions_of(x, truth)
    for index, name in enumerate(exhaustive.REGIONS):
        inside = labels == index
        with np.errstate(invalid="ignore"):  # error_summary.summarize multiplies inf by 0
            expected = python_stats(x[inside], actual[inside], truth[inside])
        got = {key: stats[name][key] for key in expected}
        assert got == pytest.approx(expected, rel=1e-12), name
    finite = np.isfinite(x)
    report = precision_standard.evaluate(actual[finite], truth[finite])
    combined = exhaustive.combined(stats, exhaustive.FINITE_REGIONS)
    assert exhaustive.mere(combined) == pytest.approx(report.mere, rel=1e-12)
    assert combined["mare"] == report.mare


def test_worst_x_does_not_depend_on_the_split(hard):
    x, truth = hard
    actual = perturbed(truth, np.random.default_rng(3), nonfinite=False)
    one, many = (
        exhaustive_check.check(x, actual, threads=1),
        exhaustive_check.check(x, actual, threads=7),
    )
    halves = exhaustive_check.merge_regions(
        exhaustive_check.check(x[:5000], actual[:5000]),
        exhaustive_check.check(x[5000:], actual[5000:]),
    )
    for name in exhaustive.REGIONS:
        for other in (many[name], halves[name]):
            assert other.pop("sum_relative") == pytest.approx(one[name]["sum_relative"], 1e-12)
            assert other == {k: v for k, v in one[name].items() if k != "sum_relative"}


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="x must be float32"):
        exhaustive_check.oracle(np.zeros(3))
    with pytest.raises(ValueError, match="must match"):
        exhaustive_check.check(np.zeros(3, np.float32), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="stride"):
        Plan(stride=0)


def test_plan_visits_every_stride_th_pattern_once():
    plan = Plan(stride=1 << 20, tile=1000)
    bits = np.concatenate([dtypes.uint_view(plan.x(i)) for i in range(plan.tiles)])
    assert plan.inputs == 4096 and plan.tiles == 5
    assert np.array_equal(bits, np.arange(4096, dtype=np.uint64) << 20)


@pytest.fixture(scope="module")
def on_twin():
    with Device.open("twin") as device:
        yield device


def test_an_interrupted_sweep_resumes_where_it_stopped(tmp_path, on_twin):
    plan = Plan(stride=1 << 18, tile=4096)  # 16384 inputs in 4 tiles
    path = tmp_path / "ieee.json"

    def stop_after_two(done: int, inputs: int, seconds: float) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        exhaustive_run.sweep(on_twin, "ieee", plan, path, stop_after_two)
    stored = json.loads(path.read_text())
    assert set(stored) == {"identity", "tiles_done", "seconds", "regions"}
    assert stored["identity"] == exhaustive_run.identity(on_twin, "ieee", plan)
    assert set(stored["identity"]) == {"format", "model", "stride", "tile", "kernel", "oracle"}
    assert stored["tiles_done"] == 2 and list(stored["regions"]) == list(exhaustive.REGIONS)
    assert exhaustive.combined(stored["regions"])["count"] == 2 * 4096
    seen = []
    resumed = exhaustive_run.sweep(on_twin, "ieee", plan, path, lambda done, *_: seen.append(done))
    assert seen == [3, 4]
    whole = exhaustive_run.sweep(on_twin, "ieee", plan, tmp_path / "whole.json")
    assert resumed["regions"] == whole["regions"]
    assert exhaustive.combined(whole["regions"])["count"] == plan.inputs


def test_a_kernel_edited_during_the_run_stops_it(tmp_path, monkeypatch, on_twin):
    plan = Plan(stride=1 << 18, tile=4096)
    path = tmp_path / "ieee.json"
    original = exhaustive_run.identity

    def edit_after_first_tile(done: int, inputs: int, seconds: float) -> None:
        monkeypatch.setattr(
            exhaustive_run, "identity", lambda *a: {**original(*a), "kernel": "edited"}
        )

    with pytest.raises(RuntimeError, match="changed during the run"):
        exhaustive_run.sweep(on_twin, "ieee", plan, path, edit_after_first_tile)
    assert json.loads(path.read_text())["tiles_done"] == 1


def test_a_summary_of_other_inputs_is_not_resumed(tmp_path, on_twin):
    plan = Plan(stride=1 << 18, tile=4096)
    ident = exhaustive_run.identity(on_twin, "ieee", plan)
    path = tmp_path / "s.json"
    exhaustive_run.save_summary(path, exhaustive_run.fresh_summary({**ident, "kernel": "old"}))
    summary, why = exhaustive_run.load_summary(path, ident)
    assert "other inputs" in why and summary["identity"] == ident
    path.write_text("{")
    assert "not valid JSON" in exhaustive_run.load_summary(path, ident)[1]


def test_a_summary_names_the_backend_soc_and_kernel_a_reference_s_none(on_twin):
    plan = Plan(stride=1 << 18, tile=4096)
    kernel = exhaustive_run.identity(on_twin, "ieee", plan)["kernel"]
    assert kernel == f"twin on {on_twin.soc}: {twin_build.build().parent.name}"
    assert exhaustive_run.identity(on_twin, "pytorch", plan)["kernel"].startswith("numpy ")
    with pytest.raises(ValueError, match="the twin backend runs the kernel as ieee, "):
        on_twin.derivative(np.zeros(4, np.float32), "ascend")


@pytest.fixture(scope="module")
def stride_results(tmp_path_factory, on_twin) -> dict:
    """Every 256th bit pattern (2**24 inputs, all specials among them) under every model."""
    folder = tmp_path_factory.mktemp("exhaustive")
    plan = Plan(stride=256)
    models = [*on_twin.models, *exhaustive_run.REFERENCES]
    results = exhaustive_run.measure(on_twin, plan, models, folder)
    exhaustive_run.write(results, folder / "results")
    return results


def test_stride_result_files(stride_results):
    problems = layout_problems(stride_results, list(twin.NUMERICS_MODELS))
    assert not problems, problems
    assert stride_results["plan"]["inputs"] == 1 << 24


@pytest.mark.parametrize("model", twin.NUMERICS_MODELS)
def test_every_256th_input_meets_the_targets(stride_results, model):
    entry = stride_results["models"][model]
    assert exhaustive.combined(entry["regions"])["count"] == 1 << 24
    missed = [c for c in entry["targets"] if not c["met"]]
    assert not missed, missed


def test_the_reference_is_pytorchs_formula_not_the_kernel(stride_results):
    pytorch = exhaustive.combined(stride_results["references"]["pytorch"]["regions"])
    assert pytorch["count"] == 1 << 24
    assert pytorch["spurious_nonfinite"] >= 2  # NaN at +-inf (inf * 0), where the kernel is exact
    assert pytorch["wrong_sign"] > 0  # far left, where its e^x is flushed (notebook 03)


def test_every_256th_input_holds_the_vector_unit_s_assumptions_and_the_16_bit_targets(
    stride_results,
):
    for model, entry in stride_results["models"].items():
        failed = [c for c in exhaustive_check.vector_unit(entry["regions"]) if not c.met]
        assert not failed, (model, failed)
    assert list(stride_results["sixteen_bit"]) == list(twin.NUMERICS_MODELS)
    assert exhaustive_results.met(stride_results)
    assert stride_results["backend"]["name"] == "twin"
