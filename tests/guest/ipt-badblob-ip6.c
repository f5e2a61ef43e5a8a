// SPDX-License-Identifier: GPL-2.0
/*
 * ipt-badblob -6: crafted ip6_tables requests (IP6T_SO_SET_REPLACE,
 * IP6T_SO_SET_ADD_COUNTERS, IP6T_SO_GET_INFO/GET_ENTRIES, the revision
 * queries) through SOL_IPV6, one "<case>: <errno> intact|CHANGED" line each
 * (see ipt-badblob.c), compared between ip6_tables and ebpfilter with
 * ipv6=1 (tests/guest/ip6-badblob.sh).  The blob mutated is the notes'
 * table in IPv6 (tb_notes6()); the ip6_tables checks it meets are
 * ip6_tables.c's translate_table(), check_entry_size_and_hooks(),
 * ip6_checkentry(), mark_source_chains() and the extensions' checkentry.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv6/ip6t_REJECT.h>
#include <linux/netfilter_ipv6/ip6t_frag.h>
#include <linux/netfilter_ipv6/ip6t_hl.h>
#include <linux/netfilter_ipv6/ip6t_ipv6header.h>
#include <linux/netfilter_ipv6/ip6t_opts.h>
#include <linux/netfilter_ipv6/ip6t_rt.h>

#include "ipt-badblob.h"

/* Where tb_notes6() put its entries (offsets in the blob). */
static unsigned int e_tcp, e_drop, e_ret, e_out, e_head, e_tail, e_err;

static const struct ip6t_ip6 ip6_tcp = { .proto = IPPROTO_TCP,
					 .flags = IP6T_F_PROTO };
static const struct ip6t_ip6 ip6_udp = { .proto = IPPROTO_UDP,
					 .flags = IP6T_F_PROTO };
static const struct ip6t_ip6 ip6_icmp = { .proto = IPPROTO_ICMPV6,
					  .flags = IP6T_F_PROTO };

/*
 * Where tb_notes6() (the ABI notes' table in IPv6, tests/lib) puts its
 * entries: the INPUT rule, three policies, MYCHAIN's head, DROP rule,
 * RETURN rule and tail, the ERROR tail.
 */
static void notes6_offsets(void)
{
	unsigned int *at[] = { &e_tcp, NULL, NULL, &e_out, &e_head, &e_drop,
			       &e_ret, &e_tail, &e_err };
	unsigned int i, off = 0;
	struct tb t;

	tb_notes6(&t);
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		if (at[i])
			*at[i] = off;
		off += tb_entry6_at(&t, off)->next_offset;
	}
	tb_free(&t);
}

#define HDR	sizeof(struct ip6t_entry)
#define ENT6(q, off)	((struct ip6t_entry *)((q)->data + \
			 sizeof(struct ip6t_replace) + (off)))
#define AT6(q, off)	((q)->data + sizeof(struct ip6t_replace) + (off))
#define TGT6(q, off)	((struct xt_entry_target *)(AT6(q, off) + \
			 ENT6(q, off)->target_offset))
#define VERDICT6(q, off) ((unsigned char *)TGT6(q, off) + \
			  sizeof(struct xt_entry_target))
#define MATCH6(q, off)	((struct xt_entry_match *)AT6(q, (off) + HDR))

static void set_int(unsigned char *p, int v)
{
	memcpy(p, &v, sizeof(v));
}

static void m_none(struct buf *q) { (void)q; }
static void m_next_small(struct buf *q) { ENT6(q, e_drop)->next_offset = HDR + 16; }
static void m_next_zero(struct buf *q) { ENT6(q, e_drop)->next_offset = 0; }
static void m_next_unaligned(struct buf *q) { ENT6(q, e_drop)->next_offset += 4; }
static void m_next_past_end(struct buf *q) { ENT6(q, e_err)->next_offset += 8; }
static void m_truncated_blob(struct buf *q)
{
	REPL(q)->size -= 64;
	q->len -= 64;
}
static void m_ip_flags(struct buf *q) { ENT6(q, e_drop)->ipv6.flags = 0x08; }
static void m_ip_invflags(struct buf *q) { ENT6(q, e_drop)->ipv6.invflags = 0x80; }
static void m_tos(struct buf *q) { ENT6(q, e_drop)->ipv6.tos = 0x10; }
static void m_target_offset_small(struct buf *q) { ENT6(q, e_drop)->target_offset = HDR - 8; }
static void m_target_offset_big(struct buf *q) { ENT6(q, e_drop)->target_offset = HDR + 16; }
static void m_target_size_small(struct buf *q) { TGT6(q, e_drop)->u.target_size = 31; }
static void m_target_size_big(struct buf *q) { TGT6(q, e_drop)->u.target_size = 48; }
static void m_verdict_zero(struct buf *q) { set_int(VERDICT6(q, e_drop), 0); }
static void m_verdict_stolen(struct buf *q) { set_int(VERDICT6(q, e_drop), -3); }
static void m_verdict_intmin(struct buf *q) { set_int(VERDICT6(q, e_drop), INT_MIN); }
static void m_error_unterminated(struct buf *q)
{
	memset(VERDICT6(q, e_head), 'x', XT_FUNCTION_MAXNAMELEN);
}
static void m_error_size(struct buf *q) { TGT6(q, e_head)->u.target_size = 56; }
static void m_num_entries_less(struct buf *q) { REPL(q)->num_entries--; }
static void m_num_entries_more(struct buf *q) { REPL(q)->num_entries++; }
static void m_match_size_small(struct buf *q) { MATCH6(q, e_tcp)->u.match_size = 24; }
static void m_match_size_zero(struct buf *q) { MATCH6(q, e_tcp)->u.match_size = 0; }
static void m_match_size_big(struct buf *q) { MATCH6(q, e_tcp)->u.match_size = 56; }
static void m_match_unaligned(struct buf *q) { MATCH6(q, e_tcp)->u.match_size = 44; }
static void m_match_name_unterminated(struct buf *q)
{
	memset(MATCH6(q, e_tcp)->u.user.name, 't', XT_EXTENSION_MAXNAMELEN);
}
static void m_match_unknown(struct buf *q)
{
	strcpy(MATCH6(q, e_tcp)->u.user.name, "nosuchmatch");
}
static void m_match_rev(struct buf *q) { MATCH6(q, e_tcp)->u.user.revision = 1; }
static void m_match_icmp4(struct buf *q)
{
	/* an IPv4-only match in an IPv6 table: no such match for NFPROTO_IPV6 */
	strcpy(MATCH6(q, e_tcp)->u.user.name, "icmp");
}
static void m_target_unknown(struct buf *q)
{
	strcpy(TGT6(q, e_drop)->u.user.name, "NOSUCHTARGET");
}
static void m_target_rev(struct buf *q) { TGT6(q, e_drop)->u.user.revision = 1; }
static void m_tcp_proto_udp(struct buf *q) { ENT6(q, e_tcp)->ipv6.proto = IPPROTO_UDP; }
static void m_tcp_proto_inv(struct buf *q) { ENT6(q, e_tcp)->ipv6.invflags = IP6T_INV_PROTO; }
static void m_tcp_no_proto_flag(struct buf *q) { ENT6(q, e_tcp)->ipv6.flags = 0; }
static void m_tcp_invflags(struct buf *q)
{
	((struct xt_tcp *)MATCH6(q, e_tcp)->data)->invflags = 0x10;
}
static void m_hook_not_entry(struct buf *q) { REPL(q)->hook_entry[NF_INET_LOCAL_IN] = 8; }
static void m_underflow_missing(struct buf *q) { REPL(q)->underflow[NF_INET_FORWARD] = 0xFFFFFFFF; }
static void m_underflow_conditional(struct buf *q) { REPL(q)->underflow[NF_INET_LOCAL_IN] = e_tcp; }
static void m_underflow_return(struct buf *q) { REPL(q)->underflow[NF_INET_LOCAL_OUT] = e_ret; }
static void m_underflow_error(struct buf *q) { REPL(q)->underflow[NF_INET_LOCAL_OUT] = e_head; }
static void m_underflow_queue(struct buf *q) { set_int(VERDICT6(q, e_out), V_QUEUE); }
static void m_hooks_duplicate(struct buf *q) { REPL(q)->hook_entry[NF_INET_FORWARD] = 0; }
static void m_valid_hooks_less(struct buf *q) { REPL(q)->valid_hooks = 1 << NF_INET_LOCAL_IN; }
static void m_jump_mid_entry(struct buf *q) { set_int(VERDICT6(q, e_tcp), e_drop + 8); }
static void m_jump_past_end(struct buf *q) { set_int(VERDICT6(q, e_tcp), 100000); }
static void m_jump_back(struct buf *q) { set_int(VERDICT6(q, e_ret), e_drop); }
static void m_jump_head(struct buf *q) { set_int(VERDICT6(q, e_tcp), e_head); }
static void m_jump_policy(struct buf *q) { set_int(VERDICT6(q, e_tcp), e_out); }
static void m_goto(struct buf *q) { ENT6(q, e_tcp)->ipv6.flags |= IP6T_F_GOTO; }
static void m_fall_off_end(struct buf *q)
{
	/* MYCHAIN's rules become conditional and the tails go away */
	ENT6(q, e_ret)->ipv6.proto = IPPROTO_UDP;
	ENT6(q, e_ret)->ipv6.flags = IP6T_F_PROTO;
	REPL(q)->size = e_tail;
	REPL(q)->num_entries = 7;
	q->len = sizeof(struct ip6t_replace) + e_tail;
}
static void m_name_unknown(struct buf *q) { strcpy(REPL(q)->name, "nosuchtable"); }
static void m_num_counters_zero(struct buf *q) { REPL(q)->num_counters = 0; }
static void m_num_counters_huge(struct buf *q) { REPL(q)->num_counters = INT_MAX / 16; }
static void m_num_counters_stale(struct buf *q) { REPL(q)->num_counters += 1; }
static void m_counters_bad_pointer(struct buf *q) { REPL(q)->counters = (void *)16; }

/* Replace the whole request with a one-rule table: INPUT's @ip, one
 * match @name (if not NULL), target @tgt. */
static void one6(struct buf *q, const struct ip6t_ip6 *ip, const char *name,
		 uint8_t rev, const void *data, unsigned int len,
		 const char *tgt, const void *tdata, unsigned int tlen)
{
	struct tb t;

	tb_init6(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin6(&t, ip);
	if (name)
		tb_match(&t, name, rev, data, len);
	if (tgt)
		tb_target(&t, tgt, 0, tdata, tlen);
	else
		tb_std(&t, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	tb_replace(&t, q, "filter", FILTER_HOOKS, cur_entries());
	tb_free(&t);
}

static const unsigned char zeros[512];

static void x_icmp6_invflags(struct buf *q)
{
	struct { uint8_t type, code[2], invflags; } i = { 128, { 0, 0xff }, 0x02 };

	one6(q, &ip6_icmp, "icmp6", 0, &i, sizeof(i), NULL, NULL, 0);
}
static void x_icmp6_ok(struct buf *q)
{
	struct { uint8_t type, code[2], invflags; } i = { 128, { 0, 0xff }, 0 };

	one6(q, &ip6_icmp, "icmp6", 0, &i, sizeof(i), NULL, NULL, 0);
}
static void x_icmp6_size(struct buf *q)
{
	one6(q, &ip6_icmp, "icmp6", 0, zeros, 16, NULL, NULL, 0);
}
static void x_tcp_on_udp(struct buf *q)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };

	one6(q, &ip6_udp, "tcp", 0, &tcp, sizeof(tcp), NULL, NULL, 0);
}
static void x_rt_invflags(struct buf *q)
{
	struct ip6t_rt r = { .segsleft = { 0, 0xffffffff }, .invflags = 0x80 };

	one6(q, NULL, "rt", 0, &r, sizeof(r), NULL, NULL, 0);
}
static void x_rt_addrs_not_type0(struct buf *q)
{
	struct ip6t_rt r = { .rt_type = 2, .segsleft = { 0, 0xffffffff },
			     .flags = IP6T_RT_TYP | IP6T_RT_FST, .addrnr = 1 };

	one6(q, NULL, "rt", 0, &r, sizeof(r), NULL, NULL, 0);
}
static void x_rt_ok(struct buf *q)
{
	struct ip6t_rt r = { .segsleft = { 0, 0xffffffff }, .flags = IP6T_RT_TYP };

	one6(q, NULL, "rt", 0, &r, sizeof(r), NULL, NULL, 0);
}
static void x_frag_invflags(struct buf *q)
{
	struct ip6t_frag f = { .ids = { 0, 0xffffffff }, .invflags = 0x10 };

	one6(q, NULL, "frag", 0, &f, sizeof(f), NULL, NULL, 0);
}
static void x_hbh_invflags(struct buf *q)
{
	struct ip6t_opts o = { .invflags = 0x10 };

	one6(q, NULL, "hbh", 0, &o, sizeof(o), NULL, NULL, 0);
}
static void x_hbh_too_many_opts(struct buf *q)
{
	struct ip6t_opts o = { .flags = IP6T_OPTS_OPTS, .optsnr = 17 };

	one6(q, NULL, "hbh", 0, &o, sizeof(o), NULL, NULL, 0);
}
static void x_dst_size(struct buf *q) { one6(q, NULL, "dst", 0, zeros, 8, NULL, NULL, 0); }
static void x_ipv6header_ok(struct buf *q)
{
	struct ip6t_ipv6header_info h = { .matchflags = MASK_HOPOPTS };

	one6(q, NULL, "ipv6header", 0, &h, sizeof(h), NULL, NULL, 0);
}
static void x_hl_mode(struct buf *q)
{
	struct ip6t_hl_info h = { .mode = 9, .hop_limit = 1 };

	one6(q, NULL, "hl", 0, &h, sizeof(h), NULL, NULL, 0);
}
static void k_reject_bad_with(struct buf *q)
{
	struct ip6t_reject_info r = { .with = 99 };

	one6(q, NULL, NULL, 0, NULL, 0, "REJECT", &r, sizeof(r));
}
static void k_reject_reset_udp(struct buf *q)
{
	struct ip6t_reject_info r = { .with = IP6T_TCP_RESET };

	one6(q, &ip6_udp, NULL, 0, NULL, 0, "REJECT", &r, sizeof(r));
}
static void k_reject_reset_inv_tcp(struct buf *q)
{
	struct ip6t_reject_info r = { .with = IP6T_TCP_RESET };
	struct ip6t_ip6 ip = ip6_tcp;

	ip.invflags = IP6T_INV_PROTO;
	one6(q, &ip, NULL, 0, NULL, 0, "REJECT", &r, sizeof(r));
}
static void k_reject_ok(struct buf *q)
{
	struct ip6t_reject_info r = { .with = IP6T_ICMP6_ADM_PROHIBITED };

	one6(q, NULL, NULL, 0, NULL, 0, "REJECT", &r, sizeof(r));
}
static void k_log_level8(struct buf *q)
{
	struct xt_log_info l = { .level = 8, .prefix = "x" };

	one6(q, NULL, NULL, 0, NULL, 0, "LOG", &l, sizeof(l));
}
static void k_hl_target_filter(struct buf *q)
{
	struct { uint8_t mode, hop_limit; } h = { 0, 5 };

	one6(q, NULL, NULL, 0, NULL, 0, "HL", &h, sizeof(h));
}
static void k_dnat_filter(struct buf *q)
{
	one6(q, NULL, NULL, 0, NULL, 0, "DNAT", zeros, 40);
}

static const struct blob_case cases6[] = {
#define C(n) { #n, m_##n }
	C(none), C(next_small), C(next_zero), C(next_unaligned),
	C(next_past_end), C(truncated_blob), C(ip_flags), C(ip_invflags),
	C(tos), C(target_offset_small), C(target_offset_big),
	C(target_size_small), C(target_size_big), C(verdict_zero),
	C(verdict_stolen), C(verdict_intmin), C(error_unterminated),
	C(error_size), C(num_entries_less), C(num_entries_more),
	C(match_size_small), C(match_size_zero), C(match_size_big),
	C(match_unaligned), C(match_name_unterminated), C(match_unknown),
	C(match_rev), C(match_icmp4), C(target_unknown), C(target_rev),
	C(tcp_proto_udp), C(tcp_proto_inv), C(tcp_no_proto_flag),
	C(tcp_invflags), C(hook_not_entry), C(underflow_missing),
	C(underflow_conditional), C(underflow_return), C(underflow_error),
	C(underflow_queue), C(hooks_duplicate), C(valid_hooks_less),
	C(jump_mid_entry), C(jump_past_end), C(jump_back), C(jump_head),
	C(jump_policy), C(goto), C(fall_off_end), C(name_unknown),
	C(num_counters_zero), C(num_counters_huge), C(num_counters_stale),
	C(counters_bad_pointer),
#undef C
#define X(n) { "ext_" #n, x_##n }
	X(icmp6_invflags), X(icmp6_ok), X(icmp6_size), X(tcp_on_udp),
	X(rt_invflags), X(rt_addrs_not_type0), X(rt_ok), X(frag_invflags),
	X(hbh_invflags), X(hbh_too_many_opts), X(dst_size),
	X(ipv6header_ok), X(hl_mode),
#undef X
#define K(n) { "kext_" #n, k_##n }
	K(reject_bad_with), K(reject_reset_udp), K(reject_reset_inv_tcp),
	K(reject_ok), K(log_level8), K(hl_target_filter), K(dnat_filter),
#undef K
};

int run_ip6_cases(void)
{
	struct buf req = { 0 };
	struct tb t;

	notes6_offsets();
	if (install(tb_notes6, "table6_notes"))
		return 1;
	run_get_cases();
	run_revision_cases();
	run_blob_cases(cases6, sizeof(cases6) / sizeof(cases6[0]), tb_notes6,
		       "replace6_", NULL);
	run_length_cases();
	run_counter_cases();
	/* leave the table empty, as found */
	tb_filter_initial6(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
	printf("final_reset: %s\n", err_name(send_replace(&req, req.len)));
	buf_free(&req);
	tb_free(&t);
	return 0;
}
