// SPDX-License-Identifier: GPL-2.0
/*
 * tcp and udp (xt_tcpudp.c): port ranges, tcp flags and options.  A packet
 * without the whole header (20 bytes tcp, 8 udp) at fragment offset 0, or
 * a tcp fragment at offset 1, is dropped (hotdrop); a later fragment never
 * matches.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "cgen/emit.h"
#include "ext/ext.h"
#include "ir/ir.h"

static int tcp_check(const struct ipt_ip *ip EXT_UNUSED,
		     const void *data, uint8_t rev EXT_UNUSED)
{
	const struct xt_tcp *tcp = data;

	return (tcp->invflags & ~XT_TCP_INV_MASK) ? -EINVAL : 0;
}

static int udp_check(const struct ipt_ip *ip EXT_UNUSED,
		     const void *data, uint8_t rev EXT_UNUSED)
{
	const struct xt_udp *udp = data;

	return (udp->invflags & ~XT_UDP_INV_MASK) ? -EINVAL : 0;
}

/* the rule must say "-p tcp" ("-p udp"), as iptables always does */
static int proto_ok(const struct ext_decode *d, uint16_t proto,
		    const char *name)
{
	if (d->ip->proto != proto || (d->ip->invflags & IPT_INV_PROTO))
		return ext_fail(d->err, d->err_len, -EINVAL,
				"%s match without -p %s", name, name);
	return 0;
}

static int tcp_decode(const struct ext_decode *d, struct ir_match *m)
{
	const struct xt_tcp *t = d->data;

	m->kind = IRM_TCP;
	memcpy(m->tu.spts, t->spts, sizeof(m->tu.spts));
	memcpy(m->tu.dpts, t->dpts, sizeof(m->tu.dpts));
	m->tu.flg_mask = t->flg_mask;
	m->tu.flg_cmp = t->flg_cmp;
	m->tu.option = t->option;
	m->tu.invflags = t->invflags;
	if (t->option)
		d->ir->uses_tcpopt = true;
	return proto_ok(d, IPPROTO_TCP, "tcp");
}

static int udp_decode(const struct ext_decode *d, struct ir_match *m)
{
	const struct xt_udp *u = d->data;

	m->kind = IRM_UDP;
	memcpy(m->tu.spts, u->spts, sizeof(m->tu.spts));
	memcpy(m->tu.dpts, u->dpts, sizeof(m->tu.dpts));
	m->tu.invflags = u->invflags;
	return proto_ok(d, IPPROTO_UDP, "udp");
}

static void emit_tcpudp(struct cg *c, const struct ir_match *m)
{
	bool tcp = m->kind == IRM_TCP;

	emit_hotdrop(c, tcp ? PI_HD20 : PI_HD8);
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, tcp ? PI_BAD20 : PI_BAD8));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
	if (c->skip != SF_SPORT)
		emit_port(c, PI_SPORT, m->tu.spts[0], m->tu.spts[1],
			  m->tu.invflags & XT_TCP_INV_SRCPT);
	if (c->skip != SF_DPORT)
		emit_port(c, PI_DPORT, m->tu.dpts[0], m->tu.dpts[1],
			  m->tu.invflags & XT_TCP_INV_DSTPT);
	if (tcp && (m->tu.flg_mask || (m->tu.invflags & XT_TCP_INV_FLAGS))) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_TCPFL));
		EM(c, BPF_ALU64_IMM(BPF_AND, R2, m->tu.flg_mask));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, m->tu.flg_cmp));
		acc_mismatch(c, R2, m->tu.invflags & XT_TCP_INV_FLAGS);
	}
}

static bool any_or_one(const uint16_t pts[2])
{
	return pts[0] == pts[1] || (pts[0] == 0 && pts[1] == 0xffff);
}

/* ports exact or any, no flags, options or inversions: a key can say it */
static bool tcpudp_cls_ports(const struct ir_match *m)
{
	return !m->tu.flg_mask && !m->tu.option && !m->tu.invflags &&
	       any_or_one(m->tu.spts) && any_or_one(m->tu.dpts);
}

const struct ext_desc ext_tcp = {
	.name = "tcp",
	.nrevs = 1,
	.revs = { { 0, sizeof(struct xt_tcp) } },
	.proto = IPPROTO_TCP,
	.check = tcp_check,
	.decode = tcp_decode,
	.ir_kind = IRM_TCP,
	.need_hdr = NEED_HDR20,
	.need_fields = NEED_F_PORTS | NEED_F_TCPFL,
	.hotdrop = true,
	.emit = emit_tcpudp,
	.cls_ports = tcpudp_cls_ports,
};

const struct ext_desc ext_udp = {
	.name = "udp",
	.nrevs = 1,
	.revs = { { 0, sizeof(struct xt_udp) } },
	.proto = IPPROTO_UDP,
	.check = udp_check,
	.decode = udp_decode,
	.ir_kind = IRM_UDP,
	.need_hdr = NEED_HDR8,
	.need_fields = NEED_F_PORTS,
	.hotdrop = true,
	.emit = emit_tcpudp,
	.cls_ports = tcpudp_cls_ports,
};
