// A strided view's arithmetic for the twin's aclnn layer: how far it reaches in its storage,
// a walk over its elements, and whether distinct elements are distinct memory. Every sum and
// product of user-given numbers is checked; none wraps.
#ifndef MISHGRAD_TWIN_VIEWS_H
#define MISHGRAD_TWIN_VIEWS_H

#include <cstdint>
#include <string>
#include <vector>

namespace twin {

// The number of elements of `shape` in *count; false if a dimension is negative or the count
// does not fit int64. A zero dimension makes the count 0 whatever the other dimensions are.
// (An operator's CANN-free contract counts its own: it may include no header of the twin.)
bool ElementCount(const std::vector<int64_t>& shape, int64_t* count);

// The element offset of the last element of a non-empty view, offset + sum of
// stride * (size - 1), in *last; false if it does not fit int64. Sizes, strides and the offset
// must be non-negative.
bool LastElement(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t offset,
                 int64_t* last);

// Views with at most this many elements are checked element by element when the stride rule
// below cannot decide; larger ones are refused. It bounds the check's time and memory.
constexpr int64_t kExactOverlapLimit = int64_t{1} << 16;

// "" if distinct elements of the view are provably distinct memory; else which rule refused
// it. The rules, in order:
//   1. a dimension with more than one element and stride 0 repeats an element: refused;
//   2. sorted by stride, if each stride exceeds the farthest offset the dimensions with smaller
//      strides reach, every element has its own offset (a mixed-radix numbering): accepted;
//   3. otherwise, with at most kExactOverlapLimit elements, the offsets are compared one by one;
//      with more, the view is refused as not provably free of overlap.
// Only the dimensions (at most 64) are sorted, so the time does not grow with the element count.
std::string SelfOverlapRefusal(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

// Calls visit(linear, elementOffset) for every element of a valid view, in row-major order,
// where elementOffset follows `strides` from `offset` (a stride of 0 repeats an element).
template <typename Visit>
void ForEachElement(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t offset,
                    Visit visit)
{
    int64_t total = 0;
    if (!ElementCount(shape, &total)) {
        return;
    }
    std::vector<int64_t> index(shape.size(), 0);
    int64_t position = offset;
    for (int64_t linear = 0; linear < total; ++linear) {
        visit(linear, position);
        for (size_t d = shape.size(); d-- > 0;) {
            if (++index[d] < shape[d]) {
                position += strides[d];
                break;
            }
            position -= strides[d] * (shape[d] - 1);
            index[d] = 0;
        }
    }
}

}  // namespace twin

#endif  // MISHGRAD_TWIN_VIEWS_H
