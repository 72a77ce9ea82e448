// The numerics models of the twin's Exp and Div (see twin/numerics.h).
#include "twin/numerics.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace twin {
namespace {

constexpr std::array<const char*, kNumericsCount> kNames = {"ieee", "hardware", "adversarial"};
constexpr const char* kVariable = "MISHGRAD_TWIN_NUMERICS";

// exp(x) = 2^k * exp(r) with r = x - k ln2, |r| <= ln2/2 (Cody and Waite): ln2's high part
// has 32 significant bits, so k * kLn2Hi is exact for |k| <= 2^8 and x - k * kLn2Hi is exact
// (Sterbenz). exp(r) is its Taylor polynomial of degree 12 (truncation < 2^-52).
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kLn2Hi = 0x1.62e42fee00000p-1;
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
constexpr int kExpDegree = 12;
// Adding and subtracting 1.5 * 2^52 rounds a double below 2^51 to an integer (ties to even).
constexpr double kRoundingShift = 0x1.8p52;
// The polynomial and the reduction err by less than 2^-51 relatively. Within this relative
// distance of a float32 the double exponential cannot tell on which side of it the exact
// value lies; that float32 is then the result.
constexpr double kExpTolerance = 0x1p-49;
// Below this |x|, 1 + x is the exponential to double precision, and 1 + x may round to 1;
// the side of 1 is then decided by x's sign instead.
constexpr float kExpNearZero = 0x1p-30f;
// exp(89) > 2^128: every float32 above overflows. exp(-88) < 2^-126: every float32 below
// has only subnormal neighbours, flushed to zero.
constexpr float kExpOverflow = 89.0f;
constexpr float kExpUnderflow = -88.0f;
// Keys of the hash that picks a neighbour, one salt per operation.
constexpr uint64_t kExpSalt = 0x6578700000000000ull;  // "exp"
constexpr uint64_t kDivSalt = 0x6469760000000000ull;  // "div"
constexpr double kTwoTo128 = 0x1p128;  // where +inf stands on the float32 grid
constexpr uint32_t kInfinityBits = 0x7f800000u;
constexpr uint32_t kMinNormalBits = 0x00800000u;  // FLT_MIN

constexpr std::array<double, kExpDegree + 1> TaylorCoefficients()
{
    std::array<double, kExpDegree + 1> coefficients{};
    double factorial = 1.0;  // n! is exact in double for n <= 18
    for (int n = 0; n <= kExpDegree; ++n) {
        factorial *= n > 0 ? n : 1;
        coefficients[n] = 1.0 / factorial;
    }
    return coefficients;
}
constexpr std::array<double, kExpDegree + 1> kTaylor = TaylorCoefficients();

uint32_t Bits(float value)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
}

// splitmix64's finalizer: every input bit changes every output bit with probability 1/2.
uint64_t Mix(uint64_t key)
{
    uint64_t z = key + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double ExpDouble(float x)
{
    const double xd = x;
    const double k = (xd * kInvLn2 + kRoundingShift) - kRoundingShift;  // nearest integer
    const double r = (xd - k * kLn2Hi) - k * kLn2Lo;
    // Estrin's scheme: the same polynomial in four dependent steps instead of twelve.
    const double r2 = r * r;
    const double r4 = r2 * r2;
    const double* c = kTaylor.data();
    const double low = (c[0] + c[1] * r) + (c[2] + c[3] * r) * r2;
    const double middle = (c[4] + c[5] * r) + (c[6] + c[7] * r) * r2;
    const double high = (c[8] + c[9] * r) + (c[10] + c[11] * r) * r2 + c[12] * r4;
    const double p = low + (middle + high * r4) * r4;
    uint64_t scale = static_cast<uint64_t>(static_cast<int64_t>(k) + 1023) << 52;  // 2^k
    double power = 0;
    std::memcpy(&power, &scale, sizeof(power));
    return p * power;
}

// The neighbour above (true) or below (false) the exact value: the farther one for
// kAdversarial (`highIsFarther`), else a bit of the operands' hash.
bool TakeHigh(Numerics numerics, bool highIsFarther, uint64_t key)
{
    return numerics == Numerics::kAdversarial ? highIsFarther : (Mix(key) >> 63) != 0;
}

// The value of a nonnegative float32 bit pattern, +inf standing for 2^128.
double GridValue(uint32_t bits)
{
    float value = 0;
    std::memcpy(&value, &bits, sizeof(value));
    return bits >= kInfinityBits ? kTwoTo128 : value;
}

// A float32 neighbour of `exact` (finite, nonzero), chosen as `numerics` says, flushed to
// zero if subnormal. `tolerance`: see kExpTolerance (0 when `exact` is exactly rounded).
// Works on bit patterns (for nonnegative floats the next one up is the pattern plus one)
// and without data-dependent branches: a mispredicted branch costs more than all the rest.
float Pick(double exact, double tolerance, uint64_t key, Numerics numerics)
{
    const double magnitude = std::fabs(exact);
    uint32_t chosen = kInfinityBits;
    if (magnitude < kTwoTo128) {
        const uint32_t nearest = Bits(static_cast<float>(magnitude));
        const double nearestValue = GridValue(nearest);
        const uint32_t low = nearest - static_cast<uint32_t>(nearestValue >= magnitude);
        // Both differences are exact (Sterbenz), so the comparison is too.
        const bool highIsFarther = magnitude - GridValue(low) <= GridValue(low + 1) - magnitude;
        const uint32_t picked = low + static_cast<uint32_t>(TakeHigh(numerics, highIsFarther, key));
        const bool decided = std::fabs(magnitude - nearestValue) <= tolerance * magnitude;
        chosen = decided ? nearest : picked;
    }
    chosen = chosen < kMinNormalBits ? 0 : chosen;  // flush to zero
    chosen |= static_cast<uint32_t>(std::signbit(exact)) << 31;
    float result = 0;
    std::memcpy(&result, &chosen, sizeof(result));
    return result;
}

}  // namespace

bool NumericsFromEnvironment(Numerics* numerics, std::string* error)
{
    const char* text = std::getenv(kVariable);
    if (text == nullptr || *text == '\0') {
        *numerics = Numerics::kIeee;
        return true;
    }
    for (uint32_t i = 0; i < kNumericsCount; ++i) {
        if (std::strcmp(text, kNames[i]) == 0) {
            *numerics = static_cast<Numerics>(i);
            return true;
        }
    }
    *error = std::string(kVariable) + " is '" + text + "'; it must be ieee, hardware or adversarial";
    return false;
}

float ModelExp(float x, Numerics numerics)
{
    if (numerics == Numerics::kIeee) {
        return std::exp(x);
    }
    if (std::isnan(x) || x > kExpOverflow) {
        return x + INFINITY;  // NaN stays NaN, the rest overflows
    }
    if (x < kExpUnderflow) {
        return 0.0f;
    }
    const uint64_t key = Bits(x) ^ kExpSalt;
    if (std::fabs(x) < kExpNearZero) {
        if (x == 0.0f) {
            return 1.0f;
        }
        // exp(x) is just above 1 for x > 0 (neighbours 1 and 1 + 2^-23), just below for x < 0
        // (1 - 2^-24 and 1); 1 is the nearer.
        const float low = x > 0.0f ? 1.0f : std::nextafter(1.0f, 0.0f);
        const float high = std::nextafter(low, 2.0f);
        return TakeHigh(numerics, x > 0.0f, key) ? high : low;
    }
    return Pick(ExpDouble(x), kExpTolerance, key, numerics);
}

float ModelDiv(float a, float b, Numerics numerics)
{
    if (numerics == Numerics::kIeee) {
        return a / b;
    }
    const double quotient = static_cast<double>(a) / static_cast<double>(b);
    if (quotient == 0.0 || !std::isfinite(quotient)) {
        return static_cast<float>(quotient);  // zeros, infinities and NaN are exact
    }
    const uint64_t key = (static_cast<uint64_t>(Bits(a)) << 32 | Bits(b)) ^ kDivSalt;
    return Pick(quotient, 0.0, key, numerics);
}

}  // namespace twin
