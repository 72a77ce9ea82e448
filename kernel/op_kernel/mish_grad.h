// MishGrad on one vector core: x_grad = grad * dmish/dx(x).
//
// Each core owns a contiguous slice of the tensors (see common/mish_grad_tiling.h) and walks
// it tile by tile through a three-stage pipeline:
//
//   CopyIn   global memory -> UB queues (grad, x and optionally tanhx)
//   Compute  vector instructions in float32 on the UB copies
//   CopyOut  UB queue -> global memory (x_grad)
//
// The in/out queues hold two buffers each (double buffering), so on the hardware the copy
// engines move tile i+1 while the vector unit computes tile i.
//
// The formula (DESIGN §4, notebook 01): with e = exp(-|x|), everything is a rational function
// of e <= 1, so nothing overflows and 1 - t is never formed by a subtraction:
//   x > 0:  t = (1 + 2e) / (1 + 2e + 2e^2)    1 - t = 2e^2 / (1 + 2e + 2e^2)
//   x <= 0: t = (2e + e^2) / (2 + 2e + e^2)   1 - t = 2 / (2 + 2e + e^2)
//   x * sigmoid(x) = (max(x, 0) + min(x, 0) * e) / (1 + e)
//   d = x * sigmoid(x) * (1 - t) * (1 + t) + t
// With tanhx supplied, t is read instead and 1 - t is formed as -t + 1.
#ifndef MISHGRAD_KERNEL_H
#define MISHGRAD_KERNEL_H

#include <type_traits>

#include "kernel_operator.h"
#include "mish_grad_tiling_data.h"

namespace mishgrad {

using namespace AscendC;

constexpr int32_t kQueueDepth = 2;            // double buffering
constexpr uint32_t kFloatsPerRepeat = 64;     // 256 bytes of float32
constexpr uint32_t kBytesPerBlock = 32;
constexpr float kFloatMax = 3.40282347e+38f;  // the largest finite float32

template <typename T>
class MishGradKernel {
public:
    __aicore__ inline MishGradKernel() = default;

    __aicore__ inline void Init(GM_ADDR grad, GM_ADDR x, GM_ADDR tanhx, GM_ADDR xGrad,
                                const MishGradTilingData& tiling)
    {
        hasTanhx_ = tiling.hasTanhx != 0;
        tileLength_ = tiling.tileLength;
        const uint64_t core = GetBlockIdx();
        const uint64_t big = tiling.bigCoreNum;
        uint64_t start = 0;
        uint64_t length = 0;
        if (core < big) {
            start = core * tiling.bigCoreLength;
            length = tiling.bigCoreLength;
            tileNum_ = tiling.bigTileNum;
            tailLength_ = tiling.bigTailLength;
        } else {
            start = big * tiling.bigCoreLength + (core - big) * tiling.smallCoreLength;
            const bool last = core + 1 == tiling.blockDim;
            length = last ? tiling.lastCoreLength : tiling.smallCoreLength;
            tileNum_ = last ? tiling.lastTileNum : tiling.smallTileNum;
            tailLength_ = last ? tiling.lastTailLength : tiling.smallTailLength;
        }
        gradGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(grad) + start, length);
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + start, length);
        xGradGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(xGrad) + start, length);

        // The order and sizes here are the budget table of KernelBudget() in
        // common/mish_grad_tiling.h; the tiling chose tileLength_ so that they fit.
        const uint32_t ioBytes = tileLength_ * sizeof(T);
        const uint32_t floatBytes = tileLength_ * sizeof(float);
        pipe_.InitBuffer(gradQueue_, kQueueDepth, ioBytes);
        pipe_.InitBuffer(xQueue_, kQueueDepth, ioBytes);
        if (hasTanhx_) {
            tanhxGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(tanhx) + start, length);
            pipe_.InitBuffer(tanhxQueue_, kQueueDepth, ioBytes);
        }
        pipe_.InitBuffer(xGradQueue_, kQueueDepth, ioBytes);
        if constexpr (kWidened) {
            pipe_.InitBuffer(xFloat_, floatBytes);
            pipe_.InitBuffer(resultFloat_, floatBytes);
            if (hasTanhx_) {
                pipe_.InitBuffer(tanhxFloat_, floatBytes);
            }
        }
        const int temps = hasTanhx_ ? 2 : 4;
        for (int i = 0; i < temps; ++i) {
            pipe_.InitBuffer(temp_[i], floatBytes);
        }
        if (!hasTanhx_) {
            pipe_.InitBuffer(mask_, tileLength_ / 8);
        }
    }

    __aicore__ inline void Process()
    {
        for (uint64_t tile = 0; tile < tileNum_; ++tile) {
            const uint32_t length = tile + 1 == tileNum_ ? tailLength_ : tileLength_;
            CopyIn(tile, length);
            Compute(length);
            CopyOut(tile, length);
        }
    }

private:
    static constexpr bool kWidened = !std::is_same_v<T, float>;

    __aicore__ inline void CopyIn(uint64_t tile, uint32_t length)
    {
        const uint64_t offset = tile * tileLength_;
        LoadTile(gradQueue_, gradGm_[offset], length);
        LoadTile(xQueue_, xGm_[offset], length);
        if (hasTanhx_) {
            LoadTile(tanhxQueue_, tanhxGm_[offset], length);
        }
    }

    // Whole 32-byte blocks move with DataCopy; a tail that ends inside a block moves with
    // DataCopyPad, which copies exactly length elements and touches nothing past the end.
    __aicore__ inline void LoadTile(TQue<TPosition::VECIN, kQueueDepth>& queue,
                                    const GlobalTensor<T>& source, uint32_t length)
    {
        LocalTensor<T> local = queue.template AllocTensor<T>();
        const uint32_t bytes = length * sizeof(T);
        if (bytes % kBytesPerBlock == 0) {
            DataCopy(local, source, length);
        } else {
            DataCopyPad(local, source, DataCopyExtParams{1, bytes, 0, 0, 0},
                        DataCopyPadExtParams<T>{false, 0, 0, 0});
        }
        queue.EnQue(local);
    }

    __aicore__ inline void CopyOut(uint64_t tile, uint32_t length)
    {
        LocalTensor<T> local = xGradQueue_.template DeQue<T>();
        const uint32_t bytes = length * sizeof(T);
        if (bytes % kBytesPerBlock == 0) {
            DataCopy(xGradGm_[tile * tileLength_], local, length);
        } else {
            DataCopyPad(xGradGm_[tile * tileLength_], local, DataCopyExtParams{1, bytes, 0, 0, 0});
        }
        xGradQueue_.FreeTensor(local);
    }

    __aicore__ inline void Compute(uint32_t length)
    {
        // Vector instructions work in 256-byte repeats: round the count up to whole repeats
        // of float32. The extra lanes hold stale UB data; their results are never copied out.
        const uint32_t count = (length + kFloatsPerRepeat - 1) / kFloatsPerRepeat * kFloatsPerRepeat;
        LocalTensor<T> grad = gradQueue_.template DeQue<T>();
        LocalTensor<T> x = xQueue_.template DeQue<T>();
        LocalTensor<T> tanhx;
        if (hasTanhx_) {
            tanhx = tanhxQueue_.template DeQue<T>();
        }
        LocalTensor<T> out = xGradQueue_.template AllocTensor<T>();
        if constexpr (kWidened) {
            LocalTensor<float> xf = xFloat_.template Get<float>();
            LocalTensor<float> result = resultFloat_.template Get<float>();
            LocalTensor<float> tf;
            Cast(xf, x, RoundMode::CAST_NONE, count);
            if (hasTanhx_) {
                tf = tanhxFloat_.template Get<float>();
                Cast(tf, tanhx, RoundMode::CAST_NONE, count);
            }
            Derivative(result, xf, tf, count);
            // grad is needed only now: widen it into temp 1, free by this point.
            LocalTensor<float> gradf = temp_[1].template Get<float>();
            Cast(gradf, grad, RoundMode::CAST_NONE, count);
            Mul(result, result, gradf, count);
            Cast(out, result, RoundMode::CAST_RINT, count);  // one rounding, ties to even
        } else {
            Derivative(out, x, tanhx, count);
            Mul(out, out, grad, count);
        }
        xGradQueue_.EnQue(out);
        // Free the inputs only after their last use: on the NPU, FreeTensor lets the copy
        // engine refill the buffer while earlier vector instructions may still be reading it.
        gradQueue_.FreeTensor(grad);
        xQueue_.FreeTensor(x);
        if (hasTanhx_) {
            tanhxQueue_.FreeTensor(tanhx);
        }
    }

    // d = dmish/dx into `d`, from float32 x (and tanhx, when supplied). Uses the temps;
    // d may not alias x or tanhx.
    __aicore__ inline void Derivative(const LocalTensor<float>& d, const LocalTensor<float>& x,
                                      const LocalTensor<float>& tanhx, uint32_t count)
    {
        LocalTensor<float> e = temp_[0].template Get<float>();
        LocalTensor<float> b = temp_[1].template Get<float>();
        Abs(e, x, count);
        Muls(e, e, -1.0f, count);
        Exp(e, e, count);  // e = exp(-|x|), in (0, 1]: the only exponential
        if (hasTanhx_) {
            XTimesSigmoid(d, x, e, b, count);
            Muls(b, tanhx, -1.0f, count);
            Adds(b, b, 1.0f, count);  // 1 - t
            Mul(d, d, b, count);
            Adds(b, tanhx, 1.0f, count);  // 1 + t
            Mul(d, d, b, count);
            Add(d, d, tanhx, count);
            return;
        }
        LocalTensor<float> t = temp_[2].template Get<float>();
        LocalTensor<float> c = temp_[3].template Get<float>();
        LocalTensor<uint8_t> positive = mask_.template Get<uint8_t>();
        CompareScalar(positive, x, 0.0f, CMPMODE::GT, count);
        Mul(b, e, e, count);      // e^2
        Add(t, e, e, count);      // 2e
        Adds(c, t, 1.0f, count);  // 1 + 2e: numerator of t for x > 0
        Add(t, t, b, count);      // 2e + e^2: numerator of t for x <= 0
        Select(t, positive, c, t, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        Add(b, b, b, count);      // 2e^2: numerator of 1 - t for x > 0 (2 for x <= 0)
        Select(b, positive, b, 2.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        Add(c, t, b, count);      // the common denominator, in [1, 5]
        Div(t, t, c, count);      // t
        Div(b, b, c, count);      // 1 - t
        XTimesSigmoid(d, x, e, c, count);
        Mul(d, d, b, count);
        Adds(b, t, 1.0f, count);  // 1 + t
        Mul(d, d, b, count);
        Add(d, d, t, count);
    }

    // dst = x * sigmoid(x) = (max(x, 0) + min(x, 0) * e) / (1 + e). Clamping each part to
    // +-FLT_MAX keeps x = +-inf finite here, so that d(+inf) = 1 and d(-inf) = 0 rather than
    // inf * 0 = NaN. Leaves 1 + e in `e`; uses `scratch`.
    __aicore__ inline void XTimesSigmoid(const LocalTensor<float>& dst, const LocalTensor<float>& x,
                                         const LocalTensor<float>& e,
                                         const LocalTensor<float>& scratch, uint32_t count)
    {
        Mins(scratch, x, 0.0f, count);
        Maxs(scratch, scratch, -kFloatMax, count);
        Mul(scratch, scratch, e, count);  // min(x, 0) * e
        Adds(e, e, 1.0f, count);          // 1 + e
        Maxs(dst, x, 0.0f, count);
        Mins(dst, dst, kFloatMax, count);
        Add(dst, dst, scratch, count);
        Div(dst, dst, e, count);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, kQueueDepth> gradQueue_;
    TQue<TPosition::VECIN, kQueueDepth> xQueue_;
    TQue<TPosition::VECIN, kQueueDepth> tanhxQueue_;
    TQue<TPosition::VECOUT, kQueueDepth> xGradQueue_;
    TBuf<TPosition::VECCALC> xFloat_;
    TBuf<TPosition::VECCALC> resultFloat_;
    TBuf<TPosition::VECCALC> tanhxFloat_;
    TBuf<TPosition::VECCALC> temp_[4];
    TBuf<TPosition::VECCALC> mask_;
    GlobalTensor<T> gradGm_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> tanhxGm_;
    GlobalTensor<T> xGradGm_;
    bool hasTanhx_ = false;
    uint32_t tileLength_ = 0;
    uint64_t tileNum_ = 0;
    uint32_t tailLength_ = 0;
};

}  // namespace mishgrad

#endif  // MISHGRAD_KERNEL_H
