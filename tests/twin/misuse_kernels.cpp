// Kernels that break one hardware rule each, for tests/test_twin_misuse.py and notebook 07
// (mishgrad.kernel.misuse runs them and says what an NPU shows for each).
//
// Each case is a few AscendC calls on one virtual core of an Atlas A2 twin. The test
// expects the twin to stop each of them with an error that names the call; "clean" must pass.
#include <cfloat>
#include <cstring>
#include <string>

#include "cases.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr uint64_t kUb = 196608;
constexpr uint64_t kScratch = 188416;
constexpr uint32_t kElements = 64;
float gInput[kElements];   // a global-memory tensor of 64 floats
float gOutput[kElements];

void Clean()
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> queue;
    pipe.InitBuffer(queue, 2, kElements * sizeof(float));
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput, kElements);
    GlobalTensor<float> out;
    out.SetGlobalBuffer(gOutput, kElements);
    LocalTensor<float> local = queue.AllocTensor<float>();
    DataCopy(local, in, kElements);
    Exp(local, local, kElements);
    queue.EnQue(local);
    LocalTensor<float> ready = queue.DeQue<float>();
    DataCopyPad(out, ready, DataCopyExtParams{1, 7 * sizeof(float), 0, 0, 0});  // 7 exact elements
    queue.FreeTensor(ready);
}

void UbOverCapacity()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> first;
    TBuf<TPosition::VECCALC> second;
    pipe.InitBuffer(first, 100000);
    pipe.InitBuffer(second, 100000);  // 200,000 bytes > 196,608
}

void PartialBlockDataCopy()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(buffer, kElements * sizeof(float));
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput, kElements);
    DataCopy(buffer.Get<float>(), in, 7);  // 28 bytes: not a whole block
}

void MisalignedUb()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(buffer, kElements * sizeof(float));
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput, kElements);
    DataCopy(buffer.Get<float>()[3], in, 8);  // UB offset 12
}

void QueueAllocFull()
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> queue;
    pipe.InitBuffer(queue, 2, 256);
    queue.AllocTensor<float>();
    queue.AllocTensor<float>();
    queue.AllocTensor<float>();  // both buffers are taken
}

void QueueDequeEmpty()
{
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> queue;
    pipe.InitBuffer(queue, 2, 256);
    queue.DeQue<float>();
}

void QueueEnqueBeyondDepth()
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> queue;
    pipe.InitBuffer(queue, 2, 256);
    queue.EnQue(queue.AllocTensor<float>());
    queue.EnQue(queue.AllocTensor<float>());  // depth is 1
}

void UseAfterFree()
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> queue;
    pipe.InitBuffer(queue, 2, 256);
    LocalTensor<float> local = queue.AllocTensor<float>();
    queue.FreeTensor(local);
    Adds(local, local, 1.0f, 64);
}

void UbBufferOverrun()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(buffer, 64 * sizeof(float));
    LocalTensor<float> local = buffer.Get<float>();
    Duplicate(local, 0.0f, 128);  // 128 elements into a buffer of 64
}

void FreeTwice()
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> queue;
    pipe.InitBuffer(queue, 2, 256);
    LocalTensor<float> local = queue.AllocTensor<float>();
    queue.FreeTensor(local);
    queue.FreeTensor(local);
}

void DumpPastTensor()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(buffer, 8 * sizeof(float));
    DumpTensor(buffer.Get<float>(), 1, 16);  // 16 elements of a tensor of 8
}

void SelectScratchOverlap()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> big;
    TBuf<TPosition::VECCALC> values;
    TBuf<TPosition::VECCALC> mask;
    pipe.InitBuffer(big, 190000);  // reaches into [188416, 196608)
    pipe.InitBuffer(values, 256);
    pipe.InitBuffer(mask, 32);
    LocalTensor<float> v = values.Get<float>();
    Select(v, mask.Get<uint8_t>(), v, v, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
}

void GmReadPastEnd()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(buffer, 512);
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput, kElements);
    DataCopy(buffer.Get<float>(), in[kElements - 8], 16);  // 8 elements past the end
}

void GmBufferOutsideTensor()
{
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput + 8, kElements);  // the last 8 elements are not the host's
}

void ComparePartialRepeat()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> values;
    TBuf<TPosition::VECCALC> mask;
    pipe.InitBuffer(values, 256);
    pipe.InitBuffer(mask, 32);
    CompareScalar(mask.Get<uint8_t>(), values.Get<float>(), 0.0f, CMPMODE::GT, 32);  // 128 bytes
}

void CastOddToBfloat16()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> wide;
    TBuf<TPosition::VECCALC> narrow;
    pipe.InitBuffer(wide, 256);
    pipe.InitBuffer(narrow, 128);
    Cast(narrow.Get<bfloat16_t>(), wide.Get<float>(), RoundMode::CAST_ODD, 64);
}

// DataCopyPad's parameters at work: two GM blocks of 5 floats, 1 float apart, land in two
// 32-byte UB rows after 1 padding element and before 2, the padding set to 7; the UB is
// then written back whole to gOutput.
void PaddedRows()
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buffer;
    pipe.InitBuffer(buffer, kElements * sizeof(float));
    LocalTensor<float> local = buffer.Get<float>();
    Duplicate(local, -1.0f, kElements);
    GlobalTensor<float> in;
    in.SetGlobalBuffer(gInput, kElements);
    GlobalTensor<float> out;
    out.SetGlobalBuffer(gOutput, kElements);
    DataCopyPad(local, in, DataCopyExtParams{2, 5 * sizeof(float), sizeof(float), 0, 0},
                DataCopyPadExtParams<float>{true, 1, 2, 7.0f});
    DataCopy(out, local, kElements);
}

using twin_cases::Report;

const twin_cases::Case kCases[] = {
    {"clean", Clean},
    {"padded_rows", PaddedRows},
    {"ub_over_capacity", UbOverCapacity},
    {"partial_block_datacopy", PartialBlockDataCopy},
    {"misaligned_ub", MisalignedUb},
    {"queue_alloc_full", QueueAllocFull},
    {"queue_deque_empty", QueueDequeEmpty},
    {"queue_enque_beyond_depth", QueueEnqueBeyondDepth},
    {"use_after_free", UseAfterFree},
    {"ub_buffer_overrun", UbBufferOverrun},
    {"free_twice", FreeTwice},
    {"dump_past_tensor", DumpPastTensor},
    {"select_scratch_overlap", SelectScratchOverlap},
    {"gm_read_past_end", GmReadPastEnd},
    {"gm_buffer_outside_tensor", GmBufferOutsideTensor},
    {"compare_partial_repeat", ComparePartialRepeat},
    {"cast_odd_to_bfloat16", CastOddToBfloat16},
};

}  // namespace

// Runs the named case on one core; 0 if it passed, 1 with the twin's message, -1 if unknown.
extern "C" int32_t misuse_run(const char* name, char* message, uint64_t capacity)
{
    const std::vector<twin::GmRegion> regions = {
        {reinterpret_cast<const uint8_t*>(gInput), sizeof(gInput), "input"},
        {reinterpret_cast<const uint8_t*>(gOutput), sizeof(gOutput), "output"}};
    std::string error;
    if (!twin_cases::Run(kCases, name, 1, 1, twin::Platform{kUb, kScratch}, regions, &error)) {
        return -1;
    }
    return Report(error, message, capacity);
}

// Sets the global-memory input to 0, 1, 2, ... and returns the output after a case ran.
extern "C" void misuse_input_ramp(void)
{
    for (uint32_t i = 0; i < kElements; ++i) {
        gInput[i] = static_cast<float>(i);
    }
}

extern "C" void misuse_output(float* destination)
{
    std::memcpy(destination, gOutput, sizeof(gOutput));
}

// Calls an AscendC function with no launch in progress.
extern "C" int32_t misuse_outside_launch(char* message, uint64_t capacity)
{
    try {
        GetBlockIdx();
    } catch (const std::exception& error) {
        return Report(error.what(), message, capacity);
    }
    return 0;
}

// Casts `count` floats (a multiple of 64) to half (toBfloat16 = 0) or bfloat16_t with the
// RoundMode numbered `mode`; writes the 16-bit patterns. Returns 0, or 1 with the message.
extern "C" int32_t twin_cast(const float* in, uint16_t* out, uint32_t count, int32_t mode, int32_t toBfloat16,
                             char* message, uint64_t capacity)
{
    struct Arguments {
        const float* in;
        uint16_t* out;
        uint32_t count;
        RoundMode mode;
        bool bf16;
    } arguments{in, out, count, static_cast<RoundMode>(mode), toBfloat16 != 0};
    auto body = [](void* raw) {
        auto* a = static_cast<Arguments*>(raw);
        TPipe pipe;
        TBuf<TPosition::VECCALC> wide;
        TBuf<TPosition::VECCALC> narrow;
        pipe.InitBuffer(wide, a->count * sizeof(float));
        pipe.InitBuffer(narrow, a->count * sizeof(uint16_t));
        LocalTensor<float> source = wide.Get<float>();
        std::memcpy(source.GetPhyAddr(), a->in, a->count * sizeof(float));
        if (a->bf16) {
            Cast(narrow.Get<bfloat16_t>(), source, a->mode, a->count);
        } else {
            Cast(narrow.Get<half>(), source, a->mode, a->count);
        }
        std::memcpy(a->out, narrow.Get<uint16_t>().GetPhyAddr(), a->count * sizeof(uint16_t));
    };
    const std::string error =
        twin::RunOnCores(body, &arguments, 1, 1, twin::Platform{kUb, kScratch}, {}, false, nullptr);
    return Report(error, message, capacity);
}
