// SPDX-License-Identifier: GPL-2.0
/*
 * What slab-heavy work costs, run unchanged on the unpatched kernel, the
 * patched one, and the patched one booted with slab_virtual=off.  With
 * SLAB_VIRTUAL (x86_64) every slab is mapped at a slot of a virtual
 * region of its own; a freed slab is queued, and a work item unmaps the
 * queued slabs, flushes the TLB once for the batch and frees their pages.
 *
 * Usage: slab_bench [--reps N] [--big-reps M] [--cycles]
 *
 * Rows, in the order they run, each after WARMUP untimed operations (one
 * burst for the batch rows).  Per-operation rows time each operation on
 * its own: N samples of BATCH operations, each sample after a 20 ms sleep
 * (settle(); free under QEMU -icount sleep=off) so that the deferred work
 * of the previous one (RCU callbacks, the SLAB_VIRTUAL work item) is done:
 *   all unix_pingpong 64  a 64-byte message written into a SOCK_STREAM
 *                         AF_UNIX socketpair, echoed by a second process
 *                         and read back (hackbench-style): per round trip
 *   all pipe_pingpong 64  the same through two pipes
 *   all fork 1            fork() of this small static process, the child's
 *                         _exit(0) and the parent's waitpid()
 *   all tmpfs_file 1      open(O_CREAT|O_EXCL) + close + stat + unlink of a
 *                         file in a tmpfs this program mounts
 *   hot dgram SIZE        send() of a SIZE-byte datagram into an AF_UNIX
 *                         SOCK_DGRAM socketpair and recv() of it at the
 *                         other end: the skb and its data, kmalloc()ed and
 *                         freed right after
 *   hot msg SIZE          the same with a System V message queue: msgsnd()
 *                         + msgrcv() of a SIZE-byte message (msg_msg, the
 *                         usual cross-cache spray object; in every bench
 *                         kernel, which AF_UNIX is not: it needs CONFIG_NET)
 * and, for M samples of one timed burst each (each after a settle()):
 *   batch dgram SIZE      BATCH_MSGS datagrams sent into the socketpair (its
 *                         buffers large enough), then all received: per
 *                         datagram.  The burst fills new slabs and empties
 *                         them again, so SLUB frees slabs within it.
 *   batch msg SIZE        the same with a message queue (where lower,
 *                         kernel.msgmax is raised to 16384 bytes and
 *                         kernel.msgmnb to BATCH_MSGS * 16384)
 * SIZE is 64, 512, 4096 and 16384 bytes.  Each figure is in CLOCK_MONOTONIC
 * nanoseconds, which under QEMU -icount shift=0 are guest instructions,
 * user and kernel: the user-space part is the same binary on every kernel.
 * Without AF_UNIX (socketpair() fails with EAFNOSUPPORT, or ENOSYS
 * without CONFIG_NET: the bench configuration of tinyconfig has no
 * networking) the program says so once and leaves the unix_pingpong and
 * dgram rows out.
 *
 * Output, one pair of lines per row:
 *   BENCH slab <state> <row> <n> <fastest_ns> <median_ns>
 *   BENCHSLAB <state> <row> <n> <tlb_ipis> <sv_flushes> <sv_freed_pages>
 *             <sv_pending_pages> <sv_escaped_slabs>
 * fastest_ns: the fastest single operation of the row (batch rows: the
 * fastest burst / BATCH_MSGS); median_ns: the median over the samples of
 * their mean per operation.  The counters are read outside every timed
 * interval: once after the row's set-up and warm-up, once after its last
 * sample and a settle(), so that they include the deferred frees of the
 * row's operations, then divided by the row's operations:
 *   tlb_ipis      the "TLB:" line of /proc/interrupts (TLB shootdown IPIs
 *                 received), summed over the CPUs; -1 where there is no
 *                 such line (arm64 flushes by broadcast, without IPIs)
 *   sv_flushes    tlb_flushes of /sys/kernel/debug/slab_virtual (one per
 *                 batch the work item unmapped)
 *   sv_freed_pages  freed_pages of that file: pages of freed slabs the
 *                 work item gave back to the page allocator
 * and two whole-row figures:
 *   sv_pending_pages  pending_pages right after the last timed sample:
 *                 pages of freed slabs whose unmapping had not run yet,
 *                 so was left out of the time (it runs in the settle)
 *   sv_escaped_slabs   the change of escaped_slabs over the row
 * The first three with four decimals; -1 for each slab_virtual figure
 * where that file does not exist (the base kernel, slab_virtual=off,
 * arm64).
 *
 * The first row starts once the guest has been up for BOOT_SETTLE_S
 * seconds (boot_settle()).
 *
 * At the end, one line of what the region costs in memory:
 *   BENCHSLABMEM <metadata_pages> <table_pages> <carved_bytes>
 *                <region_bytes> <escaped_slabs> <abandoned_slots> <slab_kb>
 * the slab_virtual counters (-1 without the file) and the Slab: line of
 * /proc/meminfo, in kB.
 *
 * Before any row, one line gives the method's constants, which the report
 * quotes (scripts/bench-report.py):
 *   BENCHMETA slab_bench reps=N batch=B big_reps=M batch_msgs=K
 *             settle_us=U cycles=0|1 unix=0|1
 *
 * --cycles (make bench ACCEL=kvm passes it to every program) is accepted,
 * but this program counts no ref-cycles: it says so and reports time.
 *
 * Every call's return value is checked; a failing call aborts the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define BENCH_NAME "slab_bench"
#include "bench.h"

#define BATCH		8
#define BATCH_MSGS	512
#define MAX_SIZE	16384
#define PINGPONG_BYTES	64
#define WARMUP		16
#define SETTLE_US	20000
#define BOOT_SETTLE_S	5
#define SV_FILE		DEBUGFS "/slab_virtual"
#define TMPFS_DIR	"/tmp/slab_bench"
#define MSGMAX		"/proc/sys/kernel/msgmax"
#define MSGMNB		"/proc/sys/kernel/msgmnb"

static int reps = 101, big_reps = 11;
static int have_unix = 1, have_sv;
static const int sizes[] = { 64, 512, 4096, 16384 };

static void settle(void)
{
	CHECK(!usleep(SETTLE_US), "usleep(settle)");
}

/*
 * Boot-time work that would land in the first rows when this program runs
 * first in a boot (make bench's slab_virtual=off boot runs it alone): x86's
 * refined TSC calibration, a work item one second after the clocksource is
 * registered, switches the clocksource.  Wait until the guest has been up
 * for BOOT_SETTLE_S (free under -icount sleep=off: idle time is skipped).
 */
static void boot_settle(void)
{
	double up;
	FILE *f = fopen("/proc/uptime", "re");

	CHECK(f, "fopen(/proc/uptime)");
	CHECK(fscanf(f, "%lf", &up) == 1, "read(/proc/uptime)");
	fclose(f);
	if (up < BOOT_SETTLE_S)
		CHECK(!usleep((useconds_t)((BOOT_SETTLE_S - up) * 1e6)), "usleep(boot)");
}

/* ---- counters, read outside the timed intervals ---- */

/* Of /sys/kernel/debug/slab_virtual; all -1 without the file. */
struct sv {
	long long region_bytes, carved_bytes, metadata_pages, table_pages;
	long long pending_pages, freed_pages, tlb_flushes, escaped_slabs;
	long long abandoned_slots, retained_pages;
};

/* The counters now (opened for each read: debugfs files cannot seek). */
static void sv_read(struct sv *s)
{
	static const struct { const char *key; size_t off; } keys[] = {
#define K(f) { #f, offsetof(struct sv, f) }
		K(region_bytes), K(carved_bytes), K(metadata_pages), K(table_pages),
		K(pending_pages), K(freed_pages), K(tlb_flushes), K(escaped_slabs),
		K(abandoned_slots), K(retained_pages),
#undef K
	};
	char key[64];
	long long v;
	FILE *f;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		*(long long *)((char *)s + keys[i].off) = -1;
	if (!have_sv)
		return;
	f = fopen(SV_FILE, "re");
	CHECK(f, "fopen(" SV_FILE ")");
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(key, keys[i].key))
				*(long long *)((char *)s + keys[i].off) = v;
	fclose(f);
}

/* TLB shootdown IPIs received by all CPUs ("TLB:" of /proc/interrupts); -1 without. */
static long long tlb_ipis(void)
{
	FILE *f = fopen("/proc/interrupts", "re");
	long long sum = -1;
	char line[4096];

	CHECK(f, "fopen(/proc/interrupts)");
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "TLB:", 4))
			continue;
		p += 4;
		sum = 0;
		for (;;) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		break;
	}
	fclose(f);
	return sum;
}

/* The Slab: line of /proc/meminfo, in kB. */
static long long slab_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	long long kb = -1;
	char line[256];

	CHECK(f, "fopen(/proc/meminfo)");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---- rows ---- */

static long long *v;
static long long row_ipis;
static struct sv row_sv;

static void row_start(void)
{
	row_ipis = tlb_ipis();
	sv_read(&row_sv);
}

/*
 * The row's lines.  @ops: operations over all samples; @pending: the
 * slab_virtual pending pages right after the last timed sample.
 */
static void row_end(const char *state, const char *row, int n, long long fastest,
		    long long med, long long ops, long long pending)
{
	long long ipis = tlb_ipis();
	struct sv s;

	sv_read(&s);
	printf("BENCH slab %s %s %d %lld %lld\n", state, row, n, fastest, med);
	printf("BENCHSLAB %s %s %d ", state, row, n);
	if (ipis < 0)
		printf("-1 ");
	else
		printf("%.4f ", (double)(ipis - row_ipis) / ops);
	if (!have_sv)
		printf("-1 -1 -1 -1\n");
	else
		printf("%.4f %.4f %lld %lld\n", (double)(s.tlb_flushes - row_sv.tlb_flushes) / ops,
		       (double)(s.freed_pages - row_sv.freed_pages) / ops, pending,
		       s.escaped_slabs - row_sv.escaped_slabs);
	fflush(stdout);
}

/*
 * Time @op: @samples samples of @batch calls, each call timed on its own,
 * each sample after a settle().  One call makes @per_call operations.
 * WARMUP untimed calls first (at least one), so that the caches the row
 * uses have slabs.
 */
static void run_row(const char *state, const char *row, int n, void (*op)(void),
		    int samples, int batch, int per_call)
{
	long long fastest = LLONG_MAX;
	struct sv s;

	for (int i = 0; i < (per_call > 1 ? 1 : WARMUP); i++)
		op();
	settle();
	row_start();
	for (int r = 0; r < samples; r++) {
		settle();
		v[r] = 0;
		for (int b = 0; b < batch; b++) {
			long long t = now_ns();

			op();
			t = now_ns() - t;
			v[r] += t;
			if (t < fastest)
				fastest = t;
		}
		v[r] /= (long long)batch * per_call;
	}
	sv_read(&s);
	settle();
	row_end(state, row, n, fastest / per_call, median(v, samples),
		(long long)samples * batch * per_call, s.pending_pages);
}

/* ---- ping-pong between two processes ---- */

static char buf[MAX_SIZE];
static int to_peer, from_peer;
static pid_t peer;

static void readn(int fd, char *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		CHECK(r > 0, "read");
		p += r;
		n -= r;
	}
}

static void writen(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		CHECK(r > 0, "write");
		p += r;
		n -= r;
	}
}

static void pingpong(void)
{
	writen(to_peer, buf, PINGPONG_BYTES);
	readn(from_peer, buf, PINGPONG_BYTES);
}

/* A child that echoes PINGPONG_BYTES messages from @in to @out until EOF. */
static void start_peer(int in, int out, int close1, int close2)
{
	peer = fork();
	CHECK(peer >= 0, "fork");
	if (peer)
		return;
	close(close1);
	if (close2 != close1)
		close(close2);
	for (;;) {
		char msg[PINGPONG_BYTES];
		size_t got = 0;

		while (got < sizeof(msg)) {
			ssize_t r = read(in, msg + got, sizeof(msg) - got);

			if (!r)
				_exit(0);
			CHECK(r > 0, "read (peer)");
			got += r;
		}
		writen(out, msg, sizeof(msg));
	}
}

static void stop_peer(void)
{
	int status;

	close(to_peer);
	if (from_peer != to_peer)
		close(from_peer);
	CHECK(waitpid(peer, &status, 0) == peer, "waitpid(peer)");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "peer exit");
}

static void bench_unix_pingpong(void)
{
	int sv[2];

	CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), "socketpair(SOCK_STREAM)");
	start_peer(sv[1], sv[1], sv[0], sv[0]);
	close(sv[1]);
	to_peer = from_peer = sv[0];
	run_row("all", "unix_pingpong", PINGPONG_BYTES, pingpong, reps, BATCH, 1);
	stop_peer();
}

static void bench_pipe_pingpong(void)
{
	int down[2], up[2];

	CHECK(!pipe2(down, O_CLOEXEC) && !pipe2(up, O_CLOEXEC), "pipe2");
	start_peer(down[0], up[1], down[1], up[0]);
	close(down[0]);
	close(up[1]);
	to_peer = down[1];
	from_peer = up[0];
	run_row("all", "pipe_pingpong", PINGPONG_BYTES, pingpong, reps, BATCH, 1);
	stop_peer();
}

/* ---- fork, tmpfs ---- */

static void fork_exit_wait(void)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	CHECK(pid > 0, "fork");
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child exit");
}

static void tmpfs_file(void)
{
	struct stat st;
	int fd;

	fd = open(TMPFS_DIR "/f", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0, "open(O_CREAT)");
	CHECK(!close(fd), "close");
	CHECK(!stat(TMPFS_DIR "/f", &st), "stat");
	CHECK(!unlink(TMPFS_DIR "/f"), "unlink");
}

static void bench_fork(void)
{
	run_row("all", "fork", 1, fork_exit_wait, reps, BATCH, 1);
}

static void bench_tmpfs(void)
{
	CHECK(!mkdir(TMPFS_DIR, 0700) || errno == EEXIST, "mkdir(" TMPFS_DIR ")");
	CHECK(!mount("tmpfs", TMPFS_DIR, "tmpfs", 0, "mode=0700"), "mount(tmpfs)");
	run_row("all", "tmpfs_file", 1, tmpfs_file, reps, BATCH, 1);
	CHECK(!umount(TMPFS_DIR), "umount(" TMPFS_DIR ")");
}

/* ---- datagrams and messages of SIZE bytes ---- */

static int dg[2], size;

static void dgram_hot(void)
{
	CHECK(send(dg[0], buf, size, MSG_DONTWAIT) == size, "send");
	CHECK(recv(dg[1], buf, size, MSG_DONTWAIT) == size, "recv");
}

static void dgram_batch(void)
{
	for (int i = 0; i < BATCH_MSGS; i++)
		CHECK(send(dg[0], buf, size, MSG_DONTWAIT) == size, "send (batch)");
	for (int i = 0; i < BATCH_MSGS; i++)
		CHECK(recv(dg[1], buf, size, MSG_DONTWAIT) == size, "recv (batch)");
}

/* A socket buffer of @bytes; as root past net.core.[wr]mem_max. */
static void sockbuf(int fd, int force, int plain, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, force, &bytes, sizeof(bytes)))
		CHECK(!setsockopt(fd, SOL_SOCKET, plain, &bytes, sizeof(bytes)),
		      "setsockopt(SO_SNDBUF/SO_RCVBUF)");
}

static void bench_dgram(const char *state)
{
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* What a burst holds, with room for each skb's overhead. */
		int bytes = BATCH_MSGS * (sizes[i] + 4096) * 2;

		size = sizes[i];
		CHECK(!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, dg),
		      "socketpair(SOCK_DGRAM)");
		if (!strcmp(state, "hot")) {
			run_row(state, "dgram", size, dgram_hot, reps, BATCH, 1);
		} else {
			sockbuf(dg[0], SO_SNDBUFFORCE, SO_SNDBUF, bytes);
			sockbuf(dg[1], SO_RCVBUFFORCE, SO_RCVBUF, bytes);
			run_row(state, "dgram", size, dgram_batch, big_reps, 1, BATCH_MSGS);
		}
		close(dg[0]);
		close(dg[1]);
	}
}

static struct { long mtype; char mtext[MAX_SIZE]; } msg = { .mtype = 1 };
static int mq;

static void msg_hot(void)
{
	CHECK(!msgsnd(mq, &msg, size, IPC_NOWAIT), "msgsnd");
	CHECK(msgrcv(mq, &msg, size, 0, IPC_NOWAIT) == size, "msgrcv");
}

static void msg_batch(void)
{
	for (int i = 0; i < BATCH_MSGS; i++)
		CHECK(!msgsnd(mq, &msg, size, IPC_NOWAIT), "msgsnd (batch)");
	for (int i = 0; i < BATCH_MSGS; i++)
		CHECK(msgrcv(mq, &msg, size, 0, IPC_NOWAIT) == size, "msgrcv (batch)");
}

/* The sysctl @path at least @min. */
static void raise_sysctl(const char *path, long min)
{
	char val[32];
	FILE *f = fopen(path, "r+e");

	CHECK(f, path);
	CHECK(fgets(val, sizeof(val), f), path);
	if (atol(val) < min) {
		rewind(f);
		CHECK(fprintf(f, "%ld\n", min) > 0 && !fflush(f), path);
	}
	fclose(f);
}

static void bench_msg(const char *state)
{
	/* Messages of MAX_SIZE; queues that hold a burst (msg_qbytes). */
	raise_sysctl(MSGMAX, MAX_SIZE);
	raise_sysctl(MSGMNB, (long)BATCH_MSGS * MAX_SIZE);
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size = sizes[i];
		mq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
		CHECK(mq >= 0, "msgget");
		if (!strcmp(state, "hot")) {
			run_row(state, "msg", size, msg_hot, reps, BATCH, 1);
		} else {
			run_row(state, "msg", size, msg_batch, big_reps, 1, BATCH_MSGS);
		}
		CHECK(!msgctl(mq, IPC_RMID, NULL), "msgctl(IPC_RMID)");
	}
}

/* Whether the kernel has AF_UNIX (CONFIG_UNIX, which needs CONFIG_NET). */
static void unix_probe(void)
{
	int sv[2];

	if (!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		close(sv[0]);
		close(sv[1]);
		return;
	}
	/* ENOSYS: no CONFIG_NET, so no socket calls at all. */
	CHECK(errno == EAFNOSUPPORT || errno == ENOSYS, "socketpair(AF_UNIX)");
	printf("# no AF_UNIX sockets (socketpair: %s): no unix_pingpong and dgram rows\n",
	       strerror(errno));
	have_unix = 0;
}

static void memory_line(void)
{
	struct sv s;

	sv_read(&s);
	printf("BENCHSLABMEM %lld %lld %lld %lld %lld %lld %lld %lld\n", s.metadata_pages,
	       s.table_pages, s.carved_bytes, s.region_bytes, s.escaped_slabs,
	       s.abandoned_slots, slab_kb(), s.retained_pages);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int cycles = 0;

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
	v = calloc(reps > big_reps ? reps : big_reps, sizeof(*v));
	CHECK(v, "calloc");
	unix_probe();
	printf("BENCHMETA %s reps=%d batch=%d big_reps=%d batch_msgs=%d settle_us=%d cycles=%d unix=%d\n",
	       BENCH_NAME, reps, BATCH, big_reps, BATCH_MSGS, SETTLE_US, cycles, have_unix);
	if (cycles)
		printf("# %s counts no ref-cycles: time only\n", BENCH_NAME);
	have_sv = debugfs_probe(SV_FILE, "slab_virtual figures are -1");
	fflush(stdout);
	boot_settle();

	if (have_unix)
		bench_unix_pingpong();
	bench_pipe_pingpong();
	bench_fork();
	bench_tmpfs();
	if (have_unix) {
		bench_dgram("hot");
		bench_dgram("batch");
	}
	bench_msg("hot");
	bench_msg("batch");
	memory_line();
	return 0;
}
