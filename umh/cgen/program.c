// SPDX-License-Identifier: GPL-2.0
/*
 * The driver: one table program per hook (abi.h): what its rules need
 * from the packet, main (the flavor's prologue, the chain evaluation: the
 * hook's rule code inline where it needs no frame, else calls; the verdict
 * mapping), then every rule function reachable from the hook, the
 * call-depth check and the fixups.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if.h>

#include "cgen/classify.h"
#include "cgen/emit.h"
#include "ext/ext.h"

const struct cg_flavor_ops *cg_flavor(enum cg_mech mech)
{
	switch (mech) {
	case CG_NETFILTER:
		return &cg_flavor_nf;
	case CG_TC:
		return &cg_flavor_tc;
	default:
		return &cg_flavor_kmod;
	}
}

static void needs_of_rule(struct cg_needs *n, const struct ir_rule *r)
{
	static const unsigned char zero[IFNAMSIZ];
	unsigned int i;

	if (r->always)
		return;
	n->cond = true;
	if (memcmp(r->ip.iniface_mask, zero, IFNAMSIZ) ||
	    (r->ip.invflags & IPT_INV_VIA_IN))
		n->in_name = n->names = true;
	if (memcmp(r->ip.outiface_mask, zero, IFNAMSIZ) ||
	    (r->ip.invflags & IPT_INV_VIA_OUT))
		n->out_name = n->names = true;
	for (i = 0; i < r->nmatch; i++) {
		const struct ext_desc *x = ext_of_kind(r->m[i].kind);

		n->hdr |= x->need_hdr;
		n->fields |= x->need_fields;
		if (x->need_hdr)
			n->l4 = true;
	}
}

/* c->needs: what the rules reachable from @entry and @under test (the
 * functions codegen will emit, found the same way). */
static void scan_needs(struct cg *c, unsigned int entry, unsigned int under)
{
	const struct ir_table *ir = c->ir;
	bool *seen = calloc(ir->nrules, sizeof(bool));
	unsigned int *q = malloc(ir->nrules * sizeof(unsigned int));
	unsigned int n = 0, h = 0, i;

	memset(&c->needs, 0, sizeof(c->needs));
	if (!seen || !q) {	/* extract everything */
		c->needs.cond = c->needs.names = c->needs.l4 = true;
		c->needs.in_name = c->needs.out_name = true;
		c->needs.cls = !c->o->no_classify;
		c->needs.hdr = NEED_HDR20 | NEED_HDR8 | NEED_HDR4;
		c->needs.fields = NEED_F_PORTS | NEED_F_ICMP | NEED_F_TCPFL;
		goto out;
	}
	seen[entry] = true;
	q[n++] = entry;
	if (!seen[under]) {
		seen[under] = true;
		q[n++] = under;
	}
	while (h < n) {
		unsigned int start = q[h++], run = 0;

		for (i = start; i < ir->nrules; i++) {
			const struct ir_rule *r = &ir->rules[i];
			unsigned int t = r->target;

			if (i != start && r->func_start) {
				t = i;
				if (!seen[t]) {
					seen[t] = true;
					q[n++] = t;
				}
				break;
			}
			needs_of_rule(&c->needs, r);
			/* as many rules as a classified run needs (cls_worth()
			 * may still say no: then the fields go unused) */
			run = cls_rule_ok(r) ? run + 1 : 0;
			if (run >= CLS_MIN_RUN && !c->o->no_classify)
				c->needs.cls = true;
			if ((r->verdict == IRV_JUMP || r->verdict == IRV_GOTO) &&
			    t < ir->nrules && !seen[t]) {
				seen[t] = true;
				q[n++] = t;
			}
			if (r->always && verdict_terminal(r->verdict))
				break;
		}
	}
out:
	if (c->needs.cls) {	/* compute_cls_fields() */
		c->needs.hdr |= NEED_HDR20 | NEED_HDR8;
		c->needs.fields |= NEED_F_PORTS;
	}
	free(seen);
	free(q);
}

static void emit_function_body(struct cg *c, unsigned int start)
{
	const struct ir_table *ir = c->ir;
	unsigned int i;

	c->func_pos[start] = (int)c->p->n;
	EM(c, BPF_MOV64_REG(R6, R1));
	for (i = start; i < ir->nrules && !c->rc; i++) {
		const struct ir_rule *r = &ir->rules[i];
		enum cg_set_field f = SF_NONE;
		unsigned int len;

		emit_walk_tails_near(c);
		/* fall into the next function; main's inline chain runs on
		 * into its code instead */
		if (i != start && r->func_start && !c->in_main) {
			cg_call_func(c, start, i);
			EM(c, BPF_EXIT_INSN());
			return;
		}
		if (!c->o->no_classify && i >= c->cls_checked) {
			struct cls_run run;

			len = cls_scan(ir, i, &run, c->cls_group);
			if (cls_worth(&run)) {
				emit_cls_run(c, &run);
				i += len - 1;
				continue;
			}
			/* not worth it; its suffixes are rarely better (fewer
			 * rules per group), and rescanning from each rule
			 * would cost O(n^2) */
			c->cls_checked = i + (len ? len : 1);
		}
		/* a run's jump rules share one site: it could not push the
		 * offset of the one that matched (abi.h, "Kernel rules");
		 * IPv6 programs always may hand over (c->walks) */
		if (!r->always && !r->kernel &&
		    (r->verdict == IRV_ACCEPT || r->verdict == IRV_DROP ||
		     r->verdict == IRV_RETURN || r->verdict == IRV_GOTO ||
		     (r->verdict == IRV_JUMP && !c->walks))) {
			len = cg_set_run(ir, i, &f);
			if (len >= CG_SET_MIN) {
				emit_set_run(c, start, i, len, f);
				i += len - 1;
				continue;
			}
		}
		if (emit_rule(c, start, r))
			return;
	}
	/* fell off the end of the blob: cannot happen in a validated table */
	EM(c, BPF_MOV64_IMM(R0, CG_V_DROP));
	cg_return(c);
}

static void emit_function(struct cg *c, unsigned int start)
{
	c->walk_lab = c->push_lab = -1;
	c->tail_first = -1;
	emit_function_body(c, start);
	emit_walk_tails(c);	/* after its last exit */
}

/*
 * Can the hook's chain run inline in main (abi.h, "main")?  Only if the
 * code reachable from @entry calls nothing and never returns RETURN: no
 * jump or goto (a kernel rule's is the module's: it hands over) and no
 * RETURN, for which main would test and call the underflow.  The rules
 * are walked as emit_function_body() emits them in main, on through the
 * function starts, up to the first unconditional verdict (where it stops
 * too, or earlier: at a kernel rule without conditions).
 */
static bool chain_inline(const struct ir_table *ir, unsigned int entry)
{
	unsigned int i;

	for (i = entry; i < ir->nrules; i++) {
		const struct ir_rule *r = &ir->rules[i];

		if (!r->kernel && (r->verdict == IRV_JUMP ||
				   r->verdict == IRV_GOTO ||
				   r->verdict == IRV_RETURN))
			return false;
		if (r->always && verdict_terminal(r->verdict))
			break;
	}
	return true;
}

/*
 * main's end for a packet a function handed to the kernel (CG_V_WALK):
 * the record from pi into this CPU's resume map value, EBPF_PROG_WALK.
 * A lookup that fails (it cannot: key 0 of an array) drops.
 */
static void emit_main_walk(struct cg *c, int drop_exit)
{
	int i;

	emit_resume_record(c, FP, PI_BASE, drop_exit);
	for (i = 0; i < CG_RESUME_SIZE; i += 8) {
		EM(c, BPF_LDX_MEM(BPF_DW, R1, FP, PI_BASE + PI_RESUME + i));
		EM(c, BPF_STX_MEM(BPF_DW, R0, R1, i));
	}
	EM(c, BPF_MOV64_IMM(R0, c->fl->ret_walk));
	EM(c, BPF_EXIT_INSN());
}

/* longest chain of calls below F(i); -1 on a cycle */
static int depth_of(struct cg *c, unsigned int i, int *memo)
{
	size_t e;
	int best = 1;		/* its own frame */

	if (memo[i] == -2)
		return -1;
	if (memo[i] >= 0)
		return memo[i];
	memo[i] = -2;
	for (e = 0; e < c->nedges; e++) {
		int d;

		if (c->edges[e].from != i)
			continue;
		d = depth_of(c, c->edges[e].to, memo);
		if (d < 0)
			return -1;
		if (d + 1 > best)
			best = d + 1;
	}
	memo[i] = best;
	return best;
}

int codegen_hook(const struct ir_table *ir, const struct cg_opts *o,
		 struct cg_prog *out, char *err, size_t err_len)
{
	static const unsigned int nfhook[CG_ALL_HOOKS] = {
		NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT,
		NF_INET_PRE_ROUTING, NF_INET_POST_ROUTING };
	unsigned int h, entry, under;
	struct cg c = { .p = out, .ir = ir, .o = o,
			.fl = cg_flavor(o->mech), .err = err,
			.err_len = err_len, .walk_all = -1 };
	int drop_exit, pass_exit, ret_label, walk_label = -1, body_label = -1;
	int r;
	int *memo = NULL;
	long opaque_at = -1, opaque_end = -1;

	memset(out, 0, sizeof(*out));
	if ((unsigned int)o->hook >= (o->mech == CG_KMOD ? CG_ALL_HOOKS :
							   CG_NHOOKS)) {
		snprintf(err, err_len, "no hook %u on the %s flavor", o->hook,
			 c.fl->name);
		return -EINVAL;
	}
	h = nfhook[o->hook];
	if (!(ir->valid_hooks & (1u << h))) {
		snprintf(err, err_len, "table has no hook %u", h);
		return -EINVAL;
	}
	if (ir->ipv6 && o->mech != CG_KMOD) {
		snprintf(err, err_len,
			 "IPv6 tables are compiled for the kmod mechanism only");
		return -EOPNOTSUPP;
	}
	if (ir->ipv6)	/* the prologue may hand any packet over */
		c.walks = true;
	if (ir_kernel_hooks(ir) & (1u << h)) {
		if (!c.fl->ret_walk) {
			snprintf(err, err_len,
				 "hook %u reaches a rule without an emitter: the kernel walks it",
				 h);
			return -EOPNOTSUPP;
		}
		c.walks = true;	/* stop there, the kernel walks on */
	}
	if (ir->uses_tcpopt) {
		snprintf(err, err_len, "tcp --tcp-option is not enforced");
		return -EOPNOTSUPP;
	}
	if (ir->uses_ct && !c.fl->has_ct(o)) {
		snprintf(err, err_len,
			 "state/conntrack matches are not enforced on this kernel (no conntrack state at the %s hook)",
			 c.fl->name);
		return -EOPNOTSUPP;
	}
	entry = ir->hook_entry[h];
	under = ir->underflow[h];
	c.func_pos = malloc(ir->nrules * sizeof(int));
	c.func_queued = calloc(ir->nrules, sizeof(bool));
	c.queue = malloc(ir->nrules * sizeof(unsigned int));
	memo = malloc(ir->nrules * sizeof(int));
	c.cls_group = malloc(ir->nrules ? ir->nrules : 1);
	if (!c.func_pos || !c.func_queued || !c.queue || !memo ||
	    !c.cls_group) {
		r = -ENOMEM;
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < ir->nrules; i++)
		c.func_pos[i] = -1, memo[i] = -1;

	drop_exit = cg_label(&c);
	pass_exit = cg_label(&c);
	ret_label = cg_label(&c);
	scan_needs(&c, entry, under);
	c.fl->prologue(&c, drop_exit, pass_exit);

	/*
	 * Make pi opaque to the verifier: copy it onto itself with a helper,
	 * which leaves the slots "unknown".  Otherwise the values the prologue's
	 * different paths (header sizes, fragments) leave there are tracked as
	 * constants, and every rule is verified once per prologue path (with
	 * precision backtracking): 3-5x the work, 10,000 rules did not load.
	 */
	if (c.needs.cond) {
		opaque_at = (long)c.p->n;
		EM(&c, BPF_MOV64_REG(R1, FP));
		EM(&c, BPF_ALU64_IMM(BPF_ADD, R1, PI_BASE));
		EM(&c, BPF_MOV64_IMM(R2, PI_SIZE));
		EM(&c, BPF_MOV64_REG(R3, R1));
		EM(&c, BPF_CALL_HELPER(BPF_FUNC_probe_read_kernel));
		opaque_end = (long)c.p->n;
	}
	if (c.walks)	/* the record's stack is shifted before it is full */
		for (int i = 0; i < CG_RESUME_SIZE; i += 8)
			EM(&c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + PI_RESUME + i, 0));
	EM(&c, BPF_MOV64_IMM(R6, 0));
	EM(&c, BPF_MOV64_IMM(R7, 0));
	EM(&c, BPF_MOV64_IMM(R8, 0));
	EM(&c, BPF_MOV64_IMM(R9, 0));

	if (chain_inline(ir, entry)) {
		/* F(entry)'s code after main's end (below), so that the
		 * prologue's jumps to its exits stay short; its returns jump
		 * back here, the verdicts tested opaquely as a call's (see
		 * opaque_r0) */
		body_label = cg_label(&c);
		cg_jmp_a(&c, body_label);
		c.ret_at = (long)c.p->n;
		opaque_r0(&c, FP, PI_BASE + PI_ZERO);
	} else {
		/* r0 = F(entry); if RETURN: r0 = F(underflow) */
		c.func_queued[entry] = c.func_queued[under] = true;
		c.queue[c.nqueue++] = entry;
		if (under != entry)
			c.queue[c.nqueue++] = under;
		EM(&c, BPF_MOV64_REG(R1, FP));
		EM(&c, BPF_ALU64_IMM(BPF_ADD, R1, PI_BASE));
		cg_call_next(&c, entry);
		EM(&c, BPF_CALL_REL(0));
		/* the verdicts are tested opaquely (see opaque_r0): a hook
		 * whose chain never returns RETURN, or never accepts, has no
		 * dead code */
		opaque_r0(&c, FP, PI_BASE + PI_ZERO);
		cg_jmp_imm(&c, BPF_JNE, R0, CG_V_RETURN, ret_label);
		EM(&c, BPF_MOV64_REG(R1, FP));
		EM(&c, BPF_ALU64_IMM(BPF_ADD, R1, PI_BASE));
		cg_call_next(&c, under);
		EM(&c, BPF_CALL_REL(0));
		opaque_r0(&c, FP, PI_BASE + PI_ZERO);
		cg_place(&c, ret_label);
	}
	if (c.walks) {
		walk_label = cg_label(&c);
		cg_jmp_imm(&c, BPF_JEQ, R0, CG_V_WALK, walk_label);
	}
	/* the internal verdict to the flavor's; a packet the prologue lets
	 * pass (pass_exit) gets its ACCEPT */
	EM(&c, BPF_JMP_IMM(BPF_JEQ, R0, CG_V_ACCEPT, 2));
	cg_place(&c, drop_exit);
	if (!c.fl->passes)
		cg_place(&c, pass_exit);	/* never taken */
	EM(&c, BPF_MOV64_IMM(R0, c.fl->ret_drop));
	EM(&c, BPF_EXIT_INSN());
	if (c.fl->passes)
		cg_place(&c, pass_exit);
	EM(&c, BPF_MOV64_IMM(R0, c.fl->ret_accept));
	EM(&c, BPF_EXIT_INSN());
	/* made by the prologue where it hands packets over (a label never
	 * jumped to would be unreachable code, which the verifier refuses) */
	if (c.walk_all >= 0) {	/* a record of the hook's entry, no jumps */
		cg_place(&c, c.walk_all);
		for (int i = 0; i < CG_RESUME_SIZE; i += 8)
			EM(&c, BPF_ST_MEM(BPF_DW, FP, PI_BASE + PI_RESUME + i, 0));
		EM(&c, BPF_ST_MEM(BPF_W, FP, PI_BASE + PI_RESUME,
				  (int)ir->rules[entry].off));
	}
	if (c.walks) {
		cg_place(&c, walk_label);
		emit_main_walk(&c, drop_exit);
	}
	if (body_label >= 0) {
		cg_place(&c, body_label);
		c.in_main = true;
		EM(&c, BPF_MOV64_REG(R1, FP));
		EM(&c, BPF_ALU64_IMM(BPF_ADD, R1, PI_BASE));
		emit_function(&c, entry);
	}

	while (c.qhead < c.nqueue && !c.rc)
		emit_function(&c, c.queue[c.qhead++]);
	if (c.rc) {
		r = c.rc;
		goto out;
	}
	if (out->failed) {
		r = -ENOMEM;
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	{
		int d1 = depth_of(&c, entry, memo), d2 = depth_of(&c, under, memo);

		if (d1 < 0 || d2 < 0) {
			r = -ELOOP;
			snprintf(err, err_len, "loop in the chain graph");
			goto out;
		}
		if (d1 > CG_MAX_DEPTH || d2 > CG_MAX_DEPTH) {
			r = -E2BIG;
			snprintf(err, err_len,
				 "user chains nested %d deep; BPF allows %d",
				 (d1 > d2 ? d1 : d2) - 1, CG_MAX_DEPTH - 1);
			goto out;
		}
	}
	/* A small program is verified quickly even per prologue path: no
	 * opaque copy (a helper call per packet), as many no-ops instead. */
	if (opaque_at >= 0 && out->n < CG_OPAQUE_MIN_INSNS)
		for (long i = opaque_at; i < opaque_end; i++)
			out->insns[i] = BPF_MOV64_IMM(R1, 0);
	r = cg_resolve(&c);
	if (r) {
		snprintf(err, err_len, r == -E2BIG ?
			 "a chain is too long for a 16-bit jump" :
			 "internal error: unresolved label");
		goto out;
	}
out:
	free(c.lab);
	free(c.fix);
	free(c.func_pos);
	free(c.func_queued);
	free(c.queue);
	free(c.edges);
	free(c.cls_group);
	free(memo);
	if (r)
		cg_prog_free(out);
	return r;
}
