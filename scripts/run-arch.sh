#!/bin/bash
# Configure, build, boot and judge the test kernel for one architecture.
#
# Usage: run-arch.sh ARCH [RESULTS_FILE]
# Prints a summary; appends one line per result to RESULTS_FILE when given.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64} results=${2:-}
arch_vars "$arch"
out=$BUILD/$arch
start=$(date +%s)

"$ROOT/scripts/configure.sh" "$arch" test patched "$out"
"$ROOT/scripts/build.sh" "$arch" "$out"
"$ROOT/scripts/guest.sh" "$arch" "$out"
"$ROOT/scripts/manifest.sh" expect "$arch" > "$out/expected"

limit=${BOOT_TIMEOUT:-1500}
info "booting $arch under QEMU (TCG), limit $limit s"
set +e
log=$("$ROOT/scripts/boot.sh" "$arch" "$out" --timeout "$limit")
qs=$?
set -e

npatches=$(git -C "$KSRC" rev-list --count base..HEAD)
release=$(cat "$out/include/config/kernel.release" 2>/dev/null || echo '?')
echo
echo "$arch: Linux $release = Debian $BASE_PKG $(base_version) + $npatches patch(es) of patches/series" \
	"[HEAD $(git -C "$KSRC" log -1 --format='%h %s' | cut -c1-60)]"
echo "  console: ${log#"$ROOT"/}  (boot took $(( $(date +%s) - start )) s with build)"
set +e
python3 "$ROOT/scripts/verdict.py" --arch "$arch" --expect "$out/expected" \
	--qemu-status "$qs" --timeout "$limit" ${results:+--results "$results"} "$log"
