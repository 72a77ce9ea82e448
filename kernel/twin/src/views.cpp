// The twin's view arithmetic (twin/views.h).
#include "twin/views.h"

#include <algorithm>
#include <utility>

namespace twin {

bool ElementCount(const std::vector<int64_t>& shape, int64_t* count)
{
    int64_t total = 1;
    bool overflow = false;
    for (int64_t dim : shape) {
        if (dim < 0) {
            return false;
        }
        overflow = __builtin_mul_overflow(total, dim, &total) || overflow;
    }
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
        *count = 0;
        return true;
    }
    *count = total;
    return !overflow;
}

bool LastElement(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t offset,
                 int64_t* last)
{
    int64_t reach = offset;
    for (size_t d = 0; d < shape.size(); ++d) {
        int64_t step = 0;
        if (shape[d] < 1 || __builtin_mul_overflow(strides[d], shape[d] - 1, &step) ||
            __builtin_add_overflow(reach, step, &reach)) {
            return false;
        }
    }
    *last = reach;
    return true;
}

namespace {

// Rule 3: the offsets of a view of at most kExactOverlapLimit elements, compared one by one.
std::string ExactCheck(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides)
{
    std::vector<int64_t> positions;
    ForEachElement(shape, strides, 0, [&](int64_t, int64_t position) { positions.push_back(position); });
    std::sort(positions.begin(), positions.end());
    const auto repeated = std::adjacent_find(positions.begin(), positions.end());
    if (repeated == positions.end()) {
        return "";
    }
    return "rule 3: compared one by one, two elements share element offset " + std::to_string(*repeated);
}

}  // namespace

std::string SelfOverlapRefusal(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides)
{
    int64_t total = 0;
    if (!ElementCount(shape, &total) || total <= 1) {
        return "";  // no two elements (the count itself is the contract's to check)
    }
    std::vector<std::pair<int64_t, size_t>> dims;  // (stride, dimension) of dimensions with size > 1
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] > 1 && strides[d] == 0) {
            return "rule 1: dimension " + std::to_string(d) + " has " + std::to_string(shape[d]) +
                   " elements and stride 0";
        }
        if (shape[d] > 1) {
            dims.emplace_back(strides[d], d);
        }
    }
    std::sort(dims.begin(), dims.end());
    int64_t reach = 0;  // the farthest offset the dimensions with smaller strides reach
    for (const auto& [stride, d] : dims) {
        int64_t step = 0;
        if (stride <= reach || __builtin_mul_overflow(stride, shape[d] - 1, &step) ||
            __builtin_add_overflow(reach, step, &reach)) {
            if (total <= kExactOverlapLimit) {
                return ExactCheck(shape, strides);
            }
            return "rule 2: sorted by stride, dimension " + std::to_string(d) + "'s stride " +
                   std::to_string(stride) + " does not exceed " + std::to_string(reach) +
                   ", the farthest the dimensions with smaller strides reach, and with " + std::to_string(total) +
                   " elements (more than " + std::to_string(kExactOverlapLimit) +
                   ") the view is not compared one by one";
        }
    }
    return "";
}

}  // namespace twin
