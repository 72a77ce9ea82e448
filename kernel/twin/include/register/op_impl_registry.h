// The CPU twin's stand-in for CANN's op implementation registry (register/op_impl_registry.h)
// and the contexts it passes (exe_graph/runtime/infer_shape_context.h, tiling_context.h,
// tiling_parse_context.h): enough for op_host/'s infershape and tiling to compile unchanged
// and run in the operator's unit tests. Contexts hold pointers the test's faker owns.
#ifndef MISHGRAD_TWIN_REGISTER_OP_IMPL_REGISTRY_H
#define MISHGRAD_TWIN_REGISTER_OP_IMPL_REGISTRY_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "exe_graph/runtime/storage_shape.h"
#include "platform/platform_infos_def.h"

namespace gert {

// A tensor's dtype and formats as the graph declares them.
class CompileTimeTensorDesc {
public:
    CompileTimeTensorDesc() = default;
    CompileTimeTensorDesc(ge::DataType dtype, ge::Format origin, ge::Format storage)
        : dtype_(dtype), origin_(origin), storage_(storage)
    {
    }
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }

private:
    ge::DataType dtype_ = ge::DT_FLOAT;
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
};

// What both contexts know about the node: its type and name, its inputs' and outputs' shapes
// and descriptors.
struct NodeIo {
    std::string nodeType;
    std::string nodeName;
    std::vector<uint32_t> instances;  // per IR input: 1 present, 0 (or not listed) absent
    std::vector<StorageShape*> inputShapes;
    std::vector<StorageShape*> outputShapes;
    std::vector<CompileTimeTensorDesc> inputDescs;
    std::vector<CompileTimeTensorDesc> outputDescs;

    const StorageShape* Input(size_t index) const
    {
        return index < inputShapes.size() ? inputShapes[index] : nullptr;
    }
    StorageShape* Output(size_t index) const { return index < outputShapes.size() ? outputShapes[index] : nullptr; }
    bool Present(size_t irIndex) const { return irIndex < instances.size() && instances[irIndex] > 0; }
};

class InferShapeContext {
public:
    explicit InferShapeContext(NodeIo* io) : io_(io) {}
    const char* GetNodeType() const { return io_->nodeType.c_str(); }
    const char* GetNodeName() const { return io_->nodeName.c_str(); }
    const Shape* GetInputShape(size_t index) const
    {
        const StorageShape* shape = io_->Input(index);
        return shape == nullptr ? nullptr : &shape->GetOriginShape();
    }
    // An optional input: null when the graph has no instance of it.
    const Shape* GetOptionalInputShape(size_t irIndex) const
    {
        return io_->Present(irIndex) ? GetInputShape(irIndex) : nullptr;
    }
    Shape* GetOutputShape(size_t index) const
    {
        StorageShape* shape = io_->Output(index);
        return shape == nullptr ? nullptr : &shape->MutableOriginShape();
    }

private:
    NodeIo* io_;
};

// The serialized tiling data: a byte buffer of fixed capacity.
class TilingData {
public:
    explicit TilingData(size_t capacity) : bytes_(capacity) {}
    static std::unique_ptr<TilingData> CreateCap(size_t capacity) { return std::make_unique<TilingData>(capacity); }
    void* GetData() { return bytes_.data(); }
    size_t GetCapacity() const { return bytes_.size(); }
    void SetDataSize(size_t size) { size_ = size; }
    size_t GetDataSize() const { return size_; }

private:
    std::vector<uint8_t> bytes_;
    size_t size_ = 0;
};

// A size and capacity followed by the elements, in one allocation (the workspace sizes).
class ContinuousVector {
public:
    template <typename T>
    static std::unique_ptr<uint8_t[]> Create(size_t capacity)
    {
        auto bytes = std::make_unique<uint8_t[]>(sizeof(ContinuousVector) + capacity * sizeof(T));
        ::new (bytes.get()) ContinuousVector(capacity);  // placement: the header of the block
        return bytes;
    }
    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return capacity_; }
    // `count` elements, or null if they do not fit.
    void* Resize(size_t count)
    {
        if (count > capacity_) {
            return nullptr;
        }
        size_ = count;
        return this + 1;
    }
    const void* GetData() const { return this + 1; }

private:
    explicit ContinuousVector(size_t capacity) : capacity_(capacity) {}
    size_t capacity_;
    size_t size_ = 0;
};

class TilingContext {
public:
    TilingContext(NodeIo* io, fe::PlatFormInfos* platform, TilingData* tiling, ContinuousVector* workspaces)
        : io_(io), platform_(platform), tiling_(tiling), workspaces_(workspaces)
    {
    }
    const char* GetNodeType() const { return io_->nodeType.c_str(); }
    const char* GetNodeName() const { return io_->nodeName.c_str(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    const StorageShape* GetInputShape(size_t index) const { return io_->Input(index); }
    // An optional input: null when the graph has no instance of it.
    const StorageShape* GetOptionalInputShape(size_t irIndex) const
    {
        return io_->Present(irIndex) ? io_->Input(irIndex) : nullptr;
    }
    const CompileTimeTensorDesc* GetInputDesc(size_t index) const
    {
        return index < io_->inputDescs.size() ? &io_->inputDescs[index] : nullptr;
    }
    // The tiling struct, written in place into the tiling buffer (null if it does not fit).
    template <typename T>
    T* GetTilingData()
    {
        if (tiling_ == nullptr || sizeof(T) > tiling_->GetCapacity()) {
            return nullptr;
        }
        tiling_->SetDataSize(sizeof(T));
        return static_cast<T*>(tiling_->GetData());
    }
    TilingData* GetRawTilingData() const { return tiling_; }
    void SetBlockDim(uint32_t blockDim) { blockDim_ = blockDim; }
    uint32_t GetBlockDim() const { return blockDim_; }
    void SetTilingKey(uint64_t key) { tilingKey_ = key; }
    uint64_t GetTilingKey() const { return tilingKey_; }
    // Room for `count` workspace sizes (null without a workspace vector or if they do not fit).
    size_t* GetWorkspaceSizes(size_t count)
    {
        return workspaces_ == nullptr ? nullptr : static_cast<size_t*>(workspaces_->Resize(count));
    }

private:
    NodeIo* io_;
    fe::PlatFormInfos* platform_;
    TilingData* tiling_;
    ContinuousVector* workspaces_;
    uint32_t blockDim_ = 0;
    uint64_t tilingKey_ = 0;
};

class TilingParseContext {
public:
    explicit TilingParseContext(fe::PlatFormInfos* platform, std::string nodeType = "", std::string nodeName = "")
        : platform_(platform), nodeType_(std::move(nodeType)), nodeName_(std::move(nodeName))
    {
    }
    const char* GetNodeType() const { return nodeType_.c_str(); }
    const char* GetNodeName() const { return nodeName_.c_str(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }

private:
    fe::PlatFormInfos* platform_;
    std::string nodeType_;
    std::string nodeName_;
};

using InferShapeFunc = ge::graphStatus (*)(InferShapeContext*);
using TilingFunc = ge::graphStatus (*)(TilingContext*);
using TilingParseFunc = ge::graphStatus (*)(TilingParseContext*);

// One op type's registered functions.
struct OpImplFunctions {
    InferShapeFunc infer_shape = nullptr;
    TilingFunc tiling = nullptr;
    TilingParseFunc tiling_parse = nullptr;
};

class OpImplRegistry {
public:
    static OpImplRegistry& GetInstance()
    {
        static OpImplRegistry registry;
        return registry;
    }
    // The functions registered for `type`, or null.
    const OpImplFunctions* GetOpImpl(const char* type) const
    {
        const auto found = impls_.find(type);
        return found == impls_.end() ? nullptr : &found->second;
    }
    OpImplFunctions& Add(const char* type) { return impls_[type]; }

private:
    std::map<std::string, OpImplFunctions> impls_;
};

// What IMPL_OP_INFERSHAPE(Type) and IMPL_OP_OPTILING(Type) start: a chain of setters that
// registers each function as it is given.
class OpImplRegisterV2 {
public:
    explicit OpImplRegisterV2(const char* type) : functions_(&OpImplRegistry::GetInstance().Add(type)) {}
    OpImplRegisterV2& InferShape(InferShapeFunc function)
    {
        functions_->infer_shape = function;
        return *this;
    }
    OpImplRegisterV2& Tiling(TilingFunc function)
    {
        functions_->tiling = function;
        return *this;
    }
    template <typename CompileInfo>
    OpImplRegisterV2& TilingParse(TilingParseFunc function)
    {
        functions_->tiling_parse = function;
        return *this;
    }

private:
    OpImplFunctions* functions_;
};

}  // namespace gert

#define MISHGRAD_TWIN_CONCAT_(a, b) a##b
#define MISHGRAD_TWIN_CONCAT(a, b) MISHGRAD_TWIN_CONCAT_(a, b)
#define MISHGRAD_TWIN_IMPL_OP(type)                                                                   \
    [[maybe_unused]] static gert::OpImplRegisterV2 MISHGRAD_TWIN_CONCAT(mishgradOpImpl_, __COUNTER__) = \
        gert::OpImplRegisterV2(#type)
#define IMPL_OP_INFERSHAPE(type) MISHGRAD_TWIN_IMPL_OP(type)
#define IMPL_OP_OPTILING(type) MISHGRAD_TWIN_IMPL_OP(type)

#endif  // MISHGRAD_TWIN_REGISTER_OP_IMPL_REGISTRY_H
