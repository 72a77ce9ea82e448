// The shared contract (common/mish_grad_contract.h) called directly, for tests/test_acl_hostile.py:
// shapes that the twin's aclCreateTensor already refuses can still reach CANN's adapter, which
// relies on the contract's own checked element counts.
#include <cstdint>
#include <cstring>
#include <vector>

#include "../../kernel/mish_grad/common/mish_grad_contract.h"

// CheckMishBackward with one float32 shape for all three tensors; its status, and its message
// copied into `message`.
extern "C" int32_t contract_status(const int64_t* dims, uint64_t rank, char* message, uint64_t capacity)
{
    const mishgrad::TensorInfo tensor{true, mishgrad::kDtFloat, std::vector<int64_t>(dims, dims + rank)};
    const mishgrad::ContractResult result = mishgrad::CheckMishBackward(tensor, tensor, tensor);
    std::strncpy(message, result.message.c_str(), capacity - 1);
    message[capacity - 1] = '\0';
    return result.status;
}
