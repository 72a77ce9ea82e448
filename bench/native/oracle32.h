// The correctly rounded float32 d(x) = dmish/dx, fast: float64 with a proven error bound,
// __float128 only where that bound cannot decide the rounding (Ziv's method, as
// mishgrad/math/oracle.py does with float64 and mpmath; tests/test_exhaustive.py checks the two
// agree bit for bit).
//
// Formulation: the cancellation-free terms of mishgrad/math/oracle.py, with one division:
// e = exp(-|x|),
//   x > 0:  N = 1 + 2e,   M = 2e^2, S = 1        (s = sigmoid(x) = S/(1 + e))
//   x <= 0: N = e(2 + e), M = 2,    S = e
//   D = N + M, q = 1/((1 + e) D),
//   t = N (1 + e) q  (= N/D = tanh(softplus(x))),   s (1 - t) = S M q,
//   d = t + p,  p = x (S M q)(1 + t).
// Every step adds, multiplies or divides positive numbers (or multiplies by x), so relative
// errors only accumulate: in the standard model fl(a op b) = (a op b)(1 + delta), |delta| <= u
// (u = 2^-53 in float64, 2^-113 in binary128), a quantity built from k rounded operations has
// relative error at most gamma_k = k u / (1 - k u). We allow exp an error of 1 ulp, a relative
// error of 2u ("2 units"); e's error enters 2 + e, 1 + e, 1 + 2e with weight <= 1. Counting
// units along each path (x <= 0; x > 0 gives fewer):
//   N: 2 + (2 + 1) + 1 = 6,  1 + e: 3,  D: 7,  (1 + e) D: 11,  q: 12,
//   t = N (1 + e) q: 6 + 3 + 12 + 2 = 23,  1 + t: 24,  S M q: 2 + 12 + 2 = 16,
//   p = x (S M q)(1 + t): 16 + 24 + 2 = 42,
// so |t^ - t| + |p^ - p| <= gamma_42 (|t| + |p|); the final sum and forming d^ -+ bound add
// about 3u (|t| + |p|) more. Below 46 u (|t^| + |p^|) in all; we use kBoundUnits = 64, the
// allowance of mishgrad/math/oracle.py, which would still cover an exp error of nearly 2 ulp
// (tests/test_exhaustive.py checks the whole oracle against mishgrad.math.oracle). Where
// exp(-|x|) or 2e^2 underflows (|x| > 354 in float64) relative bounds fail, but the absolute
// errors there stay below |x| * 8 * the smallest subnormal, which Underflow() covers for every
// float32 |x| < 2^128.
//
// The bound is absolute (in the size of the terms, not of d): near the root of d
// (x ~ -1.19243), where t and p cancel, it is large relative to d, the float64 interval
// straddles a float32 midpoint, and binary128 decides.
#ifndef MISHGRAD_NATIVE_ORACLE32_H
#define MISHGRAD_NATIVE_ORACLE32_H

#include <cmath>
#include <limits>

#include <quadmath.h>

namespace oracle32 {

// Precision-specific pieces: exp, the unit roundoff and the underflow allowance.
template <typename Real>
struct Precision;

// Exp(v) is 0 where e^v is below half the smallest subnormal (e^-746 < 2^-1076,
// e^-11435 < 2^-16496), as exp would round it, without libm's slow underflow path (taken
// for about half of all float32 inputs).
template <>
struct Precision<double> {
    static double Exp(double v) { return v < -746 ? 0.0 : std::exp(v); }
    static double Unit() { return 0x1p-53; }
    static double Underflow() { return 0x1p-900; }
};

template <>
struct Precision<__float128> {
    static __float128 Exp(__float128 v) { return v < -11435 ? 0 : expq(v); }
    static __float128 Unit() { return 0x1p-113; }
    static __float128 Underflow() { return ldexpq(1, -16000); }
};

constexpr int kBoundUnits = 64;

template <typename Real>
struct Terms {
    Real t;  // tanh(softplus(x))
    Real p;  // x s (1 - t)(1 + t)
};

template <typename Real>
Terms<Real> DmishTerms(float x)
{
    const Real xr = x;
    const Real e = Precision<Real>::Exp(xr > 0 ? -xr : xr);
    const bool positive = x > 0;
    const Real numerator = positive ? 1 + 2 * e : e * (2 + e);
    const Real oneMinusNumerator = positive ? 2 * e * e : Real(2);
    const Real onePlusE = 1 + e;
    const Real q = 1 / (onePlusE * (numerator + oneMinusNumerator));
    const Real t = numerator * onePlusE * q;
    return {t, xr * ((positive ? Real(1) : e) * oneMinusNumerator * q) * (1 + t)};
}

// The float32 that t + p rounds to (nearest, ties to even), if the error bound proves it:
// rounding is monotonic, so if both ends of [approx - bound, approx + bound] round to one
// float32, so does every value between them (a midpoint inside would separate the two).
template <typename Real>
bool RoundProven(const Terms<Real>& terms, float* rounded)
{
    const Real approx = terms.t + terms.p;
    const Real size = (terms.t < 0 ? -terms.t : terms.t) + (terms.p < 0 ? -terms.p : terms.p);
    const Real bound = kBoundUnits * Precision<Real>::Unit() * size + Precision<Real>::Underflow();
    const float low = static_cast<float>(approx - bound);
    *rounded = low;
    return low == static_cast<float>(approx + bound);  // +0 == -0: the caller sets the sign
}

struct Rounded {
    float value;
    bool fallback;  // float64 could not decide; binary128 did
    bool decided;   // false: neither could (never observed; the caller reports x)
};

// Correctly rounded d(x); NaN for NaN, 1 at +inf and +0 at -inf (the limits; as
// mishgrad.math.oracle). A zero takes the sign of d.
inline Rounded CorrectlyRounded(float x)
{
    if (std::isnan(x)) {
        return {std::numeric_limits<float>::quiet_NaN(), false, true};
    }
    if (std::isinf(x)) {
        return {x > 0 ? 1.0f : 0.0f, false, true};
    }
    const Terms<double> fast = DmishTerms<double>(x);
    Rounded result{0.0f, false, true};
    if (!RoundProven(fast, &result.value)) {
        result.fallback = true;
        result.decided = RoundProven(DmishTerms<__float128>(x), &result.value);
    }
    if (result.value == 0) {
        // d vanishes only at its root, which no float32 hits; the float64 sum has d's sign
        // wherever it is nonzero and is zero only below x ~ -745, where d < 0.
        result.value = fast.t + fast.p > 0 ? 0.0f : -0.0f;
    }
    return result;
}

}  // namespace oracle32

#endif  // MISHGRAD_NATIVE_ORACLE32_H
