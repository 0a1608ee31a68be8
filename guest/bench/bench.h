/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark programs share: the abort-on-failure check, the
 * clock and the kernel cycle counter.  Under QEMU -icount shift=0 the
 * guest clock advances one nanosecond per guest instruction.  Each
 * program defines BENCH_NAME.
 */
#ifndef GUEST_BENCH_H
#define GUEST_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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
 * Kernel reference cycles of the calling thread (--cycles, make bench
 * ACCEL=kvm): PERF_COUNT_HW_REF_CPU_CYCLES with exclude_user, so that only
 * what the CPU spends in the kernel for this thread counts.  Reference
 * cycles tick at a constant rate whatever the core clock does.  The event
 * is pinned: if it ever cannot stay on the PMU, read() returns 0 and the
 * program stops instead of reporting partial counts.
 *
 * Where there is no such counter (TCG has no PMU on x86; the AMD and arm64
 * PMU drivers map no ref-cycles event; perf_event_paranoid) the programs
 * say so once and report time only: cycles_now() then returns 0.
 */
static int cycles_fd = -1;

/* Start counting for the calling thread; says so once if it cannot. */
static inline void cycles_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_REF_CPU_CYCLES,
		.pinned = 1,
		.exclude_user = 1,
		.exclude_hv = 1,
	};

	if (cycles_fd >= 0)
		close(cycles_fd);
	cycles_fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
	if (cycles_fd < 0) {
		printf("# no kernel ref-cycles counter: %s\n", strerror(errno));
		fflush(stdout);
	}
}

/* In a forked child: the descriptor it inherited counts its parent. */
static inline void cycles_reopen(void)
{
	if (cycles_fd >= 0)
		cycles_open();
}

static inline long long cycles_now(void)
{
	uint64_t count;
	ssize_t n;

	if (cycles_fd < 0)
		return 0;
	n = read(cycles_fd, &count, sizeof(count));
	if (!n) {
		fprintf(stderr, BENCH_NAME ": the pinned ref-cycles counter lost its PMU counter\n");
		exit(1);
	}
	CHECK(n == sizeof(count), "read(ref-cycles counter)");
	return count;
}

/*
 * What reading the counter twice in a row counts: the end of one read()
 * and the start of the next, which every counted interval includes.
 */
static inline long long cycles_read_cost(void)
{
	long long v[101];

	for (int i = 0; i < 101; i++) {
		long long c = cycles_now();

		v[i] = cycles_now() - c;
	}
	return median(v, 101);
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

#endif /* GUEST_BENCH_H */
