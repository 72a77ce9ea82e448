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
// The formula (notebook 01). With e = exp(-|x|) <= 1, sigma = 1 + e and, on each side of 0,
//   x > 0:   V = 2 e      D = 1 + sigma V      S = 2 sigma V          L = 1       P = 1
//   x <= 0:  V = sigma    D = 1 + sigma V      S = V D + D + 2 e      L = 1 + x   P = e
// the derivative is a leading term and one quotient:
//   d = P (L - e (S (-|x|) + V D) / D^2)                               (D in [1, 5])
// P L carries the value; the one division only forms the correction, which is small beside L
// where most inputs are (below 1.25 e L for x <= -3, below 0.07 for x >= 2), so its rounding
// barely shows in d (notebook 03 measures what that buys). Near the root of d (x0 = -1.19243), L and the
// correction cancel, and a Taylor polynomial in x - x0 takes over (RootWindow). Below x = -64
// the exponential is taken of x / 2 and P applied as two such factors, so d stays normal
// wherever the true d is, even where the vector unit flushes a subnormal exp(x) to zero.
// With tanhx supplied, t is read instead: d = t + x sigmoid(x) (1 - t)(1 + t).
//
// float16 and bfloat16 without tanhx take a shorter path (NarrowDerivative): their outputs carry
// 8 or 11 significant bits, not 24, so a few float32 roundings more are invisible in them and
// the root window and far band are not needed (notebook 12 measures it on every input). With
// w = exp(x), u = 1 + w and D = u^2 + 1, one fraction is d:
//   d = w (u (D + 4x) + D) / D^2
#ifndef MISHGRAD_KERNEL_H
#define MISHGRAD_KERNEL_H

#include <type_traits>

#include "kernel_operator.h"
#include "mish_grad_tiling_data.h"

namespace mishgrad {

using namespace AscendC;

// A queue's depth is how many EnQue may precede a DeQue (each stage here enqueues one tile and
// the next stage dequeues it: 1, AscendC's recommendation); double buffering is the number
// of buffers InitBuffer gives each queue (asc-devkit TQue/TQue简介.md, TPipe/InitBuffer.md).
constexpr int32_t kQueueDepth = 1;
constexpr uint8_t kBuffersPerQueue = 2;       // double buffering
constexpr uint32_t kFloatsPerRepeat = 64;     // 256 bytes of float32
constexpr uint32_t kBytesPerBlock = 32;
constexpr float kFloatMax = 3.40282347e+38f;  // the largest finite float32
constexpr int kTemps = 5;                     // float32 temporaries of the no-tanhx branch
// Below this x the exponential is taken of x / 2 (see Exponential): exp(x) is normal down to
// x = -87.3, and a correction of size exp(x / 2) < 2^-46 vanishes beside 1 + x.
constexpr float kFarLimit = -64.0f;
constexpr float kTwoToMinus64 = 5.42101086e-20f;  // 2^-64, exact
// Beyond |x| = 2^20, e = 0 and the argument only ever multiplies zero: clamping it there
// turns x = +-inf into a finite product (0, not inf * 0 = NaN) and changes nothing else.
constexpr float kArgumentClamp = 1048576.0f;
// The root of d, x0 = kRootHigh + kRootLow (a float32 and the rest), the Taylor
// coefficients of d there (d = c1 u + c2 u^2 + c3 u^3 + ...), and the half-width of the
// window where the polynomial is used. mishgrad.math.numerics.root_expansion derives them; a
// test compares.
constexpr float kRootHigh = -1.1924312f;
constexpr float kRootLow = -3.0439375e-09f;
constexpr float kRootC1 = 0.26694793f;
constexpr float kRootC2 = 0.20473127f;
constexpr float kRootC3 = 0.04190782f;
constexpr float kRootHalfWidth = 0.04f;
// The 16-bit path clamps x to [-kArgumentClamp, kNarrowHigh]: above x = 8 the 16-bit d is 1,
// and below 22 the fraction's w^4 stays finite in float32.
constexpr float kNarrowHigh = 16.0f;

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
        pipe_.InitBuffer(gradQueue_, kBuffersPerQueue, ioBytes);
        pipe_.InitBuffer(xQueue_, kBuffersPerQueue, ioBytes);
        if (hasTanhx_) {
            tanhxGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(tanhx) + start, length);
            pipe_.InitBuffer(tanhxQueue_, kBuffersPerQueue, ioBytes);
        }
        pipe_.InitBuffer(xGradQueue_, kBuffersPerQueue, ioBytes);
        if constexpr (kWidened) {
            pipe_.InitBuffer(xFloat_, floatBytes);
            pipe_.InitBuffer(resultFloat_, floatBytes);
            if (hasTanhx_) {
                pipe_.InitBuffer(tanhxFloat_, floatBytes);
            }
        }
        const int temps = hasTanhx_ || kWidened ? 2 : kTemps;
        for (int i = 0; i < temps; ++i) {
            pipe_.InitBuffer(temp_[i], floatBytes);
        }
        if (!hasTanhx_ && !kWidened) {
            pipe_.InitBuffer(far_, tileLength_ / 8);
            pipe_.InitBuffer(nonPositive_, tileLength_ / 8);
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
    // bfloat16 has float32's exponents: its d is normal down to x = -91, past x = -87.3 where
    // exp(x) is subnormal and may be flushed. float16's d is 0 below x = -21: exp(x) will do.
    static constexpr bool kHalvedExp = std::is_same_v<T, bfloat16_t>;

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
        // CompareScalar's count must fill whole 256-byte repeats (asc-devkit's Compares page), so
        // the count is rounded up once, to whole repeats of float32, and every instruction uses
        // it. The extra lanes hold stale UB data; their results are never copied out.
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
            Cast(xf, x, RoundMode::CAST_NONE, count);
            if (hasTanhx_) {
                LocalTensor<float> tf = tanhxFloat_.template Get<float>();
                Cast(tf, tanhx, RoundMode::CAST_NONE, count);
                DerivativeFromTanhx(result, xf, tf, count);
            } else {
                NarrowDerivative(result, xf, count);
            }
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

    // d = dmish/dx into `d`, from float32 x (and tanhx, when supplied), for float32 tensors.
    // Uses the temps, the masks and `d` itself as scratch; d may not alias x or tanhx.
    __aicore__ inline void Derivative(const LocalTensor<float>& d, const LocalTensor<float>& x,
                                      const LocalTensor<float>& tanhx, uint32_t count)
    {
        if (hasTanhx_) {
            DerivativeFromTanhx(d, x, tanhx, count);
            return;
        }
        LocalTensor<float> a = temp_[0].template Get<float>();
        LocalTensor<float> e = temp_[1].template Get<float>();
        LocalTensor<float> w = temp_[2].template Get<float>();
        LocalTensor<float> s = temp_[3].template Get<float>();
        LocalTensor<float> v = temp_[4].template Get<float>();
        LocalTensor<uint8_t> far = far_.template Get<uint8_t>();
        LocalTensor<uint8_t> nonPositive = nonPositive_.template Get<uint8_t>();
        Exponential(a, e, x, count);
        Maxs(a, a, -kArgumentClamp, count);  // after Exp: keeps NaN there, makes +-inf finite here
        CompareScalar(nonPositive, x, 0.0f, CMPMODE::LE, count);
        Adds(w, e, 1.0f, count);      // sigma = 1 + e
        Add(s, e, e, count);          // 2e
        Select(v, nonPositive, w, s, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);  // V
        Mul(w, w, v, count);          // sigma V
        Adds(d, w, 1.0f, count);      // D = 1 + sigma V: 1 + 2e + 2e^2 or 2 + 2e + e^2
        Mul(v, v, d, count);          // V D
        Add(s, d, s, count);
        Add(s, s, v, count);          // S for x <= 0: V D + D + 2e
        Add(w, w, w, count);          // S for x > 0: 2 sigma V
        Select(s, nonPositive, s, w, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        Mul(s, s, a, count);
        Add(s, s, v, count);
        Mul(s, s, e, count);          // e (S a + V D), a = -|x|
        Mul(d, d, d, count);
        Div(s, s, d, count);          // the correction, the one division
        Adds(w, a, 1.0f, count);
        Select(w, nonPositive, w, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);  // L
        Sub(w, w, s, count);
        Select(v, nonPositive, e, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);  // P
        Mul(d, w, v, count);
        Select(v, far, e, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);  // P's second factor
        Mul(d, d, v, count);          // d = P (L - correction)
        RootWindow(d, x, a, e, far, count);
    }

    // The one exponential: a = -|x|, and in `e` exp(-|x|), or exp(-|x| / 2) where x < -64
    // (marked in `far`): there exp(x) is on its way to subnormal (x < -87.3), which the vector
    // unit may flush to zero, while exp(x / 2) stays normal down to x = -174. Those lanes apply
    // P as e * e at the very end; everywhere else e is exact to one rounding of Exp.
    __aicore__ inline void Exponential(const LocalTensor<float>& a, const LocalTensor<float>& e,
                                       const LocalTensor<float>& x, uint32_t count)
    {
        LocalTensor<uint8_t> far = far_.template Get<uint8_t>();
        Abs(a, x, count);
        Muls(a, a, -1.0f, count);
        CompareScalar(far, x, kFarLimit, CMPMODE::LT, count);
        Muls(e, a, 0.5f, count);
        Select(e, far, e, a, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        Exp(e, e, count);
    }

    // d for 16-bit tensors without tanhx, into `d`: d = w (u (D + 4x) + D) / D^2 with
    // w = exp(x), u = 1 + w, D = u^2 + 1 (x clamped first: +-inf give 1 and 0, NaN stays).
    // bfloat16 takes h = exp(x / 2), w = h h, and multiplies the quotient by h twice, so
    // that d stays normal wherever the true d is. Overwrites x; uses temps 0 and 1.
    __aicore__ inline void NarrowDerivative(const LocalTensor<float>& d, const LocalTensor<float>& x,
                                            uint32_t count)
    {
        LocalTensor<float> ex = temp_[0].template Get<float>();  // w, or h for bfloat16
        LocalTensor<float> u = temp_[1].template Get<float>();
        Mins(x, x, kNarrowHigh, count);
        Maxs(x, x, -kArgumentClamp, count);
        if constexpr (kHalvedExp) {
            Muls(ex, x, 0.5f, count);
            Exp(ex, ex, count);
            Mul(u, ex, ex, count);
            Adds(u, u, 1.0f, count);
        } else {
            Exp(ex, x, count);
            Adds(u, ex, 1.0f, count);
        }
        Mul(d, u, u, count);
        Adds(d, d, 1.0f, count);  // D
        Muls(x, x, 4.0f, count);
        Add(x, x, d, count);
        Mul(x, x, u, count);
        Add(x, x, d, count);      // u (D + 4x) + D: near the root of d, its terms cancel
        Mul(d, d, d, count);
        Div(d, x, d, count);      // the one division
        Mul(d, d, ex, count);
        if constexpr (kHalvedExp) {
            Mul(d, d, ex, count);
        }
    }

    // Near the root x0 of d, every form built on exp(x) keeps an absolute error of a few
    // 1e-8 (the exponential's own rounding), which is a large relative error as d -> 0.
    // There d is the Taylor polynomial d = u (c1 + u (c2 + c3 u)) in u = (x - x0_hi) - x0_lo;
    // x - x0_hi is exact (Sterbenz), so every term keeps full relative accuracy.
    __aicore__ inline void RootWindow(const LocalTensor<float>& d, const LocalTensor<float>& x,
                                      const LocalTensor<float>& u, const LocalTensor<float>& p,
                                      const LocalTensor<uint8_t>& inside, uint32_t count)
    {
        Adds(u, x, -kRootHigh, count);
        Adds(u, u, -kRootLow, count);
        Abs(p, u, count);
        CompareScalar(inside, p, kRootHalfWidth, CMPMODE::LT, count);
        Muls(p, u, kRootC3, count);
        Adds(p, p, kRootC2, count);
        Mul(p, p, u, count);
        Adds(p, p, kRootC1, count);
        Mul(p, p, u, count);
        Select(d, inside, p, d, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
    }

    // The tanhx branch: d = t + x s (1 - t)(1 + t) with the supplied t, and
    // x s = (max(x, 0) + min(x, 0) e) / (1 + e) with e = exp(-|x|) = h * h, h = exp(-|x| / 2).
    // min(x, 0) e is formed as (min(x, 0) h) h, which stays normal where the true product is
    // even when e itself is flushed to zero (x < -87.3). The quotient is taken 2^64 times too
    // large (the denominator scaled by 2^-64) and 1 - t 2^64 times too small, so that a
    // subnormal x s is not flushed by Div: d keeps its sign where it is subnormal too.
    __aicore__ inline void DerivativeFromTanhx(const LocalTensor<float>& d, const LocalTensor<float>& x,
                                               const LocalTensor<float>& t, uint32_t count)
    {
        LocalTensor<float> h = temp_[0].template Get<float>();
        LocalTensor<float> e = temp_[1].template Get<float>();
        Abs(h, x, count);
        Muls(h, h, -0.5f, count);
        Exp(h, h, count);  // h = exp(-|x| / 2): the only exponential
        Mul(e, h, h, count);
        Mins(d, x, 0.0f, count);
        Maxs(d, d, -kFloatMax, count);  // x = -inf: -FLT_MAX * 0 = 0, not -inf * 0 = NaN
        Mul(d, d, h, count);
        Mul(d, d, h, count);  // min(x, 0) e
        Muls(e, e, kTwoToMinus64, count);
        Adds(e, e, kTwoToMinus64, count);  // (1 + e) 2^-64
        Maxs(h, x, 0.0f, count);
        Mins(h, h, kFloatMax * kTwoToMinus64, count);  // x = +inf: finite, times 1 - t = 0 below
        Add(d, d, h, count);
        Div(d, d, e, count);  // x s 2^64
        Muls(h, t, -kTwoToMinus64, count);
        Adds(h, h, kTwoToMinus64, count);  // (1 - t) 2^-64
        Mul(d, d, h, count);
        Adds(h, t, 1.0f, count);  // 1 + t
        Mul(d, d, h, count);
        Add(d, d, t, count);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, kQueueDepth> gradQueue_;
    TQue<TPosition::VECIN, kQueueDepth> xQueue_;
    TQue<TPosition::VECIN, kQueueDepth> tanhxQueue_;
    TQue<TPosition::VECOUT, kQueueDepth> xGradQueue_;
    TBuf<TPosition::VECCALC> xFloat_;
    TBuf<TPosition::VECCALC> resultFloat_;
    TBuf<TPosition::VECCALC> tanhxFloat_;
    TBuf<TPosition::VECCALC> temp_[kTemps];
    TBuf<TPosition::VECCALC> far_;
    TBuf<TPosition::VECCALC> nonPositive_;
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
