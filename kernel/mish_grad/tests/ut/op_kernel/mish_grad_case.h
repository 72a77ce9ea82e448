// The body of MishGrad's kernel unit tests, shared by the three test files, one per dtype:
// mish_grad_data/gen_data.py writes the inputs and the golden (grad * dmish/dx in float64,
// rounded once), the kernel runs on the CPU with the tiling the host computes for Atlas A2,
// and mish_grad_data/compare_data.py applies CANN's precision standard (the mixed tolerance in
// force decides; MERE and MARE of its first release are printed too). Both scripts need only
// python3 with NumPy.
//
// The data folder is set up as ops-nn's kernel tests do (kernel_ut_data_helper.h,
// kernel_ut_data_executor.h in ops-nn's tests/ut/op_kernel/): copied from its place in the
// ops-nn tree into the working folder, the scripts run there. Every test file of this folder
// is compiled into one program (CMakeLists.txt here), so everything below is inline.
#ifndef MISHGRAD_UT_MISH_GRAD_CASE_H
#define MISHGRAD_UT_MISH_GRAD_CASE_H

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

namespace mishgrad_ut {

// Many cores, several tiles each, a tail on every core and a last core that ends mid-repeat.
constexpr uint64_t kManyTiles = 48 * 4099 + 13;
// A few cores, with tanhx given.
constexpr uint64_t kWithTanhx = 3 * 1000 + 1;

// Where ops-nn has the data folder (the operator goes to experimental/activation/mish_grad),
// and its copy in the working folder.
constexpr char kDataSource[] = "experimental/activation/mish_grad/tests/ut/op_kernel/mish_grad_data";
constexpr char kDataName[] = "mish_grad_data";
inline const std::string kDataDir = std::string("./") + kDataName;

constexpr uint64_t kAtlasA2UbBytes = 196608;
constexpr uint32_t kAtlasA2VectorCores = 48;
// More than the kernel's user workspace (core 0's 64-byte stamp). In CPU debug mode CANN's
// GetUserWorkspace returns the workspace pointer itself, as the twin's does (asc-devkit
// 82b89a1, impl/basic_api/dav_c220/kernel_operator_common_impl.h lines 55-60).
constexpr size_t kWorkspaceBytes = 1024;

// The kernel entry's six arguments in global memory; tanhx may be null.
struct KernelArgs {
    GM_ADDR grad;
    GM_ADDR x;
    GM_ADDR tanhx;
    GM_ADDR xGrad;
    GM_ADDR workspace;
    GM_ADDR tiling;
};

// Runs one dtype's kernel entry on blockDim cores with ICPU_RUN_KF (each test file has one:
// the macro takes the entry by name).
using Launch = void (*)(uint32_t blockDim, const KernelArgs& args);

// The dtype's name in the data scripts' arguments.
template <typename T>
std::string DtypeName()
{
    if constexpr (std::is_same_v<T, float>) {
        return "float32";
    } else if constexpr (std::is_same_v<T, half>) {
        return "float16";
    } else {
        static_assert(std::is_same_v<T, bfloat16_t>, "MishGrad takes float, half and bfloat16_t");
        return "bfloat16";
    }
}

inline std::string Join(const std::vector<std::string>& words)
{
    std::string text;
    for (const auto& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

inline std::string ReadText(const std::string& path)
{
    std::ifstream file(path);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Global memory holding the file `name` of the data folder.
inline uint8_t* Load(const std::string& name, size_t bytes)
{
    auto* memory = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    size_t size = 0;
    EXPECT_TRUE(ReadFile(kDataDir + "/" + name, size, memory, bytes)) << name;
    EXPECT_EQ(size, bytes) << name;
    return memory;
}

// Generates the data of `n` elements of T (with tanhx if asked), runs the kernel through
// `launch`, checks core 0's stamp and compares the output with the golden.
template <typename T>
void RunCase(Launch launch, uint64_t n, bool tanhx)
{
    const std::string dtype = DtypeName<T>();
    ASSERT_TRUE(kernel_ut::SetupTestEnvironment(kDataSource, kDataName))
        << "could not copy <repository root>/" << kDataSource << " to " << kDataDir
        << " (the root is $OPS_NN_ROOT, or the first folder up with CMakeLists.txt and README.md)";
    std::vector<std::string> words{std::to_string(n), dtype};
    if (tanhx) {
        words.emplace_back("tanhx");
    }
    ASSERT_TRUE(kernel_ut::RunGenData(kDataDir, words))
        << "gen_data.py " << Join(words) << " failed in " << kDataDir
        << "; it needs python3 with NumPy: run it there to see why";

    MishGradTilingData tiling{};
    ASSERT_EQ(mishgrad::ComputeTiling(n, sizeof(T), tanhx, kAtlasA2UbBytes, kAtlasA2VectorCores,
                                      /*selectUsesScratch=*/true, &tiling),
              mishgrad::TilingStatus::kOk);
    const size_t bytes = n * sizeof(T);
    KernelArgs args{Load("input_grad.bin", bytes),
                    Load("input_x.bin", bytes),
                    tanhx ? Load("input_tanhx.bin", bytes) : nullptr,
                    static_cast<uint8_t*>(AscendC::GmAlloc(bytes)),
                    static_cast<uint8_t*>(AscendC::GmAlloc(kWorkspaceBytes)),
                    static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(MishGradTilingData)))};
    *reinterpret_cast<MishGradTilingData*>(args.tiling) = tiling;

    ICPU_SET_TILING_KEY(0);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    launch(tiling.blockDim, args);

    EXPECT_TRUE(WriteFile(kDataDir + "/output.bin", args.xGrad, bytes));
    // Core 0's stamp (op_kernel/mish_grad_stamp.h): this kernel ran, for this dtype and plan.
    const auto* stamp = reinterpret_cast<const uint32_t*>(args.workspace);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(args.workspace), 8), "MISHGRAD");
    EXPECT_EQ(stamp[3], sizeof(T));
    EXPECT_EQ(stamp[4], tiling.blockDim);
    EXPECT_EQ(stamp[7], static_cast<uint32_t>(n));
    for (uint8_t* memory : {args.grad, args.x, args.tanhx, args.xGrad, args.workspace, args.tiling}) {
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

// Each test file's suite derives from this: the generated files go when the suite ends.
class KernelTest : public testing::Test {
protected:
    static void SetUpTestCase() { std::cout << "mish_grad kernel test SetUp" << std::endl; }
    static void TearDownTestCase()
    {
        std::cout << "mish_grad kernel test TearDown" << std::endl;
        kernel_ut::CleanGeneratedBinFiles(kDataDir);
    }
};

}  // namespace mishgrad_ut

#endif  // MISHGRAD_UT_MISH_GRAD_CASE_H
