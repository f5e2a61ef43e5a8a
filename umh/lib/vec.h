/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helper's one growable-array convention: an array is a pointer, a
 * count and a capacity (size_t); vec_reserve() makes room for @need
 * elements, doubling (from 16) so that appending n elements costs O(n).
 *
 *	if (vec_reserve(&v->items, &v->cap, v->n + 1))
 *		return -ENOMEM;
 *	v->items[v->n++] = x;
 */
#ifndef UMH_LIB_VEC_H
#define UMH_LIB_VEC_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static inline int vec_reserve_bytes(void **data, size_t *cap, size_t need,
				    size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		n *= 2;
	}
	p = realloc(*data, n * elem);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = n;
	return 0;
}

/* 0, or -ENOMEM with *@pp and *@cap unchanged. */
#define vec_reserve(pp, cap, need) \
	vec_reserve_bytes((void **)(pp), (cap), (need), sizeof(**(pp)))

#endif
