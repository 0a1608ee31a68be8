/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark programs share: the abort-on-failure check and the
 * clock.  Under QEMU -icount shift=0 the guest clock advances one
 * nanosecond per guest instruction.  Each program defines BENCH_NAME.
 */
#ifndef GUEST_BENCH_H
#define GUEST_BENCH_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#endif /* GUEST_BENCH_H */
