// The hot loop of `make exhaustive` (mishgrad/evaluation/exhaustive.py): the correctly rounded d(x) of
// oracle32.h for a tile of float32 inputs, and the kernel's errors against it, summed per
// region of x. Each metric is the element-wise definition of mishgrad/math/errors.py or
// bench/precision_standard.py (named at each one); tests/test_exhaustive.py checks them against
// those definitions on samples. Tiles are split over host threads; each thread fills its own
// row of statistics, and Python merges the rows (one merge rule, in exhaustive.py).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "oracle32.h"

extern "C" {

// Where the regions begin and the standard's floor (passed from Python: errors.ROOT_WINDOW,
// exhaustive.EXP_SUBNORMAL_EDGE, precision.FLOOR).
struct ExhaustiveConfig {
    double rootLow;
    double rootHigh;
    double expSubnormalEdge;
    double floor;
    uint32_t threads;
};

// Regions of x, in the order of mishgrad.evaluation.exhaustive.REGIONS.
enum ExhaustiveRegion : uint32_t {
    kPositive = 0,       // x >= 0 (with -0)
    kRootWindow = 1,     // rootLow <= x <= rootHigh
    kNegative = 2,       // expSubnormalEdge <= x < 0, outside the root window
    kExpSubnormal = 3,   // x < expSubnormalEdge, d normal (e^x subnormal in float32)
    kDSubnormal = 4,     // d subnormal or zero
    kSpecial = 5,        // NaN, +-inf
    kRegionCount = 6,
};

// The kernel's errors over one region (field order: exhaustive_check.RegionStats).
struct ExhaustiveRegionStats {
    uint64_t count;
    uint64_t correctlyRounded;   // ULP distance 0
    uint64_t withinOneUlp;       // ULP distance <= 1
    uint64_t spuriousNonfinite;  // NaN/inf where d is finite
    uint64_t wrongSign;          // result and d nonzero, opposite signs
    uint64_t flushes;            // d a normal float32, result 0
    uint64_t fallbacks;          // oracle roundings float64 could not decide
    uint64_t undecided;          // ... nor binary128 (reported as an error)
    double sumRelative;          // sum of CANN's |a - g| / (|g| + floor): MERE's numerator
    double maxRelative;          // MARE
    double maxUlp;               // where result and d are finite
    double maxRelError;          // |a - g| / |g| where d is a normal float32
    double maxAbsError;          // |a - g| where d is subnormal or zero
    float worstRelativeX;        // the x of each maximum (NaN: none yet)
    float worstUlpX;
    float worstRelErrorX;
    float worstAbsErrorX;
    float undecidedX;
};

// The correctly rounded d of every x; returns the number of fallbacks to binary128, or -1
// if some rounding stayed undecided (then *undecidedX is one such x).
int64_t exhaustive_oracle(const float* x, float* out, uint64_t n, float* undecidedX);

// Adds the errors of `actual` (the kernel's output for x) to stats[thread][region] for
// config->threads rows of kRegionCount regions (set up by the caller: zeros, worst x NaN).
void exhaustive_check(const float* x, const float* actual, uint64_t n, const ExhaustiveConfig* config,
                      ExhaustiveRegionStats* stats);

// The region of each x, whose correctly rounded d(x) is d (for tests).
void exhaustive_regions(const float* x, const float* d, uint64_t n, const ExhaustiveConfig* config,
                        uint32_t* regions);

uint32_t exhaustive_region_count(void) { return kRegionCount; }
}

namespace {

bool IsNormal(float d) { return std::isfinite(d) && std::fabs(d) >= FLT_MIN; }

// mishgrad.math.dtypes.ordered: neighbouring floats map to neighbouring integers, +-0 to 0.
int64_t Ordered(float value)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    const int64_t magnitude = bits & 0x7fffffffu;
    return (bits >> 31) != 0 ? -magnitude : magnitude;
}

// mishgrad.math.errors.ulp_distance.
double UlpDistance(float a, float g)
{
    if (std::isnan(a) || std::isnan(g)) {
        return std::isnan(a) && std::isnan(g) ? 0.0 : std::numeric_limits<double>::infinity();
    }
    return static_cast<double>(std::llabs(Ordered(a) - Ordered(g)));
}

// relative_errors of bench/precision_standard.py.
double CannRelative(float a, float g, double floor)
{
    if (a == g || (std::isnan(a) && std::isnan(g))) {
        return 0.0;
    }
    if (!std::isfinite(a) || !std::isfinite(g)) {
        return std::numeric_limits<double>::infinity();
    }
    return std::fabs(double(a) - double(g)) / (std::fabs(double(g)) + floor);
}

// A maximum (starting at 0) and the x where it occurs (NaN while the maximum is 0); ties go
// to the smaller x, so the result does not depend on how the inputs were split
// (mishgrad.evaluation.exhaustive merges with the same rule).
void Raise(double value, float x, double* maximum, float* worst)
{
    if (value > *maximum || (value == *maximum && value > 0 && x < *worst)) {
        *maximum = value;
        *worst = x;
    }
}

ExhaustiveRegion RegionOf(float x, float d, const ExhaustiveConfig& config)
{
    if (!std::isfinite(x)) {
        return kSpecial;
    }
    if (!IsNormal(d)) {
        return kDSubnormal;
    }
    if (x >= 0) {
        return kPositive;
    }
    if (x >= config.rootLow && x <= config.rootHigh) {
        return kRootWindow;
    }
    return x >= config.expSubnormalEdge ? kNegative : kExpSubnormal;
}

void Accumulate(float x, float a, const oracle32::Rounded& truth, const ExhaustiveConfig& config,
                ExhaustiveRegionStats* regions)
{
    const float g = truth.value;
    ExhaustiveRegionStats& s = regions[RegionOf(x, g, config)];
    s.fallbacks += truth.fallback;
    if (!truth.decided) {
        s.undecided += 1;
        s.undecidedX = x;
    }
    if (a == g || (std::isnan(a) && std::isnan(g))) {
        // The common case, correctly rounded (+0 and -0 are one value): every error is 0.
        s.count += 1;
        s.correctlyRounded += 1;
        s.withinOneUlp += 1;
        return;
    }
    const double distance = UlpDistance(a, g);
    const bool bothFinite = std::isfinite(a) && std::isfinite(g);
    const double absError = std::fabs(double(a) - double(g));
    s.count += 1;
    s.correctlyRounded += distance == 0;
    s.withinOneUlp += distance <= 1;
    s.spuriousNonfinite += !std::isfinite(a) && std::isfinite(g);
    s.wrongSign += double(a) * double(g) < 0;
    s.flushes += IsNormal(g) && a == 0;
    const double relative = CannRelative(a, g, config.floor);
    s.sumRelative += relative;
    Raise(relative, x, &s.maxRelative, &s.worstRelativeX);
    if (bothFinite) {
        Raise(distance, x, &s.maxUlp, &s.worstUlpX);
        if (IsNormal(g)) {
            Raise(absError / std::fabs(double(g)), x, &s.maxRelError, &s.worstRelErrorX);
        } else {
            Raise(absError, x, &s.maxAbsError, &s.worstAbsErrorX);
        }
    }
}

// Runs body(begin, end, row) on config.threads slices of [0, n).
template <typename Body>
void Split(uint64_t n, uint32_t threads, Body body)
{
    threads = std::max(1u, threads);
    std::vector<std::thread> workers;
    const uint64_t slice = (n + threads - 1) / threads;
    for (uint32_t row = 0; row < threads; ++row) {
        const uint64_t begin = std::min(n, row * slice);
        const uint64_t end = std::min(n, begin + slice);
        workers.emplace_back(body, begin, end, row);
    }
    for (std::thread& worker : workers) {
        worker.join();
    }
}

}  // namespace

extern "C" int64_t exhaustive_oracle(const float* x, float* out, uint64_t n, float* undecidedX)
{
    int64_t fallbacks = 0;
    bool decided = true;
    for (uint64_t i = 0; i < n; ++i) {
        const oracle32::Rounded truth = oracle32::CorrectlyRounded(x[i]);
        out[i] = truth.value;
        fallbacks += truth.fallback;
        if (!truth.decided) {
            decided = false;
            *undecidedX = x[i];
        }
    }
    return decided ? fallbacks : -1;
}

extern "C" void exhaustive_check(const float* x, const float* actual, uint64_t n, const ExhaustiveConfig* config,
                                 ExhaustiveRegionStats* stats)
{
    Split(n, config->threads, [&](uint64_t begin, uint64_t end, uint32_t row) {
        ExhaustiveRegionStats* regions = stats + uint64_t(row) * kRegionCount;
        for (uint64_t i = begin; i < end; ++i) {
            Accumulate(x[i], actual[i], oracle32::CorrectlyRounded(x[i]), *config, regions);
        }
    });
}

extern "C" void exhaustive_regions(const float* x, const float* d, uint64_t n, const ExhaustiveConfig* config,
                                   uint32_t* regions)
{
    for (uint64_t i = 0; i < n; ++i) {
        regions[i] = RegionOf(x[i], d[i], *config);
    }
}
