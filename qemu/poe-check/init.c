// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the POE check's initramfs (issue 15): report whether the
 * kernel found POE, run each program named on the kernel command line
 * (poecheck=prog1,prog2,...) from /bin, print its exit status between
 * markers that scripts/poe-check.sh reads, and power off.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>

static void cpuinfo_features(void)
{
	char line[1024];
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Features", 8)) {
			printf("POECHECK cpuinfo %s", line);
			printf("POECHECK hwcap-poe %s\n",
			       strstr(line, " poe") ? "yes" : "no");
			break;
		}
	}
	if (f)
		fclose(f);
}

static void kernel_log(void)
{
	static char buf[1 << 17];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);
	char *l;

	if (n < 0)
		return;
	buf[n] = 0;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, "S1POE") || strstr(l, "Overlay"))
			printf("POECHECK dmesg %s\n", l);
}

static void on_alarm(int sig)
{
	printf("POECHECK timeout: killing every process\n");
	kill(-1, SIGKILL);
}

int main(void)
{
	char progs[512] = "", cmdline[1024] = "", *p, *name;
	FILE *f;

	mount("proc", "/proc", "proc", 0, NULL);
	signal(SIGALRM, on_alarm);
	setvbuf(stdout, NULL, _IOLBF, 0);
	f = fopen("/proc/cmdline", "r");
	if (f && fgets(cmdline, sizeof(cmdline), f)) {
		p = strstr(cmdline, "poecheck=");
		if (p)
			sscanf(p + 9, "%511[^ \n]", progs);
	}
	if (f)
		fclose(f);

	printf("POECHECK begin\n");
	cpuinfo_features();
	kernel_log();
	for (name = strtok(progs, ","); name; name = strtok(NULL, ",")) {
		char path[256];
		int status = 0, worst;
		pid_t pid;

		snprintf(path, sizeof(path), "/bin/%s", name);
		printf("POECHECK run %s\n", name);
		pid = fork();
		if (pid == 0) {
			execl(path, name, (char *)NULL);
			perror(path);
			_exit(127);
		}
		/*
		 * protection_keys carries on in a child and lets its parent
		 * exit 0 (become_child()): wait for every process, which init
		 * inherits, and report the first that did not exit 0.
		 */
		alarm(900);
		worst = 0;
		while ((pid = wait(&status)) > 0) {
			if (worst == 0 && status != 0)
				worst = status;
		}
		alarm(0);
		if (WIFSIGNALED(worst))
			printf("POECHECK exit %s signal %d\n", name,
			       WTERMSIG(worst));
		else
			printf("POECHECK exit %s %d\n", name, WEXITSTATUS(worst));
	}
	printf("POECHECK end\n");
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
