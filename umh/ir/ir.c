// SPDX-License-Identifier: GPL-2.0
/*
 * Front end: a validated ip_tables blob -> rule IR (see ir.h).
 *
 * The blob was validated by the control side (ipt/) the way
 * translate_table() does; this file still bounds-checks everything it reads,
 * so a mistake there cannot make the code generator read out of bounds.
 * Matches are decoded by their extension's descriptor (ext/), as the
 * kernel's xt modules read them; anything the back end cannot enforce is
 * refused here with a reason, never ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include <ebpfilter/proto.h>

#include "ext/ext.h"
#include "ipt/family.h"
#include "ir/ir.h"
#include "lib/bigmem.h"

static int fail(char *err, size_t len, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return e;
}

static int off_to_idx(const unsigned int *offs, unsigned int n,
		      unsigned int off)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (offs[mid] == off)
			return (int)mid;
		if (offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * IPv6: IP6T_F_PROTO alone ("-p all") is no condition for the programs:
 * a packet whose header search fails never reaches their rules (the
 * prologue hands it to the module's walk: cgen/prologue_ip6.c).
 */
bool ir_rule_unconditional(const struct ir_rule *r)
{
	static const struct ipt_ip zero;
	static const struct ir_ip6 zero6;

	return r->nmatch == 0 && !memcmp(&r->ip, &zero, sizeof(zero)) &&
	       (!r->ip6 || !memcmp(r->ip6, &zero6,
				   offsetof(struct ir_ip6, fproto)));
}

/* decode_match(): no emitter, the rule is the kernel's (IR_KERNEL_WALKS) */
#define MATCH_KERNEL	(EXT_MATCHES_ALL + 1)

/*
 * Decode one match with its extension's descriptor (ext/ext.h); 0 = stored
 * in *m, EXT_MATCHES_ALL = nothing to test (comment), MATCH_KERNEL (with
 * IR_KERNEL_WALKS in @flags), -errno.
 */
static int decode_match(const struct xt_entry_match *em, size_t dlen,
			const struct ipt_ip *ip, unsigned int flags,
			struct ir_match *m, struct ir_table *ir, char *err,
			size_t err_len)
{
	const char *name = em->u.user.name;
	unsigned int rev = em->u.user.revision;
	const struct ext_desc *x = ext_find(name, false);
	const struct ext_rev *xr;
	int r;

	memset(m, 0, sizeof(*m));
	if (ir->ipv6) {
		/* IPv6: only what is written for ip6_tables' semantics */
		if (!strcmp(name, "icmp6"))
			x = &ext_icmp6;
		else if (!x || !ext_ipv6_ok(x))
			x = NULL;
	}
	if (!x || !x->decode)
		goto not_enforced;
	xr = ext_rev(x, rev);
	if (!xr && (flags & IR_KERNEL_WALKS))
		return MATCH_KERNEL;	/* a revision only the kernel has */
	if (!xr || dlen < xr->size)
		return fail(err, err_len, -EINVAL,
			    "malformed %s match (revision %u)", name, rev);
	r = x->decode(&(struct ext_decode){ .data = em->data, .rev = rev,
					    .ip = ip, .ir = ir, .err = err,
					    .err_len = err_len }, m);
	if (r == 0 && !x->emit)
		goto not_enforced;	/* no BPF emitter */
	if (r == -EOPNOTSUPP && (flags & IR_KERNEL_WALKS))
		return MATCH_KERNEL;	/* an option no emitter serves */
	if (r == 0 && m->kind == IRM_TCP && m->tu.option &&
	    (flags & IR_KERNEL_WALKS))
		return MATCH_KERNEL;	/* --tcp-option: no emitter either */
	return r;
not_enforced:
	if (flags & IR_KERNEL_WALKS)
		return MATCH_KERNEL;
	return fail(err, err_len, -EOPNOTSUPP,
		    "match '%s' revision %u is not enforced", name, rev);
}

int ir_build(const struct ipt_table_view *t, struct ir_table *ir,
	     char *err, size_t err_len)
{
	return ir_build_ext(t, 0, ir, err, err_len);
}

/* Does an unconditional rule with verdict @v end the walk of its chain? */
static bool ends_chain(enum ir_verdict v);

/* how deep chain_walked() follows jumps before it says no */
#define WALKED_DEPTH	16
/* the most rules a chain the kernel walks whole has: a long chain of kernel
 * rules is worth compiling after all, its conditions (classified runs:
 * kube-proxy's KUBE-SERVICES) skip the rules that cannot match */
#define WALKED_RULES	8

enum { WALKED_UNKNOWN, WALKED_NO, WALKED_YES };

/*
 * Is the chain at @start one the kernel walks whole: every rule before its
 * end (its RETURN policy, or an unconditional verdict) a kernel rule or a
 * jump into such a chain, at least one and at most WALKED_RULES of them?
 * Compiling it gains next to nothing: its program would hand the packet
 * over at the first of those rules whose conditions hold, and the walk
 * goes on from there anyway (kube-proxy's KUBE-SVC-*: statistic matches;
 * KUBE-SEP-*: DNAT).
 */
static bool chain_walked(const struct ir_table *ir, unsigned int start,
			 unsigned char *memo, unsigned int depth)
{
	unsigned int i, nkernel = 0;
	bool yes = false;

	if (memo[start] != WALKED_UNKNOWN)
		return memo[start] == WALKED_YES;
	if (depth > WALKED_DEPTH)
		return false;	/* not remembered: a shallower path may say yes */
	for (i = start; i < ir->nrules; i++) {
		const struct ir_rule *r = &ir->rules[i];
		bool into = (r->verdict == IRV_JUMP || r->verdict == IRV_GOTO) &&
			    chain_walked(ir, r->target, memo, depth + 1);

		if (i != start && r->func_start)
			break;		/* falls into another function */
		if (r->always && ends_chain(r->verdict)) {
			yes = r->verdict == IRV_GOTO ? into : nkernel > 0;
			break;
		}
		if ((!r->kernel && !into) || nkernel == WALKED_RULES)
			break;
		nkernel++;
	}
	memo[start] = yes ? WALKED_YES : WALKED_NO;
	return yes;
}

/*
 * A jump or goto into a chain the kernel walks whole becomes a kernel rule
 * itself (its conditions all in ->m, so a classified run can still key it:
 * cgen/classify.c): the program hands the packet over at the jump, and the
 * chain costs no BPF subprogram (a kernel allows 256; kube-proxy writes two
 * chains per service).
 */
static int mark_walked_chains(struct ir_table *ir, char *err, size_t err_len)
{
	unsigned char *memo = calloc(ir->nrules ? ir->nrules : 1, 1);
	unsigned int i;

	if (!memo)
		return fail(err, err_len, -ENOMEM, "out of memory");
	for (i = 0; i < ir->nrules; i++) {
		struct ir_rule *r = &ir->rules[i];

		if ((r->verdict == IRV_JUMP || r->verdict == IRV_GOTO) &&
		    chain_walked(ir, r->target, memo, 0)) {
			r->kernel = true;
			r->always = false;
		}
	}
	free(memo);
	return 0;
}

/*
 * An IPv6 entry's IP part into @rr: what ip6_packet_match() tests.  The
 * bits ip6_tables shares with ip_tables (IP6T_INV_VIA_IN/OUT, SRCIP, DSTIP,
 * PROTO are IPT_INV_*'s) go to rr->ip, the addresses to @a.  Refused
 * (-EOPNOTSUPP: the module walks the whole table) where a program and a
 * walk resumed at a rule could differ: a protocol without IP6T_F_PROTO
 * (ip6tables never writes it; a match such as tcp is then accepted and
 * reads the fragment offset an earlier rule's header search left, which a
 * walk resumed later does not have), and IP6T_F_TOS, which nothing tests.
 */
static int ip6_to_ir(const struct ip6t_ip6 *ip, struct ir_rule *rr,
		     struct ir_ip6 *a, char *err, size_t err_len)
{
	if (ip->proto && !(ip->flags & IP6T_F_PROTO))
		return fail(err, err_len, -EOPNOTSUPP,
			    "a protocol without IP6T_F_PROTO");
	memset(&rr->ip, 0, sizeof(rr->ip));
	memcpy(rr->ip.iniface, ip->iniface, IFNAMSIZ);
	memcpy(rr->ip.outiface, ip->outiface, IFNAMSIZ);
	memcpy(rr->ip.iniface_mask, ip->iniface_mask, IFNAMSIZ);
	memcpy(rr->ip.outiface_mask, ip->outiface_mask, IFNAMSIZ);
	rr->ip.invflags = ip->invflags & (IP6T_INV_VIA_IN | IP6T_INV_VIA_OUT |
					  IP6T_INV_SRCIP | IP6T_INV_DSTIP);
	memset(a, 0, sizeof(*a));
	a->fproto = ip->flags & IP6T_F_PROTO;
	if (a->fproto) {
		rr->ip.proto = ip->proto;
		rr->ip.invflags |= ip->invflags & IP6T_INV_PROTO;
	}
	memcpy(a->src, &ip->src, 16);
	memcpy(a->dst, &ip->dst, 16);
	memcpy(a->smsk, &ip->smsk, 16);
	memcpy(a->dmsk, &ip->dmsk, 16);
	rr->ip6 = a;
	return 0;
}

/* Does the rule test the input or output interface? */
static bool names_interface(const struct ipt_ip *ip)
{
	static const unsigned char none[IFNAMSIZ];

	return (ip->invflags & (IPT_INV_VIA_IN | IPT_INV_VIA_OUT)) ||
	       memcmp(ip->iniface_mask, none, IFNAMSIZ) ||
	       memcmp(ip->outiface_mask, none, IFNAMSIZ);
}

int ir_build_ext(const struct ipt_table_view *t, unsigned int flags,
		 struct ir_table *ir, char *err, size_t err_len)
{
	static struct ir_match no_match[1];
	const unsigned char *base = t->entries;
	unsigned int *offs = NULL, *mfirst = NULL, n = 0, off, h, i;
	unsigned int nm = 0;
	size_t maxm;
	struct ir_match tmp[IR_MAX_MATCH];
	bool v6 = t->family == NFPROTO_IPV6;
	/* either layout: the family descriptor says where its fields lie */
	const struct ipt_family *fam = v6 ? &ipt_family_ipv6 : &ipt_family_ipv4;
	size_t esz = fam->entry_size;
	int r = -EINVAL;

	memset(ir, 0, sizeof(*ir));
	ir->ipv6 = v6;
	if (!t->num_entries || t->size < esz)
		return fail(err, err_len, -EINVAL, "empty table");
	/* small rules: a whole 10,000-rule table is a few MB at most, not
	 * IR_MAX_MATCH matches per rule */
	ir->rules = bigmem_calloc(t->num_entries, sizeof(*ir->rules));
	offs = calloc(t->num_entries, sizeof(*offs));
	mfirst = calloc(t->num_entries, sizeof(*mfirst));
	if (v6)
		ir->ip6s = calloc(t->num_entries, sizeof(*ir->ip6s));
	if (!ir->rules || !offs || !mfirst || (v6 && !ir->ip6s)) {
		r = fail(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	/* pass 1: entry offsets */
	for (off = 0; off < t->size && n < t->num_entries; n++) {
		const void *e = base + off;

		if (t->size - off < esz || ipt_e_next_offset(fam, e) < esz ||
		    ipt_e_next_offset(fam, e) > t->size - off ||
		    (ipt_e_next_offset(fam, e) & 7)) {
			r = fail(err, err_len, -EINVAL, "bad entry at %u", off);
			goto out;
		}
		offs[n] = off;
		off += ipt_e_next_offset(fam, e);
	}
	if (n != t->num_entries || off != t->size) {
		r = fail(err, err_len, -EINVAL, "entry count mismatch");
		goto out;
	}
	ir->nrules = n;
	ir->valid_hooks = t->valid_hooks;
	/*
	 * Room for every match at once: each is at least its header long.
	 * Grown by doubling, the array was mapped and faulted in afresh at
	 * every commit (three times over for a 10,000-rule table); kept
	 * (lib/bigmem.h), only the pages a commit uses are ever touched.
	 */
	maxm = (t->size - (size_t)n * esz) / sizeof(struct xt_entry_match);
	ir->matches = bigmem_alloc((maxm ? maxm : 1) * sizeof(*ir->matches));
	if (!ir->matches) {
		r = fail(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}

	/* pass 2: decode */
	for (i = 0; i < n; i++) {
		const void *e = base + offs[i];
		const struct xt_entry_target *tg;
		struct ir_rule *rr = &ir->rules[i];
		unsigned int mo, tsize, e_toff = ipt_e_target_offset(fam, e);
		unsigned int e_next = ipt_e_next_offset(fam, e);
		bool go_to;

		rr->idx = i;
		rr->off = offs[i];
		if (v6) {
			const struct ip6t_ip6 *ip6 =
				&((const struct ip6t_entry *)e)->ipv6;

			r = ip6_to_ir(ip6, rr, &ir->ip6s[i], err, err_len);
			if (r)
				goto out;
			go_to = ip6->flags & IP6T_F_GOTO;
		} else {
			rr->ip = ((const struct ipt_entry *)e)->ip;
			go_to = rr->ip.flags & IPT_F_GOTO;
		}
		r = -EINVAL;
		if (e_toff < esz || e_toff + sizeof(*tg) > e_next) {
			r = fail(err, err_len, -EINVAL, "bad target offset at %u",
				 offs[i]);
			goto out;
		}
		for (mo = esz; mo < e_toff;) {
			const struct xt_entry_match *em =
				(const void *)((const char *)e + mo);
			int k;

			if (e_toff - mo < sizeof(*em) ||
			    em->u.match_size < sizeof(*em) ||
			    em->u.match_size > e_toff - mo) {
				r = fail(err, err_len, -EINVAL,
					 "bad match size at %u", offs[i]);
				goto out;
			}
			if (rr->nmatch == IR_MAX_MATCH &&
			    (flags & IR_KERNEL_WALKS)) {
				/* ip_tables has no limit */
				rr->kernel = rr->kernel_match = true;
				mo += em->u.match_size;
				continue;
			}
			if (rr->nmatch == IR_MAX_MATCH) {
				r = fail(err, err_len, -E2BIG,
					 "more than %d matches in one rule",
					 IR_MAX_MATCH);
				goto out;
			}
			k = decode_match(em, em->u.match_size - sizeof(*em),
					 &rr->ip, flags, &tmp[rr->nmatch], ir,
					 err, err_len);
			if (k < 0) {
				r = k;
				goto out;
			}
			if (k == 0)
				rr->nmatch++;
			if (k == MATCH_KERNEL)
				rr->kernel = rr->kernel_match = true;
			mo += em->u.match_size;
		}
		/* cannot be: a decoded match had its header in the blob */
		if (nm + rr->nmatch > maxm) {
			r = fail(err, err_len, -EINVAL, "more matches than room");
			goto out;
		}
		memcpy(ir->matches + nm, tmp, rr->nmatch * sizeof(tmp[0]));
		mfirst[i] = nm;
		nm += rr->nmatch;
		tg = (const void *)((const char *)e + e_toff);
		tsize = tg->u.target_size;
		if (tsize < sizeof(*tg) || tsize > e_next - e_toff) {
			r = fail(err, err_len, -EINVAL, "bad target size at %u",
				 offs[i]);
			goto out;
		}
		if (!strcmp(tg->u.user.name, XT_ERROR_TARGET)) {
			rr->verdict = IRV_ERROR;
		} else if (!strcmp(tg->u.user.name, XT_STANDARD_TARGET)) {
			int v;

			if (tsize < sizeof(struct xt_standard_target)) {
				r = fail(err, err_len, -EINVAL,
					 "short standard target at %u", offs[i]);
				goto out;
			}
			v = ((const struct xt_standard_target *)tg)->verdict;
			if (v == -NF_ACCEPT - 1) {
				rr->verdict = IRV_ACCEPT;
			} else if (v == -NF_DROP - 1) {
				rr->verdict = IRV_DROP;
			} else if (v == XT_RETURN) {
				rr->verdict = IRV_RETURN;
			} else if (v >= 0) {
				int ti = off_to_idx(offs, n, (unsigned int)v);

				if (ti < 0) {
					r = fail(err, err_len, -EINVAL,
						 "jump to %d: not an entry", v);
					goto out;
				}
				rr->target = (unsigned int)ti;
				if ((unsigned int)ti == i + 1)
					/* ip_tables: no push; continue */
					rr->verdict = IRV_CONTINUE;
				else
					rr->verdict = go_to ? IRV_GOTO :
							      IRV_JUMP;
			} else if (flags & IR_KERNEL_WALKS) {
				rr->verdict = IRV_KERNEL;	/* NF_QUEUE... */
			} else {
				r = fail(err, err_len, -EOPNOTSUPP,
					 "verdict %d is not enforced", v);
				goto out;
			}
		} else if (flags & IR_KERNEL_WALKS) {
			rr->verdict = IRV_KERNEL;
		} else {
			r = fail(err, err_len, -EOPNOTSUPP,
				 "target '%s' is not enforced",
				 tg->u.user.name);
			goto out;
		}
		/* IPT_F_GOTO is control flow, not a packet condition */
		if (!v6)
			rr->ip.flags &= ~IPT_F_GOTO;
		rr->kernel |= rr->verdict == IRV_KERNEL;
		/* the programs find interface names in the helper's own
		 * namespace's links (the ifinfo map); another namespace's
		 * ifindexes name other devices: its -i/-o rules are the
		 * kernel's, which reads the devices' names, and the program's
		 * test before it hands such a rule over leaves them out */
		if ((flags & IR_KERNEL_WALKS) && t->netns != EBPF_NETNS_INIT &&
		    names_interface(&rr->ip)) {
			rr->kernel = rr->kernel_match = true;
			memset(rr->ip.iniface, 0, sizeof(rr->ip.iniface));
			memset(rr->ip.outiface, 0, sizeof(rr->ip.outiface));
			memset(rr->ip.iniface_mask, 0, sizeof(rr->ip.iniface_mask));
			memset(rr->ip.outiface_mask, 0,
			       sizeof(rr->ip.outiface_mask));
			rr->ip.invflags &= ~(IPT_INV_VIA_IN | IPT_INV_VIA_OUT);
		}
		/* a match left out for the kernel is still a condition */
		rr->always = !rr->kernel && ir_rule_unconditional(rr);
	}
	/* every --tcp-option rule is the kernel's: nothing to refuse */
	if (flags & IR_KERNEL_WALKS)
		ir->uses_tcpopt = false;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		int a, b;

		if (!(t->valid_hooks & (1u << h)))
			continue;
		a = off_to_idx(offs, n, t->hook_entry[h]);
		b = off_to_idx(offs, n, t->underflow[h]);
		if (a < 0 || b < 0) {
			r = fail(err, err_len, -EINVAL, "bad hook %u offsets", h);
			goto out;
		}
		ir->hook_entry[h] = (unsigned int)a;
		ir->underflow[h] = (unsigned int)b;
		ir->rules[a].func_start = true;
		ir->rules[b].func_start = true;
	}
	for (i = 0; i < n; i++)
		if (ir->rules[i].verdict == IRV_JUMP ||
		    ir->rules[i].verdict == IRV_GOTO)
			ir->rules[ir->rules[i].target].func_start = true;
	for (i = 0; i < n; i++)
		ir->rules[i].m = ir->rules[i].nmatch ?
				 ir->matches + mfirst[i] : no_match;
	r = 0;
	if (flags & IR_KERNEL_WALKS)
		r = mark_walked_chains(ir, err, err_len);
out:
	free(offs);
	free(mfirst);
	if (r)
		ir_free(ir);
	return r;
}

/* Does an unconditional rule with verdict @v end the walk of its chain? */
static bool ends_chain(enum ir_verdict v)
{
	return v == IRV_ACCEPT || v == IRV_DROP || v == IRV_RETURN ||
	       v == IRV_GOTO || v == IRV_ERROR;
}

/* Can the walk of @ir from entries @a and @b reach a ->kernel rule?
 * @seen, @stack: nrules each */
static bool reaches_kernel(const struct ir_table *ir, unsigned int a,
			   unsigned int b, bool *seen, unsigned int *stack)
{
	unsigned int n = 0, i;

	memset(seen, 0, ir->nrules * sizeof(*seen));
	stack[n++] = a;
	stack[n++] = b;
	while (n) {
		for (i = stack[--n]; i < ir->nrules && !seen[i]; i++) {
			const struct ir_rule *r = &ir->rules[i];

			seen[i] = true;
			if (r->kernel)
				return true;
			/* at most one push per rule seen: the stack holds
			 * nrules + 2 */
			if ((r->verdict == IRV_JUMP || r->verdict == IRV_GOTO) &&
			    !seen[r->target])
				stack[n++] = r->target;
			if (r->always && ends_chain(r->verdict))
				break;
		}
	}
	return false;
}

unsigned int ir_kernel_hooks(const struct ir_table *ir)
{
	bool *seen = calloc(ir->nrules + 1, sizeof(*seen));
	unsigned int *stack = calloc(ir->nrules + 2, sizeof(*stack));
	unsigned int h, mask = 0;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(ir->valid_hooks & (1u << h)))
			continue;
		/* out of memory: the kernel walks, which is always right */
		if (!seen || !stack ||
		    reaches_kernel(ir, ir->hook_entry[h], ir->underflow[h],
				   seen, stack))
			mask |= 1u << h;
	}
	free(seen);
	free(stack);
	return mask;
}

void ir_free(struct ir_table *ir)
{
	bigmem_free(ir->rules);
	bigmem_free(ir->matches);
	free(ir->ip6s);
	ir->ip6s = NULL;
	ir->matches = NULL;
	ir->rules = NULL;
	ir->nrules = 0;
}
