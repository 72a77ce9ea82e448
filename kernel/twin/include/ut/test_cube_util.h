// The CPU twin's stand-in for the platform helper of CANN's op unit tests (ops-nn
// tests/ut/common/test_cube_util.h): GetPlatFormInfos reads a compile-info JSON's
// "hardware_info" into the string maps fe::PlatFormInfos holds, with ops-nn's key mapping for
// the three numbers a vector op's tiling reads: CORE_NUM -> SoCInfo ai_core_cnt,
// vector_core_cnt -> SoCInfo vector_core_cnt, UB_SIZE -> AICoreSpec ub_size.
#ifndef MISHGRAD_TWIN_UT_TEST_CUBE_UTIL_H
#define MISHGRAD_TWIN_UT_TEST_CUBE_UTIL_H

#include <map>
#include <regex>
#include <string>

namespace mishgrad_twin_ut {

// Copies the integer `key` of `json` into `out[name]` when present.
inline void CopyNumber(const std::string& json, const std::string& key, const std::string& name,
                       std::map<std::string, std::string>& out)
{
    std::smatch match;
    if (std::regex_search(json, match, std::regex("\"" + key + "\"\\s*:\\s*([0-9]+)"))) {
        out[name] = match[1].str();
    }
}

}  // namespace mishgrad_twin_ut

inline void GetPlatFormInfos(const char* compileInfo, std::map<std::string, std::string>& socInfos,
                             std::map<std::string, std::string>& aicoreSpec,
                             std::map<std::string, std::string>& intrinsics)
{
    const std::string json(compileInfo);
    socInfos["core_type_list"] = "AICore";
    mishgrad_twin_ut::CopyNumber(json, "CORE_NUM", "ai_core_cnt", socInfos);
    mishgrad_twin_ut::CopyNumber(json, "vector_core_cnt", "vector_core_cnt", socInfos);
    mishgrad_twin_ut::CopyNumber(json, "UB_SIZE", "ub_size", aicoreSpec);
    intrinsics.clear();
}

#endif  // MISHGRAD_TWIN_UT_TEST_CUBE_UTIL_H
