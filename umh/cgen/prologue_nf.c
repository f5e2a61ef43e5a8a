// SPDX-License-Identifier: GPL-2.0
/*
 * The NETFILTER flavor (6.4 and later; tested on 6.12): a
 * BPF_PROG_TYPE_NETFILTER program per hook, attached with a netfilter
 * link.  Its prologue reads the packet through struct bpf_nf_ctx: device
 * names and the skb's length and conntrack state through the kernel's
 * structures (offsets from its BTF: struct cg_kernel), the headers in
 * place or through a dynptr.
 */
#include <netinet/in.h>
#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>

#include "cgen/emit.h"

/* struct bpf_nf_ctx (include/net/netfilter/nf_bpf_link.h), not uapi */
#define NF_CTX_STATE	0	/* const struct nf_hook_state * */
#define NF_CTX_SKB	8	/* struct sk_buff * */

/* skb->_nfct: the struct nf_conn pointer | enum ip_conntrack_info */
#define NFCT_INFOMASK	7
/* the ctinfo of an untracked packet (IP_CT_UNTRACKED, not uapi) */
#define NFCT_UNTRACKED	7

/*
 * Zero the bytes after the first NUL of the 16-byte name at fp+@slot:
 * dev->name may keep bytes of an older, longer name there (strscpy does not
 * pad).  Then a whole name is a key: every "-i NAME" rule, whatever the
 * name's length, is in one classifier group.  Rules built by iptables never
 * compare bytes past the NUL of their own name (the mask ends at it), and a
 * device name shorter than the rule's already differs at its own NUL, so
 * linear code gives the same answers on the cleaned name.
 * Branch-free: z = (w - 0x01..) & ~w & 0x80.. has the top bit of the first
 * zero byte as its lowest set bit; keep the bits below it.
 */
static void clean_name(struct cg *c, int slot)
{
	int w;

	EM(c, BPF_MOV64_IMM(R5, -1));	/* word 1 survives: no NUL in word 0 */
	for (w = 0; w < 2; w++) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, slot + 8 * w));
		emit_ld64(c, R3, 0x0101010101010101ULL);
		EM(c, BPF_MOV64_REG(R4, R2));
		EM(c, BPF_ALU64_REG(BPF_SUB, R4, R3));
		EM(c, BPF_MOV64_REG(R3, R2));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R3, -1));
		EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));
		emit_ld64(c, R3, 0x8080808080808080ULL);
		EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));	/* z */
		EM(c, BPF_MOV64_REG(R3, R4));
		EM(c, BPF_NEG64(R3));
		EM(c, BPF_ALU64_REG(BPF_AND, R3, R4));	/* lowest bit of z */
		EM(c, BPF_ALU64_IMM(BPF_SUB, R3, 1));	/* bits below; ~0 if none */
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R5));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, slot + 8 * w));
		if (w == 0) {	/* r5 = z ? 0 : ~0 */
			EM(c, BPF_MOV64_REG(R5, R4));
			EM(c, BPF_NEG64(R5));
			EM(c, BPF_ALU64_REG(BPF_OR, R5, R4));
			EM(c, BPF_ALU64_IMM(BPF_RSH, R5, 63));
			EM(c, BPF_ALU64_IMM(BPF_SUB, R5, 1));
		}
	}
}

/*
 * NETFILTER: pi fields that not every path through prologue_nf() writes
 * (the transport header's, when there is none; names and ct state when no
 * rule needs them) start as 0.  The rest is always written before the
 * rules run.
 */
static void zero_pi_nf(struct cg *c)
{
	static const int slots[] = {
		PI_SPORT, PI_DPORT, PI_TCPFL, PI_ICMPT, PI_ICMPC, PI_CT,
		PI_PL4, PI_PORTS,
	};
	unsigned int i;

	for (i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		EM(c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + slots[i], 0));
	for (i = 0; i < 4 && !c->needs.names; i++)
		EM(c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + PI_IN + 8 * i, 0));
}

/* bpf_dynptr_from_skb(skb (r7), 0, fp + FP_DYNPTR); failing: drop */
static void emit_dynptr_nf(struct cg *c, int drop_exit)
{
	int off;

	for (off = FP_BUF; off < FP_BUF + FP_BUF_SIZE; off += 8)
		EM(c, BPF_ST_MEM(BPF_DW, FP, off, 0));
	EM(c, BPF_MOV64_REG(R1, R7));
	EM(c, BPF_MOV64_IMM(R2, 0));
	EM(c, BPF_MOV64_REG(R3, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_DYNPTR));
	emit_kfunc(c, c->o->k->kf_dynptr_from_skb);
	cg_jmp_imm(c, BPF_JNE, R0, 0, drop_exit);
}

/* The IP header's fields through a new dynptr (thoff -> r8); drop if the
 * kernel gives neither */
static void dynptr_iphdr_nf(struct cg *c, int drop_exit)
{
	emit_dynptr_nf(c, drop_exit);
	EM(c, BPF_MOV64_REG(R1, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R1, FP_DYNPTR));
	EM(c, BPF_MOV64_IMM(R2, 0));
	EM(c, BPF_MOV64_REG(R3, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
	EM(c, BPF_MOV64_IMM(R4, sizeof(struct iphdr)));
	emit_kfunc(c, c->o->k->kf_dynptr_slice);
	cg_jmp_imm(c, BPF_JEQ, R0, 0, drop_exit);
	read_iphdr(c);
}

/*
 * The transport header through the dynptr, with thoff in r8 and l4len in
 * r9: 20 bytes if there are (tcp's flags), else 8, else 4, else none, as
 * the matches' skb_header_pointer() calls each get what they ask for.
 */
static void l4_slices(struct cg *c, int l4_done)
{
	static const int sizes[3] = { L4_TCP_LEN, L4_UDP_LEN, L4_PORTS_LEN };
	int s, miss[3];

	for (s = 0; s < 3; s++)
		miss[s] = s < 2 ? cg_label(c) : l4_done;
	for (s = 0; s < 3; s++) {
		if (s > 0)
			cg_place(c, miss[s - 1]);
		cg_jmp_imm(c, BPF_JLT, R9, sizes[s], miss[s]);
		EM(c, BPF_MOV64_REG(R1, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R1, FP_DYNPTR));
		EM(c, BPF_MOV64_REG(R2, R8));
		EM(c, BPF_MOV64_REG(R3, FP));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, FP_BUF));
		EM(c, BPF_MOV64_IMM(R4, sizes[s]));
		emit_kfunc(c, c->o->k->kf_dynptr_slice);
		cg_jmp_imm(c, BPF_JEQ, R0, 0, l4_done);
		read_l4(c, sizes[s]);
		if (s < 2)	/* no "ja 0" (the verifier removes it) */
			cg_jmp_a(c, l4_done);
	}
}

/*
 * r9 = l4len (skb->len - thoff, r8), then, if the rules read the transport
 * header, go to @l4_done for a fragment (pi.fragoff != 0): none of its
 * bytes are a header.  Returns whether the caller reads the header next.
 */
static bool l4len_and_fragment_test(struct cg *c, int l4_done)
{
	emit_l4len(c, R9, R8, R2);
	if (!c->needs.l4)
		return false;
	EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_FRAGOFF));
	cg_jmp_imm(c, BPF_JNE, R2, 0, l4_done);
	return true;
}

/* The IP and transport headers' fields into pi through a dynptr (kernels
 * without bpf_rdonly_cast(); headers not in the skb's linear data). */
static void headers_nf_dynptr(struct cg *c, int drop_exit)
{
	int l4_done = cg_label(c);

	dynptr_iphdr_nf(c, drop_exit);
	if (l4len_and_fragment_test(c, l4_done))
		l4_slices(c, l4_done);
	cg_place(c, l4_done);
}

/* r0 = bpf_rdonly_cast(skb->data + r8 (or + 0 if !@plus_r8), @btf_id): a
 * pointer the program may read through, each load a fault-safe "probe"
 * load; the verifier turns the call into a move */
static void emit_cast_data(struct cg *c, bool plus_r8, int btf_id)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R1, R7, c->o->k->off_skb_data));
	if (plus_r8)
		EM(c, BPF_ALU64_REG(BPF_ADD, R1, R8));
	EM(c, BPF_MOV64_IMM(R2, btf_id));
	emit_kfunc(c, c->o->k->kf_rdonly_cast);
}

/*
 * The headers read in place: a dynptr costs three kfunc calls per packet,
 * a third of an empty rule set's whole cost.  The bytes a dynptr slice
 * would copy are in the skb's linear data whenever skb->len - data_len
 * covers them (at these hooks the IP header always is: ip_rcv() pulled it,
 * the output path built it), so they are read there, from skb->data as the
 * dynptr's offsets count; anything else takes the dynptr path.
 */
static void headers_nf_direct(struct cg *c, int drop_exit)
{
	const struct cg_kernel *k = c->o->k;
	int slow_ip = cg_label(c), ip_done = cg_label(c);
	int slow_l4 = cg_label(c), l4_done = cg_label(c), tries = -1;
	int want = l4_want(c);

	/* headlen (FP_TMP) = skb->len - skb->data_len */
	EM(c, BPF_LDX_MEM(BPF_W, R2, R7, k->off_skb_len));
	EM(c, BPF_LDX_MEM(BPF_W, R3, R7, k->off_skb_data_len));
	EM(c, BPF_ALU64_REG(BPF_SUB, R2, R3));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, FP_TMP));
	cg_jmp_imm(c, BPF_JLT, R2, sizeof(struct iphdr), slow_ip);
	emit_cast_data(c, false, k->btf_iphdr);
	read_iphdr(c);
	cg_jmp_a(c, ip_done);

	cg_place(c, slow_ip);	/* not linear: all through the dynptr */
	dynptr_iphdr_nf(c, drop_exit);
	if (l4len_and_fragment_test(c, l4_done)) {
		tries = cg_label(c);
		cg_jmp_a(c, tries);
	} else {
		cg_jmp_a(c, l4_done);
	}

	cg_place(c, ip_done);
	if (l4len_and_fragment_test(c, l4_done)) {
		/* all there and linear: read in place */
		cg_jmp_imm(c, BPF_JLT, R9, want, slow_l4);
		EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, FP_TMP));
		EM(c, BPF_MOV64_REG(R3, R8));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, want));
		cg_jmp_reg(c, BPF_JLT, R2, R3, slow_l4);
		emit_cast_data(c, true, k->btf_tcphdr);
		read_l4(c, want);
		cg_jmp_a(c, l4_done);

		cg_place(c, slow_l4);
		emit_dynptr_nf(c, drop_exit);
		cg_place(c, tries);
		l4_slices(c, l4_done);
	}
	cg_place(c, l4_done);
}

/* pi.ct: the packet's conntrack state as IR_CT_* bits (xt_conntrack's
 * state_mask layout), from skb->_nfct and the nf_conn's status */
static void ct_state_nf(struct cg *c)
{
	const struct cg_kernel *k = c->o->k;
	int tracked = cg_label(c), store = cg_label(c);

	/* nf_ct_get(): ctinfo = _nfct & 7, ct = _nfct & ~7 */
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R7, k->off_skb_nfct));
	EM(c, BPF_MOV64_REG(R3, R2));
	EM(c, BPF_ALU64_IMM(BPF_AND, R3, NFCT_INFOMASK));
	EM(c, BPF_ALU64_IMM(BPF_AND, R2, ~NFCT_INFOMASK));
	EM(c, BPF_MOV64_REG(R8, R2));
	cg_jmp_imm(c, BPF_JNE, R2, 0, tracked);
	EM(c, BPF_MOV64_IMM(R9, IR_CT_INVALID));
	cg_jmp_imm(c, BPF_JNE, R3, NFCT_UNTRACKED, store);
	EM(c, BPF_MOV64_IMM(R9, IR_CT_UNTRACKED));
	cg_jmp_a(c, store);
	cg_place(c, tracked);
	/* XT_CONNTRACK_STATE_BIT(ctinfo) = 1 << (ctinfo % 3 + 1) */
	EM(c, BPF_ALU64_IMM(BPF_MOD, R3, IP_CT_IS_REPLY));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, 1));
	EM(c, BPF_MOV64_IMM(R9, 1));
	EM(c, BPF_ALU64_REG(BPF_LSH, R9, R3));
	/* ct->status, 8 bytes to FP_TMP */
	EM(c, BPF_MOV64_REG(R1, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R1, FP_TMP));
	EM(c, BPF_MOV64_IMM(R2, 8));
	EM(c, BPF_MOV64_REG(R3, R8));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, k->off_ct_status));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, FP_TMP));
	EM(c, BPF_MOV64_REG(R3, R2));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R3, IPS_SRC_NAT_BIT));
	EM(c, BPF_ALU64_IMM(BPF_AND, R3, 1));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R3, __builtin_ctz(IR_CT_SNAT)));
	EM(c, BPF_ALU64_REG(BPF_OR, R9, R3));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, IPS_DST_NAT_BIT));
	EM(c, BPF_ALU64_IMM(BPF_AND, R2, 1));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R2, __builtin_ctz(IR_CT_DNAT)));
	EM(c, BPF_ALU64_REG(BPF_OR, R9, R2));
	cg_place(c, store);
	EM(c, BPF_STX_MEM(BPF_DW, FP, R9, PI_BASE + PI_CT));
}

/* NETFILTER: r1 = struct bpf_nf_ctx { state; skb; } */
static void prologue_nf(struct cg *c, int drop_exit,
			int pass_exit CG_UNUSED)
{
	const struct cg_kernel *k = c->o->k;
	int s;

	/* each ctx load costs the verifier a search of the kernel's BTF
	 * (nf_ptr_to_btf_id()): state only where the names are read */
	if (c->needs.names)
		EM(c, BPF_LDX_MEM(BPF_DW, R6, R1, NF_CTX_STATE));
	EM(c, BPF_LDX_MEM(BPF_DW, R7, R1, NF_CTX_SKB));
	if (c->needs.cond)
		zero_pi_nf(c);
	/* the counters need the length; pi.zero = -(len >> 31), 0 (an skb
	 * is < 2 GiB) but, as 0 or ~0, no range the verifier can use (see
	 * "no dead code" in abi.h) */
	EM(c, BPF_LDX_MEM(BPF_W, R2, R7, k->off_skb_len));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_LEN));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, 31));
	EM(c, BPF_NEG64(R2));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ZERO));
	if (!c->needs.cond)
		return;		/* no rule tests anything */

	/* device names: 16 raw bytes of dev->name, zeros without a device;
	 * plain loads through the BTF pointers (the verifier allows 8-byte
	 * reads inside a char array; a helper call per name cost more than
	 * all the rest of a small program).  First, before the prologue
	 * branches: each BTF pointer walk costs the verifier a search of the
	 * kernel's BTF, once per path that reaches it. */
	if (c->needs.names && k->direct) {
		/* state as an untrusted pointer: walking a trusted one makes
		 * the verifier look its fields up in the kernel's BTF by name
		 * ("nf_hook_state__safe_trusted", ...), a scan of every type
		 * each time, milliseconds per load; the names are read with
		 * probe loads either way */
		EM(c, BPF_MOV64_REG(R1, R6));
		EM(c, BPF_MOV64_IMM(R2, k->btf_nf_hook_state));
		emit_kfunc(c, k->kf_rdonly_cast);
		EM(c, BPF_MOV64_REG(R6, R0));
	}
	for (s = 0; s < 2 && c->needs.names; s++) {
		int slot = PI_BASE + (s ? PI_OUT : PI_IN);

		EM(c, BPF_LDX_MEM(BPF_DW, R3, R6,
				  s ? k->off_state_out : k->off_state_in));
		/* no NULL test (a branch would double the paths after it):
		 * a BTF load through NULL is a probed load and reads 0 */
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R3, k->off_dev_name));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, slot));
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R3, k->off_dev_name + 8));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, slot + 8));
		clean_name(c, slot);
	}

	if (k->direct)
		headers_nf_direct(c, drop_exit);
	else
		headers_nf_dynptr(c, drop_exit);
	compute_flags(c);
	if (c->needs.cls)
		compute_cls_fields(c);

	if (c->ir->uses_ct)
		ct_state_nf(c);
}

static bool has_ct_nf(const struct cg_opts *o)
{
	return o->k && o->k->off_skb_nfct >= 0 && o->k->off_ct_status >= 0;
}

/* one dispatcher per netfilter hook: the hook is its own */
static void dispatch_nf(struct cg *c, int pass CG_UNUSED)
{
	EM(c, BPF_MOV64_IMM(R7, c->o->hook));
}

const struct cg_flavor_ops cg_flavor_nf = {
	.name = "netfilter",
	.prog_type = BPF_PROG_TYPE_NETFILTER,
	.expected_attach_type = BPF_NETFILTER,
	.ret_accept = NF_ACCEPT,
	.ret_drop = NF_DROP,
	.has_ct = has_ct_nf,
	.prologue = prologue_nf,
	.dispatch = dispatch_nf,
};
