// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher attached at a hook (codegen.h): the flavor decides which
 * hook's table program runs (r7), then a tail call into the program array
 * slot of the generation in force, so that a commit swaps every hook's
 * program at once by flipping the generation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgen/emit.h"

int codegen_dispatcher(enum cg_mech mech, enum cg_hook hook,
		       struct cg_prog *out)
{
	struct cg_opts o = { .mech = mech, .hook = hook };
	struct cg c = { .p = out, .o = &o, .fl = cg_flavor(mech) };
	int pass = -1, r;

	memset(out, 0, sizeof(*out));
	if (!c.fl->dispatch)
		return -EINVAL;
	EM(&c, BPF_MOV64_REG(R6, R1));
	if (c.fl->passes)
		pass = cg_label(&c);
	c.fl->dispatch(&c, pass);
	/* r3 = (gen & 1) * CG_NHOOKS + hook: the slot (codegen.h) */
	emit_ld_map_value(&c, R1, cg_shared_map(&c, CG_MAP_GEN), 0);
	EM(&c, BPF_LDX_MEM(BPF_W, R3, R1, 0));
	EM(&c, BPF_ALU64_IMM(BPF_AND, R3, 1));
	EM(&c, BPF_ALU64_IMM(BPF_MUL, R3, CG_NHOOKS));
	EM(&c, BPF_ALU64_REG(BPF_ADD, R3, R7));
	EM(&c, BPF_MOV64_REG(R1, R6));
	emit_ld_map(&c, R2, cg_shared_map(&c, CG_MAP_PROGS));
	EM(&c, BPF_CALL_HELPER(BPF_FUNC_tail_call));
	/* no program in the slot: fail closed */
	EM(&c, BPF_MOV64_IMM(R0, c.fl->ret_drop));
	EM(&c, BPF_EXIT_INSN());
	if (c.fl->passes) {
		cg_place(&c, pass);
		EM(&c, BPF_MOV64_IMM(R0, c.fl->ret_accept));
		EM(&c, BPF_EXIT_INSN());
	}
	r = cg_resolve(&c) || c.rc || out->failed ? -ENOMEM : 0;
	free(c.lab);
	free(c.fix);
	if (r)
		cg_prog_free(out);
	return r;
}
