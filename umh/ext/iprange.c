// SPDX-License-Identifier: GPL-2.0
/*
 * iprange revision 1 (xt_iprange.c): source and/or destination address in
 * an inclusive range, each invertible.  Revision 0 is not served (ip_tables
 * answers -ENOENT for it).  No payload check, as in the kernel.
 */
#include <arpa/inet.h>
#include <linux/netfilter/xt_iprange.h>

#include "cgen/emit.h"
#include "ext/ext.h"
#include "ir/ir.h"

static int iprange_decode(const struct ext_decode *d, struct ir_match *m)
{
	const struct xt_iprange_mtinfo *r = d->data;

	m->kind = IRM_IPRANGE;
	m->ipr.src = r->flags & IPRANGE_SRC;
	m->ipr.dst = r->flags & IPRANGE_DST;
	m->ipr.src_inv = r->flags & IPRANGE_SRC_INV;
	m->ipr.dst_inv = r->flags & IPRANGE_DST_INV;
	m->ipr.src_min = ntohl(r->src_min.ip);
	m->ipr.src_max = ntohl(r->src_max.ip);
	m->ipr.dst_min = ntohl(r->dst_min.ip);
	m->ipr.dst_max = ntohl(r->dst_max.ip);
	return 0;
}

/* r7 |= (the host-order address at @slot not in [lo, hi]) ^ inv */
static void emit_range(struct cg *c, int slot, uint32_t lo, uint32_t hi,
		       bool inv)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, slot));
	emit_out_of_range(c, R2, lo, hi);
	if (inv)
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
}

static void emit_iprange(struct cg *c, const struct ir_match *m)
{
	if (m->ipr.src)
		emit_range(c, PI_SADDR_H, m->ipr.src_min, m->ipr.src_max,
			   m->ipr.src_inv);
	if (m->ipr.dst)
		emit_range(c, PI_DADDR_H, m->ipr.dst_min, m->ipr.dst_max,
			   m->ipr.dst_inv);
}

const struct ext_desc ext_iprange = {
	.name = "iprange",
	.nrevs = 1,
	.revs = { { 1, sizeof(struct xt_iprange_mtinfo) } },
	.decode = iprange_decode,
	.ir_kind = IRM_IPRANGE,
	.emit = emit_iprange,
};
