// The CPU twin's stand-in for the context fakers of CANN's op unit tests
// (kernel_run_context_facker.h in ops-nn's test framework): builders that assemble an
// InferShapeContext or TilingContext from shapes, dtypes and a platform, with the names and
// call chain the operator's unit tests use (an operator's tests/ut/op_host).
#ifndef MISHGRAD_TWIN_UT_KERNEL_RUN_CONTEXT_FACKER_H
#define MISHGRAD_TWIN_UT_KERNEL_RUN_CONTEXT_FACKER_H

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "register/op_impl_registry.h"

namespace gert {

// What a faked context points to, kept alive by every copy of the holder Build() returns.
struct FakedNode {
    NodeIo io;
    fe::PlatFormInfos* platform = nullptr;
    TilingData* tiling = nullptr;
    ContinuousVector* workspaces = nullptr;
    std::unique_ptr<InferShapeContext> inferShape;
    std::unique_ptr<TilingContext> tilingContext;
};

class ContextHolder {
public:
    explicit ContextHolder(std::shared_ptr<FakedNode> node) : node_(std::move(node)) {}
    template <typename Context>
    Context* GetContext();

private:
    std::shared_ptr<FakedNode> node_;
};

template <>
inline InferShapeContext* ContextHolder::GetContext<InferShapeContext>()
{
    return node_->inferShape.get();
}
template <>
inline TilingContext* ContextHolder::GetContext<TilingContext>()
{
    return node_->tilingContext.get();
}

// The calls both fakers share. Derived is the faker, so that each setter returns it.
template <typename Derived>
class ContextFakerBase {
public:
    // The node's type; the twin names the node after it too.
    Derived& SetOpType(const std::string& type)
    {
        holder_->io.nodeType = type;
        holder_->io.nodeName = type;
        return Self();
    }
    Derived& NodeIoNum(size_t inputs, size_t outputs)
    {
        holder_->io.inputDescs.resize(inputs);
        holder_->io.outputDescs.resize(outputs);
        return Self();
    }
    // Instances of each IR input, in order: 0 (or not listed) marks an absent optional input.
    Derived& IrInstanceNum(std::initializer_list<uint32_t> instances)
    {
        holder_->io.instances = instances;
        return Self();
    }
    Derived& InputShapes(std::initializer_list<StorageShape*> shapes)
    {
        holder_->io.inputShapes = shapes;
        return Self();
    }
    Derived& OutputShapes(std::initializer_list<StorageShape*> shapes)
    {
        holder_->io.outputShapes = shapes;
        return Self();
    }
    Derived& NodeInputTd(size_t index, ge::DataType dtype, ge::Format origin, ge::Format storage)
    {
        holder_->io.inputDescs.at(index) = CompileTimeTensorDesc(dtype, origin, storage);
        return Self();
    }
    Derived& NodeOutputTd(size_t index, ge::DataType dtype, ge::Format origin, ge::Format storage)
    {
        holder_->io.outputDescs.at(index) = CompileTimeTensorDesc(dtype, origin, storage);
        return Self();
    }

protected:
    Derived& Self() { return static_cast<Derived&>(*this); }
    std::shared_ptr<FakedNode> holder_ = std::make_shared<FakedNode>();
};

class InferShapeContextFaker : public ContextFakerBase<InferShapeContextFaker> {
public:
    ContextHolder Build()
    {
        holder_->inferShape = std::make_unique<InferShapeContext>(&holder_->io);
        return ContextHolder(holder_);
    }
};

class TilingContextFaker : public ContextFakerBase<TilingContextFaker> {
public:
    TilingContextFaker& CompileInfo(const void*) { return *this; }  // an elementwise operator's is empty
    TilingContextFaker& PlatformInfo(char* platform)
    {
        holder_->platform = reinterpret_cast<fe::PlatFormInfos*>(platform);
        return *this;
    }
    TilingContextFaker& TilingData(gert::TilingData* tiling)
    {
        holder_->tiling = tiling;
        return *this;
    }
    TilingContextFaker& Workspace(ContinuousVector* workspaces)
    {
        holder_->workspaces = workspaces;
        return *this;
    }
    ContextHolder Build()
    {
        holder_->tilingContext = std::make_unique<TilingContext>(&holder_->io, holder_->platform, holder_->tiling,
                                                                 holder_->workspaces);
        return ContextHolder(holder_);
    }
};

}  // namespace gert

#endif  // MISHGRAD_TWIN_UT_KERNEL_RUN_CONTEXT_FACKER_H
