/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the code generator: the state of one program being emitted and
 * the building blocks every emitter uses (those of cgen/ and the
 * extensions' emitters in ext/).  Conventions (registers, pi): cgen/abi.h.
 */
#ifndef UMH_CGEN_EMIT_H
#define UMH_CGEN_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "cgen/abi.h"
#include "cgen/codegen.h"
#include "cgen/fixup.h"
#include "ir/ir.h"

/* What the rules reachable from a hook test: the prologue extracts only
 * that (the cost of a hook with no rules is the cost of its prologue). */
struct cg_needs {
	bool cond;	/* some rule has a condition at all */
	bool names;	/* interface names: in_name || out_name */
	bool in_name, out_name;	/* each its own: on tc and kmod a lookup */
	bool l4;	/* transport header fields */
	bool cls;	/* PI_PL4 and PI_PORTS: a classified run may follow */
	unsigned char hdr;	/* NEED_HDR*: which BAD and HD flags */
	unsigned char fields;	/* NEED_F_*: which transport fields */
};

/* Which field a set-like run varies (left out of the common code). */
enum cg_set_field { SF_NONE, SF_SRC, SF_DST, SF_SPORT, SF_DPORT };

struct cg {
	struct cg_prog *p;
	const struct ir_table *ir;
	const struct cg_opts *o;
	const struct cg_flavor_ops *fl;
	int *lab;		/* label -> insn index (-1: unplaced) */
	size_t nlab, caplab;
	struct cg_fixup *fix;
	size_t nfix, capfix;
	int *func_pos;		/* per rule index: insn of F(idx), -1 */
	bool *func_queued;
	unsigned int *queue, nqueue, qhead;
	/* call graph, for the depth check */
	struct cg_edge { unsigned int from, to; } *edges;
	size_t nedges, capedges;
	unsigned int cls_checked;	/* rules below: no classified run */
	unsigned char *cls_group;	/* by rule index: cls_scan()'s groups */
	struct cg_needs needs;		/* of the hook being compiled */
	enum cg_set_field skip;		/* of the rule being emitted */
	/* KMOD: the hook reaches a kernel rule (abi.h, "Kernel rules"); the
	 * current function's shared tails (labels, -1 until used): r2 = a
	 * kernel rule's offset -> start the record; r2 = a jump rule's
	 * offset -> push it */
	bool walks;
	int walk_lab, push_lab;
	/* IPv6: main's hand-over of the whole hook (a packet whose headers
	 * the prologue does not follow: the module walks it from the hook's
	 * entry, as ip6t_do_table() would) */
	int walk_all;
	long tail_first;	/* first jump to them, -1: none */
	/* the rule code is main's inline chain (abi.h, "main"): its returns
	 * jump back to the instruction ret_at (cg_return()) */
	bool in_main;
	long ret_at;
	char *err;
	size_t err_len;
	int rc;
};

/* emit.c: the instruction buffer and the program's maps */
void cg_fail(struct cg *c, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cg_emit(struct cg_prog *p, struct bpf_insn i);
#define EM(c, insn) cg_emit((c)->p, insn)
void emit_ld64(struct cg *c, int reg, __u64 v);
/* reg = the map @map (an index into the program's maps) */
void emit_ld_map(struct cg *c, int reg, int map);
/* reg = &value of the map @map at key 0, + @off */
void emit_ld_map_value(struct cg *c, int reg, int map, __u32 off);
/* The index of the shared map @source in the program's maps, described on
 * first use; -1 if out of memory (the program is marked failed). */
int cg_shared_map(struct cg *c, enum cg_map_source source);
void emit_kfunc(struct cg *c, int btf_id);

/* cond.c: pieces of conditions (r7 mismatch, r8 hotdrop; see abi.h) */
void emit_norm(struct cg *c, int reg, int tmp);
void acc_mismatch(struct cg *c, int reg, bool inv);
void acc_never(struct cg *c);
void opaque_r0(struct cg *c, int base, int off);
void emit_out_of_range(struct cg *c, int reg, __u64 lo, __u64 hi);
void emit_port(struct cg *c, int slot, __u16 lo, __u16 hi, bool inv);
void emit_hotdrop(struct cg *c, int hd_slot);

/* rule.c: one rule */
void emit_conditions(struct cg *c, const struct ir_rule *r,
		     enum cg_set_field skip);
bool rule_has_hotdrop(const struct ir_rule *r);
void emit_rule_test(struct cg *c, const struct ir_rule *r,
		    enum cg_set_field skip, int next);
void emit_count_reg(struct cg *c);
void emit_verdict(struct cg *c, unsigned int func, const struct ir_rule *r);
bool verdict_terminal(enum ir_verdict v);
/* true if the rule ends the function (an unconditional exit) */
bool emit_rule(struct cg *c, unsigned int func, const struct ir_rule *r);
/* r0 = this CPU's resume record, or drop (@drop_label; -1: exit) */
void emit_resume_record(struct cg *c, int pi_reg, int pi_off, int drop_label);
/* the tails emit_rule() jumped to in the current function, if any */
void emit_walk_tails(struct cg *c);
/* the same in the middle of a function (jumped over) once the first jump
 * to them is getting out of a jump's 16-bit reach */
void emit_walk_tails_near(struct cg *c);

/* runs_set.c, runs_classified.c: runs of rules as map lookups */
unsigned int cg_set_run(const struct ir_table *ir, unsigned int i,
			enum cg_set_field *fp);
void emit_set_run(struct cg *c, unsigned int func, unsigned int i,
		  unsigned int len, enum cg_set_field f);
struct cls_run;
void emit_cls_run(struct cg *c, struct cls_run *run);

/* the flavors (prologue_nf.c, prologue_tc.c, prologue_kmod.c;
 * cg_flavor() picks one) */
extern const struct cg_flavor_ops cg_flavor_nf, cg_flavor_tc, cg_flavor_kmod;

/* prologue_tc.c: the __sk_buff pieces the TC and KMOD prologues share */
void skb_zero_pi(struct cg *c);
void skb_ifinfo(struct cg *c, int name_slot, bool want_l2);
void skb_copy_linear(struct cg *c, int off_reg, int n, int slow);
void skb_load_iphdr(struct cg *c, int fail, bool l2_known);
void skb_read_iphdr(struct cg *c);
void skb_read_l4(struct cg *c);

/* prologue_ip6.c: an IPv6 packet's fields (KMOD), after the names */
void skb_ip6_headers(struct cg *c);

/* prologue.c: the parts every flavor's prologue shares */
void read_iphdr(struct cg *c);
void read_l4(struct cg *c, int n);
void compute_flags(struct cg *c);
/* @reg = pi.l4len = pi.len - @thoff, at least 0 (clobbers @tmp) */
void emit_l4len(struct cg *c, int reg, int thoff, int tmp);
void compute_cls_fields(struct cg *c);
int l4_want(const struct cg *c);

#endif
