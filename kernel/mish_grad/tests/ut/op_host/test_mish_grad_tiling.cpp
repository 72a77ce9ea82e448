// Tiling unit test of MishGrad, in the form of ops-nn's op_host tiling tests: the registered
// tiling function of op type MishGrad, called through a faked TilingContext on an Atlas A2
// platform (UB 196,608 bytes, 48 vector cores), for each dtype, with and without tanhx, and
// on Atlas A3, which the op definition registers beside it.
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
#include "log/log.h"
#include "platform/platform_infos_def.h"
#include "register/op_impl_registry.h"
#include "test_cube_util.h"
#include "tiling/platform/platform_ascendc.h"

namespace {

constexpr uint64_t kAtlasA2Ub = 196608;
constexpr const char* kAtlasA2 = R"({"hardware_info": {"UB_SIZE": 196608, "CORE_NUM": 24,
                                       "vector_core_cnt": 48}})";

struct TilingResult {
    ge::graphStatus status;
    MishGradTilingData data;
    uint32_t blockDim;
    uint64_t workspace;
    std::string log;  // what the tiling logged with OP_LOGE (the twin records it; see Logged)
};

// Ascend 950 as ops-nn's arch35 tiling tests describe it: UB 253,952 bytes, 64 cores.
constexpr uint64_t kAscend950Ub = 253952;
constexpr const char* kAscend950 = R"({"hardware_info": {"UB_SIZE": 253952, "vector_core_cnt": 64}})";

// What OP_LOGE wrote since the last call, one message a line. The twin records it (its
// log/log.h defines MISHGRAD_TWIN_OP_LOG); CANN writes it to the device log, which a test cannot
// read, so built against CANN this is always empty and the reason checks are skipped.
std::string Logged()
{
    std::string text;
#ifdef MISHGRAD_TWIN_OP_LOG
    for (const twin::OpError& error : twin::OpErrors()) {
        text += error.op + ": " + error.message + "\n";
    }
    twin::OpErrors().clear();
#endif
    return text;
}

// Expects the failed call's log to name `reason` (where the log can be read).
void ExpectReason(const TilingResult& result, const std::string& reason)
{
    EXPECT_EQ(result.status, ge::GRAPH_FAILED);
#ifdef MISHGRAD_TWIN_OP_LOG
    EXPECT_NE(result.log.find("MishGrad:MishGrad: "), std::string::npos) << result.log;
    EXPECT_NE(result.log.find(reason), std::string::npos) << "expected \"" << reason << "\" in:\n" << result.log;
#else
    (void)reason;
#endif
}

// A platform as ops-nn's tiling tests build one: the resources `hardware` describes, of SoC
// family `soc` (the "version" resource).
fe::PlatFormInfos MakePlatform(const char* hardware, const char* soc)
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
    return platform;
}

// Runs the registered tiling of MishGrad for a tensor of `shape` (tanhx too if `tanhx`) on the
// platform `hardware` describes, of SoC family `soc`. grad has `shape` too unless `grad` is given.
TilingResult RunTiling(gert::StorageShape shape, ge::DataType dtype, bool tanhx, const char* hardware,
                       const char* soc = "Ascend910B", const gert::StorageShape* grad = nullptr)
{
    fe::PlatFormInfos platform = MakePlatform(hardware, soc);
    gert::StorageShape gradShape = grad == nullptr ? shape : *grad;
    gert::StorageShape tanhxShape = shape;
    gert::StorageShape outShape = shape;
    auto tiling = gert::TilingData::CreateCap(4096);
    auto workspaces = gert::ContinuousVector::Create<size_t>(16);
    Logged();  // start with an empty log
    auto holder = gert::TilingContextFaker()
                      .SetOpType("MishGrad")
                      .NodeIoNum(3, 1)
                      .IrInstanceNum({1, 1, tanhx ? 1u : 0u})  // tanhx: optional
                      .InputShapes({&gradShape, &shape, &tanhxShape})
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
    TilingResult result{impl->tiling(context), {}, context->GetBlockDim(), 0, ""};
    result.log = Logged();
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
    // CANN's kernel library reserves its own workspace; the kernel's own follows: its stamp.
    EXPECT_EQ(r.workspace,
              platform_ascendc::PlatformAscendC(nullptr).GetLibApiWorkSpaceSize() + mishgrad::kStampBytes);
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

// On Atlas A2 the no-tanhx tile keeps clear of Select's 8 KB scratch area. The Ascend 950, the
// book's what-if (common/mish_grad_tiling.h), has no kernel in the package: its count-based
// Select would need no scratch, but CANN's tiling entry refuses it.
TEST_F(MishGradTiling, mish_grad_select_scratch_only_where_the_soc_needs_it)
{
    const uint64_t n = 64ull * 100000;
    const TilingResult a2 = RunTiling({{n}, {n}}, ge::DT_FLOAT, false, kAtlasA2);
    ASSERT_EQ(a2.status, ge::GRAPH_SUCCESS);
    mishgrad::UbBudget budget = mishgrad::KernelBudget(4, false, kAtlasA2Ub - 256, mishgrad::kAscend910BUb);
    EXPECT_EQ(budget.limitBytes, kAtlasA2Ub - 8192);
    EXPECT_LE(mishgrad::BudgetBytes(budget, a2.data.tileLength), budget.limitBytes);
    budget = mishgrad::KernelBudget(4, false, kAscend950Ub, mishgrad::kAscend950Ub);
    EXPECT_EQ(budget.limitBytes, kAscend950Ub);
    ExpectReason(RunTiling({{n}, {n}}, ge::DT_FLOAT, false, kAscend950, "Ascend950"),
                 "is not supported: the tiling knows the UB of Ascend910B (Atlas A2, A3) only");
}

// The reserve the tiling adds back is what the platform keeps back: on Ascend910B the reported
// UB plus kAscend910BUb.reservedBytes is the physical UB, on Ascend950 the report is the UB.
TEST_F(MishGradTiling, mish_grad_ub_reserve_is_the_platforms)
{
    fe::PlatFormInfos a2 = MakePlatform(kAtlasA2, "Ascend910B");
    fe::PlatFormInfos a3 = MakePlatform(kAtlasA2, "Ascend910_93");
    fe::PlatFormInfos a5 = MakePlatform(kAscend950, "Ascend950");
    uint64_t reported = 0;
    platform_ascendc::PlatformAscendC(&a2).GetCoreMemSize(platform_ascendc::CoreMemType::UB, reported);
    EXPECT_EQ(reported + mishgrad::kAscend910BUb.reservedBytes, kAtlasA2Ub);
    platform_ascendc::PlatformAscendC(&a3).GetCoreMemSize(platform_ascendc::CoreMemType::UB, reported);
    EXPECT_EQ(reported + mishgrad::kAscend910BUb.reservedBytes, kAtlasA2Ub);
    platform_ascendc::PlatformAscendC(&a5).GetCoreMemSize(platform_ascendc::CoreMemType::UB, reported);
    EXPECT_EQ(reported + mishgrad::kAscend950Ub.reservedBytes, kAscend950Ub);
}

// Atlas A3 as ops-nn's tiling tests describe it: Atlas A2's UB and cores (cann/ops-nn e5c3fa9,
// norm/group_norm_swish_grad/tests/ut/op_host/test_group_norm_swish_grad_tiling.cpp lines
// 52-53, A2_A3_UB_SIZE and A2_A3_CORE_NUM), SoC version "Ascend910_93", an Ascend910B to CANN's
// tiling API. The package has a kernel for it (op_host/mish_grad_def.cpp), and the tiling gives
// it Atlas A2's plan, for every dtype, with and without tanhx.
TEST_F(MishGradTiling, mish_grad_atlas_a3_gets_the_atlas_a2_plan)
{
    const uint64_t n = 48ull * 100000 + 7;
    for (const ge::DataType dtype : {ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16}) {
        for (const bool tanhx : {false, true}) {
            const TilingResult a2 = RunTiling({{n}, {n}}, dtype, tanhx, kAtlasA2);
            const TilingResult a3 = RunTiling({{n}, {n}}, dtype, tanhx, kAtlasA2, "Ascend910_93");
            ASSERT_EQ(a3.status, ge::GRAPH_SUCCESS) << a3.log;
            EXPECT_EQ(a3.blockDim, 48u);
            EXPECT_EQ(a3.data.tileLength, a2.data.tileLength);
            EXPECT_EQ(a3.data.bigCoreNum, a2.data.bigCoreNum);
            EXPECT_EQ(a3.data.bigCoreLength, a2.data.bigCoreLength);
            EXPECT_EQ(a3.data.lastCoreLength, a2.data.lastCoreLength);
            EXPECT_EQ(a3.workspace, a2.workspace);
            ExpectCoversExactly(a3.data, n);
        }
    }
}

TEST_F(MishGradTiling, mish_grad_unknown_soc_fails_with_its_reason)
{
    const TilingResult r = RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_FLOAT, false, kAtlasA2, "Ascend310P");
    ExpectReason(r, "is not supported: the tiling knows the UB of Ascend910B (Atlas A2, A3) only");
}

TEST_F(MishGradTiling, mish_grad_platform_without_ub_fails)
{
    const TilingResult r =
        RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_FLOAT, false, R"({"hardware_info": {"vector_core_cnt": 48}})");
    ExpectReason(r, mishgrad::TilingStatusText(mishgrad::TilingStatus::kUbTooSmall));
}

TEST_F(MishGradTiling, mish_grad_platform_without_cores_fails)
{
    const TilingResult r =
        RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_FLOAT, false, R"({"hardware_info": {"UB_SIZE": 196608}})");
    ExpectReason(r, mishgrad::TilingStatusText(mishgrad::TilingStatus::kNoCores));
}

TEST_F(MishGradTiling, mish_grad_unsupported_dtype_fails)
{
    const TilingResult r = RunTiling({{1, 2, 8, 16}, {1, 2, 8, 16}}, ge::DT_INT32, false, kAtlasA2);
    ExpectReason(r, "x has dtype 3: MishGrad supports float32, float16 and bfloat16");  // DT_INT32
}

TEST_F(MishGradTiling, mish_grad_empty_tensor_fails)
{
    const TilingResult r = RunTiling({{0, 16}, {0, 16}}, ge::DT_FLOAT, false, kAtlasA2);
    ExpectReason(r, mishgrad::TilingStatusText(mishgrad::TilingStatus::kEmptyInput));
}

// The kernel does not broadcast: a grad of another length is refused (aclnnMishBackward
// broadcasts before it launches the kernel).
TEST_F(MishGradTiling, mish_grad_grad_of_another_length_fails)
{
    const gert::StorageShape grad{{1, 16}, {1, 16}};
    const TilingResult r = RunTiling({{4, 16}, {4, 16}}, ge::DT_FLOAT, true, kAtlasA2, "Ascend910B", &grad);
    ExpectReason(r, "input grad has 16 elements and x has 64: the kernel does not broadcast");
}
