// The CPU twin's stand-in for CANN's graph-runtime types that the operators' host code uses
// (metadef: graph/types.h, exe_graph/runtime/shape.h, storage_shape.h): the dtype and format
// enums with CANN's values, and shapes. Only what op_host/ and its unit tests call.
#ifndef MISHGRAD_TWIN_EXE_GRAPH_STORAGE_SHAPE_H
#define MISHGRAD_TWIN_EXE_GRAPH_STORAGE_SHAPE_H

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;

// ge::DataType numbers dtypes as aclDataType does.
enum DataType { DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_BF16 = 27 };
enum Format { FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4,
              FORMAT_FRACTAL_NZ = 29 };

}  // namespace ge

namespace gert {

// A tensor's dimensions.
class Shape {
public:
    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}

    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t index) const { return dims_.at(index); }
    void SetDimNum(size_t count) { dims_.resize(count); }
    void SetDim(size_t index, int64_t dim) { dims_.at(index) = dim; }
    Shape& AppendDim(int64_t dim)
    {
        dims_.push_back(dim);
        return *this;
    }
    // Elements: the product of the dimensions (1 for a scalar).
    int64_t GetShapeSize() const
    {
        int64_t size = 1;
        for (int64_t dim : dims_) {
            size *= dim;
        }
        return size;
    }
    bool operator==(const Shape& other) const { return dims_ == other.dims_; }
    bool operator!=(const Shape& other) const { return !(*this == other); }

private:
    std::vector<int64_t> dims_;
};

// The shape the user sees (origin) and the shape in memory (storage); equal for ND.
class StorageShape {
public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_(origin), storage_(storage)
    {
    }
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }

private:
    Shape origin_;
    Shape storage_;
};

}  // namespace gert

#endif  // MISHGRAD_TWIN_EXE_GRAPH_STORAGE_SHAPE_H
