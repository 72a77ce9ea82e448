// kernel_operator.h for the CPU twin: the subset of the AscendC API that the operators' kernels
// use, with AscendC's names and signatures, implemented on the host.
//
// On an Ascend host `#include "kernel_operator.h"` finds CANN's header; here it finds this
// one, and op_kernel/ compiles unchanged with g++. Where the hardware would silently
// misbehave, the twin stops with an error that names the call (see twin/core.h). Except for a
// misaligned UB operand, which the NPU also stops at, these checks are twin-only: the NPU runs
// on (mishgrad.kernel.misuse lists what it shows instead):
//   - UB is a byte array of the platform's size; a TPipe::InitBuffer past it fails;
//   - UB tensors start on 32-byte boundaries; DataCopy moves whole 32-byte blocks;
//   - DataCopyPad follows its parameter structs (lengths in bytes, padding in elements);
//   - every global-memory access stays inside the tensor the host passed;
//   - queues enforce their buffer count and their depth (how many EnQue may precede a DeQue),
//     and a buffer is not used after FreeTensor;
//   - CompareScalar needs whole 256-byte repeats; Select's tensor modes need their scratch
//     area free;
//   - Cast implements every RoundMode;
//   - vector arithmetic on bfloat16_t does not compile, as on Atlas A2 (CheckArithmetic);
//   - printf and DumpTensor write the NPU's text to the core's log, which the launcher returns
//     core by core (twin/core.h), instead of to a stdout that Jupyter would not capture.
// Known differences from the hardware (documented in notebooks 05 and 11): under the default `ieee`
// numerics Exp is the C library's expf, not the vector unit's approximation, and Div is IEEE
// division; the `hardware` and `adversarial` models make them faithful and flush subnormal
// results, as AscendC documents (twin/numerics.h). Max/Min propagate NaN.
#ifndef MISHGRAD_TWIN_KERNEL_OPERATOR_H
#define MISHGRAD_TWIN_KERNEL_OPERATOR_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "twin/core.h"
#include "twin/numeric_types.h"
#include "twin/numerics.h"

// Kernel-language keywords: meaningful to the NPU compiler, empty on the host.
#define __aicore__
#define __global__
#define __gm__
using GM_ADDR = uint8_t*;

// Tiling data arrives as bytes in global memory; the kernel reads it back as its struct.
// REGISTER_TILING_DEFAULT names that struct for CANN's op compiler and, like CANN's macro, may
// stand at file scope or inside the kernel function; here it checks that `type` is a struct
// that can be copied as bytes.
#define REGISTER_TILING_DEFAULT(type) \
    static_assert(std::is_trivially_copyable<type>::value, "the tiling data is copied as bytes")
#define GET_TILING_DATA_WITH_STRUCT(type, name, pointer) \
    type name;                                           \
    std::memcpy(&name, (pointer), sizeof(type))

// The kinds of kernel CANN's KERNEL_TASK_TYPE_DEFAULT(value) declares (the names of asc-devkit's
// enum KernelMetaType, impl/basic_api/utils/kernel_utils_macros.h): which cores a launch
// starts. The twin runs every kernel on virtual vector cores, so the macro only checks, at
// compile time, that `value` is one of these names.
enum KernelMetaType : uint8_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX,
};
#define KERNEL_TASK_TYPE_DEFAULT(value) static_cast<void>(std::integral_constant<KernelMetaType, value>{})

namespace AscendC {

enum class TPosition : uint8_t { GM, VECIN, VECOUT, VECCALC };
enum class RoundMode : uint8_t { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : uint8_t { LT, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

constexpr uint32_t ONE_BLK_SIZE = 32;   // bytes in a block
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;

inline int64_t GetBlockIdx() { return twin::Current().blockIdx; }
inline int64_t GetBlockNum() { return twin::Current().blockDim; }

template <typename T>
class LocalTensor;

namespace detail {

inline std::string Str(uint64_t value) { return std::to_string(value); }

// Where a UB tensor lives: its core, byte offset, length, and (for queue buffers) the state
// of its slot.
struct UbView {
    twin::CoreContext* core = nullptr;
    uint64_t offset = 0;
    uint64_t bytes = 0;
    const twin::SlotState* slot = nullptr;
};

template <typename T>
UbView ViewOf(const LocalTensor<T>& tensor);

// Every operand of every UB operation goes through here.
inline void CheckOperand(const char* api, const UbView& view, uint64_t bytesUsed, const char* role)
{
    if (view.core == nullptr) {
        twin::Fail(api, std::string(role) + " is an empty LocalTensor (never taken from a queue or buffer)");
    }
    if (view.core != &twin::Current()) {
        twin::Fail(api, std::string(role) + " belongs to another core's UB");
    }
    if (view.slot != nullptr && *view.slot == twin::SlotState::kFree) {
        twin::Fail(api, std::string(role) + " is a queue buffer used after FreeTensor");
    }
    if (view.offset % ONE_BLK_SIZE != 0) {
        twin::Fail(api, std::string(role) + " starts at UB offset " + Str(view.offset) +
                            ", not a multiple of 32 bytes");
    }
    if (bytesUsed > view.bytes) {
        twin::Fail(api, std::string(role) + " holds " + Str(view.bytes) + " bytes but the call uses " +
                            Str(bytesUsed));
    }
}

inline void CheckCount(const char* api, uint64_t count)
{
    if (count == 0) {
        twin::Fail(api, "count is 0");
    }
}

}  // namespace detail

// A tensor in the current core's Unified Buffer.
template <typename T>
class LocalTensor {
public:
    LocalTensor() = default;

    T* GetPhyAddr() const { return reinterpret_cast<T*>(view_.core->ub.get() + view_.offset); }
    uint32_t GetSize() const { return static_cast<uint32_t>(view_.bytes / sizeof(T)); }

    // The sub-tensor starting `offset` elements in.
    LocalTensor operator[](uint32_t offset) const
    {
        if (static_cast<uint64_t>(offset) * sizeof(T) > view_.bytes) {
            twin::Fail("LocalTensor::operator[]", "offset " + std::to_string(offset) + " is past the tensor's " +
                                                      std::to_string(GetSize()) + " elements");
        }
        LocalTensor sub = *this;
        sub.view_.offset += offset * sizeof(T);
        sub.view_.bytes -= offset * sizeof(T);
        return sub;
    }

    template <typename U>
    LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> other;
        other.view_ = view_;
        return other;
    }

    T GetValue(uint32_t index) const
    {
        detail::CheckOperand("LocalTensor::GetValue", view_, (index + 1ull) * sizeof(T), "tensor");
        return GetPhyAddr()[index];
    }

    void SetValue(uint32_t index, T value) const
    {
        detail::CheckOperand("LocalTensor::SetValue", view_, (index + 1ull) * sizeof(T), "tensor");
        GetPhyAddr()[index] = value;
    }

private:
    template <typename U>
    friend class LocalTensor;
    template <typename U>
    friend detail::UbView detail::ViewOf(const LocalTensor<U>& tensor);
    friend class TPipe;
    template <TPosition, int32_t>
    friend class TQue;
    template <TPosition>
    friend class TBuf;

    detail::UbView view_;
};

template <typename T>
detail::UbView detail::ViewOf(const LocalTensor<T>& tensor)
{
    return tensor.view_;
}

// A tensor in global memory: a base pointer and a length the kernel declares.
template <typename T>
class GlobalTensor {
public:
    GlobalTensor() = default;

    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize)
    {
        const twin::GmRegion* region = twin::FindRegion(buffer, bufferSize * sizeof(T));
        if (region == nullptr) {
            twin::Fail("GlobalTensor::SetGlobalBuffer",
                       std::to_string(bufferSize) + " elements from this address are not inside any tensor "
                                                    "the host passed to the kernel");
        }
        base_ = buffer;
        size_ = bufferSize;
        region_ = region;
    }

    GlobalTensor operator[](uint64_t offset) const
    {
        if (offset > size_) {
            twin::Fail("GlobalTensor::operator[]", "offset " + std::to_string(offset) + " is past the " +
                                                       std::to_string(size_) + " elements of the tensor");
        }
        GlobalTensor sub = *this;
        sub.base_ += offset;
        sub.size_ -= offset;
        return sub;
    }

    uint64_t GetSize() const { return size_; }
    __gm__ T* GetPhyAddr() const { return base_; }

    // A scalar write: it goes to the core's data cache, not yet to global memory (AscendC's
    // GlobalTensor::SetValue page); DataCacheCleanAndInvalid writes it back.
    void SetValue(uint64_t offset, T value) const
    {
        static_assert(sizeof(T) <= sizeof(twin::PendingGmWrite::bytes), "a scalar of at most 8 bytes");
        if (offset >= size_) {
            twin::Fail("GlobalTensor::SetValue", "offset " + std::to_string(offset) + " is past the " +
                                                     std::to_string(size_) + " elements of the tensor");
        }
        (*this)[offset].Access("GlobalTensor::SetValue", sizeof(T));
        twin::PendingGmWrite write{reinterpret_cast<uint8_t*>(base_ + offset), {}, sizeof(T)};
        std::memcpy(write.bytes, &value, sizeof(T));
        twin::Current().dataCache.push_back(write);
    }

    // Checks that `bytes` from here stay inside both the declared tensor and the host buffer,
    // and returns the byte offset into the host buffer (for the trace).
    int64_t Access(const char* api, uint64_t bytes) const
    {
        if (region_ == nullptr) {
            twin::Fail(api, "GlobalTensor used before SetGlobalBuffer");
        }
        if (bytes > size_ * sizeof(T)) {
            twin::Fail(api, "accesses " + std::to_string(bytes) + " bytes but only " +
                                std::to_string(size_ * sizeof(T)) + " remain in the GlobalTensor");
        }
        if (twin::FindRegion(base_, bytes) != region_) {
            twin::Fail(api, "accesses bytes outside the host's " + std::string(region_->name) + " buffer");
        }
        return reinterpret_cast<const uint8_t*>(base_) - region_->begin;
    }

private:
    __gm__ T* base_ = nullptr;
    uint64_t size_ = 0;
    const twin::GmRegion* region_ = nullptr;
};

// The data cache (AscendC's DataCacheCleanAndInvalid page): scalar writes to global memory wait
// there until their 64-byte line is written back. SINGLE_CACHE_LINE writes back from dst's
// address to the end of its line; ENTIRE_DATA_CACHE writes back everything. The twin's reads
// of global memory bypass the cache, so "invalid" has nothing to do here.
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

template <typename T, CacheLine entireType, DcciDst dcciDst>
void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst)
{
    static_assert(dcciDst == DcciDst::CACHELINE_OUT || dcciDst == DcciDst::CACHELINE_ALL,
                  "the twin models the data cache against global memory only");
    const auto address = reinterpret_cast<uintptr_t>(dst.GetPhyAddr());
    if (entireType == CacheLine::ENTIRE_DATA_CACHE) {
        twin::WriteBackDataCache(0, UINTPTR_MAX);
        return;
    }
    twin::WriteBackDataCache(address, (address / twin::kCacheLineBytes + 1) * twin::kCacheLineBytes);
}

// The workspace a kernel may use for itself. As in CANN's CPU debug mode (asc-devkit
// impl/basic_api/dav_c220/kernel_operator_common_impl.h), it starts where the workspace does:
// the twin reserves no system workspace before it.
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }

// ---------------------------------------------------------------------------------------
// Memory management: TPipe hands out UB; TQue and TBuf own pieces of it.
// ---------------------------------------------------------------------------------------

inline const char* PositionName(TPosition pos)
{
    switch (pos) {
        case TPosition::GM: return "GM";
        case TPosition::VECIN: return "VECIN";
        case TPosition::VECOUT: return "VECOUT";
        case TPosition::VECCALC: return "VECCALC";
    }
    return "?";
}

// A queue between pipeline stages. Two numbers describe it, and they are different things
// (asc-devkit docs/zh/api/SIMD-API/基础API/资源管理/TQue/TQue简介.md, the depth row):
//   depth  (template argument) how many EnQue may come before a DeQue; AscendC recommends 1;
//   num    (TPipe::InitBuffer) how many buffers the queue owns; 2 is double buffering.
template <TPosition pos, int32_t depth>
class TQue {
    static_assert(depth >= 1, "depth 0 (queues for in-place tensor operations) is not modelled by the twin");

public:
    TQue() = default;
    TQue(const TQue&) = delete;
    TQue& operator=(const TQue&) = delete;

    // Buffers are handed out in turn, starting after the last one given: with two buffers,
    // consecutive tiles alternate between them, which is what lets the copy engine fill one
    // while the vector unit works on the other.
    template <typename T>
    LocalTensor<T> AllocTensor()
    {
        for (uint32_t step = 0; step < count_; ++step) {
            const uint32_t i = (next_ + step) % count_;
            if (state_[i] == twin::SlotState::kFree) {
                state_[i] = twin::SlotState::kAllocated;
                next_ = (i + 1) % count_;
                twin::Record("AllocTensor", 1, length_, static_cast<int64_t>(Offset(i)));
                return Tensor<T>(i);
            }
        }
        twin::Fail("TQue::AllocTensor", count_ == 0 ? Name() + " has no buffers (InitBuffer missing)"
                                                    : "all " + std::to_string(count_) + " buffers of " + Name() +
                                                          " are in use (FreeTensor missing?)");
    }

    template <typename T>
    bool EnQue(const LocalTensor<T>& tensor)
    {
        const uint32_t slot = SlotOf("TQue::EnQue", tensor);
        if (state_[slot] != twin::SlotState::kAllocated) {
            twin::Fail("TQue::EnQue", "the tensor is not freshly allocated from this queue");
        }
        if (queued_ == static_cast<uint32_t>(depth)) {
            twin::Fail("TQue::EnQue", Name() + " already holds its depth of " + std::to_string(depth) +
                                          " enqueued tensor(s): EnQue " + std::to_string(depth + 1) +
                                          " times without a DeQue needs depth " + std::to_string(depth + 1));
        }
        state_[slot] = twin::SlotState::kQueued;
        order_[(head_ + queued_++) % kMaxSlots] = slot;
        twin::Record("EnQue", 1, length_, static_cast<int64_t>(Offset(slot)));
        return true;
    }

    template <typename T>
    LocalTensor<T> DeQue()
    {
        if (queued_ == 0) {
            twin::Fail("TQue::DeQue", Name() + " is empty (EnQue missing)");
        }
        const uint32_t slot = order_[head_];
        head_ = (head_ + 1) % kMaxSlots;
        --queued_;
        state_[slot] = twin::SlotState::kDequeued;
        twin::Record("DeQue", 1, length_, static_cast<int64_t>(Offset(slot)));
        return Tensor<T>(slot);
    }

    template <typename T>
    void FreeTensor(const LocalTensor<T>& tensor)
    {
        const uint32_t slot = SlotOf("TQue::FreeTensor", tensor);
        if (state_[slot] == twin::SlotState::kFree || state_[slot] == twin::SlotState::kQueued) {
            twin::Fail("TQue::FreeTensor", state_[slot] == twin::SlotState::kFree
                                               ? "buffer " + std::to_string(slot) + " of " + Name() +
                                                     " is already free (FreeTensor twice)"
                                               : "buffer " + std::to_string(slot) + " of " + Name() +
                                                     " is still queued (DeQue it first)");
        }
        state_[slot] = twin::SlotState::kFree;
        twin::Record("FreeTensor", 1, length_, static_cast<int64_t>(Offset(slot)));
    }

private:
    friend class TPipe;
    static constexpr uint32_t kMaxSlots = 8;

    uint64_t Offset(uint32_t slot) const { return base_ + slot * length_; }

    // The queue as error messages name it: its position and where its buffers start in UB.
    std::string Name() const
    {
        return std::string("the ") + PositionName(pos) + " queue at UB offset " + std::to_string(base_);
    }

    template <typename T>
    LocalTensor<T> Tensor(uint32_t slot) const
    {
        LocalTensor<T> tensor;
        tensor.view_ = detail::UbView{core_, Offset(slot), length_, &state_[slot]};
        return tensor;
    }

    template <typename T>
    uint32_t SlotOf(const char* api, const LocalTensor<T>& tensor) const
    {
        const detail::UbView view = detail::ViewOf(tensor);
        for (uint32_t i = 0; i < count_; ++i) {
            if (view.slot == &state_[i]) {
                return i;
            }
        }
        twin::Fail(api, "the tensor does not come from this queue");
    }

    twin::CoreContext* core_ = nullptr;
    uint64_t base_ = 0;
    uint64_t length_ = 0;
    uint32_t count_ = 0;
    twin::SlotState state_[kMaxSlots] = {};
    uint32_t order_[kMaxSlots] = {};
    uint32_t head_ = 0;
    uint32_t queued_ = 0;
    uint32_t next_ = 0;
};

// A plain UB buffer for intermediate results.
template <TPosition pos>
class TBuf {
public:
    TBuf() = default;
    TBuf(const TBuf&) = delete;
    TBuf& operator=(const TBuf&) = delete;

    template <typename T>
    LocalTensor<T> Get() const
    {
        return Get<T>(static_cast<uint32_t>(length_ / sizeof(T)));
    }

    template <typename T>
    LocalTensor<T> Get(uint32_t count) const
    {
        if (core_ == nullptr) {
            twin::Fail("TBuf::Get", "the buffer has no memory (InitBuffer missing)");
        }
        if (count * sizeof(T) > length_) {
            twin::Fail("TBuf::Get", std::to_string(count) + " elements exceed the buffer's " +
                                        std::to_string(length_) + " bytes");
        }
        LocalTensor<T> tensor;
        tensor.view_ = detail::UbView{core_, base_, count * sizeof(T), nullptr};
        return tensor;
    }

private:
    friend class TPipe;
    twin::CoreContext* core_ = nullptr;
    uint64_t base_ = 0;
    uint64_t length_ = 0;
};

// Hands out the core's UB from offset 0 upwards, 32-byte aligned. One per kernel.
class TPipe {
public:
    TPipe()
    {
        twin::CoreContext& core = twin::Current();
        if (core.pipeActive) {
            twin::Fail("TPipe::TPipe", "a TPipe already exists on this core");
        }
        core.pipeActive = true;
        core.ubTop = 0;
    }
    ~TPipe() { twin::Current().pipeActive = false; }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    template <TPosition pos, int32_t depth>
    bool InitBuffer(TQue<pos, depth>& queue, uint8_t num, uint32_t len)
    {
        if (num == 0 || num > TQue<pos, depth>::kMaxSlots) {
            twin::Fail("TPipe::InitBuffer", "a queue needs 1 to 8 buffers, got " + std::to_string(num));
        }
        if (queue.core_ != nullptr) {
            twin::Fail("TPipe::InitBuffer", "the queue already has buffers");
        }
        const uint64_t length = Aligned(len);
        queue.core_ = &twin::Current();
        queue.base_ = Take("TPipe::InitBuffer", num * length);
        queue.length_ = length;
        queue.count_ = num;
        twin::Record("InitBuffer", num, num * length, static_cast<int64_t>(queue.base_));
        return true;
    }

    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buffer, uint32_t len)
    {
        if (buffer.core_ != nullptr) {
            twin::Fail("TPipe::InitBuffer", "the buffer already has memory");
        }
        const uint64_t length = Aligned(len);
        buffer.core_ = &twin::Current();
        buffer.base_ = Take("TPipe::InitBuffer", length);
        buffer.length_ = length;
        twin::Record("InitBuffer", 1, length, static_cast<int64_t>(buffer.base_));
        return true;
    }

private:
    static uint64_t Aligned(uint64_t bytes)
    {
        if (bytes == 0) {
            twin::Fail("TPipe::InitBuffer", "length is 0");
        }
        return (bytes + ONE_BLK_SIZE - 1) / ONE_BLK_SIZE * ONE_BLK_SIZE;
    }

    static uint64_t Take(const char* api, uint64_t bytes)
    {
        twin::CoreContext& core = twin::Current();
        if (bytes > core.platform.ubBytes - core.ubTop) {
            twin::Fail(api, "needs " + std::to_string(bytes) + " bytes at UB offset " + std::to_string(core.ubTop) +
                                " but the UB holds " + std::to_string(core.platform.ubBytes));
        }
        const uint64_t offset = core.ubTop;
        core.ubTop += bytes;
        return offset;
    }
};

// ---------------------------------------------------------------------------------------
// Data movement between global memory and UB.
// ---------------------------------------------------------------------------------------

struct DataCopyExtParams {
    uint16_t blockCount = 0;  // number of blocks
    uint32_t blockLen = 0;    // bytes per block
    uint32_t srcStride = 0;   // gap after each source block (GM: bytes; UB: 32-byte blocks)
    uint32_t dstStride = 0;   // gap after each destination block (GM: bytes; UB: 32-byte blocks)
    uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;        // fill the padding with paddingValue (else it is left as is)
    uint8_t leftPadding = 0;   // elements before each block's data in UB
    uint8_t rightPadding = 0;  // elements after it, within the 32-byte-aligned block
    T paddingValue = 0;
};

namespace detail {

template <typename T>
void CheckWholeBlocks(const char* api, uint64_t count)
{
    CheckCount(api, count);
    const uint64_t bytes = count * sizeof(T);
    if (bytes % ONE_BLK_SIZE != 0) {
        twin::Fail(api, Str(count) + " elements are " + Str(bytes) +
                            " bytes, not whole 32-byte blocks: the hardware would silently move only " +
                            Str(bytes / ONE_BLK_SIZE * ONE_BLK_SIZE) + " (use DataCopyPad for a partial block)");
    }
}

}  // namespace detail

// GM -> UB, `count` elements, whole 32-byte blocks only.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count)
{
    detail::CheckWholeBlocks<T>("DataCopy", count);
    const detail::UbView view = detail::ViewOf(dst);
    detail::CheckOperand("DataCopy", view, count * sizeof(T), "dst");
    const int64_t gm = src.Access("DataCopy", count * sizeof(T));
    std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(T));
    twin::Record("DataCopy", count, count * sizeof(T), static_cast<int64_t>(view.offset), -1, -1, gm);
}

// UB -> GM, `count` elements, whole 32-byte blocks only.
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count)
{
    detail::CheckWholeBlocks<T>("DataCopy", count);
    const detail::UbView view = detail::ViewOf(src);
    detail::CheckOperand("DataCopy", view, count * sizeof(T), "src");
    const int64_t gm = dst.Access("DataCopy", count * sizeof(T));
    std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), count * sizeof(T));
    twin::Record("DataCopy", count, count * sizeof(T), -1, static_cast<int64_t>(view.offset), -1, gm);
}

namespace detail {

template <typename T>
void CheckPadParams(const char* api, const DataCopyExtParams& params)
{
    if (params.blockCount == 0 || params.blockLen == 0) {
        twin::Fail(api, "blockCount and blockLen must be positive");
    }
    if (params.blockLen % sizeof(T) != 0) {
        twin::Fail(api, "blockLen " + Str(params.blockLen) + " is not a whole number of elements");
    }
}

// Where the blocks of a DataCopyPad lie: UB rows start on 32-byte boundaries, GM blocks are
// packed with byte gaps.
struct PadLayout {
    uint64_t ubRow;   // bytes of one UB row: padding and data, rounded up to 32 bytes
    uint64_t ubStep;  // from one UB row to the next (row plus stride blocks)
    uint64_t gmStep;  // from one GM block to the next (data plus stride bytes)
    uint64_t gmSpan;  // GM bytes from the first block's start to the last block's end
    uint64_t ubSpan;  // UB bytes likewise
};

inline PadLayout LayoutOf(const DataCopyExtParams& params, uint64_t padBytes, uint32_t ubStrideBlocks,
                          uint32_t gmStrideBytes)
{
    PadLayout layout{};
    layout.ubRow = (params.blockLen + padBytes + ONE_BLK_SIZE - 1) / ONE_BLK_SIZE * ONE_BLK_SIZE;
    layout.ubStep = layout.ubRow + static_cast<uint64_t>(ubStrideBlocks) * ONE_BLK_SIZE;
    layout.gmStep = params.blockLen + static_cast<uint64_t>(gmStrideBytes);
    layout.gmSpan = (params.blockCount - 1) * layout.gmStep + params.blockLen;
    layout.ubSpan = (params.blockCount - 1) * layout.ubStep + layout.ubRow;
    return layout;
}

}  // namespace detail

// GM -> UB with exact byte lengths: each of blockCount blocks copies blockLen bytes into
// its own 32-byte-aligned UB row, after leftPadding and before rightPadding elements (filled
// with paddingValue if isPad).
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& params,
                 const DataCopyPadExtParams<T>& padParams)
{
    constexpr const char* kApi = "DataCopyPad";
    detail::CheckPadParams<T>(kApi, params);
    if (padParams.leftPadding * sizeof(T) > ONE_BLK_SIZE || padParams.rightPadding * sizeof(T) > ONE_BLK_SIZE) {
        twin::Fail(kApi, "leftPadding and rightPadding may not exceed one 32-byte block each");
    }
    const uint64_t padBytes = (padParams.leftPadding + padParams.rightPadding) * sizeof(T);
    const detail::PadLayout layout = detail::LayoutOf(params, padBytes, params.dstStride, params.srcStride);
    const detail::UbView view = detail::ViewOf(dst);
    detail::CheckOperand(kApi, view, layout.ubSpan, "dst");
    const int64_t gm = src.Access(kApi, layout.gmSpan);
    const auto* from = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    auto* to = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
    const uint32_t elements = params.blockLen / sizeof(T);
    for (uint32_t block = 0; block < params.blockCount; ++block) {
        T* row = reinterpret_cast<T*>(to + block * layout.ubStep);
        std::memcpy(row + padParams.leftPadding, from + block * layout.gmStep, params.blockLen);
        for (uint32_t i = 0; padParams.isPad && i < padParams.leftPadding; ++i) {
            row[i] = padParams.paddingValue;
        }
        for (uint32_t i = 0; padParams.isPad && i < padParams.rightPadding; ++i) {
            row[padParams.leftPadding + elements + i] = padParams.paddingValue;
        }
    }
    twin::Record(kApi, layout.gmSpan / sizeof(T), layout.gmSpan, static_cast<int64_t>(view.offset), -1, -1, gm);
}

// UB -> GM with exact byte lengths: the inverse of the GM -> UB form, no padding.
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& params)
{
    constexpr const char* kApi = "DataCopyPad";
    detail::CheckPadParams<T>(kApi, params);
    const detail::PadLayout layout = detail::LayoutOf(params, 0, params.srcStride, params.dstStride);
    const detail::UbView view = detail::ViewOf(src);
    detail::CheckOperand(kApi, view, layout.ubSpan, "src");
    const int64_t gm = dst.Access(kApi, layout.gmSpan);
    const auto* from = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    auto* to = reinterpret_cast<uint8_t*>(dst.GetPhyAddr());
    for (uint32_t block = 0; block < params.blockCount; ++block) {
        std::memcpy(to + block * layout.gmStep, from + block * layout.ubStep, params.blockLen);
    }
    twin::Record(kApi, layout.gmSpan / sizeof(T), layout.gmSpan, -1, static_cast<int64_t>(view.offset), -1, gm);
}

// ---------------------------------------------------------------------------------------
// Vector instructions. Each processes `count` elements, reading and writing UB only.
// ---------------------------------------------------------------------------------------

namespace detail {

template <typename T>
float Load(const T& value)
{
    return static_cast<float>(value);
}

// Atlas A2's vector unit computes on half and float only (asc-devkit 82b89a1,
// impl/basic_api/dav_c220: the SupportType checks of Exp, Div, Add, Adds, Compare and Select);
// bfloat16_t only moves and converts (DataCopy, Duplicate, Cast).
template <typename T>
constexpr void CheckArithmetic()
{
    static_assert(!std::is_same_v<T, bfloat16_t>,
                  "Atlas A2's vector unit has no bfloat16 arithmetic: Cast the tile to float, compute in "
                  "float, and Cast the result back once");
}

template <typename T>
T StoreAs(float value)
{
    return T(value);
}

template <typename T, typename Op>
void Unary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, Op op)
{
    CheckArithmetic<T>();
    CheckCount(api, count);
    const UbView d = ViewOf(dst), s = ViewOf(src);
    CheckOperand(api, d, count * sizeof(T), "dst");
    CheckOperand(api, s, count * sizeof(T), "src");
    const T* in = src.GetPhyAddr();
    T* out = dst.GetPhyAddr();
    for (uint32_t i = 0; i < count; ++i) {
        out[i] = StoreAs<T>(op(Load(in[i])));
    }
    twin::Record(api, count, count * sizeof(T), static_cast<int64_t>(d.offset), static_cast<int64_t>(s.offset));
}

template <typename T, typename Op>
void Binary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            uint32_t count, Op op)
{
    CheckArithmetic<T>();
    CheckCount(api, count);
    const UbView d = ViewOf(dst), a = ViewOf(src0), b = ViewOf(src1);
    CheckOperand(api, d, count * sizeof(T), "dst");
    CheckOperand(api, a, count * sizeof(T), "src0");
    CheckOperand(api, b, count * sizeof(T), "src1");
    const T* x = src0.GetPhyAddr();
    const T* y = src1.GetPhyAddr();
    T* out = dst.GetPhyAddr();
    for (uint32_t i = 0; i < count; ++i) {
        out[i] = StoreAs<T>(op(Load(x[i]), Load(y[i])));
    }
    twin::Record(api, count, count * sizeof(T), static_cast<int64_t>(d.offset), static_cast<int64_t>(a.offset),
                 static_cast<int64_t>(b.offset));
}

// IEEE max/min that propagate NaN (std::fmax/fmin would drop it).
inline float MaxNan(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b); }
inline float MinNan(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b); }

}  // namespace detail

template <typename T>
void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count)
{
    detail::Unary("Abs", dst, src, count, [](float v) { return std::fabs(v); });
}

template <typename T>
void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count)
{
    const twin::Numerics numerics = twin::Current().platform.numerics;
    detail::Unary("Exp", dst, src, count, [numerics](float v) { return twin::ModelExp(v, numerics); });
}

template <typename T>
void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, uint32_t count)
{
    const float s = detail::Load(scalar);
    detail::Unary("Muls", dst, src, count, [s](float v) { return v * s; });
}

template <typename T>
void Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, uint32_t count)
{
    const float s = detail::Load(scalar);
    detail::Unary("Adds", dst, src, count, [s](float v) { return v + s; });
}

template <typename T>
void Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, uint32_t count)
{
    const float s = detail::Load(scalar);
    detail::Unary("Maxs", dst, src, count, [s](float v) { return detail::MaxNan(v, s); });
}

template <typename T>
void Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, uint32_t count)
{
    const float s = detail::Load(scalar);
    detail::Unary("Mins", dst, src, count, [s](float v) { return detail::MinNan(v, s); });
}

template <typename T>
void Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count)
{
    detail::Binary("Add", dst, src0, src1, count, [](float a, float b) { return a + b; });
}

template <typename T>
void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count)
{
    detail::Binary("Sub", dst, src0, src1, count, [](float a, float b) { return a - b; });
}

template <typename T>
void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count)
{
    detail::Binary("Mul", dst, src0, src1, count, [](float a, float b) { return a * b; });
}

template <typename T>
void Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count)
{
    detail::Binary("Min", dst, src0, src1, count, [](float a, float b) { return detail::MinNan(a, b); });
}

template <typename T>
void Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count)
{
    const twin::Numerics numerics = twin::Current().platform.numerics;
    detail::Binary("Div", dst, src0, src1, count,
                   [numerics](float a, float b) { return twin::ModelDiv(a, b, numerics); });
}

template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T& scalar, uint32_t count)
{
    constexpr const char* kApi = "Duplicate";
    detail::CheckCount(kApi, count);
    const detail::UbView d = detail::ViewOf(dst);
    detail::CheckOperand(kApi, d, count * sizeof(T), "dst");
    T* out = dst.GetPhyAddr();
    for (uint32_t i = 0; i < count; ++i) {
        out[i] = scalar;
    }
    twin::Record(kApi, count, count * sizeof(T), static_cast<int64_t>(d.offset));
}

// dst bit i (byte i / 8, bit i % 8) = src0[i] <cmpMode> scalar. NaN compares false except NE.
template <typename T, typename U>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, T src1Scalar, CMPMODE cmpMode,
                   uint32_t count)
{
    constexpr const char* kApi = "CompareScalar";
    static_assert(std::is_same_v<U, uint8_t>, "CompareScalar writes a uint8_t bit mask");
    detail::CheckArithmetic<T>();
    detail::CheckCount(kApi, count);
    if (count * sizeof(T) % ONE_REPEAT_BYTE_SIZE != 0) {
        twin::Fail(kApi, detail::Str(count) + " elements are not whole 256-byte repeats");
    }
    const detail::UbView d = detail::ViewOf(dst), s = detail::ViewOf(src0);
    detail::CheckOperand(kApi, d, count / 8, "dst");
    detail::CheckOperand(kApi, s, count * sizeof(T), "src0");
    const float scalar = detail::Load(src1Scalar);
    const T* in = src0.GetPhyAddr();
    uint8_t* bits = dst.GetPhyAddr();
    std::memset(bits, 0, count / 8);
    for (uint32_t i = 0; i < count; ++i) {
        const float v = detail::Load(in[i]);
        bool result = false;
        switch (cmpMode) {
            case CMPMODE::LT: result = v < scalar; break;
            case CMPMODE::GT: result = v > scalar; break;
            case CMPMODE::EQ: result = v == scalar; break;
            case CMPMODE::LE: result = v <= scalar; break;
            case CMPMODE::GE: result = v >= scalar; break;
            case CMPMODE::NE: result = v != scalar; break;
        }
        bits[i / 8] |= static_cast<uint8_t>(result) << (i % 8);
    }
    twin::Record(kApi, count, count * sizeof(T), static_cast<int64_t>(d.offset), static_cast<int64_t>(s.offset));
}

namespace detail {

// Select's tensor modes use a scratch area at the top of UB on this platform: no buffer of
// the kernel may reach into it when they run.
inline void CheckSelectScratch(const char* api, SELMODE mode)
{
    const twin::CoreContext& core = twin::Current();
    const uint64_t scratch = core.platform.selectScratchBegin;
    if (mode != SELMODE::VSEL_CMPMASK_SPR && scratch != 0 && core.ubTop > scratch) {
        twin::Fail(api, "tensor modes use UB [" + Str(scratch) + ", " + Str(core.platform.ubBytes) +
                            ") as scratch, but the kernel's buffers reach " + Str(core.ubTop));
    }
}

template <typename T, typename U, typename Pick>
void SelectImpl(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                const detail::UbView* src1, SELMODE selMode, uint32_t count, Pick pick)
{
    constexpr const char* kApi = "Select";
    static_assert(std::is_same_v<U, uint8_t>, "Select reads a uint8_t bit mask");
    CheckArithmetic<T>();
    CheckCount(kApi, count);
    if (selMode == SELMODE::VSEL_CMPMASK_SPR) {
        twin::Fail(kApi, "VSEL_CMPMASK_SPR is not modelled by the twin");
    }
    CheckSelectScratch(kApi, selMode);
    const UbView d = ViewOf(dst), m = ViewOf(selMask), a = ViewOf(src0);
    CheckOperand(kApi, d, count * sizeof(T), "dst");
    CheckOperand(kApi, m, (count + 7) / 8, "selMask");
    CheckOperand(kApi, a, count * sizeof(T), "src0");
    if (src1 != nullptr) {
        CheckOperand(kApi, *src1, count * sizeof(T), "src1");
    }
    const uint8_t* bits = selMask.GetPhyAddr();
    const T* first = src0.GetPhyAddr();
    T* out = dst.GetPhyAddr();
    for (uint32_t i = 0; i < count; ++i) {
        out[i] = (bits[i / 8] >> (i % 8)) & 1 ? first[i] : pick(i);
    }
    twin::Record(kApi, count, count * sizeof(T), static_cast<int64_t>(d.offset), static_cast<int64_t>(a.offset),
                 src1 != nullptr ? static_cast<int64_t>(src1->offset) : -1);
}

}  // namespace detail

// dst[i] = mask bit i ? src0[i] : src1[i]   (VSEL_TENSOR_TENSOR_MODE)
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count)
{
    if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE) {
        twin::Fail("Select", "two tensor sources need VSEL_TENSOR_TENSOR_MODE");
    }
    const detail::UbView other = detail::ViewOf(src1);
    const T* second = src1.GetPhyAddr();
    detail::SelectImpl(dst, selMask, src0, &other, selMode, count, [second](uint32_t i) { return second[i]; });
}

// dst[i] = mask bit i ? src0[i] : src1   (VSEL_TENSOR_SCALAR_MODE)
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
            SELMODE selMode, uint32_t count)
{
    if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE) {
        twin::Fail("Select", "a scalar second source needs VSEL_TENSOR_SCALAR_MODE");
    }
    detail::SelectImpl(dst, selMask, src0, nullptr, selMode, count, [src1](uint32_t) { return src1; });
}

namespace detail {

inline twin::Rounding NarrowingRounding(RoundMode mode)
{
    switch (mode) {
        case RoundMode::CAST_NONE:
        case RoundMode::CAST_RINT: return twin::Rounding::kNearestEven;
        case RoundMode::CAST_FLOOR: return twin::Rounding::kFloor;
        case RoundMode::CAST_CEIL: return twin::Rounding::kCeil;
        case RoundMode::CAST_ROUND: return twin::Rounding::kNearestAway;
        case RoundMode::CAST_TRUNC: return twin::Rounding::kTowardZero;
        case RoundMode::CAST_ODD: return twin::Rounding::kOdd;
    }
    return twin::Rounding::kNearestEven;
}

template <typename To, typename From>
To Convert(From value, RoundMode mode)
{
    if constexpr (std::is_same_v<To, float>) {
        if (mode != RoundMode::CAST_NONE) {
            twin::Fail("Cast", "widening to float is exact: use CAST_NONE");
        }
        return static_cast<float>(value);
    } else {
        static_assert(std::is_same_v<From, float>, "the twin casts float to half or bfloat16_t only");
        if (mode == RoundMode::CAST_ODD && !std::is_same_v<To, half>) {
            twin::Fail("Cast", "CAST_ODD is defined for float -> half only");
        }
        using Format = std::conditional_t<std::is_same_v<To, half>, twin::HalfFormat, twin::Bfloat16Format>;
        return To::FromBits(twin::FromFloat<Format>(value, NarrowingRounding(mode)));
    }
}

}  // namespace detail

// dst = src converted element by element, narrowing conversions rounded by `roundMode`.
template <typename T, typename U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, RoundMode roundMode, uint32_t count)
{
    constexpr const char* kApi = "Cast";
    detail::CheckCount(kApi, count);
    const detail::UbView d = detail::ViewOf(dst), s = detail::ViewOf(src);
    detail::CheckOperand(kApi, d, count * sizeof(T), "dst");
    detail::CheckOperand(kApi, s, count * sizeof(U), "src");
    const U* in = src.GetPhyAddr();
    T* out = dst.GetPhyAddr();
    for (uint32_t i = 0; i < count; ++i) {
        out[i] = detail::Convert<T>(in[i], roundMode);
    }
    twin::Record(kApi, count, count * sizeof(T), static_cast<int64_t>(d.offset), static_cast<int64_t>(s.offset));
}

// ---------------------------------------------------------------------------------------
// Debugging on the board: printf and DumpTensor (asc-devkit docs/zh/api/Utils-API/调测接口/
// printf.md; docs/zh/api/SIMD-API/基础API/调试接口/上板打印/DumpTensor.md). The text goes to
// the core's log (twin/core.h) in the NPU's format; the launcher returns the logs core by core.
// ---------------------------------------------------------------------------------------

namespace detail {

template <typename A>
twin::PrintArgument ToPrintArgument(const A& value)
{
    using V = std::decay_t<A>;
    using Kind = twin::PrintArgument::Kind;
    twin::PrintArgument argument{};
    if constexpr (std::is_floating_point_v<V>) {
        argument.kind = Kind::kFloat;
        argument.floatValue = static_cast<double>(value);
    } else if constexpr (std::is_same_v<V, half> || std::is_same_v<V, bfloat16_t>) {
        argument.kind = Kind::kFloat;
        argument.floatValue = static_cast<double>(static_cast<float>(value));
    } else if constexpr (std::is_integral_v<V> || std::is_enum_v<V>) {
        using I = typename std::conditional_t<std::is_enum_v<V>, std::underlying_type<V>, std::common_type<V>>::type;
        const I raw = static_cast<I>(value);
        argument.kind = std::is_signed_v<I> ? Kind::kSigned : Kind::kUnsigned;
        argument.signedValue = static_cast<int64_t>(raw);
        argument.unsignedValue = static_cast<std::make_unsigned_t<I>>(raw);
    } else if constexpr (std::is_pointer_v<V> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<V>>, char>) {
        argument.kind = Kind::kString;
        argument.text = value;
    } else if constexpr (std::is_pointer_v<V>) {
        argument.kind = Kind::kPointer;
        argument.pointer = value;
    } else {
        static_assert(std::is_pointer_v<V>, "printf prints integers, floats, half, bfloat16_t, strings and pointers");
    }
    return argument;
}

// DumpTensor's data_type names (as its documentation prints them).
template <typename T>
constexpr const char* DumpTypeName()
{
    if constexpr (std::is_same_v<T, float>) return "float32";
    else if constexpr (std::is_same_v<T, half>) return "float16";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16";
    else if constexpr (std::is_same_v<T, bool>) return "bool";
    else if constexpr (std::is_same_v<T, int8_t>) return "int8";
    else if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16";
    else if constexpr (std::is_same_v<T, uint16_t>) return "uint16";
    else if constexpr (std::is_same_v<T, int32_t>) return "int32";
    else if constexpr (std::is_same_v<T, uint32_t>) return "uint32";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64";
    else if constexpr (std::is_same_v<T, uint64_t>) return "uint64";
    else static_assert(std::is_same_v<T, float>, "DumpTensor does not support this data type");
}

// What one call may print on the NPU: the SIMD print buffer's default, 30 KB
// (simd_printf_fifo_size_per_core in aclInit's configuration; DumpTensor.md, constraints).
constexpr uint64_t kDumpLimitBytes = 30 * 1024;

template <typename T>
void LogDump(uint32_t desc, uint64_t address, const char* position, const T* data, uint32_t dumpSize)
{
    const uint64_t bytes = static_cast<uint64_t>(dumpSize) * sizeof(T);
    if (bytes > kDumpLimitBytes) {
        twin::Fail("DumpTensor", "dump_size " + Str(dumpSize) + " is " + Str(bytes) + " bytes, more than the " +
                                     Str(kDumpLimitBytes) + " one call may print: the NPU would print nothing");
    }
    char text[64];
    std::string line = "DumpTensor: desc=" + Str(desc) + ", addr=0x";
    std::snprintf(text, sizeof(text), "%llx", static_cast<unsigned long long>(address));
    line += text;
    line += std::string(", data_type=") + DumpTypeName<T>() + ", position=" + position +
            ", dump_size=" + Str(dumpSize) + "\n[";
    for (uint32_t i = 0; i < dumpSize; ++i) {
        if constexpr (std::is_integral_v<T>) {
            line += std::to_string(data[i]);
        } else {
            std::snprintf(text, sizeof(text), "%f", static_cast<double>(static_cast<float>(data[i])));
            line += text;
        }
        line += i + 1 < dumpSize ? ", " : "";
    }
    twin::Log(line + "]\n");
}

}  // namespace detail

// printf on the vector core: the documented conversions, each line after "[AIV Block i/n] ".
template <class... Args>
void printf(__gm__ const char* fmt, Args&&... args)
{
    twin::Printf(fmt, {detail::ToPrintArgument(args)...});
}

// The same function under its upper-case name (asc-devkit impl/utils/debug/asc_aicore_printf_impl.h).
template <class... Args>
void PRINTF(__gm__ const char* fmt, Args&&... args)
{
    twin::Printf(fmt, {detail::ToPrintArgument(args)...});
}

// Prints dumpSize elements of a UB tensor; addr is its UB byte offset.
template <typename T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize)
{
    const detail::UbView view = detail::ViewOf(tensor);
    detail::CheckOperand("DumpTensor", view, static_cast<uint64_t>(dumpSize) * sizeof(T), "tensor");
    detail::LogDump(desc, view.offset, "UB", tensor.GetPhyAddr(), dumpSize);
}

// Prints dumpSize elements of a GM tensor; addr is the byte offset into the host's buffer
// (on the NPU it is the device address).
template <typename T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize)
{
    const int64_t offset = tensor.Access("DumpTensor", static_cast<uint64_t>(dumpSize) * sizeof(T));
    detail::LogDump(desc, static_cast<uint64_t>(offset), "GM", tensor.GetPhyAddr(), dumpSize);
}

}  // namespace AscendC

#endif  // MISHGRAD_TWIN_KERNEL_OPERATOR_H
