// SPDX-License-Identifier: GPL-2.0
/*
 * The splice ratchet of issue 30: an unprivileged program fills AF_UNIX
 * stream socket pairs with messages, splices every byte out, closes
 * everything, and the memory must come back.  splice() of a socket takes
 * virt_to_page() of each skb head (__skb_splice_bits()), a kmalloc
 * object: with SLAB_VIRTUAL's former pins, every such slab kept its pages
 * for good, unaccounted, once freed.
 *
 * For each message size (3000, 1500 and 700 bytes: heads in kmalloc-4k,
 * -2k and -1k), ROUNDS rounds of: pairs filled with non-blocking writes
 * until EAGAIN, with at most MIB MiB of messages in all (and 30% of
 * MemAvailable); every byte spliced into a pipe and drained to /dev/null;
 * everything closed.  Free memory is MemAvailable plus the free pages on
 * the per-CPU lists (the pagesets' counts in /proc/zoneinfo), which
 * MemFree and MemAvailable leave out: how full those lists are after a
 * round depends on which CPU freed last.  In a 768 MB guest with Debian's
 * arm64 configuration they held from 61 to 3516 pages after rounds of the
 * same size: MemAvailable alone moved by up to 13.6 MB between rounds,
 * the sum by 0.2 MB.  Free memory is read settled (sync, caches dropped, then
 * read each second until two reads agree within 0.1%) before the first
 * round and after each.  A ratchet adds up over the rounds, while the
 * first round of each size may grow caches once (slabs of the kmalloc
 * caches it uses, SLAB_VIRTUAL's metadata for the slots it carves: about
 * 3.7 MB per size there): with two rounds or more, fails if free memory
 * after a size's last round is more than 1% below where its first round
 * left it, or if the whole run lost more than 5%; with one round, if the
 * run lost more than 1%.  Fails too if slab pages are still pending in
 * /sys/kernel/debug/slab_virtual.
 * Fails too if that file's escaped_slabs (or pinned_slabs) did not grow:
 * the splices must have translated slab addresses, or the run shows
 * nothing.
 *
 * Usage: unix_ratchet MIB [ROUNDS]    (as root, for drop_caches)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define SV_FILE	"/sys/kernel/debug/slab_virtual"

static int fail(const char *what)
{
	printf("unix_ratchet: %s: %s\n", what, strerror(errno));
	return 1;
}

static long meminfo(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atol(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

/* A counter of SV_FILE, or -1 (no file, or no such counter). */
static long sv_counter(const char *key)
{
	char k[64];
	long v, found = -1;
	FILE *f = fopen(SV_FILE, "re");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

/* The free pages on the per-CPU lists, which MemFree leaves out. */
static long pcp_pages(void)
{
	char line[256];
	long n, total = 0;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %ld", &n) == 1)
			total += n;
	fclose(f);
	return total;
}

/* MemAvailable and the free pages on the per-CPU lists, in kB. */
static long free_kb(void)
{
	long pcp = pcp_pages();

	return meminfo("MemAvailable") +
	       (pcp > 0 ? pcp * (sysconf(_SC_PAGESIZE) / 1024) : 0);
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			perror("unix_ratchet: drop_caches");
		close(fd);
	}
}

/* free_kb() once settled: two reads a second apart within 0.1%. */
static long settled(void)
{
	long prev = -1, cur = -1;
	int i;

	sync();
	drop_caches();
	sleep(2);
	for (i = 0; i < 20; i++) {
		drop_caches();
		sleep(1);
		cur = free_kb();
		if (prev >= 0 && labs(cur - prev) <= cur / 1000)
			break;
		prev = cur;
	}
	return cur;
}

#define MAX_KEYS	80

/*
 * Where the memory is, after a settled read: the lines a swing or a loss
 * would show in (kB), the free pages on per-CPU lists, the pages
 * SLAB_VIRTUAL keeps, and every other /proc/meminfo line that moved by
 * 1 MiB or more since the last call.
 */
static void breakdown(void)
{
	static const char * const keys[] = {
		"MemFree", "Cached", "Slab", "SUnreclaim", "PageTables",
		"KernelStack", "Percpu",
	};
	static char names[MAX_KEYS][32];
	static long last[MAX_KEYS];
	static int nr;
	char line[256], name[32];
	long v;
	size_t i;
	int k;
	FILE *f;

	printf("unix_ratchet:   kB:");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		printf(" %s %ld", keys[i], meminfo(keys[i]));
	printf("; pcp pages %ld; slab_virtual pages: retained %ld pending %ld metadata %ld tables %ld\n",
	       pcp_pages(), sv_counter("retained_pages"),
	       sv_counter("pending_pages"), sv_counter("metadata_pages"),
	       sv_counter("table_pages"));
	f = fopen("/proc/meminfo", "re");
	if (!f)
		return;
	printf("unix_ratchet:   moved (kB):");
	for (k = 0; fgets(line, sizeof(line), f) && k < MAX_KEYS; k++) {
		if (sscanf(line, "%31[^:]: %ld", name, &v) != 2)
			break;
		if (k < nr && !strcmp(names[k], name) && labs(v - last[k]) >= 1024)
			printf(" %s %+ld", name, v - last[k]);
		strcpy(names[k], name);
		last[k] = v;
	}
	nr = k;
	printf("\n");
	fclose(f);
}

/* Splice everything queued on @fd into @pfd and from there to @null. */
static long drain(int fd, int pfd[2], int null)
{
	long total = 0;
	ssize_t n, m;

	for (;;) {
		n = splice(fd, NULL, pfd[1], NULL, 65536, SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EAGAIN)
			return total;
		if (n <= 0)
			return -1;
		total += n;
		while (n > 0) {
			m = splice(pfd[0], NULL, null, NULL, n, 0);
			if (m <= 0)
				return -1;
			n -= m;
		}
	}
}

/* One round after a settled read of @before kB: 0, or -1 on an error. */
static int round_(size_t size, long mib, long before, long *pairs_out,
		  long *bytes_out)
{
	long pairs, i, bytes = 0, budget;
	static char msg[4096];
	int (*sv)[2], pfd[2], null;
	struct rlimit rl;

	budget = before * 1024 / 10 * 3;
	if (budget > mib << 20)
		budget = mib << 20;
	/* A pair holds about 212 kB (the default send buffer) of skbs. */
	pairs = budget / (212 * 1024) + 1;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max = pairs * 2 + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return fail("setrlimit"), -1;
	sv = calloc(pairs, sizeof(*sv));
	if (!sv || pipe(pfd))
		return fail("calloc/pipe"), -1;
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0)
		return fail("open(/dev/null)"), -1;
	memset(msg, 0x5a, sizeof(msg));
	for (i = 0; i < pairs && bytes < budget; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv[i]))
			return fail("socketpair"), -1;
		while (bytes < budget) {
			ssize_t n = write(sv[i][0], msg, size);

			if (n < 0 && errno == EAGAIN)
				break;
			if (n <= 0)
				return fail("write"), -1;
			bytes += n;
			if (n < (ssize_t)size)	/* the buffer is full */
				break;
		}
	}
	pairs = i;
	for (i = 0; i < pairs; i++) {
		if (drain(sv[i][1], pfd, null) < 0)
			return fail("splice"), -1;
		close(sv[i][0]);
		close(sv[i][1]);
	}
	close(pfd[0]);
	close(pfd[1]);
	close(null);
	free(sv);
	*pairs_out = pairs;
	*bytes_out = bytes;
	return 0;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 3000, 1500, 700 };
	long mib = argc > 1 ? atol(argv[1]) : 256;
	int rounds = argc > 2 ? atoi(argv[2]) : 3, r, bad = 0;
	long esc0, esc1, pairs, bytes, pending, start, before, after, first = 0;
	long total_limit;
	const char *esc_key = "escaped_slabs";
	size_t s;

	if (sv_counter(esc_key) < 0)
		esc_key = "pinned_slabs";
	esc0 = sv_counter(esc_key);
	start = before = settled();
	breakdown();
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (r = 0; r < rounds; r++) {
			if (round_(sizes[s], mib, before, &pairs, &bytes))
				return 1;
			after = settled();
			printf("unix_ratchet: %zu-byte messages, round %d: %ld pairs, %ld MiB spliced; free %ld -> %ld kB\n",
			       sizes[s], r + 1, pairs, bytes >> 20, before, after);
			breakdown();
			before = after;
			if (r == 0)
				first = after;
			if (r == rounds - 1 && rounds > 1) {
				printf("unix_ratchet: %zu-byte messages, rounds 2 to %d: %ld kB lost (limit %ld kB)\n",
				       sizes[s], rounds, first - after, start / 100);
				if (first - after > start / 100) {
					printf("unix_ratchet: %zu-byte messages lose memory with every round\n",
					       sizes[s]);
					bad = 1;
				}
			}
		}
	total_limit = rounds > 1 ? start / 20 : start / 100;
	printf("unix_ratchet: free %ld kB at the start, %ld kB at the end (%ld kB lost, limit %ld kB)\n",
	       start, before, start - before, total_limit);
	if (start - before > total_limit) {
		printf("unix_ratchet: %ld kB did not come back\n", start - before);
		bad = 1;
	}
	esc1 = sv_counter(esc_key);
	pending = sv_counter("pending_pages");
	if (esc0 >= 0) {
		printf("unix_ratchet: %s %ld -> %ld; pending_pages %ld\n",
		       esc_key, esc0, esc1, pending);
		if (esc1 <= esc0) {
			printf("unix_ratchet: the splices translated no slab address\n");
			bad = 1;
		}
	} else {
		printf("unix_ratchet: no %s (SLAB_VIRTUAL off)\n", SV_FILE);
	}
	if (pending > 0) {
		printf("unix_ratchet: %ld slab pages still pending\n", pending);
		bad = 1;
	}
	if (bad)
		return 1;
	printf("unix_ratchet: memory came back\n");
	return 0;
}
