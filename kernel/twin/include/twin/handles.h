// Opaque handles that are never reused, for the objects the twin's C ABI hands out (streams,
// tensors, executors).
//
// A handle is not the object's address: it is a serial number, tagged so that it is not a
// canonical x86-64 or AArch64 user address (dereferencing one faults at once instead of
// reading something). Numbers only grow (2^44 of them before the tag would be touched), so a destroyed or already-run object's handle is
// never given to a new object: a stale handle is reported as such, never silently taken for
// whatever now lives at the old address.
#ifndef MISHGRAD_TWIN_HANDLES_H
#define MISHGRAD_TWIN_HANDLES_H

#include <cstdint>
#include <map>
#include <memory>

namespace twin {

template <typename T>
class HandleTable {
public:
    // Takes ownership of `object` and returns its new handle.
    T* Insert(std::unique_ptr<T> object)
    {
        const uintptr_t key = kTag | (++serial_ << 4);
        objects_.emplace(key, std::move(object));
        return reinterpret_cast<T*>(key);
    }

    // The live object behind `handle`, or nullptr for a stale, foreign or null handle.
    T* Find(const void* handle) const
    {
        const auto found = objects_.find(reinterpret_cast<uintptr_t>(handle));
        return found == objects_.end() ? nullptr : found->second.get();
    }

    // Removes the object behind `handle` and returns it (nullptr if there is none).
    std::unique_ptr<T> Take(const void* handle)
    {
        const auto found = objects_.find(reinterpret_cast<uintptr_t>(handle));
        if (found == objects_.end()) {
            return nullptr;
        }
        std::unique_ptr<T> object = std::move(found->second);
        objects_.erase(found);
        return object;
    }

    void Clear() { objects_.clear(); }
    size_t Size() const { return objects_.size(); }

private:
    static_assert(sizeof(uintptr_t) == 8, "handles are tagged 64-bit values");
    static constexpr uintptr_t kTag = uintptr_t{0x4D47} << 48;  // "MG": above every user address
    uintptr_t serial_ = 0;
    std::map<uintptr_t, std::unique_ptr<T>> objects_;
};

}  // namespace twin

#endif  // MISHGRAD_TWIN_HANDLES_H
