// SPDX-License-Identifier: GPL-2.0
/* Big per-commit arrays, kept for the next commit: see bigmem.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bigmem.h"

/* below this malloc keeps the block in its own groups anyway */
#define BIGMEM_MIN	(64u * 1024)
/* what may stay mapped between commits: the IR's rules and the largest
 * classification table of a 100,000-rule table fit */
#define BIGMEM_KEPT_MAX	(64u * 1024 * 1024)
/* a commit's big arrays: the blob, the IR's rules and matches, the
 * classifier's tables (seven of a 10,000-rule linear table; with four
 * slots three were mapped afresh at every commit) */
#define BIGMEM_SLOTS	8
/*
 * A new block's capacity: the size asked for and a sixteenth more, in
 * whole 64 KiB.  One rule more per call (iptables -A, a ban) grows the
 * blob and the IR by a few hundred bytes, and a block of exactly the last
 * commit's size never fitted the next: each call of a 10,000-rule table
 * mapped and faulted in its 1.8 MB blob again (6.12, 2026-12-07: ~440 of
 * the helper's ~980 page faults per call).
 */
#define BIGMEM_ROUND	(64u * 1024)

/* before each block: its usable size; 16 bytes keep malloc's alignment */
struct bigmem_hdr {
	size_t cap;
	size_t unused;
};

static struct bigmem_hdr *kept[BIGMEM_SLOTS];
static size_t kept_bytes;

void *bigmem_alloc(size_t size)
{
	struct bigmem_hdr *h = NULL;
	unsigned int i, best = BIGMEM_SLOTS;
	size_t cap;

	for (i = 0; i < BIGMEM_SLOTS; i++)
		if (kept[i] && kept[i]->cap >= size &&
		    (best == BIGMEM_SLOTS || kept[i]->cap < kept[best]->cap))
			best = i;
	if (best < BIGMEM_SLOTS) {
		h = kept[best];
		kept[best] = NULL;
		kept_bytes -= h->cap;
		return h + 1;
	}
	cap = size;
	/* room to grow only for a block bigmem_free() may keep */
	if (size >= BIGMEM_MIN && size <= BIGMEM_KEPT_MAX / 2)
		cap = (size + size / 16 + BIGMEM_ROUND - 1) & ~(size_t)(BIGMEM_ROUND - 1);
	if (cap > SIZE_MAX - sizeof(*h))
		return NULL;
	h = malloc(sizeof(*h) + cap);
	if (!h)
		return NULL;
	h->cap = cap;
	return h + 1;
}

void *bigmem_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = bigmem_alloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void bigmem_free(void *p)
{
	struct bigmem_hdr *h = p ? (struct bigmem_hdr *)p - 1 : NULL;
	unsigned int i, smallest = 0;

	if (!h)
		return;
	if (h->cap < BIGMEM_MIN || h->cap > BIGMEM_KEPT_MAX) {
		free(h);
		return;
	}
	for (i = 0; i < BIGMEM_SLOTS; i++) {
		if (!kept[i]) {
			smallest = i;
			break;
		}
		if (kept[i]->cap < kept[smallest]->cap)
			smallest = i;
	}
	if (kept[smallest]) {	/* all taken: keep the biggest */
		if (kept[smallest]->cap >= h->cap) {
			free(h);
			return;
		}
		kept_bytes -= kept[smallest]->cap;
		free(kept[smallest]);
		kept[smallest] = NULL;
	}
	while (kept_bytes + h->cap > BIGMEM_KEPT_MAX) {
		/* over the bound: let the smallest others go first */
		unsigned int s = BIGMEM_SLOTS;

		for (i = 0; i < BIGMEM_SLOTS; i++)
			if (kept[i] && (s == BIGMEM_SLOTS ||
					kept[i]->cap < kept[s]->cap))
				s = i;
		if (s == BIGMEM_SLOTS)
			break;
		kept_bytes -= kept[s]->cap;
		free(kept[s]);
		kept[s] = NULL;
	}
	for (i = 0; i < BIGMEM_SLOTS && kept[i]; i++)
		;
	kept[i] = h;	/* a slot is free: the loops above emptied one */
	kept_bytes += h->cap;
}
