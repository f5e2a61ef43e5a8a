// SPDX-License-Identifier: GPL-2.0
/*
 * A table's entries checked as ip_tables checks them (net/ipv4/netfilter/
 * ip_tables.c: translate_table() with check_entry_size_and_hooks,
 * mark_source_chains, find_check_entry), for the install (xt_table.c).
 *
 * The helper validated the blob already; the module does not trust it any
 * more than it trusts iptables, since the walk follows these offsets.
 * Every match and target, compiled or not, is looked up and checked by
 * x_tables (xt_request_find_*, xt_check_*) as ip_tables checks it, so a
 * rule set ip_tables refuses is refused with its errno, and an
 * extension's side effects at check time (its module loaded, conntrack
 * enabled in the namespace, a hashlimit or recent table created) happen
 * as they would under ip_tables.
 */

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <linux/uaccess.h>

#include "xt_engine.h"

static bool unconditional(const struct ipt_entry *e)
{
	static const struct ipt_ip uncond;

	return e->target_offset == sizeof(struct ipt_entry) &&
	       memcmp(&e->ip, &uncond, sizeof(uncond)) == 0;
}

static bool ip_checkentry(const struct ipt_ip *ip)
{
	return !(ip->flags & ~IPT_F_MASK) && !(ip->invflags & ~IPT_INV_MASK);
}

static bool check_underflow(const struct ipt_entry *e)
{
	const struct xt_entry_target *t;
	unsigned int verdict;

	if (!unconditional(e))
		return false;
	t = ipt_get_target_c(e);
	if (strcmp(t->u.user.name, XT_STANDARD_TARGET) != 0)
		return false;
	verdict = ((struct xt_standard_target *)t)->verdict;
	verdict = -verdict - 1;
	return verdict == NF_DROP || verdict == NF_ACCEPT;
}

static int check_entry_size_and_hooks(struct ipt_entry *e,
				      struct ebpf_xt_table *t,
				      const unsigned char *base,
				      const unsigned char *limit,
				      const struct ebpf_ctl_install *req)
{
	unsigned int h;
	int err;

	if ((unsigned long)e % __alignof__(struct ipt_entry) != 0 ||
	    (unsigned char *)e + sizeof(struct ipt_entry) >= limit ||
	    (unsigned char *)e + e->next_offset > limit)
		return -EINVAL;
	if (e->next_offset <
	    sizeof(struct ipt_entry) + sizeof(struct xt_entry_target))
		return -EINVAL;
	if (!ip_checkentry(&e->ip))
		return -EINVAL;
	err = xt_check_entry_offsets(e, e->elems, e->target_offset,
				     e->next_offset);
	if (err)
		return err;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(req->valid_hooks & (1 << h)))
			continue;
		if ((unsigned char *)e - base == req->hook_entry[h])
			t->hook_entry[h] = req->hook_entry[h];
		if ((unsigned char *)e - base == req->underflow[h]) {
			if (!check_underflow(e))
				return -EINVAL;
			t->underflow[h] = req->underflow[h];
		}
	}
	e->counters = ((struct xt_counters) { 0, 0 });
	e->comefrom = 0;
	return 0;
}

/* ip_tables' mark_source_chains(): the hooks each rule is reached from
 * (comefrom), 0 if there are loops
 */
static int mark_source_chains(struct ebpf_xt_table *t, void *entry0,
			      unsigned int *offsets)
{
	unsigned int hook;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		unsigned int pos = t->hook_entry[hook];
		struct ipt_entry *e = entry0 + pos;

		if (!(t->valid_hooks & (1 << hook)))
			continue;
		e->counters.pcnt = pos;
		for (;;) {
			const struct xt_standard_target *st =
				(void *)ipt_get_target_c(e);
			int visited = e->comefrom & (1 << hook);

			if (e->comefrom & (1 << NF_INET_NUMHOOKS))
				return 0;
			e->comefrom |= (1 << hook) | (1 << NF_INET_NUMHOOKS);
			if ((unconditional(e) &&
			     strcmp(st->target.u.user.name,
				    XT_STANDARD_TARGET) == 0 &&
			     st->verdict < 0) || visited) {
				unsigned int oldpos, size;

				do {
					e->comefrom ^= (1 << NF_INET_NUMHOOKS);
					oldpos = pos;
					pos = e->counters.pcnt;
					e->counters.pcnt = 0;
					if (pos == oldpos)
						goto next;
					e = entry0 + pos;
				} while (oldpos == pos + e->next_offset);
				size = e->next_offset;
				e = entry0 + pos + size;
				if (pos + size >= t->size)
					return 0;
				e->counters.pcnt = pos;
				pos += size;
			} else {
				int newpos = st->verdict;

				if (strcmp(st->target.u.user.name,
					   XT_STANDARD_TARGET) == 0 &&
				    newpos >= 0) {
					if (!xt_find_jump_offset(offsets, newpos,
								 t->number))
						return 0;
				} else {
					newpos = pos + e->next_offset;
					if (newpos >= t->size)
						return 0;
				}
				e = entry0 + newpos;
				e->counters.pcnt = pos;
				pos = newpos;
			}
		}
next:
		continue;
	}
	return 1;
}

static void cleanup_match(struct xt_entry_match *m, struct net *net)
{
	struct xt_mtdtor_param par = {
		.net = net,
		.match = m->u.kernel.match,
		.matchinfo = m->data,
		.family = NFPROTO_IPV4,
	};

	if (par.match->destroy)
		par.match->destroy(&par);
	module_put(par.match->me);
}

static void cleanup_entry(struct ipt_entry *e, struct net *net,
			  unsigned int nmatches, bool target)
{
	struct xt_entry_match *ematch;
	struct xt_tgdtor_param par;
	struct xt_entry_target *t;

	xt_ematch_foreach(ematch, e) {
		if (nmatches-- == 0)
			break;
		cleanup_match(ematch, net);
	}
	if (!target)
		return;
	t = ipt_get_target(e);
	par.net = net;
	par.target = t->u.kernel.target;
	par.targinfo = t->data;
	par.family = NFPROTO_IPV4;
	if (par.target->destroy)
		par.target->destroy(&par);
	module_put(par.target->me);
}

static int find_check_entry(struct ipt_entry *e, struct net *net,
			    const char *name)
{
	struct xt_mtchk_param mtpar = {
		.net = net,
		.table = name,
		.entryinfo = &e->ip,
		.hook_mask = e->comefrom,
		.family = NFPROTO_IPV4,
	};
	struct xt_tgchk_param tgpar = {
		.net = net,
		.table = name,
		.entryinfo = e,
		.hook_mask = e->comefrom,
		.family = NFPROTO_IPV4,
	};
	struct xt_entry_match *ematch;
	struct xt_entry_target *t;
	struct xt_target *target;
	unsigned int j = 0;
	int ret;

	xt_ematch_foreach(ematch, e) {
		struct xt_match *match;

		match = xt_request_find_match(NFPROTO_IPV4, ematch->u.user.name,
					      ematch->u.user.revision);
		if (IS_ERR(match)) {
			ret = PTR_ERR(match);
			goto cleanup;
		}
		ematch->u.kernel.match = match;
		mtpar.match = match;
		mtpar.matchinfo = ematch->data;
		ret = xt_check_match(&mtpar,
				     ematch->u.match_size - sizeof(*ematch),
				     e->ip.proto,
				     e->ip.invflags & IPT_INV_PROTO);
		if (ret) {
			module_put(match->me);
			goto cleanup;
		}
		j++;
	}
	t = ipt_get_target(e);
	target = xt_request_find_target(NFPROTO_IPV4, t->u.user.name,
					t->u.user.revision);
	if (IS_ERR(target)) {
		ret = PTR_ERR(target);
		goto cleanup;
	}
	t->u.kernel.target = target;
	tgpar.target = target;
	tgpar.targinfo = t->data;
	ret = xt_check_target(&tgpar, t->u.target_size - sizeof(*t),
			      e->ip.proto, e->ip.invflags & IPT_INV_PROTO);
	if (ret) {
		module_put(target->me);
		goto cleanup;
	}
	return 0;
cleanup:
	cleanup_entry(e, net, j, false);
	return ret;
}

/* translate_table(): the checks, then every extension found and checked.
 * On failure nothing is held.
 */
int ebpf_xt_translate(struct ebpf_xt_table *t,
		      const struct ebpf_ctl_install *req, const char *name)
{
	struct ipt_entry *iter;
	unsigned int *offsets;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < NF_INET_NUMHOOKS; i++) {
		t->hook_entry[i] = 0xFFFFFFFF;
		t->underflow[i] = 0xFFFFFFFF;
	}
	offsets = xt_alloc_entry_offsets(t->number);
	if (!offsets)
		return -ENOMEM;
	i = 0;
	xt_entry_foreach(iter, t->entries, t->size) {
		ret = check_entry_size_and_hooks(iter, t, t->entries,
						 t->entries + t->size, req);
		if (ret)
			goto out_free;
		if (i < t->number)
			offsets[i] = (void *)iter - t->entries;
		++i;
		if (strcmp(ipt_get_target(iter)->u.user.name,
			   XT_ERROR_TARGET) == 0)
			++t->stacksize;
	}
	ret = -EINVAL;
	if (i != t->number)
		goto out_free;
	{
		struct xt_table_info info = { .size = t->size,
					      .number = t->number };

		memcpy(info.hook_entry, t->hook_entry, sizeof(info.hook_entry));
		memcpy(info.underflow, t->underflow, sizeof(info.underflow));
		ret = xt_check_table_hooks(&info, t->valid_hooks);
		if (ret)
			goto out_free;
	}
	if (!mark_source_chains(t, t->entries, offsets)) {
		ret = -ELOOP;
		goto out_free;
	}
	t->offsets = offsets;	/* kept: resume records are checked on it */

	i = 0;
	xt_entry_foreach(iter, t->entries, t->size) {
		ret = find_check_entry(iter, t->net, name);
		if (ret)
			break;
		++i;
	}
	if (ret) {
		xt_entry_foreach(iter, t->entries, t->size) {
			if (i-- == 0)
				break;
			cleanup_entry(iter, t->net, UINT_MAX, true);
		}
		return ret;
	}
	/* the ordinal is the counter slot (the walk's and the programs') */
	i = 0;
	xt_entry_foreach(iter, t->entries, t->size)
		iter->counters.pcnt = i++;
	return 0;
out_free:
	kvfree(offsets);
	return ret;
}

/*
 * The entries written back as GET_ENTRIES shows them: ip_tables'
 * copy_entries_to_user(), with x_tables' own xt_match_to_user() and
 * xt_target_to_user() (each payload past its extension's usersize zeroed),
 * counters zero.  A failure leaves the helper's buffer half written; it
 * discards it with the refused install.
 */
int ebpf_xt_copy_entries_to_user(const struct ebpf_xt_table *t,
				 void __user *userptr)
{
	static const struct xt_counters zero;
	const struct ipt_entry *e;
	unsigned int off, i;

	for (off = 0; off < t->size; off += e->next_offset) {
		const struct xt_entry_match *m;

		e = t->entries + off;
		if (copy_to_user(userptr + off, e, sizeof(*e)) ||
		    copy_to_user(userptr + off +
				 offsetof(struct ipt_entry, counters),
				 &zero, sizeof(zero)))
			return -EFAULT;
		for (i = sizeof(*e); i < e->target_offset;
		     i += m->u.match_size) {
			m = (const void *)e + i;
			if (xt_match_to_user(m, userptr + off + i))
				return -EFAULT;
		}
		if (xt_target_to_user(ipt_get_target_c(e),
				      userptr + off + e->target_offset))
			return -EFAULT;
	}
	return 0;
}

/* Every extension instance of a checked table destroyed (ip_tables'
 * cleanup_entry() over the table).
 */
void ebpf_xt_cleanup(struct ebpf_xt_table *t)
{
	struct ipt_entry *iter;

	xt_entry_foreach(iter, t->entries, t->size)
		cleanup_entry(iter, t->net, UINT_MAX, true);
}
