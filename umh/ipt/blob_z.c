// SPDX-License-Identifier: GPL-2.0
/*
 * Deflated table records (issue 17's memory per namespace): a committed
 * table's entries live once in the helper, as its record in the vault's
 * heap (ipt/state.c, vault/state_heap.c), and a record is deflated when
 * that makes it shorter.  Rules of one shape compress well (100 tcp rules,
 * 21 KB of entries: ~2 KB), and the heap is shared memory that the guest
 * counts per namespace.  They are inflated only where the entries are
 * read: GET_ENTRIES' reply, a restore, a table the helper must own again.
 */
#include <errno.h>
#include <zlib.h>

#include "ipt/table.h"

size_t ipt_deflate(const void *src, size_t n, void *dst, size_t cap)
{
	z_stream z = { 0 };
	size_t out = 0;

	if (n > UINT32_MAX || cap > UINT32_MAX ||
	    deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)n;
	z.next_out = dst;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out < n)
		out = z.total_out;
	deflateEnd(&z);
	return out;
}

int ipt_inflate(const void *src, size_t zn, void *dst, size_t n)
{
	z_stream z = { 0 };
	int r;

	if (zn > UINT32_MAX || n > UINT32_MAX || inflateInit2(&z, -15) != Z_OK)
		return -EIO;
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)zn;
	z.next_out = dst;
	z.avail_out = (uInt)n;
	r = inflate(&z, Z_FINISH);
	/* all of the input, exactly @n bytes out */
	if (r != Z_STREAM_END || z.avail_in || z.total_out != n)
		r = -EIO;
	else
		r = 0;
	inflateEnd(&z);
	return r;
}

int ipt_blob_copy(const struct ipt_blob *b, void *dst)
{
	if (b->entries) {
		memcpy(dst, b->entries, b->size);
		return 0;
	}
	if (!b->z)
		return b->size ? -EIO : 0;
	return ipt_inflate(b->z, b->zsize, dst, b->size);
}
