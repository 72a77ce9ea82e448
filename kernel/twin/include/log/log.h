// The CPU twin's stand-in for opbase's operator log (log/log.h, from include/op_common): the
// OP_LOGE that op_host/ logs its failures with. CANN writes the message to its device log and
// reports it as error EZ9999; the twin formats it the same way (printf) and records it, with the
// op's name, so that the operator's unit tests can read why a call failed (twin::OpErrors()).
//
// The op's name is what CANN's OP_LOGE makes of its first argument: a context names the op as
// "type:name" ("nil:nil" for a null one), a string as itself ("nil" for a null one).
#ifndef MISHGRAD_TWIN_LOG_LOG_H
#define MISHGRAD_TWIN_LOG_LOG_H

#include <cstdarg>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Tests that read the record check for this (on CANN the messages go to the device log).
#define MISHGRAD_TWIN_OP_LOG 1

namespace twin {

// One OP_LOGE: the op's name and the formatted message.
struct OpError {
    std::string op;
    std::string message;
};

// Every OP_LOGE since the program started or a test cleared it, oldest first.
inline std::vector<OpError>& OpErrors()
{
    static std::vector<OpError> errors;
    return errors;
}

inline std::string OpName(const char* name) { return name == nullptr ? "nil" : name; }
inline std::string OpName(const std::string& name) { return name; }

template <typename Context, typename = std::enable_if_t<std::is_class_v<Context>>>
std::string OpName(const Context* context)
{
    if (context == nullptr) {
        return "nil:nil";
    }
    return OpName(context->GetNodeType()) + ":" + OpName(context->GetNodeName());
}

__attribute__((format(printf, 2, 3))) inline void RecordOpError(std::string op, const char* format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    va_list copy;
    va_copy(copy, arguments);
    const int length = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    std::string message(length > 0 ? static_cast<size_t>(length) : 0, '\0');
    if (length > 0) {
        std::vsnprintf(message.data(), message.size() + 1, format, arguments);
    }
    va_end(arguments);
    OpErrors().push_back({std::move(op), std::move(message)});
}

}  // namespace twin

#define OP_LOGE(opName, ...) twin::RecordOpError(twin::OpName(opName), __VA_ARGS__)

#endif  // MISHGRAD_TWIN_LOG_LOG_H
