// SPDX-License-Identifier: GPL-2.0
/*
 * ip_tables' family of the engine (xt_family.h): struct ipt_entry, and
 * what ip_tables.c does with its IP part.
 */

#include <linux/ip.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/skbuff.h>
#include <net/ip.h>

#define EBPF_XT_ENTRY		struct ipt_entry
#define EBPF_XT_IP		struct ipt_ip
#define EBPF_XT_E_IP(e)		((e)->ip)
#define EBPF_XT_NFPROTO		NFPROTO_IPV4
#define EBPF_XT_INV_PROTO	IPT_INV_PROTO
#define EBPF_XT_F_GOTO		IPT_F_GOTO
#define EBPF_XT_WALK		ebpf_xt_walk_ipv4
#define EBPF_XT_INDEX		EBPF_XT_IPV4
#define EBPF_XT_FAMILY		ebpf_xt_ipv4

static bool ip_checkentry(const struct ipt_ip *ip)
{
	return !(ip->flags & ~IPT_F_MASK) && !(ip->invflags & ~IPT_INV_MASK);
}

/* what ipt_do_table() reads of the packet once, and again after a target */
struct pkt_state {
	const struct iphdr *ip;
};

static inline void pkt_init(struct pkt_state *p, const struct sk_buff *skb,
			    struct xt_action_param *acpar)
{
	p->ip = ip_hdr(skb);
	acpar->fragoff = ntohs(p->ip->frag_off) & IP_OFFSET;
	acpar->thoff = ip_hdrlen(skb);
}

/* the target may have changed the header */
static inline void pkt_changed(struct pkt_state *p, const struct sk_buff *skb)
{
	p->ip = ip_hdr(skb);
}

/* ip_tables' ip_packet_match() */
static inline bool pkt_match(const struct pkt_state *p,
			     const struct sk_buff *skb, const char *indev,
			     const char *outdev, const struct ipt_ip *ipinfo,
			     struct xt_action_param *acpar)
{
	const struct iphdr *ip = p->ip;
	unsigned long ret;

	if (NF_INVF(ipinfo, IPT_INV_SRCIP,
		    (ip->saddr & ipinfo->smsk.s_addr) != ipinfo->src.s_addr) ||
	    NF_INVF(ipinfo, IPT_INV_DSTIP,
		    (ip->daddr & ipinfo->dmsk.s_addr) != ipinfo->dst.s_addr))
		return false;
	ret = ifname_compare_aligned(indev, ipinfo->iniface,
				     ipinfo->iniface_mask);
	if (NF_INVF(ipinfo, IPT_INV_VIA_IN, ret != 0))
		return false;
	ret = ifname_compare_aligned(outdev, ipinfo->outiface,
				     ipinfo->outiface_mask);
	if (NF_INVF(ipinfo, IPT_INV_VIA_OUT, ret != 0))
		return false;
	if (ipinfo->proto &&
	    NF_INVF(ipinfo, IPT_INV_PROTO, ip->protocol != ipinfo->proto))
		return false;
	if (NF_INVF(ipinfo, IPT_INV_FRAG,
		    (ipinfo->flags & IPT_F_FRAG) && !acpar->fragoff))
		return false;
	return true;
}

#include "xt_family.h"
