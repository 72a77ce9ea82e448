// The CPU twin's stand-in for CANN's fe::PlatFormInfos (platform/platform_infos_def.h): the
// platform's resources as labelled string maps, as CANN's tiling unit tests fill them.
#ifndef MISHGRAD_TWIN_PLATFORM_INFOS_DEF_H
#define MISHGRAD_TWIN_PLATFORM_INFOS_DEF_H

#include <cstdint>
#include <map>
#include <string>

namespace fe {

class PlatFormInfos {
public:
    bool Init() { return true; }
    void SetPlatformRes(const std::string& label, const std::map<std::string, std::string>& values)
    {
        resources_[label] = values;
    }
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& value) const
    {
        const auto group = resources_.find(label);
        if (group == resources_.end() || group->second.count(key) == 0) {
            return false;
        }
        value = group->second.at(key);
        return true;
    }
    // The core count of a core type, from SoCInfo (ai_core_cnt for "AICore").
    void SetCoreNumByCoreType(const std::string& coreType)
    {
        std::string count;
        coreNum_ = coreType == "AICore" && GetPlatformRes("SoCInfo", "ai_core_cnt", count) ? std::stoul(count) : 0;
    }
    uint32_t GetCoreNum() const { return coreNum_; }

private:
    std::map<std::string, std::map<std::string, std::string>> resources_;
    uint32_t coreNum_ = 0;
};

}  // namespace fe

#endif  // MISHGRAD_TWIN_PLATFORM_INFOS_DEF_H
