/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the iptables ABI stage hands on: a validated table, in ip_tables'
 * own blob layout.  The IR is built from it (ir/); nothing here depends on
 * a later stage.
 */
#ifndef UMH_IPT_TABLE_VIEW_H
#define UMH_IPT_TABLE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ebpfilter/ctl.h>

/* ip_tables' tables, in this order (the module's too): a table's index
 * (struct ipt_table_view.index) is its place here */
#define IPT_TABLE_NAMES	EBPF_CTL_TABLE_NAMES
#define IPT_NTABLES	EBPF_CTL_NTABLES

/**
 * struct ipt_table_view - a validated table, in ip_tables' own blob layout
 * @name:        table name ("filter", "nat", ...)
 * @netns:       the network namespace it belongs to (the module's number,
 *               ebpfilter/proto.h; EBPF_NETNS_INIT: the initial one)
 * @family:      NFPROTO_IPV4: ip_tables' (@entries are struct ipt_entry);
 *               NFPROTO_IPV6: ip6_tables' (struct ip6t_entry, which the
 *               IR and the code generator do not read)
 * @index:       its place in IPT_TABLE_NAMES (0: filter)
 * @entries:     the entry array exactly as SET_REPLACE gave it
 *               (validated: offsets, jumps, extension payloads all checked);
 *               a backend's commit may rewrite it in place, same layout
 *               (kmod: the module's GET_ENTRIES form, ipt/backend.h)
 * @size:        bytes in @entries
 * @num_entries: number of entries
 * @valid_hooks: bitmask of NF_INET_* hooks
 * @hook_entry:  offset of each hook's first rule
 * @underflow:   offset of each hook's policy rule
 * @adopt:       a restarted helper restores these rules: the backend may
 *               carry over what the rules in force counted
 *               (ipt_backend_ops.adopts)
 */
struct ipt_table_view {
	const char *name;
	uint64_t netns;
	unsigned int family;
	unsigned int index;
	void *entries;
	size_t size;
	unsigned int num_entries;
	unsigned int valid_hooks;
	unsigned int hook_entry[5];
	unsigned int underflow[5];
	bool adopt;
	const unsigned char *writeback;	/* struct ipt_blob's */
};

#endif
