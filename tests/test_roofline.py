"""mishgrad.evaluation.roofline: bytes and vector cycles per element, bounds; a launch's time."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import trace_checks
from instruction_budget import bandwidth_share, instruction_headroom

from mishgrad.evaluation import roofline, upstream
from mishgrad.kernel import operators, pipeline, platforms, tiling, twin

CONFIGS = [(d, t) for d in ("float32", "float16", "bfloat16") for t in (False, True)]


@pytest.fixture(scope="module")
def costs() -> dict[tuple[str, bool], roofline.KernelCost]:
    return {(d, t): roofline.measure_cost(d, t) for d, t in CONFIGS}


@pytest.fixture(scope="module")
def a2() -> roofline.Roofline:
    return roofline.Roofline.for_chip("910B2")


def replaced(line: roofline.Roofline, **parameters: float) -> roofline.Roofline:
    """``line`` with some PipelineModel parameters changed (``hbm_bytes_per_second=...``)."""
    return dataclasses.replace(line, model=dataclasses.replace(line.model, **parameters))


@dataclasses.dataclass(frozen=True)
class Prediction:
    """A model of one launch of ``n`` elements: notebook 12's, held to the roofline here."""

    n: int
    cores: int  # vector cores the tiling uses
    tiles: int  # tiles of the busiest core
    #: The busiest core's memory traffic at its share of the bandwidth, and its vector
    #: instructions.
    memory_seconds: float
    vector_seconds: float
    seconds: float  # the larger of the two plus the pipeline's fill and drain


def predict(line: roofline.Roofline, n: int, cost: roofline.KernelCost) -> Prediction:
    """One launch of ``n`` elements, tiled by :func:`mishgrad.kernel.tiling.plan_for`.

    For each kind of core of the plan (big, small, last), with ``M`` its memory time, ``V``
    its vector time, ``v_last`` the vector time of its last tile and ``in_first``/``out_last``
    the copy times of its first/last tile, the time is ``max(M + v_last, V + in_first +
    out_last)``: exact for one tile, and the roofline ``max(M, V)`` plus a vanishing share for
    many. The busiest core decides; launch overhead is not modelled.
    """
    plan = tiling.plan_for(int(n), cost.dtype_size, cost.has_tanhx, line.chip)
    model = line.model
    core_bps = model.hbm_bytes_per_second / model.vector_cores
    repeat_seconds = cost.cycles_per_repeat(model, line.op_cycles_per_repeat) / model.clock_hz

    def repeats(elements: int) -> int:
        return -(-elements // roofline.ELEMENTS_PER_REPEAT)

    predictions = []
    for kind in tiling.core_kinds(plan):
        tiles, tail = kind.tiles, kind.tail
        memory = kind.length * cost.bytes_per_element / core_bps
        vector = ((tiles - 1) * repeats(plan.tileLength) + repeats(tail)) * repeat_seconds
        v_last = repeats(tail) * repeat_seconds
        in_first = (plan.tileLength if tiles > 1 else tail) * cost.read_bytes / core_bps
        out_last = tail * cost.write_bytes / core_bps
        seconds = max(memory + v_last, vector + in_first + out_last)
        predictions.append(Prediction(int(n), plan.blockDim, tiles, memory, vector, seconds))
    return max(predictions, key=lambda prediction: prediction.seconds)


def test_bytes_per_element_are_the_tensors():
    cost = roofline.KernelCost(4, False, {"Add": 1})
    assert (cost.read_bytes, cost.write_bytes, cost.bytes_per_element) == (8, 4, 12)
    cost = roofline.KernelCost(2, True, {"Add": 1})
    assert (cost.read_bytes, cost.bytes_per_element) == (6, 8)


def test_any_operators_cost_counts_its_tensors():
    spec = operators.OperatorSpec(
        name="pair", arguments=("a", "b", "c", "y", "z"), inputs=("a", "b", "c"),
        outputs=("y", "z"), optional=("c",),
    )  # fmt: skip
    counts = {"Mul": 2}
    cost = roofline.operator_cost(spec, counts, "bfloat16")
    assert (cost.read_bytes, cost.write_bytes, cost.label) == (4, 4, "pair, bfloat16")
    cost = roofline.operator_cost(spec, counts, "float32", given=("a", "b", "c"))
    assert (cost.read_bytes, cost.bytes_per_element, cost.instruction_count) == (12, 20, 2)
    mish = roofline.operator_cost(operators.MISH_GRAD, counts, "float16", ("grad", "x", "tanhx"))
    assert mish.bytes_per_element == roofline.KernelCost(2, True, counts).bytes_per_element == 8
    for wrong in (("a",), ("a", "b", "y")):
        with pytest.raises(ValueError, match="pair reads a, b and may read c"):
            roofline.operator_cost(spec, counts, "float32", given=wrong)


def test_measured_costs_match_the_trace(costs):
    for (dtype, has_tanhx), cost in costs.items():
        assert cost.dtype_size == np.dtype(twin.as_dtype(dtype)).itemsize
        assert cost.has_tanhx is has_tanhx
        assert cost.instructions["Exp"] == 1
        assert cost.label == f"{dtype}, {'tanhx' if has_tanhx else 'no tanhx'}"


@pytest.mark.parametrize(("dtype", "has_tanhx"), CONFIGS)
def test_every_instruction_is_one_float32_repeat_per_64_elements(dtype, has_tanhx, costs):
    """The model's 64 elements per repeat agrees with trace_checks.repeats for a full tile."""
    size = np.dtype(twin.as_dtype(dtype)).itemsize
    chip = platforms.platform("910B2")
    tile = tiling.max_tile_length(size, has_tanhx, chip.ub_reported)
    x = np.linspace(-5, 5, 2 * tile).astype(twin.as_dtype(dtype))
    tanhx = np.full_like(x, 0.5) if has_tanhx else None
    run = twin.run_kernel(np.ones_like(x), x, tanhx, cores=1, trace=True)
    work = trace_checks.tile_work(run.trace)[0]
    assert sum(work.vector_repeats) == costs[dtype, has_tanhx].instruction_count * (
        tile // roofline.ELEMENTS_PER_REPEAT
    )


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16bit_kernels_are_bandwidth_bound_on_a2(dtype, costs):
    """Issue 32: the 16-bit path without tanhx (at most ~20 instructions, casts included) and
    the tanhx branch both keep up with 1.6 TB/s; no Select, no root window."""
    a2 = roofline.Roofline.for_chip()
    assert a2.bound(costs[dtype, False]) == a2.bound(costs[dtype, True]) == "bandwidth"
    counts = costs[dtype, False].instructions
    assert costs[dtype, False].instruction_count <= 20 and counts["Cast"] == 3
    assert "Select" not in counts and counts["Exp"] == counts["Div"] == 1


def test_bandwidth_share(a2, costs):
    for cost in costs.values():
        assert bandwidth_share(a2, cost) == 1.0  # every configuration is bandwidth-bound
    slow = dataclasses.replace(costs["float16", False], instructions={"Add": 100})
    expected = a2.vector_elements_per_second(slow) / a2.memory_elements_per_second(slow)
    assert a2.bound(slow) == "vector" and bandwidth_share(a2, slow) == pytest.approx(expected)
    assert bandwidth_share(a2, slow) == pytest.approx(0.20736)  # 48 cores * 1.8 GHz * 64 / 100


def test_vector_cycles_per_element(a2):
    cost = roofline.KernelCost(4, False, {"Exp": 2, "Add": 62})
    assert a2.vector_cycles_per_element(cost) == pytest.approx(1.0)
    slow = roofline.Roofline.for_chip(op_cycles_per_repeat={"Exp": 5})
    assert slow.vector_cycles_per_element(cost) == pytest.approx((2 * 5 + 62) / 64)


def test_for_chip_takes_the_platforms_cores():
    assert roofline.Roofline.for_chip("910B3").model.vector_cores == 40
    with pytest.raises(ValueError, match="vector cores"):
        roofline.Roofline(platforms.platform("910B3"), pipeline.PipelineModel())
    changed = roofline.Roofline.for_chip(hbm_bytes_per_second=1.2e12)
    assert changed.model.hbm_bytes_per_second == 1.2e12
    assert replaced(changed, clock_hz=1e9).model.clock_hz == 1e9


def test_defaults_are_the_pipeline_models(a2):
    assert a2.model == pipeline.PipelineModel()
    assert roofline.HBM_BANDWIDTH_RANGE[1] == a2.model.hbm_bytes_per_second


def test_ridge_bandwidth_separates_the_bounds(a2, costs):
    for cost in costs.values():
        ridge = a2.ridge_bandwidth(cost)
        assert replaced(a2, hbm_bytes_per_second=ridge * 0.99).bound(cost) == "bandwidth"
        assert replaced(a2, hbm_bytes_per_second=ridge * 1.01).bound(cost) == "vector"
        clock = a2.model.clock_hz * a2.model.hbm_bytes_per_second / ridge  # the ridge's clock
        assert replaced(a2, clock_hz=clock * 1.01).bound(cost) == "bandwidth"
        assert replaced(a2, clock_hz=clock * 0.99).bound(cost) == "vector"


def test_instruction_headroom_reaches_the_ridge(a2, costs):
    for cost in costs.values():
        extra = instruction_headroom(a2, cost)
        if extra > 0:
            padded = dataclasses.replace(
                cost, instructions={**cost.instructions, "pad": int(np.ceil(extra)) + 1}
            )
            assert a2.bound(padded) == "vector"
            assert a2.bound(cost) == "bandwidth"
        else:
            assert a2.bound(cost) == "vector"


def test_v1_counts_come_from_the_upstream_description():
    counts = upstream.V1_FLOAT32_NO_TANHX.counts()
    assert sum(counts.values()) == 42
    cost = roofline.cost_from_counts(counts, 4, False, "v1")
    assert cost.instruction_count == 42 and cost.label == "v1"


def test_one_tile_is_the_sum_of_the_stages(a2, costs):
    cost = costs["float32", False]
    prediction = predict(a2, 1000, cost)
    assert prediction.tiles == 1
    assert prediction.cores == -(-1000 // 64)
    assert prediction.seconds == pytest.approx(
        prediction.memory_seconds + prediction.vector_seconds
    )


def test_large_n_approaches_the_roofline(a2, costs):
    for cost in costs.values():
        prediction = predict(a2, 10**9, cost)
        assert prediction.cores == 48
        assert max(prediction.memory_seconds, prediction.vector_seconds) > 0.99 * prediction.seconds
        roof = min(a2.memory_elements_per_second(cost), a2.vector_elements_per_second(cost))
        assert 10**9 / prediction.seconds == pytest.approx(roof, rel=0.01)
        bound = "bandwidth" if prediction.memory_seconds >= prediction.vector_seconds else "vector"
        assert bound == a2.bound(cost)


def test_predictions_grow_with_n(a2, costs):
    ns = np.unique(np.logspace(5, 9, 30).astype(int))
    times = [predict(a2, n, costs["float16", True]).seconds for n in ns]
    assert np.all(np.diff(times) > 0)


def test_n_zero_has_no_plan(a2, costs):
    with pytest.raises(tiling.TilingError):
        predict(a2, 0, costs["float32", False])


def _notebook_12s_model() -> tuple[float, float, float, float, float]:
    """The parameters notebook 12 types in: the bandwidth range, clock, cycles, cores."""
    low, high = roofline.HBM_BANDWIDTH_RANGE
    return low, high, 1.8e9, 1.0, platforms.platform("910B2").vector_cores


def _v1_cost() -> roofline.KernelCost:
    return roofline.cost_from_counts(upstream.V1_FLOAT32_NO_TANHX.counts(), 4, False, "v1")


def test_notebook_12s_roofline_formulas_are_the_models(a2, costs):
    """Notebook 12 writes the roofline in NumPy with W, f, c, P typed in: they are the model's,
    and its t_mem, t_vec, ridge, headroom and bounds are Roofline's, for every configuration;
    the book's six keep their bound over the whole bandwidth range."""
    low, high, f, c, p = _notebook_12s_model()
    model = a2.model
    assert (model.hbm_bytes_per_second, model.clock_hz, model.vector_cycles_per_repeat) == (
        high,
        f,
        c,
    )
    assert model.vector_cores == p and roofline.ELEMENTS_PER_REPEAT == 256 // 4 == 64
    ours = costs["float32", False]
    n, b, k = 10**9, ours.bytes_per_element, ours.instruction_count
    t_mem, t_vec = n * b / high, n * k * c / (64 * p * f)
    predicted = predict(a2, n, ours)
    steady = max(predicted.memory_seconds, predicted.vector_seconds)
    assert steady == pytest.approx(max(t_mem, t_vec), rel=1e-3)
    for cost in [*costs.values(), _v1_cost()]:
        b, k = cost.bytes_per_element, cost.instruction_count
        w_star = 64 * b * p * f / (k * c)
        assert w_star == pytest.approx(a2.ridge_bandwidth(cost))
        headroom = 64 * p * f * b / (high * c) - k
        assert headroom == pytest.approx(instruction_headroom(a2, cost))
        bounds = ["bandwidth" if w <= w_star else "vector" for w in (low, high)]
        assert bounds == [replaced(a2, hbm_bytes_per_second=w).bound(cost) for w in (low, high)]
        if cost in costs.values():
            assert bounds[0] == bounds[1]


def test_notebook_12s_sensitivity_is_the_models(costs):
    """Notebook 12 solves for the Exp and Div cycles per repeat, and for the clock, at which a
    configuration turns vector-bound: Roofline with those per-op cycles, and with that clock,
    agrees."""
    low, high, f, c, p = _notebook_12s_model()
    for cost in [*costs.values(), _v1_cost()]:
        b, k = cost.bytes_per_element, cost.instruction_count
        slow = cost.instructions["Exp"] + cost.instructions["Div"]
        if k * c > 64 * p * f * b / low:
            continue
        for w in (high, low):
            cycles = 64 * p * f * b / w
            flips = int(np.floor((cycles - (k - slow) * c) / slow)) + 1

            def bound(per_repeat, w=w, cost=cost):
                slow_ops = dict.fromkeys(["Exp", "Div"], per_repeat)
                chip = roofline.Roofline.for_chip(op_cycles_per_repeat=slow_ops)
                return replaced(chip, hbm_bytes_per_second=w).bound(cost)

            assert bound(flips) == "vector"
            assert flips == 1 or bound(flips - 1) == "bandwidth"
            clock = k * c * w / (64 * p * b)
            chip = roofline.Roofline.for_chip(hbm_bytes_per_second=w)
            assert replaced(chip, clock_hz=clock * 1.001).bound(cost) == "bandwidth"
            assert replaced(chip, clock_hz=clock * 0.999).bound(cost) == "vector"


def _notebook_12s_launch(plan, cost, w, f, c, p):
    """Notebook 12's launch(plan, w): (elements, tiles, tail, M, V, t) of the slowest core."""
    core_bw, repeat_s = w / p, cost.instruction_count * c / f
    kinds = []
    if plan.bigCoreNum:
        kinds.append((plan.bigCoreLength, plan.bigTileNum, plan.bigTailLength))
    if plan.blockDim - plan.bigCoreNum > 1:
        kinds.append((plan.smallCoreLength, plan.smallTileNum, plan.smallTailLength))
    kinds.append((plan.lastCoreLength, plan.lastTileNum, plan.lastTailLength))
    slowest = None
    for elements, tiles, tail in kinds:
        memory = elements * cost.bytes_per_element / core_bw
        vector = ((tiles - 1) * np.ceil(plan.tileLength / 64) + np.ceil(tail / 64)) * repeat_s
        in_first = (plan.tileLength if tiles > 1 else tail) * cost.read_bytes / core_bw
        out_last = tail * cost.write_bytes / core_bw
        t = max(memory + np.ceil(tail / 64) * repeat_s, vector + in_first + out_last)
        if slowest is None or t > slowest[-1]:
            slowest = elements, tiles, tail, memory, vector, t
    return slowest


def test_notebook_12s_launch_by_hand_is_predict(a2, costs):
    """Notebook 12 predicts one launch by hand from the tiling plan, for each decade of n from
    10^3 to 10^9 at both ends of the bandwidth range: predict gives the same cores,
    tiles, time and share of fill and drain."""
    low, high, f, c, p = _notebook_12s_model()
    ours = costs["float32", False]
    for k in range(3, 10):
        plan = tiling.plan_for(10**k, ours.dtype_size, False, platforms.platform("910B2"))
        for w in (low, high):
            _, tiles, _, memory, vector, t = _notebook_12s_launch(plan, ours, w, f, c, p)
            predicted = predict(replaced(a2, hbm_bytes_per_second=w), 10**k, ours)
            assert (plan.blockDim, tiles) == (predicted.cores, predicted.tiles)
            assert t == pytest.approx(predicted.seconds)
            steady = max(predicted.memory_seconds, predicted.vector_seconds)
            assert 1 - max(memory, vector) / t == pytest.approx(1 - steady / predicted.seconds)
