// SPDX-License-Identifier: GPL-2.0
/*
 * icmp6 (ip6_tables.c's icmp6_match): a type and a code range.  Unlike
 * ip_tables' icmp, type 0xff is a type like any other
 * (icmp6_type_code_match() has no "any"), so this is its own emitter.
 * Hotdrop on a missing 8-byte header (sizeof(struct icmp6hdr)), and no
 * match on a fragment that is not the first.  Not in the registry's list
 * (an IPv4 rule naming "icmp6" is the kernel's to refuse): only the IPv6
 * front end (ir.c, decode_match()) and ext_of_kind() know it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "cgen/emit.h"
#include "ext/ext.h"
#include "ir/ir.h"

static int icmp6_decode(const struct ext_decode *d, struct ir_match *m)
{
	const struct ip6t_icmp *ic = d->data;

	/* the kernel's check refused anything else (xt_check_match()'s
	 * protocol, icmp6_checkentry()); the walk has it otherwise */
	if (d->ip->proto != IPPROTO_ICMPV6 ||
	    (d->ip->invflags & IPT_INV_PROTO) ||
	    (ic->invflags & ~IP6T_ICMP_INV))
		return -EOPNOTSUPP;
	m->kind = IRM_ICMP6;
	m->icmp.type = ic->type;
	m->icmp.code_min = ic->code[0];
	m->icmp.code_max = ic->code[1];
	m->icmp.inv = ic->invflags & IP6T_ICMP_INV;
	return 0;
}

/* icmp's pieces (icmp.c) without its "any type" */
static void emit_icmp6(struct cg *c, const struct ir_match *m)
{
	ext_emit_icmp_header(c);
	ext_emit_icmp_type(c, m);
}

const struct ext_desc ext_icmp6 = {
	.name = "icmp6",
	.nrevs = 1,
	.revs = { { 0, sizeof(struct ip6t_icmp) } },
	.proto = IPPROTO_ICMPV6,
	.decode = icmp6_decode,
	.ir_kind = IRM_ICMP6,
	.need_hdr = NEED_HDR8,
	.need_fields = NEED_F_ICMP,
	.hotdrop = true,
	.emit = emit_icmp6,
};
