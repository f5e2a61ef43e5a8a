// SPDX-License-Identifier: GPL-2.0
/*
 * state (xt_state.c): the conntrack state, in xt_state's bit layout;
 * decoded to conntrack's --ctstate IR and compiled by its emitter.
 */
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/xt_state.h>

#include "ext/ext.h"
#include "ir/ir.h"

static int state_decode(const struct ext_decode *d, struct ir_match *m)
{
	const struct xt_state_info *s = d->data;

	m->kind = IRM_CTSTATE;
	/* INVALID, ESTABLISHED, RELATED, NEW: the same bits as conntrack */
	m->ct.mask = s->statemask & (IR_CT_INVALID | IR_CT_EST | IR_CT_REL |
				     IR_CT_NEW);
	if (s->statemask & XT_STATE_UNTRACKED)
		m->ct.mask |= IR_CT_UNTRACKED;
	d->ir->uses_ct = true;
	return 0;
}

const struct ext_desc ext_state = {
	.name = "state",
	.unspec = true,
	.nrevs = 1,
	.revs = { { 0, sizeof(struct xt_state_info) } },
	.decode = state_decode,
	.ir_kind = IRM_CTSTATE,
	.emit = ext_emit_ctstate,
};
