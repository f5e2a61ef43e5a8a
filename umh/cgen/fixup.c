// SPDX-License-Identifier: GPL-2.0
/* Labels, jumps and calls to be patched (see fixup.h). */
#include <errno.h>
#include <stdlib.h>

#include "cgen/emit.h"
#include "lib/vec.h"

int cg_label(struct cg *c)
{
	if (vec_reserve(&c->lab, &c->caplab, c->nlab + 1)) {
		cg_fail(c, -ENOMEM, "out of memory");
		return 0;
	}
	c->lab[c->nlab] = -1;
	return (int)c->nlab++;
}

void cg_place(struct cg *c, int l)
{
	if ((size_t)l < c->nlab)
		c->lab[l] = (int)c->p->n;
}

/* the instruction emitted next jumps to label @target or calls F(@target) */
static void add_fix(struct cg *c, int target, bool call)
{
	if (vec_reserve(&c->fix, &c->capfix, c->nfix + 1)) {
		cg_fail(c, -ENOMEM, "out of memory");
		return;
	}
	c->fix[c->nfix].at = c->p->n;
	c->fix[c->nfix].target = target;
	c->fix[c->nfix].call = call;
	c->nfix++;
}

void cg_jmp_imm(struct cg *c, int op, int reg, int imm, int l)
{
	add_fix(c, l, false);
	EM(c, BPF_JMP_IMM(op, reg, imm, 0));
}

void cg_jmp_reg(struct cg *c, int op, int dst, int src, int l)
{
	add_fix(c, l, false);
	EM(c, BPF_JMP_REG(op, dst, src, 0));
}

void cg_jmp_a(struct cg *c, int l)
{
	add_fix(c, l, false);
	EM(c, BPF_JMP_A(0));
}

static void add_edge(struct cg *c, unsigned int from, unsigned int to)
{
	if (vec_reserve(&c->edges, &c->capedges, c->nedges + 1)) {
		cg_fail(c, -ENOMEM, "out of memory");
		return;
	}
	c->edges[c->nedges].from = from;
	c->edges[c->nedges].to = to;
	c->nedges++;
}

void cg_call_next(struct cg *c, unsigned int target)
{
	add_fix(c, (int)target, true);
}

void cg_call_func(struct cg *c, unsigned int from, unsigned int target)
{
	if (c->in_main) {	/* chain_inline() said no such rule */
		cg_fail(c, -EFAULT, "internal error: a call in main's chain");
		return;
	}
	if (!c->func_queued[target]) {
		c->func_queued[target] = true;
		c->queue[c->nqueue++] = target;
	}
	add_edge(c, from, target);
	EM(c, BPF_MOV64_REG(R1, R6));
	cg_call_next(c, target);
	EM(c, BPF_CALL_REL(0));
}

/* a rule's code between two returns is far shorter than the rest */
#define CG_RET_SPAN	16384

void cg_return(struct cg *c)
{
	long at = (long)c->p->n, d = c->ret_at - at - 1;

	if (!c->in_main) {
		EM(c, BPF_EXIT_INSN());
		return;
	}
	if (d < -32768) {
		cg_fail(c, -E2BIG, "a chain is too long for a 16-bit jump");
		return;
	}
	/* backward, to code already placed: no fixup */
	EM(c, BPF_JMP_A((short)d));
	if (at - c->ret_at >= CG_RET_SPAN)
		c->ret_at = at;
}

int cg_resolve(struct cg *c)
{
	size_t i;

	for (i = 0; i < c->nfix; i++) {
		struct cg_fixup *f = &c->fix[i];
		long d;

		if (f->call) {
			d = (long)c->func_pos[f->target] - (long)f->at - 1;
			c->p->insns[f->at].imm = (int)d;
			continue;
		}
		if ((size_t)f->target >= c->nlab || c->lab[f->target] < 0)
			return -EFAULT;
		d = (long)c->lab[f->target] - (long)f->at - 1;
		if (d < -32768 || d > 32767)
			return -E2BIG;
		c->p->insns[f->at].off = (short)d;
	}
	return 0;
}
