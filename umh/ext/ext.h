/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x_tables extensions the helper serves: one descriptor per extension,
 * in one file each (ext/tcpudp.c, icmp.c, ...), the way the kernel's
 * xt_tcpudp.c registers a struct xt_match: what ip_tables checks (name,
 * revisions and their payload sizes, protocol, checkentry), how the front
 * end decodes it into the rule IR, and how the back end compiles it (the
 * packet fields it needs, its emitter, hotdrop, whether the classifier may
 * take it).  Adding an extension is adding a file and a line in
 * registry.c.
 *
 * Each stage looks the descriptors up (ipt/ext.c for checks and
 * revisions, ir/ir.c for decoding, cgen/ for emitting); this header names
 * the later stages' types only as incomplete structs, so including it
 * does not make ipt/ depend on ir/ or cgen/.
 *
 * An extension that ip_tables accepts but no BPF emitter implements has
 * @emit NULL: the front end refuses a rule using it (-EOPNOTSUPP, "not
 * enforced"); one we do not serve at all is absent (-ENOENT at the check).
 */
#ifndef UMH_EXT_EXT_H
#define UMH_EXT_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netfilter_ipv4/ip_tables.h>

struct cg;
struct ir_match;
struct ir_table;

#define EXT_UNUSED	__attribute__((unused))

#define EXT_MAX_REVS	3

struct ext_rev {
	uint8_t revision;
	unsigned int size;	/* matchsize / targetsize of that revision */
};

/* What ext_desc.decode() is given. */
struct ext_decode {
	const void *data;	/* the payload, at least its revision's size */
	uint8_t rev;
	const struct ipt_ip *ip;	/* the rule's */
	struct ir_table *ir;	/* table-wide flags (uses_ct, uses_tcpopt) */
	char *err;		/* the reason for a refusal */
	size_t err_len;
};

/*
 * ext_desc.check's answer for a payload that only some kernels refuse
 * (multiport's malformed ranges: refused since multiport_valid_ranges(),
 * accepted by 5.10): -EINVAL where the helper checks alone; where the
 * backend's kernel checks every extension (kmod) that check decides, and
 * the rule's decode() leaves it to the kernel's walk (-EOPNOTSUPP).
 */
#define EXT_KERNEL_DECIDES	1

/* ext_desc.decode's answer for a match that tests nothing (comment) */
#define EXT_MATCHES_ALL	1

struct ext_desc {
	const char *name;
	bool target;
	/*
	 * Registered for NFPROTO_UNSPEC rather than NFPROTO_IPV4.  It
	 * changes one errno: xt_find_match() searches the IPv4 list, then
	 * returns whatever the UNSPEC search finds, so a wrong revision of
	 * an IPv4-only extension is -ENOENT but of an UNSPEC one -EPROTOTYPE.
	 */
	bool unspec;
	unsigned int nrevs;
	struct ext_rev revs[EXT_MAX_REVS];
	uint16_t proto;		/* xt_match.proto: required ipt_ip.proto */
	/* checkentry of @rev's payload: 0 or -errno */
	int (*check)(const struct ipt_ip *ip, const void *data, uint8_t rev);

	/*
	 * ir/: the payload into @m, of kind @ir_kind; 0, EXT_MATCHES_ALL
	 * (nothing stored), or -errno with d->err.  NULL: not enforced.
	 */
	int (*decode)(const struct ext_decode *d, struct ir_match *m);
	int ir_kind;		/* enum ir_match_kind; 0: none */

	/* cgen/: what the prologue must extract (NEED_* of cgen/abi.h) */
	unsigned char need_hdr, need_fields;
	bool hotdrop;		/* may drop a packet whose header is missing */
	/* the conditions of @m into r7 (and r8, if @hotdrop); c->skip says
	 * which field a set-like run keys on instead */
	void (*emit)(struct cg *c, const struct ir_match *m);
	/* may a classified run take @m (classify.h: exact or any ports of
	 * a tcp/udp header, nothing else)? NULL: never */
	bool (*cls_ports)(const struct ir_match *m);
};

/* The descriptor of match (@target false) or target @name, or NULL. */
const struct ext_desc *ext_find(const char *name, bool target);
/* @x's revision @rev, or NULL if it has none such. */
const struct ext_rev *ext_rev(const struct ext_desc *x, uint8_t rev);
/* The first match descriptor that decodes to IR kind @kind (NULL: none):
 * the one the back end asks for its emitter and needs. */
const struct ext_desc *ext_of_kind(int kind);
/* All descriptors, for iteration: ext_at(0 .. ext_count() - 1). */
unsigned int ext_count(void);
const struct ext_desc *ext_at(unsigned int i);

/* for decode(): @e with a formatted reason in @err */
int ext_fail(char *err, size_t err_len, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* icmp's emitter's pieces, which icmp6's uses too (icmp.c) */
void ext_emit_icmp_header(struct cg *c);
void ext_emit_icmp_type(struct cg *c, const struct ir_match *m);

/* conntrack's --ctstate emitter, which state's matches use too */
void ext_emit_ctstate(struct cg *c, const struct ir_match *m);

/* the descriptors (one file each) */
extern const struct ext_desc ext_tcp, ext_udp, ext_icmp, ext_multiport,
	ext_iprange, ext_comment, ext_conntrack, ext_state,
	ext_standard, ext_error;
/* IPv6 only (not in the registry's list, so ext_find() never finds it) */
extern const struct ext_desc ext_icmp6;
/* May an IPv6 rule's match be decoded by @x?  Only those written for
 * both families' semantics: tcp, udp, multiport (their ports and flags
 * read the transport header ip6_tables found, at the same fragment rules),
 * state and conntrack --ctstate (the packet's conntrack state, which the
 * module computes at an IPv6 hook as at an IPv4 one), comment */
bool ext_ipv6_ok(const struct ext_desc *x);

#endif
