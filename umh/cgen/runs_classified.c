// SPDX-License-Identifier: GPL-2.0
/*
 * Classified runs (tuple space; classify.h says what they are and
 * classify.c why they are exact): one hash lookup per group of rules with
 * the same masks, the smallest rule index found wins.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cgen/classify.h"
#include "cgen/emit.h"

static int cls_slot(enum cls_field f)
{
	switch (f) {
	case CLS_IN0:
		return PI_IN;
	case CLS_IN1:
		return PI_IN + 8;
	case CLS_OUT0:
		return PI_OUT;
	case CLS_OUT1:
		return PI_OUT + 8;
	case CLS_SADDR:
		return PI_SADDR;
	case CLS_DADDR:
		return PI_DADDR;
	case CLS_PL4:
		return PI_PL4;
	case CLS_SRC6_0:
		return PI6_SADDR;
	case CLS_SRC6_1:
		return PI6_SADDR + 8;
	case CLS_DST6_0:
		return PI6_DADDR;
	case CLS_DST6_1:
		return PI6_DADDR + 8;
	default:
		return PI_PORTS;
	}
}

/*
 * A run of rules as one hash lookup per group; r9 keeps the smallest value
 * found (classify.h: rule index << 3 | flags), starting at ~0 made opaque
 * (from pi.zero: a constant would let the verifier decide the final test
 * on the no-match path), and, in a run with kernel rules, r8 the offset
 * beside it.  Then: nothing found -> next rule;
 * hotdrop (a twin's value; none with run->hd_walk) -> DROP uncounted; a kernel rule -> the walk from its offset
 * (uncounted: the walk counts it, abi.h "Kernel rules"); else count the
 * rule, return its verdict.
 */
/*
 * KMOD, a run with tcp/udp rules (run->hd_walk; classify.c, "Hotdrop"): a
 * packet with l4state 2 goes to the module's walk at the run's first rule.
 * In a hook that may hand packets over anyway (c->walks) through the
 * function's walk tail; in main's inline chain of one that does not, the
 * record goes straight into the resume map and main returns the walk (no
 * return path waits for a CG_V_WALK there).
 */
static void emit_hd_hand_over(struct cg *c, const struct cls_run *run)
{
	int off = (int)c->ir->rules[run->start].off;
	int go = cg_label(c), i;

	EM(c, BPF_LDX_MEM(BPF_B, R2, R6, PI_PL4 + 1));
	cg_jmp_imm(c, BPF_JNE, R2, CLS_L4_HOTDROP, go);
	if (c->walks) {
		EM(c, BPF_MOV64_IMM(R2, off));
		cg_jmp_a(c, c->walk_lab);
	} else {
		emit_resume_record(c, R6, 0, -1);
		for (i = 0; i < CG_RESUME_SIZE; i += 8)
			EM(c, BPF_ST_MEM(BPF_DW, R0, i, 0));
		EM(c, BPF_ST_MEM(BPF_W, R0, 0, off));	/* entry; depth 0 */
		EM(c, BPF_MOV64_IMM(R0, c->fl->ret_walk));
		EM(c, BPF_EXIT_INSN());
	}
	cg_place(c, go);
}

/* r2 = the packet's field of key word @w, under its mask */
static void emit_word(struct cg *c, const struct cls_word *w)
{
	if (w->size == 8) {
		EM(c, BPF_LDX_MEM(BPF_DW, R2, R6, cls_slot(w->field)));
		if (w->mask != ~0ULL) {
			emit_ld64(c, R3, w->mask);
			EM(c, BPF_ALU64_REG(BPF_AND, R2, R3));
		}
	} else {
		EM(c, BPF_LDX_MEM(BPF_W, R2, R6, cls_slot(w->field)));
		if (w->mask != 0xffffffffULL)
			EM(c, BPF_ALU32_IMM(BPF_AND, R2, (int)w->mask));
	}
}

/*
 * Group @g of @run without a map (at most CLS_INLINE_MAX keys): each key's
 * words compared with the packet's; a match is what the lookup would have
 * found.  Its value goes through pi.zero (0, unknown to the verifier), as
 * r9's start does: a constant would let the verifier fold the tests of r9
 * that follow ("No dead code", abi.h).  The keys differ, so at most one
 * matches: the first that does ends the group.
 */
static void emit_inline_group(struct cg *c, const struct cls_run *run,
			      unsigned int g, int skip)
{
	const struct cls_group *gr = &run->g[g];
	const struct cls_inline *in = &run->inl[g];
	unsigned int e, k;

	for (e = 0; e < in->n; e++) {
		int next = cg_label(c), off = 0;

		for (k = 0; k < gr->nwords; k++) {
			const struct cls_word *w = &gr->w[k];
			uint64_t v = 0;
			uint32_t v32;

			if (w->size == 8) {
				memcpy(&v, in->key[e] + off, 8);
			} else {
				memcpy(&v32, in->key[e] + off, 4);
				v = v32;
			}
			off += w->size;
			emit_word(c, w);
			if (v <= INT32_MAX) {	/* imm32 is sign-extended */
				cg_jmp_imm(c, BPF_JNE, R2, (int)v, next);
			} else {
				emit_ld64(c, R3, v);
				cg_jmp_reg(c, BPF_JNE, R2, R3, next);
			}
		}
		EM(c, BPF_LDX_MEM(BPF_DW, R1, R6, PI_ZERO));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R1, (int)in->val[e].v));
		cg_jmp_reg(c, BPF_JGE, R1, R9, skip);
		EM(c, BPF_MOV64_REG(R9, R1));
		if (run->walks)
			EM(c, BPF_MOV64_IMM(R8, (int)in->val[e].off));
		cg_jmp_a(c, skip);
		cg_place(c, next);
	}
}

void emit_cls_run(struct cg *c, struct cls_run *run)
{
	int next = cg_label(c), hotdrop = -1, walk = -1;
	unsigned int g, k;
	int r;

	run->hd_walk = c->fl->ret_walk && (c->walks || c->in_main) &&
		       cls_run_has_l4(c->ir, run);
	r = cls_describe_maps(c->ir, run, c->p, c->err, c->err_len);
	if (r) {
		if (!c->rc)
			c->rc = r;	/* the reason is in c->err */
		return;
	}
	if (run->walks && !c->walks) {	/* cannot happen: the hook would walk */
		cg_fail(c, -EOPNOTSUPP, "rule %u: only the kernel runs it",
			run->start);
		return;
	}
	if (run->walks || (run->hd_walk && c->walks)) {
		if (c->walk_lab < 0)
			c->walk_lab = cg_label(c);
		if (c->tail_first < 0)
			c->tail_first = (long)c->p->n;
	}
	if (run->walks)
		walk = cg_label(c);
	if (run->hd_walk)
		emit_hd_hand_over(c, run);
	else
		hotdrop = cg_label(c);
	EM(c, BPF_LDX_MEM(BPF_DW, R9, R6, PI_ZERO));
	EM(c, BPF_ALU64_IMM(BPF_SUB, R9, 1));
	if (run->walks)	/* written with r9, but the verifier cannot know */
		EM(c, BPF_MOV64_IMM(R8, 0));
	for (g = 0; g < run->ngroups; g++) {
		const struct cls_group *gr = &run->g[g];
		int skip = cg_label(c);
		int off = PI_KEY;

		if (gr->map < 0) {
			emit_inline_group(c, run, g, skip);
			cg_place(c, skip);
			continue;
		}
		for (k = 0; k < gr->nwords; k++) {
			emit_word(c, &gr->w[k]);
			EM(c, BPF_STX_MEM(gr->w[k].size == 8 ? BPF_DW : BPF_W,
					  R6, R2, off));
			off += gr->w[k].size;
		}
		emit_ld_map(c, R1, gr->map);
		EM(c, BPF_MOV64_REG(R2, R6));
		EM(c, BPF_ALU64_IMM(BPF_ADD, R2, PI_KEY));
		EM(c, BPF_CALL_HELPER(BPF_FUNC_map_lookup_elem));
		cg_jmp_imm(c, BPF_JEQ, R0, 0, skip);
		EM(c, BPF_LDX_MEM(BPF_W, R1, R0, offsetof(struct cls_value, v)));
		cg_jmp_reg(c, BPF_JGE, R1, R9, skip);
		EM(c, BPF_MOV64_REG(R9, R1));
		if (run->walks)	/* r8: no rule's hotdrop is pending here */
			EM(c, BPF_LDX_MEM(BPF_W, R8, R0,
					  offsetof(struct cls_value, off)));
		cg_place(c, skip);
	}
	cg_jmp_imm(c, BPF_JEQ, R9, -1, next);
	if (hotdrop >= 0)
		cg_jmp_imm(c, BPF_JSET, R9, CLS_V_HOTDROP, hotdrop);
	if (run->walks)
		cg_jmp_imm(c, BPF_JSET, R9, CLS_V_WALK, walk);
	EM(c, BPF_MOV64_REG(R2, R9));
	EM(c, BPF_ALU64_IMM(BPF_RSH, R2, CLS_V_SHIFT));
	emit_count_reg(c);
	EM(c, BPF_MOV64_REG(R0, R9));
	EM(c, BPF_ALU64_IMM(BPF_AND, R0, CLS_V_ACCEPT));
	cg_return(c);
	if (hotdrop >= 0) {
		cg_place(c, hotdrop);
		EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
		cg_return(c);
	}
	if (run->walks) {	/* r2 = the offset: the function's walk tail */
		cg_place(c, walk);
		EM(c, BPF_MOV64_REG(R2, R8));
		cg_jmp_a(c, c->walk_lab);
	}
	cg_place(c, next);
}
