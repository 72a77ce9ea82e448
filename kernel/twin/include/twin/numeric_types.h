// The CPU twin's 16-bit float types: `half` (IEEE binary16) and `bfloat16_t`.
//
// AscendC kernels name these types directly. Here each is a 16-bit pattern with exact
// conversion to float and a conversion from float that implements every RoundMode of
// AscendC's Cast. One generic routine serves both formats: they differ only in the number
// of exponent and mantissa bits.
#ifndef MISHGRAD_TWIN_NUMERIC_TYPES_H
#define MISHGRAD_TWIN_NUMERIC_TYPES_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace twin {

// The rounding of a narrowing conversion (mirrors AscendC::RoundMode's CAST_* values).
enum class Rounding { kNearestEven, kFloor, kCeil, kNearestAway, kTowardZero, kOdd };

template <int kExpBits, int kMantBits>
struct Format {
    static constexpr int kMant = kMantBits;
    static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
    static constexpr int kMinExp = 1 - kBias;  // exponent of the smallest normal
    static constexpr uint16_t kExpMask = ((1u << kExpBits) - 1) << kMantBits;
    static constexpr uint16_t kSignMask = 0x8000;
    static double MaxFinite() { return std::ldexp(2.0 - std::ldexp(1.0, -kMantBits), kBias); }
};

using HalfFormat = Format<5, 10>;
using Bfloat16Format = Format<8, 7>;

// Rounds a signed multiple count (an exact double) to an integer in the given mode.
inline double RoundToInteger(double value, Rounding mode)
{
    switch (mode) {
        case Rounding::kNearestEven: return std::nearbyint(value);  // default FE_TONEAREST
        case Rounding::kFloor: return std::floor(value);
        case Rounding::kCeil: return std::ceil(value);
        case Rounding::kNearestAway: return std::round(value);
        case Rounding::kTowardZero: return std::trunc(value);
        case Rounding::kOdd: {
            const double truncated = std::trunc(value);
            const bool even = std::fmod(std::fabs(truncated), 2.0) == 0.0;
            return truncated != value && even ? truncated + std::copysign(1.0, value) : truncated;
        }
    }
    return value;
}

template <class F>
uint16_t EncodeExact(double magnitude)  // magnitude is representable in F
{
    if (magnitude == 0.0) {
        return 0;
    }
    const int exponent = std::ilogb(magnitude);
    if (exponent < F::kMinExp) {  // subnormal: a multiple of the smallest subnormal
        return static_cast<uint16_t>(std::ldexp(magnitude, -(F::kMinExp - F::kMant)));
    }
    const double significand = std::ldexp(magnitude, F::kMant - exponent);
    const uint16_t fraction = static_cast<uint16_t>(significand) & ((1u << F::kMant) - 1);
    return static_cast<uint16_t>(((exponent + F::kBias) << F::kMant) | fraction);
}

// float -> 16-bit pattern of format F, rounded in `mode`. NaN stays a quiet NaN.
template <class F>
uint16_t FromFloat(float value, Rounding mode)
{
    const uint16_t sign = std::signbit(value) ? F::kSignMask : 0;
    if (std::isnan(value)) {
        return static_cast<uint16_t>(sign | F::kExpMask | (1u << (F::kMant - 1)));
    }
    if (std::isinf(value)) {
        return static_cast<uint16_t>(sign | F::kExpMask);
    }
    const double exact = value;
    const int exponent = exact == 0.0 ? F::kMinExp : std::max(std::ilogb(exact), F::kMinExp);
    const double quantum = std::ldexp(1.0, exponent - F::kMant);  // the ULP of F at |value|
    // value / quantum is exact in double (24 significant bits, power-of-two divisor).
    const double rounded = std::fabs(RoundToInteger(exact / quantum, mode) * quantum);
    if (rounded > F::MaxFinite()) {
        const bool toInfinity = mode == Rounding::kNearestEven || mode == Rounding::kNearestAway ||
                                (mode == Rounding::kCeil && !sign) || (mode == Rounding::kFloor && sign);
        return toInfinity ? static_cast<uint16_t>(sign | F::kExpMask)
                          : static_cast<uint16_t>(sign | EncodeExact<F>(F::MaxFinite()));
    }
    return static_cast<uint16_t>(sign | EncodeExact<F>(rounded));
}

template <class F>
float ToFloat(uint16_t bits)  // exact
{
    const bool negative = bits & F::kSignMask;
    const int biased = (bits & F::kExpMask) >> F::kMant;
    const uint32_t fraction = bits & ((1u << F::kMant) - 1);
    double magnitude = 0.0;
    if (biased == (F::kExpMask >> F::kMant)) {
        magnitude = fraction ? NAN : INFINITY;
    } else if (biased == 0) {
        magnitude = std::ldexp(static_cast<double>(fraction), F::kMinExp - F::kMant);
    } else {
        magnitude = std::ldexp(static_cast<double>(fraction | (1u << F::kMant)), biased - F::kBias - F::kMant);
    }
    return static_cast<float>(negative ? -magnitude : magnitude);
}

// A 16-bit float of format F: storage plus conversions, no arithmetic of its own (the
// kernel computes in float32 and only Casts to and from these).
template <class F>
struct Float16Bits {
    uint16_t bits = 0;

    Float16Bits() = default;
    template <class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>
    Float16Bits(A value) : bits(FromFloat<F>(static_cast<float>(value), Rounding::kNearestEven))
    {
    }
    static Float16Bits FromBits(uint16_t raw)
    {
        Float16Bits result;
        result.bits = raw;
        return result;
    }
    operator float() const { return ToFloat<F>(bits); }
};

}  // namespace twin

// The names AscendC kernels use. `half` and `float16_t` are one type; `bfloat16_t` another.
using half = twin::Float16Bits<twin::HalfFormat>;
using float16_t = half;
using bfloat16_t = twin::Float16Bits<twin::Bfloat16Format>;
static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, "16-bit storage");

#endif  // MISHGRAD_TWIN_NUMERIC_TYPES_H
