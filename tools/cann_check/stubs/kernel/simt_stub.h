// NOT CANN: stands in for tikicpulib's simt_stub.h (`make cann-check` only). It serves the
// SIMT API, which the vector-core kernel of MishGrad does not use, so it is empty.
