// What the test libraries of tests/twin/ share: a table of small kernels run by name on the
// twin's virtual cores, and text copied back into a buffer Python passed.
#ifndef MISHGRAD_TESTS_TWIN_CASES_H
#define MISHGRAD_TESTS_TWIN_CASES_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "twin/core.h"

namespace twin_cases {

struct Case {
    const char* name;
    void (*kernel)();
};

// Runs the case called `name` of `cases` on blockDim cores; false if there is none. `error`
// gets the twin's message ("" if the kernel ran clean), `log` what printf and DumpTensor wrote.
template <size_t N>
bool Run(const Case (&cases)[N], const char* name, uint32_t blockDim, uint32_t hostThreads,
         const twin::Platform& platform, const std::vector<twin::GmRegion>& regions, std::string* error,
         std::string* log = nullptr)
{
    for (const Case& c : cases) {
        if (std::strcmp(c.name, name) == 0) {
            auto body = [](void* kernel) { reinterpret_cast<void (*)()>(kernel)(); };
            *error = twin::RunOnCores(body, reinterpret_cast<void*>(c.kernel), blockDim, hostThreads, platform,
                                      regions, false, nullptr, log);
            return true;
        }
    }
    return false;
}

// Copies text into a C buffer of `capacity` bytes (cut short, always terminated); returns
// 0 for empty text, 1 otherwise (a test's status: clean or stopped).
inline int32_t Report(const std::string& text, char* destination, uint64_t capacity)
{
    if (capacity > 0) {
        std::strncpy(destination, text.c_str(), capacity - 1);
        destination[capacity - 1] = '\0';
    }
    return text.empty() ? 0 : 1;
}

}  // namespace twin_cases

#endif  // MISHGRAD_TESTS_TWIN_CASES_H
