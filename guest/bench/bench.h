/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark programs share: the abort-on-failure check, the
 * clock and the kernel event counters.  Under QEMU -icount shift=0 the
 * guest clock advances one nanosecond per guest instruction.  Each
 * program defines BENCH_NAME.
 */
#ifndef GUEST_BENCH_H
#define GUEST_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

/* A benchmark whose calls fail exits instead of timing failures. */
#define CHECK(cond, what) do {						\
	if (!(cond)) {							\
		fprintf(stderr, BENCH_NAME ": %s failed at line %d: %s\n", \
			what, __LINE__, strerror(errno));		\
		exit(1);						\
	}								\
} while (0)

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n values; sorts @v. */
static inline long long median(long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ll);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Kernel event counters of the calling thread: a hardware event with
 * exclude_user and exclude_hv, so that only what the CPU does in the
 * kernel for this thread counts.  The event is pinned: if it ever cannot
 * stay on the PMU, read() returns 0 and the program stops instead of
 * reporting partial counts.  @name is what messages call the counter.
 */
static inline int counter_open(unsigned long long config, const char *name)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = config,
		.pinned = 1,
		.exclude_user = 1,
		.exclude_hv = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		printf("# no kernel %s counter: %s\n", name, strerror(errno));
		fflush(stdout);
	}
	return fd;
}

static inline long long counter_read(int fd, const char *name)
{
	uint64_t count;
	ssize_t n;

	n = read(fd, &count, sizeof(count));
	if (!n) {
		fprintf(stderr, BENCH_NAME ": the pinned %s counter lost its PMU counter\n",
			name);
		exit(1);
	}
	CHECK(n == sizeof(count), "read(counter)");
	return count;
}

/*
 * What reading a counter twice in a row counts, @n times: the end of one
 * read() and the start of the next, which every counted interval includes.
 */
static inline void counter_read_pairs(int fd, const char *name,
				      long long *v, int n)
{
	for (int i = 0; i < n; i++) {
		long long c = counter_read(fd, name);

		v[i] = counter_read(fd, name) - c;
	}
}

/*
 * Kernel reference cycles (--cycles, make bench ACCEL=kvm):
 * PERF_COUNT_HW_REF_CPU_CYCLES, which ticks at a constant rate whatever
 * the core clock does.
 *
 * Where there is no such counter (TCG has no PMU on x86; the AMD and arm64
 * PMU drivers map no ref-cycles event; perf_event_paranoid) the programs
 * say so once and report time only: cycles_now() then returns 0.
 */
static int cycles_fd = -1;

/* Start counting for the calling thread; says so once if it cannot. */
static inline void cycles_open(void)
{
	if (cycles_fd >= 0)
		close(cycles_fd);
	cycles_fd = counter_open(PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles");
}

/* In a forked child: the descriptor it inherited counts its parent. */
static inline void cycles_reopen(void)
{
	if (cycles_fd >= 0)
		cycles_open();
}

static inline long long cycles_now(void)
{
	if (cycles_fd < 0)
		return 0;
	return counter_read(cycles_fd, "ref-cycles");
}

/* Read pairs behind cycles_read_cost() and insns_open()'s insns_cost. */
#define CYCLES_READ_PAIRS	101
#define INSNS_READ_PAIRS	100

/* The median of CYCLES_READ_PAIRS read pairs (counter_read_pairs()). */
static inline long long cycles_read_cost(void)
{
	long long v[CYCLES_READ_PAIRS];

	counter_read_pairs(cycles_fd, "ref-cycles", v, CYCLES_READ_PAIRS);
	return median(v, CYCLES_READ_PAIRS);
}

/*
 * Kernel cycles per sample, for loops that time calls one by one:
 * cycles_start() just before a call's first clock read and cycles_stop()
 * after its second count the call; cycles_sample() closes a sample.  The
 * state is global, the calls take no arguments and are never inlined, so
 * that the loop keeps no more values in registers than without them: the
 * instructions between its two clock reads, which -icount counts, stay
 * what they were before these calls were added (checked with objdump).
 */
static long long *cycles_sum;
static long long cycles_mark, cycles_acc;
static int cycles_nr, cycles_max;

/* Counting (cycles_fd >= 0): a new set of at most @samples samples. */
static inline void cycles_reset(int samples)
{
	if (cycles_fd < 0)
		return;
	if (samples > cycles_max) {
		free(cycles_sum);
		cycles_sum = calloc(samples, sizeof(*cycles_sum));
		CHECK(cycles_sum, "calloc");
		cycles_max = samples;
	}
	cycles_nr = 0;
	cycles_acc = 0;
}

static __attribute__((noinline, unused)) void cycles_start(void)
{
	if (cycles_fd >= 0)
		cycles_mark = cycles_now();
}

static __attribute__((noinline, unused)) void cycles_stop(void)
{
	if (cycles_fd >= 0)
		cycles_acc += cycles_now() - cycles_mark;
}

static __attribute__((noinline, unused)) void cycles_sample(void)
{
	if (cycles_fd < 0)
		return;
	CHECK(cycles_nr < cycles_max, "cycles_sample() within cycles_reset()'s samples");
	cycles_sum[cycles_nr++] = cycles_acc;
	cycles_acc = 0;
}

/* The median over the samples of their cycles, each divided by @div. */
static inline long long cycles_median(int div)
{
	for (int i = 0; i < cycles_nr; i++)
		cycles_sum[i] /= div;
	return median(cycles_sum, cycles_nr);
}

/*
 * Kernel instructions (--insns, make bench under -icount):
 * PERF_COUNT_HW_INSTRUCTIONS.  QEMU's arm64 PMU under TCG -icount counts
 * guest instructions exactly, so a call's count repeats to the
 * instruction where the arm64 guest clock only steps every 16.  Where
 * there is no such counter (x86 TCG has no PMU, and its clock already
 * counts single instructions) the programs say so once and report time
 * only.
 *
 * Loops that time calls one by one count each call's kernel instructions
 * as cycles_start() and cycles_stop() count cycles, out of line and
 * outside the timed interval: insns_start() before a call's first clock
 * read and insns_stop() after its second.  insns_reset(slots) starts a
 * row whose samples make @slots calls each (mremap: one per VMA moved):
 * the k-th insns_stop() of every sample goes to slot k, and each slot
 * keeps its fewest count, less the cost of an empty read pair.  Like
 * cycles_start(), the helpers take no arguments, so that the loop keeps
 * no more values in registers than without them.
 */
#define INSNS_SLOTS	32

static int insns_fd = -1;
static long long insns_cost, insns_mark, insns_min[INSNS_SLOTS];
static int insns_slots, insns_slot;

/*
 * Start counting for the calling thread, and measure what a read pair
 * counts: the fewest of INSNS_READ_PAIRS (counter_read_pairs()).  Says so
 * once if it cannot.
 */
static inline void insns_open(void)
{
	long long v[INSNS_READ_PAIRS];

	insns_fd = counter_open(PERF_COUNT_HW_INSTRUCTIONS, "instruction");
	if (insns_fd < 0)
		return;
	counter_read_pairs(insns_fd, "instruction", v, INSNS_READ_PAIRS);
	qsort(v, INSNS_READ_PAIRS, sizeof(*v), cmp_ll);
	insns_cost = v[0];
}

/* Counting (insns_fd >= 0): a new row of @slots calls per sample. */
static inline void insns_reset(int slots)
{
	if (insns_fd < 0)
		return;
	CHECK(slots >= 1 && slots <= INSNS_SLOTS, "calls per sample within INSNS_SLOTS");
	for (int i = 0; i < slots; i++)
		insns_min[i] = LLONG_MAX;
	insns_slots = slots;
	insns_slot = 0;
}

static __attribute__((noinline, unused)) void insns_start(void)
{
	if (insns_fd >= 0)
		insns_mark = counter_read(insns_fd, "instruction");
}

static __attribute__((noinline, unused)) void insns_stop(void)
{
	long long n;

	if (insns_fd < 0)
		return;
	n = counter_read(insns_fd, "instruction") - insns_mark - insns_cost;
	if (n < insns_min[insns_slot])
		insns_min[insns_slot] = n;
	insns_slot = (insns_slot + 1) % insns_slots;
}

/* The row's figure: the sum over the slots of each one's fewest. */
static inline long long insns_fewest(void)
{
	long long sum = 0;

	for (int i = 0; i < insns_slots; i++)
		sum += insns_min[i];
	return sum;
}

#define DEBUGFS "/sys/kernel/debug"

/*
 * Whether the debugfs file @path exists.  guest/init.c mounts debugfs;
 * mount it here if that did not happen (EBUSY: it is mounted).  Without
 * the file, says so and what follows from it (@without).
 */
static inline int debugfs_probe(const char *path, const char *without)
{
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = errno;
	if (fd < 0 && err == ENOENT && !mount("debugfs", DEBUGFS, "debugfs", 0, NULL)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		err = errno;
	}
	if (fd < 0) {
		printf("# no %s (%s): %s\n", path, strerror(err), without);
		return 0;
	}
	close(fd);
	return 1;
}

#endif /* GUEST_BENCH_H */
