// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX traffic through splice(): a child writes MIB MiB of a known
 * pattern into one end of a stream socket pair; the parent splices the
 * other end into a pipe and the pipe into a file, then checks the file.
 * Socket buffers (skbs, kmalloc) and pipe buffers both come from slab.
 * A datagram pair passes a file descriptor with SCM_RIGHTS on the way.
 *
 * Usage: unix_splice MIB
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK	65536

static void fill(unsigned char *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)((off + i) * 2654435761u >> 13);
}

static int fail(const char *what)
{
	printf("unix_splice: %s: %s\n", what, strerror(errno));
	return 1;
}

static int pass_fd(void)
{
	char data = 'x', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int sv[2], fd, got;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return fail("socketpair(SOCK_DGRAM)");
	fd = open("/proc/self/stat", O_RDONLY);
	if (fd < 0)
		return fail("open");
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sv[0], &msg, 0) != 1)
		return fail("sendmsg(SCM_RIGHTS)");
	memset(cbuf, 0, sizeof(cbuf));
	if (recvmsg(sv[1], &msg, 0) != 1)
		return fail("recvmsg(SCM_RIGHTS)");
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS) {
		printf("unix_splice: no descriptor received\n");
		return 1;
	}
	memcpy(&got, CMSG_DATA(c), sizeof(int));
	if (read(got, cbuf, 1) != 1)
		return fail("read(received fd)");
	close(got);
	close(fd);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t total = (uint64_t)(argc > 1 ? atoi(argv[1]) : 64) << 20;
	static unsigned char buf[CHUNK], want[CHUNK];
	const char *path = "/mnt/disk/unix_splice.out";
	uint64_t moved = 0, off;
	int sv[2], pfd[2], out, status;
	pid_t pid;

	if (pass_fd())
		return 1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(pfd))
		return fail("socketpair/pipe");
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		close(sv[1]);
		for (off = 0; off < total; off += CHUNK) {
			size_t done = 0;

			fill(buf, off, CHUNK);
			while (done < CHUNK) {
				ssize_t n = write(sv[0], buf + done, CHUNK - done);

				if (n <= 0)
					_exit(2);
				done += n;
			}
		}
		_exit(0);
	}
	close(sv[0]);
	out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (out < 0)
		return fail("open(output)");
	while (moved < total) {
		ssize_t n = splice(sv[1], NULL, pfd[1], NULL, CHUNK, SPLICE_F_MOVE);

		if (n <= 0)
			return fail("splice(socket -> pipe)");
		while (n > 0) {
			ssize_t m = splice(pfd[0], NULL, out, NULL, n, SPLICE_F_MOVE);

			if (m <= 0)
				return fail("splice(pipe -> file)");
			n -= m;
			moved += m;
		}
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("unix_splice: writer failed (status %#x)\n", status);
		return 1;
	}
	if (fsync(out) || lseek(out, 0, SEEK_SET))
		return fail("fsync/lseek");
	for (off = 0; off < total; off += CHUNK) {
		if (read(out, buf, CHUNK) != CHUNK)
			return fail("read back");
		fill(want, off, CHUNK);
		if (memcmp(buf, want, CHUNK)) {
			printf("unix_splice: data differs at %llu\n", (unsigned long long)off);
			return 1;
		}
	}
	close(out);
	unlink(path);
	printf("unix_splice: %llu MiB through a socket pair, splice()d and verified; SCM_RIGHTS ok\n",
	       (unsigned long long)(total >> 20));
	return 0;
}
