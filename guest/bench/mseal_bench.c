// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of the mseal checks in the calls they guard, run unchanged on the
 * unpatched and the patched kernel.
 *
 * Usage: mseal_bench [--seal-elsewhere] [--reps N] [--cycles | --insns]
 *        mseal_bench [--seal-elsewhere] --probe CALL N
 *
 * Every call is timed on its own with CLOCK_MONOTONIC.  The syscall rows
 * report the fastest of all N * BATCH calls (for mremap, the sum over the
 * n calls of a sample of each one's fastest time): the cost of the call's
 * own code path, without the periodic kernel work (ticks, RCU callbacks,
 * per-CPU list refills) that lands in some calls.  Where that work lands
 * moves between two kernels whose code differs by a single test, and it
 * moved medians by up to 2%; the fastest call does not move.  The second
 * figure is the median over N samples of the mean of BATCH calls, which
 * includes that work.  Pagemove and mseal rows report medians.  Each
 * munmap, mprotect and madvise sample starts after a short sleep
 * (settle()), with the work earlier calls deferred done.
 * Under QEMU -icount shift=0 the guest clock advances one nanosecond per
 * guest instruction, so "ns" here is instruction time, not wall time.
 *
 * Output, one line per row:
 *   BENCH <table> <state> <call> <vmas> <figure_ns> <median_ns>
 * state is "noseal" (the process has never sealed anything) or "sealed"
 * (it sealed its own read-only ELF segments first, as a hardened dynamic
 * linker would; the ranges benchmarked are never sealed).
 *
 * --cycles (make bench ACCEL=kvm) also reads the kernel ref-cycles counter
 * (bench.h) just outside each timed interval, and adds one line per row:
 *   BENCHCYC <table> <state> <call> <vmas> <median_cycles>
 * the median over the same samples as median_ns (a syscall sample is the
 * mean of BATCH calls, an mremap sample the sum of its moves), and
 *   BENCHCYC overhead <state> counter_read 1 <median_cycles>
 * what reading the counter adds to each figure.
 *
 * --insns (make bench under -icount) counts the kernel instructions of
 * each timed syscall-table call (bench.h), reading the counter just
 * outside its timed interval, and adds one line per syscall row:
 *   BENCHINS syscall <state> <call> <vmas> <fewest_kernel_instructions>
 * the fewest of all calls (for mremap, the sum over the moves of each
 * move's fewest), less what an empty read pair counts, which
 *   BENCHINS overhead <state> counter_read 1 <fewest_instructions>
 * gives.  Where the guest has no instruction counter it prints
 * "# no kernel instruction counter: REASON" once and times only.
 *
 * Without --cycles or --insns no counter is opened and the output is as
 * above.
 *
 * Before any row, one line gives the method's constants, which the report
 * quotes (scripts/bench-report.py):
 *   BENCHMETA mseal_bench reps=N batch=B pagemove_pages=P cycles=0|1
 *             insns=0|1 cyc_read_pairs=R ins_read_pairs=R  Together they would count each other's reads: one at a time.
 *
 * --probe (make insn-trace) times nothing: it makes one CALL (munmap,
 * mprotect or madvise) over N VMAs of the window, as a bench sample
 * would, right after a getppid() that marks it for the debugger.
 *
 * Every call's return value is checked: a benchmark whose calls fail
 * exits non-zero instead of timing failures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define BENCH_NAME "mseal_bench"
#include "bench.h"

#ifndef __NR_mseal
#define __NR_mseal 462
#endif

#define MAX_VMAS	32
#define BATCH		8
/*
 * An mremap sample moves up to 32 VMAs, and each move frees maple tree
 * nodes through RCU: batches of them would take in the RCU callback work
 * of a tick in some samples and not in others.  Single samples rarely
 * meet a tick, so the median stays clear of it.
 */
#define MREMAP_BATCH	1
#define POOL_PAGES	1000
#define SETTLE_US	20000
#define PAGEMOVE_PAGES	256

static long ps;
static int reps = 101;
static const char *state = "noseal";
static const int sizes[] = { 1, 2, 4, 8, 16, 32 };

static void report(const char *table, const char *call, int vmas,
		   long long figure, long long med)
{
	printf("BENCH %s %s %s %d %lld %lld\n", table, state, call, vmas,
	       figure, med);
	fflush(stdout);
}

/* --cycles: the median of the samples' kernel cycles, each divided by @div. */
static void report_cycles(const char *table, const char *call, int vmas, int div)
{
	if (cycles_fd < 0)
		return;
	printf("BENCHCYC %s %s %s %d %lld\n", table, state, call, vmas,
	       cycles_median(div));
	fflush(stdout);
}

/* --insns: the row's fewest kernel instructions (insns_fewest()). */
static void report_insns(const char *table, const char *call, int vmas)
{
	if (insns_fd < 0)
		return;
	printf("BENCHINS %s %s %s %d %lld\n", table, state, call, vmas,
	       insns_fewest());
	fflush(stdout);
}

/*
 * The pool: POOL_PAGES one-page VMAs, alternating read-write and
 * read-only so that neighbours never merge.  Pages are touched, so that
 * calls have page tables and pages to deal with.
 */
static char *pool;

static void make_vma(char *p, int i)
{
	int prot = i % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
	char *q = mmap(p, ps, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	CHECK(q == p, "mmap(MAP_FIXED)");
	if (prot & PROT_WRITE)
		*q = 1;
	else
		(void)*(volatile char *)q;
}

static void setup_pool(void)
{
	pool = mmap(NULL, POOL_PAGES * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(pool != MAP_FAILED, "mmap(pool)");
	for (int i = 0; i < POOL_PAGES; i++)
		make_vma(pool + i * ps, i);
}

/* Restore alternating protections over the first n pages of @p. */
static void realternate(char *p, int n)
{
	for (int i = 0; i < n; i++)
		CHECK(!mprotect(p + i * ps, ps, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE),
		      "mprotect(restore)");
}

/*
 * Before each sample, untimed: sleep for a few ticks, so that the work the
 * previous calls deferred is done (RCU callbacks freeing maple-tree nodes,
 * per-CPU list flushes) and every sample starts from the same slab state.
 * Without it, munmap rows measured where SLUB's per-CPU slabs stood after
 * boot: the same code path took its slow paths in every call of a row on
 * one kernel and in none on the other (make insn-trace), and rows differed
 * by up to 9% between kernels whose munmap differs by 5 instructions.
 * Under -icount sleep=off the guest skips idle time: this costs no real
 * time there.
 */
static void settle(void)
{
	CHECK(!usleep(SETTLE_US), "usleep(settle)");
}

/*
 * The part of the pool every repetition works on: always the same, in the
 * middle of it, so that each repetition finds the same VMA tree and page
 * table shapes and the samples do not depend on where they ran.
 */
static char *window(void)
{
	return pool + (POOL_PAGES / 2 / MAX_VMAS) * MAX_VMAS * ps;
}

/*
 * The calls timed over n VMAs of the window, and how each puts the window
 * back, untimed: munmap maps the VMAs again, mprotect (to read-only, which
 * merges them) restores the alternating protections, and
 * madvise(MADV_DONTNEED) faults the pages back in.
 */
static int do_munmap(char *p, int n) { return munmap(p, n * ps); }
static int do_mprotect(char *p, int n) { return mprotect(p, n * ps, PROT_READ); }
static int do_madvise(char *p, int n) { return madvise(p, n * ps, MADV_DONTNEED); }

static void remap(char *p, int n)
{
	for (int i = 0; i < n; i++)
		make_vma(p + i * ps, i);
}

static void touch(char *p, int n)
{
	for (int i = 0; i < n; i++)
		(void)*(volatile char *)(p + i * ps);
}

static const struct op {
	const char *name;
	int (*call)(char *p, int n);
	void (*restore)(char *p, int n);
} ops[] = {
	{ "munmap", do_munmap, remap },
	{ "mprotect", do_mprotect, realternate },
	{ "madvise", do_madvise, touch },
};

static void bench_syscalls(void)
{
	long long *v = calloc(reps, sizeof(*v));

	CHECK(v, "calloc");
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int n = sizes[s];

		for (unsigned int o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			long long fastest = LLONG_MAX;

			cycles_reset(reps);
			insns_reset(1);
			for (int r = 0; r < reps; r++) {
				char *p = window();

				settle();

				v[r] = 0;
				for (int b = 0; b < BATCH; b++) {
					long long t;
					int ret;

					cycles_start();
					insns_start();
					t = now_ns();
					ret = ops[o].call(p, n);
					t = now_ns() - t;
					CHECK(!ret, ops[o].name);
					insns_stop();
					cycles_stop();
					v[r] += t;
					if (t < fastest)
						fastest = t;
					ops[o].restore(p, n);
				}
				v[r] /= BATCH;
				cycles_sample();
			}
			report("syscall", ops[o].name, n, fastest, median(v, reps));
			report_cycles("syscall", ops[o].name, n, BATCH);
			report_insns("syscall", ops[o].name, n);
		}

		/*
		 * mremap moves one VMA per call: n calls move n one-page VMAs
		 * to free space (MREMAP_MAYMOVE | MREMAP_FIXED), timed as a
		 * batch; they are moved back untimed.
		 */
		long long fastest[MAX_VMAS], sum = 0;

		for (int i = 0; i < n; i++)
			fastest[i] = LLONG_MAX;
		cycles_reset(reps);
		insns_reset(n);
		for (int r = 0; r < reps; r++) {
			char *p = window();

			v[r] = 0;
			for (int b = 0; b < MREMAP_BATCH; b++) {
				char *dst = mmap(NULL, MAX_VMAS * ps, PROT_NONE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

				CHECK(dst != MAP_FAILED, "mmap(dst)");
				CHECK(!munmap(dst, MAX_VMAS * ps), "munmap(dst)");
				/*
				 * step: ps in a local, which the compiler
				 * keeps in a register across insns_start()
				 * and insns_stop(), as it keeps ps across
				 * the other calls; with ps it reloaded it
				 * and computed both addresses between the
				 * clock reads (5 more instructions timed on
				 * x86_64, 1 on arm64).
				 *
				 * Ref-cycles are counted for the moves as a
				 * whole: between them only user space runs,
				 * which is not counted.  Instructions: each
				 * move on its own.
				 */
				long step = ps;

				cycles_start();
				for (int i = 0; i < n; i++) {
					long long t;
					void *q;

					insns_start();
					t = now_ns();
					q = mremap(p + i * step, step, step,
						   MREMAP_MAYMOVE | MREMAP_FIXED,
						   dst + i * step);
					t = now_ns() - t;
					CHECK(q == dst + i * step, "mremap");
					insns_stop();
					v[r] += t;
					if (t < fastest[i])
						fastest[i] = t;
				}
				cycles_stop();
				for (int i = 0; i < n; i++)
					CHECK(mremap(dst + i * ps, ps, ps,
						     MREMAP_MAYMOVE | MREMAP_FIXED,
						     p + i * ps) == p + i * ps, "mremap(back)");
			}
			v[r] /= MREMAP_BATCH;
			cycles_sample();
		}
		for (int i = 0; i < n; i++)
			sum += fastest[i];
		report("syscall", "mremap", n, sum, median(v, reps));
		report_cycles("syscall", "mremap", n, MREMAP_BATCH);
		report_insns("syscall", "mremap", n);
	}
	free(v);
}

/*
 * In the spirit of stress-ng's pagemove stressor: a 256-page region is
 * walked page by page, each page moved with mremap(MREMAP_FIXED) to a
 * scratch page and back: 512 remaps per sample.
 */
static void bench_pagemove(void)
{
	const int npages = PAGEMOVE_PAGES;
	long long *v = calloc(reps, sizeof(*v));
	char *region = mmap(NULL, (npages + 1) * ps, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *scratch;

	CHECK(v && region != MAP_FAILED, "mmap(pagemove)");
	memset(region, 1, (npages + 1) * ps);
	scratch = region + npages * ps;
	CHECK(!munmap(scratch, ps), "munmap(scratch)");
	cycles_reset(reps);
	for (int r = 0; r < reps; r++) {
		long long t;

		cycles_start();
		t = now_ns();
		for (int i = 0; i < npages; i++) {
			char *pg = region + i * ps;

			CHECK(mremap(pg, ps, ps, MREMAP_MAYMOVE | MREMAP_FIXED, scratch) == scratch,
			      "mremap(pagemove)");
			CHECK(mremap(scratch, ps, ps, MREMAP_MAYMOVE | MREMAP_FIXED, pg) == pg,
			      "mremap(pagemove back)");
		}
		v[r] = now_ns() - t;
		cycles_stop();
		cycles_sample();
	}
	report("pagemove", "mremap_page", 2 * npages, median(v, reps), median(v, reps));
	report_cycles("pagemove", "mremap_page", 2 * npages, 1);
	free(v);
}

/* Cost of sealing itself: mseal of n fresh alternating VMAs. */
static void bench_mseal(void)
{
	long long *v = calloc(reps, sizeof(*v));

	CHECK(v, "calloc");
	if (syscall(__NR_mseal, NULL, 0, 0)) {
		printf("# mseal() not available (%s): no mseal cost table\n", strerror(errno));
		return;
	}
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int n = sizes[s];

		cycles_reset(reps);
		for (int r = 0; r < reps; r++) {
			char *p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			long long t;
			int ret;

			CHECK(p != MAP_FAILED, "mmap(mseal)");
			for (int i = 0; i < n; i++)
				make_vma(p + i * ps, i);
			cycles_start();
			t = now_ns();
			ret = syscall(__NR_mseal, p, n * ps, 0);
			v[r] = now_ns() - t;
			CHECK(!ret, "mseal");
			cycles_stop();
			cycles_sample();
		}
		report("mseal", "mseal", n, median(v, reps), median(v, reps));
		report_cycles("mseal", "mseal", n, 1);
	}
	free(v);
}

/* --probe: 64 calls to warm up, a settle(), then the marked call. */
static void probe(const char *name, int n)
{
	const struct op *op = NULL;
	char *p = window();

	for (unsigned int o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		if (!strcmp(ops[o].name, name))
			op = &ops[o];
	CHECK(op && n >= 1 && n <= MAX_VMAS, "--probe CALL N");
	for (int i = 0; i < BATCH * 8; i++) {
		CHECK(!op->call(p, n), op->name);
		op->restore(p, n);
	}
	settle();
	syscall(SYS_getppid);
	CHECK(!op->call(p, n), op->name);
	op->restore(p, n);
	printf("# probe: %s over %d VMA(s) done\n", name, n);
}

/* Seal our own read-only ELF segments: seals present elsewhere. */
static int seal_self(void)
{
	char exe[512], line[1024], path[512], perms[5];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	int sealed = 0;

	CHECK(len > 0 && f, "open maps");
	exe[len] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %511s", &s, &e, perms, path) < 3)
			continue;
		if (strcmp(path, exe) || perms[1] == 'w')
			continue;
		if (syscall(__NR_mseal, s, e - s, 0) == 0)
			sealed++;
	}
	fclose(f);
	return sealed;
}

int main(int argc, char **argv)
{
	int seal = 0, cycles = 0, insns = 0, status, probe_n = 0;
	const char *probe_call = NULL;
	pid_t pid;

	ps = sysconf(_SC_PAGESIZE);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seal-elsewhere")) {
			seal = 1;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc &&
			   atoi(argv[i + 1]) > 0) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--cycles")) {
			cycles = 1;
		} else if (!strcmp(argv[i], "--insns")) {
			insns = 1;
		} else if (!strcmp(argv[i], "--probe")) {
			CHECK(i + 2 < argc, "--probe CALL N");
			probe_call = argv[++i];
			probe_n = atoi(argv[++i]);
		} else {
			fprintf(stderr, "%s: bad option '%s'\nUsage: %s [--seal-elsewhere] [--reps N] [--cycles | --insns] [--probe CALL N]\n",
				BENCH_NAME, argv[i], BENCH_NAME);
			return 2;
		}
	}
	if (cycles && insns) {
		fprintf(stderr, BENCH_NAME ": --cycles and --insns count each other's reads: one at a time\n");
		return 1;
	}
	if (seal) {
		int n = seal_self();

		/* On a kernel without mseal() this state is the same as noseal. */
		state = "sealed";
		printf("# sealed %d segment(s) of our own image%s\n", n,
		       n ? "" : " (mseal() not available)");
	}
	if (cycles) {
		cycles_open();
		if (cycles_fd >= 0)
			printf("BENCHCYC overhead %s counter_read 1 %lld\n", state,
			       cycles_read_cost());
	}
	if (insns) {
		insns_open();
		if (insns_fd >= 0)
			printf("BENCHINS overhead %s counter_read 1 %lld\n", state,
			       insns_cost);
	}
	printf("BENCHMETA %s reps=%d batch=%d pagemove_pages=%d cycles=%d insns=%d "
	       "cyc_read_pairs=%d ins_read_pairs=%d\n", BENCH_NAME, reps, BATCH,
	       PAGEMOVE_PAGES, cycles, insns, CYCLES_READ_PAIRS, INSNS_READ_PAIRS);
	fflush(stdout);
	setup_pool();
	if (probe_call) {
		probe(probe_call, probe_n);
		return 0;
	}
	bench_syscalls();
	bench_pagemove();
	/* mseal's own cost in a child: its sealed VMAs must not stay around. */
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		cycles_reopen();
		bench_mseal();
		exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "mseal benchmark child");
	return 0;
}
