// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only fault injection; see test_faults.h.  Compiled to nothing
 * unless -DEBPF_TEST_FAULTS (the ebpfilter-umh-faults variant).
 *
 * /run/ebpfilter-fault holds "POINT [N]": die the Nth time (default the
 * first) POINT is reached.  The points (umh/main.c, unless named):
 *   commit       a SET_REPLACE validated, before the new programs load
 *   commit-switched (kmod) the module switched to a change's rules,
 *                before the helper keeps the new counters map (load/
 *                commit.c)
 *   commit-live  the new programs live, before the state is saved
 *   reply        the change live and saved, before the reply is sent
 *   restore      a restarted helper adopting the saved state (RESTORE)
 *   add-counters an ADD_COUNTERS reached the helper (the module serves
 *                those of the tables it holds: it must not reach it)
 */
#ifdef EBPF_TEST_FAULTS
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/test_faults.h"

#define FAULT_FILE "/run/ebpfilter-fault"

static char armed[32];
static unsigned int countdown;

void test_faults_arm(void)
{
	char text[64] = "";
	ssize_t n;
	int fd;

	fd = open(FAULT_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	unlink(FAULT_FILE);
	if (n <= 0)
		return;
	text[n] = 0;
	countdown = 1;
	if (sscanf(text, "%31s %u", armed, &countdown) < 1)
		armed[0] = 0;
	if (armed[0])
		log_info("test build: fault armed at %s (hit %u)\n", armed, countdown);
}

void test_fault(const char *point)
{
	if (!armed[0] || strcmp(point, armed) || --countdown)
		return;
	log_info("test build: fault at %s\n", point);
	_exit(134);
}
#endif
