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
#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/skbuff.h>

#include "xt_engine.h"

static unsigned int ebpf_error_tg(struct sk_buff *skb,
				  const struct xt_action_param *par)
{
	net_info_ratelimited("error: `%s'\n", (const char *)par->targinfo);
	return NF_DROP;
}

static inline bool icmp_type_code_match(u_int8_t test_type, u_int8_t min_code,
					u_int8_t max_code, u_int8_t type,
					u_int8_t code, bool invert)
{
	return ((test_type == 0xFF) ||
		(type == test_type && code >= min_code && code <= max_code))
		^ invert;
}

static bool ebpf_icmp_mt(const struct sk_buff *skb, struct xt_action_param *par)
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
	return icmp_type_code_match(icmpinfo->type, icmpinfo->code[0],
				    icmpinfo->code[1], ic->type, ic->code,
				    !!(icmpinfo->invflags & IPT_ICMP_INV));
}

static int ebpf_icmp_mt_check(const struct xt_mtchk_param *par)
{
	const struct ipt_icmp *icmpinfo = par->matchinfo;

	return (icmpinfo->invflags & ~IPT_ICMP_INV) ? -EINVAL : 0;
}

static struct xt_target ebpf_builtin_tg[] __read_mostly = {
	{
		.name		= XT_STANDARD_TARGET,
		.targetsize	= sizeof(int),
		.family		= NFPROTO_IPV4,
	},
	{
		.name		= XT_ERROR_TARGET,
		.target		= ebpf_error_tg,
		.targetsize	= XT_FUNCTION_MAXNAMELEN,
		.family		= NFPROTO_IPV4,
	},
};

static struct xt_match ebpf_builtin_mt[] __read_mostly = {
	{
		.name		= "icmp",
		.match		= ebpf_icmp_mt,
		.matchsize	= sizeof(struct ipt_icmp),
		.checkentry	= ebpf_icmp_mt_check,
		.proto		= IPPROTO_ICMP,
		.family		= NFPROTO_IPV4,
	},
};

int ebpf_xt_builtin_register(void)
{
	int err;

	err = xt_register_targets(ebpf_builtin_tg, ARRAY_SIZE(ebpf_builtin_tg));
	if (err)
		return err;
	err = xt_register_matches(ebpf_builtin_mt, ARRAY_SIZE(ebpf_builtin_mt));
	if (err)
		xt_unregister_targets(ebpf_builtin_tg,
				      ARRAY_SIZE(ebpf_builtin_tg));
	return err;
}

void ebpf_xt_builtin_unregister(void)
{
	xt_unregister_matches(ebpf_builtin_mt, ARRAY_SIZE(ebpf_builtin_mt));
	xt_unregister_targets(ebpf_builtin_tg, ARRAY_SIZE(ebpf_builtin_tg));
}
