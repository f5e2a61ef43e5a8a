// SPDX-License-Identifier: GPL-2.0
/* The reference evaluator (ref.h), after net/ipv4/netfilter/ip_tables.c
 * (and ip6_tables.c's ip6_packet_match(), exthdrs_core.c's
 * ipv6_find_hdr()) and the xt_tcpudp, xt_multiport, xt_iprange,
 * xt_conntrack, xt_state match functions. */
#include <arpa/inet.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_tcpudp.h>

#include <ebpfilter/ctl.h>

#include "ref.h"

#define REF_STACK	64	/* jumps deep, more than any valid table */

void ref_pkt_from(struct ref_pkt *p, const unsigned char *ip, unsigned int n)
{
	unsigned int ihl = (ip[0] & 0xf) * 4, tot = (unsigned int)(ip[2] << 8 | ip[3]);

	memcpy(&p->saddr, ip + 12, 4);
	memcpy(&p->daddr, ip + 16, 4);
	p->proto = ip[9];
	p->fragoff = (__u16)((ip[6] << 8 | ip[7]) & 0x1fff);
	if (tot > n)
		tot = n;
	p->l4 = ip + ihl;
	p->l4len = tot > ihl ? tot - ihl : 0;
	p->len = tot;
}

/* ipv6_ext_hdr() */
static bool ext_hdr6(unsigned int nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 59 || nh == 60;
}

int ref_pkt_from6(struct ref_pkt *p, const unsigned char *ip6, unsigned int n,
		  unsigned int max_ext)
{
	unsigned int start = 40, nh = ip6[6], k;

	p->v6 = true;
	memcpy(p->saddr6, ip6 + 8, 16);
	memcpy(p->daddr6, ip6 + 24, 16);
	p->len = n;
	p->fragoff = 0;
	for (k = 0; ext_hdr6(nh) && nh != 59; k++) {
		unsigned int hlen;

		if (k == max_ext || start + 4 > n)
			return -1;	/* the program does not follow it */
		if (nh == 44) {
			unsigned int off = (ip6[start + 2] << 8 | ip6[start + 3]) & ~7u;

			if (off) {	/* a later fragment: its protocol, thoff 0 */
				if (ext_hdr6(ip6[start]) && ip6[start] != 59)
					return -1;	/* -ENOENT */
				p->fragoff = (__u16)off;
				p->proto = ip6[start];
				p->l4 = ip6;
				p->l4len = n;
				return 0;
			}
			hlen = 8;
		} else if (nh == 51) {
			hlen = (ip6[start + 1] + 2u) * 4;	/* ipv6_authlen() */
		} else {
			hlen = (ip6[start + 1] + 1u) * 8;	/* ipv6_optlen() */
		}
		nh = ip6[start];
		start += hlen;
	}
	p->proto = (__u8)nh;
	p->l4 = ip6 + (start < n ? start : n);
	p->l4len = start < n ? n - start : 0;
	return 0;
}

/* ipv6_masked_addr_cmp(): the bits under the mask differ */
static bool addr6_differs(const __u8 *a, const __u8 *rule, const __u8 *mask)
{
	for (int i = 0; i < 16; i++)
		if ((a[i] ^ rule[i]) & mask[i])
			return true;
	return false;
}

/* ifname_compare_aligned() */
static bool iface_differs(const char *dev, const char *name, const unsigned char *mask)
{
	for (int i = 0; i < IFNAMSIZ; i++)
		if ((dev[i] ^ name[i]) & mask[i])
			return true;
	return false;
}

/*
 * ip_packet_match(): NF_INVF(ip, flag, cond) is cond ^ inverted.  IPv6
 * (ip6_packet_match()): the addresses of @a; ip->proto and IPT_INV_PROTO
 * are set only with IP6T_F_PROTO (ir.c), the header search's answer is
 * p->proto, and ip->flags is 0.
 */
static bool ip_match(const struct ipt_ip *ip, const struct ir_ip6 *a,
		     const struct ref_pkt *p)
{
#define INVF(flag, cond) (!!(cond) ^ !!(ip->invflags & (flag)))
	if (a) {
		if (INVF(IPT_INV_SRCIP, addr6_differs(p->saddr6, a->src, a->smsk)) ||
		    INVF(IPT_INV_DSTIP, addr6_differs(p->daddr6, a->dst, a->dmsk)))
			return false;
	} else if (INVF(IPT_INV_SRCIP, (p->saddr & ip->smsk.s_addr) != ip->src.s_addr) ||
		   INVF(IPT_INV_DSTIP, (p->daddr & ip->dmsk.s_addr) != ip->dst.s_addr)) {
		return false;
	}
	if (INVF(IPT_INV_VIA_IN, iface_differs(p->in, ip->iniface, ip->iniface_mask)) ||
	    INVF(IPT_INV_VIA_OUT, iface_differs(p->out, ip->outiface, ip->outiface_mask)))
		return false;
	if (ip->proto && INVF(IPT_INV_PROTO, p->proto != ip->proto))
		return false;
	if (INVF(IPT_INV_FRAG, (ip->flags & IPT_F_FRAG) && !p->fragoff))
		return false;
	return true;
#undef INVF
}

static bool port_in(__u16 lo, __u16 hi, __u16 port, bool inv)
{
	return (port >= lo && port <= hi) ^ inv;
}

/* one match; *hotdrop as the kernel's par->hotdrop */
static bool match(const struct ir_match *m, const struct ref_pkt *p, bool *hotdrop)
{
	__u16 sport, dport;
	__u32 a;
	bool r;

	switch (m->kind) {
	case IRM_TCP:
	case IRM_UDP: {
		unsigned int need = m->kind == IRM_TCP ? 20 : 8;

		if (p->fragoff) {	/* tcp_mt: fragoff 1 is an attack */
			if (m->kind == IRM_TCP && p->fragoff == 1)
				*hotdrop = true;
			return false;
		}
		if (p->l4len < need) {
			*hotdrop = true;
			return false;
		}
		sport = (__u16)(p->l4[0] << 8 | p->l4[1]);
		dport = (__u16)(p->l4[2] << 8 | p->l4[3]);
		r = port_in(m->tu.spts[0], m->tu.spts[1], sport,
			    m->tu.invflags & XT_TCP_INV_SRCPT) &&
		    port_in(m->tu.dpts[0], m->tu.dpts[1], dport,
			    m->tu.invflags & XT_TCP_INV_DSTPT);
		if (m->kind == IRM_TCP)
			r = r && (((p->l4[13] & m->tu.flg_mask) == m->tu.flg_cmp) ^
				  !!(m->tu.invflags & XT_TCP_INV_FLAGS));
		return r;
	}
	case IRM_ICMP:
		if (p->fragoff)
			return false;
		if (p->l4len < 8) {	/* sizeof(struct icmphdr) */
			*hotdrop = true;
			return false;
		}
		return (m->icmp.type == 0xff ||
			(p->l4[0] == m->icmp.type && p->l4[1] >= m->icmp.code_min &&
			 p->l4[1] <= m->icmp.code_max)) ^ m->icmp.inv;
	case IRM_ICMP6:	/* icmp6_match(): no "any type" */
		if (p->fragoff)
			return false;
		if (p->l4len < 8) {	/* sizeof(struct icmp6hdr) */
			*hotdrop = true;
			return false;
		}
		return (p->l4[0] == m->icmp.type && p->l4[1] >= m->icmp.code_min &&
			p->l4[1] <= m->icmp.code_max) ^ m->icmp.inv;
	case IRM_MPORT:
		if (p->fragoff)
			return false;
		if (p->l4len < 4) {
			*hotdrop = true;
			return false;
		}
		sport = (__u16)(p->l4[0] << 8 | p->l4[1]);
		dport = (__u16)(p->l4[2] << 8 | p->l4[3]);
		for (unsigned int k = 0; k < m->mp.count; k++) {
			bool s = sport >= m->mp.lo[k] && sport <= m->mp.hi[k];
			bool d = dport >= m->mp.lo[k] && dport <= m->mp.hi[k];

			if ((m->mp.mode == IR_MP_SRC && s) || (m->mp.mode == IR_MP_DST && d) ||
			    (m->mp.mode == IR_MP_EITHER && (s || d)))
				return !m->mp.inv;
		}
		return m->mp.inv;
	case IRM_IPRANGE:
		if (m->ipr.src) {
			a = ntohl(p->saddr);
			if ((a < m->ipr.src_min || a > m->ipr.src_max) ^ m->ipr.src_inv)
				return false;
		}
		if (m->ipr.dst) {
			a = ntohl(p->daddr);
			if ((a < m->ipr.dst_min || a > m->ipr.dst_max) ^ m->ipr.dst_inv)
				return false;
		}
		return true;
	case IRM_CTSTATE:
		return !!(m->ct.mask & p->ctstate) ^ m->ct.inv;
	}
	return false;
}

/* ipt_do_table() from rule @e with the jump stack @stack[0..@depth) (rule
 * indices, outermost first); as ref_eval() */
static int eval_from(const struct ir_table *ir, unsigned int nfhook,
		     const struct ref_pkt *p, struct cg_counter *ctr,
		     struct ebpf_resume *walk, unsigned int e,
		     unsigned int *stack, unsigned int depth)
{
	unsigned int steps = 0;
	bool hotdrop = false;

	while (e < ir->nrules && steps++ < 1000000) {
		const struct ir_rule *r = &ir->rules[e];
		bool ok = ip_match(&r->ip, r->ip6, p);

		/* a kernel rule: the module's from here, once what the program
		 * can test holds (all of it unless a match is the kernel's) */
		for (unsigned int k = 0;
		     walk && r->kernel && !r->kernel_match && ok && k < r->nmatch;
		     k++)
			ok = match(&r->m[k], p, &hotdrop);
		if (hotdrop)
			return 0;
		if (walk && r->kernel && ok) {
			if (depth > EBPF_RESUME_MAX_DEPTH)
				return -1;
			walk->entry = r->off;
			walk->depth = depth;
			for (unsigned int k = 0; k < depth; k++)
				walk->stack[k] = ir->rules[stack[k]].off;
			return 2;
		}

		for (unsigned int k = 0;
		     ok && !(walk && r->kernel) && k < r->nmatch; k++)
			ok = match(&r->m[k], p, &hotdrop);
		if (hotdrop)
			return 0;
		if (!ok) {
			e++;
			continue;
		}
		ctr[e].pkts++;
		ctr[e].bytes += p->len;
		switch (r->verdict) {
		case IRV_ACCEPT:
			return 1;
		case IRV_DROP:
		case IRV_ERROR:
			return 0;
		case IRV_RETURN:
			e = depth ? stack[--depth] + 1 : ir->underflow[nfhook];
			break;
		case IRV_JUMP:
			if (depth == REF_STACK)
				return -1;
			stack[depth++] = e;
			e = r->target;
			break;
		case IRV_GOTO:
			e = r->target;
			break;
		case IRV_CONTINUE:
			e++;
			break;
		case IRV_KERNEL:	/* the module's to run, never compiled */
			return -1;
		}
	}
	return -1;		/* fell off the table: not a valid one */
}

int ref_eval(const struct ir_table *ir, unsigned int nfhook, const struct ref_pkt *p,
	     struct cg_counter *ctr, struct ebpf_resume *walk)
{
	unsigned int stack[REF_STACK];

	return eval_from(ir, nfhook, p, ctr, walk, ir->hook_entry[nfhook], stack, 0);
}

/* the index of the rule at blob offset @off, -1 if none */
int ref_rule_at(const struct ir_table *ir, __u32 off)
{
	for (unsigned int i = 0; i < ir->nrules; i++)
		if (ir->rules[i].off == off)
			return (int)i;
	return -1;
}

int ref_resume(const struct ir_table *ir, unsigned int nfhook, const struct ref_pkt *p,
	       struct cg_counter *ctr, const struct ebpf_resume *from,
	       struct ebpf_resume *walk)
{
	unsigned int stack[REF_STACK];
	int e = ref_rule_at(ir, from->entry);

	if (e < 0 || from->depth > EBPF_RESUME_MAX_DEPTH)
		return -1;
	for (unsigned int k = 0; k < from->depth; k++) {
		int j = ref_rule_at(ir, from->stack[k]);

		if (j < 0)
			return -1;
		stack[k] = (unsigned int)j;
	}
	return eval_from(ir, nfhook, p, ctr, walk, (unsigned int)e, stack, from->depth);
}
