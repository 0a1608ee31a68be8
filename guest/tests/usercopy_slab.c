// SPDX-License-Identifier: GPL-2.0
/*
 * Hardened usercopy must still refuse a copy that runs past a slab object
 * when the object lives in SLAB_VIRTUAL's region (issue 12): there the
 * slab is found through the region's metadata, not through the linear
 * map's struct page.  LKDTM does the copies (CONFIG_LKDTM, debugfs
 * provoke-crash/DIRECT):
 *
 *   USERCOPY_SLAB_SIZE_TO       a kmalloc() object, copied out with a size
 *                               past its end;
 *   USERCOPY_SLAB_WHITELIST_TO  an object of a cache with a usercopy window,
 *                               copied out from outside the window.
 *
 * Each runs in a child: a refused copy is a BUG() in mm/usercopy.c, which
 * kills the child with SIGSEGV (x86_64: invalid opcode, arm64: BRK) and
 * leaves the report in the console.  The verdict accepts exactly that
 * report between the two /dev/kmsg lines this program writes around the
 * copies ("guest: expected report usercopy begin/end", scripts/verdict.py)
 * and fails the run on any other.  An oops turns lockdep off for the rest
 * of the boot: guest/manifest runs this test last.
 *
 * It fails when a child comes back (the copy was allowed: LKDTM then says
 * "FAIL: bad usercopy not detected!"), dies otherwise, or when the kernel
 * log lacks the usercopy report naming the object's cache.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIRECT "/sys/kernel/debug/provoke-crash/DIRECT"

static void kmsg(const char *line)
{
	int fd = open("/dev/kmsg", O_WRONLY);

	if (fd < 0 || write(fd, line, strlen(line)) < 0) {
		perror("/dev/kmsg");
		exit(1);
	}
	close(fd);
}

/* Run one LKDTM crash type in a child; 0 if it died of SIGSEGV. */
static int provoke(const char *type)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (!pid) {
		int fd = open(DIRECT, O_WRONLY);

		if (fd < 0) {
			perror(DIRECT);
			_exit(2);
		}
		if (write(fd, type, strlen(type)) < 0)
			_exit(3);
		/* The copy went through. */
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return -1;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		printf("%s: refused, the writer died of SIGSEGV\n", type);
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		printf("FAIL %s: the over-long copy was allowed\n", type);
	else if (WIFEXITED(status))
		printf("FAIL %s: the writer exited with %d\n", type,
		       WEXITSTATUS(status));
	else
		printf("FAIL %s: the writer died of signal %d\n", type,
		       WTERMSIG(status));
	return -1;
}

/*
 * Count the kernel log records left in @fd that contain @what[i], among
 * the usercopy reports that follow LKDTM's "attempting bad" line: a
 * report after its "attempting good" line is a false positive (a refused
 * copy within the object), and counts in @n[nr] instead.
 */
static void count_records(int fd, const char * const *what, int *n, int nr)
{
	bool bad = false;
	char rec[8192];
	int i;

	for (;;) {
		ssize_t len = read(fd, rec, sizeof(rec) - 1);

		if (len < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			break;			/* EAGAIN: no more */
		}
		rec[len] = '\0';
		if (strstr(rec, "lkdtm: attempting bad "))
			bad = true;
		else if (strstr(rec, "lkdtm: attempting good "))
			bad = false;
		if (!strstr(rec, what[0]))
			continue;
		if (!bad) {
			n[nr]++;
			continue;
		}
		for (i = 0; i < nr; i++)
			if (strstr(rec, what[i]))
				n[i]++;
		bad = false;
	}
}

int main(void)
{
	static const char * const types[] = {
		"USERCOPY_SLAB_SIZE_TO", "USERCOPY_SLAB_WHITELIST_TO",
	};
	static const char * const what[] = {
		"usercopy: Kernel memory exposure attempt detected from SLUB object",
		"from SLUB object 'lkdtm-usercopy'",
	};
	int fd, i, n[3] = { 0, 0, 0 }, fails = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (access(DIRECT, W_OK)) {
		printf("FAIL: %s: %s (the test kernels have CONFIG_LKDTM=y)\n",
		       DIRECT, strerror(errno));
		return 1;
	}
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0 || lseek(fd, 0, SEEK_END) < 0) {
		perror("/dev/kmsg");
		return 1;
	}

	kmsg("<4>guest: expected report usercopy begin\n");
	for (i = 0; i < 2; i++)
		if (provoke(types[i]))
			fails++;
	kmsg("<4>guest: expected report usercopy end\n");

	/*
	 * One report per copy, naming the cache: kmalloc-* for the first,
	 * lkdtm-usercopy (the cache with the window) for the second.
	 */
	count_records(fd, what, n, 2);
	close(fd);
	printf("usercopy reports after a bad copy: %d (want 2), for lkdtm-usercopy: %d (want 1), after a good copy: %d (want 0)\n",
	       n[0], n[1], n[2]);
	if (n[0] != 2 || n[1] != 1 || n[2])
		fails++;
	return fails ? 1 : 0;
}
