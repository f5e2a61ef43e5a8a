/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference for the generated programs: the rule IR evaluated in C the
 * way ipt_do_table() walks the blob (ip_packet_match(), each match's
 * kernel function with its hotdrop, the jump stack, counters), written
 * from the kernel's code, not from the code generator's.
 */
#ifndef CG_REF_H
#define CG_REF_H

#include <stdbool.h>
#include "cgen/codegen.h"
#include "ir/ir.h"

/* what ip_tables sees of a packet */
struct ref_pkt {
	__u32 saddr, daddr;	/* network order */
	bool v6;		/* IPv6: the addresses are these */
	__u8 saddr6[16], daddr6[16];
	__u8 proto;
	__u16 fragoff;
	const unsigned char *l4;	/* the transport header ... */
	unsigned int l4len;	/* ... and the bytes of it there are */
	char in[IFNAMSIZ], out[IFNAMSIZ];	/* zero-padded, "" for none */
	unsigned int ctstate;	/* IR_CT_* bit of the packet */
	unsigned int len;	/* bytes counted */
};

/*
 * Evaluate @ir at netfilter hook @nfhook (NF_INET_*) for @p; add to
 * @ctr[nrules] as ip_tables counts.  1 ACCEPT, 0 DROP.  With @walk (kmod):
 * a kernel rule (->kernel) whose ipt_ip part matches stops the evaluation,
 * uncounted: 2 (EBPF_PROG_WALK), *@walk says where the module's walk goes
 * on (the rule's offset, the offsets of the jumps taken, outermost first);
 * -1 if the jump stack is deeper than a record holds.
 */
struct ebpf_resume;
int ref_eval(const struct ir_table *ir, unsigned int nfhook, const struct ref_pkt *p,
	     struct cg_counter *ctr, struct ebpf_resume *walk);

/* the index of the rule at blob offset @off, -1 if none */
int ref_rule_at(const struct ir_table *ir, __u32 off);

/*
 * The module's walk (kmod) from the record @from a program left: as
 * ref_eval() from its entry with its jump stack; -1 if a rule it names is
 * not in @ir.
 */
int ref_resume(const struct ir_table *ir, unsigned int nfhook, const struct ref_pkt *p,
	       struct cg_counter *ctr, const struct ebpf_resume *from,
	       struct ebpf_resume *walk);

/* @p's IP packet (@ip, @n bytes from the IP header) as ip_tables sees it */
void ref_pkt_from(struct ref_pkt *p, const unsigned char *ip, unsigned int n);

/*
 * The same for an IPv6 packet (@n bytes, all counted) as ip6_tables sees
 * it: the transport header as ipv6_find_hdr(skb, &thoff, -1, &fragoff,
 * NULL) finds it.  0; -1 for a packet the programs hand to the module's
 * walk of the whole hook (cgen/prologue_ip6.c): the search fails
 * (-ENOENT), more than @max_ext extension headers, fewer than 4 bytes
 * where one starts.
 */
int ref_pkt_from6(struct ref_pkt *p, const unsigned char *ip6, unsigned int n,
		  unsigned int max_ext);

#endif
