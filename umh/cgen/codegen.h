/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Back end: rule IR -> BPF instructions (umh/cgen/), without a system
 * call.  The generated code's conventions: cgen/abi.h.  The files:
 * program.c (the driver: needs, functions, depth check), emit.c and
 * fixup.c (instructions, maps, labels, calls), cond.c and rule.c (a rule
 * as linear code; each match by its extension's emitter in ext/),
 * runs_set.c and runs_classified.c with classify.c (runs of rules as map
 * lookups), prologue.c, prologue_nf.c, prologue_tc.c and prologue_kmod.c
 * (main's prologue and the flavors), dispatcher.c.
 */
#ifndef UMH_CODEGEN_H
#define UMH_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

#include "ir/ir.h"

enum cg_mech {
	CG_NETFILTER,	/* BPF_PROG_TYPE_NETFILTER, one link per hook */
	CG_TC,		/* BPF_PROG_TYPE_SCHED_CLS on clsact ingress/egress */
	CG_KMOD,	/* BPF_PROG_TYPE_SCHED_CLS run by ebpfilter.ko at its
			 * own netfilter hooks (ebpfilter/ctl.h) */
};

/*
 * A table program's hook.  The first CG_NHOOKS are the filter table's, in
 * slot order (prog array: gen * 3 + hook), the only ones the dispatcher
 * mechanisms (netfilter, tc) serve; CG_KMOD also compiles the other
 * tables' PRE_ROUTING and POST_ROUTING: CG_ALL_HOOKS in all.
 */
enum cg_hook {
	CG_INPUT, CG_FORWARD, CG_OUTPUT,
	CG_PREROUTING, CG_POSTROUTING,
	CG_ALL_HOOKS,
	CG_NHOOKS = CG_PREROUTING,
};

/* Facts about the running kernel (from its BTF) the NETFILTER prologue
 * needs: raw instructions have no CO-RE, so offsets are resolved here. */
struct cg_kernel {
	int kf_dynptr_from_skb;	/* BTF ids of the kfuncs */
	int kf_dynptr_slice;
	int off_state_in, off_state_out;	/* struct nf_hook_state */
	int off_dev_name;			/* struct net_device */
	int off_skb_len, off_skb_nfct;		/* struct sk_buff */
	int off_ct_status;			/* struct nf_conn; -1: none */
	/* in-place header reads (prologue_nf()): all found, or direct false */
	bool direct;
	int kf_rdonly_cast;
	int off_skb_data, off_skb_data_len;	/* struct sk_buff */
	int btf_iphdr, btf_tcphdr;		/* BTF ids of the structs */
	int btf_nf_hook_state;
};

struct cg_opts {
	enum cg_mech mech;
	enum cg_hook hook;
	const struct cg_kernel *k;	/* NETFILTER */
	bool no_classify;	/* tests: linear code only, no classified runs */
};

/* TC: what the helper tells the programs about each interface. */
struct cg_ifinfo {
	char name[16];		/* dev->name, as ip_tables compares it */
	__u32 l2len;		/* bytes before the IP header at TC */
	__u32 flags;		/* ENF_IF_*, the helper's own (load/mech_tc.c) */
};

/* Per-entry counter. */
struct cg_counter {
	__u64 pkts, bytes;
};

/*
 * The counters map's flags for @nrules: mmap-able (the helper reads it
 * without copying, load/program.c) only where that costs little.  An
 * mmap-able array takes whole pages, its header's and its value's (8 KiB
 * for 4 rules or 100), a plain one the bytes it needs: with a namespace's
 * small table, most of its counters map (issue 17).
 */
#define CG_COUNTERS_MMAP_MIN	(16u * 1024)	/* bytes of counters */
static inline __u32 cg_counters_map_flags(unsigned int nrules)
{
	return (size_t)(nrules ? nrules : 1) * sizeof(struct cg_counter) >=
	       CG_COUNTERS_MMAP_MIN ? BPF_F_MMAPABLE : 0;
}

/*
 * Code generation makes no system call: a program is its instructions and
 * a description of the maps they use; the loader (load/program.c) creates
 * the program's own maps, supplies the shared ones and rewrites the
 * references.  Everything here can run without a kernel (tests/codegen's
 * interpreter runs it on the host).
 */
enum cg_map_source {
	/* created by the loader from the description, filled with @elems,
	 * left writable (set-like runs, classifier groups: hash maps) */
	CG_MAP_OWN,
	/*
	 * Shared objects the loader supplies; their description is still
	 * filled in (type, sizes), for whoever emulates them.
	 */
	CG_MAP_COUNTERS,	/* array[1], mmapable: struct cg_counter[nrules] */
	CG_MAP_IFINFO,		/* TC: hash ifindex -> struct cg_ifinfo */
	CG_MAP_GEN,		/* array[1]: u32, bit 0 the generation in force */
	CG_MAP_PROGS,		/* prog array: [gen * CG_NHOOKS + hook] */
	/* KMOD: per-CPU array[1] of struct ebpf_resume (ebpfilter/ctl.h),
	 * where a program that stops at a kernel rule says where the
	 * module's walk goes on; given at install with EBPF_INSTALL_F_RESUME */
	CG_MAP_RESUME,
};

/*
 * One map a program references.  @elems: @nelems records of @key_size key
 * bytes followed by @value_size value bytes, inserted in order with
 * BPF_ANY (a later record with the same key replaces an earlier one).
 */
struct cg_map {
	const char *name;
	enum bpf_map_type type;
	__u32 key_size, value_size, max_entries, map_flags;
	enum cg_map_source source;
	unsigned char *elems;
	__u32 nelems;
};

/*
 * A map reference in @insns is a BPF_LD_IMM64 with src_reg
 * BPF_PSEUDO_MAP_IDX (the map) or BPF_PSEUDO_MAP_IDX_VALUE (the address of
 * its value at key 0, plus the second half's imm) and imm = the index into
 * @maps; the loader turns them into BPF_PSEUDO_MAP_FD/_VALUE with the fd
 * (no fd_array: 5.10 does not know MAP_IDX).
 */
struct cg_prog {
	struct bpf_insn *insns;
	size_t n, cap;
	struct cg_map *maps;
	unsigned int nmaps;
	size_t maps_cap;
	bool failed;		/* out of memory while emitting */
};

/* Descriptions of the shared maps (what the loader must supply). */
#define CG_IFINFO_MAX	4096	/* interfaces the TC ifinfo map holds */
#define CG_PROGS_MAX	(2 * CG_NHOOKS)	/* two generations of table programs */
#define CG_RESUME_SIZE	40	/* sizeof(struct ebpf_resume), ebpfilter/ctl.h */

/*
 * What differs between the mechanisms, for code generation and loading
 * (after facebook/bpfilter's struct bf_flavor_ops): prologue_nf.c,
 * prologue_tc.c, prologue_kmod.c.
 */
struct cg;
struct cg_flavor_ops {
	const char *name;		/* "netfilter", "tc", "kmod" */
	enum bpf_prog_type prog_type;
	enum bpf_attach_type expected_attach_type;	/* 0: none needed */
	/* the program's return values for the internal verdicts */
	int ret_accept, ret_drop;
	/* the return value that hands the packet to the kernel's walk (the
	 * resume map says from where); 0: the mechanism has no walk, a hook
	 * that reaches a rule without an emitter is refused */
	int ret_walk;
	/* Some packets are not the filter's (not IPv4 at tc): the prologue
	 * and the dispatcher let them through with ret_accept. */
	bool passes;
	/* can the prologue read the packet's conntrack state? */
	bool (*has_ct)(const struct cg_opts *o);
	/* main's prologue: pi filled (abi.h), r6-r9 free; to @drop_exit or
	 * @pass_exit for packets decided there */
	void (*prologue)(struct cg *c, int drop_exit, int pass_exit);
	/* the dispatcher's choice: r7 = the hook whose table program runs
	 * (r6 = ctx), or to @pass (a label if @passes); NULL: the
	 * mechanism has no dispatcher */
	void (*dispatch)(struct cg *c, int pass);
};

const struct cg_flavor_ops *cg_flavor(enum cg_mech mech);

/* The table program for one hook. 0 or -errno (+ @err). */
int codegen_hook(const struct ir_table *ir, const struct cg_opts *o,
		 struct cg_prog *out, char *err, size_t err_len);

/*
 * The dispatcher attached at a hook: reads the generation from the
 * CG_MAP_GEN map (array, one u32) and tail-calls CG_MAP_PROGS[gen * 3 +
 * hook].  For CG_TC, @hook CG_INPUT means "ingress" (decides INPUT/FORWARD
 * with a FIB lookup) and CG_OUTPUT "egress".  If the tail call fails the packet is dropped.
 * The ingress dispatcher hands the table program the input device's l2len
 * in skb->cb[1] and, for FORWARD, the output device's ifindex in cb[0].
 */
int codegen_dispatcher(enum cg_mech mech, enum cg_hook hook,
		       struct cg_prog *out);

/* Append @m to @p's maps (taking its elements); its index, or -1: out of
 * memory, @p marked failed and @m's elements freed. */
int cg_prog_add_map(struct cg_prog *p, const struct cg_map *m);

void cg_prog_free(struct cg_prog *p);

/* Internal verdict codes of the rule functions. */
#define CG_V_DROP	0
#define CG_V_ACCEPT	1
#define CG_V_RETURN	2
/* KMOD: a rule only the kernel can evaluate was reached; pi's resume
 * record (PI_RESUME, abi.h) says which and through which jumps */
#define CG_V_WALK	3

#endif
