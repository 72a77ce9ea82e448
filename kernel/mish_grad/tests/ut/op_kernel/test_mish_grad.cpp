// Kernel unit test of MishGrad with golden data, in the form of ops-nn's op_kernel tests:
// mish_grad_data/gen_data.py writes the inputs and the golden (grad * dmish/dx in float64,
// rounded once), the kernel runs on the CPU with the tiling the host computes for Atlas A2,
// and mish_grad_data/compare_data.py applies CANN's precision standard (the mixed tolerance in
// force decides; MERE and MARE of its first release are printed too). Both scripts need only
// python3 with NumPy.
//
// The test and the kernel are separate translation units, as ops-nn's AddOpTestCase builds
// them: one object library of test_mish_grad*.cpp and the kernel file copied from op_kernel/,
// every source compiled with -include mish_grad_tiling_def.h and the test's -D options (ops-nn
// e5c3fa9, cmake/ut.cmake lines 636-637 and 700-748). So the kernel is declared here, not
// included. The data folder is set up as ops-nn's kernel tests do (kernel_ut_data_helper.h,
// kernel_ut_data_executor.h in ops-nn's tests/ut/op_kernel/): copied from its place in the
// ops-nn tree into the working folder, the scripts run there.
//
// Built once per dtype with -DDTYPE_X=float|half|bfloat16_t: all three on the CPU twin (make
// ut); float in ops-nn (tests/ut/op_kernel/CMakeLists.txt), in CANN's CPU debug mode.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "kernel_operator.h"
#include "tikicpulib.h"
#include "data_utils.h"
#include "kernel_ut_data_helper.h"
#include "kernel_ut_data_executor.h"
#include "../../../common/mish_grad_tiling.h"

extern "C" __global__ __aicore__ void mish_grad(GM_ADDR grad, GM_ADDR x, GM_ADDR tanhx, GM_ADDR xGrad,
                                                GM_ADDR workspace, GM_ADDR tiling);

namespace {

// Where ops-nn has the data folder (the operator goes to experimental/activation/mish_grad),
// and its copy in the working folder.
constexpr char kDataSource[] = "experimental/activation/mish_grad/tests/ut/op_kernel/mish_grad_data";
constexpr char kDataName[] = "mish_grad_data";
const std::string kDataDir = std::string("./") + kDataName;

constexpr uint64_t kAtlasA2UbBytes = 196608;
constexpr uint32_t kAtlasA2VectorCores = 48;
// More than the kernel's user workspace (core 0's 64-byte stamp). In CPU debug mode CANN's
// GetUserWorkspace returns the workspace pointer itself, as the twin's does (asc-devkit
// 82b89a1, impl/basic_api/dav_c220/kernel_operator_common_impl.h lines 55-60).
constexpr size_t kWorkspaceBytes = 1024;

std::string DtypeName()
{
    if (std::is_same_v<DTYPE_X, float>) {
        return "float32";
    }
    return std::is_same_v<DTYPE_X, half> ? "float16" : "bfloat16";
}

std::string Join(const std::vector<std::string>& words)
{
    std::string text;
    for (const auto& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

std::string ReadText(const std::string& path)
{
    std::ifstream file(path);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Global memory holding the file `name` of the data folder.
uint8_t* Load(const std::string& name, size_t bytes)
{
    auto* memory = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    size_t size = 0;
    EXPECT_TRUE(ReadFile(kDataDir + "/" + name, size, memory, bytes)) << name;
    EXPECT_EQ(size, bytes) << name;
    return memory;
}

// Generates the data, runs the kernel on `n` elements (with tanhx if asked), compares.
void RunCase(uint64_t n, bool tanhx)
{
    const std::string dtype = DtypeName();
    ASSERT_TRUE(kernel_ut::SetupTestEnvironment(kDataSource, kDataName))
        << "could not copy <repository root>/" << kDataSource << " to " << kDataDir
        << " (the root is $OPS_NN_ROOT, or the first folder up with CMakeLists.txt and README.md)";
    std::vector<std::string> args{std::to_string(n), dtype};
    if (tanhx) {
        args.emplace_back("tanhx");
    }
    ASSERT_TRUE(kernel_ut::RunGenData(kDataDir, args))
        << "gen_data.py " << Join(args) << " failed in " << kDataDir
        << "; it needs python3 with NumPy: run it there to see why";

    MishGradTilingData tiling{};
    ASSERT_EQ(mishgrad::ComputeTiling(n, sizeof(DTYPE_X), tanhx, kAtlasA2UbBytes, kAtlasA2VectorCores,
                                      /*selectUsesScratch=*/true, &tiling),
              mishgrad::TilingStatus::kOk);
    const size_t bytes = n * sizeof(DTYPE_X);
    uint8_t* grad = Load("input_grad.bin", bytes);
    uint8_t* x = Load("input_x.bin", bytes);
    uint8_t* tanhxGm = tanhx ? Load("input_tanhx.bin", bytes) : nullptr;
    auto* xGrad = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    auto* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(kWorkspaceBytes));
    auto* tilingGm = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(MishGradTilingData)));
    *reinterpret_cast<MishGradTilingData*>(tilingGm) = tiling;

    ICPU_SET_TILING_KEY(0);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(mish_grad, tiling.blockDim, grad, x, tanhxGm, xGrad, workspace, tilingGm);

    EXPECT_TRUE(WriteFile(kDataDir + "/output.bin", xGrad, bytes));
    // Core 0's stamp (op_kernel/mish_grad_stamp.h): this kernel ran, with this plan.
    const auto* stamp = reinterpret_cast<const uint32_t*>(workspace);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(workspace), 8), "MISHGRAD");
    EXPECT_EQ(stamp[3], sizeof(DTYPE_X));
    EXPECT_EQ(stamp[4], tiling.blockDim);
    EXPECT_EQ(stamp[7], static_cast<uint32_t>(n));
    for (uint8_t* memory : {grad, x, tanhxGm, xGrad, workspace, tilingGm}) {
        if (memory != nullptr) {
            AscendC::GmFree(memory);
        }
    }
    // ops-nn's runner discards the script's output: the verdicts come from its report file.
    const bool passed = kernel_ut::RunCompareData(kDataDir, {dtype});
    const std::string report = ReadText(kDataDir + "/compare_report.txt");
    std::cout << report;
    EXPECT_TRUE(passed) << "compare_data.py " << dtype << " failed in " << kDataDir << ":\n"
                        << (report.empty() ? "no compare_report.txt: did python3 with NumPy run?" : report);
}

}  // namespace

class mish_grad_test : public testing::Test {
protected:
    static void SetUpTestCase() { std::cout << "mish_grad_test SetUp" << std::endl; }
    static void TearDownTestCase()
    {
        std::cout << "mish_grad_test TearDown" << std::endl;
        kernel_ut::CleanGeneratedBinFiles(kDataDir);
    }
};

// Many cores, several tiles each, a tail on every core and a last core that ends mid-repeat.
TEST_F(mish_grad_test, test_case_without_tanhx)
{
    RunCase(48 * 4099 + 13, false);
}

TEST_F(mish_grad_test, test_case_with_tanhx)
{
    RunCase(3 * 1000 + 1, true);
}
