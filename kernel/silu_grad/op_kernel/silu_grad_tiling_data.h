// The tiling data of SiluGrad: what the host tells every vector core.
//
// Core i owns the elements [i * coreLength, min((i + 1) * coreLength, totalLength)); the host
// makes coreLength a multiple of 64 elements (256 bytes of float32), so that every core's
// slice starts on a 32-byte boundary whatever the dtype, and starts only as many cores as have
// elements. A core walks its slice in tiles of tileLength elements, the last one shorter.
#ifndef SILU_GRAD_TILING_DATA_H
#define SILU_GRAD_TILING_DATA_H

#include <cstdint>

struct SiluGradTilingData {
    uint64_t totalLength;  // n: elements in each of grad, x and x_grad
    uint64_t coreLength;   // elements per core (the last core may have fewer)
    uint32_t tileLength;   // elements per full tile, a multiple of 64
    uint32_t reserved;     // keeps the struct 8-byte aligned; the host writes 0
};

#endif  // SILU_GRAD_TILING_DATA_H
