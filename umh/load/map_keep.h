/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table's own maps (cgen's CG_MAP_OWN: set and classification tables),
 * kept from one commit to the next: the next code generation of the same
 * rules describes the same maps, and each one it repeats exactly is given
 * to the new program as it is instead of being made and filled again
 * (map_keep.c).
 */
#ifndef UMH_LOAD_MAP_KEEP_H
#define UMH_LOAD_MAP_KEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "cgen/codegen.h"

struct enf_kept_map;

struct enf_map_keep {
	struct enf_kept_map *v;
	size_t n, cap;
	size_t next;		/* where the next look-up starts */
	unsigned int seq;	/* maps used so far by the commit */
};

#define ENF_MAP_KEEP_NONE ((struct enf_map_keep){ 0 })

/* A commit's loads are about to start: nothing is in use yet. */
void enf_keep_begin(struct enf_map_keep *k);
/* A new fd of the kept map @m repeats exactly (marked in use), or -1. */
int enf_keep_find(struct enf_map_keep *k, const struct cg_map *m);
/* Keep @fd (a new fd of it is taken), the map made and filled from @m;
 * nothing is kept if there is no memory for it. */
void enf_keep_add(struct enf_map_keep *k, const struct cg_map *m, int fd);
/*
 * The commit is done: @committed, the maps its programs did not use are
 * let go of (the old programs, replaced, held them); else the maps it
 * made are, and the old ones stay (still in force).
 */
void enf_keep_end(struct enf_map_keep *k, bool committed);
void enf_keep_free(struct enf_map_keep *k);

#endif
