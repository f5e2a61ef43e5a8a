// SPDX-License-Identifier: GPL-2.0
/*
 * Helper logging.  The helper has no terminal: its messages go to the
 * kernel log through /dev/kmsg, prefixed like the module's own lines, so
 * dmesg tells the whole story in order.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"

static int kmsg_fd = -1;

void log_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
}

void umh_log(int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, m;

	n = snprintf(line, sizeof(line), "<%d>ebpfilter-umh[%d]: ", level,
		     (int)getpid());
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (kmsg_fd >= 0)
		(void)!write(kmsg_fd, line, n);
}
