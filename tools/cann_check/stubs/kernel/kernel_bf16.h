// NOT CANN: stands in for tikicpulib's kernel_bf16.h (`make cann-check` only); bfloat16_t is
// declared with half in kernel_fp16.h.
#include "kernel_fp16.h"
