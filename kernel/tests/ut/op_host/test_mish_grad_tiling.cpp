// Tiling unit test of MishGrad, in the form of ops-nn's op_host tiling tests: the registered
// tiling function of op type MishGrad, called through a faked TilingContext on an Atlas A2
// platform (UB 196,608 bytes, 48 vector cores), for each dtype, with and without tanhx.
//
// Here it is built against the CPU twin's registry and context fakers (make ut); in an
// ops-nn checkout the same file builds against CANN's (build.sh -u --ophost).
#include <cstdint>
#include <iostream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "../../../common/mish_grad_tiling.h"
#include "../../../op_kernel/mish_grad_tiling_data.h"
#include "exe_graph/runtime/storage_shape.h"
#include "kernel_run_context_facker.h"
#include "platform/platform_infos_def.h"
#include "register/op_impl_registry.h"
#include "test_cube_util.h"
#include "tiling/platform/platform_ascendc.h"

namespace {

constexpr const char* kAtlasA2 = R"({"hardware_info": {"UB_SIZE": 196608, "CORE_NUM": 24,
                                       "vector_core_cnt": 48}})";

struct TilingResult {
    ge::graphStatus status;
    MishGradTilingData data;
    uint32_t blockDim;
    uint64_t workspace;
};

// Ascend 950 as ops-nn's arch35 tiling tests describe it: UB 253,952 bytes, 64 cores.
constexpr const char* kAscend950 = R"({"hardware_info": {"UB_SIZE": 253952, "vector_core_cnt": 64}})";

// Runs the registered tiling of MishGrad for a tensor of `shape` (tanhx too if `tanhx`) on the
// platform `hardware` describes, of SoC family `soc` (the "version" resource).
TilingResult RunTiling(gert::StorageShape shape, ge::DataType dtype, bool tanhx, const char* hardware,
                       const char* soc = "Ascend910B")
{
    std::map<std::string, std::string> socInfos;
    std::map<std::string, std::string> aicoreSpec;
    std::map<std::string, std::string> intrinsics;
    GetPlatFormInfos(hardware, socInfos, aicoreSpec, intrinsics);
    fe::PlatFormInfos platform;
    platform.Init();
    platform.SetPlatformRes("SoCInfo", socInfos);
    platform.SetPlatformRes("AICoreSpec", aicoreSpec);
    platform.SetPlatformRes("version", {{"Short_SoC_version", soc}});
    platform.SetCoreNumByCoreType("AICore");

    gert::StorageShape tanhxShape = shape;
    gert::StorageShape outShape = shape;
    auto tiling = gert::TilingData::CreateCap(4096);
    auto workspaces = gert::ContinuousVector::Create<size_t>(16);
    auto holder = gert::TilingContextFaker()
                      .SetOpType("MishGrad")
                      .NodeIoNum(3, 1)
                      .IrInstanceNum({1, 1, tanhx ? 1u : 0u})  // tanhx: optional
                      .InputShapes({&shape, &shape, &tanhxShape})
                      .OutputShapes({&outShape})
                      .PlatformInfo(reinterpret_cast<char*>(&platform))
                      .NodeInputTd(0, dtype, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeInputTd(1, dtype, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeInputTd(2, dtype, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeOutputTd(0, dtype, ge::FORMAT_ND, ge::FORMAT_ND)
                      .TilingData(tiling.get())
                      .Workspace(reinterpret_cast<gert::ContinuousVector*>(workspaces.get()))
                      .Build();
    gert::TilingContext* context = holder.GetContext<gert::TilingContext>();
    const auto* impl = gert::OpImplRegistry::GetInstance().GetOpImpl("MishGrad");
    EXPECT_NE(impl, nullptr);
    TilingResult result{impl->tiling(context), {}, context->GetBlockDim(), 0};
    if (result.status == ge::GRAPH_SUCCESS) {
        result.data = *static_cast<const MishGradTilingData*>(tiling->GetData());
        result.workspace = static_cast<const size_t*>(
            reinterpret_cast<gert::ContinuousVector*>(workspaces.get())->GetData())[0];
    }
    return result;
}

// The plan covers the tensor exactly: every element on one core, in whole tiles plus a tail.
void ExpectCoversExactly(const MishGradTilingData& t, uint64_t n)
{
    const uint64_t small = t.blockDim - t.bigCoreNum - 1;
    EXPECT_EQ(t.totalLength, n);
    EXPECT_EQ(t.bigCoreNum * t.bigCoreLength + small * t.smallCoreLength + t.lastCoreLength, n);
    for (const auto& [length, tiles, tail] : {std::tuple{t.bigCoreLength, t.bigTileNum, t.bigTailLength},
                                              std::tuple{t.smallCoreLength, t.smallTileNum, t.smallTailLength},
                                              std::tuple{t.lastCoreLength, t.lastTileNum, t.lastTailLength}}) {
        if (length > 0) {
            EXPECT_EQ((tiles - 1) * t.tileLength + tail, length);
            EXPECT_LE(tail, t.tileLength);
        }
    }
}

}  // namespace

class MishGradTiling : public testing::Test {
protected:
    static void SetUpTestCase() { std::cout << "MishGradTiling SetUp" << std::endl; }
    static void TearDownTestCase() { std::cout << "MishGradTiling TearDown" << std::endl; }
};

TEST_F(MishGradTiling, mish_grad_float32_success)
{
    const TilingResult r = RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_FLOAT, false, kAtlasA2);
    ASSERT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.blockDim, r.data.blockDim);
    EXPECT_EQ(r.data.hasTanhx, 0u);
    ExpectCoversExactly(r.data, 256);
    // The kernel needs no workspace, but CANN's kernel library reserves its own.
    EXPECT_EQ(r.workspace, platform_ascendc::PlatformAscendC(nullptr).GetLibApiWorkSpaceSize());
}

TEST_F(MishGradTiling, mish_grad_float16_success)
{
    const TilingResult r = RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_FLOAT16, false, kAtlasA2);
    ASSERT_EQ(r.status, ge::GRAPH_SUCCESS);
    ExpectCoversExactly(r.data, 256);
}

TEST_F(MishGradTiling, mish_grad_bfloat16_with_tanhx_success)
{
    const TilingResult r = RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_BF16, true, kAtlasA2);
    ASSERT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.data.hasTanhx, 1u);
    ExpectCoversExactly(r.data, 256);
}

TEST_F(MishGradTiling, mish_grad_large_tensor_uses_every_vector_core)
{
    const uint64_t n = 48ull * 100000 + 7;  // not a multiple of anything the tiling uses
    const TilingResult r = RunTiling({{n}, {n}}, ge::DT_FLOAT, false, kAtlasA2);
    ASSERT_EQ(r.status, ge::GRAPH_SUCCESS);
    EXPECT_EQ(r.data.blockDim, 48u);
    EXPECT_GT(r.data.bigTileNum, 1u);
    ExpectCoversExactly(r.data, n);
}

// On Atlas A2 the no-tanhx tile keeps clear of Select's 8 KB scratch area; on Ascend 950 the
// count-based Select has none, and the whole reported UB is used.
TEST_F(MishGradTiling, mish_grad_select_scratch_only_where_the_soc_needs_it)
{
    const uint64_t n = 64ull * 100000;
    const TilingResult a2 = RunTiling({{n}, {n}}, ge::DT_FLOAT, false, kAtlasA2);
    const TilingResult a5 = RunTiling({{n}, {n}}, ge::DT_FLOAT, false, kAscend950, "Ascend950");
    ASSERT_EQ(a2.status, ge::GRAPH_SUCCESS);
    ASSERT_EQ(a5.status, ge::GRAPH_SUCCESS);
    mishgrad::UbBudget budget = mishgrad::KernelBudget(4, false, 196608, true);
    EXPECT_EQ(budget.limitBytes, 196608u + 256u - 8192u);
    EXPECT_LE(mishgrad::BudgetBytes(budget, a2.data.tileLength), budget.limitBytes);
    budget = mishgrad::KernelBudget(4, false, 253952, false);
    EXPECT_EQ(budget.limitBytes, 253952u);
    EXPECT_LE(mishgrad::BudgetBytes(budget, a5.data.tileLength), budget.limitBytes);
    EXPECT_GT(mishgrad::BudgetBytes(budget, a5.data.tileLength + 256), budget.limitBytes);
    EXPECT_EQ(a5.data.blockDim, 64u);
}

TEST_F(MishGradTiling, mish_grad_platform_without_ub_fails)
{
    const TilingResult r =
        RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_FLOAT, false, R"({"hardware_info": {"vector_core_cnt": 48}})");
    EXPECT_EQ(r.status, ge::GRAPH_FAILED);
}
