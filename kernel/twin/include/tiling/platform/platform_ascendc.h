// The CPU twin's stand-in for CANN's platform_ascendc::PlatformAscendC
// (tiling/platform/platform_ascendc.h): what a tiling function asks about the platform.
#ifndef MISHGRAD_TWIN_PLATFORM_ASCENDC_H
#define MISHGRAD_TWIN_PLATFORM_ASCENDC_H

#include <cstdint>
#include <string>

#include "platform/platform_infos_def.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A, L0_B, L0_C, L1, L2, UB, HBM };

// The SoC families the MishGrad tiling tells apart (CANN's enum has many more).
enum class SocVersion { ASCEND910B, ASCEND950 };

class PlatformAscendC {
public:
    explicit PlatformAscendC(fe::PlatFormInfos* infos) : infos_(infos) {}

    // UB: AICoreSpec's ub_size, the bytes a kernel may use (0 for other memories here).
    void GetCoreMemSize(CoreMemType type, uint64_t& size) const
    {
        size = type == CoreMemType::UB ? Read("AICoreSpec", "ub_size") : 0;
    }
    // Vector cores: SoCInfo's vector_core_cnt.
    uint32_t GetCoreNumAiv() const { return static_cast<uint32_t>(Read("SoCInfo", "vector_core_cnt")); }
    // The SoC: "version"'s Short_SoC_version, as ops-nn's tiling tests set it ("Ascend950");
    // Atlas A2 when the test sets none.
    SocVersion GetSocVersion() const
    {
        std::string name;
        const bool known = infos_ != nullptr && infos_->GetPlatformRes("version", "Short_SoC_version", name);
        return known && (name == "Ascend950" || name == "ASCEND950") ? SocVersion::ASCEND950 : SocVersion::ASCEND910B;
    }
    // The workspace CANN's kernel library reserves for itself on the NPU; CANN's value is set
    // per chip. The twin returns 16 MiB, the system workspace many ops-nn tilings reserve
    // (cann/ops-nn e5c3fa9, activation/elu/op_host/arch35/elu_tiling_arch35.cpp line 33).
    uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }

private:
    uint64_t Read(const std::string& label, const std::string& key) const
    {
        std::string value;
        return infos_ != nullptr && infos_->GetPlatformRes(label, key, value) ? std::stoull(value) : 0;
    }

    fe::PlatFormInfos* infos_;
};

}  // namespace platform_ascendc

#endif  // MISHGRAD_TWIN_PLATFORM_ASCENDC_H
