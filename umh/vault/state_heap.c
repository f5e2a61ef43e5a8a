// SPDX-License-Identifier: GPL-2.0
/*
 * The heap of saved tables: one memfd in which each table's record (its
 * part of a saved state, ipt_state_save_table()) lies once, however many
 * saved states hold it (state_store.c).
 *
 * A change of one table in one namespace writes that table's record into
 * free space and nothing else: the other records are shared with the
 * states before, so the vault holds every namespace's tables once, plus
 * the one table a change replaced while the state before it is kept.
 * The file is written only where no record lies, i.e. never where a state
 * the vault holds points: a helper that dies while writing leaves every
 * kept state whole.
 *
 * The free space is kept in memory (a sorted list of spans).  Up to
 * twice the largest record this helper wrote stays in memory, the rest
 * is punched out of the file: each change of a big table freed the
 * record before the last and wrote the new one into pages punched just
 * before, which the kernel then allocated and zeroed again (a 10,000-rule
 * table: 450 fresh pages per change, half the vault's time under TCG).
 * With two states kept, a growing table's records take turns between
 * the holes and the end of the file: twice a record keeps them all in
 * memory.  The file grows by doubling (sparse: only written pages cost)
 * and its end moves down when its last records go.
 *
 * The mapping never moves: it lies at the start of an address range
 * reserved once for the largest file the vault can describe (its lengths
 * are 32-bit), and grows in place.  So a record's address stays good as
 * long as the record is kept, and the helper serves a committed table's
 * entries from its record instead of a copy of its own
 * (ipt_state_lend_tables()); a record is deflated where that makes it
 * shorter (ipt/state.c, ipt/blob_z.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/vec.h"
#include "vault/state_heap.h"

#define HEAP_ALIGN	8
#define HEAP_PAGE	4096u
#define HEAP_MIN_FILE	(64u * 1024)
/* heap_end() beyond UINT32_MAX is refused (state_store.c) */
#define HEAP_RESERVE	((size_t)1 << 32)

struct span {
	uint64_t off, len;
	bool warm;	/* its pages may be in memory (not punched) */
};

static struct {
	int fd;
	unsigned char *map;	/* HEAP_RESERVE bytes reserved, never moved */
	size_t map_len;		/* the file's size, all of it mapped */
	uint64_t end;		/* no record lies at or above */
	struct span *free;	/* below @end, sorted, none adjacent */
	size_t nfree, cap;
	uint64_t tail;		/* [end, tail): free, maybe in memory */
	uint64_t warm_max;	/* the free space kept in memory, at most */
} H = { .fd = -1 };

static uint64_t round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

int heap_fd(void)
{
	if (H.fd < 0) {
		H.fd = memfd_create("ebpfilter-tables", MFD_CLOEXEC);
		if (H.fd < 0)
			return -errno;
	}
	return H.fd;
}

uint64_t heap_end(void)
{
	return H.end;
}

bool heap_is(int fd)
{
	struct stat a, b;

	if (fd < 0 || H.fd < 0)
		return false;
	return fd == H.fd || (!fstat(fd, &a) && !fstat(H.fd, &b) &&
			      a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

const unsigned char *heap_at(const struct heap_rec *r)
{
	if (!H.map || H.end > H.map_len || r->off > H.end ||
	    r->len > H.end - r->off)
		return NULL;
	return H.map + r->off;
}

/* The address range the file is mapped at, reserved (no memory). */
static int reserve(void)
{
	void *p;

	if (H.map)
		return 0;
	p = mmap(NULL, HEAP_RESERVE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	H.map = p;
	return 0;
}

/* @fd's bytes [@from, @to) mapped at their place in the range. */
static int map_range(int fd, size_t from, size_t to)
{
	void *p;

	if (from >= to)
		return 0;
	p = mmap(H.map + from, to - from, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, (off_t)from);
	return p == MAP_FAILED ? -errno : 0;
}

/* The file and its mapping at least @len bytes long. */
static int grow_to(uint64_t len)
{
	size_t want = H.map_len ? H.map_len : HEAP_MIN_FILE;
	int r;

	if (len <= H.map_len)
		return 0;
	while (want < len) {
		if (want > HEAP_RESERVE / 2)
			return -ENOMEM;
		want *= 2;
	}
	r = reserve();
	if (r)
		return r;
	if (ftruncate(H.fd, (off_t)want))
		return -errno;
	r = map_range(H.fd, H.map_len, want);
	if (r)
		return r;
	H.map_len = want;
	return 0;
}

/* Give the whole pages of [@a, @b) back (their contents are free). */
static void punch(uint64_t a, uint64_t b)
{
	a = round_up(a, HEAP_PAGE);
	b = b / HEAP_PAGE * HEAP_PAGE;
	if (b > H.map_len)
		b = H.map_len;
	/* a hole punched in the shmem file; failing only costs memory */
	if (a < b)
		(void)madvise(H.map + a, b - a, MADV_REMOVE);
}

/*
 * At most H.warm_max bytes of free space in memory: the tail first, then
 * the spans from the end of the file down (first fit takes the lowest).
 * A span counts whole while any of it may be in memory: an upper bound.
 */
static void cool_down(void)
{
	/* heap_adopt() sets the end before the tail */
	uint64_t warm = H.tail > H.end ? H.tail - H.end : 0;
	size_t i;

	for (i = 0; i < H.nfree; i++)
		if (H.free[i].warm)
			warm += H.free[i].len;
	if (warm > H.warm_max && H.tail > H.end) {
		warm -= H.tail - H.end;
		punch(H.end, round_up(H.tail, HEAP_PAGE));
		H.tail = H.end;
	}
	for (i = H.nfree; i-- > 0 && warm > H.warm_max;) {
		if (!H.free[i].warm)
			continue;
		punch(H.free[i].off, H.free[i].off + H.free[i].len);
		H.free[i].warm = false;
		warm -= H.free[i].len;
	}
}

int heap_put(const void *p, uint32_t len, struct heap_rec *out)
{
	uint64_t need = round_up(len ? len : 1, HEAP_ALIGN), off;
	size_t i;
	int r = heap_fd();

	if (r < 0)
		return r;
	for (i = 0; i < H.nfree && H.free[i].len < need; i++)
		;
	if (i < H.nfree) {	/* the first span that fits */
		off = H.free[i].off;
		H.free[i].off += need;
		H.free[i].len -= need;
		if (!H.free[i].len) {
			memmove(&H.free[i], &H.free[i + 1],
				(H.nfree - i - 1) * sizeof(*H.free));
			H.nfree--;
		}
	} else {
		off = H.end;
		r = grow_to(off + need);
		if (r)
			return r;
		H.end = off + need;
		if (H.tail < H.end)
			H.tail = H.end;
	}
	if (H.warm_max < 2 * need)
		H.warm_max = 2 * need;
	memcpy(H.map + off, p, len);
	*out = (struct heap_rec){ .off = off, .len = len };
	return 0;
}

void heap_free(const struct heap_rec *r)
{
	struct span s = { r->off, round_up(r->len ? r->len : 1, HEAP_ALIGN),
			  true };
	uint64_t old_end = H.end;
	size_t i;

	if (s.off >= H.end || s.len > H.end - s.off)
		return;
	for (i = 0; i < H.nfree && H.free[i].off < s.off; i++)
		;
	/* joined with the spans before and after it where they touch */
	if (i > 0 && H.free[i - 1].off + H.free[i - 1].len == s.off) {
		s.off = H.free[i - 1].off;
		s.len += H.free[i - 1].len;
		s.warm |= H.free[i - 1].warm;
		memmove(&H.free[i - 1], &H.free[i], (H.nfree - i) * sizeof(*H.free));
		H.nfree--;
		i--;
	}
	if (i < H.nfree && s.off + s.len == H.free[i].off) {
		s.len += H.free[i].len;
		s.warm |= H.free[i].warm;
		memmove(&H.free[i], &H.free[i + 1], (H.nfree - i - 1) * sizeof(*H.free));
		H.nfree--;
	}
	if (s.off + s.len == H.end) {	/* the last records: the file ends earlier */
		H.end = s.off;
		if (H.tail < old_end)
			H.tail = old_end;
		cool_down();
		return;
	}
	if (vec_reserve(&H.free, &H.cap, H.nfree + 1)) {
		punch(s.off, s.off + s.len);
		return;	/* the space is lost to this helper, nothing else */
	}
	memmove(&H.free[i + 1], &H.free[i], (H.nfree - i) * sizeof(*H.free));
	H.free[i] = s;
	H.nfree++;
	cool_down();
}

static int by_off(const void *a, const void *b)
{
	const struct heap_rec *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

int heap_adopt(int fd, const struct heap_rec *live, size_t n)
{
	struct heap_rec *v = NULL;
	uint64_t at = 0;
	struct stat st;
	size_t i;
	int r = 0;

	if (fstat(fd, &st))
		return -errno;
	if ((uint64_t)st.st_size > HEAP_RESERVE)
		return -EINVAL;
	if (n) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, live, n * sizeof(*v));
		qsort(v, n, sizeof(*v), by_off);
	}
	for (i = 0; i < n && !r; i++) {
		if (i && v[i].off == v[i - 1].off && v[i].len == v[i - 1].len)
			continue;	/* a record two states hold */
		if (v[i].off < at || v[i].off > (uint64_t)st.st_size ||
		    v[i].len > (uint64_t)st.st_size - v[i].off)
			r = -EINVAL;
		at = v[i].off + round_up(v[i].len ? v[i].len : 1, HEAP_ALIGN);
	}
	if (!r)
		r = reserve();
	/* over the previous heap's pages, if any (the vault's to close) */
	if (!r)
		r = map_range(fd, 0, (size_t)st.st_size);
	if (!r && H.map_len > (size_t)st.st_size &&
	    mmap(H.map + st.st_size, H.map_len - (size_t)st.st_size, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		r = -errno;
	if (r) {
		free(v);
		return r;
	}
	H.fd = fd;
	H.map_len = (size_t)st.st_size;
	H.nfree = 0;
	H.end = 0;
	H.tail = 0;
	/* the gaps between the records are free: whatever lay there */
	for (i = 0; i < n; i++) {
		struct heap_rec gap = { .off = H.end };

		if (i && v[i].off == v[i - 1].off)
			continue;
		gap.len = (uint32_t)(v[i].off - H.end);
		H.end = v[i].off + round_up(v[i].len ? v[i].len : 1, HEAP_ALIGN);
		if (gap.len)
			heap_free(&gap);
	}
	H.tail = H.end;
	punch(H.end, H.map_len);
	free(v);
	return 0;
}
