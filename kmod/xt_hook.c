// SPDX-License-Identifier: GPL-2.0
/*
 * The tables' hooks: where iptable_filter, iptable_nat, iptable_mangle,
 * iptable_raw and iptable_security register theirs (ip6table_<name> for
 * ip6_tables' tables), at their priorities (nat through nf_nat's register
 * function, as iptable_nat: the NAT core runs it for a connection's first
 * packet only).  Per packet: the helper's
 * program for the table's hook decides, or stops at a rule no emitter
 * serves and hands over a resume point; from there (or from the hook's
 * entry, for a hook the helper did not compile) the rules are walked here
 * exactly as ipt_do_table() (ip6t_do_table()) walks them, with the
 * kernel's own extension code (xt_family.h).  An IPv6 hook has a program
 * only with the ipv6_bpf parameter (the first slice of compiled IPv6).
 *
 * Programs are BPF_PROG_TYPE_SCHED_CLS run on the skb as it is at the hook
 * (skb->data at the IP header).  What a tc program finds in skb->cb (the
 * qdisc's data, data_end) is not what netfilter keeps there (IPCB: the IP
 * options, read after the hook), so the 48 bytes are saved around the run
 * and restored, and the program-visible words carry what the program
 * cannot see at a netfilter hook (ctl.h, enum ebpf_ctl_cb).
 */

#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_nat.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/sch_generic.h>

#include "xt_engine.h"

/* iptable_<name>.c's tables (ip6table_<name>.c's: @pri NF_IP6_PRI_):
 * name, hooks, priority
 */
#define XT_DEFS(family, pri) {						\
	{								\
		.fam = &(family),					\
		.name = "filter",					\
		.valid_hooks = EBPF_CTL_HOOKS_FILTER,			\
		.priority = pri##FILTER,				\
	}, {								\
		.fam = &(family),					\
		.name = "nat",						\
		.valid_hooks = EBPF_CTL_HOOKS_NAT,			\
		.nat = true,						\
	}, {								\
		.fam = &(family),					\
		.name = "mangle",					\
		.valid_hooks = EBPF_CTL_HOOKS_MANGLE,			\
		.priority = pri##MANGLE,				\
	}, {								\
		.fam = &(family),					\
		.name = "raw",						\
		.valid_hooks = EBPF_CTL_HOOKS_RAW,			\
		.priority = pri##RAW,					\
	}, {								\
		.fam = &(family),					\
		.name = "security",					\
		.valid_hooks = EBPF_CTL_HOOKS_SECURITY,			\
		.priority = pri##SECURITY,				\
	},								\
}

const struct ebpf_xt_def ebpf_xt_defs[EBPF_XT_NFAMILIES][EBPF_XT_NTABLES] = {
	[EBPF_XT_IPV4] = XT_DEFS(ebpf_xt_ipv4, NF_IP_PRI_),
	[EBPF_XT_IPV6] = XT_DEFS(ebpf_xt_ipv6, NF_IP6_PRI_),
};

/* The index of the table called @name (either family's), or -1. */
int ebpf_xt_table_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < EBPF_XT_NTABLES; i++)
		if (!strcmp(ebpf_xt_defs[EBPF_XT_IPV4][i].name, name))
			return i;
	return -1;
}

/* A table's walk: called directly, as ip_tables calls ipt_do_table() */
static unsigned int walk(const struct ebpf_xt_table *t, struct sk_buff *skb,
			 const struct nf_hook_state *state,
			 const struct ebpf_resume *from)
{
	return INDIRECT_CALL_2(t->fam->walk, ebpf_xt_walk_ipv4,
			       ebpf_xt_walk_ipv6, t, skb, state, from);
}

/* Reached only through a helper bug: counted, then dropped (never open). */
static atomic_t bad_verdicts = ATOMIC_INIT(0);

/* xt_conntrack's state bit of the packet (conntrack_mt()), for the program */
static u32 ct_statebit(const struct sk_buff *skb)
{
	enum ip_conntrack_info ctinfo;
	const struct nf_conn *ct = nf_ct_get(skb, &ctinfo);
	u32 bit;

	if (ct)
		bit = XT_CONNTRACK_STATE_BIT(ctinfo);
	else if (ctinfo == IP_CT_UNTRACKED)
		return XT_CONNTRACK_STATE_UNTRACKED;
	else
		return XT_CONNTRACK_STATE_INVALID;
	if (test_bit(IPS_SRC_NAT_BIT, &ct->status))
		bit |= XT_CONNTRACK_STATE_SNAT;
	if (test_bit(IPS_DST_NAT_BIT, &ct->status))
		bit |= XT_CONNTRACK_STATE_DNAT;
	return bit;
}

static unsigned int run_prog(const struct bpf_prog *prog, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	struct qdisc_skb_cb *qcb = qdisc_skb_cb(skb);
	unsigned char saved[sizeof(skb->cb)];
	u32 ret;

	memcpy(saved, skb->cb, sizeof(saved));
	memset(qcb->data, 0, sizeof(qcb->data));
	((u32 *)qcb->data)[EBPF_CB_OUT_IFINDEX] =
		state->out ? state->out->ifindex : 0;
	((u32 *)qcb->data)[EBPF_CB_IN_IFINDEX] =
		state->in ? state->in->ifindex : 0;
	((u32 *)qcb->data)[EBPF_CB_CTSTATE] = ct_statebit(skb);
	((u32 *)qcb->data)[EBPF_CB_HOOK] = state->hook;
	bpf_compute_data_pointers(skb);
	ret = bpf_prog_run(prog, skb);
	memcpy(skb->cb, saved, sizeof(saved));
	return ret;
}

/* Is @off an entry's offset, of a rule reachable from @hook (whose
 * extensions were checked for that hook)?
 */
static bool entry_ok(const struct ebpf_xt_table *t, unsigned int off,
		     unsigned int hook)
{
	return xt_find_jump_offset(t->offsets, off, t->number) &&
	       (t->fam->comefrom(t->entries + off) & (1 << hook));
}

/* A resume record the walk can follow: every offset an entry's reachable
 * from the hook, the stack no deeper than the table's user chains allow.
 */
static bool resume_ok(const struct ebpf_xt_table *t,
		      const struct ebpf_resume *r, unsigned int hook)
{
	unsigned int i;

	if (r->depth > EBPF_RESUME_MAX_DEPTH || r->depth > t->stacksize ||
	    !entry_ok(t, r->entry, hook))
		return false;
	for (i = 0; i < r->depth; i++)
		if (!entry_ok(t, r->stack[i], hook))
			return false;
	return true;
}

static unsigned int bad_verdict(const char *what, u32 ret)
{
	if (atomic_inc_return(&bad_verdicts) == 1)
		pr_err("a program returned %u%s: packets dropped\n", ret, what);
	return NF_DROP;
}

/* The hook's program decides, or hands over to the walk. */
static unsigned int run_compiled(const struct ebpf_xt_table *t,
				 const struct bpf_prog *prog,
				 struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	const struct ebpf_resume *r;
	u32 zero = 0;
	u32 ret;

	ret = run_prog(prog, skb, state);
	switch (ret) {
	case EBPF_PROG_DROP:
		return NF_DROP;
	case EBPF_PROG_ACCEPT:
		return NF_ACCEPT;
	case EBPF_PROG_WALK:
		if (!t->resume_map)
			return bad_verdict(" without a resume map", ret);
		/* a per-CPU array: this CPU's copy, which the program wrote */
		r = t->resume_map->ops->map_lookup_elem(t->resume_map, &zero);
		if (!r || !resume_ok(t, r, state->hook))
			return bad_verdict(" with a bad resume record", ret);
		return walk(t, skb, state, r);
	default:
		return bad_verdict("", ret);
	}
}

/* A table's hook: its program decides, or hands over to the walk. */
static unsigned int ebpf_table_hook(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	struct ebpf_xt_slot *s = priv;
	const struct ebpf_xt_table *t;
	const struct bpf_prog *prog;
	unsigned int verdict = NF_ACCEPT, addend;

	/* nf_hook() holds rcu_read_lock(); the walk wants BHs off (per-CPU
	 * jump stack; extensions assume it, as under ipt_do_table())
	 */
	local_bh_disable();
	/* as ipt_do_table(): an install waits for this CPU's sequence to be
	 * even, i.e. for this run of the old table to end, instead of a
	 * whole RCU grace period (xt_table.c, wait_for_readers())
	 */
	addend = xt_write_recseq_begin();
	t = rcu_dereference(s->live);
	if (t && (t->valid_hooks & (1 << state->hook))) {
		prog = t->prog[state->hook];
		if (prog)
			verdict = run_compiled(t, prog, skb, state);
		else
			verdict = walk(t, skb, state, NULL);
	}
	xt_write_recseq_end(addend);
	local_bh_enable();
	return verdict;
}

/* what, changed by the mangle table at LOCAL_OUT, routes a packet again */
struct route_keys {
	union {
		struct {
			__be32 saddr, daddr;
			u8 tos;
		} v4;
		struct {
			struct in6_addr saddr, daddr;
			u32 first_word;	/* version, class, flow label */
			u8 hop_limit;
		} v6;
	};
	u32 mark;
};

static void route_keys(const struct sk_buff *skb, u8 pf, struct route_keys *k)
{
	memset(k, 0, sizeof(*k));	/* compared with memcmp() */
	k->mark = skb->mark;
	if (pf == NFPROTO_IPV6) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		k->v6.saddr = ip6h->saddr;
		k->v6.daddr = ip6h->daddr;
		k->v6.first_word = *(const u32 *)ip6h;
		k->v6.hop_limit = ip6h->hop_limit;
	} else {
		const struct iphdr *iph = ip_hdr(skb);

		k->v4.saddr = iph->saddr;
		k->v4.daddr = iph->daddr;
		k->v4.tos = iph->tos;
	}
}

/* iptable_mangle's ipt_mangle_out() (ip6table_mangle's ip6t_mangle_out()):
 * a packet whose mark, addresses or TOS (IPv6: hop limit, class, flow
 * label) the table changed is routed again.
 */
static unsigned int ebpf_mangle_hook(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	const struct ebpf_xt_slot *s = priv;
	u8 pf = s->def->fam->nfproto;
	struct route_keys before, after;
	unsigned int ret;
	int err;

	if (state->hook != NF_INET_LOCAL_OUT)
		return ebpf_table_hook(priv, skb, state);
	route_keys(skb, pf, &before);
	ret = ebpf_table_hook(priv, skb, state);
	if (ret == NF_DROP || ret == NF_STOLEN)
		return ret;
	route_keys(skb, pf, &after);
	if (!memcmp(&before, &after, sizeof(before)))
		return ret;
	if (pf == NFPROTO_IPV6)
		err = nf_ip6_route_me_harder(state->net, state->sk, skb);
	else
		err = ip_route_me_harder(state->net, state->sk, skb,
					 RTN_UNSPEC);
	if (err < 0)
		ret = NF_DROP_ERR(err);
	return ret;
}

/* iptable_nat's priorities (ip6table_nat's): destination NAT before
 * routing, source NAT after it
 */
static int nat_priority(const struct ebpf_xt_def *d, unsigned int hook)
{
	bool dst = hook == NF_INET_PRE_ROUTING || hook == NF_INET_LOCAL_OUT;

	if (d->fam->nfproto == NFPROTO_IPV6)
		return dst ? NF_IP6_PRI_NAT_DST : NF_IP6_PRI_NAT_SRC;
	return dst ? NF_IP_PRI_NAT_DST : NF_IP_PRI_NAT_SRC;
}

/*
 * nf_nat's register functions, taken by each namespace's nat table at its
 * first install (symbol_get() loads nothing: the install asked for nf_nat
 * first, see xt_table.c) and put back when its hooks go.  Each namespace
 * holds its own reference, so no state is shared between them.
 */
static int nat_hooks_register(struct ebpf_xt_slot *s, struct nf_hook_ops *ops,
			      unsigned int n)
{
	typeof(&nf_nat_ipv4_register_fn) reg;
	typeof(&nf_nat_ipv4_unregister_fn) unreg;
	struct net *net = s->en->net;
	unsigned int i;
	int err = -ENOENT;

	if (s->def->fam->nfproto == NFPROTO_IPV6) {
		reg = symbol_get(nf_nat_ipv6_register_fn);
		unreg = symbol_get(nf_nat_ipv6_unregister_fn);
	} else {
		reg = symbol_get(nf_nat_ipv4_register_fn);
		unreg = symbol_get(nf_nat_ipv4_unregister_fn);
	}
	if (!reg || !unreg) {
		pr_err("nat table: nf_nat's register function for family %u is not available\n",
		       s->def->fam->nfproto);
		goto put;
	}
	for (i = 0; i < n; i++) {
		err = reg(net, &ops[i]);
		if (err) {
			while (i)
				unreg(net, &ops[--i]);
			goto put;
		}
	}
	symbol_put_addr(reg);
	s->nat_unregister = unreg;	/* holds nf_nat until the hooks go */
	return 0;
put:
	if (reg)
		symbol_put_addr(reg);
	if (unreg)
		symbol_put_addr(unreg);
	return err;
}

/* "" for ip_tables' tables (as before IPv6), "IPv6 " for ip6_tables' */
static const char *family_prefix(const struct ebpf_xt_def *d)
{
	return d->fam->nfproto == NFPROTO_IPV6 ? "IPv6 " : "";
}

/* The table's hooks (xt_hook_ops_alloc()'s shape), registered in its
 * namespace.
 */
int ebpf_xt_hooks_register(struct ebpf_xt_slot *s)
{
	const struct ebpf_xt_def *d = s->def;
	unsigned int n = hweight32(d->valid_hooks), i = 0, hook;
	struct nf_hook_ops *ops;
	int err;

	ops = kcalloc(n, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		if (!(d->valid_hooks & (1 << hook)))
			continue;
		ops[i].hook = strcmp(d->name, "mangle") ? ebpf_table_hook :
							   ebpf_mangle_hook;
		ops[i].pf = d->fam->nfproto;
		ops[i].hooknum = hook;
		ops[i].priority = d->nat ? nat_priority(d, hook) : d->priority;
		ops[i].priv = s;
		i++;
	}
	if (d->nat)
		err = nat_hooks_register(s, ops, n);
	else
		err = nf_register_net_hooks(s->en->net, ops, n);
	if (err) {
		kfree(ops);
		return err;
	}
	s->ops = ops;
	if (s->en->id != EBPF_NETNS_INIT)
		return 0;	/* one line per table, not per container */
	if (d->nat)
		pr_info("%s%s table: own hooks through nf_nat (destination NAT at %d, source NAT at %d)\n",
			family_prefix(d), d->name,
			nat_priority(d, NF_INET_PRE_ROUTING),
			nat_priority(d, NF_INET_POST_ROUTING));
	else
		pr_info("%s%s table: own netfilter hooks (mask 0x%x), priority %d\n",
			family_prefix(d), d->name, d->valid_hooks, d->priority);
	return 0;
}

void ebpf_xt_hooks_unregister(struct ebpf_xt_slot *s)
{
	unsigned int n = hweight32(s->def->valid_hooks), i;
	struct net *net = s->en->net;

	if (!s->ops)
		return;
	if (s->nat_unregister) {
		for (i = 0; i < n; i++)
			s->nat_unregister(net, &s->ops[i]);
		symbol_put_addr(s->nat_unregister);
		s->nat_unregister = NULL;
	} else {
		nf_unregister_net_hooks(net, s->ops, n);
	}
	kfree(s->ops);
	s->ops = NULL;
}
