// SPDX-License-Identifier: GPL-2.0
/*
 * What page-table writes cost in the calls that make many of them, run
 * unchanged on the unpatched kernel, the patched one, and the patched one
 * booted with kpkeys=off.  The series protects page-table pages with
 * kernel protection keys (x86 PKS): each page-table write raises a level
 * (a WRMSR of IA32_PKRS), batched inside lazy-MMU sections, and
 * page-table pages come from a pool of 2 MiB direct-map blocks.
 *
 * Usage: pgtable_bench [--reps N] [--big-reps M] [--cycles] [--only GROUP]
 *
 * Rows, in the order they run; each is the median over N repetitions (M
 * for the two 1 GiB rows) of the time of one operation, in
 * CLOCK_MONOTONIC nanoseconds (under QEMU -icount shift=0: guest
 * instructions, user and kernel):
 *   fork     a process with 1 GiB of anonymous memory, every page written
 *            just before (untimed), forks; the child _exit()s at once and
 *            the parent waits for it.  Per fork: copying 262144 PTEs,
 *            write-protecting the parent's, and the child's exit tearing
 *            its copy down.
 *   munmap   munmap() of 1 GiB of anonymous memory, every page touched
 *            (untimed, a fresh mapping each repetition).  Per call.
 *   touch    first write to each page of a fresh 64 MiB anonymous mapping
 *            (a page fault each).  Per page: the loop's time / 16384.
 *   mprotect mprotect() of a touched 64 MiB region to PROT_READ, then back
 *            to PROT_READ|PROT_WRITE.  Per call: the pair's time / 2.
 *   vmalloc_pP  6.1's test_vmalloc module, fix_size_alloc_test with
 *            nr_pages=P (1, 4, 16, 64, 256), one thread: vmalloc() of P
 *            pages, a write to the first, vfree(); 8192 / P loops per
 *            load of the module.  Per loop, from the time the module
 *            itself reports (its microseconds, so the module's loading
 *            is not in it).  M repetitions (one load each).  Needs the
 *            running kernel's module at /lib/modules/test_vmalloc.ko
 *            (make bench appends it to the initramfs); without it the
 *            program says so and has no vmalloc rows.
 * Every region is madvise(MADV_NOHUGEPAGE): the bench kernels have THP
 * "always", and 2 MiB pages would leave no PTE pages to write.
 * The 1 GiB rows fault 262144 pages in, untimed, before each repetition.
 * Where page tables are protected, each of those faults writes IA32_PKRS
 * twice, and QEMU TCG flushes its TLB at every such write: that makes the
 * setup, not the rows, the program's wall time (about 7 minutes with 11
 * repetitions each on a loaded 2-core host), hence fewer of them (M).  Each
 * repetition starts after a 20 ms sleep (settle(); free under -icount
 * sleep=off) so that deferred work (RCU callbacks, per-CPU list flushes)
 * of the previous one is done.
 *
 * Output, one pair of lines per row (PAGES: 4 KiB pages the operation
 * covers: 262144 for 1 GiB, 16384 for 64 MiB):
 *   BENCH pgtable all <row> <pages> <median_ns> <median_ns>
 *   BENCHPKS pgtable <row> <pages> <switches_per_op> <dmap_splits>
 * switches_per_op: the change of /sys/kernel/debug/kpkeys/switches (PKRS
 * writes on all CPUs since boot) over the timed operations of the row
 * divided by their number, with two decimals; -1 where the file does not
 * exist (a kernel without kpkeys).  The counter is read just outside each
 * timed interval.  dmap_splits: the change of direct_map_level2_splits +
 * direct_map_level3_splits of /proc/vmstat over the whole row, setup
 * included (the direct map split into smaller entries); -1 where they are
 * missing (arm64).
 *
 * Before any row, one line gives the method's constants, which the report
 * quotes (scripts/bench-report.py):
 *   BENCHMETA pgtable_bench reps=N big_reps=M big_mib=1024 small_mib=64
 *             settle_us=U cycles=0|1 vmalloc_ops=8192
 *
 * --only GROUP (fork, munmap, touch, mprotect or vmalloc: make
 * insn-profile) runs that group of rows alone.
 *
 * --cycles (make bench ACCEL=kvm passes it to every program) is accepted,
 * but this program counts no ref-cycles: it says so and reports time.
 *
 * Every call's return value is checked; a failing call aborts the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define BENCH_NAME "pgtable_bench"
#include "bench.h"

#define BIG_MIB		1024
#define SMALL_MIB	64
#define SETTLE_US	20000
#define SWITCHES	DEBUGFS "/kpkeys/switches"
#define VMALLOC_KO	"/lib/modules/test_vmalloc.ko"
#define VMALLOC_OPS	8192	/* vmalloc()+vfree() pairs of a 1-page row */

static long ps;
static int reps = 11, big_reps = 5;
static int have_switches;

static void settle(void)
{
	CHECK(!usleep(SETTLE_US), "usleep(settle)");
}

/*
 * The counter's value; -1 without it.  Opened for each read: the file is
 * a debugfs attribute, which cannot seek (pread() fails with ESPIPE) and
 * formats its value at the first read after open.
 */
static long long switches(void)
{
	char buf[32];
	ssize_t n;
	int fd;

	if (!have_switches)
		return -1;
	fd = open(SWITCHES, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "open(" SWITCHES ")");
	n = read(fd, buf, sizeof(buf) - 1);
	CHECK(n > 0, "read(" SWITCHES ")");
	close(fd);
	buf[n] = '\0';
	return atoll(buf);
}

/* direct_map_level2_splits + direct_map_level3_splits; -1 if missing. */
static long long dmap_splits(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	long long sum = 0, v;
	int found = 0;
	char key[64];

	CHECK(f, "fopen(/proc/vmstat)");
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, "direct_map_level2_splits") ||
		    !strcmp(key, "direct_map_level3_splits")) {
			sum += v;
			found++;
		}
	fclose(f);
	return found ? sum : -1;
}

/* A fresh anonymous region of @mib MiB, in 4 KiB pages only. */
static char *region(long mib)
{
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap");
	CHECK(!madvise(p, mib << 20, MADV_NOHUGEPAGE), "madvise(MADV_NOHUGEPAGE)");
	return p;
}

/* Write one byte of every page of @p (@mib MiB). */
static void touch(char *p, long mib)
{
	for (long off = 0; off < mib << 20; off += ps)
		((volatile char *)p)[off] = 1;
}

/*
 * A row's bookkeeping: the times of its repetitions, the level switches
 * of its timed operations, and the direct-map splits since row_start().
 */
static long long *times, sw_sum, splits0;
static long sw_ops;

static void row_start(void)
{
	sw_sum = 0;
	sw_ops = 0;
	splits0 = dmap_splits();
}

/* @n: the row's repetitions. */
static void row_end(const char *row, long pages, int n)
{
	long long s = dmap_splits();
	long long t = median(times, n);

	printf("BENCH pgtable all %s %ld %lld %lld\n", row, pages, t, t);
	if (!have_switches)
		printf("BENCHPKS pgtable %s %ld -1 %lld\n", row, pages,
		       splits0 < 0 ? -1 : s - splits0);
	else
		printf("BENCHPKS pgtable %s %ld %.2f %lld\n", row, pages,
		       (double)sw_sum / sw_ops, splits0 < 0 ? -1 : s - splits0);
	fflush(stdout);
}

static void bench_fork(void)
{
	char *p;

	row_start();
	p = region(BIG_MIB);
	for (int r = 0; r < big_reps; r++) {
		long long s0, t0, t1;
		int status;
		pid_t pid;

		/*
		 * Writable PTEs again (the last fork write-protected them;
		 * the child is gone, so these are reuses, not copies).
		 */
		touch(p, BIG_MIB);
		settle();
		s0 = switches();
		t0 = now_ns();
		pid = fork();
		if (!pid)
			_exit(0);
		CHECK(pid > 0, "fork");
		CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
		t1 = now_ns();
		sw_sum += switches() - s0;
		sw_ops++;
		CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child exit");
		times[r] = t1 - t0;
	}
	row_end("fork", (BIG_MIB << 20) / ps, big_reps);
	CHECK(!munmap(p, BIG_MIB << 20), "munmap");
}

static void bench_munmap(void)
{
	row_start();
	for (int r = 0; r < big_reps; r++) {
		char *p = region(BIG_MIB);
		long long s0, t0, t1;
		int ret;

		touch(p, BIG_MIB);
		settle();
		s0 = switches();
		t0 = now_ns();
		ret = munmap(p, BIG_MIB << 20);
		t1 = now_ns();
		sw_sum += switches() - s0;
		sw_ops++;
		CHECK(!ret, "munmap");
		times[r] = t1 - t0;
	}
	row_end("munmap", (BIG_MIB << 20) / ps, big_reps);
}

static void bench_touch(void)
{
	long pages = (SMALL_MIB << 20) / ps;

	row_start();
	for (int r = 0; r < reps; r++) {
		char *p = region(SMALL_MIB);
		long long s0, t0, t1;

		settle();
		s0 = switches();
		t0 = now_ns();
		touch(p, SMALL_MIB);
		t1 = now_ns();
		sw_sum += switches() - s0;
		sw_ops += pages;
		times[r] = (t1 - t0) / pages;
		CHECK(!munmap(p, SMALL_MIB << 20), "munmap");
	}
	row_end("touch", pages, reps);
}

static void bench_mprotect(void)
{
	char *p;

	row_start();
	p = region(SMALL_MIB);
	touch(p, SMALL_MIB);
	for (int r = 0; r < reps; r++) {
		long long s0, t0, t1;
		int ro, rw;

		settle();
		s0 = switches();
		t0 = now_ns();
		ro = mprotect(p, SMALL_MIB << 20, PROT_READ);
		rw = mprotect(p, SMALL_MIB << 20, PROT_READ | PROT_WRITE);
		t1 = now_ns();
		sw_sum += switches() - s0;
		sw_ops += 2;
		CHECK(!ro && !rw, "mprotect");
		times[r] = (t1 - t0) / 2;
	}
	row_end("mprotect", (SMALL_MIB << 20) / ps, reps);
	CHECK(!munmap(p, SMALL_MIB << 20), "munmap");
}

/*
 * Load test_vmalloc with @params.  Its init runs the tests, prints their
 * summary and fails with EAGAIN, so the module never stays loaded.  The
 * level switches of the load are added to *@sw.
 */
static void vmalloc_load(int fd, const char *params, long long *sw)
{
	long long s0 = switches();
	int ret;

	ret = syscall(SYS_finit_module, fd, params, 0);
	CHECK(ret < 0 && errno == EAGAIN, "finit_module(" VMALLOC_KO ")");
	*sw += switches() - s0;
}

/*
 * The mean time of one loop of fix_size_alloc_test in the last load, in
 * ns, from the summary test_vmalloc printed (its time is in microseconds,
 * for all @loops loops).  The log is cleared before each load.
 */
static long long vmalloc_summary(int loops)
{
	static const char key[] = "Summary: fix_size_alloc_test ";
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	int passed, failed, repeat, n;
	unsigned long long usec;
	char *buf, *line, *next;
	int len;

	CHECK(size > 0, "klogctl(SIZE_BUFFER)");
	buf = malloc(size + 1);
	CHECK(buf, "malloc");
	len = klogctl(3, buf, size);		/* SYSLOG_ACTION_READ_ALL */
	CHECK(len >= 0, "klogctl(READ_ALL)");
	buf[len] = '\0';
	line = strstr(buf, key);
	CHECK(line, "test_vmalloc summary in the kernel log");
	while ((next = strstr(line + 1, key)))
		line = next;
	errno = 0;
	CHECK(sscanf(line + sizeof(key) - 1,
		     "passed: %d failed: %d repeat: %d loops: %d avg: %llu usec",
		     &passed, &failed, &repeat, &n, &usec) == 5 &&
	      passed == 1 && !failed && repeat == 1 && n == loops,
	      "test_vmalloc fix_size_alloc_test summary");
	free(buf);
	return usec * 1000 / loops;
}

/*
 * vmalloc: 6.1's test_vmalloc module (the kernel's own, from the
 * initramfs), fix_size_alloc_test, one thread: each loop vmalloc()s
 * @pages pages, writes their first byte and vfree()s them.  A row per
 * size; each repetition loads the module once, and the row is the median
 * of the time of one loop.  Level switches per loop: those of a load
 * that runs the test, less those of a load that runs no test (the module
 * loading itself: its text is mapped with vmalloc too), over the loops.
 */
static void bench_vmalloc(void)
{
	static const int sizes[] = { 1, 4, 16, 64, 256 };
	int fd = open(VMALLOC_KO, O_RDONLY | O_CLOEXEC);
	char params[160];

	if (fd < 0) {
		printf("# no %s (%s): no vmalloc rows\n", VMALLOC_KO, strerror(errno));
		return;
	}
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int pages = sizes[i], loops = VMALLOC_OPS / pages;
		long long load_sw = 0;
		char row[32];

		snprintf(row, sizeof(row), "vmalloc_p%d", pages);
		row_start();
		for (int r = 0; r < big_reps; r++) {
			settle();
			snprintf(params, sizeof(params),
				 "run_test_mask=0 nr_threads=1 nr_pages=%d", pages);
			vmalloc_load(fd, params, &load_sw);
			snprintf(params, sizeof(params),
				 "run_test_mask=1 nr_threads=1 nr_pages=%d test_loop_count=%d test_repeat_count=1",
				 pages, loops);
			CHECK(klogctl(5, NULL, 0) == 0, "klogctl(CLEAR)");
			settle();
			vmalloc_load(fd, params, &sw_sum);
			sw_ops += loops;
			times[r] = vmalloc_summary(loops);
		}
		sw_sum -= load_sw;
		row_end(row, pages, big_reps);
	}
	close(fd);
}

/* --only ROW (make insn-profile): one group of rows, not all of them. */
static const char *only;

static int want(const char *group)
{
	return !only || !strcmp(only, group);
}

int main(int argc, char **argv)
{
	int cycles = 0;

	ps = sysconf(_SC_PAGESIZE);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--big-reps") && i + 1 < argc &&
			   atoi(argv[i + 1]) > 0) {
			big_reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--cycles")) {
			cycles = 1;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else {
			fprintf(stderr, "%s: bad option '%s'\nUsage: %s [--reps N] [--big-reps M] [--cycles] [--only fork|munmap|touch|mprotect|vmalloc]\n",
				BENCH_NAME, argv[i], BENCH_NAME);
			return 2;
		}
	}
	times = calloc(reps > big_reps ? reps : big_reps, sizeof(*times));
	CHECK(times, "calloc");
	printf("BENCHMETA %s reps=%d big_reps=%d big_mib=%d small_mib=%d settle_us=%d cycles=%d vmalloc_ops=%d\n",
	       BENCH_NAME, reps, big_reps, BIG_MIB, SMALL_MIB, SETTLE_US, cycles, VMALLOC_OPS);
	if (cycles)
		printf("# %s counts no ref-cycles: time only\n", BENCH_NAME);
	have_switches = debugfs_probe(SWITCHES, "switches are -1");
	fflush(stdout);

	if (want("fork"))
		bench_fork();
	if (want("munmap"))
		bench_munmap();
	if (want("touch"))
		bench_touch();
	if (want("mprotect"))
		bench_mprotect();
	if (want("vmalloc"))
		bench_vmalloc();
	return 0;
}
