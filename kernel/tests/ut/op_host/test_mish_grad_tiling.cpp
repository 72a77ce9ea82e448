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

// Runs the registered tiling of MishGrad for a tensor of `shape` (tanhx too if `tanhx`).
TilingResult RunTiling(gert::StorageShape shape, ge::DataType dtype, bool tanhx, const char* hardware)
{
    std::map<std::string, std::string> socInfos;
    std::map<std::string, std::string> aicoreSpec;
    std::map<std::string, std::string> intrinsics;
    GetPlatFormInfos(hardware, socInfos, aicoreSpec, intrinsics);
    fe::PlatFormInfos platform;
    platform.Init();
    platform.SetPlatformRes("SoCInfo", socInfos);
    platform.SetPlatformRes("AICoreSpec", aicoreSpec);
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

TEST_F(MishGradTiling, mish_grad_platform_without_ub_fails)
{
    const TilingResult r =
        RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_FLOAT, false, R"({"hardware_info": {"vector_core_cnt": 48}})");
    EXPECT_EQ(r.status, ge::GRAPH_FAILED);
}
