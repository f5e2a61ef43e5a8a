/* SPDX-License-Identifier: GPL-2.0 */
/* A growable byte buffer: how replies and snapshots are assembled. */
#ifndef UMH_BUF_H
#define UMH_BUF_H

#include <stddef.h>

struct buf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

/* Make room for @extra more bytes; 0 or -ENOMEM. */
int buf_reserve(struct buf *b, size_t extra);
/* Append @n bytes; 0 or -ENOMEM. */
int buf_append(struct buf *b, const void *p, size_t n);
/* Append @n zero bytes and return a pointer to them, or NULL. */
void *buf_append_zero(struct buf *b, size_t n);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);

#endif
