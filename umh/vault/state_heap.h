/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables part of the saved states (state_store.c): one memfd that
 * holds each table's record once, shared by every state the vault keeps.
 */
#ifndef UMH_STATE_HEAP_H
#define UMH_STATE_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a record is in the heap's file; also an index entry in the vault. */
struct heap_rec {
	uint64_t off;
	uint32_t len;
	uint32_t reserved;
};

/* The heap's memfd, made on first use: the fd, or -errno. */
int heap_fd(void);
/* Bytes of the file in use (records lie below). */
uint64_t heap_end(void);
/* Is @fd the heap's file (the heap's fd or another fd of it)? */
bool heap_is(int fd);
/* The record's bytes, or NULL if it is not inside the file. */
const unsigned char *heap_at(const struct heap_rec *r);
/* Copy @len bytes into free space of the file; 0 or -errno. */
int heap_put(const void *p, uint32_t len, struct heap_rec *out);
/* No kept state holds @r any more: its space is free (and its pages). */
void heap_free(const struct heap_rec *r);
/*
 * Take @fd (the tables part of the states a previous helper left) as the
 * heap, with @live[0..n) the records those states hold and everything
 * else free; 0 or -errno (-EINVAL: records outside the file or
 * overlapping).  The fd stays the vault's.  It is mapped where the
 * previous heap was: nothing may point into that one any more
 * (ipt_state_own_tables()).
 */
int heap_adopt(int fd, const struct heap_rec *live, size_t n);

#endif
