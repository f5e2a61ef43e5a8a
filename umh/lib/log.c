// SPDX-License-Identifier: GPL-2.0
/*
 * Helper logging.  The helper has no terminal: its messages go to the
 * kernel log through /dev/kmsg, prefixed like the module's own lines, so
 * dmesg tells the whole story in order.
 *
 * /dev/kmsg takes at most LOG_BURST lines per LOG_INTERVAL from one open
 * file (the kernel's DEFAULT_RATELIMIT_BURST and _INTERVAL, unless the
 * administrator set printk_devkmsg=on) and drops the rest without an error;
 * it owns up to them only when the file is closed, i.e. when the helper
 * exits.  So the helper keeps the same budget itself: it knows which lines
 * did not fit, and the first line of the next window (or the last one,
 * kept for that, when the helper exits) says how many.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

#define LOG_BURST		10
/*
 * The kernel's 5 s, plus slack: its window starts a moment after ours
 * (at the write) and ends one jiffy late at most, so ours must never
 * end before it.
 */
#define LOG_INTERVAL_MS		5100

static int kmsg_fd = -1;
static struct {
	long long begin_ms;	/* start of the current window, 0: none yet */
	int printed;		/* lines written in it */
	unsigned int suppressed;	/* lines not written since the last report */
} budget;

void log_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void write_line(int level, const char *fmt, va_list ap)
{
	char line[512];
	int n, m;

	n = snprintf(line, sizeof(line), "<%d>ebpfilter-umh[%d]: ", level,
		     (int)getpid());
	m = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (m < 0)
		return;
	n += m;
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	(void)!write(kmsg_fd, line, n);
}

static void write_linef(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	write_line(level, fmt, ap);
	va_end(ap);
}

static void report_suppressed(void)
{
	write_linef(LOG_WARN_LVL,
		    "%u messages suppressed (kernel log rate limit: %d lines per %d s)\n",
		    budget.suppressed, LOG_BURST, LOG_INTERVAL_MS / 1000);
	budget.suppressed = 0;
}

/* Take one line from the budget; false: the kernel would drop it. */
static bool budget_take(void)
{
	long long now = now_ms();

	if (!budget.begin_ms || now - budget.begin_ms >= LOG_INTERVAL_MS) {
		budget.begin_ms = now;
		budget.printed = 0;
		if (budget.suppressed) {
			budget.printed++;
			report_suppressed();
		}
	}
	/* the last line of a window is kept for log_close()'s report */
	if (budget.printed >= LOG_BURST - 1) {
		budget.suppressed++;
		return false;
	}
	budget.printed++;
	return true;
}

/* At exit: what the last window dropped, in the line kept for it. */
void log_close(void)
{
	if (kmsg_fd < 0)
		return;
	if (budget.suppressed)
		report_suppressed();
	close(kmsg_fd);
	kmsg_fd = -1;
}

void umh_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (kmsg_fd < 0 || !budget_take())
		return;
	va_start(ap, fmt);
	write_line(level, fmt, ap);
	va_end(ap);
}
