// The CPU twin's stand-in for data_utils.h of CANN's kernel unit tests: binary files in and out.
#ifndef MISHGRAD_TWIN_UT_DATA_UTILS_H
#define MISHGRAD_TWIN_UT_DATA_UTILS_H

#include <cstddef>
#include <fstream>
#include <string>

// Reads the file into `buffer` (at most `bufferSize` bytes); `fileSize` is its size.
inline bool ReadFile(const std::string& path, size_t& fileSize, void* buffer, size_t bufferSize)
{
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        return false;
    }
    fileSize = static_cast<size_t>(file.tellg());
    if (fileSize > bufferSize) {
        return false;
    }
    file.seekg(0);
    return static_cast<bool>(file.read(static_cast<char*>(buffer), static_cast<std::streamsize>(fileSize)));
}

inline bool WriteFile(const std::string& path, const void* buffer, size_t size)
{
    std::ofstream file(path, std::ios::binary);
    return static_cast<bool>(file.write(static_cast<const char*>(buffer), static_cast<std::streamsize>(size)));
}

#endif  // MISHGRAD_TWIN_UT_DATA_UTILS_H
