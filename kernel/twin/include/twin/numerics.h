// How the twin's vector Exp and Div round: the numerics models.
//
// The NPU's vector unit is not IEEE-exact. AscendC's API reference (cann/asc-devkit,
// commit 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, docs/zh/api/SIMD-API/基础API/...) says:
//   - Exp (Memory矢量计算/基础算术/Exp.md, line 131 and lines 185-192): the intrinsic
//     algorithm, the default (ExpAlgo::INTRINSIC, equal to PRECISION_1ULP_FTZ_TRUE), has a
//     maximum error of 1 ulp, and its subnormal results are flushed to zero ("FTZ"); only
//     PRECISION_1ULP_FTZ_FALSE, a software emulation, keeps them.
//   - Div (Memory矢量计算/基础算术/Div.md, line 137): the intrinsic, single-instruction
//     division, the default (DivAlgo::INTRINSIC, equal to PRECISION_1ULP_FTZ_TRUE), has a
//     maximum error of 1 ulp; only the *_FTZ_FALSE algorithms "support subnormal data".
// Both pages say so for the Ascend 950's config template parameter; for Atlas A2, which
// has the same instructions without a config, they are silent on accuracy and subnormals.
//
// The models:
//   kIeee         Exp is the C library's expf, Div is IEEE division (correctly rounded).
//   kHardware     the result is faithful: one of the two float32 neighbours of the exact
//                 value (the value itself when it is a float32), picked by a hash of the
//                 operands' bit patterns, so a run is reproducible; then a subnormal
//                 result is flushed to a zero of its sign.
//   kAdversarial  as kHardware, but always the neighbour farther from the exact value.
// FTZ is applied to both Exp and Div results: as documented for the 950, and as the
// conservative choice for A2, whose pages are silent. Subnormal *inputs* are used as they
// are: no page documents flushing them.
//
// Not modelled, because the pages are silent or the behaviour is a runtime setting:
//   - Max, Min, Maxs, Mins (基础算术/Max.md, Min.md, Maxs.md, Mins.md) say nothing about NaN;
//     the twin propagates it under every model.
//   - Cast (Memory矢量计算/类型转换/Cast.md) says nothing about NaN or overflow. SetCtrlSpr's
//     page (特殊寄存器访问/SetCtrlSpr(ISASI).md, table 5, lines 86-92) documents A2's CTRL[48]:
//     in saturation mode (the bit's default, 0) a float -> half/bfloat16 conversion gives 0
//     for NaN and +-MAX for inf; in non-saturation ("INF/NAN") mode it keeps them. The
//     device's mode is a runtime setting (aclrtSetDeviceSatMode, CANN's acl_rt.h); the twin
//     implements INF/NAN mode under every model.
//
// The exact value is computed in double. Div decides exactly: a quotient of two floats that
// lies within 2^-49 (relatively) of a float32 or of a midpoint between two equals it, and
// rounding it to double moves it by at most 2^-53, so the double quotient is on the same
// side of each as the exact one. Exp evaluates the exponential in double to within 2^-51
// (twin/src/numerics.cpp); within 2^-49 of a float32 it cannot tell on which side the
// exact value lies and returns that float32, faithful either way.
// mishgrad/math/vector_math.py repeats these operations bit for bit in NumPy.
#ifndef MISHGRAD_TWIN_NUMERICS_H
#define MISHGRAD_TWIN_NUMERICS_H

#include <cstdint>
#include <string>

namespace twin {

enum class Numerics : uint32_t { kIeee = 0, kHardware = 1, kAdversarial = 2 };

constexpr uint32_t kNumericsCount = 3;

// The model MISHGRAD_TWIN_NUMERICS names: "ieee" (also when unset or empty), "hardware" or
// "adversarial". Returns false with a message naming the variable for any other value.
bool NumericsFromEnvironment(Numerics* numerics, std::string* error);

// exp(x) and a / b rounded as `numerics` says.
float ModelExp(float x, Numerics numerics);
float ModelDiv(float a, float b, Numerics numerics);

}  // namespace twin

#endif  // MISHGRAD_TWIN_NUMERICS_H
