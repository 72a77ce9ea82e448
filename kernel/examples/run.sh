#!/usr/bin/env bash
# Build test_aclnn_mish_grad.cpp against CANN and run it on an Ascend NPU.
#
#   bash kernel/examples/run.sh
#
# The same source runs on the CPU twin with `make example` (from the repository root).
#
# UNTESTED ON AN ASCEND HOST: this script has never run against a real CANN (the project's
# machines have no NPU and no CANN). tests/test_example.py checks only its syntax, its
# messages when CANN is missing, and its choice of headers and libraries on a stand-in CANN
# tree built from the CPU twin. Please report what breaks on a real host.
#
# Where things come from (CANN 8.x layout):
#   environment  $ASCEND_HOME_PATH if set (set_env.sh already sourced), else the first of
#                /usr/local/Ascend/cann/set_env.sh and /usr/local/Ascend/ascend-toolkit/set_env.sh
#   headers      $ASCEND_HOME_PATH/include (acl/acl.h, aclnn/aclnn_base.h) and the op's
#                aclnn_mish_backward.h: from an installed custom vendor package
#                ($ASCEND_HOME_PATH/opp/vendors/<vendor>/op_api/include) if one provides it,
#                else CANN's built-in operator headers ($ASCEND_HOME_PATH/include/aclnnop)
#   libraries    libascendcl (runtime), libnnopbase (aclCreateTensor) and the op library:
#                that vendor's libcust_opapi.so if present, else CANN's libopapi.so
#   binary       build/examples/test_aclnn_mish_grad_cann (or under $MISHGRAD_BUILD_DIR)
#   compiler     $CXX, default g++
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_file="$here/test_aclnn_mish_grad.cpp"
build_dir="${MISHGRAD_BUILD_DIR:-$(cd "$here/../.." && pwd)/build/examples}"
binary="$build_dir/test_aclnn_mish_grad_cann"
cxx="${CXX:-g++}"

die() {
    echo "run.sh: $*" >&2
    exit 1
}

# --- CANN's environment --------------------------------------------------------------------
if [[ -n "${ASCEND_HOME_PATH:-}" ]]; then
    [[ -d "$ASCEND_HOME_PATH" ]] || die "ASCEND_HOME_PATH=$ASCEND_HOME_PATH is not a directory"
    echo "run.sh: using the CANN environment already set up (ASCEND_HOME_PATH=$ASCEND_HOME_PATH)"
else
    set_env=""
    for candidate in /usr/local/Ascend/cann/set_env.sh /usr/local/Ascend/ascend-toolkit/set_env.sh; do
        if [[ -f "$candidate" ]]; then
            set_env="$candidate"
            break
        fi
    done
    [[ -n "$set_env" ]] || die "CANN not found: ASCEND_HOME_PATH is not set and neither
  /usr/local/Ascend/cann/set_env.sh nor /usr/local/Ascend/ascend-toolkit/set_env.sh exists.
  Install CANN 8.x (toolkit and ops packages) or source its set_env.sh first.
  Without an NPU, run the same example on the CPU twin: make example"
    echo "run.sh: sourcing $set_env"
    # set_env.sh is not written for `set -eu` (it reads variables that may be unset).
    set +eu
    # shellcheck source=/dev/null
    source "$set_env"
    set -eu
    [[ -n "${ASCEND_HOME_PATH:-}" ]] || die "$set_env did not set ASCEND_HOME_PATH"
fi
cann="$ASCEND_HOME_PATH"
[[ -f "$cann/include/acl/acl.h" ]] || die "no acl/acl.h under $cann/include: is the CANN toolkit installed?"
command -v "$cxx" >/dev/null || die "no C++ compiler '$cxx' (install g++ or set CXX)"

# --- The operator: a custom vendor package that provides aclnnMishBackward, or CANN's own ---
op_include=""
op_lib_dir="$cann/lib64"
op_lib="opapi"
for vendor in "$cann"/opp/vendors/*; do
    if [[ -f "$vendor/op_api/include/aclnn_mish_backward.h" ]]; then
        op_include="$vendor/op_api/include"
        if [[ -f "$vendor/op_api/lib/libcust_opapi.so" ]]; then
            op_lib_dir="$vendor/op_api/lib"
            op_lib="cust_opapi"
        fi
        break
    fi
done
if [[ -z "$op_include" ]]; then
    op_include="$cann/include/aclnnop"
    [[ -f "$op_include/aclnn_mish_backward.h" ]] ||
        die "aclnn_mish_backward.h found neither in a custom vendor package ($cann/opp/vendors/*/op_api/include)
  nor in CANN's operator headers ($op_include): install the ops package or this project's op package"
fi
echo "run.sh: operator header from $op_include"
echo "run.sh: operator library lib$op_lib.so from $op_lib_dir"

# --- Build and run -------------------------------------------------------------------------
mkdir -p "$build_dir"
# No -Werror here: CANN's own headers are not ours to keep warning-free. At run time CANN's
# libraries are found through the LD_LIBRARY_PATH that set_env.sh sets; the rpath finds the
# operator library even if the vendor's directory is not on it.
"$cxx" -std=c++17 -O2 -Wall -Wextra \
    -I"$cann/include" -I"$op_include" \
    "$source_file" -o "$binary" \
    -L"$cann/lib64" -L"$op_lib_dir" -Wl,-rpath,"$op_lib_dir" \
    -l"$op_lib" -lnnopbase -lascendcl
echo "run.sh: built $binary"
"$binary"
