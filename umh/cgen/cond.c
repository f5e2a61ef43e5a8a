// SPDX-License-Identifier: GPL-2.0
/*
 * Pieces of conditions, branch-free (abi.h): a condition ORs into r7 a
 * value that is non-zero iff it fails, a match that drops the packet when
 * its header is missing ORs its hotdrop flag into r8.
 */
#include "cgen/emit.h"

/* reg = (reg != 0) as 0/1; clobbers tmp */
void emit_norm(struct cg *c, int reg, int tmp)
{
	EM(c, BPF_MOV64_REG(tmp, reg));
	EM(c, BPF_NEG64(tmp));
	EM(c, BPF_ALU64_REG(BPF_OR, reg, tmp));
	EM(c, BPF_ALU64_IMM(BPF_RSH, reg, 63));
}

/* Apply an inversion to a mismatch value in reg and OR it into r7. */
void acc_mismatch(struct cg *c, int reg, bool inv)
{
	if (inv) {
		emit_norm(c, reg, R5);
		EM(c, BPF_ALU64_IMM(BPF_XOR, reg, 1));
	}
	EM(c, BPF_ALU64_REG(BPF_OR, R7, reg));
}

/* r7 |= 1 (the rule never matches), through PI_ZERO: a constant would let
 * the verifier prove the rule's verdict code unreachable, and it removes
 * every dead range with a memmove of the rest of the program. */
void acc_never(struct cg *c)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_ZERO));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, 1));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
}

/* r0 += PI_ZERO (@base + @off addresses it; clobbers r1): a verdict returned
 * by a function, made opaque before it is tested, so that no test of it is
 * decided by the verifier (dead code; see acc_never). */
void opaque_r0(struct cg *c, int base, int off)
{
	EM(c, BPF_LDX_MEM(BPF_DW, R1, base, off));
	EM(c, BPF_ALU64_REG(BPF_ADD, R0, R1));
}

/* reg = (reg < lo || reg > hi) as 0/1 for values well below 2^62;
 * clobbers R5. */
void emit_out_of_range(struct cg *c, int reg, __u64 lo, __u64 hi)
{
	__s64 span = (__s64)hi - (__s64)lo;

	if (lo) {
		if (lo <= 0x7fffffff) {
			EM(c, BPF_ALU64_IMM(BPF_SUB, reg, (int)lo));
		} else {
			emit_ld64(c, R5, lo);
			EM(c, BPF_ALU64_REG(BPF_SUB, reg, R5));
		}
	}
	if (span >= -0x80000000LL && span <= 0x7fffffff)
		EM(c, BPF_MOV64_IMM(R5, (int)span));
	else
		emit_ld64(c, R5, (__u64)span);
	EM(c, BPF_ALU64_REG(BPF_SUB, R5, reg));
	EM(c, BPF_ALU64_REG(BPF_OR, R5, reg));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R5, 63));
	EM(c, BPF_MOV64_REG(reg, R5));
}

/* r7 |= port not in [lo, hi] (xor inv) */
void emit_port(struct cg *c, int slot, __u16 lo, __u16 hi, bool inv)
{
	if (lo == 0 && hi == 0xffff) {
		if (inv)	/* never matches */
			acc_never(c);
		return;
	}
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, slot));
	if (lo == hi) {
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, lo));
		acc_mismatch(c, R2, inv);
		return;
	}
	emit_out_of_range(c, R2, lo, hi);
	if (inv)
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
	EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
}

/* hotdrop: r8 |= pi[hd] & (r7 == 0) -- only when the conditions so far
 * (ipt_ip and the earlier matches) held */
void emit_hotdrop(struct cg *c, int hd_slot)
{
	EM(c, BPF_MOV64_REG(R2, R7));
	emit_norm(c, R2, R5);
	EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
	EM(c, BPF_LDX_MEM(BPF_DW, R3, R6, hd_slot));
	EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
	EM(c, BPF_ALU64_REG(BPF_OR, R8, R2));
}
