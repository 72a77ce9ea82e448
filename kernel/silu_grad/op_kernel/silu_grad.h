// SiluGrad on one vector core: x_grad = grad * d(x), d = dsilu/dx = sigma(x) (1 + x (1 - sigma(x))).
//
// The capstone's skeleton (notebook 14): everything but the arithmetic. Init gives the core its
// slice and carves the UB; Process walks the tiles through CopyIn -> Compute -> CopyOut, as
// MishGrad's kernel does (notebook 05). Compute is empty: the learner writes it into a scratch
// copy of this folder, and the checker judges it (mishgrad.book.exercises.nb14).
//
// What Compute has to work with, for a tile of `length` elements:
//   gradQueue_, xQueue_   one tile of grad and x each, enqueued by CopyIn (DeQue them);
//   outQueue_             a buffer for the tile of x_grad (AllocTensor it, EnQue it for CopyOut);
//   temp_[0..kTemps)      float32 work buffers of tileLength elements each (TBuf::Get<float>());
//   mask_[0..kMasks)      bit masks of tileLength bits each, for CompareScalar and Select.
// Each buffer holds a whole tile: a vector instruction may run on up to tileLength elements.
#ifndef SILU_GRAD_KERNEL_H
#define SILU_GRAD_KERNEL_H

#include <type_traits>

#include "kernel_operator.h"
#include "silu_grad_tiling_data.h"

namespace silugrad {

using namespace AscendC;

constexpr int32_t kQueueDepth = 1;        // one EnQue before each DeQue
constexpr uint8_t kBuffersPerQueue = 2;   // double buffering
constexpr uint32_t kBytesPerBlock = 32;   // DataCopy moves whole blocks
constexpr int kTemps = 6;
constexpr int kMasks = 2;

template <typename T>
class SiluGradKernel {
public:
    __aicore__ inline SiluGradKernel() = default;

    __aicore__ inline void Init(GM_ADDR grad, GM_ADDR x, GM_ADDR xGrad, const SiluGradTilingData& tiling)
    {
        const uint64_t start = GetBlockIdx() * tiling.coreLength;
        const uint64_t rest = tiling.totalLength - start;
        const uint64_t length = rest < tiling.coreLength ? rest : tiling.coreLength;
        tileLength_ = tiling.tileLength;
        tileNum_ = (length + tileLength_ - 1) / tileLength_;
        tailLength_ = static_cast<uint32_t>(length - (tileNum_ - 1) * tileLength_);
        gradGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(grad) + start, length);
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + start, length);
        xGradGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(xGrad) + start, length);
        const uint32_t ioBytes = tileLength_ * sizeof(T);
        pipe_.InitBuffer(gradQueue_, kBuffersPerQueue, ioBytes);
        pipe_.InitBuffer(xQueue_, kBuffersPerQueue, ioBytes);
        pipe_.InitBuffer(outQueue_, kBuffersPerQueue, ioBytes);
        for (int i = 0; i < kTemps; ++i) {
            pipe_.InitBuffer(temp_[i], tileLength_ * sizeof(float));
        }
        for (int i = 0; i < kMasks; ++i) {
            pipe_.InitBuffer(mask_[i], tileLength_ / 8);
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
    __aicore__ inline void CopyIn(uint64_t tile, uint32_t length)
    {
        Load(gradQueue_, gradGm_[tile * tileLength_], length);
        Load(xQueue_, xGm_[tile * tileLength_], length);
    }

    // A tile of whole 32-byte blocks moves with DataCopy; a tail that ends inside a block with
    // DataCopyPad, which moves exactly its bytes.
    __aicore__ inline void Load(TQue<TPosition::VECIN, kQueueDepth>& queue, const GlobalTensor<T>& source,
                                uint32_t length)
    {
        LocalTensor<T> local = queue.template AllocTensor<T>();
        const uint32_t bytes = length * sizeof(T);
        if (bytes % kBytesPerBlock == 0) {
            DataCopy(local, source, length);
        } else {
            DataCopyPad(local, source, DataCopyExtParams{1, bytes, 0, 0, 0}, DataCopyPadExtParams<T>{false, 0, 0, 0});
        }
        queue.EnQue(local);
    }

    // x_grad = grad * d(x) for the tile's `length` elements: the learner's part.
    __aicore__ inline void Compute([[maybe_unused]] uint32_t length)
    {
    }

    __aicore__ inline void CopyOut(uint64_t tile, uint32_t length)
    {
        LocalTensor<T> local = outQueue_.template DeQue<T>();
        const uint32_t bytes = length * sizeof(T);
        if (bytes % kBytesPerBlock == 0) {
            DataCopy(xGradGm_[tile * tileLength_], local, length);
        } else {
            DataCopyPad(xGradGm_[tile * tileLength_], local, DataCopyExtParams{1, bytes, 0, 0, 0});
        }
        outQueue_.FreeTensor(local);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, kQueueDepth> gradQueue_;
    TQue<TPosition::VECIN, kQueueDepth> xQueue_;
    TQue<TPosition::VECOUT, kQueueDepth> outQueue_;
    TBuf<TPosition::VECCALC> temp_[kTemps];
    TBuf<TPosition::VECCALC> mask_[kMasks];
    GlobalTensor<T> gradGm_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> xGradGm_;
    uint32_t tileLength_ = 0;
    uint64_t tileNum_ = 0;
    uint32_t tailLength_ = 0;
};

}  // namespace silugrad

#endif  // SILU_GRAD_KERNEL_H
