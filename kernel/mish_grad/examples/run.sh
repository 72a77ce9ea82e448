#!/usr/bin/env bash
# Build test_aclnn_mish_grad.cpp against CANN and run it on an Ascend NPU.
#
#   bash kernel/mish_grad/examples/run.sh
#
# The same source runs on the CPU twin with `make example` (from the repository root).
#
# UNTESTED ON AN ASCEND HOST: this script has never run against a real CANN (the project's
# machines have no NPU and no CANN). tests/test_example.py checks only its syntax, its
# messages when CANN is missing, and its choice of headers and libraries on a stand-in CANN
# tree built from the CPU twin. Please report what breaks on a real host.
#
# Where things come from (CANN 8.x layout):
#   environment  $ASCEND_HOME_PATH if set (set_env.sh already sourced), else $CANN_SET_ENV if
#                set, else the first of /usr/local/Ascend/cann/set_env.sh and
#                /usr/local/Ascend/ascend-toolkit/set_env.sh (sourced with `set -u` off: it reads
#                variables that may be unset)
#   operator     this repository's package (ops-nn vendor mishgrad_nn, kernel/mish_grad/README.md), found
#                by `python3 -m tools.resolve` (the resolver the Python helper uses):
#                installed privately with --install-path=$MISHGRAD_OPP_PATH (default build/opp),
#                or by any other route of ops-nn's installer; without it the script stops and
#                says how to build and install it. The program runs with the package first on
#                its own ASCEND_CUSTOM_OPP_PATH, so CANN gives it, and no other process, our
#                kernel. MISHGRAD_BACKEND=ascend-builtin chooses CANN's built-in operator and
#                kernel instead (include/aclnnop, libopapi_nn.so; older CANN libopapi.so), with
#                the package kept off that path: never a fallback.
#   libraries    libascendcl (runtime), libnnopbase (aclCreateTensor) and the op library
#   proof        the dynamic linker's own report (LD_DEBUG=bindings) of the file that served
#                aclnnMishBackward is printed after the run; which kernel ran, from the stamp
#                our kernel leaves in its workspace (the program's `kernel:` line, given the
#                identity of this checkout's kernel sources, `python3 -m tools.identity`),
#                must be this build for ascend and none of ours for ascend-builtin (inferred to be
#                CANN's: the stamp's absence proves no more), or the script fails
#   binary       build/examples/test_aclnn_mish_grad_cann (or under $MISHGRAD_BUILD_DIR)
#   compiler     $CXX, default g++; it may carry arguments (CXX="ccache g++", "g++ -O0")
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
source_file="$here/test_aclnn_mish_grad.cpp"
build_dir="${MISHGRAD_BUILD_DIR:-$repo/build/examples}"
binary="$build_dir/test_aclnn_mish_grad_cann"
read -r -a cxx <<< "${CXX:-g++}"  # the command and its arguments, split at blanks

die() {
    echo "run.sh: $*" >&2
    exit 1
}

# --- CANN's environment --------------------------------------------------------------------
if [[ -n "${ASCEND_HOME_PATH:-}" ]]; then
    [[ -d "$ASCEND_HOME_PATH" ]] || die "ASCEND_HOME_PATH=$ASCEND_HOME_PATH is not a directory"
    echo "run.sh: using the CANN environment already set up (ASCEND_HOME_PATH=$ASCEND_HOME_PATH)"
else
    [[ -z "${CANN_SET_ENV:-}" || -f "$CANN_SET_ENV" ]] || die "CANN_SET_ENV=$CANN_SET_ENV is not a file"
    set_env=""
    for candidate in ${CANN_SET_ENV:+"$CANN_SET_ENV"} /usr/local/Ascend/cann/set_env.sh \
        /usr/local/Ascend/ascend-toolkit/set_env.sh; do
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
command -v "${cxx[0]:-}" >/dev/null || die "no C++ compiler '${CXX:-g++}' (install g++ or set CXX)"

# --- The operator: this repository's package, or CANN's built-in one when asked for --------
# One resolver for this script, the Python helper and the workflow (mishgrad/kernel/installed.py):
# where the package is, and the ASCEND_CUSTOM_OPP_PATH that gives this program, and no other,
# the kernel it asked for.
kind="${MISHGRAD_BACKEND:-ascend}"
[[ "$kind" == ascend || "$kind" == ascend-builtin ]] ||
    die "MISHGRAD_BACKEND must be ascend or ascend-builtin here, not $kind"
command -v python3 >/dev/null || die "python3 is needed to find the operator's package"
resolved="$(PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" python3 -m tools.resolve "$kind")" ||
    die "MISHGRAD_BACKEND=$kind cannot run here (above: why, and what to do)"
vendor="" custom_opp=""
while IFS='=' read -r key value; do
    case "$key" in
    vendor) vendor="$value" ;;
    ascend_custom_opp_path) custom_opp="$value" ;;
    esac
done <<<"$resolved"
if [[ "$kind" == ascend-builtin ]]; then
    op_include="$cann/include/aclnnop"
    op_lib_dir=""
    for candidate in "$cann/lib64/libopapi_nn.so" "$cann/opp/lib64/libopapi_nn.so" "$cann/lib64/libopapi.so"; do
        if [[ -f "$candidate" ]]; then
            op_lib_dir="$(dirname "$candidate")"
            op_lib="$(basename "$candidate" .so)"
            op_lib="${op_lib#lib}"
            break
        fi
    done
    [[ -n "$op_lib_dir" && -f "$op_include/aclnn_mish_backward.h" ]] ||
        die "MISHGRAD_BACKEND=ascend-builtin: CANN's built-in operator (libopapi_nn.so and
  include/aclnnop/aclnn_mish_backward.h under $cann) is not installed"
else
    op_include="$vendor/op_api/include"
    op_lib_dir="$vendor/op_api/lib"
    op_lib="cust_opapi"
    echo "run.sh: this repository's package from $vendor"
fi
echo "run.sh: operator header from $op_include"
echo "run.sh: operator library lib$op_lib.so from $op_lib_dir"

# --- Build and run -------------------------------------------------------------------------
mkdir -p "$build_dir"
# No -Werror here: CANN's own headers are not ours to keep warning-free. At run time CANN's
# libraries are found through the LD_LIBRARY_PATH that set_env.sh sets; the rpath finds the
# operator library even if the vendor's directory is not on it.
"${cxx[@]}" -std=c++17 -O2 -Wall -Wextra \
    -I"$cann/include" -I"$op_include" \
    "$source_file" -o "$binary" \
    -L"$cann/lib64" -L"$op_lib_dir" -Wl,-rpath,"$op_lib_dir" \
    -l"$op_lib" -lnnopbase -lascendcl
echo "run.sh: built $binary"
# The kernel: nnopbase reads ASCEND_CUSTOM_OPP_PATH once per process, so this program alone
# runs with the value the resolver gave (unset when empty). The dynamic linker reports each
# symbol binding into LD_DEBUG_OUTPUT.<pid>; keep the one for the API.
if [[ -n "$custom_opp" ]]; then
    run_env=(env ASCEND_CUSTOM_OPP_PATH="$custom_opp")
else
    run_env=(env -u ASCEND_CUSTOM_OPP_PATH)
fi
# The sources the stamp must name: this checkout's (the command also writes the kernel's
# identity header here, as every build does).
identity="$(PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" python3 -m tools.identity "$repo/kernel/mish_grad")" ||
    die "cannot hash the kernel's sources in $repo/kernel/mish_grad (above: why)"
rm -f "$build_dir"/bindings.*  # a report an earlier, interrupted run left
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$build_dir/bindings" "${run_env[@]}" "$binary" "$identity" | tee "$build_dir/output.txt"
# The first binding of the API, found by one awk that stops there: no pipeline, which under
# pipefail would fail the script after a good run where no line matches (grep's status 1) or
# where head closes the pipe early (SIGPIPE). Without a report, the file stays unknown.
bindings=("$build_dir"/bindings.*)
served=""
if [[ -e "${bindings[0]}" ]]; then
    symbol="normal symbol \`aclnnMishBackward'"
    served="$(awk -v symbol="$symbol" 'index($0, symbol) { sub(/.* to /, ""); sub(/ .*/, ""); print; exit }' \
        "${bindings[@]}")"
fi
rm -f "${bindings[@]}"
# Which kernel ran: the example reads the stamp our kernel leaves in its workspace.
expected="kernel: this build of this repository's"
[[ "$kind" == ascend-builtin ]] && expected="kernel: not this repository's"
grep -q "^$expected" "$build_dir/output.txt" ||
    die "MISHGRAD_BACKEND=$kind, but the program reports $(grep '^kernel:' "$build_dir/output.txt" || echo 'no kernel line')"
echo "run.sh: aclnnMishBackward served by ${served:-(unknown)}"
