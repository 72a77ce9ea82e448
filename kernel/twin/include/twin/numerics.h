// How the twin's vector Exp and Div round: the numerics models.
//
// The NPU's vector unit is not IEEE-exact. AscendC's API reference states, for the default
// (intrinsic, single-instruction) Exp and Div, a maximum error of 1 ulp and that subnormal
// results are flushed to zero ("FTZ"): the Exp page's ExpConfig (ExpAlgo::INTRINSIC equals
// PRECISION_1ULP_FTZ_TRUE) and the Div page's DivConfig (DivAlgo::INTRINSIC equals
// PRECISION_1ULP_FTZ_TRUE; only the *_FTZ_FALSE modes "support subnormal data"). Both
// statements are made for the Ascend 950's config parameter; the Atlas A2 pages describe the
// same instructions without a config and say nothing on accuracy or subnormals. Pages:
// cann/asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/基础算术/Exp.md and Div.md,
// commit 82b89a15f26329511fc7fbc807d5132a1f9b4ba7.
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
//   - Max/Min/Maxs/Mins (same folder, Max.md ...) say nothing about NaN; the twin propagates it.
//   - Cast (Memory矢量计算/类型转换/Cast.md) says nothing about NaN or overflow. SetCtrlSpr's
//     page (特殊寄存器访问/SetCtrlSpr(ISASI).md) documents A2's CTRL[48]: in saturation mode a
//     float -> half/bfloat16 conversion gives 0 for NaN and +-MAX for inf; in non-saturation
//     ("INF/NAN") mode it keeps them. The device's mode is set by the runtime
//     (aclrtSetDeviceSatMode in acl_rt.h); the twin implements INF/NAN mode.
//
// The exact value is computed in double: a quotient of two floats correctly rounded to
// double is on the same side of every float32 and every float32 midpoint as the exact
// quotient (a quotient of two floats lies within 2^-49, relatively, of a float32 or a
// midpoint only if it equals it), so
// Div decides exactly. Exp uses the reduction and polynomial below, accurate to a few
// double ulps (relative error < 2^-50); where the exponential lies within kExpTolerance of
// a float32 the side cannot be decided, and that float32, a faithful result either way, is
// returned. mishgrad/vector_math.py repeats these operations bit for bit in NumPy.
#ifndef MISHGRAD_TWIN_NUMERICS_H
#define MISHGRAD_TWIN_NUMERICS_H

#include <cstdint>
#include <string>

namespace twin {

enum class Numerics : uint32_t { kIeee = 0, kHardware = 1, kAdversarial = 2 };

constexpr uint32_t kNumericsCount = 3;

// The model's name as MISHGRAD_TWIN_NUMERICS spells it ("ieee", "hardware", "adversarial").
const char* NumericsName(Numerics numerics);

// The model named by MISHGRAD_TWIN_NUMERICS (unset or empty: ieee). Returns false with a
// message naming the variable for any other value.
bool NumericsFromEnvironment(Numerics* numerics, std::string* error);

// exp(x) and a / b rounded as `numerics` says.
float ModelExp(float x, Numerics numerics);
float ModelDiv(float a, float b, Numerics numerics);

}  // namespace twin

#endif  // MISHGRAD_TWIN_NUMERICS_H
