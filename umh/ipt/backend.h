/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ipt/ needs from whatever enforces its tables: the one way out of
 * the iptables ABI stage.  main.c (the composition root) plugs in load/'s
 * enforce_commit()/enforce_read_counters(); the host tests a fake
 * (tests/unit/fake_enforce.c).  ipt/ includes nothing of a later stage.
 */
#ifndef UMH_IPT_BACKEND_H
#define UMH_IPT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/netfilter/x_tables.h>

#include "ipt/table_view.h"

/*
 * A commit's answer when the table needs connection tracking the module
 * has not enabled yet: nothing changed, the caller asks the module and the
 * request is made again (see EBPF_F_WANT_CONNTRACK in proto.h).  Returned
 * negated; never an errno.
 */
#define IPT_BACKEND_NEED_CONNTRACK	4096

/**
 * struct ipt_backend_ops - the enforcement backend, as ipt/ sees it
 * @commit:        put @t in force atomically; 0, or -errno (or
 *                 -IPT_BACKEND_NEED_CONNTRACK) with the previous rules
 *                 still in force and a one-line reason in @err.  The new
 *                 table's counters start at zero.  On success @t->entries
 *                 may have been rewritten in place (same layout): what
 *                 GET_ENTRIES shows from then on (kmod: the module zeroes
 *                 the kernel-private tails of extensions ipt/ does not know)
 * @read_counters: add the packet/byte counts since the last commit of
 *                 table @index (struct ipt_table_view.index) of family
 *                 @family (NFPROTO_IPV4/IPV6) of namespace @netns, per
 *                 entry in blob order, to @c[0..n-1]; 0 or -errno
 * @read_retired_counters: optional: after a commit of table @index, add
 *                 what the rules it replaced counted to the end, to
 *                 @c[0..n-1] (then the commit's old counters are read
 *                 after the switch, not before: nothing counted in
 *                 between is lost); 0 or -errno
 * @restore_counters: optional: in a restore (ipt_state_restore()), add
 *                 to @c[0..n-1] what the rules of table @index of @netns
 *                 counted until a change replaced them that the backend
 *                 knows was never acknowledged (a helper died between
 *                 the switch and its reply); 0 or -errno
 * @kernel_checks: does the enforcing kernel side check every match and
 *                 target itself, as ip_tables would (kmod)?  Then ipt/
 *                 accepts extensions it has no descriptor for (name or
 *                 revision) and leaves their errnos to the commit.  NULL:
 *                 no
 * @tables:        the tables it enforces, a bit per index
 *                 (IPT_TABLE_NAMES); NULL: filter only
 * @namespaces:    does it enforce tables of network namespaces other than
 *                 the initial one (kmod)?  NULL: no, their requests get
 *                 ENOENT
 * @ipv6:          does it enforce ip6_tables' tables (kmod: the module
 *                 walks them)?  NULL: no, their requests get ENOENT
 * @adopts:        does a commit of a view with @adopt carry over what the
 *                 rules in force counted, rule by rule (kmod: the module
 *                 does it after the switch)?  Then a restore does not
 *                 read them first.  NULL: no
 * @forget:        optional: namespace @netns is gone (its tables too, in
 *                 the kernel): let go of everything kept for it
 *
 * Each gets the @ctx given to ipt_set_backend().
 */
struct ipt_backend_ops {
	int (*commit)(void *ctx, const struct ipt_table_view *t, char *err,
		      size_t err_len);
	int (*read_counters)(void *ctx, uint64_t netns, unsigned int family,
			     unsigned int index, struct xt_counters *c,
			     unsigned int n);
	int (*read_retired_counters)(void *ctx, uint64_t netns,
				     unsigned int family, unsigned int index,
				     struct xt_counters *c, unsigned int n);
	int (*restore_counters)(void *ctx, uint64_t netns, unsigned int family,
				unsigned int index, struct xt_counters *c,
				unsigned int n);
	bool (*kernel_checks)(void *ctx);
	unsigned int (*tables)(void *ctx);
	bool (*namespaces)(void *ctx);
	bool (*ipv6)(void *ctx);
	bool (*adopts)(void *ctx);
	void (*forget)(void *ctx, uint64_t netns);
};

/* Enforce through @ops from now on (before ipt_init()). */
void ipt_set_backend(const struct ipt_backend_ops *ops, void *ctx);

#endif
