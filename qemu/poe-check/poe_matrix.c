// SPDX-License-Identifier: GPL-2.0
/*
 * poe_matrix: every POR_EL0 permission value against every kind of EL0
 * access, on a kernel with CONFIG_ARM64_POE (issue 15).
 *
 * One page, mapped PROT_READ|PROT_WRITE|PROT_EXEC with a protection key
 * of its own, holds "mov w0, #42; ret".  For each value of that key's
 * 4-bit field of POR_EL0 (0b0000 to 0b0111) the program
 *   - reads the page (LDR), writes it (STR), calls into it (instruction
 *     fetch), and
 *   - has the kernel read it (write() from it into a pipe) and write it
 *     (read() from a pipe into it); the kernel's uaccess routines use
 *     LDTR/STTR, unprivileged accesses that POR_EL0 governs too.
 * Expected, from the Arm ARM (D8.4.1.4, table D8-74): bit 0 of the
 * field permits reads, bit 2 writes, bit 1 execution; a denied access
 * from EL0 is a
 * permission fault that Linux reports as SIGSEGV/SEGV_PKUERR with the
 * page's key, whose ESR (in the signal frame) is a Data Abort (EC 0x24)
 * or Instruction Abort (EC 0x20) from EL0, FSC permission fault at
 * level 3, with ISS2.Overlay (ESR bit 38) set.  A denied kernel access
 * fails with EFAULT.
 *
 * POR_EL0 is written directly (MSR S3_3_C10_C2_4 + ISB), as the upstream
 * selftest's pkey_set() does; every other key stays RWX.
 *
 * Prints one "ok"/"not ok" line per check and "N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <asm/sigcontext.h>

#ifndef SEGV_PKUERR
#define SEGV_PKUERR 4
#endif
#ifndef SYS_pkey_mprotect
#define SYS_pkey_mprotect 288
#define SYS_pkey_alloc 289
#define SYS_pkey_free 290
#endif

static int passed, failed;
static volatile int canary = 1;

static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", passed + failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok)
		passed++;
	else
		failed++;
}

static uint64_t por_read(void)
{
	uint64_t v;

	asm volatile("mrs %0, S3_3_C10_C2_4" : "=r"(v));
	return v;
}

static void por_write(uint64_t v)
{
	asm volatile("msr S3_3_C10_C2_4, %0\n\tisb" : : "r"(v) : "memory");
}

/* POR_EL0 with every key RWX (0b0111) but @pkey, which gets @perm. */
static uint64_t por_with(int pkey, unsigned int perm)
{
	uint64_t v = 0x77777777ull;

	v &= ~(0xfull << (pkey * 4));
	return v | ((uint64_t)perm << (pkey * 4));
}

static sigjmp_buf jb;
static volatile int sig_code, sig_pkey;
static volatile uint64_t sig_esr;
static volatile int have_esr;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct _aarch64_ctx *head = (void *)uc->uc_mcontext.__reserved;

	por_write(0x77777777ull);
	sig_code = si->si_code;
	sig_pkey = si->si_pkey;
	have_esr = 0;
	while (head->magic) {
		if (head->magic == ESR_MAGIC) {
			sig_esr = ((struct esr_context *)head)->esr;
			have_esr = 1;
			break;
		}
		if (head->magic == EXTRA_MAGIC || !head->size)
			break;
		head = (void *)((char *)head + head->size);
	}
	siglongjmp(jb, 1);
}

enum kind { READ, WRITE, EXEC };

/* Run one EL0 access under POR_EL0 @por; return 1 if it faulted. */
static int faults(enum kind k, void *page, uint64_t por)
{
	volatile uint32_t *p = page;
	int (*fn)(void) = page;
	int r = 0;

	sig_code = sig_pkey = -1;
	have_esr = 0;
	if (sigsetjmp(jb, 1))
		return 1;
	por_write(por);
	switch (k) {
	case READ:
		r = p[16];
		break;
	case WRITE:
		p[16] = 0x12345678;
		break;
	case EXEC:
		r = fn();
		break;
	}
	por_write(0x77777777ull);
	if (k == EXEC && r != 42)
		check(0, "exec returned %d, not 42", r);
	(void)r;
	return 0;
}

int main(void)
{
	/*
	 * Not the reserved values 0b1xxx: Linux never sets them (pkey_set()
	 * validates its argument) and its fault handler reads the field's
	 * bits as R/W/X, so an access that such a value denies is retried
	 * for ever.  qemu/poe-check/baremetal checks them.
	 */
	static const unsigned int perms[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const char *const kname[] = { "read", "write", "exec" };
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO | SA_NODEFER };
	long psz = sysconf(_SC_PAGESIZE);
	uint32_t *page;
	int pkey, pipefd[2];
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGSEGV, &sa, NULL);

	pkey = syscall(SYS_pkey_alloc, 0, 0);
	if (pkey < 0) {
		printf("poe_matrix: pkey_alloc failed (%s): no POE\n",
		       strerror(errno));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	printf("poe_matrix: pkey %d, POR_EL0 at start %#llx\n", pkey,
	       (unsigned long long)por_read());

	page = mmap(NULL, psz, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	page[0] = 0x52800540;	/* mov w0, #42 */
	page[1] = 0xd65f03c0;	/* ret */
	__builtin___clear_cache((char *)page, (char *)(page + 2));
	if (syscall(SYS_pkey_mprotect, page, psz,
		    PROT_READ | PROT_WRITE | PROT_EXEC, pkey)) {
		perror("pkey_mprotect");
		return 1;
	}
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}

	for (i = 0; i < sizeof(perms) / sizeof(perms[0]); i++) {
		unsigned int perm = perms[i];
		uint64_t por = por_with(pkey, perm);
		int allow[3] = {
			perm < 8 && (perm & 1),
			perm < 8 && (perm & 4),
			perm < 8 && (perm & 2),
		};
		enum kind k;
		char c = 'x';
		ssize_t n;
		int err;

		por_write(por);
		check(por_read() == por, "perm %#x: POR_EL0 reads back %#llx",
		      perm, (unsigned long long)por_read());
		por_write(0x77777777ull);

		for (k = READ; k <= EXEC; k++) {
			int f = faults(k, page, por);
			uint64_t ec = (sig_esr >> 26) & 0x3f;
			uint64_t fsc = sig_esr & 0x3f;
			int overlay = (sig_esr >> 38) & 1;

			check(f == !allow[k], "perm %#x: EL0 %s %s", perm,
			      kname[k], f ? "faults" : "succeeds");
			if (!f)
				continue;
			check(sig_code == SEGV_PKUERR && sig_pkey == pkey,
			      "perm %#x: EL0 %s: SIGSEGV code %d (want %d), pkey %d (want %d)",
			      perm, kname[k], sig_code, SEGV_PKUERR, sig_pkey,
			      pkey);
			check(have_esr && ec == (k == EXEC ? 0x20 : 0x24) &&
			      fsc == 0x0f && overlay,
			      "perm %#x: EL0 %s: ESR %#llx: EC %#llx, FSC %#llx, ISS2.Overlay %d%s",
			      perm, kname[k], (unsigned long long)sig_esr,
			      (unsigned long long)ec, (unsigned long long)fsc,
			      overlay, have_esr ? "" : " (no esr_context)");
		}

		/* The kernel reads the page with LDTR: write() into a pipe. */
		por_write(por);
		n = write(pipefd[1], (char *)page + 512, 1);
		err = errno;
		por_write(0x77777777ull);
		check(allow[READ] ? n == 1 : (n < 0 && err == EFAULT),
		      "perm %#x: kernel LDTR read %s", perm,
		      n == 1 ? "succeeds" : strerror(err));
		if (n == 1 && read(pipefd[0], &c, 1) != 1)
			check(0, "draining the pipe");

		/* The kernel writes the page with STTR: read() from a pipe. */
		if (write(pipefd[1], &c, 1) != 1)
			check(0, "filling the pipe");
		por_write(por);
		n = read(pipefd[0], (char *)page + 512, 1);
		err = errno;
		por_write(0x77777777ull);
		check(allow[WRITE] ? n == 1 : (n < 0 && err == EFAULT),
		      "perm %#x: kernel STTR write %s", perm,
		      n == 1 ? "succeeds" : strerror(err));
		if (n != 1 && read(pipefd[0], &c, 1) != 1)
			check(0, "draining the pipe");
	}

	/* Key 0 is every other mapping's: POR_EL0 applies per key only. */
	por_write(por_with(pkey, 0));
	canary++;
	por_write(0x77777777ull);
	check(canary == 2, "key 0 memory stays accessible with key %d at 0",
	      pkey);

	syscall(SYS_pkey_free, pkey);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
