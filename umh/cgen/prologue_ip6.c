// SPDX-License-Identifier: GPL-2.0
/*
 * An IPv6 packet's fields for the KMOD prologue (prologue_kmod.c): the
 * addresses, and the transport header found as ip6_packet_match() finds
 * it with ipv6_find_hdr(skb, &thoff, -1, &fragoff, NULL)
 * (net/ipv6/exthdrs_core.c):
 *
 *  - hop-by-hop (0), routing (43), destination options (60): skipped,
 *    (hdrlen + 1) * 8 bytes; AH (51): (hdrlen + 2) * 4 bytes;
 *  - fragment (44) with a zero offset: skipped, 8 bytes; with a non-zero
 *    one, the fragment header's next header is the protocol, the
 *    fragment offset (in bytes) is fragoff, and thoff stays 0, unless
 *    that next header is an extension header other than "no next
 *    header" (59): then the search fails (-ENOENT);
 *  - anything else, 59 included, is the protocol, at thoff.
 *
 * The walk is unrolled CG_IP6_MAX_EXT times (no loops for the verifier).
 * Every packet the program cannot decide exactly goes to the module's
 * walk of the whole hook (c->walk_all, the hook's entry, no rule
 * counted): more extension headers than that, fewer than 4 bytes left
 * where one starts (the kernel reads 2 of a hop-by-hop header, 4 of a
 * routing or fragment one: below 4 the program does not tell them
 * apart), and a failed search, on which ip6_tables drops the packet at
 * the first rule with IP6T_F_PROTO its addresses and interfaces reach.
 * So the rules never see a packet whose search failed, and a rule's
 * "-p" tests pi.proto only.
 */
#include <stddef.h>
#include <linux/bpf.h>

#include <ebpfilter/ctl.h>

#include "cgen/emit.h"

#define NH_HOP		0
#define NH_ROUTING	43
#define NH_FRAGMENT	44
#define NH_AUTH		51
#define NH_NONE		59
#define NH_DEST		60
#define IP6_HLEN	40
#define IP6_NEXTHDR	6	/* offset in the IPv6 header */
#define IP6_ADDRS	8	/* saddr, then daddr */
#define FRAG_OFF_MASK	0xfff8	/* ntohs(frag_off) & ~0x7 */
#define CB_SPARE	(offsetof(struct __sk_buff, cb) + 4 * EBPF_CB_L2LEN)

/* skb_load_bytes(skb (r6), @off_reg or @off, fp + @fp_off, @n), to
 * @fail unless it read them all */
static void load(struct cg *c, int off_reg, int off, int fp_off, int n,
		 int fail)
{
	EM(c, BPF_MOV64_REG(R1, R6));
	if (off_reg >= 0)
		EM(c, BPF_MOV64_REG(R2, off_reg));
	else
		EM(c, BPF_MOV64_IMM(R2, off));
	EM(c, BPF_MOV64_REG(R3, FP));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R3, fp_off));
	EM(c, BPF_MOV64_IMM(R4, n));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_skb_load_bytes));
	cg_jmp_imm(c, BPF_JNE, R0, 0, fail);
}

/*
 * To @yes if @reg is ipv6_ext_hdr() but not NH_NONE; clobbers r0.  A bit
 * of a mask, not one test per header: each "jeq reg, 43" would hand the
 * verifier a state with reg a constant, and the tests of the header that
 * follow would make it precise, so each header of each round of the walk
 * was verified apart (6.12: five times the walk's states).
 */
static void jmp_if_ext(struct cg *c, int reg, int yes)
{
	int no = cg_label(c);

	/* not reg > 63: that would narrow reg's range on each side */
	EM(c, BPF_MOV64_REG(R0, reg));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R0, 6));
	cg_jmp_imm(c, BPF_JNE, R0, 0, no);
	emit_ld64(c, R0, 1ull << NH_HOP | 1ull << NH_ROUTING |
		  1ull << NH_FRAGMENT | 1ull << NH_AUTH | 1ull << NH_DEST);
	EM(c, BPF_ALU64_REG(BPF_RSH, R0, reg));
	EM(c, BPF_ALU64_IMM(BPF_AND, R0, 1));
	cg_jmp_imm(c, BPF_JNE, R0, 0, yes);
	cg_place(c, no);
}

/*
 * r6 = the __sk_buff (skb->data the IPv6 header, as at every IPv6
 * hook).  Fills pi's addresses, proto, fragoff, l4len and the transport
 * fields; clobbers r0-r5, r7-r9.
 */
void skb_ip6_headers(struct cg *c)
{
	int done = cg_label(c), frag_done = cg_label(c), k;

	if (c->walk_all < 0)
		c->walk_all = cg_label(c);
	load(c, -1, IP6_ADDRS, PI_BASE + PI6_SADDR, 32, c->walk_all);
	load(c, -1, 0, FP_TMP, 8, c->walk_all);
	EM(c, BPF_LDX_MEM(BPF_B, R9, FP, FP_TMP + IP6_NEXTHDR));
	EM(c, BPF_MOV64_IMM(R8, IP6_HLEN));	/* start */
	for (k = 0; k < CG_IP6_MAX_EXT; k++) {
		int ext = cg_label(c), frag = cg_label(c), auth = cg_label(c);
		int first = cg_label(c), adv = cg_label(c);

		/* r9: the next header; r8: where it starts */
		jmp_if_ext(c, R9, ext);
		cg_jmp_a(c, done);	/* the protocol (59 included) */
		cg_place(c, ext);
		load(c, R8, 0, FP_TMP, 4, c->walk_all);
		EM(c, BPF_LDX_MEM(BPF_B, R2, FP, FP_TMP));	/* nexthdr */
		EM(c, BPF_LDX_MEM(BPF_B, R3, FP, FP_TMP + 1));	/* hdrlen */
		cg_jmp_imm(c, BPF_JEQ, R9, NH_FRAGMENT, frag);
		cg_jmp_imm(c, BPF_JEQ, R9, NH_AUTH, auth);
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, 1));	/* ipv6_optlen() */
		EM(c, BPF_ALU64_IMM(BPF_LSH, R3, 3));
		cg_jmp_a(c, adv);
		cg_place(c, auth);
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, 2));	/* ipv6_authlen() */
		EM(c, BPF_ALU64_IMM(BPF_LSH, R3, 2));
		cg_jmp_a(c, adv);
		cg_place(c, frag);
		EM(c, BPF_LDX_MEM(BPF_H, R4, FP, FP_TMP + 2));
		EM(c, BPF_ENDIAN_BE(R4, 16));
		EM(c, BPF_ALU64_IMM(BPF_AND, R4, FRAG_OFF_MASK));
		cg_jmp_imm(c, BPF_JEQ, R4, 0, first);
		/* not the first fragment: -ENOENT (ip6_tables drops) if
		 * another extension header follows, else its protocol with
		 * thoff 0 */
		jmp_if_ext(c, R2, c->walk_all);
		EM(c, BPF_STX_MEM(BPF_DW, FP, R4, PI_BASE + PI_FRAGOFF));
		EM(c, BPF_MOV64_REG(R9, R2));
		EM(c, BPF_MOV64_IMM(R8, 0));
		cg_jmp_a(c, frag_done);
		cg_place(c, first);
		EM(c, BPF_MOV64_IMM(R3, 8));
		cg_place(c, adv);
		EM(c, BPF_ALU64_REG(BPF_ADD, R8, R3));
		EM(c, BPF_MOV64_REG(R9, R2));
	}
	/* CG_IP6_MAX_EXT headers followed: a protocol now, or more
	 * headers than the program follows */
	jmp_if_ext(c, R9, c->walk_all);
	cg_place(c, done);
	cg_place(c, frag_done);
	/*
	 * thoff through the context: the verifier tracks no value through
	 * skb->cb, so every path of the walk (each number and kind of
	 * headers gives r8 another range) reaches the rest of the program
	 * with the same unknown thoff, and the rest is verified once, not
	 * once per path: the transport header's copy adds r8 to a packet
	 * pointer, which made it part of every state after the walk (6.12,
	 * an INPUT program of 7 rules: 3,280 instructions processed, 253
	 * states; IPv4's 922 and 30; thoff's pass alone took it to 1,954,
	 * the mask above to 1,580).  fragoff, 0 on every path but one, is
	 * left as it is: its pass saved 8 instructions processed, at 4 run
	 * on every packet.  cb[EBPF_CB_L2LEN] is 0 at every KMOD hook and
	 * read by no one; the module restores skb->cb after the program.
	 */
	EM(c, BPF_STX_MEM(BPF_W, R6, R8, CB_SPARE));
	EM(c, BPF_LDX_MEM(BPF_W, R8, R6, CB_SPARE));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R9, PI_BASE + PI_PROTO));
	emit_l4len(c, R7, R8, R2);	/* r7 = skb->len - thoff, >= 0 */
	skb_read_l4(c);		/* none on a later fragment (pi.fragoff) */
}
