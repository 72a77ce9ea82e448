// The CPU twin's stand-in for CANN's tikicpulib.h, the CPU debug library that ops-nn's kernel
// unit tests run kernels with (toolkit only): global memory from GmAlloc, and ICPU_RUN_KF,
// which runs a kernel entry on blockDim cores. Here the cores are the twin's virtual cores
// (twin/core.h): each with its own UB, every global-memory access checked against the live
// GmAlloc blocks. A broken hardware rule throws twin::KernelError, which gtest reports as the
// test's failure (tikicpulib stops the process instead).
#ifndef MISHGRAD_TWIN_UT_TIKICPULIB_H
#define MISHGRAD_TWIN_UT_TIKICPULIB_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "twin/core.h"

enum class KernelMode { MIX_MODE, AIC_MODE, AIV_MODE };

namespace mishgrad_twin_ut {

// The live GmAlloc blocks, by address.
struct GmBlocks {
    std::mutex mutex;
    std::map<uint8_t*, std::unique_ptr<uint8_t[]>> blocks;
    std::map<uint8_t*, size_t> sizes;
};

inline GmBlocks& Blocks()
{
    static GmBlocks blocks;
    return blocks;
}

// Atlas A2's vector core: 192 KiB of UB, Select's scratch area in its top 8 KiB.
constexpr twin::Platform kAtlasA2{196608, 196608 - 8192};

inline void RunBody(void* body) { (*static_cast<std::function<void()>*>(body))(); }

// Runs `body` on `blockDim` virtual cores; throws twin::KernelError with the first error.
inline void RunKernel(uint32_t blockDim, std::function<void()> body)
{
    std::vector<twin::GmRegion> regions;
    {
        GmBlocks& gm = Blocks();
        std::lock_guard<std::mutex> lock(gm.mutex);
        for (const auto& [address, size] : gm.sizes) {
            regions.push_back({address, size, "GmAlloc"});
        }
    }
    const std::string error = twin::RunOnCores(RunBody, &body, blockDim, std::max(1u, std::thread::hardware_concurrency()),
                                                kAtlasA2, regions, false, nullptr);
    if (!error.empty()) {
        throw twin::KernelError(error);
    }
}

}  // namespace mishgrad_twin_ut

namespace AscendC {

// Global memory of `bytes` bytes (32-byte aligned, zeroed).
inline void* GmAlloc(size_t bytes)
{
    auto& gm = mishgrad_twin_ut::Blocks();
    std::lock_guard<std::mutex> lock(gm.mutex);
    auto block = std::make_unique<uint8_t[]>(bytes + 32);
    uint8_t* address = block.get() + (32 - reinterpret_cast<uintptr_t>(block.get()) % 32) % 32;
    gm.blocks[address] = std::move(block);
    gm.sizes[address] = bytes;
    return address;
}

inline void GmFree(void* address)
{
    auto& gm = mishgrad_twin_ut::Blocks();
    std::lock_guard<std::mutex> lock(gm.mutex);
    gm.blocks.erase(static_cast<uint8_t*>(address));
    gm.sizes.erase(static_cast<uint8_t*>(address));
}

// Vector-core kernels only: the mode is accepted and changes nothing.
inline void SetKernelMode(KernelMode) {}

}  // namespace AscendC

// One tiling key (0): the operators here have no other.
#define ICPU_SET_TILING_KEY(key) static_cast<void>(key)
#define ICPU_RUN_KF(kernel, blockDim, ...) mishgrad_twin_ut::RunKernel((blockDim), [&] { kernel(__VA_ARGS__); })

#endif  // MISHGRAD_TWIN_UT_TIKICPULIB_H
