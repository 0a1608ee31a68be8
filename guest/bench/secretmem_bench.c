// SPDX-License-Identifier: GPL-2.0
/*
 * What memfd_secret() costs the direct map and the page fault, run
 * unchanged on the unpatched and the patched kernel.
 *
 * Usage: secretmem_bench [--reps N] [--cycles]
 *
 * Fragmentation: for each row, FILES processes each create a secret file
 * and fault PAGES pages of it in, with 2 MiB + 4 KiB of other memory
 * allocated before each file so that, without a pool, secret pages land
 * in different 2 MiB blocks.  While they all hold their pages, the
 * DirectMap4k/2M/1G lines of /proc/meminfo are read and compared with the
 * values before the row.  Rows run in this order in one boot: on a kernel
 * without the pool, splits are permanent and a later row may find
 * entries an earlier one already split.
 * The row also gives the change of direct_map_level3_splits in /proc/vmstat
 * (1 GiB entries split into 2 MiB ones; -1 where the counter is missing).
 *   BENCHFRAG <files> <pages> <4k_delta_kB> <2m_delta_kB> <1g_delta_kB> <l3_splits>
 *
 * Fault cost: one process maps a 64-page secret file and touches every
 * page; each touch (a page fault) is timed on its own.  Reported: the
 * median over N files of the mean per page, and of a whole cycle
 * (memfd_secret, ftruncate, mmap, 64 faults, munmap, close) per page.
 *   BENCH secretmem all <what> 64 <median_ns> <median_ns>
 * Under QEMU -icount shift=0 "ns" is guest instructions.  Where the kernel
 * has the secretmem.pool_blocks parameter (the pool), the same is measured
 * again with it set to 0, that is on the pool's fallback of single pages,
 * and then set back to the value it had, which is printed first:
 *   # /sys/module/secretmem/parameters/pool_blocks: Y|N at start
 *   BENCH secretmem fallback <what> 64 <median_ns> <median_ns>
 *
 * --cycles (make bench ACCEL=kvm) also counts the kernel's ref-cycles
 * (bench.h) over the 64 faults of a file and over a whole cycle, and adds
 *   BENCHCYC secretmem all <what> 64 <median_cycles>
 *   BENCHCYC overhead all counter_read 1 <median_cycles>
 * Faults are counted as a group: time spent in user space, including the
 * per-fault clock reads, is not counted.  The two counter reads around the
 * faults fall inside the whole cycle, in its time and its cycles.
 *
 * Before any row, one line gives the method's constants, which the report
 * quotes (scripts/bench-report.py):
 *   BENCHMETA secretmem_bench reps=N fault_pages=P sleep_us=U cycles=0|1
 *             cyc_read_pairs=R
 *
 * Every call's return value is checked; a failing call aborts the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define BENCH_NAME "secretmem_bench"
#include "bench.h"

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define FAULT_PAGES	64
#define SPREAD		(2 * 1024 * 1024 + 4096)
/* Between two samples of the fault cost: the pool's reuse work runs. */
#define SAMPLE_SLEEP_US	20000

static long ps;
static int reps = 21;

#define POOL_BLOCKS	"/sys/module/secretmem/parameters/pool_blocks"

/* DirectMap4k, 2M, 1G in kB; -1 where the line is missing. */
static void direct_map(long long dm[3])
{
	static const char *const key[3] = { "DirectMap4k:", "DirectMap2M:", "DirectMap1G:" };
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];

	CHECK(f, "fopen(/proc/meminfo)");
	dm[0] = dm[1] = dm[2] = -1;
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 3; i++)
			if (!strncmp(line, key[i], strlen(key[i])))
				dm[i] = atoll(line + strlen(key[i]));
	fclose(f);
}

/* direct_map_level3_splits of /proc/vmstat (1 GiB entries split); -1 if missing. */
static long long level3_splits(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	long long val = -1, v;
	char key[64];

	CHECK(f, "fopen(/proc/vmstat)");
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, "direct_map_level3_splits"))
			val = v;
	fclose(f);
	return val;
}

static int secret_file(long pages)
{
	int fd = syscall(__NR_memfd_secret, 0);

	CHECK(fd >= 0, "memfd_secret");
	CHECK(!ftruncate(fd, pages * ps), "ftruncate");
	return fd;
}

/* A child: spread, then hold @pages faulted secret pages until killed. */
static void holder(long pages, int ready)
{
	char *spread = mmap(NULL, SPREAD, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd;
	char *p;

	CHECK(spread != MAP_FAILED, "mmap(spread)");
	/* Small pages: a huge page would not push the secret pages apart. */
	madvise(spread, SPREAD, MADV_NOHUGEPAGE);
	memset(spread, 1, SPREAD);
	fd = secret_file(pages);
	p = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap(secret)");
	for (long i = 0; i < pages; i++)
		p[i * ps] = 1;
	CHECK(write(ready, "x", 1) == 1, "write(ready)");
	for (;;)
		pause();
}

static void frag_row(int files, long pages)
{
	long long before[3], after[3], l3_before, l3_after;
	pid_t *pids = calloc(files, sizeof(*pids));
	int fds[2];
	char c;

	CHECK(pids && !pipe(fds), "pipe");
	direct_map(before);
	l3_before = level3_splits();
	for (int i = 0; i < files; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0, "fork");
		if (!pids[i]) {
			close(fds[0]);
			holder(pages, fds[1]);
		}
		/* One at a time, so that the spreads interleave. */
		CHECK(read(fds[0], &c, 1) == 1, "read(ready)");
	}
	direct_map(after);
	l3_after = level3_splits();
	printf("BENCHFRAG %d %ld %lld %lld %lld %lld\n", files, pages,
	       after[0] - before[0], after[1] - before[1], after[2] - before[2],
	       l3_before < 0 ? -1 : l3_after - l3_before);
	fflush(stdout);
	for (int i = 0; i < files; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < files; i++)
		CHECK(waitpid(pids[i], NULL, 0) == pids[i], "waitpid");
	close(fds[0]);
	close(fds[1]);
	free(pids);
}

/*
 * Compiled twice, for @cyc false and true (fault_cost()): without
 * --cycles, not one instruction of counter code runs in the intervals
 * timed, where it would count under -icount.
 */
static inline __attribute__((always_inline)) void do_fault_cost(const bool cyc,
								  const char *state)
{
	long long *fault = calloc(reps, sizeof(long long));
	long long *cycle = calloc(reps, sizeof(long long));
	long long *fault_c = cyc ? calloc(reps, sizeof(long long)) : NULL;
	long long *cycle_c = cyc ? calloc(reps, sizeof(long long)) : NULL;

	CHECK(fault && cycle && (!cyc || (fault_c && cycle_c)), "calloc");
	for (int r = 0; r < reps; r++) {
		long long c0 = cyc ? cycles_now() : 0;
		long long t0 = now_ns(), sum = 0;
		int fd = secret_file(FAULT_PAGES);
		char *p = mmap(NULL, FAULT_PAGES * ps, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		long long c = 0;

		CHECK(p != MAP_FAILED, "mmap(secret)");
		if (cyc)
			c = cycles_now();
		for (int i = 0; i < FAULT_PAGES; i++) {
			long long t = now_ns();

			p[i * ps] = 1;
			sum += now_ns() - t;
		}
		if (cyc)
			fault_c[r] = (cycles_now() - c) / FAULT_PAGES;
		CHECK(!munmap(p, FAULT_PAGES * ps), "munmap(secret)");
		CHECK(!close(fd), "close");
		cycle[r] = (now_ns() - t0) / FAULT_PAGES;
		if (cyc)
			cycle_c[r] = (cycles_now() - c0) / FAULT_PAGES;
		fault[r] = sum / FAULT_PAGES;
		/* Let deferred work (the pool's reuse) run outside the next sample. */
		usleep(SAMPLE_SLEEP_US);
	}
	printf("BENCH secretmem %s fault_per_page %d %lld %lld\n", state,
	       FAULT_PAGES, median(fault, reps), median(fault, reps));
	printf("BENCH secretmem %s cycle_per_page %d %lld %lld\n", state,
	       FAULT_PAGES, median(cycle, reps), median(cycle, reps));
	if (cyc) {
		printf("BENCHCYC secretmem %s fault_per_page %d %lld\n", state,
		       FAULT_PAGES, median(fault_c, reps));
		printf("BENCHCYC secretmem %s cycle_per_page %d %lld\n", state,
		       FAULT_PAGES, median(cycle_c, reps));
		free(fault_c);
		free(cycle_c);
	}
	fflush(stdout);
	free(fault);
	free(cycle);
}

static void fault_cost(const char *state)
{
	if (cycles_fd >= 0)
		do_fault_cost(true, state);
	else
		do_fault_cost(false, state);
}

/* Write @val to a file; false if it cannot be written (no such parameter). */
static bool set_param(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok;
}

/*
 * The pool's fallback: single pages, each removed from the direct map on
 * its own, as when no 2 MiB block can be allocated.  The patched kernel
 * is told to use no blocks (secretmem.pool_blocks=0); the base kernel has
 * no such parameter and prints no rows, and the report compares these
 * with its "all" rows, which is the same path there.  The parameter gets
 * back the value it had (printed first): a boot with
 * secretmem.pool_blocks=0 on its command line (make bench's pool-off
 * boot) keeps the pool off for the fragmentation rows after these.
 */
static void fallback_cost(void)
{
	char was[16] = "";
	int fd = open(POOL_BLOCKS, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		printf("# no %s: no fallback rows\n", POOL_BLOCKS);
		return;
	}
	n = read(fd, was, sizeof(was) - 1);
	close(fd);
	CHECK(n > 0, "read " POOL_BLOCKS);
	was[strcspn(was, "\n")] = '\0';
	printf("# %s: %s at start\n", POOL_BLOCKS, was);
	if (!set_param(POOL_BLOCKS, "0")) {
		printf("# cannot write %s: no fallback rows\n", POOL_BLOCKS);
		return;
	}
	fault_cost("fallback");
	CHECK(set_param(POOL_BLOCKS, was), "write " POOL_BLOCKS);
}

int main(int argc, char **argv)
{
	static const struct { int files; long pages; } rows[] = {
		{ 1, 1 }, { 8, 1 }, { 64, 1 }, { 512, 1 }, { 8, 64 },
	};
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	long long dm[3];
	int fd, cycles = 0;

	ps = sysconf(_SC_PAGESIZE);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--cycles")) {
			cycles = 1;
		} else {
			fprintf(stderr, "%s: bad option '%s'\nUsage: %s [--reps N] [--cycles]\n",
				BENCH_NAME, argv[i], BENCH_NAME);
			return 2;
		}
	}

	printf("BENCHMETA %s reps=%d fault_pages=%d sleep_us=%d cycles=%d cyc_read_pairs=%d\n",
	       BENCH_NAME, reps, FAULT_PAGES, SAMPLE_SLEEP_US, cycles, CYCLES_READ_PAIRS);
	fflush(stdout);
	fd = syscall(__NR_memfd_secret, 0);
	if (fd < 0) {
		printf("# memfd_secret() not available (%s): no secretmem tables\n",
		       strerror(errno));
		return 0;
	}
	close(fd);
	CHECK(!setrlimit(RLIMIT_MEMLOCK, &rl), "setrlimit(RLIMIT_MEMLOCK)");
	if (cycles) {
		cycles_open();
		if (cycles_fd >= 0)
			printf("BENCHCYC overhead all counter_read 1 %lld\n",
			       cycles_read_cost());
	}

	fault_cost("all");
	fallback_cost();
	direct_map(dm);
	if (dm[0] < 0) {
		/* arm64 does not report them. */
		printf("# no DirectMap lines in /proc/meminfo: no fragmentation rows\n");
		return 0;
	}
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		frag_row(rows[i].files, rows[i].pages);
	return 0;
}
