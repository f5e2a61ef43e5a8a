/* SPDX-License-Identifier: GPL-2.0 */
/* Back end: rule IR -> BPF instructions.  Conventions: see codegen.c. */
#ifndef UMH_CODEGEN_H
#define UMH_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

#include "ir/ir.h"

enum cg_mech {
	CG_NETFILTER,	/* BPF_PROG_TYPE_NETFILTER, one link per hook */
	CG_TC,		/* BPF_PROG_TYPE_SCHED_CLS on clsact ingress/egress */
};

/* The three filter hooks, in slot order (prog array: gen * 3 + hook). */
enum cg_hook { CG_INPUT, CG_FORWARD, CG_OUTPUT, CG_NHOOKS };

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
	int counters_fd;	/* array[1], value: struct cg_counter[nrules] */
	int ifinfo_fd;		/* TC: hash ifindex -> struct cg_ifinfo */
	const struct cg_kernel *k;	/* NETFILTER */
	bool no_classify;	/* tests: linear code only, no classified runs */
};

/* TC: what the helper tells the programs about each interface. */
struct cg_ifinfo {
	char name[16];		/* dev->name, as ip_tables compares it */
	__u32 l2len;		/* bytes before the IP header at TC */
	__u32 flags;		/* ENF_IF_*, the helper's own (enforce_tc.c) */
};

/* Per-entry counter. */
struct cg_counter {
	__u64 pkts, bytes;
};

struct cg_prog {
	struct bpf_insn *insns;
	size_t n, cap;
	int *map_fds;		/* maps the program references (sets) */
	unsigned int nmaps;
	bool failed;		/* out of memory while emitting */
};

/* The table program for one hook. 0 or -errno (+ @err). */
int codegen_hook(const struct ir_table *ir, const struct cg_opts *o,
		 struct cg_prog *out, char *err, size_t err_len);

/*
 * The dispatcher attached at a hook: reads the generation from @gen_fd
 * (array, one u32) and tail-calls @progs_fd[gen * 3 + hook].  For CG_TC,
 * @hook CG_INPUT means "ingress" (decides INPUT/FORWARD with a FIB lookup)
 * and CG_OUTPUT "egress".  If the tail call fails the packet is dropped.
 * The ingress dispatcher hands the table program the input device's l2len
 * in skb->cb[1] and, for FORWARD, the output device's ifindex in cb[0].
 */
int codegen_dispatcher(enum cg_mech mech, enum cg_hook hook, int gen_fd,
		       int progs_fd, int ifinfo_fd, struct cg_prog *out);

void cg_prog_free(struct cg_prog *p);

/* Internal verdict codes of the rule functions. */
#define CG_V_DROP	0
#define CG_V_ACCEPT	1
#define CG_V_RETURN	2

#endif
