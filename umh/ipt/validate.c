// SPDX-License-Identifier: GPL-2.0
/*
 * translate_table(): the checks ip_tables makes on a SET_REPLACE blob
 * before it becomes a table (net/ipv4/netfilter/ip_tables.c and
 * net/netfilter/x_tables.c of Linux 6.1; 6.12 is identical here), and
 * ip6_tables' (net/ipv6/netfilter/ip6_tables.c: the same steps on struct
 * ip6t_entry; family.h says where the two entries differ).
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
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "ipt/family.h"
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

static const any_target *target_of(const struct ipt_family *f,
				   const void *e)
{
	return ipt_e_target(f, e);
}

/* unconditional(): no condition in the IP part, no match. */
static bool unconditional(const struct ipt_family *f, const void *e)
{
	/* the larger of struct ipt_ip and struct ip6t_ip6 */
	static const struct ip6t_ip6 uncond;

	return ipt_e_target_offset(f, e) == f->entry_size &&
	       memcmp(e, &uncond, f->ip_size) == 0;
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
static int check_entry_matches(const struct ipt_family *f, const void *e)
{
	unsigned int pos = f->entry_size;
	int length = ipt_e_target_offset(f, e) - (int)f->entry_size;

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
static int check_entry_offsets(const struct ipt_family *f, const void *e)
{
	unsigned int target_offset = ipt_e_target_offset(f, e);
	unsigned int next_offset = ipt_e_next_offset(f, e);
	const any_target *t;

	if (target_offset < f->entry_size)
		return -EINVAL;
	if (target_offset + sizeof(*t) > next_offset)
		return -EINVAL;
	t = target_of(f, e);
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
	return check_entry_matches(f, e);
}

/* check_underflow(): a policy is an unconditional ACCEPT or DROP. */
static bool underflow_ok(const struct ipt_family *f, const void *e)
{
	const any_target *t;
	unsigned int verdict;

	if (!unconditional(f, e))
		return false;
	t = target_of(f, e);
	if (!ipt_ext_name_is(t->u.user.name, XT_STANDARD_TARGET))
		return false;
	verdict = ((const any_standard_target *)t)->verdict;
	verdict = -verdict - 1;
	return verdict == NF_DROP || verdict == NF_ACCEPT;
}

/* check_entry_size_and_hooks() for the entry at @pos of @size bytes. */
static int check_entry_size_and_hooks(const struct ipt_family *f,
				      unsigned char *base, unsigned int size,
				      unsigned int pos,
				      const struct ipt_replace *repl,
				      struct ipt_blob *b)
{
	unsigned char *e = base + pos;
	struct xt_counters *c;
	unsigned int h;
	int err;

	/* Bounds first: nothing of the entry is read before they hold
	 * (both entries are 8-aligned: their counters are u64). */
	if (pos % __alignof__(struct ipt_entry) ||
	    (unsigned long long)pos + f->entry_size >= size ||
	    (unsigned long long)pos + ipt_e_next_offset(f, e) > size)
		return -EINVAL;
	if (ipt_e_next_offset(f, e) < f->entry_size +
	    sizeof(struct xt_entry_target))
		return -EINVAL;
	if (!f->ip_ok(e))
		return -EINVAL;
	err = check_entry_offsets(f, e);
	if (err)
		return err;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(repl->valid_hooks & (1 << h)))
			continue;
		if (pos == repl->hook_entry[h])
			b->hook_entry[h] = repl->hook_entry[h];
		if (pos == repl->underflow[h]) {
			if (!underflow_ok(f, e))
				return -EINVAL;
			b->underflow[h] = repl->underflow[h];
		}
	}

	/* The kernel clears both; comefrom is recomputed below. */
	c = ipt_e_counters(f, e);
	c->pcnt = 0;
	c->bcnt = 0;
	*ipt_e_comefrom(f, e) = 0;
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
static bool mark_source_chains(const struct ipt_family *f,
			       unsigned char *base, const struct ipt_blob *b,
			       unsigned int valid_hooks,
			       const unsigned int *offsets)
{
	const unsigned int on_path = 1u << NF_INET_NUMHOOKS;
	unsigned int hook;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		unsigned int pos = b->hook_entry[hook];
		unsigned char *e = base + pos;

		if (!(valid_hooks & (1 << hook)))
			continue;
		ipt_e_counters(f, e)->pcnt = pos;

		for (;;) {
			const any_target *t = target_of(f, e);
			unsigned int *comefrom = ipt_e_comefrom(f, e);
			bool standard = ipt_ext_name_is(t->u.user.name,
							XT_STANDARD_TARGET);
			int verdict = standard ?
				((const any_standard_target *)t)->verdict : 0;
			unsigned int visited = *comefrom & (1u << hook);

			if (*comefrom & on_path)
				return false;
			*comefrom |= (1u << hook) | on_path;

			if ((unconditional(f, e) && standard && verdict < 0) ||
			    visited) {
				unsigned int oldpos, next;

				/* Return: back along the path to the last jump. */
				do {
					*ipt_e_comefrom(f, e) ^= on_path;
					oldpos = pos;
					pos = ipt_e_counters(f, e)->pcnt;
					ipt_e_counters(f, e)->pcnt = 0;
					if (pos == oldpos)
						goto next_hook;
					e = base + pos;
				} while (oldpos == pos + ipt_e_next_offset(f, e));

				/* ... and on to the entry after that jump. */
				next = ipt_e_next_offset(f, e);
				if (pos + next >= b->size)
					return false;
				e = base + pos + next;
				ipt_e_counters(f, e)->pcnt = pos;
				pos += next;
			} else {
				unsigned int newpos;

				if (standard && verdict >= 0) {
					newpos = verdict;
					if (!is_entry_start(offsets, newpos,
							    b->num_entries))
						return false;
				} else {
					newpos = pos + ipt_e_next_offset(f, e);
					if (newpos >= b->size)
						return false;
				}
				e = base + newpos;
				ipt_e_counters(f, e)->pcnt = pos;
				pos = newpos;
			}
		}
next_hook:	;
	}
	return true;
}

void ipt_blob_free_entries(struct ipt_blob *b)
{
	if (!b->lent)
		bigmem_free(b->entries);
	b->entries = NULL;
	b->z = NULL;
	b->zsize = 0;
	b->lent = false;
}

void ipt_blob_free(struct ipt_blob *b)
{
	free(b->writeback);
	ipt_blob_free_entries(b);
	memset(b, 0, sizeof(*b));
}

int ipt_translate_family(const struct ipt_family *f,
			 const struct ipt_replace *repl, const void *entries,
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
	max_entries = b.size / (f->entry_size + sizeof(struct xt_entry_target)) + 1;
	if (max_entries > b.num_entries)
		max_entries = b.num_entries;
	offsets = calloc(max_entries ? max_entries : 1, sizeof(*offsets));
	b.writeback = calloc(max_entries / 8 + 1, 1);
	if (!offsets || !b.writeback) {
		ret = -ENOMEM;
		goto fail;
	}

	i = 0;
	for (pos = 0; pos < b.size;
	     pos += ipt_e_next_offset(f, b.entries + pos)) {
		ret = check_entry_size_and_hooks(f, b.entries, b.size, pos,
						 repl, &b);
		if (ret)
			goto fail;
		if (i < max_entries)
			offsets[i] = pos;
		++i;
		if (ipt_ext_name_is(target_of(f, b.entries + pos)->u.user.name,
				    XT_ERROR_TARGET))
			++b.stacksize;
	}

	ret = -EINVAL;
	if (i != b.num_entries)
		goto fail;
	ret = check_table_hooks(&b, repl->valid_hooks);
	if (ret)
		goto fail;
	if (!mark_source_chains(f, b.entries, &b, repl->valid_hooks, offsets)) {
		ret = -ELOOP;
		goto fail;
	}

	/* find_check_entry(): the extensions, in blob order. */
	for (pos = 0, i = 0; pos < b.size;
	     pos += ipt_e_next_offset(f, b.entries + pos), i++) {
		unsigned char *e = b.entries + pos;

		ret = ipt_ext_check_normalize(f, e, *ipt_e_comefrom(f, e));
		if (ret < 0)
			goto fail;
		if (ret)
			b.writeback[i / 8] |= 1u << (i % 8);
		/* mark_source_chains() leaves back pointers behind. */
		ipt_e_counters(f, e)->pcnt = 0;
	}

	free(offsets);
	*out = b;
	return 0;
fail:
	free(offsets);
	ipt_blob_free(&b);
	return ret;
}

int ipt_translate(const struct ipt_replace *repl, const void *entries,
		  struct ipt_blob *out)
{
	return ipt_translate_family(&ipt_family_ipv4, repl, entries, out);
}
