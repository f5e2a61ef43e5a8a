// SPDX-License-Identifier: GPL-2.0
/*
 * Keeping the committed tables across helper restarts.
 *
 * After every change (SET_REPLACE, ADD_COUNTERS) the helper serializes its
 * tables and counters (ipt/state.c) into memfds and keeps them in the
 * vault (vault.c) under the id of the request that made the change; its
 * reply then carries EBPF_F_STATE and the module remembers that id.  A
 * restarted helper is told the id (EBPF_MSG_RESTORE) and restores
 * that state.  The table image never crosses the channel: for 10,000 rules
 * it is ~2 MB, which cost ~30 ms per change to send and receive under TCG.
 *
 * Two states are kept because a helper can die after saving a state and
 * before its reply reached the module.  The caller then got an error, so
 * the previous state is the committed one, and the module names it.
 *
 * The two parts, tables and counters, have a memfd each: ADD_COUNTERS
 * (which iptables sends after every SET_REPLACE) rewrites only the
 * counters (160 KB for 10,000 rules) and the new state shares the tables
 * memfd (~2 MB) with the previous one.
 *
 * A memfd the vault lets go of is written over by a later change rather
 * than closed, and never shrunk (the vault records each part's length):
 * filling fresh shmem pages cost 15-45 ms per 2 MB under TCG, overwriting
 * resident ones 5-10.  At most SPARES such memfds are held, and a part goes
 * into the smallest that fits, so counters do not end up in table-sized
 * files.  A memfd is never written while the vault holds it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipt/ipt.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "vault/state_store.h"
#include "vault/vault.h"

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

/* Memfds the vault no longer holds, to write the next parts into. */
#define SPARES 2
static int spare[SPARES] = { -1, -1 };

static off_t size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : st.st_size;
}

static void add_spares(const int released[VAULT_STATE_RELEASED])
{
	int i, j;

	for (i = 0; i < VAULT_STATE_RELEASED; i++) {
		int fd = released[i];

		if (fd < 0)
			continue;
		/* keep the larger ones: they fit more parts */
		for (j = 0; j < SPARES && fd >= 0; j++) {
			if (spare[j] < 0 || size_of(spare[j]) < size_of(fd)) {
				int t = spare[j];

				spare[j] = fd;
				fd = t;
			}
		}
		if (fd >= 0)
			close(fd);
	}
}

/* Is a file of @a bytes a better home for @len bytes than one of @b? */
static bool fits_better(off_t a, off_t b, size_t len)
{
	bool a_fits = (size_t)a >= len, b_fits = (size_t)b >= len;

	if (a_fits != b_fits)
		return a_fits;
	return a_fits ? a < b : a > b;	/* the smallest that fits, else the largest */
}

/* A spare memfd for @len bytes (see fits_better()), or a new one. */
static int take_spare(size_t len)
{
	int i, best = -1, fd;

	for (i = 0; i < SPARES; i++) {
		if (spare[i] >= 0 && (best < 0 ||
		    fits_better(size_of(spare[i]), size_of(spare[best]), len)))
			best = i;
	}
	if (best >= 0) {
		fd = spare[best];
		spare[best] = -1;
		return fd;
	}
	fd = memfd_create("ebpfilter-state", MFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Write @b into a spare memfd: its fd, or -errno. */
static int write_part(const struct buf *b)
{
	int fd = take_spare(b->len), r;
	off_t size;

	if (fd < 0)
		return fd;
	size = size_of(fd);
	if (size < 0 || ((size_t)size < b->len && ftruncate(fd, (off_t)b->len)))
		r = -errno;
	else
		r = write_all(fd, b->data, b->len);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

/* Did the last change get saved?  Else the newest state is not the
 * tables in force (state_latest()). */
static bool last_saved;

/* Save the tables as state @id; @only: drop the states kept before. */
static int store(uint32_t id, bool only)
{
	static struct buf tables, counters;	/* kept: sized for the next */
	static unsigned long saved_generation;
	const struct vault_state *last = vault_latest_state();
	int released[VAULT_STATE_RELEASED];
	struct vault_state st = { .fd = { -1, -1 }, .id = id };
	bool new_tables;
	int r;

	last_saved = false;
	new_tables = !last || only ||
		     saved_generation != ipt_tables_generation();
	buf_reset(&counters);
	r = ipt_state_save_counters(&counters);
	if (!r && new_tables) {
		buf_reset(&tables);
		r = ipt_state_save_tables(&tables);
	}
	if (!r && (tables.len > UINT32_MAX || counters.len > UINT32_MAX))
		r = -E2BIG;
	if (r)
		return r;
	if (new_tables) {
		st.fd[0] = write_part(&tables);
		st.len[0] = (uint32_t)tables.len;
	} else {
		st.fd[0] = last->fd[0];
		st.len[0] = last->len[0];
	}
	if (st.fd[0] < 0)
		return st.fd[0];
	st.fd[1] = write_part(&counters);
	st.len[1] = (uint32_t)counters.len;
	if (st.fd[1] < 0) {
		if (new_tables)
			close(st.fd[0]);
		return st.fd[1];
	}
	r = vault_keep_state(&st, only, released);
	add_spares(released);
	if (!r)
		saved_generation = ipt_tables_generation();
	last_saved = !r;
	return r;
}

int state_store(uint32_t id)
{
	return store(id, false);
}

int state_resave(uint32_t id)
{
	return store(id, true);
}

uint32_t state_latest(void)
{
	const struct vault_state *last = vault_latest_state();

	return last && last_saved ? last->id : 0;
}

/* Map @len bytes of @fd after @b's contents; 0 or -errno. */
static int read_part(int fd, uint32_t len, struct buf *b)
{
	struct stat st;
	void *p;
	int r;

	if (fstat(fd, &st))
		return -errno;
	if ((uint64_t)st.st_size < len)
		return -EINVAL;
	if (!len)
		return 0;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r = buf_append(b, p, len);
	munmap(p, len);
	return r;
}

int state_restore(uint32_t id)
{
	int released[VAULT_STATE_RELEASED];
	const struct vault_state *kept;
	struct vault_state st;
	struct buf snap = { 0 };
	bool latest = true;
	int r;

	kept = vault_kept_state(id, &latest);
	if (!kept) {
		log_err("iptables: the vault holds no saved state %u\n", id);
		return ipt_state_restore(NULL, 0);	/* initial tables */
	}
	st = *kept;
	/* A restart is rare: the two parts are joined into one snapshot. */
	r = read_part(st.fd[0], st.len[0], &snap);
	if (!r)
		r = read_part(st.fd[1], st.len[1], &snap);
	if (r) {
		buf_free(&snap);
		log_err("iptables: saved state %u is unreadable (%s)\n", id,
			strerror(-r));
		return ipt_state_restore(NULL, 0);
	}
	r = ipt_state_restore(snap.data, snap.len);
	buf_free(&snap);
	if (r)
		return r;
	if (!latest)
		log_info("iptables: restored the tables of request %u; a newer change was saved but never acknowledged, so it is dropped\n",
			 id);
	/* Only the restored state is committed now; a newer one is not. */
	r = vault_keep_state(&st, true, released);
	add_spares(released);
	last_saved = !r;
	if (r)
		log_warn("iptables: the restored state could not be kept (%s)\n",
			 strerror(-r));
	return 0;
}
