// The tiling arithmetic of MishGrad: pure C++17, no CANN header, no allocation.
//
// One function decides how n elements are spread over the vector cores and cut into tiles
// that fit the Unified Buffer (UB). CANN's tiling entry (op_host/mish_grad_tiling.cpp) and the
// CPU twin both call it, so the NPU and the twin always run the same plan.
//
// Units. Work is handed to cores in whole 256-byte repeats of the input dtype (the width of
// one vector instruction; CompareScalar's count must span whole 256-byte repeats), so every
// core but the last starts on a repeat boundary and only the last core ends inside a repeat.
// Tiles are multiples of 256 elements, so that each buffer, including the one-bit-per-element
// comparison mask, is a whole number of 32-byte blocks.
#ifndef MISHGRAD_COMMON_TILING_H
#define MISHGRAD_COMMON_TILING_H

#include <cstdint>

// Relative: ops-nn puts neither op_kernel/ nor common/ on any include path.
#include "../op_kernel/mish_grad_tiling_data.h"

namespace mishgrad {

constexpr uint32_t kBlockBytes = 32;         // UB addresses and DataCopy lengths: whole blocks
constexpr uint32_t kRepeatBytes = 256;       // bytes one vector instruction repeat processes
constexpr uint32_t kBufferNum = 2;           // double buffering of the in/out queues
constexpr uint32_t kTileAlignElements = 256; // 256 mask bits = one 32-byte block
// Select's tensor modes need the top 8 KB of UB as scratch where the platform says so
// (Atlas A2; not Ascend 950's count-based Select): AscendC's Select page.
constexpr uint64_t kSelectScratchBytes = 8192;

// What the tiling must know about a SoC's UB beyond the size the tiling API reports.
struct SocUb {
    uint64_t reservedBytes;  // the physical UB less the size GetCoreMemSize(UB) reports
    bool selectUsesScratch;  // Select's tensor modes use the top kSelectScratchBytes of the physical UB
};

// CANN's PlatformAscendC::GetCoreMemSize reports the UB less 256 bytes on SocVersion::ASCEND910B
// only, and the whole UB on every other SoC unless the tiling reserves some itself with
// ReserveLocalMemory, as MishGrad's does not (asc-devkit 82b89a1,
// impl/utils/tiling/platform/platform_ascendc.cpp lines 27 and 149-159). ASCEND910B is Atlas A2,
// and Atlas A3 too: CANN maps "Ascend910_93" to it (lines 47-48). Select's tensor modes need the
// scratch area on both (the Select page).
constexpr SocUb kAscend910BUb = {256, true};
// SocVersion::ASCEND950 (Ascend 950): nothing reserved; its count-based Select needs no scratch.
// The book's what-if only (notebooks 04 and 07, through the twin): the package has no kernel for
// the 950, and CANN's tiling entry refuses it.
constexpr SocUb kAscend950Ub = {0, false};

// One UB buffer of the kernel, in bytes per element of a tile.
struct UbBuffer {
    const char* name;
    uint32_t copies;         // kBufferNum for a double-buffered queue, 1 otherwise
    uint32_t bitsPerElement; // 8 * element size, or 1 for a bit mask
};

constexpr uint32_t kMaxBuffers = 12;

// The buffers the kernel allocates for one dtype and branch, and the UB bytes they may use.
struct UbBudget {
    UbBuffer buffers[kMaxBuffers];
    uint32_t count;
    uint64_t limitBytes;
};

enum class TilingStatus : int32_t {
    kOk = 0,
    kEmptyInput = 1,        // n == 0: nothing to launch (the aclnn layer returns early)
    kUnsupportedDtype = 2,  // element size is neither 2 nor 4 bytes
    kNoCores = 3,           // the platform reported no vector core
    kUbTooSmall = 4,        // not even one 256-element tile fits
};

// What a status means, for a log line (CANN's tiling entry writes it with OP_LOGE).
inline const char* TilingStatusText(TilingStatus status)
{
    switch (status) {
        case TilingStatus::kOk: return "ok";
        case TilingStatus::kEmptyInput: return "the tensor is empty: there is nothing to launch";
        case TilingStatus::kUnsupportedDtype: return "the element size is neither 2 nor 4 bytes";
        case TilingStatus::kNoCores: return "the platform reports no vector core";
        case TilingStatus::kUbTooSmall: return "not even one 256-element tile fits in the UB";
    }
    return "unknown tiling status";
}

constexpr uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
constexpr uint64_t AlignUp(uint64_t a, uint64_t b) { return CeilDiv(a, b) * b; }

// The buffer table of op_kernel/mish_grad.h, which must allocate exactly these (the twin's
// tests compare this table with the kernel's InitBuffer calls). ubBytes is the UB size the
// platform reports; soc says where Select's scratch area lies, if it has one.
inline UbBudget KernelBudget(uint32_t dtypeSize, bool hasTanhx, uint64_t ubBytes, const SocUb& soc)
{
    const uint32_t io = 8 * dtypeSize;
    const bool widened = dtypeSize != 4;  // 16-bit inputs are computed in float32 copies
    UbBudget budget{};
    auto add = [&budget](const char* name, uint32_t copies, uint32_t bits) {
        budget.buffers[budget.count++] = UbBuffer{name, copies, bits};
    };
    add("grad queue", kBufferNum, io);
    add("x queue", kBufferNum, io);
    if (hasTanhx) {
        add("tanhx queue", kBufferNum, io);
    }
    add("x_grad queue", kBufferNum, io);
    if (widened) {
        add("x (float32)", 1, 32);
        add("result (float32)", 1, 32);
        if (hasTanhx) {
            add("tanhx (float32)", 1, 32);
        }
    }
    // float32 without tanhx is the one path with Select, masks and five temps; the others,
    // the 16-bit one without tanhx too, compute with two temps and select nothing.
    const bool selects = !hasTanhx && !widened;
    const uint32_t temps = selects ? 5 : 2;
    static const char* const kTempNames[] = {"temp 0", "temp 1", "temp 2", "temp 3", "temp 4"};
    for (uint32_t i = 0; i < temps; ++i) {
        add(kTempNames[i], 1, 32);
    }
    if (selects) {
        add("x > 0 mask (bits)", 1, 1);
        add("x <= 0 mask (bits)", 1, 1);
    }
    // Select in tensor mode needs a scratch area where the platform says so: the top 8 KB of
    // the physical UB, and every buffer must end below it.
    const uint64_t physical = ubBytes + soc.reservedBytes;
    if (!selects || !soc.selectUsesScratch) {
        budget.limitBytes = ubBytes;
    } else {
        budget.limitBytes = physical > kSelectScratchBytes ? physical - kSelectScratchBytes : 0;
    }
    return budget;
}

// UB bytes the budget's buffers occupy for a tile of tileLength elements.
inline uint64_t BudgetBytes(const UbBudget& budget, uint64_t tileLength)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < budget.count; ++i) {
        const UbBuffer& buffer = budget.buffers[i];
        const uint64_t bytes = AlignUp(CeilDiv(tileLength * buffer.bitsPerElement, 8), kBlockBytes);
        total += buffer.copies * bytes;
    }
    return total;
}

// The largest multiple of kTileAlignElements whose buffers fit the budget (0 if none does).
inline uint64_t MaxTileLength(const UbBudget& budget)
{
    uint64_t bitsPerElement = 0;
    for (uint32_t i = 0; i < budget.count; ++i) {
        bitsPerElement += budget.buffers[i].copies * budget.buffers[i].bitsPerElement;
    }
    // With tiles a multiple of 256 elements every buffer is already whole blocks, so the
    // budget is linear in the tile length.
    const uint64_t elements = budget.limitBytes * 8 / bitsPerElement;
    return elements / kTileAlignElements * kTileAlignElements;
}

inline void SplitIntoTiles(uint64_t length, uint64_t tileLength, uint64_t* tileNum, uint64_t* tail)
{
    *tileNum = CeilDiv(length, tileLength);
    *tail = length - (*tileNum - 1) * tileLength;
}

// Plans the launch: cores, per-core lengths (big/small split), tile length, tiles and tails.
// ubBytes is the UB size the platform reports, soc the rest of what the plan needs to know of
// its UB (kAscend910BUb, kAscend950Ub).
inline TilingStatus ComputeTiling(uint64_t totalLength, uint32_t dtypeSize, bool hasTanhx, uint64_t ubBytes,
                                  uint32_t coreCount, const SocUb& soc, MishGradTilingData* out)
{
    if (totalLength == 0) {
        return TilingStatus::kEmptyInput;
    }
    if (dtypeSize != 2 && dtypeSize != 4) {
        return TilingStatus::kUnsupportedDtype;
    }
    if (coreCount == 0) {
        return TilingStatus::kNoCores;
    }
    const uint64_t tileLength = MaxTileLength(KernelBudget(dtypeSize, hasTanhx, ubBytes, soc));
    if (tileLength == 0) {
        return TilingStatus::kUbTooSmall;
    }
    const uint64_t unit = kRepeatBytes / dtypeSize;
    const uint64_t units = CeilDiv(totalLength, unit);
    const uint64_t cores = units < coreCount ? units : coreCount;

    MishGradTilingData tiling{};
    tiling.totalLength = totalLength;
    tiling.blockDim = static_cast<uint32_t>(cores);
    tiling.bigCoreNum = static_cast<uint32_t>(units % cores);
    tiling.smallCoreLength = units / cores * unit;
    tiling.bigCoreLength = tiling.smallCoreLength + unit;
    // The last core is always a small one (bigCoreNum < cores); it stops exactly at n.
    const uint64_t lastStart =
        tiling.bigCoreNum * tiling.bigCoreLength + (cores - 1 - tiling.bigCoreNum) * tiling.smallCoreLength;
    tiling.lastCoreLength = totalLength - lastStart;
    tiling.tileLength = static_cast<uint32_t>(tileLength);
    tiling.hasTanhx = hasTanhx ? 1 : 0;
    SplitIntoTiles(tiling.bigCoreLength, tileLength, &tiling.bigTileNum, &tiling.bigTailLength);
    SplitIntoTiles(tiling.smallCoreLength, tileLength, &tiling.smallTileNum, &tiling.smallTailLength);
    SplitIntoTiles(tiling.lastCoreLength, tileLength, &tiling.lastTileNum, &tiling.lastTailLength);
    *out = tiling;
    return TilingStatus::kOk;
}

// The same plan for the two SoCs the CPU twin and its Python model (mishgrad.kernel.tiling)
// describe, told apart by whether Select uses a scratch area: Atlas A2 (kAscend910BUb) if it
// does, Ascend 950 (kAscend950Ub) if not.
inline TilingStatus ComputeTiling(uint64_t totalLength, uint32_t dtypeSize, bool hasTanhx, uint64_t ubBytes,
                                  uint32_t coreCount, bool selectUsesScratch, MishGradTilingData* out)
{
    return ComputeTiling(totalLength, dtypeSize, hasTanhx, ubBytes, coreCount,
                         selectUsesScratch ? kAscend910BUb : kAscend950Ub, out);
}

}  // namespace mishgrad

#endif  // MISHGRAD_COMMON_TILING_H
