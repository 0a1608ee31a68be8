// SPDX-License-Identifier: GPL-2.0
/*
 * A task that oopses inside a lazy-MMU section must still be able to exit.
 * On x86 with kpkeys, mprotect's and zap's PTE loops write bare inside
 * their section, trusting it to have raised the level; a task that died
 * inside a section used to keep that section's count, so the zap of its
 * exit counted as nested, did not raise the level, and its first PTE write
 * faulted: a second oops, "Fixing recursive fault", and the task stuck
 * with its mm's locks held.
 *
 * The child maps and touches memory (so that its exit zaps PTEs), then
 * writes debugfs kpkeys_die_in_section, which oopses (a trap) inside a
 * lazy-MMU section (CONFIG_KPKEYS_PGTABLE_TEST_HOOKS).  The
 * child must die of SIGSEGV within a few seconds, and another process must
 * then map, change and unmap memory and exit normally.  The verdict
 * (scripts/verdict.py) accepts exactly that one oops between the markers
 * this program writes to /dev/kmsg, and fails the run on any other report.
 * An oops turns lockdep off for the rest of the boot: guest/manifest runs
 * this test among the last.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOOK "/sys/kernel/debug/kpkeys_die_in_section"
#define PAGES 64

static void kmsg(const char *line)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd < 0 || write(fd, line, strlen(line)) < 0) {
		perror("/dev/kmsg");
		exit(1);
	}
	close(fd);
}

/* Map, touch and return PAGES pages, or exit with @code. */
static char *touched(int code)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, PAGES * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		_exit(code);
	for (i = 0; i < PAGES; i++)
		p[i * pg] = 1;
	return p;
}

/* Wait for @pid for at most @secs seconds; its status, or -1. */
static int wait_for(pid_t pid, int secs)
{
	int status, i;

	for (i = 0; i < secs * 10; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0) {
			perror("waitpid");
			return -1;
		}
		usleep(100000);
	}
	return -1;
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int status, fails = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (access(HOOK, W_OK)) {
		printf("SKIP: %s: %s (kpkeys off, or not a test kernel)\n",
		       HOOK, strerror(errno));
		return 4;
	}

	kmsg("<4>guest: expected report kpkeys_die begin\n");
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		int fd;

		touched(2);
		fd = open(HOOK, O_WRONLY);
		if (fd < 0 || write(fd, "1", 1) < 0)
			_exit(3);
		_exit(0);	/* the write came back: no oops */
	}
	status = wait_for(pid, 20);
	kmsg("<4>guest: expected report kpkeys_die end\n");
	if (status == -1) {
		printf("FAIL: the child that oopsed in a lazy-MMU section did not finish its exit in 20 s\n");
		return 1;
	}
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV) {
		printf("FAIL: the child %s %d, not the oops's SIGSEGV\n",
		       WIFSIGNALED(status) ? "died of signal" : "exited with",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		fails++;
	} else {
		printf("the child oopsed in a lazy-MMU section and exited (SIGSEGV)\n");
	}

	/* Page tables still work for everybody else. */
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		char *p = touched(2);

		if (mprotect(p, PAGES * pg, PROT_READ) ||
		    madvise(p, PAGES * pg, MADV_DONTNEED) ||
		    munmap(p, PAGES * pg))
			_exit(3);
		_exit(0);
	}
	status = wait_for(pid, 20);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("FAIL: a later process could not map, mprotect, zap and unmap (status %d)\n",
		       status);
		fails++;
	} else {
		printf("a later process mapped, changed and unmapped memory\n");
	}
	return fails ? 1 : 0;
}
