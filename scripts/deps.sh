#!/bin/bash
# Install the Debian packages the harness needs, from Debian's archive only:
# those of every architecture (scripts/arches), those that build our QEMU
# (make qemu: ninja-build ... libslirp-dev), the UEFI firmware and disk
# tools of make distro-check, and PACKAGES (make insn-trace:
# gdb-multiarch).  Without root (and without password-less
# sudo) print the command and stop.
#
# Usage: deps.sh [PACKAGES...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs="linux-source-6.1 linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
cpio xz-utils rsync git python3 perl python3-ply python3-git ccache
ninja-build pkg-config python3-venv libglib2.0-dev libpixman-1-dev libfdt-dev libslirp-dev
e2fsprogs ovmf qemu-efi-aarch64 $*"
for arch in $(arches); do
	arch_vars "$arch"
	pkgs="$pkgs ${PKGS//,/ }"
done

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

cmd="apt-get update && apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
	sudo=
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
	sudo="sudo -n"
else
	echo "Missing Debian packages:$missing" >&2
	echo "Install them as root with:" >&2
	echo "    $cmd" >&2
	exit 1
fi
info "installing:$missing"
$sudo apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	die "apt-get install failed; run by hand: $cmd"
