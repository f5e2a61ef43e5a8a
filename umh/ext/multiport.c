// SPDX-License-Identifier: GPL-2.0
/*
 * multiport revision 1 (xt_multiport.c): up to 15 ports or ranges, source,
 * destination or either; inversion.  Revision 0 is not served (ip_tables
 * answers -ENOENT for it, as for a kernel without the module).  Hotdrop on
 * a missing 4-byte port header.  IPv6 the same (multiport_mt() serves both
 * families): the ports at the transport header ipv6_find_hdr() found, no
 * match on a later fragment (its fragoff is in bytes there, but only its
 * being non-zero counts).
 */
#include <errno.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_multiport.h>

#include "cgen/emit.h"
#include "ext/ext.h"
#include "ir/ir.h"

/* multiport_valid_ranges(): a range flag starts a lo:hi pair, lo <= hi. */
static bool multiport_ranges_ok(const struct xt_multiport_v1 *mp)
{
	unsigned int i;

	/* count <= XT_MULTI_PORTS was checked first. */
	for (i = 0; i < mp->count; i++) {
		if (!mp->pflags[i])
			continue;
		if (++i >= mp->count)
			return false;
		if (mp->pflags[i])
			return false;
		if (mp->ports[i - 1] > mp->ports[i])
			return false;
	}
	return true;
}

/* check()'s protocol part: one whose first 4 bytes are the ports, not
 * inverted */
static bool multiport_proto_ok(const struct ipt_ip *ip)
{
	bool port_proto = ip->proto == IPPROTO_TCP || ip->proto == IPPROTO_UDP ||
			  ip->proto == IPPROTO_UDPLITE ||
			  ip->proto == IPPROTO_SCTP || ip->proto == IPPROTO_DCCP;

	return port_proto && !(ip->invflags & XT_INV_PROTO);
}

/* multiport_mt_check(): a port protocol, a known mode, at most 15 ports. */
static int multiport_check(const struct ipt_ip *ip, const void *data,
			   uint8_t rev EXT_UNUSED)
{
	const struct xt_multiport_v1 *mp = data;

	if (!multiport_proto_ok(ip) ||
	    (mp->flags != XT_MULTIPORT_SOURCE &&
	     mp->flags != XT_MULTIPORT_DESTINATION &&
	     mp->flags != XT_MULTIPORT_EITHER) ||
	    mp->count > XT_MULTI_PORTS)
		return -EINVAL;
	return multiport_ranges_ok(mp) ? 0 : EXT_KERNEL_DECIDES;
}

static int multiport_decode(const struct ext_decode *d, struct ir_match *m)
{
	const struct xt_multiport_v1 *mp = d->data;
	unsigned int i, n = 0;

	if (mp->count > XT_MULTI_PORTS || mp->flags > XT_MULTIPORT_EITHER)
		goto bad;
	/*
	 * IPv6: the helper checks no extension (the module's
	 * multiport_mt6_check() did), and the emitter reads the ports at the
	 * transport header only a rule with IP6T_F_PROTO finds; @ip has a
	 * protocol only with that flag (ir.c, ip6_to_ir()).  Anything else
	 * is the kernel's to run.
	 */
	if (d->ir->ipv6 && !multiport_proto_ok(d->ip))
		return ext_fail(d->err, d->err_len, -EOPNOTSUPP,
				"multiport without -p of a port protocol: the kernel's own match decides");
	/* a kernel that took them (EXT_KERNEL_DECIDES) walks them itself */
	if (!multiport_ranges_ok(mp))
		return ext_fail(d->err, d->err_len, -EOPNOTSUPP,
				"malformed multiport ranges: the kernel's own match decides");
	m->kind = IRM_MPORT;
	m->mp.mode = mp->flags == XT_MULTIPORT_SOURCE ? IR_MP_SRC :
		     mp->flags == XT_MULTIPORT_DESTINATION ? IR_MP_DST :
		     IR_MP_EITHER;
	for (i = 0; i < mp->count; i++) {
		uint16_t lo = mp->ports[i], hi = lo;

		/* as ports_match_v1(): a range takes two slots */
		if (mp->pflags[i]) {
			if (i + 1 >= mp->count)
				goto bad;
			hi = mp->ports[++i];
		}
		m->mp.lo[n] = lo;
		m->mp.hi[n] = hi;
		n++;
	}
	m->mp.count = n;
	m->mp.inv = mp->invert;
	return 0;
bad:
	return ext_fail(d->err, d->err_len, -EINVAL,
			"malformed multiport match (revision %u)", d->rev);
}

/* r7 |= (no spec matches) ^ inv, a spec matching if the port(s) its mode
 * names are in its range */
static void emit_multiport(struct cg *c, const struct ir_match *m)
{
	static const struct { uint8_t mode; int slot; } side[] = {
		{ IR_MP_SRC, PI_SPORT }, { IR_MP_DST, PI_DPORT },
	};
	unsigned int k, s;

	emit_hotdrop(c, PI_HD4);
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_BAD4));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
	/* r4 = AND over specs of "spec does not match" */
	EM(c, BPF_MOV64_IMM(R4, 1));
	for (k = 0; k < m->mp.count; k++) {
		/* r3 = AND over the ports the mode names of "not in range" */
		EM(c, BPF_MOV64_IMM(R3, 1));
		for (s = 0; s < 2; s++) {
			if (!(m->mp.mode & side[s].mode))
				continue;
			EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, side[s].slot));
			emit_out_of_range(c, R2, m->mp.lo[k], m->mp.hi[k]);
			EM(c, BPF_ALU64_REG(BPF_AND, R3, R2));
		}
		EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));
	}
	if (m->mp.inv)
		EM(c, BPF_ALU64_IMM(BPF_XOR, R4, 1));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R4));
}

const struct ext_desc ext_multiport = {
	.name = "multiport",
	.nrevs = 1,
	.revs = { { 1, sizeof(struct xt_multiport_v1) } },
	.check = multiport_check,
	.decode = multiport_decode,
	.ir_kind = IRM_MPORT,
	.need_hdr = NEED_HDR4,
	.need_fields = NEED_F_PORTS,
	.hotdrop = true,
	.emit = emit_multiport,
};
