/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jumps and calls whose targets are not placed yet: a jump goes to a label
 * (cg_label(), placed later with cg_place()), a bpf-to-bpf call to a rule
 * function F(s) (the rule index s of its start, emitted later from the
 * queue).  Each records a fixup; cg_resolve() patches them all once the
 * program is complete.  The only place offsets are computed.
 */
#ifndef UMH_CGEN_FIXUP_H
#define UMH_CGEN_FIXUP_H

#include <stdbool.h>
#include <stddef.h>

struct cg;

struct cg_fixup {
	size_t at;	/* the jump or call instruction */
	int target;	/* label id or function rule index */
	bool call;
};

/* A new, unplaced label. */
int cg_label(struct cg *c);
/* The label @l is the next instruction. */
void cg_place(struct cg *c, int l);

/* "if reg op imm goto l", "if dst op src goto l", "goto l" */
void cg_jmp_imm(struct cg *c, int op, int reg, int imm, int l);
void cg_jmp_reg(struct cg *c, int op, int dst, int src, int l);
void cg_jmp_a(struct cg *c, int l);

/* bpf-to-bpf call of F(@target) from F(@from) with r1 = pi (r6); queues
 * F(target) for emission and records the call-graph edge. */
void cg_call_func(struct cg *c, unsigned int from, unsigned int target);
/* The call instruction emitted next calls F(@target) (main's calls: no
 * edge, r1 set by the caller). */
void cg_call_next(struct cg *c, unsigned int target);

/* "return r0" from the rule code, one instruction: an exit from F; in
 * main's inline chain (abi.h, "main") a jump back to main's verdict
 * mapping, or to an earlier return's jump there once that is beyond
 * half a jump's reach (then this return is the one later ones jump to) */
void cg_return(struct cg *c);

/* Patch every jump and call; 0, -EFAULT (a label never placed), -E2BIG
 * (beyond a 16-bit jump offset). */
int cg_resolve(struct cg *c);

#endif
