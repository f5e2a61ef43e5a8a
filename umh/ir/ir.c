// SPDX-License-Identifier: GPL-2.0
/*
 * Front end: a validated ip_tables blob -> rule IR (see ir.h).
 *
 * The blob was validated by the control side (ipt_*.c) the way
 * translate_table() does; this file still bounds-checks everything it reads,
 * so a mistake there cannot make the code generator read out of bounds.
 * Extensions are decoded as the kernel's xt modules read them; anything the
 * back end cannot enforce is refused here with a reason, never ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "ir/ir.h"

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

bool ir_rule_unconditional(const struct ir_rule *r)
{
	static const struct ipt_ip zero;

	return r->nmatch == 0 && !memcmp(&r->ip, &zero, sizeof(zero));
}

/* Decode one match; 0 = stored in *m, 1 = no-op (comment), -errno. */
static int decode_match(const struct xt_entry_match *em, size_t dlen,
			const struct ipt_ip *ip, struct ir_match *m,
			char *err, size_t err_len)
{
	const char *name = em->u.user.name;
	unsigned int rev = em->u.user.revision;
	const void *d = em->data;

	memset(m, 0, sizeof(*m));
	if (!strcmp(name, "comment"))
		return 1;
	if (!strcmp(name, "tcp") || !strcmp(name, "udp")) {
		bool tcp = name[0] == 't';

		if (rev != 0 || dlen < (tcp ? sizeof(struct xt_tcp) :
					       sizeof(struct xt_udp)))
			goto bad;
		m->kind = tcp ? IRM_TCP : IRM_UDP;
		if (tcp) {
			const struct xt_tcp *t = d;

			memcpy(m->tu.spts, t->spts, 4);
			memcpy(m->tu.dpts, t->dpts, 4);
			m->tu.flg_mask = t->flg_mask;
			m->tu.flg_cmp = t->flg_cmp;
			m->tu.option = t->option;
			m->tu.invflags = t->invflags;
		} else {
			const struct xt_udp *u = d;

			memcpy(m->tu.spts, u->spts, 4);
			memcpy(m->tu.dpts, u->dpts, 4);
			m->tu.invflags = u->invflags;
		}
		if (ip->proto != (tcp ? IPPROTO_TCP : IPPROTO_UDP) ||
		    (ip->invflags & IPT_INV_PROTO))
			return fail(err, err_len, -EINVAL,
				    "%s match without -p %s", name, name);
		return 0;
	}
	if (!strcmp(name, "icmp")) {
		const struct ipt_icmp *ic = d;

		if (rev != 0 || dlen < sizeof(*ic))
			goto bad;
		m->kind = IRM_ICMP;
		m->icmp.type = ic->type;
		m->icmp.code_min = ic->code[0];
		m->icmp.code_max = ic->code[1];
		m->icmp.inv = ic->invflags & IPT_ICMP_INV;
		return 0;
	}
	if (!strcmp(name, "multiport")) {
		const struct xt_multiport_v1 *mp1 = d;
		const struct xt_multiport *mp0 = d;
		unsigned int i, n = 0, count, flags;

		if (rev > 1 || dlen < (rev ? sizeof(*mp1) : sizeof(*mp0)))
			goto bad;
		flags = rev ? mp1->flags : mp0->flags;
		count = rev ? mp1->count : mp0->count;
		if (count > XT_MULTI_PORTS || flags > XT_MULTIPORT_EITHER)
			goto bad;
		m->kind = IRM_MPORT;
		m->mp.mode = flags == XT_MULTIPORT_SOURCE ? IR_MP_SRC :
			     flags == XT_MULTIPORT_DESTINATION ? IR_MP_DST :
			     IR_MP_EITHER;
		for (i = 0; i < count; i++) {
			uint16_t lo = rev ? mp1->ports[i] : mp0->ports[i];
			uint16_t hi = lo;

			/* as ports_match_v1(): a range takes two slots */
			if (rev && mp1->pflags[i]) {
				if (i + 1 >= count)
					goto bad;
				hi = mp1->ports[++i];
			}
			m->mp.lo[n] = lo;
			m->mp.hi[n] = hi;
			n++;
		}
		m->mp.count = n;
		m->mp.inv = rev ? mp1->invert : 0;
		return 0;
	}
	if (!strcmp(name, "iprange")) {
		m->kind = IRM_IPRANGE;
		if (rev == 1) {
			const struct xt_iprange_mtinfo *r = d;

			if (dlen < sizeof(*r))
				goto bad;
			m->ipr.src = r->flags & IPRANGE_SRC;
			m->ipr.dst = r->flags & IPRANGE_DST;
			m->ipr.src_inv = r->flags & IPRANGE_SRC_INV;
			m->ipr.dst_inv = r->flags & IPRANGE_DST_INV;
			m->ipr.src_min = ntohl(r->src_min.ip);
			m->ipr.src_max = ntohl(r->src_max.ip);
			m->ipr.dst_min = ntohl(r->dst_min.ip);
			m->ipr.dst_max = ntohl(r->dst_max.ip);
		} else if (rev == 0) {
			/* struct ipt_iprange_info: src{min,max}, dst{min,max}, flags */
			const uint32_t *a = d;
			uint8_t f;

			if (dlen < 17)
				goto bad;
			f = ((const uint8_t *)d)[16];
			m->ipr.src = f & IPRANGE_SRC;
			m->ipr.dst = f & IPRANGE_DST;
			m->ipr.src_inv = f & IPRANGE_SRC_INV;
			m->ipr.dst_inv = f & IPRANGE_DST_INV;
			m->ipr.src_min = ntohl(a[0]);
			m->ipr.src_max = ntohl(a[1]);
			m->ipr.dst_min = ntohl(a[2]);
			m->ipr.dst_max = ntohl(a[3]);
		} else {
			goto bad;
		}
		return 0;
	}
	if (!strcmp(name, "state")) {
		const struct xt_state_info *s = d;

		if (rev != 0 || dlen < sizeof(*s))
			goto bad;
		m->kind = IRM_CTSTATE;
		m->ct.mask = s->statemask & 0xf;
		if (s->statemask & XT_STATE_UNTRACKED)
			m->ct.mask |= IR_CT_UNTRACKED;
		return 0;
	}
	if (!strcmp(name, "conntrack")) {
		unsigned int mflags, iflags, smask;

		if (rev == 1 && dlen >= sizeof(struct xt_conntrack_mtinfo1)) {
			const struct xt_conntrack_mtinfo1 *c = d;

			mflags = c->match_flags;
			iflags = c->invert_flags;
			smask = c->state_mask;
		} else if ((rev == 2 &&
			    dlen >= sizeof(struct xt_conntrack_mtinfo2)) ||
			   (rev == 3 &&
			    dlen >= sizeof(struct xt_conntrack_mtinfo3))) {
			const struct xt_conntrack_mtinfo2 *c = d;

			mflags = c->match_flags;
			iflags = c->invert_flags;
			smask = c->state_mask;
		} else {
			goto bad;
		}
		/* iptables sends -m state as conntrack with STATE_ALIAS set. */
		if (mflags & ~(XT_CONNTRACK_STATE | XT_CONNTRACK_STATE_ALIAS))
			return fail(err, err_len, -EOPNOTSUPP,
				    "conntrack match: only --ctstate is enforced");
		m->kind = IRM_CTSTATE;
		if (mflags & XT_CONNTRACK_STATE) {
			m->ct.mask = smask;
			m->ct.inv = iflags & XT_CONNTRACK_STATE;
		} else {
			/* no option at all: conntrack_mt() is true iff tracked */
			m->ct.mask = IR_CT_EST | IR_CT_REL | IR_CT_NEW;
		}
		return 0;
	}
	return fail(err, err_len, -EOPNOTSUPP,
		    "match '%s' revision %u is not enforced", name, rev);
bad:
	return fail(err, err_len, -EINVAL, "malformed %s match (revision %u)",
		    name, rev);
}

int ir_build(const struct ipt_table_view *t, struct ir_table *ir,
	     char *err, size_t err_len)
{
	static struct ir_match no_match[1];
	const unsigned char *base = t->entries;
	unsigned int *offs = NULL, *mfirst = NULL, n = 0, off, h, i;
	unsigned int nm = 0, capm = 0;
	struct ir_match tmp[IR_MAX_MATCH];
	int r = -EINVAL;

	memset(ir, 0, sizeof(*ir));
	if (!t->num_entries || t->size < sizeof(struct ipt_entry))
		return fail(err, err_len, -EINVAL, "empty table");
	/* small rules: a whole 10,000-rule table is a few MB at most, not
	 * IR_MAX_MATCH matches per rule */
	ir->rules = calloc(t->num_entries, sizeof(*ir->rules));
	offs = calloc(t->num_entries, sizeof(*offs));
	mfirst = calloc(t->num_entries, sizeof(*mfirst));
	if (!ir->rules || !offs || !mfirst) {
		r = fail(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	/* pass 1: entry offsets */
	for (off = 0; off < t->size && n < t->num_entries; n++) {
		const struct ipt_entry *e = (const void *)(base + off);

		if (t->size - off < sizeof(*e) || e->next_offset < sizeof(*e) ||
		    e->next_offset > t->size - off || (e->next_offset & 7)) {
			r = fail(err, err_len, -EINVAL, "bad entry at %u", off);
			goto out;
		}
		offs[n] = off;
		off += e->next_offset;
	}
	if (n != t->num_entries || off != t->size) {
		r = fail(err, err_len, -EINVAL, "entry count mismatch");
		goto out;
	}
	ir->nrules = n;
	ir->valid_hooks = t->valid_hooks;

	/* pass 2: decode */
	for (i = 0; i < n; i++) {
		const struct ipt_entry *e = (const void *)(base + offs[i]);
		const struct xt_entry_target *tg;
		struct ir_rule *rr = &ir->rules[i];
		unsigned int mo, tsize;

		rr->idx = i;
		rr->off = offs[i];
		rr->ip = e->ip;
		if (e->target_offset < sizeof(*e) ||
		    e->target_offset + sizeof(*tg) > e->next_offset) {
			r = fail(err, err_len, -EINVAL, "bad target offset at %u",
				 offs[i]);
			goto out;
		}
		for (mo = sizeof(*e); mo < e->target_offset;) {
			const struct xt_entry_match *em =
				(const void *)((const char *)e + mo);
			int k;

			if (e->target_offset - mo < sizeof(*em) ||
			    em->u.match_size < sizeof(*em) ||
			    em->u.match_size > e->target_offset - mo) {
				r = fail(err, err_len, -EINVAL,
					 "bad match size at %u", offs[i]);
				goto out;
			}
			if (rr->nmatch == IR_MAX_MATCH) {
				r = fail(err, err_len, -E2BIG,
					 "more than %d matches in one rule",
					 IR_MAX_MATCH);
				goto out;
			}
			k = decode_match(em, em->u.match_size - sizeof(*em),
					 &e->ip, &tmp[rr->nmatch], err,
					 err_len);
			if (k < 0) {
				r = k;
				goto out;
			}
			if (k == 0) {
				if (tmp[rr->nmatch].kind == IRM_CTSTATE)
					ir->uses_ct = true;
				if (tmp[rr->nmatch].kind == IRM_TCP &&
				    tmp[rr->nmatch].tu.option)
					ir->uses_tcpopt = true;
				rr->nmatch++;
			}
			mo += em->u.match_size;
		}
		if (nm + rr->nmatch > capm) {
			unsigned int nc = capm ? capm * 2 : 256;
			struct ir_match *np;

			while (nc < nm + rr->nmatch)
				nc *= 2;
			np = realloc(ir->matches, nc * sizeof(*np));
			if (!np) {
				r = fail(err, err_len, -ENOMEM, "out of memory");
				goto out;
			}
			ir->matches = np;
			capm = nc;
		}
		if (rr->nmatch)	/* ir->matches is NULL until a rule has one */
			memcpy(ir->matches + nm, tmp, rr->nmatch * sizeof(tmp[0]));
		mfirst[i] = nm;
		nm += rr->nmatch;
		tg = (const void *)((const char *)e + e->target_offset);
		tsize = tg->u.target_size;
		if (tsize < sizeof(*tg) ||
		    tsize > (unsigned int)(e->next_offset - e->target_offset)) {
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
					rr->verdict = (e->ip.flags & IPT_F_GOTO) ?
						      IRV_GOTO : IRV_JUMP;
			} else {
				r = fail(err, err_len, -EOPNOTSUPP,
					 "verdict %d is not enforced", v);
				goto out;
			}
		} else {
			r = fail(err, err_len, -EOPNOTSUPP,
				 "target '%s' is not enforced",
				 tg->u.user.name);
			goto out;
		}
		/* IPT_F_GOTO is control flow, not a packet condition */
		rr->ip.flags &= ~IPT_F_GOTO;
		rr->always = ir_rule_unconditional(rr);
	}

	for (h = 0; h < 5; h++) {
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
out:
	free(offs);
	free(mfirst);
	if (r)
		ir_free(ir);
	return r;
}

void ir_free(struct ir_table *ir)
{
	free(ir->rules);
	free(ir->matches);
	ir->matches = NULL;
	ir->rules = NULL;
	ir->nrules = 0;
}
