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
 * A state has two parts, tables and an index with the counters, a memfd
 * each.  The tables part is one file shared by every state
 * (state_heap.c): each table's record lies in it once, and a change
 * writes only the records of the tables it changed (a SET_REPLACE: one).
 * The index part lists the state's records in order, then the base
 * counters; ADD_COUNTERS (which iptables sends after every SET_REPLACE)
 * writes only a new index part.  So the vault holds every namespace's
 * tables once, not once per kept state, and a change costs what its own
 * table costs, not what every namespace's do.
 *
 * An index memfd the vault lets go of is written over by a later change
 * rather than closed, and never shrunk (the vault records each part's
 * length): filling fresh shmem pages is slow under TCG, overwriting
 * resident ones less so.  At most SPARES such memfds are held, and a part
 * goes into the smallest that fits.  A memfd is never written while the
 * vault holds it; the tables file only where no kept state points.
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
#include "lib/vec.h"
#include "vault/state_heap.h"
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
		if (heap_is(fd)) {	/* its own fd stays; another of it closes */
			if (fd != heap_fd())
				close(fd);
			continue;
		}
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

/* The index part: this header, struct heap_rec[num_tables], counters. */
struct index_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t num_tables;
	uint32_t reserved;
};

#define INDEX_MAGIC	0x58444e49u	/* "INDX" on little endian */
#define INDEX_VERSION	1

/* A state's records, in the order of its tables. */
struct rec_list {
	struct heap_rec *v;
	size_t n, cap;
};

/*
 * The records of the states the vault keeps, as it keeps them ([0]: the
 * latest): empty for a state whose tables part is not the heap's.
 */
static struct rec_list kept[VAULT_STATES];

static int rec_push(struct rec_list *l, const struct heap_rec *r)
{
	if (vec_reserve(&l->v, &l->cap, l->n + 1))
		return -ENOMEM;
	l->v[l->n++] = *r;
	return 0;
}

/* Equal?  Word by word: musl's memcmp() goes byte by byte. */
static bool same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
	uint64_t x, y;

	for (; n >= sizeof(x); a += sizeof(x), b += sizeof(x), n -= sizeof(x)) {
		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		if (x != y)
			return false;
	}
	return !n || !memcmp(a, b, n);
}

struct walk {
	struct rec_list *out;
	const struct rec_list *prev;	/* the latest state's records */
	size_t cursor;			/* where this table was in @prev */
	struct buf rec;			/* one table's record */
};

/*
 * Put the table's record in the new state: the latest state's if it is
 * the same, else written into the heap.  Tables keep their order from one
 * state to the next, but a namespace gone takes its tables out (at most
 * VAULT_TABLES): the same record is looked for that far ahead.
 */
static int put_table(const struct ipt_stored_table *t, void *arg)
{
	struct walk *w = arg;
	const struct rec_list *prev = w->prev;
	struct heap_rec hr;
	size_t j, stop = w->cursor + VAULT_TABLES + 1;
	int r;

	if (vec_reserve(&w->out->v, &w->out->cap, w->out->n + 1))
		return -ENOMEM;
	/* a table served from its record is that record, unchanged */
	for (j = w->cursor; j < prev->n && j < stop; j++) {
		if (ipt_state_lends_from(t, heap_at(&prev->v[j]), prev->v[j].len)) {
			w->cursor = j + 1;
			return rec_push(w->out, &prev->v[j]);
		}
	}
	buf_reset(&w->rec);
	r = ipt_state_save_table(t, &w->rec);
	if (!r && w->rec.len > UINT32_MAX)
		r = -E2BIG;
	if (r)
		return r;
	for (j = w->cursor; j < prev->n && j < stop; j++) {
		const unsigned char *p = prev->v[j].len == w->rec.len ?
					 heap_at(&prev->v[j]) : NULL;

		if (p && same_bytes(p, w->rec.data, w->rec.len))
			break;
	}
	if (j < prev->n && j < stop) {
		hr = prev->v[j];
		w->cursor = j + 1;
	} else {
		r = heap_put(w->rec.data, (uint32_t)w->rec.len, &hr);
		if (r)
			return r;
		if (w->cursor < prev->n)
			w->cursor++;	/* this table, changed */
	}
	return rec_push(w->out, &hr);
}

static int by_off(const void *a, const void *b)
{
	const struct heap_rec *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Free each record of @drop[0..ndrop) that no list of @hold[0..nhold) has. */
static void free_unheld(const struct rec_list *const *drop, int ndrop,
			const struct rec_list *const *hold, int nhold)
{
	struct rec_list h = { 0 }, d = { 0 };
	int i, err = 0;
	size_t k;

	for (i = 0; i < nhold && !err; i++)
		for (k = 0; k < hold[i]->n && !err; k++)
			err = rec_push(&h, &hold[i]->v[k]);
	for (i = 0; i < ndrop && !err; i++)
		for (k = 0; k < drop[i]->n && !err; k++)
			err = rec_push(&d, &drop[i]->v[k]);
	if (!err) {	/* (out of memory: the space stays taken) */
		if (h.n)
			qsort(h.v, h.n, sizeof(*h.v), by_off);
		if (d.n)
			qsort(d.v, d.n, sizeof(*d.v), by_off);
		for (k = 0; k < d.n; k++) {
			if ((k && d.v[k].off == d.v[k - 1].off) ||
			    (h.n && bsearch(&d.v[k], h.v, h.n, sizeof(*h.v), by_off)))
				continue;
			heap_free(&d.v[k]);
		}
	}
	free(h.v);
	free(d.v);
}

/*
 * After vault_keep_state(@s, @only) (@kept_ok: it kept it): the lists
 * follow what the vault keeps, and the records it no longer holds (or
 * @s's new ones, not kept) are free.  @s is taken.
 */
static void settle(struct rec_list *s, bool only, bool kept_ok)
{
	const struct rec_list *hold[VAULT_STATES], *drop[VAULT_STATES + 1];
	struct rec_list old[VAULT_STATES];

	if (!kept_ok) {
		drop[0] = s;
		hold[0] = &kept[0];
		hold[1] = &kept[1];
		free_unheld(drop, 1, hold, VAULT_STATES);
		free(s->v);
		return;
	}
	memcpy(old, kept, sizeof(old));
	kept[1] = only ? (struct rec_list){ 0 } : old[0];
	kept[0] = *s;
	drop[0] = &old[1];
	drop[1] = &old[0];
	hold[0] = &kept[0];
	hold[1] = &kept[1];
	free_unheld(drop, only ? 2 : 1, hold, VAULT_STATES);
	free(old[1].v);
	if (only)
		free(old[0].v);
}

/* The k-th table's record in the latest kept state (ipt_state_lend_tables()) */
static const unsigned char *latest_record(size_t k, size_t *len, void *arg)
{
	(void)arg;
	if (k >= kept[0].n)
		return NULL;
	*len = kept[0].v[k].len;
	return heap_at(&kept[0].v[k]);
}

/* The new state's records: the latest's if no table changed since. */
static int state_records(bool same_tables, struct rec_list *s)
{
	static struct buf rec;	/* kept: sized for the largest table */
	struct walk w = { .out = s, .prev = &kept[0], .rec = rec };
	int r;

	if (same_tables) {
		for (size_t k = 0; k < kept[0].n; k++)
			if (rec_push(s, &kept[0].v[k]))
				return -ENOMEM;
		return 0;
	}
	r = ipt_state_for_each_table(put_table, &w);
	rec = w.rec;
	return r;
}

/* Save the tables as state @id; @only: drop the states kept before. */
static int store(uint32_t id, bool only)
{
	static struct buf part;	/* the index; kept: sized for the next */
	static unsigned long saved_generation;
	const struct vault_state *last = vault_latest_state();
	int released[VAULT_STATE_RELEASED];
	struct vault_state st = { .fd = { -1, -1 }, .id = id };
	struct index_hdr h = { .magic = INDEX_MAGIC, .version = INDEX_VERSION };
	struct rec_list s = { 0 };
	int fd = heap_fd(), r;

	last_saved = false;
	if (fd < 0)
		return fd;
	r = state_records(last && last->fd[0] == fd &&
			  saved_generation == ipt_tables_generation(), &s);
	h.num_tables = (uint32_t)s.n;
	buf_reset(&part);
	if (!r)
		r = buf_append(&part, &h, sizeof(h));
	if (!r && s.n)
		r = buf_append(&part, s.v, s.n * sizeof(*s.v));
	if (!r)
		r = ipt_state_save_counters(&part);
	if (!r && (part.len > UINT32_MAX || heap_end() > UINT32_MAX))
		r = -E2BIG;
	if (!r) {
		st.fd[0] = fd;
		st.len[0] = (uint32_t)heap_end();
		st.fd[1] = write_part(&part);
		st.len[1] = (uint32_t)part.len;
		if (st.fd[1] < 0)
			r = st.fd[1];
	}
	if (!r) {
		r = vault_keep_state(&st, only, released);
		add_spares(released);
	}
	settle(&s, only, !r);
	if (!r) {
		saved_generation = ipt_tables_generation();
		/* the records were written from the tables: no need to compare */
		ipt_state_lend_tables(latest_record, NULL, false);
	}
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

/*
 * Read the index part of @st into @part: its records into @l, where its
 * counters begin into *@counters_at; 0 or -errno.
 */
static int read_index(const struct vault_state *st, struct buf *part,
		      struct rec_list *l, size_t *counters_at)
{
	struct index_hdr h;
	struct heap_rec hr;
	size_t k;
	int r = read_part(st->fd[1], st->len[1], part);

	if (r)
		return r;
	if (part->len < sizeof(h))
		return -EINVAL;
	memcpy(&h, part->data, sizeof(h));
	if (h.magic != INDEX_MAGIC || h.version != INDEX_VERSION ||
	    h.num_tables > (part->len - sizeof(h)) / sizeof(hr))
		return -EINVAL;
	for (k = 0; k < h.num_tables; k++) {
		memcpy(&hr, part->data + sizeof(h) + k * sizeof(hr), sizeof(hr));
		r = rec_push(l, &hr);
		if (r)
			return r;
	}
	*counters_at = sizeof(h) + h.num_tables * sizeof(hr);
	return 0;
}

/*
 * Take the tables part of @st as the heap, with the records of every state
 * the vault keeps in it (kept[]), and put @st's saved state, as a
 * snapshot ipt_state_restore() reads, in @snap; 0 or -errno.
 */
static int adopt_state(const struct vault_state *st, struct buf *snap)
{
	struct buf part = { 0 }, other = { 0 };
	struct rec_list all = { 0 }, *mine = NULL;
	size_t at = 0, k, unused;
	int i, r = 0;

	for (i = 0; i < VAULT_STATES; i++) {
		free(kept[i].v);
		kept[i] = (struct rec_list){ 0 };
	}
	for (i = 0; i < VAULT_STATES && !r; i++) {
		const struct vault_state *vs = vault_state_at(i);

		if (!vs || vs->fd[0] != st->fd[0])
			continue;	/* (parts of one file are one fd) */
		if (vs->id == st->id) {
			mine = &kept[i];
			r = read_index(vs, &part, mine, &at);
		} else if (read_index(vs, &other, &kept[i], &unused)) {
			kept[i].n = 0;	/* unusable: never restored */
		}
		buf_reset(&other);
		for (k = 0; k < kept[i].n && !r; k++)
			r = rec_push(&all, &kept[i].v[k]);
	}
	if (!r && !mine)
		r = -ENOENT;
	/* the heap is mapped anew where the old one was */
	if (!r)
		r = ipt_state_own_tables();
	if (!r)
		r = heap_adopt(st->fd[0], all.v, all.n);
	if (!r)
		r = ipt_state_save_header((uint32_t)mine->n, snap);
	for (k = 0; !r && k < mine->n; k++) {
		const unsigned char *p = heap_at(&mine->v[k]);

		r = p ? buf_append(snap, p, mine->v[k].len) : -EINVAL;
	}
	if (!r)
		r = buf_append(snap, part.data + at, part.len - at);
	if (r && (!mine || !heap_is(st->fd[0]))) {
		/* not adopted: those records are in no file of ours */
		for (i = 0; i < VAULT_STATES; i++)
			kept[i].n = 0;
	}
	buf_free(&part);
	buf_free(&other);
	free(all.v);
	return r;
}

int state_restore(uint32_t id)
{
	int released[VAULT_STATE_RELEASED];
	const struct vault_state *kept_st;
	struct rec_list mine = { 0 };
	struct vault_state st;
	struct buf snap = { 0 };
	bool latest = true;
	size_t k;
	int r;

	kept_st = vault_kept_state(id, &latest);
	if (!kept_st) {
		log_err("iptables: the vault holds no saved state %u\n", id);
		return ipt_state_restore(NULL, 0);	/* initial tables */
	}
	st = *kept_st;
	r = adopt_state(&st, &snap);
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
	for (k = 0; k < kept[latest ? 0 : 1].n && !r; k++)
		r = rec_push(&mine, &kept[latest ? 0 : 1].v[k]);
	if (!r) {
		r = vault_keep_state(&st, true, released);
		add_spares(released);
	}
	settle(&mine, true, !r);
	last_saved = !r;
	if (r)
		log_warn("iptables: the restored state could not be kept (%s)\n",
			 strerror(-r));
	else	/* the tables were made from a snapshot: compare */
		ipt_state_lend_tables(latest_record, NULL, true);
	return 0;
}
