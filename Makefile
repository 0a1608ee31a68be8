# Build, boot, test and measure the hardening series for Linux 6.1.
# See README.md.  Everything lands under build/ (git-ignored).

ARCH ?= x86_64


.PHONY: distro-check run test bench bench-check insn-trace insn-profile bisect-check topic-check check tree export check-exported deps clean distclean help qemu poe-check

help:
	@echo "make run [ARCH=x86_64|arm64] [VARIANT=kasan|scratch]"
	@echo "                               build, boot and test one architecture (or its"
	@echo "                               control kernel, configs/control-ARCH-VARIANT.config);"
	@echo "                               arm64 boots on our QEMU (make qemu) when it is built"
	@echo "make test                      everything CI checks (host checks, both arches)"
	@echo "make distro-check [ARCH=x86_64|arm64] [FLAVOUR=none|rt]"
	@echo "                               the series in Debian's own configuration, booted"
	@echo "                               through UEFI with disk, swap and network I/O"
	@echo "                               (arm64: on Debian's QEMU and on ours, POE enforced)"
	@echo "make bench [ARCH=...] [ACCEL=kvm] overhead tables, base against patched"
	@echo "make bench-check [REV=HEAD] [ARCH=...] [BASE_ONLY=1]  the tables of bench/RESULTS.md against those committed at REV, cell by cell"
	@echo "make insn-trace ARCH=... CALL=madvise VMAS=32 [STATE=sealed]"
	@echo "                               per-function instructions of one call, base against patched"
	@echo "make insn-profile ARCH=arm64 RUN='pgtable_bench --only vmalloc'"
	@echo "                               per-function instructions of a whole bench program"
	@echo "                               run, base against patched, counted by a QEMU plugin"
	@echo "make bisect-check [ARCH=...] [FROM=N] [TO=M] [RECHECK=1]"
	@echo "                               build and boot every patch of the series (or patches"
	@echo "                               N..M, 1-based) on its own"
	@echo "make topic-check [ARCH=...] [TOPICS='id ...'] [RECHECK=1]"
	@echo "                               build and boot every topic of the series"
	@echo "                               (scripts/topics) on the base with only its prerequisites"
	@echo "make tree [FORCE=1]            create/refresh build/linux from patches/"
	@echo "make export                    write build/linux commits to patches/"
	@echo "make check-exported            fail if build/linux has unexported work"
	@echo "make check                     host checks only (apply, checkpatch, harness tests)"
	@echo "make deps                      install the Debian packages needed"
	@echo "make qemu [QEMU_SRC=tarball]   build QEMU 9.0.1 + qemu/patches (arm64 POE), cached"
	@echo "make poe-check                 check our QEMU's POE: Linux 6.12 pkey tests, bare metal"
	@echo "make clean                     remove kernel builds and logs, keep build/linux"

# arm64 on our QEMU with FEAT_S1POE when make qemu has built it.
run: deps tree
	@if [ "$(ARCH)" = arm64 ] && [ -z "$$QEMU_ARM64" ] && \
		q=$$(scripts/qemu.sh --print 2>/dev/null); then export QEMU_ARM64=$$q; fi; \
	RUN_VARIANT=$(VARIANT) scripts/run-arch.sh $(ARCH)

test: deps
	@scripts/test.sh

distro-check: deps tree
	@scripts/distro-check.sh $(ARCH) $(or $(FLAVOUR),none)

bench: deps tree
	@scripts/bench.sh $(ARCH)

# After a make bench: did it reproduce the figures committed at REV?
bench-check:
	@git show $(or $(REV),HEAD):bench/RESULTS.md > build/RESULTS.committed.md
	@python3 scripts/bench-check.py build/RESULTS.committed.md bench/RESULTS.md \
		$(if $(filter command line environment,$(origin ARCH)),--arch $(ARCH)) $(if $(BASE_ONLY),--base-only)

insn-trace: deps tree
	@scripts/deps.sh gdb-multiarch
	@scripts/insn-trace.sh $(ARCH) $(CALL) $(VMAS) $(STATE)

insn-profile: qemu tree
	@scripts/insn-profile.sh $(ARCH) $(RUN)

bisect-check: deps tree
	@BISECT_FROM=$(FROM) BISECT_TO=$(TO) CHECK_FORCE=$(RECHECK) scripts/bisect-check.sh $(ARCH)

topic-check: deps tree
	@TOPICS="$(TOPICS)" CHECK_FORCE=$(RECHECK) scripts/topic-check.sh $(ARCH)

check: deps
	@mkdir -p build && : > build/host-results.txt && scripts/host-checks.sh build/host-results.txt; \
	! grep -q '^FAIL' build/host-results.txt

tree: deps
	@scripts/tree.sh $(if $(FORCE),--force)

export:
	@scripts/export.sh

check-exported:
	@scripts/check-exported.sh

deps:
	@scripts/deps.sh

# Our QEMU with FEAT_S1POE (issue 15); cached outside the clone.
qemu: deps
	@scripts/qemu.sh >/dev/null

poe-check: qemu
	@scripts/poe-check.sh

clean:
	rm -rf build/x86_64 build/arm64 build/logs build/bench build/results.txt

# Also drops build/linux, but never unexported work.
distclean:
	@scripts/check-exported.sh
	rm -rf build
