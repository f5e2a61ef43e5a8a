// SPDX-License-Identifier: GPL-2.0
/*
 * ip6_tables' family of the engine (xt_family.h): struct ip6t_entry, and
 * what ip6_tables.c does with its IP part.
 */

#include <linux/ipv6.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>

#define EBPF_XT_ENTRY		struct ip6t_entry
#define EBPF_XT_IP		struct ip6t_ip6
#define EBPF_XT_E_IP(e)		((e)->ipv6)
#define EBPF_XT_NFPROTO		NFPROTO_IPV6
#define EBPF_XT_INV_PROTO	IP6T_INV_PROTO
#define EBPF_XT_F_GOTO		IP6T_F_GOTO
#define EBPF_XT_WALK		ebpf_xt_walk_ipv6
#define EBPF_XT_INDEX		EBPF_XT_IPV6
#define EBPF_XT_FAMILY		ebpf_xt_ipv6

static bool ip_checkentry(const struct ip6t_ip6 *ipv6)
{
	return !(ipv6->flags & ~IP6T_F_MASK) &&
	       !(ipv6->invflags & ~IP6T_INV_MASK);
}

/* ip6t_do_table() finds the protocol header per rule (pkt_match()) */
struct pkt_state {
};

static inline void pkt_init(struct pkt_state *p, const struct sk_buff *skb,
			    struct xt_action_param *acpar)
{
	/* a fragment is walked as a packet; only IP6T_F_PROTO rules look */
	acpar->fragoff = 0;
	acpar->thoff = 0;
}

static inline void pkt_changed(struct pkt_state *p, const struct sk_buff *skb)
{
}

/* ip6_tables' ip6_packet_match() */
static inline bool pkt_match(const struct pkt_state *p,
			     const struct sk_buff *skb, const char *indev,
			     const char *outdev,
			     const struct ip6t_ip6 *ip6info,
			     struct xt_action_param *acpar)
{
	const struct ipv6hdr *ipv6 = ipv6_hdr(skb);
	unsigned long ret;

	acpar->thoff = 0;
	if (NF_INVF(ip6info, IP6T_INV_SRCIP,
		    ipv6_masked_addr_cmp(&ipv6->saddr, &ip6info->smsk,
					 &ip6info->src)) ||
	    NF_INVF(ip6info, IP6T_INV_DSTIP,
		    ipv6_masked_addr_cmp(&ipv6->daddr, &ip6info->dmsk,
					 &ip6info->dst)))
		return false;
	ret = ifname_compare_aligned(indev, ip6info->iniface,
				     ip6info->iniface_mask);
	if (NF_INVF(ip6info, IP6T_INV_VIA_IN, ret != 0))
		return false;
	ret = ifname_compare_aligned(outdev, ip6info->outiface,
				     ip6info->outiface_mask);
	if (NF_INVF(ip6info, IP6T_INV_VIA_OUT, ret != 0))
		return false;
	if (ip6info->flags & IP6T_F_PROTO) {
		unsigned short frag_off;
		int protohdr;

		protohdr = ipv6_find_hdr(skb, &acpar->thoff, -1, &frag_off,
					 NULL);
		if (protohdr < 0) {
			if (frag_off == 0)
				acpar->hotdrop = true;
			return false;
		}
		acpar->fragoff = frag_off;
		if (ip6info->proto == protohdr)
			return !(ip6info->invflags & IP6T_INV_PROTO);
		/* "-p all" matches too */
		if (ip6info->proto != 0 &&
		    !(ip6info->invflags & IP6T_INV_PROTO))
			return false;
	}
	return true;
}

#include "xt_family.h"
