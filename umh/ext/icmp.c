// SPDX-License-Identifier: GPL-2.0
/*
 * icmp (ip_tables.c's icmp_match): a type and a code range; type 0xff
 * matches any.  Hotdrop on a missing 8-byte header, as tcp/udp.
 */
#include <errno.h>
#include <netinet/in.h>

#include "cgen/emit.h"
#include "ext/ext.h"
#include "ir/ir.h"

#define ICMP_ANY_TYPE	0xff	/* ipt_icmp.type: every type */

static int icmp_check(const struct ipt_ip *ip EXT_UNUSED,
		      const void *data, uint8_t rev EXT_UNUSED)
{
	const struct ipt_icmp *icmp = data;

	return (icmp->invflags & ~IPT_ICMP_INV) ? -EINVAL : 0;
}

static int icmp_decode(const struct ext_decode *d, struct ir_match *m)
{
	const struct ipt_icmp *ic = d->data;

	m->kind = IRM_ICMP;
	m->icmp.type = ic->type;
	m->icmp.code_min = ic->code[0];
	m->icmp.code_max = ic->code[1];
	m->icmp.inv = ic->invflags & IPT_ICMP_INV;
	return 0;
}

/* the 8-byte header: hotdrop if it is missing, no match (icmp6 too) */
void ext_emit_icmp_header(struct cg *c)
{
	emit_hotdrop(c, PI_HD8);
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_BAD8));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
}

static void emit_icmp(struct cg *c, const struct ir_match *m)
{
	ext_emit_icmp_header(c);
	if (m->icmp.type == ICMP_ANY_TYPE) {
		if (m->icmp.inv)
			acc_never(c);
		return;
	}
	ext_emit_icmp_type(c, m);
}

/* the type and the code range, inverted as the match says (icmp6 too) */
void ext_emit_icmp_type(struct cg *c, const struct ir_match *m)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R4, R6, PI_ICMPT));
	EM(c, BPF_ALU64_IMM(BPF_XOR, R4, m->icmp.type));
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_ICMPC));
	emit_out_of_range(c, R2, m->icmp.code_min, m->icmp.code_max);
	EM(c, BPF_ALU64_REG(BPF_OR, R4, R2));
	acc_mismatch(c, R4, m->icmp.inv);
}

const struct ext_desc ext_icmp = {
	.name = "icmp",
	.nrevs = 1,
	.revs = { { 0, sizeof(struct ipt_icmp) } },
	.proto = IPPROTO_ICMP,
	.check = icmp_check,
	.decode = icmp_decode,
	.ir_kind = IRM_ICMP,
	.need_hdr = NEED_HDR8,
	.need_fields = NEED_F_ICMP,
	.hotdrop = true,
	.emit = emit_icmp,
};
