/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builds ip_tables blobs the way libiptc lays them out (built-in chains
 * with their policies in hook order, then user chains as ERROR head +
 * rules + RETURN tail, then the ERROR "ERROR" tail), plus the request
 * buffers (struct ipt_replace + blob, struct xt_counters_info + counters)
 * that iptables sends.  Tests then corrupt the result byte by byte.
 * The one builder of test blobs: the unit tests, the fuzzer's seed
 * generator, the guest's ipt-badblob, and (through iptblob.h, which parses
 * iptables-save text) the code-generation tests.  tb_init6() makes it
 * build ip6_tables blobs (struct ip6t_entry; struct ip6t_replace has
 * struct ipt_replace's layout), whose rules start with tb_begin6().
 */
#ifndef TESTS_IPT_BUILDER_H
#define TESTS_IPT_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "lib/buf.h"

struct tb_fixup {
	unsigned int verdict_at;
	char chain[XT_FUNCTION_MAXNAMELEN];
};

struct tb_chain {
	char name[XT_FUNCTION_MAXNAMELEN];
	unsigned int first_rule;	/* offset */
};

struct tb {
	struct buf b;		/* the entries */
	unsigned int cur;	/* offset of the entry being built */
	unsigned int num_entries;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
	struct tb_fixup *fixup;	/* jumps, resolved by tb_finish() */
	unsigned int nfixup, fixup_cap;
	struct tb_chain *chain;	/* user chains */
	unsigned int nchain, chain_cap;
	bool ip6;		/* struct ip6t_entry (tb_init6()) */
};

void tb_init(struct tb *t);
void tb_init6(struct tb *t);
void tb_free(struct tb *t);
static inline struct ipt_entry *tb_entry_at(struct tb *t, unsigned int off)
{
	return (struct ipt_entry *)(t->b.data + off);
}

static inline struct ip6t_entry *tb_entry6_at(struct tb *t, unsigned int off)
{
	return (struct ip6t_entry *)(t->b.data + off);
}

/* Start an entry; @ip may be NULL (unconditional).  Returns its offset. */
unsigned int tb_begin(struct tb *t, const struct ipt_ip *ip);
unsigned int tb_begin6(struct tb *t, const struct ip6t_ip6 *ip);
void tb_match(struct tb *t, const char *name, uint8_t rev, const void *data,
	      unsigned int len);
/* End the entry with a target. */
void tb_std(struct tb *t, int verdict);
void tb_jump(struct tb *t, const char *chain, bool is_goto);
/* A standard target that continues with the next entry (a rule without -j). */
void tb_fallthrough(struct tb *t);
void tb_error(struct tb *t, const char *errorname);
void tb_target(struct tb *t, const char *name, uint8_t rev, const void *data,
	       unsigned int len);

/* Whole entries. */
void tb_hook(struct tb *t, unsigned int hook);	/* next entry starts @hook */
void tb_policy(struct tb *t, unsigned int hook, int verdict);
void tb_chain(struct tb *t, const char *name);	/* ERROR head of a chain */
void tb_chain_end(struct tb *t);		/* the RETURN tail */
/* Is @name a user chain started with tb_chain()? */
bool tb_has_chain(const struct tb *t, const char *name);
/* The ERROR "ERROR" tail; resolves jumps to chains (all must exist). */
void tb_finish(struct tb *t);

/* The empty filter table: three ACCEPT policies and the tail. */
void tb_filter_initial(struct tb *t);
void tb_filter_initial6(struct tb *t);

/* Base rules that only name a protocol. */
extern const struct ipt_ip ip_tcp, ip_udp, ip_icmp;

/*
 * The blob of the ABI notes (verified against ip_tables): -N MYCHAIN;
 * -A INPUT -p tcp --dport 22 -j MYCHAIN; -A MYCHAIN -s 10/8 -j DROP;
 * -A MYCHAIN -j RETURN; -P FORWARD DROP.
 */
void tb_notes(struct tb *t);
/* The same for ip6tables, MYCHAIN's rule -s 2001:db8::/32 -j DROP. */
void tb_notes6(struct tb *t);

/* struct ipt_replace + entries into @out (reset first). */
void tb_replace(struct tb *t, struct buf *out, const char *table,
		unsigned int valid_hooks, unsigned int num_counters);
/* struct xt_counters_info + @n counters (all set to @pcnt/@bcnt). */
void tb_counters(struct buf *out, const char *table, unsigned int n,
		 uint64_t pcnt, uint64_t bcnt);

#define FILTER_HOOKS ((1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | \
		      (1 << NF_INET_LOCAL_OUT))
#define V_ACCEPT (-NF_ACCEPT - 1)
#define V_DROP	 (-NF_DROP - 1)
#define V_QUEUE	 (-NF_QUEUE - 1)

#endif
