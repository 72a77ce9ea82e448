// Kernels that print with AscendC::printf and DumpTensor, for tests/test_twin_debug.py.
//
// debug_run runs one case on blockDim virtual cores of an Atlas A2 twin and returns the
// cores' log, core 0 first, and the twin's message if it stopped the kernel.
#include <cstdint>
#include <cstring>
#include <string>

#include "cases.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr uint64_t kUb = 196608;
constexpr uint64_t kScratch = 188416;
constexpr uint32_t kElements = 64;
float gInput[kElements];  // a global-memory tensor: 0, 1, 2, ...

void Formats()
{
    const int32_t minusOne = -1;
    const int64_t big = -1234567890123LL;
    AscendC::printf("d=%d i=%i ld=%ld lld=%lld\n", 42, -7, 123456789L, big);
    AscendC::printf("u=%u lu=%lu llu=%llu\n", 7u, 4000000000UL, 18446744073709551615ULL);
    AscendC::printf("x=%x lx=%lx llx=%llx neg=%x\n", 255, 0xabcdefL, 0x123456789abcULL, minusOne);
    AscendC::printf("f=%f F=%F half=%f bf16=%f\n", 3.14f, 2.5, half(1.5f), bfloat16_t(-0.75f));
    AscendC::printf("s=%s width=[%5d] left=[%-4u] prec=[%.2f] pct=100%%\n", "AscendC", 42, 7u, 1.0f / 3.0f);
    AscendC::PRINTF("upper-case PRINTF %d\n", 1);
}

void Pointer()
{
    AscendC::printf("p=%p\n", static_cast<void*>(gInput));
}

void PerCore()
{
    AscendC::printf("core %d of %d\n", static_cast<int32_t>(GetBlockIdx()), static_cast<int32_t>(GetBlockNum()));
}

void DumpLocal()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> skip;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(skip, 64);  // so that the dumped tensor starts at UB offset 64 (0x40)
    pipe.InitBuffer(buffer, 8 * sizeof(float));
    LocalTensor<float> local = buffer.Get<float>();
    for (uint32_t i = 0; i < 8; ++i) {
        local.SetValue(i, 0.5f * static_cast<float>(i) - 1.0f);
    }
    DumpTensor(local, 5, 8);
}

void DumpHalfAndInt()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> halves;
    TBuf<TPosition::VECCALC> ints;
    pipe.InitBuffer(halves, 32);
    pipe.InitBuffer(ints, 32);
    Duplicate(halves.Get<half>(), half(0.25f), 16);
    Duplicate(ints.Get<int32_t>(), int32_t{-3}, 8);
    DumpTensor(halves.Get<half>(), 1, 4);
    DumpTensor(ints.Get<int32_t>(), 2, 3);
}

void DumpGlobal()
{
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput, kElements);
    DumpTensor(in[8], 7, 4);
}

void DumpGlobalPastEnd()
{
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput, kElements);
    DumpTensor(in[60], 7, 8);  // 4 elements remain
}

void DumpOverLimit()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(buffer, 8192 * sizeof(float));
    DumpTensor(buffer.Get<float>(), 3, 8192);  // 32768 bytes > 30 KB
}

void CountMismatch() { AscendC::printf("%d and %d\n", 1); }

void UnknownConversion() { AscendC::printf("%q\n", 1); }

void KindMismatch() { AscendC::printf("%d\n", 1.5f); }

// Core 1 prints, then breaks a rule: its line stays in the log.
void PrintThenFail()
{
    AscendC::printf("before the failure on core %d\n", static_cast<int32_t>(GetBlockIdx()));
    if (GetBlockIdx() == 1) {
        GlobalTensor<float> in;
        in.SetGlobalBuffer(gInput + 8, kElements);
    }
}

const twin_cases::Case kCases[] = {
    {"formats", Formats},
    {"pointer", Pointer},
    {"per_core", PerCore},
    {"dump_local", DumpLocal},
    {"dump_half_and_int", DumpHalfAndInt},
    {"dump_global", DumpGlobal},
    {"dump_global_past_end", DumpGlobalPastEnd},
    {"dump_over_limit", DumpOverLimit},
    {"count_mismatch", CountMismatch},
    {"unknown_conversion", UnknownConversion},
    {"kind_mismatch", KindMismatch},
    {"print_then_fail", PrintThenFail},
};

}  // namespace

// Runs the named case on blockDim cores with hostThreads threads. Returns 0 if it ran clean,
// 1 if the twin stopped it (message set), -1 for an unknown case; log gets every core's text.
extern "C" int32_t debug_run(const char* name, uint32_t blockDim, uint32_t hostThreads, char* log,
                             uint64_t logCapacity, char* message, uint64_t messageCapacity)
{
    for (uint32_t i = 0; i < kElements; ++i) {
        gInput[i] = static_cast<float>(i);
    }
    const std::vector<twin::GmRegion> regions = {{reinterpret_cast<const uint8_t*>(gInput), sizeof(gInput), "input"}};
    std::string error;
    std::string text;
    if (!twin_cases::Run(kCases, name, blockDim, hostThreads, twin::Platform{kUb, kScratch}, regions, &error, &text)) {
        return -1;
    }
    twin_cases::Report(text, log, logCapacity);
    return twin_cases::Report(error, message, messageCapacity);
}
