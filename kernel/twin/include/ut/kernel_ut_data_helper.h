// The CPU twin's stand-in for kernel_ut_data_helper.h of ops-nn's kernel unit tests
// (tests/ut/op_kernel/ at ops-nn e5c3fa9): a test's data folder lives beside its source,
// and each test copies it into its working folder before generating data there.
//
// Same names and signatures as ops-nn's (namespace kernel_ut), written anew with
// std::filesystem. The repository root is $OPS_NN_ROOT if set, else the first folder up from
// the working folder that holds both CMakeLists.txt and README.md, else the working folder.
#ifndef MISHGRAD_TWIN_UT_KERNEL_UT_DATA_HELPER_H
#define MISHGRAD_TWIN_UT_KERNEL_UT_DATA_HELPER_H

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

namespace kernel_ut {

namespace detail {

namespace fs = std::filesystem;

inline void Log(const char* level, const std::string& message)
{
    std::cout << "[kernel_ut " << level << "] " << message << std::endl;
}

// The last component of `relPath` when `localName` is empty.
inline std::string LocalNameOf(const std::string& relPath, const std::string& localName)
{
    if (!localName.empty()) {
        return localName;
    }
    const std::string name = fs::path(relPath).filename().string();
    return name.empty() ? relPath : name;
}

}  // namespace detail

inline std::string GetTestWorkDir()
{
    std::error_code error;
    const auto cwd = std::filesystem::current_path(error);
    return error ? std::string("./") : cwd.string();
}

inline std::string GetRepoRootDir()
{
    namespace fs = std::filesystem;
    if (const char* root = std::getenv("OPS_NN_ROOT"); root != nullptr && *root != '\0') {
        return root;
    }
    const fs::path cwd = GetTestWorkDir();
    for (fs::path folder = cwd; !folder.empty(); folder = folder.parent_path()) {
        std::error_code error;
        if (fs::exists(folder / "CMakeLists.txt", error) && fs::exists(folder / "README.md", error)) {
            return folder.string();
        }
        if (folder == folder.root_path()) {
            break;
        }
    }
    detail::Log("ERROR", "no repository root above " + cwd.string() + " (set OPS_NN_ROOT); using it");
    return cwd.string();
}

inline bool DirectoryExists(const std::string& dirPath)
{
    std::error_code error;
    return std::filesystem::is_directory(dirPath, error);
}

// Replaces `destDir` by a recursive copy of `srcDir`.
inline bool CopyDirectory(const std::string& srcDir, const std::string& destDir)
{
    namespace fs = std::filesystem;
    if (!DirectoryExists(srcDir)) {
        detail::Log("ERROR", "not a directory: " + srcDir);
        return false;
    }
    std::error_code error;
    fs::remove_all(destDir, error);
    if (!error) {
        fs::copy(srcDir, destDir, fs::copy_options::recursive, error);
    }
    if (error) {
        detail::Log("ERROR", "copying " + srcDir + " to " + destDir + ": " + error.message());
        return false;
    }
    return true;
}

// rwxr-xr-x, so the scripts' outputs can be written there.
inline bool SetDirectoryPermissions(const std::string& dirPath)
{
    namespace fs = std::filesystem;
    std::error_code error;
    const auto mode = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec;
    fs::permissions(dirPath, mode, fs::perm_options::replace, error);
    if (error) {
        detail::Log("ERROR", "chmod " + dirPath + ": " + error.message());
    }
    return !error;
}

// Deletes the regular *.bin files directly in `dirPath` (none there is not an error).
inline bool CleanGeneratedBinFiles(const std::string& dirPath)
{
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::exists(dirPath, error)) {
        return true;
    }
    if (!fs::is_directory(dirPath, error)) {
        detail::Log("ERROR", "not a directory: " + dirPath);
        return false;
    }
    for (const auto& entry : fs::directory_iterator(dirPath, error)) {
        if (entry.is_regular_file() && entry.path().extension() == ".bin") {
            std::error_code removeError;
            if (!fs::remove(entry.path(), removeError)) {
                detail::Log("ERROR", "cannot remove " + entry.path().string());
            }
        }
    }
    return !error;
}

inline std::string BuildLocalDataPath(const std::string& localDirName)
{
    return (std::filesystem::path(GetTestWorkDir()) / localDirName).string();
}

// Copies <repository root>/<dataDirRelPath> into ./<localName>.
inline bool PrepareTestDataDir(const std::string& dataDirRelPath, const std::string& localName = "")
{
    const std::string source = (std::filesystem::path(GetRepoRootDir()) / dataDirRelPath).string();
    const std::string target = BuildLocalDataPath(detail::LocalNameOf(dataDirRelPath, localName));
    if (!DirectoryExists(source)) {
        detail::Log("ERROR", "test data folder not found: " + source);
        return false;
    }
    return CopyDirectory(source, target) && SetDirectoryPermissions(target);
}

// PrepareTestDataDir, then CleanGeneratedBinFiles on the copy: a fresh data folder.
inline bool SetupTestEnvironment(const std::string& dataDirRelPath, const std::string& localName = "")
{
    const std::string name = detail::LocalNameOf(dataDirRelPath, localName);
    if (!PrepareTestDataDir(dataDirRelPath, name)) {
        return false;
    }
    return CleanGeneratedBinFiles(BuildLocalDataPath(name));
}

}  // namespace kernel_ut

#endif  // MISHGRAD_TWIN_UT_KERNEL_UT_DATA_HELPER_H
