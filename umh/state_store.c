// SPDX-License-Identifier: GPL-2.0
/*
 * Keeping the committed tables across helper restarts.
 *
 * After every change (SET_REPLACE, ADD_COUNTERS) the helper serializes its
 * tables and counters (ipt_state.c) into a memfd and keeps it in the vault
 * (enforce.c) under the id of the request that made the change; its reply then carries EBPF_F_STATE and the module remembers that
 * id.  A restarted helper is told the id (EBPF_MSG_RESTORE) and restores
 * that state.  The table image never crosses the channel: for 10,000 rules
 * it is ~2 MB, which cost ~30 ms per change to send and receive under TCG.
 *
 * Two states are kept because a helper can die after saving a state and
 * before its reply reached the module.  The caller then got an error, so
 * the previous state is the committed one, and the module names it.
 *
 * A memfd the vault lets go of is written over by the next change, and
 * never shrunk (the vault records each state's length): filling fresh shmem
 * pages cost 15-45 ms per 2 MB under TCG, overwriting resident ones 5-10.
 * So the three memfds in turn keep the largest state seen, like the
 * helper's other working buffers.  A memfd is never written while the
 * vault holds it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "enforce.h"
#include "ipt.h"
#include "log.h"
#include "state_store.h"

static int write_all(int fd, const unsigned char *p, size_t n)
{
	off_t off = 0;

	while (n) {
		ssize_t w = pwrite(fd, p, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		off += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A memfd the vault no longer holds, to write the next state into. */
static int spare_fd = -1;

int state_store(uint32_t id)
{
	static struct buf snap;	/* kept: the next change needs as much */
	struct stat st;
	int fd, r;

	buf_reset(&snap);
	r = ipt_state_save(&snap);
	if (r)
		return r;
	if (snap.len > UINT32_MAX)
		return -E2BIG;
	fd = spare_fd;
	spare_fd = -1;
	if (fd < 0)
		fd = memfd_create("ebpfilter-state", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) ||
	    ((size_t)st.st_size < snap.len && ftruncate(fd, (off_t)snap.len)))
		r = -errno;
	else
		r = write_all(fd, snap.data, snap.len);
	if (r) {
		close(fd);
		return r;
	}
	return enforce_keep_state(fd, id, (uint32_t)snap.len, false, &spare_fd);
}

int state_restore(uint32_t id)
{
	bool latest = true;
	struct stat st;
	uint32_t len;
	void *p;
	int fd, r;

	fd = enforce_kept_state(id, &len, &latest);
	if (fd < 0) {
		log_err("iptables: the vault holds no saved state %u (%s)\n",
			id, strerror(-fd));
		return ipt_state_restore(NULL, 0);	/* initial tables */
	}
	if (fstat(fd, &st) || !len || (uint64_t)st.st_size < len) {
		log_err("iptables: saved state %u is unreadable\n", id);
		return ipt_state_restore(NULL, 0);
	}
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r = ipt_state_restore(p, len);
	munmap(p, len);
	if (r)
		return r;
	if (!latest)
		log_info("iptables: restored the tables of request %u; a newer change was saved but never acknowledged, so it is dropped\n",
			 id);
	/* Only the restored state is committed now; a newer one is not. */
	if (spare_fd >= 0)
		close(spare_fd);
	r = enforce_keep_state(fd, id, len, true, &spare_fd);
	if (r)
		log_warn("iptables: the restored state could not be kept (%s)\n",
			 strerror(-r));
	return 0;
}
