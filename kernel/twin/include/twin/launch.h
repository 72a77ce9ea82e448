// Launching a kernel entry on the twin's virtual cores, for an operator's twin glue: any entry
// `void entry(GM_ADDR...)`, with the global-memory regions it may touch.
#ifndef MISHGRAD_TWIN_LAUNCH_H
#define MISHGRAD_TWIN_LAUNCH_H

#include <cstdint>
#include <string>
#include <vector>

#include "twin/core.h"
#include "twin/runtime.h"

namespace twin {

// A kernel entry, whatever its arguments: called with as many GM_ADDR as the launch gives.
using KernelEntry = void (*)();

// The most arguments an entry may take: its tensors, its workspace and its tiling data.
constexpr uint32_t kMaxEntryArguments = 16;

// One launch: the entry, its arguments in order, the tensors it may touch, its cores.
struct EntryLaunch {
    KernelEntry entry;
    std::vector<uint8_t*> arguments;
    std::vector<GmRegion> regions;
    uint32_t blockDim;
};

// Runs the launch on blockDim virtual cores (hostThreads 0: the machine's hardware threads).
// Returns the first error by core index, or "" on success; a malformed launch (no entry, too
// many arguments, no cores) is an error too.
std::string RunEntry(const EntryLaunch& launch, const Platform& platform, uint32_t hostThreads, bool tracing,
                     std::vector<TraceEvent>* trace, std::string* log = nullptr);

// Runs the launch as the aclnn layer does: on `platform`, without a trace, rounding as the
// environment says (the aclnn ABI has no place for a numerics model).
std::string RunOnLaunchPlatform(const EntryLaunch& launch, const LaunchPlatform& platform);

}  // namespace twin

#endif  // MISHGRAD_TWIN_LAUNCH_H
