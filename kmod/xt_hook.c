// SPDX-License-Identifier: GPL-2.0
/*
 * The tables' hooks: where iptable_filter, iptable_nat, iptable_mangle,
 * iptable_raw and iptable_security register theirs, at their priorities
 * (nat through nf_nat's register function, as iptable_nat: the NAT core
 * runs it for a connection's first packet only).  Per packet: the helper's
 * program for the table's hook decides, or stops at a rule no emitter
 * serves and hands over a resume point; from there (or from the hook's
 * entry, for a hook the helper did not compile) the rules are walked here
 * exactly as ipt_do_table() walks them, with the kernel's own extension
 * code.
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
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter_ipv4.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_nat.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/sch_generic.h>

#include "xt_engine.h"

/* iptable_<name>.c's tables: name, hooks, priority */
const struct ebpf_xt_def ebpf_xt_defs[EBPF_XT_NTABLES] = {
	{
		.name = "filter",
		.valid_hooks = EBPF_CTL_HOOKS_FILTER,
		.priority = NF_IP_PRI_FILTER,
	}, {
		.name = "nat",
		.valid_hooks = EBPF_CTL_HOOKS_NAT,
		.nat = true,
	}, {
		.name = "mangle",
		.valid_hooks = EBPF_CTL_HOOKS_MANGLE,
		.priority = NF_IP_PRI_MANGLE,
	}, {
		.name = "raw",
		.valid_hooks = EBPF_CTL_HOOKS_RAW,
		.priority = NF_IP_PRI_RAW,
	}, {
		.name = "security",
		.valid_hooks = EBPF_CTL_HOOKS_SECURITY,
		.priority = NF_IP_PRI_SECURITY,
	},
};

/* The index of the table called @name, or -1. */
int ebpf_xt_table_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < EBPF_XT_NTABLES; i++)
		if (!strcmp(ebpf_xt_defs[i].name, name))
			return i;
	return -1;
}

/* Reached only through a helper bug: counted, then dropped (never open). */
static atomic_t bad_verdicts = ATOMIC_INIT(0);

/* ip_tables' ip_packet_match() */
static inline bool ip_packet_match(const struct iphdr *ip, const char *indev,
				   const char *outdev,
				   const struct ipt_ip *ipinfo, int isfrag)
{
	unsigned long ret;

	if (NF_INVF(ipinfo, IPT_INV_SRCIP,
		    (ip->saddr & ipinfo->smsk.s_addr) != ipinfo->src.s_addr) ||
	    NF_INVF(ipinfo, IPT_INV_DSTIP,
		    (ip->daddr & ipinfo->dmsk.s_addr) != ipinfo->dst.s_addr))
		return false;
	ret = ifname_compare_aligned(indev, ipinfo->iniface,
				     ipinfo->iniface_mask);
	if (NF_INVF(ipinfo, IPT_INV_VIA_IN, ret != 0))
		return false;
	ret = ifname_compare_aligned(outdev, ipinfo->outiface,
				     ipinfo->outiface_mask);
	if (NF_INVF(ipinfo, IPT_INV_VIA_OUT, ret != 0))
		return false;
	if (ipinfo->proto &&
	    NF_INVF(ipinfo, IPT_INV_PROTO, ip->protocol != ipinfo->proto))
		return false;
	if (NF_INVF(ipinfo, IPT_INV_FRAG,
		    (ipinfo->flags & IPT_F_FRAG) && !isfrag))
		return false;
	return true;
}

static inline void count(const struct ebpf_xt_table *t,
			 const struct ipt_entry *e, const struct sk_buff *skb)
{
	struct ebpf_counter *c = &t->counters[e->counters.pcnt];

	/* the programs add atomically to the same slots */
	atomic64_add(1, (atomic64_t *)&c->pkts);
	atomic64_add(skb->len, (atomic64_t *)&c->bytes);
}

/*
 * ipt_do_table(), on this module's table: the same order of tests, the
 * same jump stack, counters, hotdrop and verdicts; from the hook's entry,
 * or from where a program stopped (@from).  Called with BHs off.
 */
unsigned int ebpf_xt_walk(const struct ebpf_xt_table *t, struct sk_buff *skb,
			  const struct nf_hook_state *state,
			  const struct ebpf_resume *from)
{
	static const char nulldevname[IFNAMSIZ] __aligned(sizeof(long));
	unsigned int hook = state->hook, verdict = NF_DROP, stackidx = 0;
	const struct iphdr *ip = ip_hdr(skb);
	const char *indev, *outdev;
	struct xt_action_param acpar;
	struct ipt_entry *e, **jumpstack;
	const void *table_base = t->entries;

	indev = state->in ? state->in->name : nulldevname;
	outdev = state->out ? state->out->name : nulldevname;
	acpar.fragoff = ntohs(ip->frag_off) & IP_OFFSET;
	acpar.thoff = ip_hdrlen(skb);
	acpar.hotdrop = false;
	acpar.state = state;

	jumpstack = t->jumpstack +
		    smp_processor_id() * 2 * max(t->stacksize, 1u);
	/* TEE's duplicate runs the table from inside the original's walk */
	if (static_key_false(&xt_tee_enabled))
		jumpstack += t->stacksize * ebpf_nf_skb_duplicated();

	e = (struct ipt_entry *)(table_base + t->hook_entry[hook]);
	if (from) {	/* checked by the caller */
		e = (struct ipt_entry *)(table_base + from->entry);
		for (; stackidx < from->depth; stackidx++)
			jumpstack[stackidx] = (struct ipt_entry *)(table_base +
						from->stack[stackidx]);
	}
	do {
		const struct xt_entry_target *tg;
		const struct xt_entry_match *ematch;

		if (!ip_packet_match(ip, indev, outdev, &e->ip,
				     acpar.fragoff)) {
no_match:
			e = ipt_next_entry(e);
			continue;
		}
		xt_ematch_foreach(ematch, e) {
			acpar.match = ematch->u.kernel.match;
			acpar.matchinfo = ematch->data;
			if (!acpar.match->match(skb, &acpar))
				goto no_match;
		}
		count(t, e, skb);
		tg = ipt_get_target_c(e);
		if (!tg->u.kernel.target->target) {
			int v = ((struct xt_standard_target *)tg)->verdict;

			if (v < 0) {
				if (v != XT_RETURN) {
					verdict = (unsigned int)(-v) - 1;
					break;
				}
				if (stackidx == 0) {
					e = (struct ipt_entry *)(table_base +
						t->underflow[hook]);
				} else {
					e = jumpstack[--stackidx];
					e = ipt_next_entry(e);
				}
				continue;
			}
			if (table_base + v != ipt_next_entry(e) &&
			    !(e->ip.flags & IPT_F_GOTO)) {
				if (unlikely(stackidx >= t->stacksize)) {
					verdict = NF_DROP;
					break;
				}
				jumpstack[stackidx++] = e;
			}
			e = (struct ipt_entry *)(table_base + v);
			continue;
		}
		acpar.target = tg->u.kernel.target;
		acpar.targinfo = tg->data;
		verdict = tg->u.kernel.target->target(skb, &acpar);
		if (verdict == XT_CONTINUE) {
			ip = ip_hdr(skb);	/* the target may have changed it */
			e = ipt_next_entry(e);
		} else {
			break;
		}
	} while (!acpar.hotdrop);

	return acpar.hotdrop ? NF_DROP : verdict;
}

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
	const struct ipt_entry *e = t->entries + off;

	return xt_find_jump_offset(t->offsets, off, t->number) &&
	       (e->comefrom & (1 << hook));
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
		return ebpf_xt_walk(t, skb, state, r);
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
			verdict = ebpf_xt_walk(t, skb, state, NULL);
	}
	xt_write_recseq_end(addend);
	local_bh_enable();
	return verdict;
}

/* iptable_mangle's ipt_mangle_out(): a packet whose mark, addresses or
 * TOS the table changed is routed again.
 */
static unsigned int ebpf_mangle_hook(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	const struct iphdr *iph = ip_hdr(skb);
	__be32 saddr = iph->saddr, daddr = iph->daddr;
	u32 mark = skb->mark;
	u8 tos = iph->tos;
	unsigned int ret;
	int err;

	ret = ebpf_table_hook(priv, skb, state);
	if (state->hook != NF_INET_LOCAL_OUT || ret == NF_DROP ||
	    ret == NF_STOLEN)
		return ret;
	iph = ip_hdr(skb);
	if (iph->saddr != saddr || iph->daddr != daddr ||
	    skb->mark != mark || iph->tos != tos) {
		err = ip_route_me_harder(state->net, state->sk, skb, RTN_UNSPEC);
		if (err < 0)
			ret = NF_DROP_ERR(err);
	}
	return ret;
}

/* iptable_nat's priorities: destination NAT before routing, source NAT
 * after it
 */
static int nat_priority(unsigned int hook)
{
	return hook == NF_INET_PRE_ROUTING || hook == NF_INET_LOCAL_OUT ?
	       NF_IP_PRI_NAT_DST : NF_IP_PRI_NAT_SRC;
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

	reg = symbol_get(nf_nat_ipv4_register_fn);
	unreg = symbol_get(nf_nat_ipv4_unregister_fn);
	if (!reg || !unreg) {
		pr_err("nat table: nf_nat's nf_nat_ipv4_register_fn() is not available\n");
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
	symbol_put(nf_nat_ipv4_register_fn);
	s->nat_unregister = unreg;	/* holds nf_nat until the hooks go */
	return 0;
put:
	if (reg)
		symbol_put(nf_nat_ipv4_register_fn);
	if (unreg)
		symbol_put(nf_nat_ipv4_unregister_fn);
	return err;
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
		ops[i].pf = NFPROTO_IPV4;
		ops[i].hooknum = hook;
		ops[i].priority = d->nat ? nat_priority(hook) : d->priority;
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
		pr_info("%s table: own hooks through nf_nat (destination NAT at %d, source NAT at %d)\n",
			d->name, NF_IP_PRI_NAT_DST, NF_IP_PRI_NAT_SRC);
	else
		pr_info("%s table: own netfilter hooks (mask 0x%x), priority %d\n",
			d->name, d->valid_hooks, d->priority);
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
		s->nat_unregister = NULL;
		symbol_put(nf_nat_ipv4_unregister_fn);
	} else {
		nf_unregister_net_hooks(net, s->ops, n);
	}
	kfree(s->ops);
	s->ops = NULL;
}
