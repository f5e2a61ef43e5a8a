/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule IR: the front end (ir.c, each match by its extension's
 * descriptor in ext/) decodes a validated ip_tables blob into this form,
 * the back end (cgen/) turns it into BPF.
 *
 * Every entry of the blob becomes one struct ir_rule, in blob order, so a
 * rule's index is its counter slot (the order GET_ENTRIES reports counters
 * in).  Control flow is kept as ip_tables has it: a rule's verdict is an
 * absolute verdict, RETURN, or a jump/goto to another entry's index.  The
 * front end also marks the "function starts": the entries where evaluation
 * can begin (hook entries, underflows, jump/goto targets); the back end emits
 * one BPF subprogram per reachable function start, or, where a hook's rules
 * need no frame, their code inline in the program's main (see cgen/abi.h).
 */
#ifndef UMH_IR_H
#define UMH_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_multiport.h>

#include "ipt/table_view.h"

#define IR_MAX_MATCH 16

/* what a match decodes to (struct ext_desc.ir_kind); 0: none */
enum ir_match_kind {
	IRM_TCP = 1,
	IRM_UDP,
	IRM_ICMP,
	IRM_MPORT,
	IRM_IPRANGE,
	IRM_CTSTATE,	/* state and conntrack --ctstate */
	IRM_ICMP6,	/* ip6_tables' icmp6 (no "any type") */
};

/* Conntrack state bits, in xt_conntrack's layout (xt_state's is mapped). */
#define IR_CT_INVALID	(1u << 0)
#define IR_CT_EST	(1u << 1)
#define IR_CT_REL	(1u << 2)
#define IR_CT_NEW	(1u << 3)
#define IR_CT_SNAT	(1u << 6)
#define IR_CT_DNAT	(1u << 7)
#define IR_CT_UNTRACKED	(1u << 8)

/* Multiport port-spec modes */
#define IR_MP_SRC	1
#define IR_MP_DST	2
#define IR_MP_EITHER	3

struct ir_match {
	enum ir_match_kind kind;
	union {
		struct {		/* tcp and udp (flags only for tcp) */
			uint16_t spts[2], dpts[2];
			uint8_t flg_mask, flg_cmp;
			uint8_t option;	/* tcp option kind, 0 = none */
			uint8_t invflags;	/* XT_TCP_INV_* / XT_UDP_INV_* */
		} tu;
		struct {
			uint8_t type, code_min, code_max;
			bool inv;
		} icmp;
		struct {
			uint8_t mode;	/* IR_MP_* */
			uint8_t count;	/* number of specs */
			bool inv;
			uint16_t lo[XT_MULTI_PORTS], hi[XT_MULTI_PORTS];
		} mp;
		struct {
			bool src, dst, src_inv, dst_inv;
			uint32_t src_min, src_max, dst_min, dst_max; /* host order */
		} ipr;
		struct {
			uint32_t mask;	/* IR_CT_* */
			bool inv;
		} ct;
	};
};

enum ir_verdict {
	IRV_ACCEPT = 1,
	IRV_DROP,
	IRV_RETURN,
	IRV_JUMP,	/* push, continue at .target */
	IRV_GOTO,	/* continue at .target, no push */
	IRV_CONTINUE,	/* jump/goto to the very next entry: count, go on */
	IRV_ERROR,	/* ERROR target: a user chain head; if executed, DROP */
	IRV_KERNEL,	/* any other target: only the kernel's walk runs it */
};

/*
 * An IPv6 rule's addresses and IP6T_F_PROTO (ir_rule.ip6); the rest of
 * its struct ip6t_ip6 is in ir_rule.ip, whose bits ip6_tables numbers
 * as ip_tables does (interfaces, protocol and their IPT_INV_* flags);
 * ip.proto and IPT_INV_PROTO only with @fproto, as ip6_packet_match()
 * tests the protocol only then.
 */
struct ir_ip6 {
	uint8_t src[16], dst[16], smsk[16], dmsk[16];	/* network order */
	bool fproto;	/* find the transport header (ipv6_find_hdr()) */
};

struct ir_rule {
	unsigned int idx;	/* entry index = counter slot */
	unsigned int off;	/* byte offset in the blob */
	struct ipt_ip ip;	/* IPv6: no addresses, no flags (ir_ip6) */
	const struct ir_ip6 *ip6;	/* IPv6 only, else NULL */
	unsigned int nmatch;
	struct ir_match *m;	/* nmatch of them, in ir_table.matches */
	enum ir_verdict verdict;
	unsigned int target;	/* IRV_JUMP/IRV_GOTO: entry index */
	bool func_start;	/* evaluation may begin here */
	bool always;		/* no condition at all: always matches */
	/* a match or target without an emitter (ir_build_ext() with
	 * IR_KERNEL_WALKS), or a jump into a chain the kernel walks whole
	 * (ir.c, mark_walked_chains()): no program can evaluate it; a KMOD
	 * program stops there and the kernel walks on (cgen/abi.h, "Kernel
	 * rules") */
	bool kernel;
	/* ... because of a match: not all of its conditions are in ->m */
	bool kernel_match;
};

struct ir_table {
	bool ipv6;		/* of struct ip6t_entry: rules' ->ip6 */
	unsigned int nrules;
	struct ir_rule *rules;
	struct ir_match *matches;	/* all rules' matches, in order */
	struct ir_ip6 *ip6s;		/* IPv6: one per rule */
	unsigned int valid_hooks;
	unsigned int hook_entry[NF_INET_NUMHOOKS];	/* entry index per hook */
	unsigned int underflow[NF_INET_NUMHOOKS];
	bool uses_ct;		/* some rule needs conntrack state */
	bool uses_tcpopt;
};

/*
 * ir_build() - decode @t into @ir
 * Return: 0, or -errno with a one-line reason in @err (an extension the
 * back end cannot enforce, a malformed blob).
 */
int ir_build(const struct ipt_table_view *t, struct ir_table *ir,
	     char *err, size_t err_len);

/*
 * IR_KERNEL_WALKS: the enforcing side walks the rules of a hook the helper
 * does not compile, with the kernel's own extensions (kmod: ebpfilter.ko,
 * which also checked every extension).  A match or target without an
 * emitter, one the helper does not know at all included, or more than
 * IR_MAX_MATCH matches, then marks its rule ->kernel instead of refusing
 * the table.
 */
#define IR_KERNEL_WALKS	1u
int ir_build_ext(const struct ipt_table_view *t, unsigned int flags,
		 struct ir_table *ir, char *err, size_t err_len);
void ir_free(struct ir_table *ir);

/*
 * The hooks (1 << NF_INET_*) whose evaluation can reach a ->kernel rule,
 * following the table as ipt_do_table() can: from the hook's entry and
 * underflow, on through the entries, into jump and goto targets, until an
 * unconditional ACCEPT/DROP/RETURN/goto.  A program cannot decide all
 * their packets: only a mechanism whose kernel side walks on from a rule
 * compiles them (CG_KMOD).
 */
unsigned int ir_kernel_hooks(const struct ir_table *ir);

/*
 * Word @w (0 or 1) of a 16-byte interface name or mask, as the programs
 * load it from the device: 8 bytes in host order.
 */
static inline uint64_t ir_name_word(const char *name, int w)
{
	uint64_t v;

	memcpy(&v, name + 8 * w, sizeof(v));
	return v;
}

/* True when @r matches every packet (no address, interface, proto, flag
 * or extension condition). */
bool ir_rule_unconditional(const struct ir_rule *r);

#endif
