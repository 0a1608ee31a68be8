#!/bin/bash
# Check our QEMU's model of arm64 POE (FEAT_S1POE, qemu/patches) against
# code we did not write and against the architecture (issue 15):
#
#  1. upstream Linux 6.12 for arm64 (Debian's linux-source-6.12), tinyconfig
#     + configs/common.config + configs/arm64.config + CONFIG_ARM64_POE,
#     built out of tree in build/poe-6.12/, boots on our QEMU (-M virt
#     -cpu max) and reports POE (hwcap "poe");
#  2. its selftest tools/testing/selftests/mm/protection_keys passes there
#     ("done (all tests OK)"); pkey_sighandler_tests is built too if
#     6.12 can build it for arm64 (it cannot: no syscall_raw() for arm64);
#  3. qemu/poe-check/poe_matrix: every POR_EL0 value against EL0 read,
#     write, execute and kernel LDTR/STTR, with the signal and ESR;
#  4. qemu/poe-check/baremetal: every POR_EL0/POR_EL1 value against EL0
#     and EL1 accesses, at EL1 with no kernel;
#  5. the same kernel, programs and bare-metal test on Debian's stock
#     qemu-system-aarch64, which has no POE: protection_keys must report
#     "has pkeys: 0", poe_matrix must find no pkeys, the bare-metal test
#     must find no FEAT_S1POE.
#
# Prints PASS/FAIL per step and "N passed, N failed"; exits non-zero on a
# failure.  The result is cached in build/poe-6.12/ by the hashes of our
# QEMU binary, the stock QEMU binary, the kernel image, the initramfs and
# the bare-metal image: a rerun with nothing changed prints the cached
# result.  Usage: poe-check.sh [--force]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/poe-6.12
SRC=$OUT/src
OBJ=$OUT/obj
HDR=$OUT/hdr
CHECK=$ROOT/qemu/poe-check
CROSS=aarch64-linux-gnu-
force=${1:-}

mkdir -p "$OUT"
ours=$("$ROOT/scripts/qemu.sh" --print)
stock=$(command -v qemu-system-aarch64) || die "Debian's qemu-system-aarch64 is missing: run 'make deps'"

# --- Linux 6.12 ------------------------------------------------------------
if [ ! -f "$SRC/Makefile" ]; then
	[ -f "$UPSTREAM_TARBALL" ] || die "$UPSTREAM_TARBALL missing: run 'make deps'"
	info "extracting $UPSTREAM_TARBALL into ${SRC#"$ROOT"/}"
	rm -rf "$SRC" "$OUT/linux-source-6.12"
	tar -xJf "$UPSTREAM_TARBALL" -C "$OUT"
	mv "$OUT/linux-source-6.12" "$SRC"
fi
kmake() {
	nice -n 15 make -C "$SRC" O="$OBJ" ARCH=arm64 CROSS_COMPILE=$CROSS "$@"
}
mkdir -p "$OBJ"
cfg=$OUT/config.new
KCONFIG_CONFIG=$cfg kmake -s tinyconfig >/dev/null
(cd "$OUT" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$cfg" \
	"$ROOT/configs/common.config" "$ROOT/configs/arm64.config" \
	"$CHECK/poe-6.12.config" >/dev/null)
mv "$OUT/.config" "$cfg"
KCONFIG_CONFIG=$cfg kmake -s olddefconfig >/dev/null
grep -qx 'CONFIG_ARM64_POE=y' "$cfg" || die "CONFIG_ARM64_POE did not survive Kconfig; see $cfg"
cmp -s "$cfg" "$OBJ/.config" || cp "$cfg" "$OBJ/.config"
info "building Linux 6.12 arm64 with CONFIG_ARM64_POE in ${OBJ#"$ROOT"/} (log: ${OUT#"$ROOT"/}/build.log)"
start=$(date +%s)
kmake -j"$(nproc)" Image >"$OUT/build.log" 2>&1 || die "Linux 6.12 build failed; see $OUT/build.log"
info "kernel ready in $(($(date +%s) - start)) s"
image=$OBJ/arch/arm64/boot/Image
[ -d "$HDR/include/asm" ] && [ "$HDR/include/asm" -nt "$SRC/Makefile" ] ||
	kmake -s headers_install INSTALL_HDR_PATH="$HDR" >/dev/null

# --- guest programs and the initramfs ---------------------------------------
root=$OUT/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/dev"
# protection_keys reads /etc/passwd (get_test_read_fd()).
guest_etc "$root" </dev/null
cc="nice -n 15 ${CROSS}gcc -static -O2 -Wall"
mm=$SRC/tools/testing/selftests/mm
$cc -o "$root/init" "$CHECK/init.c"
$cc -isystem "$HDR/include" -o "$root/bin/poe_matrix" "$CHECK/poe_matrix.c"
upstream() { # NAME: build an upstream mm selftest as its Makefile does
	(cd "$mm" && $cc -I "$SRC" -isystem "$HDR/include" -isystem "$SRC/tools/include" \
		-U_FORTIFY_SOURCE -no-pie "$1.c" vm_util.c thp_settings.c \
		-lrt -lpthread -o "$root/bin/$1") >"$OUT/$1.build.log" 2>&1
}
upstream protection_keys || die "protection_keys failed to build; see $OUT/protection_keys.build.log"
progs=protection_keys,poe_matrix
sighandler=
if upstream pkey_sighandler_tests; then
	progs=$progs,pkey_sighandler_tests
	sighandler=1
fi
initramfs=$OUT/initramfs.cpio
pack_initramfs "$root" "$initramfs"
baremetal=$OUT/poe-baremetal.elf
$cc -s -ffreestanding -nostdlib -mgeneral-regs-only -fno-pic \
	-Wl,-T,"$CHECK/baremetal/link.ld" -Wl,--build-id=none -Wl,--no-warn-rwx-segments \
	-o "$baremetal" "$CHECK/baremetal/start.S" "$CHECK/baremetal/stubs.S" \
	"$CHECK/baremetal/main.c"

# --- cached result? ---------------------------------------------------------
key=$(cat "$ours" "$stock" "$image" "$initramfs" "$baremetal" "$0" | sha256sum | cut -c1-16)
result=$OUT/result-$key.txt
if [ -f "$result" ] && [ "$force" != --force ]; then
	info "POE check: cached result for these QEMU, kernel and test images ($key)"
	cat "$result"
	! grep -q '^FAIL' "$result"
	exit
fi

# --- runs -------------------------------------------------------------------
boot() { # QEMU LOG: boot the 6.12 kernel with the initramfs
	timeout 900 "$1" -M virt -cpu max -smp 2 -m 1G -nographic -nic none \
		-kernel "$image" -initrd "$initramfs" \
		-append "console=ttyAMA0 panic=-1 poecheck=$progs" \
		-no-reboot </dev/null >"$2" 2>&1 || true
	tr -d '\r' <"$2" >"$2.tmp" && mv "$2.tmp" "$2"
}
bare() { # QEMU LOG
	timeout 120 "$1" -M virt -cpu max -nographic -nic none \
		-kernel "$baremetal" </dev/null >"$2" 2>&1 || true
	tr -d '\r' <"$2" >"$2.tmp" && mv "$2.tmp" "$2"
}
pass=0 fail=0
: >"$result.tmp"
step() { # OK NAME DETAIL
	local v=FAIL
	[ "$1" = 1 ] && v=PASS && pass=$((pass + 1)) || fail=$((fail + 1))
	printf '%s  %-34s %s\n' "$v" "$2" "$3" | tee -a "$result.tmp"
}
yes_if() { "$@" && echo 1 || echo 0; }

logs=$OUT/logs
mkdir -p "$logs"
info "booting Linux 6.12 on our QEMU ($ours); console: ${logs#"$ROOT"/}/ours.log"
t0=$(date +%s)
boot "$ours" "$logs/ours.log"
t_ours=$(($(date +%s) - t0))
info "booting it on Debian's QEMU ($("$stock" --version | head -n1)); console: ${logs#"$ROOT"/}/stock.log"
t0=$(date +%s)
boot "$stock" "$logs/stock.log"
t_stock=$(($(date +%s) - t0))
bare "$ours" "$logs/baremetal-ours.log"
bare "$stock" "$logs/baremetal-stock.log"

o=$logs/ours.log s=$logs/stock.log
step "$(yes_if grep -q '^POECHECK end' "$o")" "ours: 6.12 boots, runs the tests" "$t_ours s"
step "$(yes_if grep -q '^POECHECK hwcap-poe yes' "$o")" "ours: kernel reports POE" \
	"$(grep -o 'hwcap-poe.*' "$o" | head -n1)"
pk_ok=$(yes_if eval 'grep -q "^done (all tests OK)" "$o" && grep -q "^POECHECK exit protection_keys 0$" "$o"')
step "$pk_ok" "ours: protection_keys" \
	"$(grep -c '^test *[0-9]* PASSED' "$o" || true) test runs PASSED, $(grep -o '^done (all tests OK)' "$o" || echo 'not done')"
if [ -n "$sighandler" ]; then
	step "$(yes_if grep -q '^POECHECK exit pkey_sighandler_tests 0$' "$o")" "ours: pkey_sighandler_tests" \
		"$(grep -E '^# Totals|^ok|^not ok' "$o" | tail -n1)"
else
	echo "SKIP  ours: pkey_sighandler_tests        upstream 6.12 does not build it for arm64 (no syscall_raw())" |
		tee -a "$result.tmp"
fi
m=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$o" | tail -n1)
step "$(yes_if eval 'grep -q "^POECHECK exit poe_matrix 0$" "$o" && [[ "$m" == *" 0 failed" ]]')" \
	"ours: poe_matrix (EL0, POR_EL0)" "${m:-no result}"
b=$(grep -E 'passed, [0-9]+ failed' "$logs/baremetal-ours.log" | tail -n1)
step "$(yes_if eval '[[ "$b" == "poe-baremetal: "*" 0 failed" ]] && [[ "$b" != "poe-baremetal: 0 passed"* ]]')" \
	"ours: bare-metal EL0/EL1 matrix" "${b:-no result}"

step "$(yes_if grep -q '^POECHECK end' "$s")" "stock: 6.12 boots, runs the tests" "$t_stock s"
step "$(yes_if grep -q '^POECHECK hwcap-poe no' "$s")" "stock: kernel reports no POE" \
	"$(grep -o 'hwcap-poe.*' "$s" | head -n1)"
step "$(yes_if eval 'grep -q "^has pkeys: 0" "$s" && grep -q "running PKEY tests for unsupported CPU/OS" "$s"')" \
	"stock: protection_keys: unsupported" "$(grep -E '^has pkeys' "$s" | head -n1)"
step "$(yes_if grep -q 'poe_matrix: pkey_alloc failed' "$s")" "stock: poe_matrix finds no pkeys" \
	"$(grep -o 'pkey_alloc failed.*' "$s" | head -n1)"
step "$(yes_if grep -q 'no FEAT_S1POE' "$logs/baremetal-stock.log")" "stock: bare-metal finds no S1POE" \
	"$(grep -o 'ID_AA64MMFR3_EL1.*' "$logs/baremetal-stock.log" | head -n1)"

echo "poe-check: $pass passed, $fail failed" | tee -a "$result.tmp"
mv "$result.tmp" "$result"
[ "$fail" = 0 ]
