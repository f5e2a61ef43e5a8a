// SPDX-License-Identifier: GPL-2.0
/*
 * Phase timing (phase.h): CLOCK_MONOTONIC (the vDSO: no system call, so
 * nothing the seccomp filter must allow), the guest's instruction clock
 * under the benchmark's QEMU -icount.
 */
#include <stdio.h>
#include <time.h>

#include "lib/log.h"
#include "lib/phase.h"

bool phase_on;

static const char *const names[PH_N] = {
	[PH_GET] = "get", [PH_VALIDATE] = "validate", [PH_IR] = "ir",
	[PH_CODEGEN] = "codegen", [PH_MAPS] = "maps", [PH_VERIFY] = "verify",
	[PH_INSTALL] = "install", [PH_AFTER] = "after",
	[PH_ADDCTR] = "addctr", [PH_VAULT] = "vault", [PH_REPLY] = "reply",
};

static struct {
	enum phase cur;
	long long since;	/* ns */
	unsigned long long total[PH_N];
} T;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void phase_switch(enum phase p)
{
	long long t = now_ns();

	if (T.cur != PH_NONE)
		T.total[T.cur] += (unsigned long long)(t - T.since);
	T.cur = p;
	T.since = t;
}

/*
 * One line of running totals in microseconds: the log's rate limit may
 * drop lines, and the difference of any two that got through is the time
 * of the requests between them.
 */
void phase_report(void)
{
	char line[400];
	int i, n = 0;

	for (i = 1; i < PH_N && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%llu", names[i],
			      T.total[i] / 1000);
	log_info("phase us:%s\n", line);
}
