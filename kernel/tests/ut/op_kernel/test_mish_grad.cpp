// Kernel unit test of MishGrad with golden data, in the form of ops-nn's op_kernel tests:
// mish_grad_data/gen_data.py writes the inputs and the golden (the correctly rounded truth),
// the kernel runs on the CPU with the tiling the host computes for Atlas A2, and
// mish_grad_data/compare_data.py applies CANN's precision standard (the mixed tolerance in
// force; MERE and MARE of its first release are printed too).
//
// Built once per dtype with -DDTYPE_X=float|half|bfloat16_t. Here it runs on the CPU twin
// (make ut); in ops-nn under CANN's CPU debug mode (tikicpulib, build.sh -u --opkernel).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data_utils.h"
#include "tikicpulib.h"
#include "../../../op_kernel/mish_grad.cpp"
#include "../../../common/mish_grad_tiling.h"

namespace {

constexpr uint64_t kAtlasA2UbBytes = 196608;
constexpr uint32_t kAtlasA2VectorCores = 48;

std::string DtypeName()
{
    if (std::is_same_v<DTYPE_X, float>) {
        return "float32";
    }
    return std::is_same_v<DTYPE_X, half> ? "float16" : "bfloat16";
}

// Global memory holding the file `name` of the data folder.
uint8_t* Load(const std::string& name, size_t bytes)
{
    auto* memory = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    size_t size = 0;
    EXPECT_TRUE(ReadFile("./mish_grad_data/" + name, size, memory, bytes)) << name;
    EXPECT_EQ(size, bytes) << name;
    return memory;
}

// Generates the data, runs the kernel on `n` elements (with tanhx if asked), compares.
void RunCase(uint64_t n, bool tanhx)
{
    const std::string dtype = DtypeName();
    const std::string generate = "cd ./mish_grad_data && python3 gen_data.py " + std::to_string(n) + " " + dtype +
                                 (tanhx ? " tanhx" : "");
    ASSERT_EQ(std::system(generate.c_str()), 0) << generate;

    MishGradTilingData tiling{};
    ASSERT_EQ(mishgrad::ComputeTiling(n, sizeof(DTYPE_X), tanhx, kAtlasA2UbBytes, kAtlasA2VectorCores,
                                      /*selectUsesScratch=*/true, &tiling),
              mishgrad::TilingStatus::kOk);
    const size_t bytes = n * sizeof(DTYPE_X);
    uint8_t* grad = Load("input_grad.bin", bytes);
    uint8_t* x = Load("input_x.bin", bytes);
    uint8_t* tanhxGm = tanhx ? Load("input_tanhx.bin", bytes) : nullptr;
    auto* xGrad = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    auto* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(32));
    auto* tilingGm = static_cast<uint8_t*>(AscendC::GmAlloc(sizeof(MishGradTilingData)));
    *reinterpret_cast<MishGradTilingData*>(tilingGm) = tiling;

    ICPU_SET_TILING_KEY(0);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(mish_grad, tiling.blockDim, grad, x, tanhxGm, xGrad, workspace, tilingGm);

    EXPECT_TRUE(WriteFile("./mish_grad_data/output.bin", xGrad, bytes));
    for (uint8_t* memory : {grad, x, tanhxGm, xGrad, workspace, tilingGm}) {
        if (memory != nullptr) {
            AscendC::GmFree(memory);
        }
    }
    const std::string compare = "cd ./mish_grad_data && python3 compare_data.py " + dtype;
    EXPECT_EQ(std::system(compare.c_str()), 0) << compare;
}

}  // namespace

class mish_grad_test : public testing::Test {
protected:
    static void SetUpTestCase() { std::cout << "mish_grad_test SetUp" << std::endl; }
    static void TearDownTestCase() { std::cout << "mish_grad_test TearDown" << std::endl; }
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
