// SPDX-License-Identifier: GPL-2.0
/*
 * init for the test VM: mount the pseudo file systems, run every program
 * listed in /etc/manifest with a time limit, report the results as KTAP
 * on the console, and stop the machine.
 *
 * Manifest lines (already filtered for this architecture by the host):
 *	run  NAME TIMEOUT_SECONDS PROGRAM [ARGS...]
 *	skip NAME REASON...
 *
 * A program's own output is indented by four spaces, so that its TAP
 * becomes a subtest of ours.  Programs write to a pseudo-terminal, so that
 * stdio buffers lines as it does on a console and output printed before a
 * fork() is not repeated by the child.  Exit status 0 is "ok", 4 (KSFT_SKIP) is
 * "ok # SKIP", anything else, a signal or the time limit is "not ok".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS	128
#define MAX_ARGS	32
#define KSFT_SKIP	4

struct test {
	int skip;
	char *name;
	int timeout;
	char *argv[MAX_ARGS + 1];
	char *reason;
};

static struct test tests[MAX_TESTS];
static int ntests;

static void out(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len > (int)sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	if (write(STDOUT_FILENO, buf, len) < 0)
		return;
}

static void do_mount(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		out("# init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

static void setup_console(void)
{
	int fd = open("/dev/console", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static char *next_word(char **p)
{
	char *s = *p, *w;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return w;
}

static void read_manifest(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f) {
		out("# init: cannot open %s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f) && ntests < MAX_TESTS) {
		struct test *t = &tests[ntests];
		char *p = line, *kind, *w;
		int i = 0;

		line[strcspn(line, "\n")] = '\0';
		kind = next_word(&p);
		if (!kind || kind[0] == '#')
			continue;
		t->name = strdup(next_word(&p) ?: "unnamed");
		if (!strcmp(kind, "skip")) {
			while (*p == ' ' || *p == '\t')
				p++;
			t->skip = 1;
			t->reason = strdup(p);
		} else if (!strcmp(kind, "run")) {
			w = next_word(&p);
			t->timeout = w ? atoi(w) : 60;
			while (i < MAX_ARGS && (w = next_word(&p)))
				t->argv[i++] = strdup(w);
			t->argv[i] = NULL;
			if (!i)
				continue;
		} else {
			out("# init: bad manifest line: %s\n", line);
			continue;
		}
		ntests++;
	}
	fclose(f);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Copy the child's output to the console, four spaces in, line by line. */
static ssize_t relay(int fd, char *pending, size_t *plen)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	ssize_t i;

	for (i = 0; i < n; i++) {
		pending[(*plen)++] = buf[i];
		if (buf[i] == '\n' || *plen == 4000) {
			if (pending[*plen - 1] != '\n')
				pending[(*plen)++] = '\n';
			out("    %.*s", (int)*plen, pending);
			*plen = 0;
		}
	}
	return n;
}

/*
 * The channel a test writes to: a pty in raw mode, or a pipe if the kernel
 * has no ptys.  *rd is read by init, *wr becomes the test's stdout/stderr.
 */
static int open_channel(int *rd, int *wr)
{
	struct termios tio;
	int m, s, p[2];

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m >= 0 && !grantpt(m) && !unlockpt(m)) {
		s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (s >= 0) {
			if (!tcgetattr(s, &tio)) {
				cfmakeraw(&tio);
				tcsetattr(s, TCSANOW, &tio);
			}
			*rd = m;
			*wr = s;
			return 0;
		}
	}
	if (m >= 0)
		close(m);
	if (pipe2(p, O_CLOEXEC))
		return -1;
	*rd = p[0];
	*wr = p[1];
	return 0;
}

static void run_test(int num, struct test *t)
{
	char pending[4100];
	size_t plen = 0;
	int pipefd[2], status = 0, timed_out = 0;
	double start, deadline;
	pid_t pid;

	if (t->skip) {
		out("ok %d %s # SKIP %s\n", num, t->name, t->reason);
		return;
	}
	out("# running %s (limit %d s)\n", t->name, t->timeout);
	if (open_channel(&pipefd[0], &pipefd[1])) {
		out("not ok %d %s # pty/pipe: %s\n", num, t->name, strerror(errno));
		return;
	}
	start = now();
	deadline = start + t->timeout;
	pid = fork();
	if (pid == 0) {
		setsid();
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		if (chdir("/tmp"))
			_exit(127);
		execv(t->argv[0], t->argv);
		fprintf(stderr, "exec %s: %s\n", t->argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		out("not ok %d %s # fork: %s\n", num, t->name, strerror(errno));
		return;
	}
	for (;;) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		int left = (int)((deadline - now()) * 1000);
		int r;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		r = poll(&pfd, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if ((pfd.revents & POLLIN) && relay(pipefd[0], pending, &plen) > 0)
			continue;
		/* POLLHUP (pipe) or POLLERR/EIO (pty): every writer is gone. */
		break;
	}
	if (timed_out)
		kill(-pid, SIGKILL);
	close(pipefd[0]);
	if (plen)
		out("    %.*s\n", (int)plen, pending);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Reap anything the test left behind in its session. */
	kill(-pid, SIGKILL);

	if (timed_out)
		out("not ok %d %s # TIMEOUT after %d s\n", num, t->name, t->timeout);
	else if (WIFSIGNALED(status))
		out("not ok %d %s # killed by signal %d (%s)\n", num, t->name,
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WEXITSTATUS(status) == KSFT_SKIP)
		out("ok %d %s # SKIP (exit status %d)\n", num, t->name, KSFT_SKIP);
	else if (WEXITSTATUS(status))
		out("not ok %d %s # exit status %d\n", num, t->name,
		    WEXITSTATUS(status));
	else
		out("ok %d %s # %.1f s\n", num, t->name, now() - start);
}

int main(void)
{
	struct utsname u;
	int i;

	do_mount("devtmpfs", "/dev", "devtmpfs");
	setup_console();
	do_mount("proc", "/proc", "proc");
	do_mount("devpts", "/dev/pts", "devpts");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");
	do_mount("tmpfs", "/tmp", "tmpfs");
	setenv("PATH", "/tests:/bin", 1);
	setenv("HOME", "/tmp", 1);
	signal(SIGCHLD, SIG_DFL);

	read_manifest("/etc/manifest");
	uname(&u);
	out("KTAP version 1\n");
	out("# guest: %s %s %s\n", u.sysname, u.release, u.machine);
	out("1..%d\n", ntests);
	for (i = 0; i < ntests; i++)
		run_test(i + 1, &tests[i]);
	out("# guest: all tests done\n");

	sync();
	reboot(RB_AUTOBOOT);	/* QEMU runs with -no-reboot: this ends it */
	return 0;
}
