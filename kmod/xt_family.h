/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine of one address family, written once for ip_tables' entries
 * and ip6_tables' (whose struct ipt_entry and struct ip6t_entry differ only
 * in the leading IP part): included by xt_ipv4.c and xt_ipv6.c, each of
 * which defines first
 *
 *   EBPF_XT_ENTRY      struct ipt_entry / struct ip6t_entry
 *   EBPF_XT_IP         struct ipt_ip / struct ip6t_ip6
 *   EBPF_XT_E_IP(e)    the entry's IP part ((e)->ip / (e)->ipv6)
 *   EBPF_XT_NFPROTO    NFPROTO_IPV4 / NFPROTO_IPV6
 *   EBPF_XT_INV_PROTO, EBPF_XT_F_GOTO   the IP part's flags of those names
 *   EBPF_XT_WALK       the name of the walk (ebpf_xt_walk_ipv4, ...)
 *   EBPF_XT_INDEX      its enum ebpf_xt_fam (EBPF_XT_IPV4, EBPF_XT_IPV6)
 *   EBPF_XT_FAMILY     the name of its struct ebpf_xt_family
 *   ip_checkentry()    ip_tables' / ip6_tables' own
 *   struct pkt_state, pkt_init(), pkt_match(), pkt_changed(): the packet
 *                      as the walk sees it: ip_packet_match() /
 *                      ip6_packet_match() and what they set in the
 *                      xt_action_param (thoff, fragoff, hotdrop)
 *
 * Install: the entries checked as ip_tables checks them (translate_table()
 * with check_entry_size_and_hooks, mark_source_chains, find_check_entry).
 * The helper validated the blob already; the module does not trust it any
 * more than it trusts iptables, since the walk follows these offsets.
 * Every match and target, compiled or not, is looked up and checked by
 * x_tables (xt_request_find_*, xt_check_*) as ip_tables checks it, so a
 * rule set ip_tables refuses is refused with its errno, and an
 * extension's side effects at check time (its module loaded, conntrack
 * enabled in the namespace, a hashlimit or recent table created) happen
 * as they would under ip_tables.
 *
 * Packets: ipt_do_table() / ip6t_do_table(), line for line.
 */

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <linux/uaccess.h>

#include "xt_engine.h"

static inline struct xt_entry_target *get_target(const EBPF_XT_ENTRY *e)
{
	return (void *)e + e->target_offset;
}

static inline EBPF_XT_ENTRY *next_entry(const EBPF_XT_ENTRY *e)
{
	return (void *)e + e->next_offset;
}

static bool unconditional(const EBPF_XT_ENTRY *e)
{
	static const EBPF_XT_IP uncond;

	return e->target_offset == sizeof(EBPF_XT_ENTRY) &&
	       memcmp(&EBPF_XT_E_IP(e), &uncond, sizeof(uncond)) == 0;
}

static bool check_underflow(const EBPF_XT_ENTRY *e)
{
	const struct xt_entry_target *t;
	unsigned int verdict;

	if (!unconditional(e))
		return false;
	t = get_target(e);
	if (strcmp(t->u.user.name, XT_STANDARD_TARGET) != 0)
		return false;
	verdict = ((struct xt_standard_target *)t)->verdict;
	verdict = -verdict - 1;
	return verdict == NF_DROP || verdict == NF_ACCEPT;
}

static int check_entry_size_and_hooks(EBPF_XT_ENTRY *e,
				      struct ebpf_xt_table *t,
				      const unsigned char *base,
				      const unsigned char *limit,
				      const struct ebpf_ctl_install *req)
{
	unsigned int h;
	int err;

	if ((unsigned long)e % __alignof__(EBPF_XT_ENTRY) != 0 ||
	    (unsigned char *)e + sizeof(EBPF_XT_ENTRY) >= limit ||
	    (unsigned char *)e + e->next_offset > limit)
		return -EINVAL;
	if (e->next_offset <
	    sizeof(EBPF_XT_ENTRY) + sizeof(struct xt_entry_target))
		return -EINVAL;
	if (!ip_checkentry(&EBPF_XT_E_IP(e)))
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
		EBPF_XT_ENTRY *e = entry0 + pos;

		if (!(t->valid_hooks & (1 << hook)))
			continue;
		e->counters.pcnt = pos;
		for (;;) {
			const struct xt_standard_target *st =
				(void *)get_target(e);
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
		.family = EBPF_XT_NFPROTO,
	};

	if (par.match->destroy)
		par.match->destroy(&par);
	module_put(par.match->me);
}

static void cleanup_entry(EBPF_XT_ENTRY *e, struct net *net,
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
	t = get_target(e);
	par.net = net;
	par.target = t->u.kernel.target;
	par.targinfo = t->data;
	par.family = EBPF_XT_NFPROTO;
	if (par.target->destroy)
		par.target->destroy(&par);
	module_put(par.target->me);
}

static int find_check_entry(EBPF_XT_ENTRY *e, struct net *net,
			    const char *name)
{
	struct xt_mtchk_param mtpar = {
		.net = net,
		.table = name,
		.entryinfo = &EBPF_XT_E_IP(e),
		.hook_mask = e->comefrom,
		.family = EBPF_XT_NFPROTO,
	};
	struct xt_tgchk_param tgpar = {
		.net = net,
		.table = name,
		.entryinfo = e,
		.hook_mask = e->comefrom,
		.family = EBPF_XT_NFPROTO,
	};
	struct xt_entry_match *ematch;
	struct xt_entry_target *t;
	struct xt_target *target;
	unsigned int j = 0;
	int ret;

	xt_ematch_foreach(ematch, e) {
		struct xt_match *match;

		match = xt_request_find_match(EBPF_XT_NFPROTO,
					      ematch->u.user.name,
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
				     EBPF_XT_E_IP(e).proto,
				     EBPF_XT_E_IP(e).invflags &
				     EBPF_XT_INV_PROTO);
		if (ret) {
			module_put(match->me);
			goto cleanup;
		}
		j++;
	}
	t = get_target(e);
	target = xt_request_find_target(EBPF_XT_NFPROTO, t->u.user.name,
					t->u.user.revision);
	if (IS_ERR(target)) {
		ret = PTR_ERR(target);
		goto cleanup;
	}
	t->u.kernel.target = target;
	tgpar.target = target;
	tgpar.targinfo = t->data;
	ret = xt_check_target(&tgpar, t->u.target_size - sizeof(*t),
			      EBPF_XT_E_IP(e).proto,
			      EBPF_XT_E_IP(e).invflags & EBPF_XT_INV_PROTO);
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
static int translate(struct ebpf_xt_table *t,
		     const struct ebpf_ctl_install *req, const char *name)
{
	EBPF_XT_ENTRY *iter;
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
		if (strcmp(get_target(iter)->u.user.name,
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
 * counters zero; with @which, only the entries whose bit it sets.  A
 * failure leaves the helper's buffer half written; it discards it with
 * the refused install.
 */
static int copy_entries_to_user(const struct ebpf_xt_table *t,
				void __user *userptr, const u8 *which)
{
	static const struct xt_counters zero;
	const EBPF_XT_ENTRY *e;
	unsigned int off, i, n;

	for (off = 0, n = 0; off < t->size; off += e->next_offset, n++) {
		const struct xt_entry_match *m;

		e = t->entries + off;
		if (which && !(which[n / 8] & (1u << (n % 8))))
			continue;
		if (copy_to_user(userptr + off, e, sizeof(*e)) ||
		    copy_to_user(userptr + off +
				 offsetof(EBPF_XT_ENTRY, counters),
				 &zero, sizeof(zero)))
			return -EFAULT;
		for (i = sizeof(*e); i < e->target_offset;
		     i += m->u.match_size) {
			m = (const void *)e + i;
			if (xt_match_to_user(m, userptr + off + i))
				return -EFAULT;
		}
		if (xt_target_to_user(get_target(e),
				      userptr + off + e->target_offset))
			return -EFAULT;
	}
	return 0;
}

/* Every extension instance of a checked table destroyed (ip_tables'
 * cleanup_entry() over the table).
 */
static void cleanup(struct ebpf_xt_table *t)
{
	EBPF_XT_ENTRY *iter;

	xt_entry_foreach(iter, t->entries, t->size)
		cleanup_entry(iter, t->net, UINT_MAX, true);
}

/* Is @m's user-visible payload the same in @a and @b (checked entries)? */
static bool same_ext(const struct xt_entry_match *a,
		     const struct xt_entry_match *b, const void *ext,
		     unsigned int usersize)
{
	unsigned int len = a->u.match_size - sizeof(*a);

	if (a->u.match_size != b->u.match_size || a->u.kernel.match != ext)
		return false;
	/* past usersize: the kernel's own state (a limit's master, ...) */
	if (usersize && usersize < len)
		len = usersize;
	return !memcmp(a->data, b->data, len);
}

/* The same rule: same header, matches and target (as the user gave them). */
static bool same_rule(const void *ea, const void *eb)
{
	const EBPF_XT_ENTRY *a = ea, *b = eb;
	const struct xt_entry_target *ta, *tb;
	unsigned int off;

	if (a->target_offset != b->target_offset ||
	    a->next_offset != b->next_offset ||
	    memcmp(&EBPF_XT_E_IP(a), &EBPF_XT_E_IP(b), sizeof(EBPF_XT_IP)))
		return false;
	for (off = sizeof(*a); off < a->target_offset;) {
		const struct xt_entry_match *ma = (const void *)a + off;
		const struct xt_entry_match *mb = (const void *)b + off;

		if (!same_ext(ma, mb, mb->u.kernel.match,
			      mb->u.kernel.match->usersize))
			return false;
		off += ma->u.match_size;
	}
	ta = get_target(a);
	tb = get_target(b);
	/* the target's header has the match's layout */
	return same_ext((const void *)ta, (const void *)tb,
			tb->u.kernel.target, tb->u.kernel.target->usersize);
}

static unsigned int comefrom(const void *e)
{
	return ((const EBPF_XT_ENTRY *)e)->comefrom;
}

static inline void count(const struct ebpf_xt_table *t,
			 const EBPF_XT_ENTRY *e, const struct sk_buff *skb)
{
	ebpf_counter_add(&t->counters[e->counters.pcnt], 1, skb->len);
}

/*
 * ipt_do_table() / ip6t_do_table(), on this module's table: the same order
 * of tests, the same jump stack, counters, hotdrop and verdicts; from the
 * hook's entry, or from where a program stopped (@from).  Called with BHs
 * off.
 */
unsigned int EBPF_XT_WALK(const struct ebpf_xt_table *t, struct sk_buff *skb,
			  const struct nf_hook_state *state,
			  const struct ebpf_resume *from)
{
	static const char nulldevname[IFNAMSIZ] __aligned(sizeof(long));
	unsigned int hook = state->hook, verdict = NF_DROP, stackidx = 0;
	const char *indev, *outdev;
	struct xt_action_param acpar;
	EBPF_XT_ENTRY *e, **jumpstack;
	const void *table_base = t->entries;
	struct pkt_state pkt;

	indev = state->in ? state->in->name : nulldevname;
	outdev = state->out ? state->out->name : nulldevname;
	pkt_init(&pkt, skb, &acpar);
	acpar.hotdrop = false;
	acpar.state = state;

	jumpstack = (EBPF_XT_ENTRY **)t->jumpstack +
		    smp_processor_id() * 2 * max(t->stacksize, 1u);
	/* TEE's duplicate runs the table from inside the original's walk */
	if (static_key_false(&xt_tee_enabled))
		jumpstack += t->stacksize * ebpf_nf_skb_duplicated();

	e = (EBPF_XT_ENTRY *)(table_base + t->hook_entry[hook]);
	if (from) {	/* checked by the caller */
		e = (EBPF_XT_ENTRY *)(table_base + from->entry);
		for (; stackidx < from->depth; stackidx++)
			jumpstack[stackidx] = (EBPF_XT_ENTRY *)(table_base +
						from->stack[stackidx]);
	}
	do {
		const struct xt_entry_target *tg;
		const struct xt_entry_match *ematch;

		if (!pkt_match(&pkt, skb, indev, outdev, &EBPF_XT_E_IP(e),
			       &acpar)) {
no_match:
			e = next_entry(e);
			continue;
		}
		xt_ematch_foreach(ematch, e) {
			acpar.match = ematch->u.kernel.match;
			acpar.matchinfo = ematch->data;
			if (!acpar.match->match(skb, &acpar))
				goto no_match;
		}
		count(t, e, skb);
		tg = get_target(e);
		if (!tg->u.kernel.target->target) {
			int v = ((struct xt_standard_target *)tg)->verdict;

			if (v < 0) {
				if (v != XT_RETURN) {
					verdict = (unsigned int)(-v) - 1;
					break;
				}
				if (stackidx == 0) {
					e = (EBPF_XT_ENTRY *)(table_base +
						t->underflow[hook]);
				} else {
					e = jumpstack[--stackidx];
					e = next_entry(e);
				}
				continue;
			}
			if (table_base + v != next_entry(e) &&
			    !(EBPF_XT_E_IP(e).flags & EBPF_XT_F_GOTO)) {
				if (unlikely(stackidx >= t->stacksize)) {
					verdict = NF_DROP;
					break;
				}
				jumpstack[stackidx++] = e;
			}
			e = (EBPF_XT_ENTRY *)(table_base + v);
			continue;
		}
		acpar.target = tg->u.kernel.target;
		acpar.targinfo = tg->data;
		verdict = tg->u.kernel.target->target(skb, &acpar);
		if (verdict == XT_CONTINUE) {
			pkt_changed(&pkt, skb);	/* the target may have */
			e = next_entry(e);
		} else {
			break;
		}
	} while (!acpar.hotdrop);

	return acpar.hotdrop ? NF_DROP : verdict;
}

const struct ebpf_xt_family EBPF_XT_FAMILY = {
	.nfproto = EBPF_XT_NFPROTO,
	.index = EBPF_XT_INDEX,
	.entry_size = sizeof(EBPF_XT_ENTRY),
	.translate = translate,
	.cleanup = cleanup,
	.copy_entries_to_user = copy_entries_to_user,
	.same_rule = same_rule,
	.comefrom = comefrom,
	.walk = EBPF_XT_WALK,
};
