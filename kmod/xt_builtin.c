// SPDX-License-Identifier: GPL-2.0
/*
 * The extensions ip_tables.ko registers itself (net/ipv4/netfilter/
 * ip_tables.c: ipt_builtin_tg, ipt_builtin_mt): the standard target (no
 * function: the walk handles verdicts and jumps), the ERROR target that
 * heads user chains, and the icmp match.  x_tables knows them only while
 * their registrant is loaded; ip_tables cannot be (it owns the sockopts
 * ebpfilter serves), so they are registered here, with ip_tables' code.
 *
 * .me stays NULL as for ip_tables' targets: the rules of a table hold a
 * module reference on each extension they use, and a reference on this
 * module would keep rmmod from ever running the exit that frees them.
 */

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/skbuff.h>

#include "ebpfilter.h"
#include "xt_engine.h"

static unsigned int ebpf_error_tg(struct sk_buff *skb,
				  const struct xt_action_param *par)
{
	net_info_ratelimited("error: `%s'\n", (const char *)par->targinfo);
	return NF_DROP;
}

/* ip_tables' icmp_type_code_match() (ip6_tables': no "any" type 0xFF) */
static inline bool icmp_type_code_match(bool any_type, u8 test_type,
					u8 min_code, u8 max_code,
					u8 type, u8 code, bool invert)
{
	return ((any_type && test_type == 0xFF) ||
		(type == test_type && code >= min_code && code <= max_code))
		^ invert;
}

/* one code for icmp and icmp6: the same match data, the same header start */
static_assert(sizeof(struct ipt_icmp) == sizeof(struct ip6t_icmp) &&
	      offsetof(struct ipt_icmp, invflags) ==
	      offsetof(struct ip6t_icmp, invflags) &&
	      IPT_ICMP_INV == IP6T_ICMP_INV);
static_assert(sizeof(struct icmphdr) == sizeof(struct icmp6hdr) &&
	      offsetof(struct icmphdr, code) ==
	      offsetof(struct icmp6hdr, icmp6_code));

static bool icmp_match(const struct sk_buff *skb, struct xt_action_param *par,
		       bool any_type)
{
	const struct ipt_icmp *icmpinfo = par->matchinfo;
	const struct icmphdr *ic;
	struct icmphdr _icmph;

	if (par->fragoff != 0)
		return false;
	ic = skb_header_pointer(skb, par->thoff, sizeof(_icmph), &_icmph);
	if (!ic) {
		/* asked to examine a packet we cannot: drop, as ip_tables */
		par->hotdrop = true;
		return false;
	}
	return icmp_type_code_match(any_type, icmpinfo->type,
				    icmpinfo->code[0], icmpinfo->code[1],
				    ic->type, ic->code,
				    !!(icmpinfo->invflags & IPT_ICMP_INV));
}

static bool ebpf_icmp_mt(const struct sk_buff *skb, struct xt_action_param *par)
{
	return icmp_match(skb, par, true);
}

static bool ebpf_icmp6_mt(const struct sk_buff *skb,
			  struct xt_action_param *par)
{
	return icmp_match(skb, par, false);
}

/* icmp's and icmp6's checkentry */
static int ebpf_icmp_mt_check(const struct xt_mtchk_param *par)
{
	const struct ipt_icmp *icmpinfo = par->matchinfo;

	return (icmpinfo->invflags & ~IPT_ICMP_INV) ? -EINVAL : 0;
}

/* ip_tables' ipt_builtin_tg (ip6_tables' ip6t_builtin_tg) */
#define BUILTIN_TG(nfproto) {						\
	{								\
		.name		= XT_STANDARD_TARGET,			\
		.targetsize	= sizeof(int),				\
		.family		= (nfproto),				\
	},								\
	{								\
		.name		= XT_ERROR_TARGET,			\
		.target		= ebpf_error_tg,			\
		.targetsize	= XT_FUNCTION_MAXNAMELEN,		\
		.family		= (nfproto),				\
	},								\
}

static struct xt_target ebpf_builtin_tg[] __read_mostly =
	BUILTIN_TG(NFPROTO_IPV4);

/* ip_tables' icmp match (ip6_tables' icmp6) */
#define BUILTIN_MT(mtname, mt, info, protocol, nfproto) {		\
	{								\
		.name		= mtname,				\
		.match		= mt,					\
		.matchsize	= sizeof(info),				\
		.checkentry	= ebpf_icmp_mt_check,			\
		.proto		= (protocol),				\
		.family		= (nfproto),				\
	},								\
}

static struct xt_match ebpf_builtin_mt[] __read_mostly =
	BUILTIN_MT("icmp", ebpf_icmp_mt, struct ipt_icmp, IPPROTO_ICMP,
		   NFPROTO_IPV4);

static struct xt_target ebpf_builtin_tg6[] __read_mostly =
	BUILTIN_TG(NFPROTO_IPV6);

static struct xt_match ebpf_builtin_mt6[] __read_mostly =
	BUILTIN_MT("icmp6", ebpf_icmp6_mt, struct ip6t_icmp, IPPROTO_ICMPV6,
		   NFPROTO_IPV6);

/* the IPv6 pair is registered (with ipv6, until the handshake drops it) */
static bool ipv6_registered;

/* the last @n of the four arrays registered (the IPv6 pair only with ipv6) */
static void unregister_last(unsigned int n)
{
	switch (n) {
	case 4:
		xt_unregister_matches(ebpf_builtin_mt6,
				      ARRAY_SIZE(ebpf_builtin_mt6));
		fallthrough;
	case 3:
		xt_unregister_targets(ebpf_builtin_tg6,
				      ARRAY_SIZE(ebpf_builtin_tg6));
		fallthrough;
	case 2:
		xt_unregister_matches(ebpf_builtin_mt,
				      ARRAY_SIZE(ebpf_builtin_mt));
		fallthrough;
	case 1:
		xt_unregister_targets(ebpf_builtin_tg,
				      ARRAY_SIZE(ebpf_builtin_tg));
	}
}

int ebpf_xt_builtin_register(void)
{
	int err;

	err = xt_register_targets(ebpf_builtin_tg, ARRAY_SIZE(ebpf_builtin_tg));
	if (err)
		return err;
	err = xt_register_matches(ebpf_builtin_mt, ARRAY_SIZE(ebpf_builtin_mt));
	if (err) {
		unregister_last(1);
		return err;
	}
	if (!serve_ipv6)
		return 0;
	err = xt_register_targets(ebpf_builtin_tg6,
				  ARRAY_SIZE(ebpf_builtin_tg6));
	if (err) {
		unregister_last(2);
		return err;
	}
	err = xt_register_matches(ebpf_builtin_mt6,
				  ARRAY_SIZE(ebpf_builtin_mt6));
	if (err) {
		unregister_last(3);
		return err;
	}
	ipv6_registered = true;
	return 0;
}

void ebpf_xt_builtin_unregister_ipv6(void)
{
	if (!ipv6_registered)
		return;
	xt_unregister_matches(ebpf_builtin_mt6, ARRAY_SIZE(ebpf_builtin_mt6));
	xt_unregister_targets(ebpf_builtin_tg6, ARRAY_SIZE(ebpf_builtin_tg6));
	ipv6_registered = false;
}

void ebpf_xt_builtin_unregister(void)
{
	ebpf_xt_builtin_unregister_ipv6();
	unregister_last(2);
}
