// SPDX-License-Identifier: GPL-2.0
/*
 * The TC flavor (kernels without BPF_PROG_TYPE_NETFILTER; tested on 6.1):
 * SCHED_CLS programs on every interface's clsact ingress and egress.  The
 * ingress dispatcher decides INPUT or FORWARD with a FIB lookup, egress is
 * OUTPUT for locally generated packets only; the table programs read the
 * headers from the skb (direct access or skb_load_bytes()) and the device
 * names from the ifinfo map (struct cg_ifinfo) the helper keeps.
 * Packets the filter hooks never see (not IPv4, discarded by ip_rcv())
 * pass unfiltered.
 */
#include <stddef.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>

#include "cgen/emit.h"

/* main's stack in the ingress dispatcher: struct bpf_fib_lookup */
#define FP_FIB		(-128)

void skb_zero_pi(struct cg *c)
{
	int off;

	for (off = 0; off < PI_SIZE; off += 8)
		EM(c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + off, 0));
	for (off = FP_BUF; off < FP_BUF + FP_BUF_SIZE; off += 8)
		EM(c, BPF_ST_MEM(BPF_DW, FP, off, 0));
}

/* look up struct cg_ifinfo for the ifindex in r2 (scalar); copy the name
 * to pi[@name_slot] if @name_slot >= 0; l2len -> r8 (default ETH_HLEN) */
void skb_ifinfo(struct cg *c, int name_slot, bool want_l2)
{
	int miss = cg_label(c);

	EM(c, BPF_STX_MEM(BPF_W, FP, R2, FP_TMP));
	if (want_l2)
		EM(c, BPF_MOV64_IMM(R8, ETH_HLEN));
	emit_ld_map(c, R1, cg_shared_map(c, CG_MAP_IFINFO));
	EM(c, BPF_MOV64_REG(R2, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, FP_TMP));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	cg_jmp_imm(c, BPF_JEQ, R0, 0, miss);
	if (want_l2)
		EM(c, BPF_LDX_MEM(BPF_W, R8, R0,
				  offsetof(struct cg_ifinfo, l2len)));
	if (name_slot >= 0) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R0, offsetof(struct cg_ifinfo, name)));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + name_slot));
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R0,
				  offsetof(struct cg_ifinfo, name) + 8));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + name_slot + 8));
	}
	cg_place(c, miss);
}

/*
 * Copy @n bytes (a multiple of 4) at packet offset @off_reg (bounded,
 * see callers) from the skb's linear data to FP_BUF, or jump to @slow if
 * they are not all there (then skb_load_bytes() gets them).  A helper call
 * per header cost more than a whole empty rule set's program.
 */
void skb_copy_linear(struct cg *c, int off_reg, int n, int slow)
{
	int i;

	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, data)));
	EM(c, BPF_LDX_MEM(BPF_W, R3, R6, offsetof(struct __sk_buff, data_end)));
	EM(c, BPF_ALU64_REG(BPF_ADD, R2, off_reg));
	EM(c, BPF_MOV64_REG(R4, R2));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R4, n));
	cg_jmp_reg(c, BPF_JGT, R4, R3, slow);
	for (i = 0; i < n; i += 4) {
		EM(c, BPF_LDX_MEM(BPF_W, R4, R2, i));
		EM(c, BPF_STX_MEM(BPF_W, FP, R4, FP_BUF + i));
	}
}

/* The IP header at packet offset l2len (r8) to FP_BUF, from the linear
 * data or with skb_load_bytes(); to @fail if there is none.  @l2_known:
 * r8 is a constant (KMOD: 0), no bound to test (the verifier would find
 * the test always false: dead code) */
void skb_load_iphdr(struct cg *c, int fail, bool l2_known)
{
	int slow = cg_label(c), done = cg_label(c);

	/* l2len bounded for the verifier: no link layer header is that long */
	if (!l2_known)
		cg_jmp_imm(c, BPF_JGT, R8, 255, slow);
	skb_copy_linear(c, R8, sizeof(struct iphdr), slow);
	cg_jmp_a(c, done);
	cg_place(c, slow);
	EM(c, BPF_MOV64_REG(R1, R6));
	EM(c, BPF_MOV64_REG(R2, R8));
	EM(c, BPF_MOV64_REG(R3, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
	EM(c, BPF_MOV64_IMM(R4, sizeof(struct iphdr)));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes));
	cg_jmp_imm(c, BPF_JNE, R0, 0, fail);
	cg_place(c, done);
}

/*
 * The IP header's fields from FP_BUF into pi (read_iphdr(): r8 = thoff),
 * and r7 = pi.l4len = pi.len - thoff, at least 0: the bytes the transport
 * header may span (TC: tot_len; KMOD: skb->len, as ip_tables sees it).
 */
void skb_read_iphdr(struct cg *c)
{
	EM(c, BPF_MOV64_REG(R0, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R0, FP_BUF));
	read_iphdr(c);
	emit_l4len(c, R7, R8, R2);
}

/*
 * The transport header fields the hook's rules test into pi: r6 = the
 * __sk_buff, r7 = the bytes from the transport header to the end of the
 * packet (l4len), r8 = its offset in the packet.  From the linear data
 * when it holds all the matches read, else with skb_load_bytes() of the
 * largest size there is (a short header leaves the fields 0).
 */
void skb_read_l4(struct cg *c)
{
	static const int sizes[3] = { L4_TCP_LEN, L4_UDP_LEN, L4_PORTS_LEN };
	int l4_done = cg_label(c), try8 = cg_label(c), try4 = cg_label(c);
	int s;

	if (c->needs.l4) {
		int want = l4_want(c), l4_slow = cg_label(c);

		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_FRAGOFF));
		cg_jmp_imm(c, BPF_JNE, R2, 0, l4_done);
		/* the most any match reads there and linear: copied */
		cg_jmp_imm(c, BPF_JLT, R7, want, l4_slow);
		cg_jmp_imm(c, BPF_JGT, R8, 1024, l4_slow);	/* bounded */
		skb_copy_linear(c, R8, want, l4_slow);
		EM(c, BPF_MOV64_REG(R0, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R0, FP_BUF));
		read_l4(c, want);
		cg_jmp_a(c, l4_done);
		cg_place(c, l4_slow);
	}
	for (s = 0; s < 3 && c->needs.l4; s++) {
		int miss = s == 0 ? try8 : s == 1 ? try4 : l4_done;

		if (s == 1)
			cg_place(c, try8);
		if (s == 2)
			cg_place(c, try4);
		cg_jmp_imm(c, BPF_JLT, R7, sizes[s], miss);
		EM(c, BPF_MOV64_REG(R1, R6));
		EM(c, BPF_MOV64_REG(R2, R8));
		EM(c, BPF_MOV64_REG(R3, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
		EM(c, BPF_MOV64_IMM(R4, sizes[s]));
		EM(c, BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes));
		cg_jmp_imm(c, BPF_JNE, R0, 0, l4_done);
		EM(c, BPF_MOV64_REG(R0, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R0, FP_BUF));
		read_l4(c, sizes[s]);
		if (s < 2)	/* no "ja 0" (the verifier removes it) */
			cg_jmp_a(c, l4_done);
	}
	cg_place(c, l4_done);
}

/* TC: r1 = struct __sk_buff.  Non-IPv4 and packets the IP layer would
 * discard before any hook (bad version/ihl/length) exit with @pass_exit. */
static void prologue_tc(struct cg *c, int drop_exit CG_UNUSED, int pass_exit)
{
	EM(c, BPF_MOV64_REG(R6, R1));
	skb_zero_pi(c);
	/* pi.zero: see prologue_nf */
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, len)));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 31));
	EM(c, BPF_NEG64(R2));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ZERO));
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, protocol)));
	cg_jmp_imm(c, BPF_JNE, R2, htons(ETH_P_IP), pass_exit);

	if (c->o->hook == CG_OUTPUT) {
		EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
				  offsetof(struct __sk_buff, ifindex)));
		skb_ifinfo(c, PI_OUT, true);
	} else {
		/* the dispatcher found l2len (cb[1]) and, for FORWARD, the
		 * output device (cb[0]); each name only if a rule tests it */
		if (c->needs.in_name) {
			EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
					  offsetof(struct __sk_buff, ifindex)));
			skb_ifinfo(c, PI_IN, false);
		}
		if (c->needs.out_name && c->o->hook == CG_FORWARD) {
			EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
					  offsetof(struct __sk_buff, cb[0])));
			skb_ifinfo(c, PI_OUT, false);
		}
		EM(c, BPF_LDX_MEM(BPF_W, R8, R6,
				  offsetof(struct __sk_buff, cb[1])));
	}
	skb_load_iphdr(c, pass_exit, false);	/* r8 = l2len */
	/* version 4, ihl >= 5 */
	EM(c, BPF_LDX_MEM(BPF_B, R2, FP, FP_BUF));
	EM(c, BPF_MOV64_REG(R3, R2));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R3, 4));
	cg_jmp_imm(c, BPF_JNE, R3, 4, pass_exit);
	EM(c, BPF_ALU64_IMM(BPF_AND, R2, 0xf));
	cg_jmp_imm(c, BPF_JLT, R2, 5, pass_exit);
	/* tot_len: the bytes ip_tables counts (ip_rcv trims to it) */
	EM(c, BPF_LDX_MEM(BPF_H, R2, FP,
			  FP_BUF + (int)offsetof(struct iphdr, tot_len)));
	EM(c, BPF_ENDIAN_BE(R2, 16));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_LEN));
	EM(c, BPF_MOV64_REG(R9, R8));	/* r9 = l2len */
	skb_read_iphdr(c);		/* r8 = thoff, r7 = tot_len - thoff */
	EM(c, BPF_ALU64_REG(BPF_ADD, R8, R9));	/* r8 = l2len + thoff */

	skb_read_l4(c);
	if (c->needs.cond) {
		compute_flags(c);
		if (c->needs.cls)
			compute_cls_fields(c);
	}
}

/*
 * Ingress: which of INPUT and FORWARD the packet would go through, by a
 * FIB lookup as ip_route_input() would decide it.  l2len into cb[1] and,
 * for FORWARD, the output ifindex into cb[0] for the table program.
 */
static void dispatch_tc_ingress(struct cg *c, int pass, int tail)
{
	int input = cg_label(c), fwd = cg_label(c);
	int off;

	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, ifindex)));
	skb_ifinfo(c, -1, true);	/* r8 = l2len */
	EM(c, BPF_STX_MEM(BPF_W, R6, R8, offsetof(struct __sk_buff, cb[1])));
	skb_load_iphdr(c, pass, false);
	for (off = 0; off < (int)sizeof(struct bpf_fib_lookup); off += 8)
		EM(c, BPF_ST_MEM(BPF_DW, FP, FP_FIB + off, 0));
	EM(c, BPF_ST_MEM(BPF_B, FP,
			 FP_FIB + (int)offsetof(struct bpf_fib_lookup, family),
			 AF_INET));
	EM(c, BPF_LDX_MEM(BPF_B, R2, FP,
			  FP_BUF + (int)offsetof(struct iphdr, protocol)));
	EM(c, BPF_STX_MEM(BPF_B, FP, R2,
			  FP_FIB + (int)offsetof(struct bpf_fib_lookup, l4_protocol)));
	EM(c, BPF_LDX_MEM(BPF_B, R2, FP, FP_BUF + (int)offsetof(struct iphdr, tos)));
	EM(c, BPF_STX_MEM(BPF_B, FP, R2,
			  FP_FIB + (int)offsetof(struct bpf_fib_lookup, tos)));
	EM(c, BPF_LDX_MEM(BPF_W, R2, FP, FP_BUF + (int)offsetof(struct iphdr, saddr)));
	EM(c, BPF_STX_MEM(BPF_W, FP, R2,
			  FP_FIB + (int)offsetof(struct bpf_fib_lookup, ipv4_src)));
	EM(c, BPF_LDX_MEM(BPF_W, R2, FP, FP_BUF + (int)offsetof(struct iphdr, daddr)));
	EM(c, BPF_STX_MEM(BPF_W, FP, R2,
			  FP_FIB + (int)offsetof(struct bpf_fib_lookup, ipv4_dst)));
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
			  offsetof(struct __sk_buff, ingress_ifindex)));
	EM(c, BPF_STX_MEM(BPF_W, FP, R2,
			  FP_FIB + (int)offsetof(struct bpf_fib_lookup, ifindex)));
	EM(c, BPF_MOV64_REG(R1, R6));
	EM(c, BPF_MOV64_REG(R2, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, FP_FIB));
	EM(c, BPF_MOV64_IMM(R3, sizeof(struct bpf_fib_lookup)));
	EM(c, BPF_MOV64_IMM(R4, 0));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_fib_lookup));
	/* local delivery (or forwarding off): INPUT */
	cg_jmp_imm(c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_NOT_FWDED, input);
	cg_jmp_imm(c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_FWD_DISABLED, input);
	cg_jmp_imm(c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_SUCCESS, fwd);
	cg_jmp_imm(c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_NO_NEIGH, fwd);
	cg_jmp_imm(c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_UNSUPP_LWT, fwd);
	cg_jmp_imm(c, BPF_JEQ, R0, BPF_FIB_LKUP_RET_FRAG_NEEDED, fwd);
	/* blackhole/unreachable/prohibit: the kernel drops it before any
	 * filter hook */
	cg_jmp_a(c, pass);
	cg_place(c, fwd);
	/* the output device, as the lookup put it in ifindex */
	EM(c, BPF_LDX_MEM(BPF_W, R2, FP,
			  FP_FIB + (int)offsetof(struct bpf_fib_lookup, ifindex)));
	EM(c, BPF_STX_MEM(BPF_W, R6, R2, offsetof(struct __sk_buff, cb[0])));
	EM(c, BPF_MOV64_IMM(R7, CG_FORWARD));
	cg_jmp_a(c, tail);
	cg_place(c, input);
	EM(c, BPF_MOV64_IMM(R7, CG_INPUT));
}

/* r7 = the hook whose table program runs (CG_INPUT: the ingress
 * dispatcher, CG_OUTPUT: egress); to @pass if none */
static void dispatch_tc(struct cg *c, int pass)
{
	int tail = cg_label(c);

	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, offsetof(struct __sk_buff, protocol)));
	cg_jmp_imm(c, BPF_JNE, R2, htons(ETH_P_IP), pass);
	if (c->o->hook == CG_OUTPUT) {
		/* only locally generated packets (no input device);
		 * forwarded ones were filtered at ingress */
		EM(c, BPF_LDX_MEM(BPF_W, R2, R6,
				  offsetof(struct __sk_buff, ingress_ifindex)));
		cg_jmp_imm(c, BPF_JNE, R2, 0, pass);
		EM(c, BPF_MOV64_IMM(R7, CG_OUTPUT));
		cg_jmp_a(c, tail);
	} else {
		dispatch_tc_ingress(c, pass, tail);
	}
	cg_place(c, tail);
}

static bool has_ct_tc(const struct cg_opts *o CG_UNUSED)
{
	return false;	/* no conntrack state at tc ingress */
}

const struct cg_flavor_ops cg_flavor_tc = {
	.name = "tc",
	.prog_type = BPF_PROG_TYPE_SCHED_CLS,
	.ret_accept = TC_ACT_UNSPEC,	/* the stack goes on */
	.ret_drop = TC_ACT_SHOT,
	.passes = true,
	.has_ct = has_ct_tc,
	.prologue = prologue_tc,
	.dispatch = dispatch_tc,
};
