// The CPU twin's stand-in for kernel_ut_data_executor.h of ops-nn's kernel unit tests
// (tests/ut/op_kernel/ at ops-nn e5c3fa9): runs a test's Python scripts in its data folder.
//
// Same names and signatures as ops-nn's (namespace kernel_ut), written anew. A script runs as
// `cd <folder> && python3 <script> <args...>` through the shell; each argument is passed as
// written (ops-nn's tests quote tuples themselves). ops-nn discards the script's output; the
// twin keeps it in kernel_ut_commands.log in the folder the command ran in, for debugging.
// The functions return whether the command exited with status 0.
#ifndef MISHGRAD_TWIN_UT_KERNEL_UT_DATA_EXECUTOR_H
#define MISHGRAD_TWIN_UT_KERNEL_UT_DATA_EXECUTOR_H

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace kernel_ut {

namespace detail {

// `text` as one single-quoted shell word.
inline std::string ShellQuote(const std::string& text)
{
    std::string quoted = "'";
    for (const char c : text) {
        quoted += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

inline std::string ScriptCommand(const std::string& scriptName, const std::vector<std::string>& args)
{
    std::string command = "python3 " + scriptName;
    for (const auto& arg : args) {
        command += " " + arg;
    }
    return command;
}

}  // namespace detail

inline bool CheckScriptExists(const std::string& scriptPath)
{
    std::error_code error;
    const bool exists = std::filesystem::is_regular_file(scriptPath, error);
    if (!exists) {
        std::cout << "[kernel_ut ERROR] script not found: " << scriptPath << std::endl;
    }
    return exists;
}

// Runs `command` (in `workDir` if given); 0 on success, -1 on failure.
inline int ExecuteCommand(const std::string& command, const std::string& workDir = "")
{
    std::error_code error;  // the log's path is absolute: the command changes folder first
    const std::string log =
        std::filesystem::absolute(std::filesystem::path(workDir) / "kernel_ut_commands.log", error).string();
    const std::string inFolder = workDir.empty() ? std::string() : "cd " + detail::ShellQuote(workDir) + " && ";
    const std::string full = inFolder + "{ " + command + "; } >> " + detail::ShellQuote(log) + " 2>&1";
    const int status = std::system(full.c_str());
    if (status != 0) {
        std::cout << "[kernel_ut ERROR] `" << command << "` failed (status " << status << "); its output is in "
                  << log << std::endl;
        return -1;
    }
    return 0;
}

inline bool RunScript(const std::string& dataDir, const std::string& scriptName, const std::vector<std::string>& args)
{
    return CheckScriptExists((std::filesystem::path(dataDir) / scriptName).string()) &&
           ExecuteCommand(detail::ScriptCommand(scriptName, args), dataDir) == 0;
}

inline bool RunGenData(const std::string& dataDir, const std::vector<std::string>& args)
{
    return RunScript(dataDir, "gen_data.py", args);
}

inline bool RunCompareData(const std::string& dataDir, const std::vector<std::string>& args)
{
    return RunScript(dataDir, "compare_data.py", args);
}

inline bool RunGenTiling(const std::string& dataDir, const std::string& caseName)
{
    return RunScript(dataDir, "gen_tiling.py", {caseName});
}

}  // namespace kernel_ut

#endif  // MISHGRAD_TWIN_UT_KERNEL_UT_DATA_EXECUTOR_H
