// NOT CANN: stands in for the per-op header that CANN's op compiler writes for MishGrad and
// force-includes into the kernel (`make cann-check` only; passed with -include).
//
// That header defines GET_TILING_DATA_WITH_STRUCT and its relatives from the op's tiling
// struct; no header in CANN's source trees defines them. This version has the same shape:
// declare a struct of the named type and fill it from the tiling argument, which must be a
// global-memory address.
#ifndef MISHGRAD_CANN_CHECK_TILING_HEADER_H
#define MISHGRAD_CANN_CHECK_TILING_HEADER_H

#include <cstdint>
#include <cstring>

namespace mishgrad_cann_check {
template <typename Struct>
inline void ReadTiling(const uint8_t* tiling, Struct* out)
{
    std::memcpy(out, tiling, sizeof(Struct));
}
}  // namespace mishgrad_cann_check

#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \
    tiling_struct tiling_data;                                              \
    mishgrad_cann_check::ReadTiling<tiling_struct>((tiling_arg), &(tiling_data))

#endif  // MISHGRAD_CANN_CHECK_TILING_HEADER_H
