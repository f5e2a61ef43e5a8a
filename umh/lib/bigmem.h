/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Big per-commit arrays, kept for the next commit.  musl's malloc maps a
 * block of more than about 128 KiB on its own and unmaps it on free, so
 * every commit of a 10,000-rule table faulted its IR and classification
 * arrays in again page by page (a third of the host CPU time of IR and
 * codegen, more in a TCG guest).  bigmem_free() keeps a few of the
 * biggest blocks; bigmem_alloc() hands back the smallest that fits.
 * A block from here goes back with bigmem_free(), never free().
 */
#ifndef UMH_BIGMEM_H
#define UMH_BIGMEM_H

#include <stddef.h>

void *bigmem_alloc(size_t size);
/* zeroed, as calloc(); NULL on overflow or no memory */
void *bigmem_calloc(size_t n, size_t size);
void bigmem_free(void *p);

#endif
