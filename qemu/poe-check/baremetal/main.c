// SPDX-License-Identifier: GPL-2.0
/*
 * Bare-metal check of QEMU's FEAT_S1POE model (issue 15), run at EL1 of
 * qemu-system-aarch64 -M virt -cpu max: every POR_ELx permission value
 * against EL0 and EL1 reads, writes and instruction fetches, LDTR/STTR,
 * the enables and the syndrome, with expectations written from the
 * Arm ARM (DDI 0487, D8.4.1.4 "Stage 1 Overlay permissions"):
 *  - the overlay field of a page is POR_ELx[4*POIndex+3 : 4*POIndex],
 *    POIndex = descriptor bits [62:60]; POR_EL0 for unprivileged accesses
 *    (EL0, LDTR/STTR at EL1), POR_EL1 for privileged ones (R_BXJBV);
 *  - bit 0 permits reads, bit 2 writes, bit 1 execution, 0b1xxx is
 *    reserved and means no access (table D8-74); the overlay only removes
 *    base permissions (R_PGLZR);
 *  - TCR2_EL1.E0POE and .POE enable the two overlays (R_GDVJK, R_DPZHF);
 *  - a removed access is a stage 1 Permission fault (FSC 0b001111 at level
 *    3) with ISS2.Overlay, ESR bit 38, set (R_RPXZR);
 *  - POR_ELx and the enables are not cached in a TLB (I_SKPNZ, I_KPGBV):
 *    each case first fills the TLB with an allowed access, then changes
 *    the register with no TLB maintenance, then checks.
 * Prints "ok"/"not ok" lines and "N passed, N failed", then powers off.
 */
#include <stdint.h>

#define UART ((volatile uint32_t *)0x09000000)

extern long attempt(void (*fn)(void *), void *arg, int el0);
extern void el0_load(void *), el0_store(void *), el0_exec(void *);
extern void el1_load(void *), el1_store(void *), el1_exec(void *);
extern void el1_ldtr(void *), el1_sttr(void *), read_mmfr3(void *);
extern volatile uint64_t last_esr, last_far;
extern char test_pages[];

static uint64_t l1[512] __attribute__((aligned(4096)));
static uint64_t l2[512] __attribute__((aligned(4096)));
static uint64_t l3[512] __attribute__((aligned(4096)));
static int passed, failed;

#define SYSREG_W(name, v) asm volatile("msr " name ", %0\n\tisb" : : "r"((uint64_t)(v)) : "memory")
#define SYSREG_R(name) ({ uint64_t _v; asm volatile("mrs %0, " name : "=r"(_v)); _v; })
#define POR_EL0 "S3_3_C10_C2_4"
#define POR_EL1 "S3_0_C10_C2_4"
#define TCR2_EL1 "S3_0_C2_C0_3"
#define TCR2_E0POE (1ull << 2)
#define TCR2_POE (1ull << 3)

static void putc_(char c)
{
	while (UART[0x18 / 4] & (1 << 5))
		;
	UART[0] = c;
}

static void puts_(const char *s)
{
	while (*s)
		putc_(*s++);
}

static void putnum(uint64_t v, int base)
{
	char b[24];
	int i = 0;

	if (base == 16)
		puts_("0x");
	do {
		b[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (i)
		putc_(b[--i]);
}

static void check(int ok, const char *what, int perm, const char *detail,
		  uint64_t esr)
{
	puts_(ok ? "ok " : "not ok ");
	putnum(passed + failed + 1, 10);
	puts_(" - ");
	puts_(what);
	if (perm >= 0) {
		puts_(" perm ");
		putnum(perm, 16);
	}
	puts_(": ");
	puts_(detail);
	if (esr) {
		puts_(" (ESR ");
		putnum(esr, 16);
		puts_(")");
	}
	puts_("\n");
	if (ok)
		passed++;
	else
		failed++;
}

#define PAGE_U (test_pages)		/* EL0 and EL1 RW, EL0 X; POIndex 1 */
#define PAGE_K (test_pages + 4096)	/* EL1 RWX, no EL0 access; POIndex 1 */
/* data accesses go past the RET at the start of each page */
#define U_DATA (PAGE_U + 64)
#define K_DATA (PAGE_K + 64)

static void setup_mmu(void)
{
	uint64_t normal = (1 << 2) | (3 << 8) | (1 << 10);	/* attr1, ISH, AF */
	uint64_t po1 = 1ull << 60;

	l1[0] = 0x00000000 | (1 << 10) | (1ull << 53) | (1ull << 54) | 1;
	l1[1] = (uint64_t)l2 | 3;
	l2[0] = 0x40000000 | normal | 1;		/* code, data, stacks */
	l2[1] = (uint64_t)l3 | 3;
	l3[0] = (uint64_t)PAGE_U | normal | (1 << 6) | po1 | 3;
	l3[1] = (uint64_t)PAGE_K | normal | (1ull << 54) | po1 | 3;

	SYSREG_W("mair_el1", 0xff00);
	SYSREG_W("tcr_el1", 25 | (1 << 8) | (1 << 10) | (3 << 12) |
		 (1 << 23) | (2ull << 32));
	SYSREG_W("ttbr0_el1", (uint64_t)l1);
	SYSREG_W("cpacr_el1", 3 << 20);
	asm volatile("dsb sy; tlbi vmalle1; dsb sy; isb");
	/* M, C, I, SPAN (PSTATE.PAN untouched by exceptions), RES1 bits */
	SYSREG_W("sctlr_el1", (1 << 0) | (1 << 2) | (1 << 12) | (1 << 23) |
		 (1 << 11) | (1 << 20) | (1 << 22) | (1 << 28) | (1 << 29));
}

static uint64_t por(int perm)	/* index 0 RWX (everything else), index 1 perm */
{
	return 0x7 | ((uint64_t)perm << 4);
}

/* One access; check success or the fault it should have been. */
static void try(const char *what, void (*fn)(void *), void *addr, int el0,
		int perm, int allowed, int exec)
{
	long f;
	uint64_t esr, ec, want_ec;

	last_esr = 0;
	f = attempt(fn, addr, el0);
	esr = last_esr;
	if (!f || !allowed) {
		check(f == !allowed, what, perm, f ? "faults" : "succeeds",
		      f ? esr : 0);
	} else {
		check(0, what, perm, "faults, should succeed", esr);
		return;
	}
	if (!f)
		return;
	ec = (esr >> 26) & 0x3f;
	want_ec = (exec ? 0x20 : 0x24) | (el0 ? 0 : 1);
	check(ec == want_ec && (esr & 0x3f) == 0x0f && ((esr >> 38) & 1) &&
	      last_far == (uint64_t)addr, what, perm,
	      "Permission fault, level 3, ISS2.Overlay, FAR", esr);
}

static void prime(void)
{
	/* Fill the TLB with RWX entries for both pages. */
	SYSREG_W(POR_EL0, 0x77);
	SYSREG_W(POR_EL1, 0x77);
	if (attempt(el0_load, U_DATA, 1) || attempt(el1_load, K_DATA, 0) ||
	    attempt(el1_exec, PAGE_K, 0) || attempt(el0_exec, PAGE_U, 1))
		check(0, "priming", -1, "RWX access faulted", last_esr);
}

int main(void)
{
	static const int perms[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 15 };
	uint64_t mmfr3 = 0;
	unsigned int i;

	puts_("poe-baremetal: start\n");
	if (attempt(read_mmfr3, &mmfr3, 0) || ((mmfr3 >> 16) & 0xf) == 0) {
		puts_("poe-baremetal: ID_AA64MMFR3_EL1.S1POE is 0: no FEAT_S1POE\n");
		puts_("0 passed, 1 failed\n");
		return 1;
	}
	setup_mmu();
	((uint32_t *)PAGE_U)[0] = 0xd65f03c0;	/* ret */
	((uint32_t *)PAGE_K)[0] = 0xd65f03c0;
	asm volatile("dc cvau, %0; dc cvau, %1; dsb ish; ic iallu; dsb ish; isb"
		     : : "r"(PAGE_U), "r"(PAGE_K) : "memory");
	/* POR_ELx reset to UNKNOWN values: set them before the enables. */
	SYSREG_W(POR_EL0, 0x77);
	SYSREG_W(POR_EL1, 0x77);
	SYSREG_W(TCR2_EL1, TCR2_POE | TCR2_E0POE);

	for (i = 0; i < sizeof(perms) / sizeof(perms[0]); i++) {
		int p = perms[i], ok = p < 8;
		int r = ok && (p & 1), w = ok && (p & 4), x = ok && (p & 2);

		prime();
		SYSREG_W(POR_EL0, por(p));
		try("EL0 LDR", el0_load, U_DATA, 1, p, r, 0);
		try("EL0 STR", el0_store, U_DATA, 1, p, w, 0);
		try("EL0 exec", el0_exec, PAGE_U, 1, p, x, 1);
		/* LDTR/STTR at EL1 are unprivileged: POR_EL0, not POR_EL1 */
		try("EL1 LDTR", el1_ldtr, U_DATA, 0, p, r, 0);
		try("EL1 STTR", el1_sttr, U_DATA, 0, p, w, 0);

		prime();
		SYSREG_W(POR_EL1, por(p));
		try("EL1 LDR", el1_load, K_DATA, 0, p, r, 0);
		try("EL1 STR", el1_store, K_DATA, 0, p, w, 0);
		try("EL1 exec", el1_exec, PAGE_K, 0, p, x, 1);
		/* privileged access to an EL0 page: POR_EL1 */
		try("EL1 LDR of EL0 page", el1_load, U_DATA, 0, p, r, 0);
		/* ... and POR_EL1 does not govern unprivileged accesses */
		try("EL1 LDTR under POR_EL1", el1_ldtr, U_DATA, 0, p, 1, 0);
		try("EL0 LDR under POR_EL1", el0_load, U_DATA, 1, p, 1, 0);
	}

	/* The enables, switched with the TLB full. */
	prime();
	SYSREG_W(POR_EL0, por(0));
	SYSREG_W(POR_EL1, por(0));
	SYSREG_W(TCR2_EL1, TCR2_E0POE);
	try("TCR2_EL1.POE=0: EL1 LDR", el1_load, K_DATA, 0, 0, 1, 0);
	try("TCR2_EL1.POE=0: EL0 LDR", el0_load, U_DATA, 1, 0, 0, 0);
	SYSREG_W(TCR2_EL1, TCR2_POE);
	try("TCR2_EL1.E0POE=0: EL0 LDR", el0_load, U_DATA, 1, 0, 1, 0);
	try("TCR2_EL1.E0POE=0: EL1 LDR", el1_load, K_DATA, 0, 0, 0, 0);
	SYSREG_W(TCR2_EL1, 0);
	try("TCR2_EL1=0: EL0 LDR", el0_load, U_DATA, 1, 0, 1, 0);
	try("TCR2_EL1=0: EL1 exec", el1_exec, PAGE_K, 0, 0, 1, 1);
	SYSREG_W(TCR2_EL1, TCR2_POE | TCR2_E0POE);

	puts_("poe-baremetal: ");
	putnum(passed, 10);
	puts_(" passed, ");
	putnum(failed, 10);
	puts_(" failed\n");
	return 0;
}
