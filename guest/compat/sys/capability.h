/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few libcap calls that 6.1's vm selftests use, on top of the raw
 * capget/capset system calls.  Guest programs are static and cross-built,
 * and Debian has no static arm64 libcap in the cross toolchain packages.
 */
#ifndef GUEST_COMPAT_SYS_CAPABILITY_H
#define GUEST_COMPAT_SYS_CAPABILITY_H

#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

typedef struct guest_cap {
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
} *cap_t;

/* An empty capability set, as libcap's cap_init() returns. */
static inline cap_t cap_init(void)
{
	cap_t c = calloc(1, sizeof(*c));

	if (c)
		c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	return c;
}

static inline int cap_set_proc(cap_t c)
{
	c->hdr.pid = 0;
	return syscall(SYS_capset, &c->hdr, c->data);
}

static inline int cap_free(void *p)
{
	free(p);
	return 0;
}

#endif
