// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's own stress-ng (the tool of the regressions that issue 32
 * quotes), run in the benchmark guest with a fixed number of bogo
 * operations per stressor, so that every kernel does the same work and
 * the figure is the time it took: bogo-ops per second of instruction time
 * under QEMU -icount.
 *
 * scripts/bench.sh puts the binary at /stressng/stress-ng, its shared
 * libraries in /stressng/lib and the dynamic loader where the binary's
 * PT_INTERP names it (scripts/stressng-guest.py).  Each run is one
 * stress-ng process with one worker, started with --no-rand-seed so that
 * the workers draw the same "random" sizes and offsets in every boot; its
 * YAML report must show the bogo operations asked for.  stress-ng runs as user and group 65534, not as root.  The time of a run
 * is from fork() to waitpid(), stress-ng's start-up and exit included
 * (the same user-space work on every kernel).
 *
 * Output, per stressor:
 *   BENCH stressng all <stressor> <ops> <fastest_ns> <median_ns>
 * and one "BENCHMETA stressng_bench reps=N" line first.
 */
#define BENCH_NAME "stressng_bench"
#include "bench.h"

#include <sys/wait.h>

#define STRESSNG "/stressng/stress-ng"
#define NOBODY 65534
#define YAML "/tmp/stressng.yaml"
#define OUTPUT "/tmp/stressng.out"

/*
 * The stressors of issue 32 item 3, each with a bogo-op count that keeps a
 * run at a few hundred million guest instructions, and options that keep
 * the work small and the same on every kernel.
 */
static const struct stressor {
	const char *name;
	int ops;
	const char *extra[4];
} stressors[] = {
	{ "pagemove", 2, { "--pagemove-bytes", "1M" } },
	{ "mremap", 4, { "--mremap-bytes", "1M" } },
	{ "mmap", 2, { "--mmap-bytes", "1M" } },
	{ "madvise", 2, { NULL } },
	{ "fork", 20, { NULL } },
	{ "vm", 4, { "--vm-bytes", "4M" } },
};

static int reps = 5;
static const char *only;

/* What the failed run printed. */
static void show_output(void)
{
	char line[256];
	FILE *f = fopen(OUTPUT, "r");

	while (f && fgets(line, sizeof(line), f))
		fputs(line, stderr);
	if (f)
		fclose(f);
}

/*
 * stress-ng exits 0 when a stressor skips itself (not implemented on this
 * kernel, say): its report must show the very number of bogo operations
 * asked for, or the time measured something else.
 */
static void check_ops(const struct stressor *s)
{
	char line[256];
	long long ops = -1;
	FILE *f;

	f = fopen(YAML, "r");
	CHECK(f, "fopen(" YAML ")");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " bogo-ops: %lld", &ops) == 1)
			break;
	fclose(f);
	if (ops != s->ops) {
		show_output();
		fprintf(stderr, BENCH_NAME ": stress-ng --%s ran %lld bogo operations, not %d\n",
			s->name, ops, s->ops);
		exit(1);
	}
}

/* One stress-ng run; its time in ns.  A run that fails stops the program. */
static long long run(const struct stressor *s)
{
	char stressor[64], ops_opt[64], ops[16];
	const char *argv[16];
	int n = 0, status;
	long long t0, t1;
	pid_t pid;

	snprintf(stressor, sizeof(stressor), "--%s", s->name);
	snprintf(ops_opt, sizeof(ops_opt), "--%s-ops", s->name);
	snprintf(ops, sizeof(ops), "%d", s->ops);
	argv[n++] = STRESSNG;
	argv[n++] = "--quiet";
	argv[n++] = "--metrics-brief";
	argv[n++] = "--yaml";
	argv[n++] = YAML;
	argv[n++] = "--no-rand-seed";
	argv[n++] = "--temp-path";
	argv[n++] = "/tmp";
	argv[n++] = stressor;
	argv[n++] = "1";
	argv[n++] = ops_opt;
	argv[n++] = ops;
	for (int i = 0; i < 4 && s->extra[i]; i++)
		argv[n++] = s->extra[i];
	argv[n] = NULL;

	unlink(YAML);
	fflush(stdout);
	t0 = now_ns();
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		char *envp[] = { "LD_LIBRARY_PATH=/stressng/lib", "PATH=/bin",
				 "HOME=/tmp", NULL };

		/*
		 * As an ordinary user: as root, the madvise stressor also
		 * poisons pages (MADV_HWPOISON, MADV_SOFT_OFFLINE), which
		 * takes them out of the guest for good.
		 */
		if (setgid(NOBODY) || setuid(NOBODY)) {
			fprintf(stderr, BENCH_NAME ": setuid(%d): %s\n", NOBODY,
				strerror(errno));
			_exit(126);
		}
		/* Its messages to a file: console output is kernel work too. */
		int fd = open(OUTPUT, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
			fprintf(stderr, BENCH_NAME ": %s: %s\n", OUTPUT, strerror(errno));
			_exit(126);
		}
		execve(STRESSNG, (char **)argv, envp);
		fprintf(stderr, BENCH_NAME ": execve(%s): %s\n", STRESSNG, strerror(errno));
		_exit(127);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	t1 = now_ns();
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		show_output();
		fprintf(stderr, BENCH_NAME ": stress-ng %s failed (status 0x%x)\n",
			stressor, status);
		exit(1);
	}
	check_ops(s);
	return t1 - t0;
}

int main(int argc, char **argv)
{
	long long *t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else {
			fprintf(stderr, "%s: bad option '%s'\nUsage: %s [--reps N] [--only STRESSOR]\n",
				BENCH_NAME, argv[i], BENCH_NAME);
			return 2;
		}
	}
	CHECK(access(STRESSNG, X_OK) == 0, "access(" STRESSNG ")");
	t = calloc(reps, sizeof(*t));
	CHECK(t, "calloc");
	printf("BENCHMETA %s reps=%d\n", BENCH_NAME, reps);
	for (size_t i = 0; i < sizeof(stressors) / sizeof(stressors[0]); i++) {
		const struct stressor *s = &stressors[i];
		long long fastest;

		if (only && strcmp(only, s->name))
			continue;
		for (int r = 0; r < reps; r++)
			t[r] = run(s);
		fastest = t[0];
		for (int r = 1; r < reps; r++)
			fastest = t[r] < fastest ? t[r] : fastest;
		printf("BENCH stressng all %s %d %lld %lld\n", s->name, s->ops,
		       fastest, median(t, reps));
		fflush(stdout);
	}
	return 0;
}
