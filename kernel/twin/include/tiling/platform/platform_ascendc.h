// The CPU twin's stand-in for CANN's platform_ascendc::PlatformAscendC
// (tiling/platform/platform_ascendc.h): what a tiling function asks about the platform.
#ifndef MISHGRAD_TWIN_PLATFORM_ASCENDC_H
#define MISHGRAD_TWIN_PLATFORM_ASCENDC_H

#include <cstdint>
#include <string>
#include <utility>

#include "platform/platform_infos_def.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A, L0_B, L0_C, L1, L2, UB, HBM };

// Some of CANN's SoC families, with CANN's numbers; RESERVED_VERSION for a SoC it does not know.
enum class SocVersion { ASCEND910 = 0, ASCEND910B = 1, ASCEND310P = 2, ASCEND310B = 3, ASCEND950 = 4,
                        RESERVED_VERSION = 99999 };

class PlatformAscendC {
public:
    explicit PlatformAscendC(fe::PlatFormInfos* infos) : infos_(infos) {}

    // UB: AICoreSpec's ub_size less the bytes CANN keeps back on ASCEND910B; 0 for a platform
    // without ub_size, and for the other memories here.
    void GetCoreMemSize(CoreMemType type, uint64_t& size) const
    {
        size = type == CoreMemType::UB ? Read("AICoreSpec", "ub_size") : 0;
        if (type == CoreMemType::UB && size >= kReservedBytes910B && GetSocVersion() == SocVersion::ASCEND910B) {
            size -= kReservedBytes910B;
        }
    }
    // Vector cores: SoCInfo's vector_core_cnt.
    uint32_t GetCoreNumAiv() const { return static_cast<uint32_t>(Read("SoCInfo", "vector_core_cnt")); }
    // The SoC: "version"'s Short_SoC_version, as ops-nn's tiling tests set it ("Ascend910B",
    // "Ascend950"), mapped as CANN maps these names; RESERVED_VERSION for a missing or other one.
    SocVersion GetSocVersion() const
    {
        static const std::pair<const char*, SocVersion> kNames[] = {
            {"Ascend910", SocVersion::ASCEND910},     {"Ascend910B", SocVersion::ASCEND910B},
            {"Ascend910_93", SocVersion::ASCEND910B}, {"Ascend310P", SocVersion::ASCEND310P},
            {"Ascend310B", SocVersion::ASCEND310B},   {"Ascend950", SocVersion::ASCEND950},
        };
        std::string name;
        if (infos_ != nullptr && infos_->GetPlatformRes("version", "Short_SoC_version", name)) {
            for (const auto& [known, version] : kNames) {
                if (name == known) {
                    return version;
                }
            }
        }
        return SocVersion::RESERVED_VERSION;
    }
    // The workspace CANN's kernel library reserves for itself on the NPU; CANN's value is set
    // per chip. The twin returns 16 MiB, the system workspace many ops-nn tilings reserve
    // (cann/ops-nn e5c3fa9, activation/elu/op_host/arch35/elu_tiling_arch35.cpp line 33).
    uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }

private:
    // CANN's GetCoreMemSize keeps 256 bytes of UB back on ASCEND910B alone, to which it maps
    // "Ascend910B" and "Ascend910_93" (cann/asc-devkit 82b89a1,
    // impl/utils/tiling/platform/platform_ascendc.cpp lines 27, 44-68 and 149-159).
    static constexpr uint64_t kReservedBytes910B = 256;

    uint64_t Read(const std::string& label, const std::string& key) const
    {
        std::string value;
        return infos_ != nullptr && infos_->GetPlatformRes(label, key, value) ? std::stoull(value) : 0;
    }

    fe::PlatFormInfos* infos_;
};

}  // namespace platform_ascendc

#endif  // MISHGRAD_TWIN_PLATFORM_ASCENDC_H
