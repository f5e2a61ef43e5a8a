/* SPDX-License-Identifier: GPL-2.0 */
/*
 * soak-tool's parts (tests/soak/): soak-tool.c (the commands, the
 * requests every part makes, the traffic probe), soak-family.c (what
 * differs between ip_tables and ip6_tables: the family descriptors and the
 * committed rules), soak-fuzz.c (the sockopt fuzzer, one for both
 * families).
 */
#ifndef TESTS_SOAK_TOOL_H
#define TESTS_SOAK_TOOL_H

#include <stdint.h>
#include <sys/socket.h>

#include "err_name.h"
#include "ipt_builder.h"

#define ACC_PORT 9998
#define DROP_PORT 9999

#define NAT_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_IN) | \
		   (1 << NF_INET_LOCAL_OUT) | (1 << NF_INET_POST_ROUTING))
#define ALL_HOOKS ((1 << NF_INET_NUMHOOKS) - 1)
#define RAW_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_OUT))

/*
 * What the fuzzer, the requests and the probe need to know of an address
 * family.  The request heads are the same structures in both families
 * (struct ip6t_replace, ip6t_getinfo and ip6t_get_entries have the
 * layouts of their IPv4 twins, which the code uses for both); the
 * entries are not (struct ip6t_entry is bigger, its fields elsewhere),
 * so they are reached through the offsets here.
 */
struct family {
	const char *name;	/* "ipv4", "ipv6": messages */
	int domain;		/* AF_INET, AF_INET6: sockopt and probe sockets */
	int level;		/* SOL_IP, SOL_IPV6 */
	int so_replace, so_add_counters, so_info, so_entries;
	int so_rev_match, so_rev_target;
	uint64_t salt;		/* mixed into each case's random stream */
	unsigned int entry_size;	/* sizeof(struct ipt_entry) or ip6t_entry */
	/* offsets in an entry */
	unsigned int at_target, at_next, at_comefrom, at_counters;
	unsigned int at_proto, at_flags, at_invflags, at_iniface;
	/* edge values: an entry head, a head with a standard target */
	uint32_t sizes[2];
	/* the names the revision queries ask for */
	const char *const *rev_names;
	unsigned int nrev_names;
	void (*init)(struct tb *t);
	/* start a rule for @proto (0: any) out of @oif (NULL: any) */
	void (*begin)(struct tb *t, int proto, const char *oif);
	/* the ICMP rule of the committed rules: its match */
	void (*icmp_rule)(struct tb *t);
	/* the family's own rules in the user chain (NULL: none) */
	void (*chain_rules)(struct tb *t);
	/* the probe's address: the loopback's @port */
	socklen_t (*loopback)(struct sockaddr_storage *a, unsigned int port);
};

extern const struct family fam4, fam6;

/* the family of this run, and the raw socket its requests go through */
extern const struct family *fam;
extern int sock;

/* the entry field at @at of the entry at @e */
static inline uint16_t *ent16(void *e, unsigned int at)
{
	return (uint16_t *)((unsigned char *)e + at);
}

/* soak-tool.c */
int get_info(const char *name, struct ipt_getinfo *info);
uint64_t table_hash(const char *table, int *err);
unsigned int num_entries(const char *table);
int send_replace(struct buf *req, socklen_t len, bool bad_ptr);
int traffic_setup(void);
int traffic_ok(int tx);

/* soak-family.c: the tables and their committed rules */
struct table {
	const char *name;
	unsigned int hooks;
	uint64_t base_hash;	/* of the committed rules */
	unsigned int base_entries;
};
extern struct table tables[];
extern const unsigned int ntables;
/* @tbl's committed rules (@rich) or its empty layout, in fam's family */
void build(struct tb *t, const struct table *tbl, int rich);
int commit_base(struct table *tbl);

/* soak-fuzz.c */
int fuzz(uint64_t seed, unsigned int n, unsigned int first);

#endif
