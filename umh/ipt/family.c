// SPDX-License-Identifier: GPL-2.0
/*
 * The family descriptors (family.h): ip_tables' entries and ip6_tables'.
 */
#include <stddef.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "ipt/family.h"

/* ip_checkentry() */
static bool ip4_ok(const void *p)
{
	const struct ipt_ip *ip = p;

	return !(ip->flags & ~IPT_F_MASK) && !(ip->invflags & ~IPT_INV_MASK);
}

/* ip6_checkentry() */
static bool ip6_ok(const void *p)
{
	const struct ip6t_ip6 *ip = p;

	return !(ip->flags & ~IP6T_F_MASK) && !(ip->invflags & ~IP6T_INV_MASK);
}

#define FAMILY(proto, name, entry, ipfield, ok) {			\
	.nfproto = (proto),						\
	.tool = (name),							\
	.entry_size = sizeof(struct entry),				\
	.ip_size = sizeof(((struct entry *)0)->ipfield),		\
	.target_off = offsetof(struct entry, target_offset),		\
	.next_off = offsetof(struct entry, next_offset),		\
	.comefrom_off = offsetof(struct entry, comefrom),		\
	.counters_off = offsetof(struct entry, counters),		\
	.ip_ok = (ok),							\
}

const struct ipt_family ipt_family_ipv4 =
	FAMILY(NFPROTO_IPV4, "iptables", ipt_entry, ip, ip4_ok);
const struct ipt_family ipt_family_ipv6 =
	FAMILY(NFPROTO_IPV6, "ip6tables", ip6t_entry, ipv6, ip6_ok);

_Static_assert(offsetof(struct ipt_entry, ip) == 0 &&
	       offsetof(struct ip6t_entry, ipv6) == 0,
	       "the IP part leads both entries");

const struct ipt_family *ipt_family_of(unsigned int nfproto)
{
	if (nfproto == NFPROTO_IPV4)
		return &ipt_family_ipv4;
	if (nfproto == NFPROTO_IPV6)
		return &ipt_family_ipv6;
	return NULL;
}
