/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tuple-space classification of rule runs (see classify.c; the lookups
 * are emitted by runs_classified.c).
 *
 * A "run" is a stretch of consecutive rules of one chain, each ending in
 * ACCEPT or DROP, or (KMOD) handed to the kernel's walk (a kernel rule
 * whose conditions are all compiled: a target without an emitter, or a
 * jump into a chain the kernel walks, such as kube-proxy's per-service
 * jumps), and testing only fields a hash key can hold: addresses and
 * interface names under a mask, the protocol, exact tcp/udp ports (IPv6:
 * the 128-bit addresses under prefixes, as two 8-byte words each).  Rules
 * testing the same fields under the same masks form a "group"; a group is
 * one hash map from the masked field values to the first rule (in blob
 * order) with those values.  A packet's first matching rule in the run is
 * the smallest rule index found by looking up its masked fields in every
 * group: a constant number of lookups however many rules the run has.
 */
#ifndef UMH_CLASSIFY_H
#define UMH_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "cgen/codegen.h"
#include "ir/ir.h"

#define CLS_MAX_GROUPS	16	/* lookups per packet at most */
#define CLS_MIN_RUN	8	/* shorter runs stay linear code */
/* a group's key at most: what fits at PI_KEY (cgen/abi.h); an IPv4 key
 * (four name words, two addresses, pl4, ports) always does, an IPv6 rule
 * whose key would not stays linear code */
#define CLS_KEY_MAX	(8 * 4 + 4 * 4)
/* a group of this many keys or fewer is compared inline, not looked up:
 * a hash lookup (the key stored, the helper call, the hash and the
 * bucket's compare) costs more than comparing a key word or two with
 * immediates, and a set-like run ends with one such group (its
 * accepting rule) in every packet's path (bench/README.md) */
#define CLS_INLINE_MAX	2

/* The packet fields a key word is taken from (runs_classified.c maps them
 * to pi). */
enum cls_field {
	CLS_IN0, CLS_IN1,	/* input device name, bytes 0-7, 8-15 */
	CLS_OUT0, CLS_OUT1,	/* output device name */
	CLS_SADDR, CLS_DADDR,	/* u32 as in the header */
	CLS_PL4,		/* proto | l4state << 8 (below) */
	CLS_PORTS,		/* sport << 16 | dport, 0 unless l4state 1 */
	CLS_SRC6_0, CLS_SRC6_1,	/* IPv6 source, bytes 0-7, 8-15 as in the header */
	CLS_DST6_0, CLS_DST6_1,	/* IPv6 destination */
};

/*
 * l4state of a tcp or udp packet, as xt_tcpudp sees it: 1 the header
 * (20 bytes tcp, 8 udp) is there and the packet is no fragment; 2 a tcp/udp
 * match would drop it (hotdrop: header missing at offset 0, tcp fragment
 * offset 1); 0 otherwise (a later fragment, another protocol).
 */
#define CLS_L4_OK	1
#define CLS_L4_HOTDROP	2

/*
 * Value of a group's map: { rule index << 3 | walk << 2 | hotdrop << 1 |
 * accept, the rule's blob offset (where a walk starts) }.
 */
#define CLS_V_SHIFT	3
#define CLS_V_WALK	4u
#define CLS_V_HOTDROP	2u
#define CLS_V_ACCEPT	1u

struct cls_value {
	uint32_t v;
	uint32_t off;
};

struct cls_word {
	enum cls_field field;
	uint8_t size;		/* 8 (names) or 4 */
	uint64_t mask;
};

struct cls_group {
	unsigned int nwords;
	struct cls_word w[10];	/* key = the masked words, in this order */
	unsigned int key_size;
	unsigned int nrules;
	int map;		/* index in the program's maps; -1: inline */
};

/* a group compared inline (cls_describe_maps()): its keys and values */
struct cls_inline {
	unsigned int n;
	unsigned char key[CLS_INLINE_MAX][CLS_KEY_MAX];
	struct cls_value val[CLS_INLINE_MAX];
};

struct cls_run {
	unsigned int start, len;
	bool walks;		/* some rule is handed to the kernel */
	/* KMOD: a packet a tcp/udp match would drop (l4state 2) is handed
	 * to the kernel's walk at the run's first rule, so the maps hold no
	 * hotdrop twins (set by the emitter before cls_describe_maps()) */
	bool hd_walk;
	unsigned int ngroups;
	struct cls_group g[CLS_MAX_GROUPS];
	/* by group, those with map -1 (set by cls_describe_maps()) */
	struct cls_inline inl[CLS_MAX_GROUPS];
	/* by rule index, the caller's (ir->nrules long): each rule's group,
	 * as cls_scan() found it, for cls_describe_maps() */
	unsigned char *group;
};

/* Can @r be part of a run? */
bool cls_rule_ok(const struct ir_rule *r);

/*
 * cls_scan() - the run that starts at rule @i, up to (not including) the
 * next function start, with at most CLS_MAX_GROUPS groups.
 * Return: its length in rules (0 if rule @i cannot start one); @run gets
 * the groups (no maps yet), and @group (by rule index, ir->nrules long)
 * the group of each rule of the run.
 */
unsigned int cls_scan(const struct ir_table *ir, unsigned int i,
		      struct cls_run *run, unsigned char *group);

/* Does a rule of @run have a tcp/udp match (a key with l4state 1)? */
bool cls_run_has_l4(const struct ir_table *ir, const struct cls_run *run);

/* Worth it?  Long enough, and several rules per lookup. */
bool cls_worth(const struct cls_run *run);

/*
 * cls_describe_maps() - describe one hash map per group (its elements: the
 * first rule per key) and append them to @p's maps; each group's @map is
 * its index there, or -1 for a group of at most CLS_INLINE_MAX keys, whose
 * keys and values are in @run->inl instead.
 * Return: 0, or -errno with a reason in @err.
 */
int cls_describe_maps(const struct ir_table *ir, struct cls_run *run,
		      struct cg_prog *p, char *err, size_t err_len);

#endif
