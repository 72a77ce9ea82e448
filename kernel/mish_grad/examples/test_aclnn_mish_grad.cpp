// test_aclnn_mish_grad.cpp: aclnnMishBackward called from C++ in seven steps.
//
//   gradInput = gradOutput * dMish/dx(self),   Mish(x) = x * tanh(softplus(x))
//
// Only CANN's public C API is used (acl/acl.h and the op's aclnn header), so the same source
// builds two ways:
//   * against the CPU twin, anywhere:      `make example` (from the repository root)
//   * against CANN, on an Ascend host:     `bash kernel/mish_grad/examples/run.sh`
//
// The data is that of ops-nn's example for aclnnMishBackward (ops-nn at e5c3fa9,
// activation/mish_grad/docs/aclnnMishBackward.md, lines 292-302): shape {4, 2}, float32,
// gradOutput = 0..7 and self = {1, 1, 1, 2, 2, 2, 3, 3}. The output is one line per element,
// `gradInput[i] = <value>` printed with %.9g (enough digits to give back the exact float32),
// then which kernel ran (`kernel: ...`, from the stamp our kernel leaves in its workspace), then
// `status: ok`; on failure the failing call, its status code and the runtime's own
// message go to stderr, `status: failed` to stdout, and the exit status is 1.
//
// The one argument, optional, is the identity of the sources the kernel should be built from
// (what `python3 -m tools.identity kernel/mish_grad` prints): `run.sh` and `make
// example` pass the checkout's, and the stamp must name it for `kernel: this build`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn_mish_backward.h"

namespace {

// ---------------------------------------------------------------------------------------
// Error checking: every call is checked, and a failure names the call, its status and
// aclGetRecentErrMsg(), which usually says which argument was wrong and why.

int Fail(const char* call, const std::string& outcome)
{
    const char* message = aclGetRecentErrMsg();  // may be null on CANN when there is none
    std::fprintf(stderr, "error: %s %s\n  aclGetRecentErrMsg: %s\n", call, outcome.c_str(),
                 message != nullptr && message[0] != '\0' ? message : "(no message)");
    return 1;
}

// Both aclError and aclnnStatus use 0 for success (ACL_SUCCESS, ACLNN_SUCCESS).
#define CHECK(call)                                                               \
    do {                                                                          \
        if (const auto status_ = (call); status_ != ACL_SUCCESS) {                \
            return Fail(#call, "returned " + std::to_string(status_));            \
        }                                                                         \
    } while (0)

// ---------------------------------------------------------------------------------------
// Ownership. Step 7 releases everything explicitly, in order, and checks each call; the
// guards below make sure that an early return from a failed step releases what was already
// acquired, in the right order (reverse order of acquisition), without a checked status:
// the program is already failing and reports the first error.

// One handle released by `Release` unless it was handed back with release() (step 7 does
// that, to make the checked call itself).
template <typename Handle, auto Release>
class Owned {
public:
    Owned() = default;
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    ~Owned()
    {
        if (handle_ != nullptr) {
            (void)Release(handle_);
        }
    }

    Handle get() const { return handle_; }
    // For creator functions that return the handle through a pointer (aclrtMalloc,
    // aclrtCreateStream); the guard must be empty.
    Handle* out() { return &handle_; }
    void reset(Handle handle) { handle_ = handle; }
    Handle release() { return std::exchange(handle_, nullptr); }

private:
    Handle handle_ = nullptr;
};

using DeviceMemory = Owned<void*, aclrtFree>;
using Stream = Owned<aclrtStream, aclrtDestroyStream>;
using Tensor = Owned<aclTensor*, aclDestroyTensor>;

// Runs `undo` at scope exit unless dismissed: aclrtResetDevice and aclFinalize, which are
// not handles.
template <typename Undo>
class ScopeExit {
public:
    explicit ScopeExit(Undo undo) : undo_(std::move(undo)) {}
    ScopeExit(const ScopeExit&) = delete;
    ScopeExit& operator=(const ScopeExit&) = delete;
    ~ScopeExit()
    {
        if (armed_) {
            undo_();
        }
    }
    void dismiss() { armed_ = false; }

private:
    Undo undo_;
    bool armed_ = true;
};

// A tensor in device memory. The members are destroyed in reverse order: the aclTensor
// (which only describes the memory) before the memory itself.
struct DeviceTensor {
    DeviceMemory memory;
    Tensor tensor;
};

int64_t ElementCount(const std::vector<int64_t>& shape)
{
    int64_t count = 1;
    for (const int64_t dim : shape) {
        count *= dim;
    }
    return count;
}

// Step 2 for one tensor: allocate device memory, copy `host` into it (unless `host` is
// null), and describe it as a contiguous float32 ND tensor of `shape`.
int CreateDeviceTensor(const std::vector<int64_t>& shape, const float* host, DeviceTensor& out)
{
    const size_t bytes = static_cast<size_t>(ElementCount(shape)) * sizeof(float);
    // HUGE_FIRST: huge pages when available, normal pages otherwise (the usual choice).
    CHECK(aclrtMalloc(out.memory.out(), bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    if (host != nullptr) {
        CHECK(aclrtMemcpy(out.memory.get(), bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    }
    // Strides are in elements, not bytes. Contiguous (row-major): the last dimension has
    // stride 1, each earlier one the product of the dimensions after it.
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) {
        strides[d - 1] = strides[d] * shape[d];
    }
    // The view (shape, strides, offset 0) covers the whole storage, whose shape is the same.
    out.tensor.reset(aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                     shape.data(), shape.size(), out.memory.get()));
    if (out.tensor.get() == nullptr) {
        return Fail("aclCreateTensor(...)", "returned a null tensor");
    }
    return 0;
}

// The stamp our kernel leaves in its workspace (op_kernel/mish_grad_stamp.h, the layout of
// op_kernel/mish_grad_tiling_data.h, which this program cannot include: ops-nn builds it with
// CANN's public headers alone): 16 little-endian words, "MISHGRAD", the version, the element
// size, the plan, the low 32 bits of n, then words 8-15, the SHA-256 of the kernel's sources.
constexpr uint32_t kStampVersion = 2;
constexpr size_t kStampWords = 16;
constexpr size_t kIdentityWord = 8;

std::string Hex(const uint8_t* bytes, size_t count)
{
    std::string text;
    for (size_t i = 0; i < count; ++i) {
        char digits[3];
        std::snprintf(digits, sizeof(digits), "%02x", bytes[i]);
        text += digits;
    }
    return text;
}

// Which kernel ran, from the workspace it was given zeroed: this build (a stamp of this call
// that names `expected`), another build of this kernel (any other stamp: an older version, or
// other sources), or none of this repository's (no stamp, which does not say whose ran).
std::string WhichKernel(const std::vector<uint8_t>& workspace, uint64_t n, const std::string& expected)
{
    for (size_t at = 0; at + kIdentityWord * sizeof(uint32_t) <= workspace.size(); at += sizeof(uint32_t)) {
        if (std::memcmp(workspace.data() + at, "MISHGRAD", 8) != 0) {
            continue;
        }
        uint32_t words[kStampWords] = {};  // a stamp cut short keeps zeros: no identity
        std::memcpy(words, workspace.data() + at, std::min(sizeof(words), workspace.size() - at));
        if (words[2] != kStampVersion) {
            return "another build of this kernel (its stamp is version " + std::to_string(words[2]) + ")";
        }
        if (words[3] != sizeof(float) || words[7] != static_cast<uint32_t>(n)) {
            return "another build of this kernel (its stamp is not for this call)";
        }
        const size_t identityBytes = (kStampWords - kIdentityWord) * sizeof(uint32_t);
        const std::string identity = Hex(reinterpret_cast<const uint8_t*>(words + kIdentityWord), identityBytes);
        if (expected.empty()) {
            return "a build of this repository's, sources " + identity.substr(0, 16) +
                   " (not compared: pass the checkout's identity as the argument)";
        }
        if (identity != expected) {
            return "another build of this kernel (its stamp names sources " + identity.substr(0, 16) +
                   ", not " + expected.substr(0, 16) + ")";
        }
        return "this build of this repository's (its stamp names sources " + identity.substr(0, 16) + ")";
    }
    return "not this repository's (no stamp in the workspace)";
}

int Run(const std::string& identity)
{
    constexpr int32_t kDeviceId = 0;
    const std::vector<int64_t> shape = {4, 2};
    const std::vector<float> gradOutputHost = {0, 1, 2, 3, 4, 5, 6, 7};
    const std::vector<float> selfHost = {1, 1, 1, 2, 2, 2, 3, 3};

    // Step 1: initialize the runtime, claim the device, create a stream. Work on the NPU is
    // queued on a stream and runs asynchronously to the host.
    CHECK(aclInit(nullptr));  // no configuration file
    ScopeExit finalize([] { (void)aclFinalize(); });
    CHECK(aclrtSetDevice(kDeviceId));
    ScopeExit resetDevice([] { (void)aclrtResetDevice(kDeviceId); });
    Stream stream;
    CHECK(aclrtCreateStream(stream.out()));

    // Step 2: the three tensors in device memory. gradInput gets no host data: the operator
    // writes every element (on the twin fresh device memory holds NaN, so an element it
    // missed would show).
    DeviceTensor gradOutput;
    DeviceTensor self;
    DeviceTensor gradInput;
    if (CreateDeviceTensor(shape, gradOutputHost.data(), gradOutput) != 0 ||
        CreateDeviceTensor(shape, selfHost.data(), self) != 0 || CreateDeviceTensor(shape, nullptr, gradInput) != 0) {
        return 1;
    }

    // Step 3: phase one of the two-phase API. It checks the arguments (null tensors, dtypes,
    // ranks, broadcasting) and plans the work into an executor, and says how much device
    // workspace the plan needs. Nothing runs on the device yet.
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;  // owned by the runtime: freed when phase two runs it
    CHECK(aclnnMishBackwardGetWorkspaceSize(gradOutput.tensor.get(), self.tensor.get(), gradInput.tensor.get(),
                                            &workspaceSize, &executor));
    std::printf("workspaceSize = %llu\n", static_cast<unsigned long long>(workspaceSize));

    // Step 4: the workspace, exactly the size phase one asked for. MishGrad's tiling asks for
    // the workspace CANN's kernel library reserves (GetLibApiWorkSpaceSize; the twin reserves
    // none) plus 64 bytes of the kernel's own, where it writes its stamp; a strided, broadcast
    // or mixed-dtype call also needs room to gather its inputs. Zeroed, so that a stamp found
    // after the run can only come from this run's kernel.
    DeviceMemory workspace;
    if (workspaceSize > 0) {
        CHECK(aclrtMalloc(workspace.out(), workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
        const std::vector<uint8_t> zeros(workspaceSize, 0);
        CHECK(aclrtMemcpy(workspace.get(), workspaceSize, zeros.data(), workspaceSize, ACL_MEMCPY_HOST_TO_DEVICE));
    }

    // Step 5: phase two queues the planned work on the stream and returns; an executor runs
    // once.
    CHECK(aclnnMishBackward(workspace.get(), workspaceSize, executor, stream.get()));

    // Step 6: wait for the stream (errors of the kernel itself surface here), then copy the
    // result back to the host.
    CHECK(aclrtSynchronizeStream(stream.get()));
    std::vector<float> gradInputHost(static_cast<size_t>(ElementCount(shape)));
    const size_t bytes = gradInputHost.size() * sizeof(float);
    CHECK(aclrtMemcpy(gradInputHost.data(), bytes, gradInput.memory.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < gradInputHost.size(); ++i) {
        // A float32 needs 9 significant digits to be read back exactly.
        std::printf("gradInput[%zu] = %.9g\n", i, static_cast<double>(gradInputHost[i]));
    }
    // Which kernel ran: this repository's leaves its stamp in its workspace, naming its build;
    // CANN's own MishGrad kernel leaves none.
    std::vector<uint8_t> workspaceHost(workspaceSize);
    if (workspaceSize > 0) {
        CHECK(aclrtMemcpy(workspaceHost.data(), workspaceSize, workspace.get(), workspaceSize,
                          ACL_MEMCPY_DEVICE_TO_HOST));
    }
    const std::string kernel = WhichKernel(workspaceHost, gradInputHost.size(), identity);
    std::printf("kernel: %s\n", kernel.c_str());

    // Step 7: release in reverse order of creation, each call checked: the tensor
    // descriptors, the device memory they describe, the stream, the device, the runtime.
    for (DeviceTensor* t : {&gradOutput, &self, &gradInput}) {
        CHECK(aclDestroyTensor(t->tensor.release()));
    }
    for (DeviceTensor* t : {&gradOutput, &self, &gradInput}) {
        CHECK(aclrtFree(t->memory.release()));
    }
    if (workspace.get() != nullptr) {
        CHECK(aclrtFree(workspace.release()));
    }
    CHECK(aclrtDestroyStream(stream.release()));
    resetDevice.dismiss();
    CHECK(aclrtResetDevice(kDeviceId));
    finalize.dismiss();
    CHECK(aclFinalize());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    const int status = Run(argc > 1 ? argv[1] : "");
    std::printf("status: %s\n", status == 0 ? "ok" : "failed");
    return status;
}
