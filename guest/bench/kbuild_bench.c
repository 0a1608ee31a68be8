// SPDX-License-Identifier: GPL-2.0
/*
 * A kernbench-like workload: Debian's gcc-12 compiles a fixed set of C
 * files, one after the other as make -j1 would, in the benchmark guest.
 * The files are the base kernel's scripts/dtc and scripts/dtc/libfdt
 * sources that need nothing but the C library (scripts/lib.sh,
 * kbuild_guest, puts them and the compiler in the guest).  Every kernel
 * compiles the same files with the same compiler, so the figure is what
 * the kernel's share costs: process creation, exec, page faults and
 * tmpfs I/O of cc1 and as.
 *
 * Per repetition: the time from the first fork() to the last waitpid(),
 * in instruction time under QEMU -icount, the system time the compilers
 * were charged (wait4()'s ru_stime: tick-sampled) and, where the guest
 * has a PMU (arm64 under -icount, any under KVM), the kernel instructions
 * of the compilers (a pinned counter inherited by the children,
 * exclude_user: counter_read() stops the program if it ever loses the
 * PMU), else -1.
 *
 * Output:
 *   BENCH kbuild all compile <files> <fastest_ns> <median_ns>
 *   BENCHKB <files> <median_stime_us> <median_kernel_insns>
 * and one "BENCHMETA kbuild_bench reps=N files=M" line first.
 */
#define BENCH_NAME "kbuild_bench"
#include "bench.h"

#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define GCC "/usr/bin/gcc-12"
#define SRC "/kbuild/src/scripts/dtc"

static const char *const files[] = {
	"checks.c", "data.c", "dtc.c", "fdtoverlay.c", "flattree.c",
	"fstree.c", "livetree.c", "srcpos.c", "treesource.c", "util.c",
	"libfdt/fdt.c", "libfdt/fdt_addresses.c", "libfdt/fdt_empty_tree.c",
	"libfdt/fdt_overlay.c", "libfdt/fdt_ro.c", "libfdt/fdt_rw.c",
	"libfdt/fdt_strerror.c", "libfdt/fdt_sw.c", "libfdt/fdt_wip.c",
};
#define NFILES ((int)(sizeof(files) / sizeof(files[0])))

static int reps = 3;

/* Kernel instructions of this process and the children it waits for. */
static int tree_insns_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.exclude_user = 1,
		.exclude_hv = 1,
		.inherit = 1,
		.disabled = 1,
		.pinned = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		printf("# no kernel instruction counter: %s\n", strerror(errno));
	return fd;
}

/* One compile of @file; adds its system time to @stime_us. */
static void compile(const char *file, long long *stime_us)
{
	struct rusage ru;
	int status;
	pid_t pid;

	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		const char *argv[] = { GCC, "-O2", "-Ilibfdt", "-c", file, "-o",
				       "/tmp/kbuild.o", NULL };
		char *envp[] = { "PATH=/usr/bin:/bin", "HOME=/tmp", NULL };

		if (chdir(SRC)) {
			fprintf(stderr, BENCH_NAME ": chdir(%s): %s\n", SRC, strerror(errno));
			_exit(126);
		}
		execve(GCC, (char **)argv, envp);
		fprintf(stderr, BENCH_NAME ": execve(%s): %s\n", GCC, strerror(errno));
		_exit(127);
	}
	CHECK(wait4(pid, &status, 0, &ru) == pid, "wait4");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, BENCH_NAME ": %s -c %s failed (status 0x%x)\n", GCC, file,
			status);
		exit(1);
	}
	*stime_us += ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
	long long *t, *st, *ins, fastest;
	int fd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			reps = atoi(argv[++i]);
		} else {
			fprintf(stderr, "%s: bad option '%s'\nUsage: %s [--reps N]\n",
				BENCH_NAME, argv[i], BENCH_NAME);
			return 2;
		}
	}
	CHECK(access(GCC, X_OK) == 0, "access(" GCC ")");
	t = calloc(reps, sizeof(*t));
	st = calloc(reps, sizeof(*st));
	ins = calloc(reps, sizeof(*ins));
	CHECK(t && st && ins, "calloc");
	printf("BENCHMETA %s reps=%d files=%d\n", BENCH_NAME, reps, NFILES);
	fflush(stdout);
	fd = tree_insns_open();
	for (int r = 0; r < reps; r++) {
		long long t0, c0 = 0, c1 = 0;

		if (fd >= 0) {
			CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0, "ioctl(RESET)");
			CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ioctl(ENABLE)");
			c0 = counter_read(fd, "instructions");
		}
		t0 = now_ns();
		for (int i = 0; i < NFILES; i++)
			compile(files[i], &st[r]);
		t[r] = now_ns() - t0;
		if (fd >= 0) {
			c1 = counter_read(fd, "instructions");
			CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "ioctl(DISABLE)");
		}
		ins[r] = fd >= 0 ? c1 - c0 : -1;
		unlink("/tmp/kbuild.o");
	}
	fastest = t[0];
	for (int r = 1; r < reps; r++)
		fastest = t[r] < fastest ? t[r] : fastest;
	printf("BENCH kbuild all compile %d %lld %lld\n", NFILES, fastest, median(t, reps));
	printf("BENCHKB %d %lld %lld\n", NFILES, median(st, reps), median(ins, reps));
	return 0;
}
