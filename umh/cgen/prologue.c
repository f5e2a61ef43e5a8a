// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of main's prologue both flavors share (prologue_nf.c,
 * prologue_tc.c): the IP and transport header fields into pi, and the
 * flags derived from them.
 */
#include <stddef.h>
#include <netinet/in.h>
#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>

#include "cgen/classify.h"
#include "cgen/emit.h"

/* the fragment offset bits of iphdr.frag_off (host order) */
#define IP_FRAG_OFFSET	0x1fff
/* the byte of the tcp header holding the flags (FIN .. CWR) */
#define TCP_FLAGS_BYTE	13

/* Fields of the IP header at r0 (20 bytes readable); thoff -> r8 */
void read_iphdr(struct cg *c)
{
	EM(c, BPF_LDX_MEM(BPF_W, R2, R0, offsetof(struct iphdr, saddr)));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_SADDR));
	EM(c, BPF_ENDIAN_BE(R2, 32));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_SADDR_H));
	EM(c, BPF_LDX_MEM(BPF_W, R2, R0, offsetof(struct iphdr, daddr)));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_DADDR));
	EM(c, BPF_ENDIAN_BE(R2, 32));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_DADDR_H));
	EM(c, BPF_LDX_MEM(BPF_B, R2, R0, offsetof(struct iphdr, protocol)));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_PROTO));
	EM(c, BPF_LDX_MEM(BPF_H, R2, R0, offsetof(struct iphdr, frag_off)));
	EM(c, BPF_ENDIAN_BE(R2, 16));
	EM(c, BPF_ALU64_IMM(BPF_AND, R2, IP_FRAG_OFFSET));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_FRAGOFF));
	EM(c, BPF_LDX_MEM(BPF_B, R8, R0, 0));	/* version, ihl */
	EM(c, BPF_ALU64_IMM(BPF_AND, R8, 0xf));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R8, 2));	/* ihl * 4 */
}

/* Fields of a transport header at r0 with @n bytes readable: those the
 * hook's rules test (the others stay 0); tcp's and udp's ports lie where
 * multiport reads them */
void read_l4(struct cg *c, int n)
{
	if (c->needs.fields & NEED_F_PORTS) {
		EM(c, BPF_LDX_MEM(BPF_H, R2, R0, offsetof(struct udphdr, source)));
		EM(c, BPF_ENDIAN_BE(R2, 16));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_SPORT));
		EM(c, BPF_LDX_MEM(BPF_H, R2, R0, offsetof(struct udphdr, dest)));
		EM(c, BPF_ENDIAN_BE(R2, 16));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_DPORT));
	}
	if (c->needs.fields & NEED_F_ICMP) {
		EM(c, BPF_LDX_MEM(BPF_B, R2, R0, offsetof(struct icmphdr, type)));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ICMPT));
		EM(c, BPF_LDX_MEM(BPF_B, R2, R0, offsetof(struct icmphdr, code)));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_ICMPC));
	}
	if (n >= L4_TCP_LEN && (c->needs.fields & NEED_F_TCPFL)) {
		EM(c, BPF_LDX_MEM(BPF_B, R2, R0, TCP_FLAGS_BYTE));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + PI_TCPFL));
	}
}

/*
 * @reg = pi.l4len = pi.len - @thoff, at least 0: the bytes the transport
 * header may span.  Stored through @tmp, not a copy of @reg the verifier
 * links to it: the transport header's read then tests @reg against each
 * header size, and a linked copy would take each test's range: the flags
 * computed from it below would be constants, another on each way through
 * the read, which the rules' tests make precise, so the flags and the
 * rules after them were verified once per way (6.12, a 7-rule INPUT
 * program: 922 instructions processed, 687 with the copy unlinked).
 */
void emit_l4len(struct cg *c, int reg, int thoff, int tmp)
{
	EM(c, BPF_LDX_MEM(BPF_DW, reg, FP, PI_BASE + PI_LEN));
	EM(c, BPF_ALU64_REG(BPF_SUB, reg, thoff));
	EM(c, BPF_JMP_IMM(BPF_JSGE, reg, 0, 1));
	EM(c, BPF_MOV64_IMM(reg, 0));
	EM(c, BPF_MOV64_REG(tmp, reg));
	EM(c, BPF_ALU64_IMM(BPF_OR, tmp, 0));	/* a new value: no link */
	EM(c, BPF_STX_MEM(BPF_DW, FP, tmp, PI_BASE + PI_L4LEN));
}

/* From PI_FRAGOFF and PI_L4LEN: FRAGNZ, BAD*, HD* (see xt_tcpudp.c:
 * a fragment is never matched, fragoff 1 with tcp and a missing header at
 * offset 0 drop the packet). */
void compute_flags(struct cg *c)
{
	static const int need[3] = { L4_TCP_LEN, L4_UDP_LEN, L4_PORTS_LEN };
	static const int bad[3] = { PI_BAD20, PI_BAD8, PI_BAD4 };
	static const int hd[3] = { PI_HD20, PI_HD8, PI_HD4 };
	int k;

	EM(c, BPF_LDX_MEM(BPF_DW, R3, FP, PI_BASE + PI_FRAGOFF));
	emit_norm(c, R3, R5);
	EM(c, BPF_STX_MEM(BPF_DW, FP, R3, PI_BASE + PI_FRAGNZ));
	for (k = 0; k < 3; k++) {
		if (!(c->needs.hdr & (1 << k)))	/* NEED_HDR20, 8, 4 */
			continue;
		EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_L4LEN));
		EM(c, BPF_ALU64_IMM(BPF_SUB, R4, need[k]));
		EM(c, BPF_ALU64_IMM(BPF_RSH, R4, 63));	/* l4len < need */
		EM(c, BPF_MOV64_REG(R2, R4));
		EM(c, BPF_ALU64_REG(BPF_OR, R2, R3));
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + bad[k]));
		EM(c, BPF_MOV64_REG(R2, R3));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R4));
		if (k == 0) {	/* tcp: fragoff == 1 */
			EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_FRAGOFF));
			EM(c, BPF_ALU64_IMM(BPF_XOR, R4, 1));
			emit_norm(c, R4, R5);
			EM(c, BPF_ALU64_IMM(BPF_XOR, R4, 1));
			EM(c, BPF_ALU64_REG(BPF_OR, R2, R4));
		}
		EM(c, BPF_STX_MEM(BPF_DW, FP, R2, PI_BASE + hd[k]));
	}
}

/* PI_PL4 and PI_PORTS, the classifier's view of the transport header
 * (classify.h): l4state from the tcp (20 bytes) or udp (8 bytes) flags. */
void compute_cls_fields(struct cg *c)
{
	int udp = cg_label(c), have = cg_label(c), store = cg_label(c);

	EM(c, BPF_MOV64_IMM(R3, 0));	/* l4state */
	EM(c, BPF_LDX_MEM(BPF_DW, R2, FP, PI_BASE + PI_PROTO));
	cg_jmp_imm(c, BPF_JNE, R2, IPPROTO_TCP, udp);
	EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_BAD20));
	EM(c, BPF_LDX_MEM(BPF_DW, R5, FP, PI_BASE + PI_HD20));
	cg_jmp_a(c, have);
	cg_place(c, udp);
	cg_jmp_imm(c, BPF_JNE, R2, IPPROTO_UDP, store);
	EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_BAD8));
	EM(c, BPF_LDX_MEM(BPF_DW, R5, FP, PI_BASE + PI_HD8));
	cg_place(c, have);
	/* l4state = 1 - bad + 2 * hotdrop (hotdrop implies bad) */
	EM(c, BPF_MOV64_IMM(R3, 1));
	EM(c, BPF_ALU64_REG(BPF_SUB, R3, R4));
	EM(c, BPF_ALU64_REG(BPF_ADD, R3, R5));
	EM(c, BPF_ALU64_REG(BPF_ADD, R3, R5));
	cg_place(c, store);
	EM(c, BPF_MOV64_REG(R4, R3));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R4, 8));
	EM(c, BPF_ALU64_REG(BPF_OR, R4, R2));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R4, PI_BASE + PI_PL4));
	/* ports, or 0 unless l4state is 1 */
	EM(c, BPF_LDX_MEM(BPF_DW, R4, FP, PI_BASE + PI_SPORT));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R4, 16));
	EM(c, BPF_LDX_MEM(BPF_DW, R5, FP, PI_BASE + PI_DPORT));
	EM(c, BPF_ALU64_REG(BPF_OR, R4, R5));
	EM(c, BPF_ALU64_IMM(BPF_AND, R3, 1));
	EM(c, BPF_NEG64(R3));
	EM(c, BPF_ALU64_REG(BPF_AND, R4, R3));
	EM(c, BPF_STX_MEM(BPF_DW, FP, R4, PI_BASE + PI_PORTS));
}

/* the most bytes of the transport header any of the hook's matches reads */
int l4_want(const struct cg *c)
{
	return c->needs.hdr & NEED_HDR20 ? L4_TCP_LEN :
	       c->needs.hdr & NEED_HDR8 ? L4_UDP_LEN : L4_PORTS_LEN;
}
