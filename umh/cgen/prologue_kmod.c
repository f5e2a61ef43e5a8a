// SPDX-License-Identifier: GPL-2.0
/*
 * The KMOD flavor: SCHED_CLS table programs that ebpfilter.ko runs itself
 * at the filter table's netfilter hooks (include/ebpfilter/ctl.h).  No
 * dispatcher: the module calls the hook's program directly and swaps the
 * whole rule set at EBPF_IOC_INSTALL.
 *
 * The prologue is the TC one (prologue_tc.c's skb_* pieces) on what the
 * module gives a program: skb->data is the IP header (no link layer, so
 * l2len 0), __sk_buff.len is skb->len (what ip_tables counts, and the end
 * of the transport header's bytes for the hotdrop tests, as par->thoff
 * against skb->len in xt_tcpudp), and the words of skb->cb the module
 * fills: the devices' ifindexes (names from the ifinfo map the helper
 * keeps, as on TC) and the packet's conntrack state, which the module
 * computes as xt_conntrack does (the programs cannot reach skb->_nfct),
 * for IPv6 packets as for IPv4 ones: nf_ct_get() of the skb at the hook,
 * which is what xt_conntrack and xt_state read in either family.
 * The IP header was checked by the stack before any of these hooks, so it
 * is not checked again; one the program cannot read is dropped.
 */
#include <stddef.h>
#include <linux/ip.h>

#include <ebpfilter/ctl.h>

#include "cgen/emit.h"

#define CB_OFF(word)	(offsetof(struct __sk_buff, cb) + 4 * (word))

/* r1 = struct __sk_buff, cb[] as enum ebpf_ctl_cb */
static void prologue_kmod(struct cg *c, int drop_exit, int pass_exit CG_UNUSED)
{
	EM(c, BPF_MOV64_REG(R6, R1));
	skb_zero_pi(c);
	/* the counters' bytes; pi.zero as in prologue_nf */
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, len)));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_LEN));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 31));
	EM(c, BPF_NEG64(R2));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ZERO));
	if (!c->needs.cond)
		return;		/* no rule tests anything */

	/* each name a map lookup, so only the ones a rule tests (the other
	 * slot stays zero and is never read); ifindex 0 (no device): no
	 * record, zeros */
	if (c->needs.in_name) {
		EM(c, BPF_LDX_MEM(BPF_W, R2, R6, CB_OFF(EBPF_CB_IN_IFINDEX)));
		skb_ifinfo(c, PI_IN, false);
	}
	if (c->needs.out_name) {
		EM(c, BPF_LDX_MEM(BPF_W, R2, R6, CB_OFF(EBPF_CB_OUT_IFINDEX)));
		skb_ifinfo(c, PI_OUT, false);
	}
	if (c->ir->ipv6) {
		skb_ip6_headers(c);
	} else {
		EM(c, BPF_MOV64_IMM(R8, 0));	/* no link layer header */
		skb_load_iphdr(c, drop_exit, true);
		skb_read_iphdr(c);	/* r8 thoff, r7 skb->len - thoff */
		skb_read_l4(c);
	}
	compute_flags(c);
	if (c->needs.cls)
		compute_cls_fields(c);
	if (c->ir->uses_ct) {
		EM(c, BPF_LDX_MEM(BPF_W, R2, R6, CB_OFF(EBPF_CB_CTSTATE)));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_CT));
	}
}

static bool has_ct_kmod(const struct cg_opts *o CG_UNUSED)
{
	return true;	/* the module computes it (cb[EBPF_CB_CTSTATE]) */
}

const struct cg_flavor_ops cg_flavor_kmod = {
	.name = "kmod",
	.prog_type = BPF_PROG_TYPE_SCHED_CLS,
	.ret_accept = EBPF_PROG_ACCEPT,
	.ret_drop = EBPF_PROG_DROP,
	.ret_walk = EBPF_PROG_WALK,
	.has_ct = has_ct_kmod,
	.prologue = prologue_kmod,
	/* no dispatcher: codegen_dispatcher() refuses CG_KMOD */
};
