/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: build an ip_tables "filter" blob from iptables-save text with
 * the test-blob builder (ipt_builder.h), laid out as libiptc lays it out (INPUT, FORWARD, OUTPUT, then user chains
 * sorted by name, each an ERROR head + rules + RETURN tail; a final ERROR).
 * Supports the options ebpfilter enforces: -s -d -i -o -p -f (with !),
 * -m tcp/udp (--sport --dport --tcp-flags --syn), icmp (--icmp-type),
 * multiport (--sports --dports --ports), iprange (--src-range --dst-range),
 * comment, state (--state), conntrack (--ctstate; --ctproto, which only
 * the kernel's walk enforces), -j, -g.
 * "-m kernel:NAME" and "-j kernel:NAME" put an extension NAME with an
 * opaque zeroed payload (revision 0) in the rule: one the helper has no
 * descriptor for, which only the kmod mechanism accepts (the module checks
 * and runs it).
 */
#ifndef IPTBLOB_H
#define IPTBLOB_H

#include <stddef.h>
#include "ipt/table_view.h"

#define KERNEL_EXT	"kernel:"
#define KERNEL_EXT_SIZE	8

struct iptblob {
	unsigned char *data;
	size_t size;
	unsigned int num_entries;
	unsigned int hook_entry[5], underflow[5];
	/* blob index of the n-th rule of a chain: see iptblob_index() */
	char chain_names[64][32];
	unsigned int chain_first[64];	/* entry index of rule 1 */
	unsigned int nchains;
};

/* 0, or -1 with a message in err */
int iptblob_build(const char *text, struct iptblob *b, char *err, size_t len);
void iptblob_view(const struct iptblob *b, struct ipt_table_view *v);
/* entry index of rule @n (1-based) of @chain; n = 0: the policy/tail */
int iptblob_index(const struct iptblob *b, const char *chain, unsigned int n);
void iptblob_free(struct iptblob *b);

#endif
