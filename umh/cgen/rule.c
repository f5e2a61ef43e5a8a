// SPDX-License-Identifier: GPL-2.0
/*
 * One rule as linear code: its ipt_ip conditions (addresses, interfaces,
 * protocol, fragments), each match by its extension's emitter (ext/),
 * then the counter and the verdict.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/if.h>

#include <ebpfilter/ctl.h>

#include "cgen/emit.h"
#include "ext/ext.h"

_Static_assert(sizeof(struct ebpf_resume) == CG_RESUME_SIZE &&
	       offsetof(struct ebpf_resume, entry) == 0 &&
	       offsetof(struct ebpf_resume, depth) == 4 &&
	       offsetof(struct ebpf_resume, stack) == 8 &&
	       PI_RESUME + CG_RESUME_SIZE <= PI_RESUME_KEY &&
	       PI_RESUME_KEY + 4 <= PI_KEY + 48,
	       "the resume record in pi is the map's value");

static void emit_iface(struct cg *c, int slot, const char *name,
		       const unsigned char *mask, bool inv)
{
	static const unsigned char zero[IFNAMSIZ];
	int w;

	if (!inv && !memcmp(mask, zero, IFNAMSIZ))
		return;
	EM(c, BPF_MOV64_IMM(R4, 0));
	for (w = 0; w < 2; w++) {
		__u64 m = ir_name_word((const char *)mask, w);
		__u64 v = ir_name_word(name, w) & m;

		if (!m)
			continue;
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, slot + 8 * w));
		emit_ld64(c, R3, m);
		EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
		emit_ld64(c, R3, v);
		EM(c, BPF_ALU64_REG(BPF_XOR, R2, R3));
		EM(c, BPF_ALU64_REG(BPF_OR, R4, R2));
	}
	acc_mismatch(c, R4, inv);
}

static void emit_addr(struct cg *c, int slot, __u32 addr, __u32 mask,
		      bool inv)
{
	if (!mask && !addr && !inv)
		return;
	EM(c, BPF_LDX_MEM(BPF_W, R2, R6, slot));
	EM(c, BPF_ALU32_IMM(BPF_AND, R2, (int)mask));
	EM(c, BPF_ALU32_IMM(BPF_XOR, R2, (int)addr));
	acc_mismatch(c, R2, inv);
}

/* a 128-bit address under a mask (ipv6_masked_addr_cmp()) */
static void emit_addr6(struct cg *c, int slot, const __u8 *addr,
		       const __u8 *mask, bool inv)
{
	static const __u8 zero[16];

	if (!memcmp(mask, zero, sizeof(zero))) {
		if (inv)	/* "! -s ::/0": never matches */
			acc_never(c);
		return;
	}
	/* the same masked compare of two 8-byte words as a name's */
	emit_iface(c, slot, (const char *)addr, mask, inv);
}

/*
 * ip6_packet_match()'s part of @r into r7.  With IP6T_F_PROTO it also
 * looks for the transport header; a packet whose headers that search
 * fails on (a hotdrop) or that the prologue does not follow never reaches
 * the rules: the prologue hands it to the module (prologue_ip6.c), so
 * pi.proto is ipv6_find_hdr()'s answer here.
 */
static void emit_ip6_conditions(struct cg *c, const struct ir_rule *r,
				enum cg_set_field skip)
{
	const struct ipt_ip *ip = &r->ip;

	if (skip != SF_SRC)
		emit_addr6(c, PI6_SADDR, r->ip6->src, r->ip6->smsk,
			   ip->invflags & IPT_INV_SRCIP);
	if (skip != SF_DST)
		emit_addr6(c, PI6_DADDR, r->ip6->dst, r->ip6->dmsk,
			   ip->invflags & IPT_INV_DSTIP);
	emit_iface(c, PI_IN, ip->iniface, ip->iniface_mask,
		   ip->invflags & IPT_INV_VIA_IN);
	emit_iface(c, PI_OUT, ip->outiface, ip->outiface_mask,
		   ip->invflags & IPT_INV_VIA_OUT);
	if (ip->proto) {	/* set only with IP6T_F_PROTO (ir.c) */
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_PROTO));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, ip->proto));
		acc_mismatch(c, R2, ip->invflags & IPT_INV_PROTO);
	}
}

/* ip_packet_match()'s part of @r (no hotdrop) into r7 */
static void emit_ip_conditions(struct cg *c, const struct ir_rule *r,
			       enum cg_set_field skip)
{
	const struct ipt_ip *ip = &r->ip;

	if (r->ip6) {
		emit_ip6_conditions(c, r, skip);
		return;
	}

	if (skip != SF_SRC)
		emit_addr(c, PI_SADDR, ip->src.s_addr, ip->smsk.s_addr,
			  ip->invflags & IPT_INV_SRCIP);
	if (skip != SF_DST)
		emit_addr(c, PI_DADDR, ip->dst.s_addr, ip->dmsk.s_addr,
			  ip->invflags & IPT_INV_DSTIP);
	emit_iface(c, PI_IN, ip->iniface, ip->iniface_mask,
		   ip->invflags & IPT_INV_VIA_IN);
	emit_iface(c, PI_OUT, ip->outiface, ip->outiface_mask,
		   ip->invflags & IPT_INV_VIA_OUT);
	if (ip->proto) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_PROTO));
		EM(c, BPF_ALU64_IMM(BPF_XOR, R2, ip->proto));
		acc_mismatch(c, R2, ip->invflags & IPT_INV_PROTO);
	}
	if (ip->flags & IPT_F_FRAG) {
		/* mismatch iff !isfrag (or isfrag when inverted) */
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_FRAGNZ));
		if (!(ip->invflags & IPT_INV_FRAG))
			EM(c, BPF_ALU64_IMM(BPF_XOR, R2, 1));
		EM(c, BPF_ALU64_REG(BPF_OR, R7, R2));
	} else if (ip->invflags & IPT_INV_FRAG) {
		acc_never(c);	/* never matches */
	}
}

/* Emit the conditions of @r into r7 (and r8); @skip is left out. */
void emit_conditions(struct cg *c, const struct ir_rule *r,
		     enum cg_set_field skip)
{
	unsigned int i;

	emit_ip_conditions(c, r, skip);
	c->skip = skip;
	for (i = 0; i < r->nmatch; i++)
		ext_of_kind(r->m[i].kind)->emit(c, &r->m[i]);
	c->skip = SF_NONE;
}

bool rule_has_hotdrop(const struct ir_rule *r)
{
	unsigned int i;

	for (i = 0; i < r->nmatch; i++)
		if (ext_of_kind(r->m[i].kind)->hotdrop)
			return true;
	return false;
}

/* counters[idx] += {1, pi.len}: the counters are one big array value
 * (struct cg_counter per entry) addressed directly, with atomic adds: no
 * helper call, no branch, nothing for the verifier to patch per rule. */
static void emit_count_add(struct cg *c)	/* r1: the struct cg_counter */
{
	EM(c, BPF_MOV64_IMM(R2, 1));
	EM(c, BPF_ATOMIC_ADD64(R1, R2, offsetof(struct cg_counter, pkts)));
	EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, PI_LEN));
	EM(c, BPF_ATOMIC_ADD64(R1, R2, offsetof(struct cg_counter, bytes)));
}

static void emit_count_const(struct cg *c, unsigned int idx)
{
	emit_ld_map_value(c, R1, cg_shared_map(c, CG_MAP_COUNTERS),
			  idx * sizeof(struct cg_counter));
	emit_count_add(c);
}

_Static_assert(sizeof(struct cg_counter) == 1 << 4, "counter index shift");

/* the same for an entry index in r2 (< nrules, checked) */
void emit_count_reg(struct cg *c)
{
	/* past the 8 instructions below */
	EM(c, BPF_JMP_IMM(BPF_JGE, R2, (int)c->ir->nrules, 8));
	EM(c, BPF_ALU64_IMM(BPF_LSH, R2, 4));	/* * sizeof(struct cg_counter) */
	emit_ld_map_value(c, R1, cg_shared_map(c, CG_MAP_COUNTERS), 0);
	EM(c, BPF_ALU64_REG(BPF_ADD, R1, R2));
	emit_count_add(c);
}

/* The verdict of a matched rule, in F(@func). */
void emit_verdict(struct cg *c, unsigned int func, const struct ir_rule *r)
{
	switch (r->verdict) {
	case IRV_ACCEPT:
		EM(c, BPF_MOV64_IMM(R0, CG_V_ACCEPT));
		cg_return(c);
		break;
	case IRV_DROP:
	case IRV_ERROR:		/* ipt_error(): NF_DROP */
		EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
		cg_return(c);
		break;
	case IRV_RETURN:
		if (c->in_main)	/* chain_inline() said no such rule */
			cg_fail(c, -EFAULT, "internal error: RETURN in main's chain");
		EM(c, BPF_MOV64_IMM(R0, CG_V_RETURN));
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_JUMP:
		cg_call_func(c, func, r->target);
		/* RETURN from the chain: go on with the next rule.  Opaque:
		 * a chain that (as far as the verifier sees) always or never
		 * returns RETURN would leave dead code here, per rule. */
		opaque_r0(c, R6, PI_ZERO);
		if (c->walks) {	/* CG_V_WALK: push this jump, pass it up */
			int cont = cg_label(c);

			if (c->push_lab < 0)
				c->push_lab = cg_label(c);
			if (c->tail_first < 0)
				c->tail_first = (long)c->p->n;
			cg_jmp_imm(c, BPF_JEQ, R0, CG_V_RETURN, cont);
			EM(c, BPF_JMP_IMM(BPF_JNE, R0, CG_V_WALK, 2));
			EM(c, BPF_MOV64_IMM(R2, (int)r->off));
			cg_jmp_a(c, c->push_lab);
			EM(c, BPF_EXIT_INSN());
			cg_place(c, cont);
			break;
		}
		EM(c, BPF_JMP_IMM(BPF_JEQ, R0, CG_V_RETURN, 1));
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_GOTO:
		cg_call_func(c, func, r->target);
		EM(c, BPF_EXIT_INSN());
		break;
	case IRV_CONTINUE:
		break;
	case IRV_KERNEL:	/* a ->kernel rule: emit_kernel_rule()'s */
		cg_fail(c, -EOPNOTSUPP, "rule %u: only the kernel runs its target",
			r->idx);
		break;
	}
}

bool verdict_terminal(enum ir_verdict v)
{
	return v != IRV_JUMP && v != IRV_CONTINUE && v != IRV_KERNEL;
}

/* one rule; returns true if it ends the function (unconditional exit) */
/*
 * The test of rule @r but for @skip: its conditions, then a hotdrop
 * returns DROP (uncounted) and a mismatch goes to @next.
 */
void emit_rule_test(struct cg *c, const struct ir_rule *r,
		    enum cg_set_field skip, int next)
{
	bool hd = rule_has_hotdrop(r);

	EM(c, BPF_MOV64_IMM(R7, 0));
	if (hd)
		EM(c, BPF_MOV64_IMM(R8, 0));
	emit_conditions(c, r, skip);
	if (hd) {
		EM(c, BPF_JMP_IMM(BPF_JEQ, R8, 0, 2));
		EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
		cg_return(c);
	}
	cg_jmp_imm(c, BPF_JNE, R7, 0, next);
}

/*
 * A kernel rule (abi.h, "Kernel rules"): what the program can test of it,
 * which the module tests again: all of its conditions if only its target
 * is the kernel's (a packet that fails them goes on here, not in the
 * walk), else its ipt_ip part; a match hands the packet over.  True if
 * that is no condition at all (the function ends here).
 */
static bool emit_kernel_rule(struct cg *c, const struct ir_rule *r)
{
	size_t at = c->p->n;
	int next = -1;

	if (c->walk_lab < 0)
		c->walk_lab = cg_label(c);
	if (c->tail_first < 0)
		c->tail_first = (long)at;
	if (!r->kernel_match && r->nmatch) {
		next = cg_label(c);
		emit_rule_test(c, r, SF_NONE, next);
		EM(c, BPF_MOV64_IMM(R2, (int)r->off));
		cg_jmp_a(c, c->walk_lab);
		cg_place(c, next);
		return false;
	}
	EM(c, BPF_MOV64_IMM(R7, 0));
	emit_ip_conditions(c, r, SF_NONE);
	if (c->p->n == at + 1) {
		/* no condition: a test of a constant would be dead code */
		c->p->n = at;
	} else {
		next = cg_label(c);
		cg_jmp_imm(c, BPF_JNE, R7, 0, next);
	}
	EM(c, BPF_MOV64_IMM(R2, (int)r->off));
	cg_jmp_a(c, c->walk_lab);
	if (next < 0)
		return true;
	cg_place(c, next);
	return false;
}

/*
 * r0 = this CPU's resume record (the shared per-CPU array's key 0, the
 * key written into pi at @pi_reg + @pi_off + PI_RESUME_KEY); a lookup that
 * fails (it cannot: key 0 of an array) drops: a jump to @drop_label, or,
 * with -1, an exit with the flavor's drop verdict here.
 */
void emit_resume_record(struct cg *c, int pi_reg, int pi_off, int drop_label)
{
	int map = cg_shared_map(c, CG_MAP_RESUME);

	EM(c, BPF_ST_MEM(BPF_W, pi_reg, pi_off + PI_RESUME_KEY, 0));
	emit_ld_map(c, R1, map);
	EM(c, BPF_MOV64_REG(R2, pi_reg));
	EM(c, BPF_ALU64_IMM(BPF_ADD, R2, pi_off + PI_RESUME_KEY));
	EM(c, BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	if (drop_label >= 0) {
		cg_jmp_imm(c, BPF_JEQ, R0, 0, drop_label);
		return;
	}
	EM(c, BPF_JMP_IMM(BPF_JNE, R0, 0, 2));
	EM(c, BPF_MOV64_IMM(R0, c->fl->ret_drop));
	EM(c, BPF_EXIT_INSN());
}

/* The current function's tails: r2 = the offset (kernel rule, jump). */
void emit_walk_tails(struct cg *c)
{
	int i;

	if (c->walk_lab >= 0) {	/* a new record: this entry, no jumps */
		cg_place(c, c->walk_lab);
		EM(c, BPF_STX_MEM(BPF_W, R6, R2, PI_RESUME));
		EM(c, BPF_ST_MEM(BPF_W, R6, PI_RESUME + 4, 0));
		EM(c, BPF_MOV64_IMM(R0, CG_V_WALK));
		cg_return(c);
	}
	if (c->push_lab >= 0) {	/* stack[1..] = stack[0..]; stack[0] = r2 */
		cg_place(c, c->push_lab);
		for (i = EBPF_RESUME_MAX_DEPTH - 2; i >= 0; i--) {
			EM(c, BPF_LDX_MEM(BPF_W, R3, R6, PI_RESUME + 8 + 4 * i));
			EM(c, BPF_STX_MEM(BPF_W, R6, R3,
					  PI_RESUME + 8 + 4 * (i + 1)));
		}
		EM(c, BPF_STX_MEM(BPF_W, R6, R2, PI_RESUME + 8));
		EM(c, BPF_LDX_MEM(BPF_W, R3, R6, PI_RESUME + 4));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R3, 1));
		EM(c, BPF_STX_MEM(BPF_W, R6, R3, PI_RESUME + 4));
		EM(c, BPF_MOV64_IMM(R0, CG_V_WALK));
		cg_return(c);
	}
	c->walk_lab = c->push_lab = -1;
	c->tail_first = -1;
}

/* far below a 16-bit jump's 32767: a rule or a run between two checks
 * is much shorter than the rest */
#define CG_TAIL_SPAN	16384

void emit_walk_tails_near(struct cg *c)
{
	int over;

	if (c->tail_first < 0 || (long)c->p->n - c->tail_first < CG_TAIL_SPAN)
		return;
	over = cg_label(c);
	cg_jmp_a(c, over);
	emit_walk_tails(c);
	cg_place(c, over);
}

bool emit_rule(struct cg *c, unsigned int func, const struct ir_rule *r)
{
	int next = -1;

	if (r->kernel && c->walks)
		return emit_kernel_rule(c, r);

	if (!r->always) {
		next = cg_label(c);
		emit_rule_test(c, r, SF_NONE, next);
	}
	emit_count_const(c, r->idx);
	emit_verdict(c, func, r);
	if (next >= 0)
		cg_place(c, next);
	return r->always && verdict_terminal(r->verdict);
}
