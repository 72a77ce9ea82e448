"""A second operator, written into a temporary folder, runs on the twin as MishGrad does.

The operator is shaped like the book's: two inputs, one output, float32, float16 and
bfloat16, with the 16-bit types computed in float32 (``out = grad * 2x``). It is an operator
folder plus an :class:`~mishgrad.kernel.operators.OperatorSpec`, built by the same
:func:`~mishgrad.kernel.twin_build.kernel_spec` and run by the same launcher
(:func:`mishgrad.kernel.launcher.run_operator`, on :func:`~mishgrad.kernel.launcher.launch`),
in this process and isolated in the worker, with a trace the roofline reads. Nothing of
``kernel/twin`` is changed or names either operator.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
import trace_checks

from mishgrad.evaluation.roofline import Roofline, operator_cost
from mishgrad.kernel import launcher, source, trace, twin, twin_abi, twin_build
from mishgrad.kernel.operators import TILING, WORKSPACE, OperatorSpec
from mishgrad.math.dtypes import as_dtype

pytestmark = pytest.mark.slow  # builds a library of its own

TILING_DATA = """\
// The tiling of ScaledGrad: each core owns coreLength elements, walked in tiles.
#ifndef SCALED_GRAD_TILING_DATA_H
#define SCALED_GRAD_TILING_DATA_H

#include <cstdint>

struct ScaledGradTilingData {
    uint64_t coreLength;  // elements per core
    uint32_t tileLength;  // elements per tile
    uint32_t tiles;       // tiles per core
};

#endif  // SCALED_GRAD_TILING_DATA_H
"""

KERNEL = """\
// ScaledGrad: out = grad * 2x, in float32 whatever the tensors' dtype.
#include <type_traits>

#include "kernel_operator.h"
#include "scaled_grad_tiling_data.h"

using namespace AscendC;

template <typename T>
class ScaledGrad {
public:
    __aicore__ inline void Init(GM_ADDR grad, GM_ADDR x, GM_ADDR out,
                                const ScaledGradTilingData& tiling)
    {
        tiling_ = tiling;
        const uint64_t start = GetBlockIdx() * tiling.coreLength;
        grad_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(grad) + start, tiling.coreLength);
        x_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + start, tiling.coreLength);
        out_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out) + start, tiling.coreLength);
        const uint32_t bytes = tiling.tileLength * sizeof(T);
        pipe_.InitBuffer(gradQueue_, 2, bytes);
        pipe_.InitBuffer(xQueue_, 2, bytes);
        pipe_.InitBuffer(outQueue_, 2, bytes);
        pipe_.InitBuffer(wide_, 2 * tiling.tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t tile = 0; tile < tiling_.tiles; ++tile) {
            CopyIn(tile);
            Compute();
            CopyOut(tile);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t tile)
    {
        LocalTensor<T> grad = gradQueue_.template AllocTensor<T>();
        LocalTensor<T> x = xQueue_.template AllocTensor<T>();
        DataCopy(grad, grad_[tile * tiling_.tileLength], tiling_.tileLength);
        DataCopy(x, x_[tile * tiling_.tileLength], tiling_.tileLength);
        gradQueue_.EnQue(grad);
        xQueue_.EnQue(x);
    }

    __aicore__ inline void Compute()
    {
        const uint32_t n = tiling_.tileLength;
        LocalTensor<T> grad = gradQueue_.template DeQue<T>();
        LocalTensor<T> x = xQueue_.template DeQue<T>();
        LocalTensor<T> out = outQueue_.template AllocTensor<T>();
        if constexpr (std::is_same_v<T, float>) {
            Mul(out, grad, x, n);
            Muls(out, out, 2.0f, n);
        } else {  // widen, compute in float32, round once
            LocalTensor<float> a = wide_.template Get<float>();
            LocalTensor<float> b = a[n];
            Cast(a, grad, RoundMode::CAST_NONE, n);
            Cast(b, x, RoundMode::CAST_NONE, n);
            Mul(a, a, b, n);
            Muls(a, a, 2.0f, n);
            Cast(out, a, RoundMode::CAST_RINT, n);
        }
        outQueue_.EnQue(out);
        gradQueue_.FreeTensor(grad);
        xQueue_.FreeTensor(x);
    }

    __aicore__ inline void CopyOut(uint32_t tile)
    {
        LocalTensor<T> out = outQueue_.template DeQue<T>();
        DataCopy(out_[tile * tiling_.tileLength], out, tiling_.tileLength);
        outQueue_.FreeTensor(out);
    }

    ScaledGradTilingData tiling_{};
    TPipe pipe_;
    TQue<TPosition::VECIN, 1> gradQueue_;
    TQue<TPosition::VECIN, 1> xQueue_;
    TQue<TPosition::VECOUT, 1> outQueue_;
    TBuf<TPosition::VECCALC> wide_;
    GlobalTensor<T> grad_;
    GlobalTensor<T> x_;
    GlobalTensor<T> out_;
};

extern "C" __global__ __aicore__ void scaled_grad(GM_ADDR grad, GM_ADDR x, GM_ADDR out,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA_WITH_STRUCT(ScaledGradTilingData, data, tiling);
    ScaledGrad<DTYPE_X> kernel;
    kernel.Init(grad, x, out, data);
    kernel.Process();
}
"""

#: Cores, tiles per core and elements per tile of every launch here.
CORES, TILES, TILE = 3, 2, 256
DTYPES = ("float32", "float16", "bfloat16")


def _digest(folder: Path) -> str:
    hasher = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            hasher.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return hasher.hexdigest()


@pytest.fixture(scope="module")
def twin_before() -> str:
    return _digest(source.TWIN_DIR)


@pytest.fixture(scope="module")
def scaled_grad(tmp_path_factory: pytest.TempPathFactory, twin_before: str) -> OperatorSpec:
    """The operator's folder (its kernel only: the twin needs no more) and its spec."""
    folder = tmp_path_factory.mktemp("kernel") / "scaled_grad"
    (folder / "op_kernel").mkdir(parents=True)
    (folder / "op_kernel" / "scaled_grad.cpp").write_text(KERNEL)
    (folder / "op_kernel" / "scaled_grad_tiling_data.h").write_text(TILING_DATA)
    return OperatorSpec(
        name="scaled_grad",
        arguments=("grad", "x", "out", WORKSPACE, TILING),
        inputs=("grad", "x"),
        outputs=("out",),
        folder=folder,
        reference=reference,
    )


def tiling(n: int) -> bytes:
    """ScaledGradTilingData for n elements: CORES cores of TILES tiles each."""
    assert n == CORES * TILES * TILE
    return np.array([(TILES * TILE, TILE, TILES)], "<u8,<u4,<u4").tobytes()


def reference(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """grad * 2x in float32, rounded once to the inputs' dtype (round to nearest even)."""
    wide = grad.astype(np.float32) * x.astype(np.float32) * np.float32(2.0)
    return wide.astype(grad.dtype)


def launch(spec: OperatorSpec, dtype: str, *, isolated: bool, traced: bool = False):
    """One launch of the operator on random inputs: (grad, x, out, trace)."""
    kind = as_dtype(dtype)
    rng = np.random.default_rng(31)
    n = CORES * TILES * TILE
    grad, x = (rng.uniform(-4.0, 4.0, n).astype(kind) for _ in range(2))
    run = launcher.run_operator(
        spec, {"grad": grad, "x": x}, tiling(n), CORES, TILES, trace=traced, isolated=isolated
    )
    return grad, x, run.outputs["out"], run.trace


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_second_operator_computes_grad_times_2x(scaled_grad, dtype):
    grad, x, out, _ = launch(scaled_grad, dtype, isolated=False)
    assert scaled_grad.reference is not None
    assert out.tobytes() == scaled_grad.reference(grad, x).tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_isolated_in_the_worker_it_writes_the_same_bytes(scaled_grad, dtype):
    *_, here, _ = launch(scaled_grad, dtype, isolated=False)
    grad, x, there, _ = launch(scaled_grad, dtype, isolated=True)
    assert there.tobytes() == here.tobytes() == reference(grad, x).tobytes()


def test_its_trace_is_read_by_the_same_analyses_and_roofline(scaled_grad):
    _, _, _, events = launch(scaled_grad, "float16", isolated=True, traced=True)
    assert set(np.unique(events["core"])) == set(range(CORES))
    assert all(trace_checks.tile_count(events, core) == TILES for core in range(CORES))
    counts = trace.instruction_counts(events)
    assert counts.by_op == {"Cast": 3, "Mul": 1, "Muls": 1}
    cost = operator_cost(scaled_grad, counts, "float16")
    assert (cost.read_bytes, cost.write_bytes) == (4, 2)  # two inputs and one output
    assert cost.label == "scaled_grad, float16" and cost.instruction_count == 5
    roofline = Roofline.for_chip()
    assert roofline.vector_elements_per_second(cost) > roofline.memory_elements_per_second(cost)
    assert roofline.bound(cost) == "bandwidth"


def test_a_launch_on_the_wrong_dtypes_library_is_refused(scaled_grad):
    spec = twin_build.kernel_spec(operator=scaled_grad, dtype="float32")
    assert spec.exports == ("scaled_grad_float",) and spec.name == "scaled_grad_twin_float32"
    with pytest.raises(ValueError, match="supports float32, float16, bfloat16, not 'int8'"):
        scaled_grad.entry("int8")


def test_the_twin_is_left_as_it_was_and_names_no_operator(scaled_grad, twin_before):
    for dtype in DTYPES:
        launch(scaled_grad, dtype, isolated=False)
    assert _digest(source.TWIN_DIR) == twin_before
    named = re.compile(r"mish_grad|MishGrad|aclnnMish|scaled_grad")
    for path in sorted(source.TWIN_DIR.rglob("*")):
        if path.is_file():
            hits = [line for line in path.read_text().splitlines() if named.search(line)]
            assert hits == [], f"{path} names an operator: {hits}"


@pytest.mark.parametrize(
    ("arguments", "block_dim", "says"),
    [(17, 1, "at most 16 arguments, not 17"), (5, 0, "blockDim must be positive")],
)
def test_the_launcher_refuses_a_malformed_launch(scaled_grad, arguments, block_dim, says):
    x = np.ones(CORES * TILES * TILE, np.float32)
    tensors = {"grad": x, "x": x, "out": np.empty_like(x)}
    names = (*scaled_grad.arguments, *[WORKSPACE] * (arguments - len(scaled_grad.arguments)))
    one = twin_abi.Launch(
        "scaled_grad_float", names, tensors, ("out",), tiling(x.size), block_dim, 1
    )
    library = twin_build.build(twin_build.kernel_spec(operator=scaled_grad, dtype="float32"))
    with pytest.raises(twin.KernelError, match=says):
        launcher.launch(
            library, one, twin_abi.TwinConfig(196_608, 188_416, 1, 0, 0), isolated=False
        )


def test_inputs_must_be_the_operators_and_alike(scaled_grad):
    x = np.ones(CORES * TILES * TILE, np.float32)
    with pytest.raises(ValueError, match=r"missing \['grad'\], unknown \['y'\]"):
        launcher.run_operator(scaled_grad, {"x": x, "y": x}, tiling(x.size), CORES, TILES)
    with pytest.raises(ValueError, match="share one dtype and size"):
        launcher.run_operator(
            scaled_grad, {"grad": x, "x": x.astype(np.float16)}, tiling(x.size), CORES, TILES
        )
    wide = x.astype(np.float64)
    with pytest.raises(ValueError, match=r"dtype must be one of .*got float64"):
        launcher.run_operator(scaled_grad, {"grad": wide, "x": wide}, tiling(x.size), CORES, TILES)


def test_a_spec_must_name_its_tensors_among_the_entrys_arguments():
    with pytest.raises(ValueError, match="must be among the arguments"):
        OperatorSpec(name="broken", arguments=("x", TILING), inputs=("x",), outputs=("y",))
