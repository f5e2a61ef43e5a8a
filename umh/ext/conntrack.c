// SPDX-License-Identifier: GPL-2.0
/*
 * conntrack revisions 1-3 (xt_conntrack.c): only --ctstate is compiled
 * (the prologue reads the packet's conntrack state into pi.ct, NETFILTER
 * only); any other option is refused as not enforced.  state (state.c)
 * decodes to the same IR and is compiled by the same emitter.
 */
#include <errno.h>
#include <linux/netfilter/xt_conntrack.h>

#include "cgen/emit.h"
#include "ext/ext.h"
#include "ir/ir.h"

static int conntrack_decode(const struct ext_decode *d, struct ir_match *m)
{
	/* mtinfo2 and 3 extend mtinfo1's layout past these fields */
	const struct xt_conntrack_mtinfo1 *c1 = d->data;
	const struct xt_conntrack_mtinfo2 *c2 = d->data;
	bool v1 = d->rev == 1;
	unsigned int mflags = v1 ? c1->match_flags : c2->match_flags;
	unsigned int iflags = v1 ? c1->invert_flags : c2->invert_flags;
	unsigned int smask = v1 ? c1->state_mask : c2->state_mask;

	/* iptables sends -m state as conntrack with STATE_ALIAS set. */
	if (mflags & ~(XT_CONNTRACK_STATE | XT_CONNTRACK_STATE_ALIAS))
		return ext_fail(d->err, d->err_len, -EOPNOTSUPP,
				"conntrack match: only --ctstate is enforced");
	m->kind = IRM_CTSTATE;
	if (mflags & XT_CONNTRACK_STATE) {
		m->ct.mask = smask;
		m->ct.inv = iflags & XT_CONNTRACK_STATE;
	} else {
		/* no option at all: conntrack_mt() is true iff tracked */
		m->ct.mask = IR_CT_EST | IR_CT_REL | IR_CT_NEW;
	}
	d->ir->uses_ct = true;
	return 0;
}

/* match iff (mask & the packet's state bit) != 0, xor inv */
void ext_emit_ctstate(struct cg *c, const struct ir_match *m)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_CT));
	EM(c, BPF_ALU64_IMM(BPF_AND, R2, (int)m->ct.mask));
	emit_norm(c, R2, R5);
	if (!m->ct.inv)
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
}

const struct ext_desc ext_conntrack = {
	.name = "conntrack",
	.unspec = true,
	.nrevs = 3,
	.revs = {
		{ 1, sizeof(struct xt_conntrack_mtinfo1) },
		{ 2, sizeof(struct xt_conntrack_mtinfo2) },
		{ 3, sizeof(struct xt_conntrack_mtinfo3) },
	},
	.decode = conntrack_decode,
	.ir_kind = IRM_CTSTATE,
	.emit = ext_emit_ctstate,
};
