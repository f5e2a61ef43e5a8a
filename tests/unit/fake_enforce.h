/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for the BPF enforcement backend (umh/load/) in host tests,
 * plugged into ipt/ through the same interface main.c uses
 * (umh/ipt/backend.h): it records what was committed, can be told to
 * refuse, and counts "packets" per entry as the tests say.
 */
#ifndef TESTS_FAKE_ENFORCE_H
#define TESTS_FAKE_ENFORCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipt/backend.h"

struct fake_enforce {
	int fail_commit;	/* commit returns this if non-zero */
	/* a kernel side that checks extensions itself (kmod) */
	bool kernel_checks;
	/* rewrite byte @rewrite_at - 1 of the entries to @rewrite_byte in a
	 * successful commit, as the kmod module writes its copy back */
	size_t rewrite_at;
	unsigned char rewrite_byte;
	int fail_read;		/* read_counters returns this */
	/* the tables it enforces, a bit per index (0: filter only, the
	 * tc and netfilter mechanisms; 0x1f: kmod) */
	unsigned int tables;
	unsigned int commits;	/* successful commits */
	/* the last committed table (any), deep-copied */
	unsigned char *entries;
	size_t size;
	unsigned int num_entries;
	unsigned int valid_hooks;
	unsigned int hook_entry[5], underflow[5];
	char name[32];
	/* its writeback bitmap's first bytes (zeros when it had none) */
	unsigned char writeback[8];
	bool writeback_given;
	/* filter's counts since its last commit (@num_entries of them
	 * when filter was committed last) */
	struct xt_counters *counts;
	/* the other tables' entries and counts (zero) since their commits */
	unsigned int other_entries[5];
	/* serves namespaces other than the initial one (kmod) */
	bool namespaces;
	/* serves ip6_tables' tables (kmod); counts nothing in them */
	bool ipv6;
	uint64_t netns;		/* of the last commit */
	unsigned int family;	/* of the last commit */
	uint64_t gone_netns;	/* commits into it fail with ESRCH */
	uint64_t forgotten;	/* the last namespace forget() was told of */
	unsigned int forgets;
	/* kept for a restore (load/'s parked counters): @parked_n counts
	 * of table @parked_index, added if the restored table has that many
	 * entries; @parked_added: how often they were */
	struct xt_counters parked[32];
	unsigned int parked_index, parked_n, parked_added;
};

extern struct fake_enforce fake;

/* Forget everything and be ipt/'s backend (before ipt_init()). */
void fake_reset(void);
/* Count a packet of @bytes on entry @idx of the committed table. */
void fake_count(unsigned int idx, uint64_t pkts, uint64_t bytes);

#endif
