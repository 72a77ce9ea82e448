// The tiling definitions the kernel unit test compiles the kernel with.
//
// ops-nn's AddOpTestCase force-includes <ut dir>/<op>_tiling_def.h into the test and the kernel
// when the file exists (-include; ops-nn e5c3fa9, cmake/ut.cmake lines 636-637); otherwise it
// generates a header from the built tiling library, which needs CANN's closed tools. The twin's
// UT build (mishgrad/kernel/ut.py) force-includes this file the same way.
//
// The kernel (op_kernel/mish_grad.cpp) needs the tiling struct and two macros:
// - MishGradTilingData, from op_kernel/ (the kernel's own include of it is then a no-op);
// - GET_TILING_DATA_WITH_STRUCT(type, name, pointer): a local copy of the struct read from
//   the bytes at `pointer`. CANN's kernel headers do not define it (its op build generates it);
//   the twin's kernel_operator.h does, with these very tokens, which C++ allows to repeat;
// - REGISTER_TILING_DEFAULT(type): CANN's kernel_operator.h defines it (asc-devkit 82b89a1,
//   impl/basic_api/utils/kernel_utils_macros.h line 385), as does the twin's, so it is not
//   defined here. Either works at file scope and inside the kernel function.
#ifndef MISHGRAD_UT_TILING_DEF_H
#define MISHGRAD_UT_TILING_DEF_H

#include <cstring>

#include "../../../op_kernel/mish_grad_tiling_data.h"

#define GET_TILING_DATA_WITH_STRUCT(type, name, pointer) \
    type name;                                           \
    std::memcpy(&name, (pointer), sizeof(type))

#endif  // MISHGRAD_UT_TILING_DEF_H
