// The tiling data: everything the host tells each vector core about its share of work.
//
// A plain struct with fixed-width fields, so that the host (CANN's tiling function, or the
// CPU twin) can write it as bytes and the kernel can read it back with the same layout.
#ifndef MISHGRAD_TILING_DATA_H
#define MISHGRAD_TILING_DATA_H

#include <cstdint>

struct MishGradTilingData {
    uint64_t totalLength;      // n: elements in each of grad, x (and tanhx) and x_grad
    uint32_t blockDim;         // vector cores that take part
    uint32_t bigCoreNum;       // the first bigCoreNum cores take one distribution unit more
    uint64_t bigCoreLength;    // elements on a big core
    uint64_t smallCoreLength;  // elements on a small core (before the last core's clipping)
    uint64_t lastCoreLength;   // elements on the last core, which ends exactly at n
    uint32_t tileLength;       // elements per full tile: what one pass through UB holds
    uint32_t hasTanhx;         // 1: the forward pass supplied tanh(softplus(x))
    uint64_t bigTileNum;       // tiles on a big core; its last tile holds bigTailLength
    uint64_t bigTailLength;
    uint64_t smallTileNum;     // likewise for a small core
    uint64_t smallTailLength;
    uint64_t lastTileNum;      // likewise for the last core
    uint64_t lastTailLength;
};

// The kernel's own workspace, which the tiling function asks for beyond CANN's system
// workspace: the stamp core 0 writes there (mish_grad_stamp.h), 16 little-endian words, one
// 64-byte cache line. Version 2 added words 8-15, the build's identity (version 1 had 8 words).
namespace mishgrad {
constexpr uint32_t kStampWords = 16;
constexpr uint32_t kStampBytes = kStampWords * sizeof(uint32_t);
constexpr uint32_t kStampVersion = 2;
// "MISH" and "GRAD" as little-endian words: the stamp's first 8 bytes read "MISHGRAD".
constexpr uint32_t kStampMagicLow = 0x4853494Du;
constexpr uint32_t kStampMagicHigh = 0x44415247u;
}  // namespace mishgrad

#endif  // MISHGRAD_TILING_DATA_H
