#!/usr/bin/env bash
# CANN's environment for a step of the Ascend workflow (.github/workflows/ascend.yml), which
# sources this file: exactly one CANN's set_env.sh, $CANN_SET_ENV if set, else the first of
# /usr/local/Ascend/cann/set_env.sh and /usr/local/Ascend/ascend-toolkit/set_env.sh that exists.
# Its messages are shown and its failure fails the step: there is no falling back onto the
# other install, whose variables would stack on the first one's. Ends with `set -euo pipefail`.

if [[ -z "${CANN_SET_ENV:-}" ]]; then
    for candidate in /usr/local/Ascend/cann/set_env.sh /usr/local/Ascend/ascend-toolkit/set_env.sh; do
        if [[ -f "$candidate" ]]; then
            CANN_SET_ENV="$candidate"
            break
        fi
    done
fi
if [[ ! -f "${CANN_SET_ENV:-}" ]]; then
    echo "cann_env.sh: no CANN: ${CANN_SET_ENV:-neither /usr/local/Ascend/cann/set_env.sh nor" \
        "/usr/local/Ascend/ascend-toolkit/set_env.sh} is a file (set CANN_SET_ENV to CANN's set_env.sh)" >&2
    exit 1
fi
echo "cann_env.sh: sourcing $CANN_SET_ENV"
# Before `set -u`: CANN's set_env.sh reads variables that may be unset.
# shellcheck source=/dev/null
if ! source "$CANN_SET_ENV"; then
    echo "cann_env.sh: sourcing $CANN_SET_ENV failed (its messages are above)" >&2
    exit 1
fi
if [[ -z "${ASCEND_HOME_PATH:-}" ]]; then
    echo "cann_env.sh: $CANN_SET_ENV did not set ASCEND_HOME_PATH" >&2
    exit 1
fi
set -euo pipefail
