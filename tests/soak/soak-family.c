// SPDX-License-Identifier: GPL-2.0
/*
 * soak-tool: what the fuzzer must know of an address family: the entry
 * head (struct ipt_entry, ip6t_entry) and its fields' offsets, the
 * sockopt level and numbers, the ICMP match, the loopback address,
 * described here so that soak-fuzz.c's mutation code names no family's
 * structures; and the committed rules, built with the tests' one blob
 * builder (tests/lib/ipt_builder.c), the same rules in both families,
 * IPv6's user chain with two IPv6 matches more (frag, ipv6header) so that
 * the mutations reach an IPv6 extension's payload too.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv6/ip6t_frag.h>
#include <linux/netfilter_ipv6/ip6t_ipv6header.h>

#include "soak-tool.h"

/* the request heads the code shares between the families */
_Static_assert(sizeof(struct ipt_replace) == sizeof(struct ip6t_replace), "replace");
_Static_assert(sizeof(struct ipt_getinfo) == sizeof(struct ip6t_getinfo), "getinfo");
_Static_assert(sizeof(struct ipt_get_entries) == sizeof(struct ip6t_get_entries),
	       "get_entries");

struct table tables[] = {
	{ .name = "filter", .hooks = FILTER_HOOKS },
	{ .name = "nat", .hooks = NAT_HOOKS },
	{ .name = "mangle", .hooks = ALL_HOOKS },
	{ .name = "raw", .hooks = RAW_HOOKS },
	{ .name = "security", .hooks = FILTER_HOOKS },
};
const unsigned int ntables = sizeof(tables) / sizeof(tables[0]);

/* -o @oif (NULL: any) into an entry's outiface and its mask */
static void out_iface(char *iface, unsigned char *mask, const char *oif)
{
	if (oif) {
		snprintf(iface, IFNAMSIZ, "%s", oif);
		memset(mask, 0xff, strlen(oif) + 1);
	}
}

/* ---- IPv4 ---- */
static void begin4(struct tb *t, int proto, const char *oif)
{
	struct ipt_ip ip = { .proto = proto };

	out_iface(ip.outiface, ip.outiface_mask, oif);
	tb_begin(t, &ip);
}

static void icmp4(struct tb *t)
{
	struct ipt_icmp echo = { .type = 8, .code = { 0, 0xff } };

	begin4(t, IPPROTO_ICMP, NULL);
	tb_match(t, "icmp", 0, &echo, sizeof(echo));
}

static socklen_t loopback4(struct sockaddr_storage *ss, unsigned int port)
{
	struct sockaddr_in *a = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*a);
}

static const char *const rev4[] = { "tcp", "udp", "icmp", "comment", "multiport",
				     "mark", "MARK", "DNAT", "SNAT", "MASQUERADE",
				     "CT", "TTL", "" };

const struct family fam4 = {
	.name = "ipv4", .domain = AF_INET, .level = SOL_IP,
	.so_replace = IPT_SO_SET_REPLACE, .so_add_counters = IPT_SO_SET_ADD_COUNTERS,
	.so_info = IPT_SO_GET_INFO, .so_entries = IPT_SO_GET_ENTRIES,
	.so_rev_match = IPT_SO_GET_REVISION_MATCH,
	.so_rev_target = IPT_SO_GET_REVISION_TARGET,
	.salt = 0,	/* the cases the fuzzer made before the descriptors */
	.entry_size = sizeof(struct ipt_entry),
	.at_target = offsetof(struct ipt_entry, target_offset),
	.at_next = offsetof(struct ipt_entry, next_offset),
	.at_comefrom = offsetof(struct ipt_entry, comefrom),
	.at_counters = offsetof(struct ipt_entry, counters),
	.at_proto = offsetof(struct ipt_entry, ip.proto),
	.at_flags = offsetof(struct ipt_entry, ip.flags),
	.at_invflags = offsetof(struct ipt_entry, ip.invflags),
	.at_iniface = offsetof(struct ipt_entry, ip.iniface),
	.sizes = { sizeof(struct ipt_entry),
		   sizeof(struct ipt_entry) + XT_ALIGN(sizeof(struct xt_standard_target)) },
	.rev_names = rev4, .nrev_names = sizeof(rev4) / sizeof(rev4[0]),
	.init = tb_init, .begin = begin4, .icmp_rule = icmp4,
	.loopback = loopback4,
};

/* ---- IPv6 ---- */
static void begin6(struct tb *t, int proto, const char *oif)
{
	/* ip6tables sets IP6T_F_PROTO with -p: without it the protocol is
	 * not compared with the packet's */
	struct ip6t_ip6 ip = { .proto = proto, .flags = proto ? IP6T_F_PROTO : 0 };

	out_iface(ip.outiface, ip.outiface_mask, oif);
	tb_begin6(t, &ip);
}

static void icmp6(struct tb *t)
{
	struct ip6t_icmp echo = { .type = 128, .code = { 0, 0xff } };

	begin6(t, IPPROTO_ICMPV6, NULL);
	tb_match(t, "icmp6", 0, &echo, sizeof(echo));
}

/* -m frag --fragid 0:4294967295 --fragfirst; -m ipv6header --header
 * hop-by-hop --soft: no verdict, traffic passes on */
static void chain6(struct tb *t)
{
	struct ip6t_frag f = { .ids = { 0, 0xffffffff }, .flags = IP6T_FRAG_FST };
	struct ip6t_ipv6header_info h = { .matchflags = MASK_HOPOPTS, .modeflag = 1 };

	begin6(t, 0, NULL);
	tb_match(t, "frag", 0, &f, sizeof(f));
	tb_fallthrough(t);
	begin6(t, 0, NULL);
	tb_match(t, "ipv6header", 0, &h, sizeof(h));
	tb_fallthrough(t);
}

static socklen_t loopback6(struct sockaddr_storage *ss, unsigned int port)
{
	struct sockaddr_in6 *a = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(port);
	a->sin6_addr = in6addr_loopback;
	return sizeof(*a);
}

/* IPv6's own extensions beside the shared ones, and IPv4's icmp (which
 * NFPROTO_IPV6 does not have) */
static const char *const rev6[] = { "tcp", "udp", "icmp6", "comment", "multiport",
				     "mark", "MARK", "DNAT", "SNAT", "MASQUERADE",
				     "CT", "HL", "", "rt", "frag", "hbh",
				     "ipv6header", "REJECT", "icmp" };

const struct family fam6 = {
	.name = "ipv6", .domain = AF_INET6, .level = SOL_IPV6,
	.so_replace = IP6T_SO_SET_REPLACE, .so_add_counters = IP6T_SO_SET_ADD_COUNTERS,
	.so_info = IP6T_SO_GET_INFO, .so_entries = IP6T_SO_GET_ENTRIES,
	.so_rev_match = IP6T_SO_GET_REVISION_MATCH,
	.so_rev_target = IP6T_SO_GET_REVISION_TARGET,
	.salt = 0x6000000000000ull,	/* a stream of its own, not IPv4's cases */
	.entry_size = sizeof(struct ip6t_entry),
	.at_target = offsetof(struct ip6t_entry, target_offset),
	.at_next = offsetof(struct ip6t_entry, next_offset),
	.at_comefrom = offsetof(struct ip6t_entry, comefrom),
	.at_counters = offsetof(struct ip6t_entry, counters),
	.at_proto = offsetof(struct ip6t_entry, ipv6.proto),
	.at_flags = offsetof(struct ip6t_entry, ipv6.flags),
	.at_invflags = offsetof(struct ip6t_entry, ipv6.invflags),
	.at_iniface = offsetof(struct ip6t_entry, ipv6.iniface),
	.sizes = { sizeof(struct ip6t_entry),
		   sizeof(struct ip6t_entry) + XT_ALIGN(sizeof(struct xt_standard_target)) },
	.rev_names = rev6, .nrev_names = sizeof(rev6) / sizeof(rev6[0]),
	.init = tb_init6, .begin = begin6, .icmp_rule = icmp6,
	.chain_rules = chain6, .loopback = loopback6,
};

/* ---- the committed rules ---- */
static void rule_udp_port(struct tb *t, unsigned int port, int verdict)
{
	struct xt_udp u = { .spts = { 0, 0xffff } };

	u.dpts[0] = u.dpts[1] = port;
	fam->begin(t, IPPROTO_UDP, "lo");
	tb_match(t, "udp", 0, &u, sizeof(u));
	tb_std(t, verdict);
}

/*
 * @rich: the committed rules (a tcp rule, an icmp rule, a comment, a jump
 * to a user chain with a udp rule; filter's OUTPUT: the probe's rules);
 * else the empty layout (ACCEPT policies).
 */
void build(struct tb *t, const struct table *tbl, int rich)
{
	bool nat = !strcmp(tbl->name, "nat");
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct xt_comment_info c = { .comment = "soak" };
	unsigned int h;

	fam->init(t);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(tbl->hooks & (1 << h)))
			continue;
		tb_hook(t, h);
		if (rich) {
			if (!strcmp(tbl->name, "filter") && h == NF_INET_LOCAL_OUT) {
				rule_udp_port(t, DROP_PORT, V_DROP);
				rule_udp_port(t, ACC_PORT, V_ACCEPT);
			}
			fam->begin(t, IPPROTO_TCP, NULL);
			tb_match(t, "tcp", 0, &tcp, sizeof(tcp));
			tb_match(t, "comment", 0, &c, sizeof(c));
			tb_fallthrough(t);
			fam->icmp_rule(t);
			tb_fallthrough(t);
			if (h == NF_INET_LOCAL_OUT) {
				tb_begin(t, NULL);
				tb_jump(t, "SOAK", false);
			}
		}
		/* nat's policies: DROP is refused there */
		tb_policy(t, h, V_ACCEPT);
	}
	if (rich) {
		struct xt_udp u = { .spts = { 0, 0xffff }, .dpts = { 5000, 5100 } };

		tb_chain(t, "SOAK");
		fam->begin(t, IPPROTO_UDP, NULL);
		tb_match(t, "udp", 0, &u, sizeof(u));
		tb_std(t, nat ? V_ACCEPT : V_DROP);
		if (fam->chain_rules)
			fam->chain_rules(t);
		tb_chain_end(t);
	}
	tb_finish(t);
}

/* commit @tbl's committed rules; 0 or errno */
int commit_base(struct table *tbl)
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	build(&t, tbl, 1);
	tb_replace(&t, &req, tbl->name, tbl->hooks, num_entries(tbl->name));
	err = send_replace(&req, req.len, false);
	tb_free(&t);
	buf_free(&req);
	return err;
}
