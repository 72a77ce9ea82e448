#!/usr/bin/env bash
# Installs the Debian packages a make target needs, once the target found them missing: as
# root with apt-get, else through sudo if it asks for no password; otherwise it stops and says
# what is missing. A target checks first and calls this only then, so a machine that has
# everything (an NPU runner's image, for one) never runs apt-get or sudo.
#
#   bash tools/install_missing.sh WHAT PACKAGE...
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: bash tools/install_missing.sh WHAT PACKAGE..." >&2
    exit 2
fi
what="$1"
shift
as=()  # the command's prefix: nothing as root, sudo -n otherwise
reason=""
if ! command -v apt-get >/dev/null; then
    reason="this system has no apt-get"
elif [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        as=(sudo -n)
    else
        reason="not root, and sudo is missing or asks for a password"
    fi
fi
if [[ -n "$reason" ]]; then
    echo "missing: $what. It cannot be installed here ($reason): install Debian's $* or" \
        "your system's equivalent (on a CI runner, the runner image should have it)" >&2
    exit 1
fi
echo "missing: $what; installing Debian's $* with apt-get" >&2
"${as[@]}" apt-get update -q
"${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
