// SPDX-License-Identifier: GPL-2.0
/*
 * translate_table(): the checks ip_tables makes on a SET_REPLACE blob
 * before it becomes a table (net/ipv4/netfilter/ip_tables.c and
 * net/netfilter/x_tables.c of Linux 6.1; 6.12 is identical here).
 *
 * The order of the checks is the kernel's, because the first failing
 * check decides the errno the caller sees and iptables' messages depend
 * on it.  The blob is untrusted: it is copied once, and everything after
 * that works on the copy, so the table that is stored and handed to the
 * enforcement backend is exactly the one that was checked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipt/table.h"
#include "lib/bigmem.h"

/*
 * Entries and matches are known to be 8-aligned before they are read
 * (both are checked), but nothing in translate_table() requires
 * target_offset to be a multiple of 8: a blob whose last match has an odd
 * size puts the target anywhere, and the structural checks read it before
 * the match's size check refuses the entry.  The kernel reads it where it
 * is; so do we, through types that make no alignment promise.
 */
typedef struct xt_entry_target any_target __attribute__((aligned(1)));
typedef struct xt_standard_target any_standard_target __attribute__((aligned(1)));
typedef struct xt_error_target any_error_target __attribute__((aligned(1)));

static const struct ipt_entry *entry_at(const unsigned char *base,
					unsigned int off)
{
	return (const struct ipt_entry *)(base + off);
}

static const any_target *target_of(const struct ipt_entry *e)
{
	return (const void *)((const unsigned char *)e + e->target_offset);
}

/* ip_checkentry() */
static bool ip_header_ok(const struct ipt_ip *ip)
{
	return !(ip->flags & ~IPT_F_MASK) && !(ip->invflags & ~IPT_INV_MASK);
}

/* unconditional(): no condition in the header, no match. */
static bool unconditional(const struct ipt_entry *e)
{
	static const struct ipt_ip uncond;

	return e->target_offset == sizeof(struct ipt_entry) &&
	       memcmp(&e->ip, &uncond, sizeof(uncond)) == 0;
}

/*
 * verdict_ok(): a jump (> 0), RETURN, or one of the netfilter verdicts a
 * rule may give.  Computed in 64 bits: the kernel builds with wrapping
 * arithmetic, where -INT_MIN - 1 is INT_MAX, which is not a verdict
 * either.
 */
static bool verdict_ok(int verdict)
{
	long long v;

	if (verdict > 0)
		return true;
	if (verdict == 0)
		return false;
	if (verdict == XT_RETURN)
		return true;
	v = -(long long)verdict - 1;
	return v == NF_ACCEPT || v == NF_DROP || v == NF_QUEUE;
}

/* xt_check_entry_match(): the matches tile [elems, target) exactly. */
static int check_entry_matches(const struct ipt_entry *e)
{
	unsigned int pos = sizeof(struct ipt_entry);
	int length = e->target_offset - sizeof(struct ipt_entry);

	if (length == 0)
		return 0;
	do {
		const struct xt_entry_match *m = (const void *)
			((const unsigned char *)e + pos);

		/* The entry is 8-aligned, so this is the address check. */
		if (pos % __alignof__(struct xt_entry_match))
			return -EINVAL;
		if (length < (int)sizeof(struct xt_entry_match))
			return -EINVAL;
		if (m->u.match_size < sizeof(struct xt_entry_match))
			return -EINVAL;
		if (m->u.match_size > length)
			return -EINVAL;
		length -= m->u.match_size;
		pos += m->u.match_size;
	} while (length > 0);
	return 0;
}

/* xt_check_entry_offsets() */
static int check_entry_offsets(const struct ipt_entry *e)
{
	unsigned int target_offset = e->target_offset;
	unsigned int next_offset = e->next_offset;
	const any_target *t;

	if (target_offset < sizeof(struct ipt_entry))
		return -EINVAL;
	if (target_offset + sizeof(*t) > next_offset)
		return -EINVAL;
	t = target_of(e);
	if (t->u.target_size < sizeof(*t))
		return -EINVAL;
	if (target_offset + t->u.target_size > next_offset)
		return -EINVAL;

	if (ipt_ext_name_is(t->u.user.name, XT_STANDARD_TARGET)) {
		const any_standard_target *st = (const void *)t;

		/* Also guarantees that the verdict lies inside the entry. */
		if (XT_ALIGN(target_offset + sizeof(*st)) != next_offset)
			return -EINVAL;
		if (!verdict_ok(st->verdict))
			return -EINVAL;
	} else if (ipt_ext_name_is(t->u.user.name, XT_ERROR_TARGET)) {
		const any_error_target *et = (const void *)t;

		/* error_tg_ok(): exact size, NUL-terminated chain name */
		if (t->u.target_size != sizeof(*et) ||
		    strnlen(et->errorname, sizeof(et->errorname)) >=
		    sizeof(et->errorname))
			return -EINVAL;
	}
	return check_entry_matches(e);
}

/* check_underflow(): a policy is an unconditional ACCEPT or DROP. */
static bool underflow_ok(const struct ipt_entry *e)
{
	const any_target *t;
	unsigned int verdict;

	if (!unconditional(e))
		return false;
	t = target_of(e);
	if (!ipt_ext_name_is(t->u.user.name, XT_STANDARD_TARGET))
		return false;
	verdict = ((const any_standard_target *)t)->verdict;
	verdict = -verdict - 1;
	return verdict == NF_DROP || verdict == NF_ACCEPT;
}

/* check_entry_size_and_hooks() for the entry at @pos of @size bytes. */
static int check_entry_size_and_hooks(unsigned char *base, unsigned int size,
				      unsigned int pos,
				      const struct ipt_replace *repl,
				      struct ipt_blob *b)
{
	struct ipt_entry *e = (struct ipt_entry *)(base + pos);
	unsigned int h;
	int err;

	/* Bounds first: nothing of the entry is read before they hold. */
	if (pos % __alignof__(struct ipt_entry) ||
	    (unsigned long long)pos + sizeof(struct ipt_entry) >= size ||
	    (unsigned long long)pos + e->next_offset > size)
		return -EINVAL;
	if (e->next_offset < IPT_MIN_ENTRY_SIZE)
		return -EINVAL;
	if (!ip_header_ok(&e->ip))
		return -EINVAL;
	err = check_entry_offsets(e);
	if (err)
		return err;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(repl->valid_hooks & (1 << h)))
			continue;
		if (pos == repl->hook_entry[h])
			b->hook_entry[h] = repl->hook_entry[h];
		if (pos == repl->underflow[h]) {
			if (!underflow_ok(e))
				return -EINVAL;
			b->underflow[h] = repl->underflow[h];
		}
	}

	/* The kernel clears both; comefrom is recomputed below. */
	e->counters.pcnt = 0;
	e->counters.bcnt = 0;
	e->comefrom = 0;
	return 0;
}

/*
 * xt_check_table_hooks(): every hook of the table has an entry point and
 * a policy, both strictly increasing in hook order.
 */
static int check_table_hooks(const struct ipt_blob *b, unsigned int valid_hooks)
{
	unsigned int i, max_uflow = 0, max_entry = 0;
	bool check_hooks = false;

	for (i = 0; i < NF_INET_NUMHOOKS; i++) {
		if (!(valid_hooks & (1 << i)))
			continue;
		if (b->hook_entry[i] == 0xFFFFFFFF ||
		    b->underflow[i] == 0xFFFFFFFF)
			return -EINVAL;
		if (check_hooks &&
		    (max_uflow >= b->underflow[i] ||
		     max_entry >= b->hook_entry[i]))
			return -EINVAL;
		max_entry = b->hook_entry[i];
		max_uflow = b->underflow[i];
		check_hooks = true;
	}
	return 0;
}

/* xt_find_jump_offset(): is @target the start of an entry? */
static bool is_entry_start(const unsigned int *offsets, unsigned int target,
			   unsigned int n)
{
	unsigned int lo = 0, hi = n;

	while (hi > lo) {
		unsigned int m = lo + (hi - lo) / 2;

		if (offsets[m] > target)
			hi = m;
		else if (offsets[m] < target)
			lo = m + 1;
		else
			return true;
	}
	return false;
}

/*
 * mark_source_chains(), step for step: walk every path from every hook,
 * recording in comefrom the hooks an entry is reachable from (the kernel
 * returns these bits in GET_ENTRIES, so they must come out the same) and
 * refusing loops, jumps that do not land on an entry, and paths that run
 * off the end.  As in the kernel, counters.pcnt holds the back pointer of
 * the walk and bit NF_INET_NUMHOOKS of comefrom marks "on the current
 * path".  Every position the walk reaches is an entry start: a hook
 * entry, a checked jump target or the next entry of one.
 */
static bool mark_source_chains(unsigned char *base, const struct ipt_blob *b,
			       unsigned int valid_hooks,
			       const unsigned int *offsets)
{
	const unsigned int on_path = 1u << NF_INET_NUMHOOKS;
	unsigned int hook;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		unsigned int pos = b->hook_entry[hook];
		struct ipt_entry *e = (struct ipt_entry *)(base + pos);

		if (!(valid_hooks & (1 << hook)))
			continue;
		e->counters.pcnt = pos;

		for (;;) {
			const any_target *t = target_of(e);
			bool standard = ipt_ext_name_is(t->u.user.name,
							XT_STANDARD_TARGET);
			int verdict = standard ?
				((const any_standard_target *)t)->verdict : 0;
			unsigned int visited = e->comefrom & (1u << hook);

			if (e->comefrom & on_path)
				return false;
			e->comefrom |= (1u << hook) | on_path;

			if ((unconditional(e) && standard && verdict < 0) ||
			    visited) {
				unsigned int oldpos, next;

				/* Return: back along the path to the last jump. */
				do {
					e->comefrom ^= on_path;
					oldpos = pos;
					pos = e->counters.pcnt;
					e->counters.pcnt = 0;
					if (pos == oldpos)
						goto next_hook;
					e = (struct ipt_entry *)(base + pos);
				} while (oldpos == pos + e->next_offset);

				/* ... and on to the entry after that jump. */
				next = e->next_offset;
				if (pos + next >= b->size)
					return false;
				e = (struct ipt_entry *)(base + pos + next);
				e->counters.pcnt = pos;
				pos += next;
			} else {
				unsigned int newpos;

				if (standard && verdict >= 0) {
					newpos = verdict;
					if (!is_entry_start(offsets, newpos,
							    b->num_entries))
						return false;
				} else {
					newpos = pos + e->next_offset;
					if (newpos >= b->size)
						return false;
				}
				e = (struct ipt_entry *)(base + newpos);
				e->counters.pcnt = pos;
				pos = newpos;
			}
		}
next_hook:	;
	}
	return true;
}

void ipt_blob_free(struct ipt_blob *b)
{
	bigmem_free(b->entries);
	memset(b, 0, sizeof(*b));
}

int ipt_translate(const struct ipt_replace *repl, const void *entries,
		  struct ipt_blob *out)
{
	struct ipt_blob b = { 0 };
	unsigned int *offsets = NULL;
	unsigned int i, pos, max_entries;
	int ret;

	/* xt_alloc_table_info() and xt_alloc_entry_offsets() */
	if ((unsigned long long)IPT_XT_TABLE_INFO_SIZE + repl->size >=
	    IPT_XT_MAX_TABLE_SIZE)
		return -ENOMEM;
	if (repl->num_entries > IPT_XT_MAX_TABLE_SIZE / sizeof(unsigned int))
		return -ENOMEM;

	b.size = repl->size;
	b.num_entries = repl->num_entries;
	for (i = 0; i < NF_INET_NUMHOOKS; i++) {
		b.hook_entry[i] = 0xFFFFFFFF;
		b.underflow[i] = 0xFFFFFFFF;
	}
	/* the replaced table's, kept (lib/bigmem.h): a 10,000-rule
	 * table's 1.8 MB was faulted in again at every change */
	b.entries = bigmem_alloc(b.size ? b.size : 1);
	if (!b.entries)
		return -ENOMEM;
	memcpy(b.entries, entries, b.size);

	/*
	 * Only the first num_entries offsets are recorded, and no blob has
	 * more entries than fit at the minimum entry size: a lying
	 * num_entries cannot make us allocate more than the blob justifies.
	 */
	max_entries = b.size / IPT_MIN_ENTRY_SIZE + 1;
	if (max_entries > b.num_entries)
		max_entries = b.num_entries;
	offsets = calloc(max_entries ? max_entries : 1, sizeof(*offsets));
	if (!offsets) {
		ret = -ENOMEM;
		goto fail;
	}

	i = 0;
	for (pos = 0; pos < b.size; pos += entry_at(b.entries, pos)->next_offset) {
		const struct ipt_entry *e;

		ret = check_entry_size_and_hooks(b.entries, b.size, pos, repl,
						 &b);
		if (ret)
			goto fail;
		e = entry_at(b.entries, pos);
		if (i < max_entries)
			offsets[i] = pos;
		++i;
		if (ipt_ext_name_is(target_of(e)->u.user.name, XT_ERROR_TARGET))
			++b.stacksize;
	}

	ret = -EINVAL;
	if (i != b.num_entries)
		goto fail;
	ret = check_table_hooks(&b, repl->valid_hooks);
	if (ret)
		goto fail;
	if (!mark_source_chains(b.entries, &b, repl->valid_hooks, offsets)) {
		ret = -ELOOP;
		goto fail;
	}

	/* find_check_entry(): the extensions, in blob order. */
	for (pos = 0; pos < b.size; pos += entry_at(b.entries, pos)->next_offset) {
		struct ipt_entry *e = (struct ipt_entry *)(b.entries + pos);

		ret = ipt_ext_check_entry(e, e->comefrom);
		if (ret)
			goto fail;
	}
	for (pos = 0; pos < b.size; pos += entry_at(b.entries, pos)->next_offset) {
		struct ipt_entry *e = (struct ipt_entry *)(b.entries + pos);

		/* mark_source_chains() leaves back pointers behind. */
		e->counters.pcnt = 0;
		ipt_ext_normalize(e);
	}

	free(offsets);
	*out = b;
	return 0;
fail:
	free(offsets);
	ipt_blob_free(&b);
	return ret;
}
