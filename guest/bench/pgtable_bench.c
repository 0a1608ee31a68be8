// SPDX-License-Identifier: GPL-2.0
/*
 * What page-table writes cost in the calls that make many of them, run
 * unchanged on the unpatched kernel, the patched one, and the patched one
 * booted with kpkeys=off.  The series protects page-table pages with
 * kernel protection keys (x86 PKS): each page-table write raises a level
 * (a WRMSR of IA32_PKRS), batched inside lazy-MMU sections, and
 * page-table pages come from a pool of 2 MiB direct-map blocks.
 *
 * Usage: pgtable_bench [--reps N] [--big-reps M] [--cycles]
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
 *             settle_us=U cycles=0|1
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
#include <sys/mount.h>
#include <sys/wait.h>

#define BENCH_NAME "pgtable_bench"
#include "bench.h"

#define BIG_MIB		1024
#define SMALL_MIB	64
#define SETTLE_US	20000
#define DEBUGFS		"/sys/kernel/debug"
#define SWITCHES	DEBUGFS "/kpkeys/switches"

static long ps;
static int reps = 11, big_reps = 5;
static int have_switches;

static void settle(void)
{
	CHECK(!usleep(SETTLE_US), "usleep(settle)");
}

/*
 * Whether the kernel has the kpkeys level-switch counter.  guest/init.c
 * mounts debugfs; mount it here if that did not happen (EBUSY: it is
 * mounted).
 */
static void switches_probe(void)
{
	int fd, err;

	fd = open(SWITCHES, O_RDONLY | O_CLOEXEC);
	err = errno;
	if (fd < 0 && err == ENOENT && !mount("debugfs", DEBUGFS, "debugfs", 0, NULL)) {
		fd = open(SWITCHES, O_RDONLY | O_CLOEXEC);
		err = errno;
	}
	if (fd < 0) {
		printf("# no %s (%s): switches are -1\n", SWITCHES, strerror(err));
		return;
	}
	close(fd);
	have_switches = 1;
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
		} else {
			fprintf(stderr, "%s: bad option '%s'\nUsage: %s [--reps N] [--big-reps M] [--cycles]\n",
				BENCH_NAME, argv[i], BENCH_NAME);
			return 2;
		}
	}
	times = calloc(reps > big_reps ? reps : big_reps, sizeof(*times));
	CHECK(times, "calloc");
	printf("BENCHMETA %s reps=%d big_reps=%d big_mib=%d small_mib=%d settle_us=%d cycles=%d\n",
	       BENCH_NAME, reps, big_reps, BIG_MIB, SMALL_MIB, SETTLE_US, cycles);
	if (cycles)
		printf("# %s counts no ref-cycles: time only\n", BENCH_NAME);
	switches_probe();
	fflush(stdout);

	bench_fork();
	bench_munmap();
	bench_touch();
	bench_mprotect();
	return 0;
}
