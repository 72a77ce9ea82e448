// MishGrad's dtypes in one table, CANN-free: what the op definition (op_host/mish_grad_def.cpp),
// the op_api contract (mish_grad_contract.h), the tiling (op_host/mish_grad_tiling.cpp) and the
// twin's dispatch to the kernel entries (twin/mish_grad_twin.cpp) read, each through this
// header. (It stays C++11: CANN's code generator compiles the op definition with -std=c++11.)
//
// One row per supported dtype: its name here, its aclDataType value (CANN's acl_base.h;
// ge::DataType numbers them the same way), its name in messages, its element size, and the
// suffix of the kernel entry compiled for it (mish_grad_<suffix>, with DTYPE_X its C type:
// float, half, bfloat16_t). The kernel computes every dtype in float32 (op_kernel/mish_grad.h).
#ifndef MISHGRAD_COMMON_DTYPES_H
#define MISHGRAD_COMMON_DTYPES_H

#include <cstdint>

#define MISHGRAD_DTYPES(X)                  \
    X(kDtFloat, 0, "FLOAT", 4, float)       \
    X(kDtFloat16, 1, "FLOAT16", 2, half)    \
    X(kDtBf16, 27, "BFLOAT16", 2, bfloat16)

// The other aclDataType values the contract names in its messages (none is supported).
#define MISHGRAD_OTHER_DTYPES(X) \
    X(kDtInt8, 2, "INT8")        \
    X(kDtInt32, 3, "INT32")      \
    X(kDtUint8, 4, "UINT8")      \
    X(kDtInt16, 6, "INT16")      \
    X(kDtUint16, 7, "UINT16")    \
    X(kDtUint32, 8, "UINT32")    \
    X(kDtInt64, 9, "INT64")      \
    X(kDtUint64, 10, "UINT64")   \
    X(kDtDouble, 11, "DOUBLE")   \
    X(kDtBool, 12, "BOOL")

namespace mishgrad {

#define MISHGRAD_DTYPE_CODE(id, code, ...) id = code,
enum DataTypeCode : int32_t { MISHGRAD_DTYPES(MISHGRAD_DTYPE_CODE) MISHGRAD_OTHER_DTYPES(MISHGRAD_DTYPE_CODE) };
#undef MISHGRAD_DTYPE_CODE

// The element size of a supported dtype; 0 for any other value.
inline uint32_t DtypeSize(int32_t dtype)
{
    switch (dtype) {
#define MISHGRAD_DTYPE_SIZE(id, code, name, size, suffix) \
    case id: return size;
        MISHGRAD_DTYPES(MISHGRAD_DTYPE_SIZE)
#undef MISHGRAD_DTYPE_SIZE
        default: return 0;
    }
}

inline bool IsSupportedDtype(int32_t dtype) { return DtypeSize(dtype) != 0; }

inline const char* DtypeName(int32_t dtype)
{
    switch (dtype) {
#define MISHGRAD_DTYPE_NAME(id, code, name, ...) \
    case id: return name;
        MISHGRAD_DTYPES(MISHGRAD_DTYPE_NAME)
        MISHGRAD_OTHER_DTYPES(MISHGRAD_DTYPE_NAME)
#undef MISHGRAD_DTYPE_NAME
        default: return "UNKNOWN";
    }
}

}  // namespace mishgrad

#endif  // MISHGRAD_COMMON_DTYPES_H
