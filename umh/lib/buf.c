// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"

int buf_reserve(struct buf *b, size_t extra)
{
	size_t need, cap;
	unsigned char *p;

	if (extra > ((size_t)-1) / 2 - b->len)
		return -ENOMEM;
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return -ENOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void *buf_append_zero(struct buf *b, size_t n)
{
	void *p;

	if (buf_reserve(b, n))
		return NULL;
	p = b->data + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
