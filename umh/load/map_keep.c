// SPDX-License-Identifier: GPL-2.0
/*
 * Keeping a table's own maps across commits (map_keep.h).
 *
 * iptables rewrites the whole table for one changed rule, and the helper
 * compiles all of it again: filling the set and classification hash maps
 * of 10,000 rules again was 12.7 ms of a 142 ms `iptables -A` in the
 * benchmark's guest (bench/calls.md, "Where a call's time goes").  A map
 * is reused only when everything it is made from is the same: type, name,
 * key, value and entry sizes, flags and every element, byte for byte; the
 * program that gets it is generated and verified anew, as always.
 *
 * The programs only read these maps (BPF_F_RDONLY_PROG, program.c: the
 * verifier refuses a program that would write one), and nothing else
 * writes them once filled: an old program and a new one may share one.
 * Code generation describes the maps in the same order from one commit to
 * the next, so a look-up starts where the last one matched.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/vec.h"
#include "load/map_keep.h"

struct enf_kept_map {
	struct cg_map m;	/* m.elems: a copy; m.name: static */
	int fd;
	bool used, fresh;	/* by this commit; made by it */
	unsigned int seq;	/* the order this commit used them in */
};

static size_t elems_len(const struct cg_map *m)
{
	return (size_t)m->nelems * (m->key_size + m->value_size);
}

static bool same_map(const struct cg_map *a, const struct cg_map *b)
{
	return a->type == b->type && a->key_size == b->key_size &&
	       a->value_size == b->value_size &&
	       a->max_entries == b->max_entries &&
	       a->map_flags == b->map_flags && a->nelems == b->nelems &&
	       !strcmp(a->name, b->name) &&
	       (!a->nelems || !memcmp(a->elems, b->elems, elems_len(a)));
}

void enf_keep_begin(struct enf_map_keep *k)
{
	for (size_t i = 0; i < k->n; i++)
		k->v[i].used = k->v[i].fresh = false;
	k->next = 0;
	k->seq = 0;
}

int enf_keep_find(struct enf_map_keep *k, const struct cg_map *m)
{
	size_t i, j;

	for (j = 0; j < k->n; j++) {
		struct enf_kept_map *e;
		int fd;

		i = (k->next + j) % k->n;
		e = &k->v[i];
		if (e->used || !same_map(&e->m, m))
			continue;
		fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -1;	/* made anew */
		e->used = true;
		e->seq = k->seq++;
		k->next = i + 1;
		return fd;
	}
	return -1;
}

void enf_keep_add(struct enf_map_keep *k, const struct cg_map *m, int fd)
{
	struct enf_kept_map *e;
	unsigned char *copy = NULL;
	size_t len = elems_len(m);

	if (len && !(copy = malloc(len)))
		return;
	if (vec_reserve(&k->v, &k->cap, k->n + 1)) {
		free(copy);
		return;
	}
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		free(copy);
		return;
	}
	if (len)
		memcpy(copy, m->elems, len);
	e = &k->v[k->n++];
	e->m = *m;
	e->m.elems = copy;
	e->fd = fd;
	e->used = e->fresh = true;
	e->seq = k->seq++;
}

static void drop(struct enf_kept_map *e)
{
	close(e->fd);
	free(e->m.elems);
}

static int by_seq(const void *a, const void *b)
{
	const struct enf_kept_map *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

void enf_keep_end(struct enf_map_keep *k, bool committed)
{
	size_t i, n = 0;

	for (i = 0; i < k->n; i++) {
		if (committed ? !k->v[i].used : k->v[i].fresh)
			drop(&k->v[i]);
		else
			k->v[n++] = k->v[i];
	}
	k->n = n;
	/* the next commit looks them up in the order this one used them */
	if (committed)
		qsort(k->v, k->n, sizeof(*k->v), by_seq);
	k->next = 0;
}

void enf_keep_free(struct enf_map_keep *k)
{
	while (k->n)
		drop(&k->v[--k->n]);
	free(k->v);
	*k = ENF_MAP_KEEP_NONE;
}
