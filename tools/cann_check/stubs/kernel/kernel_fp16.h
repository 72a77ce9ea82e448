// NOT CANN: a minimal stand-in for tikicpulib's kernel_fp16.h, for `make cann-check` only.
//
// On the NPU, half and bfloat16_t are bisheng builtins; in CPU-debug mode CANN's headers
// expect tikicpulib's classes, which convert to and from float and have ToFloat(). Only the
// types are needed to type-check: the values these classes compute are never used.
#ifndef MISHGRAD_CANN_CHECK_KERNEL_FP16_H
#define MISHGRAD_CANN_CHECK_KERNEL_FP16_H

#include <cstdint>
#include <type_traits>

namespace mishgrad_cann_check {

// A 16-bit float: Tag tells half from bfloat16_t, so that they are distinct types.
template <typename Tag>
struct Float16 {
    uint16_t val = 0;
    Float16() = default;
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Float16(T value) : val(static_cast<uint16_t>(static_cast<float>(value) != 0.0f))
    {
    }
    template <typename Other>
    explicit Float16(Float16<Other> other) : val(other.val)
    {
    }
    float ToFloat() const { return static_cast<float>(val); }
    operator float() const { return ToFloat(); }
    Float16 operator-() const { return Float16(-ToFloat()); }
    Float16& operator+=(Float16 other) { return *this = Float16(ToFloat() + other.ToFloat()); }
    Float16& operator-=(Float16 other) { return *this = Float16(ToFloat() - other.ToFloat()); }
    Float16& operator*=(Float16 other) { return *this = Float16(ToFloat() * other.ToFloat()); }
    Float16& operator/=(Float16 other) { return *this = Float16(ToFloat() / other.ToFloat()); }
};

struct HalfTag {};
struct Bfloat16Tag {};

}  // namespace mishgrad_cann_check

using half = mishgrad_cann_check::Float16<mishgrad_cann_check::HalfTag>;
using bfloat16_t = mishgrad_cann_check::Float16<mishgrad_cann_check::Bfloat16Tag>;

#endif  // MISHGRAD_CANN_CHECK_KERNEL_FP16_H
