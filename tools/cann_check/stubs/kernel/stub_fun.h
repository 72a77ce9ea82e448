// NOT CANN: stands in for tikicpulib's stub_fun.h (`make cann-check` only): the bisheng
// intrinsics that CANN's AscendC headers call for dav-c220 in CPU-debug mode.
//
// Each intrinsic is a variadic template that accepts any arguments and returns an int64_t
// (the intrinsics the headers compute with return integers or register values), so the
// headers' own calls into intrinsics are not type-checked. Our
// kernel calls no intrinsic directly, so this leaves every call it makes to the AscendC API
// fully checked. The names were collected from g++'s "was not declared" errors.
#ifndef MISHGRAD_CANN_CHECK_STUB_FUN_H
#define MISHGRAD_CANN_CHECK_STUB_FUN_H

#include <cstdint>


// Enums and vector-register types of bisheng that the intrinsics take. The headers name only
// these enumerators; their values are placeholders.
enum class QuantMode_t : uint64_t {
    NoQuant, F322F16, F322BF16, DEQF16, DEQS16, VDEQF16, VDEQS16, REQ8, VREQ8, REQ4, VREQ4,
    QF322B8_PRE, VQF322B8_PRE, QF322F16_PRE, VQF322F16_PRE, QF322BF16_PRE, VQF322BF16_PRE,
    QF322F32_PRE, VQF322F32_PRE, QF322FP8_PRE, VQF322FP8_PRE, QF322HIF8_PRE, VQF322HIF8_PRE,
    QF322HIF8_PRE_HYBRID, VQF322HIF8_PRE_HYBRID, QS322BF16_PRE, VQS322BF16_PRE,
    QF162B8_PRE, VQF162B8_PRE, QF162S16_PRE, VQF162S16_PRE, QF162S4_PRE, VQF162S4_PRE
};
enum class Order_t : uint8_t { VALUE_INDEX, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
enum class dcci_dst_t : uint64_t { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum class cache_line_t : uint64_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum pad_t : uint8_t { PAD_NONE, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5, PAD_MODE6, PAD_MODE7, PAD_MODE8 };
enum mem_dsb_t : uint8_t { DSB_ALL, DSB_DDR, DSB_OUT, DSB_UB };
enum mem_t : uint8_t { L1, L0A, L0B, L0C, UB, BT };
enum atomic_type_t : uint8_t { ATOMIC_NONE_TYPE };
enum atomic_op_t : uint8_t { ATOMIC_NONE_OP };
enum addr_cal_mode_t : uint8_t { inc, dec };
enum ub_addr8_t : uint8_t { VA0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };
enum vld_part_t : uint8_t { L128, H128 };
struct vector_bool {};
struct vector_address {};
struct vector_align {};

#define MISHGRAD_INTRINSIC(name)                                    \
    template <typename... Args>                                      \
    inline int64_t name(Args&&...)             \
    {                                                                \
        return {};                                                   \
    }

#include "stub_fun_list.h"

#undef MISHGRAD_INTRINSIC

#endif  // MISHGRAD_CANN_CHECK_STUB_FUN_H
