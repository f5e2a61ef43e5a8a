// SPDX-License-Identifier: GPL-2.0
/*
 * ipt-badblob: sends crafted iptables control requests (SET_REPLACE,
 * SET_ADD_COUNTERS, GET_INFO, GET_ENTRIES, revision queries) to whatever
 * serves the IPv4 iptables sockopts, and prints one line per case:
 *
 *   <case>: <errno name or "ok"> <"intact" or "CHANGED">
 *
 * "intact" means the filter table read back after the request is byte for
 * byte the one before (counters aside) -- or, for requests that succeed,
 * the one requested.  Run once against ip_tables and once against
 * ebpfilter; the outputs must be identical (tests/guest/ipt-badblob.sh).
 * It also prints a hash of GET_ENTRIES for the tables it installs, which
 * makes the byte-for-byte comparison of the two backends.
 *
 * Built statically on the host with tests/lib/ipt_builder.c and
 * umh/lib/buf.c (make -C tests tools).
 *
 * Only names ip_tables cannot load a module for are used where a table or
 * extension must be unknown ("nat" would load iptable_nat, "limit" xt_limit).
 * The tables beside filter (nat, mangle, raw, security) have cases of
 * their own, run last (ipt-badblob-tables.c, run_table_cases()).
 *
 * ipt-badblob -6: the same through the IPv6 sockopts (SOL_IPV6, IP6T_SO_*,
 * whatever serves ip6_tables'), with ip6_tables blobs (ipt-badblob-ip6.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter/xt_limit.h>
#include <linux/netfilter/xt_owner.h>
#include <linux/netfilter/xt_recent.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>

#include "ipt-badblob.h"

/* ---- tables ---- */

/* Offsets in the ABI notes' table (tb_notes(), tests/lib). */
#define E_TCP	0
#define E_IN	200
#define E_FWD	352
#define E_OUT	504
#define E_HEAD	656
#define E_DROP	832
#define E_RET	984
#define E_TAIL	1136
#define E_ERR	1288

/*
 * IPT_BADBLOB_NO_CT=1: leave out the conntrack and state matches, for
 * kernels where ebpfilter refuses them (no netfilter BPF programs: see
 * README, "Differences from ip_tables"; the refusal is tested apart).
 */
static bool no_ct(void)
{
	const char *v = getenv("IPT_BADBLOB_NO_CT");

	return v && *v == '1';
}

static void tb_rich(struct tb *t)
{
	struct xt_tcp tcp = { .spts = { 1024, 0xffff }, .dpts = { 22, 22 },
			      .flg_mask = 0x17, .flg_cmp = 0x02 };
	struct xt_udp udp = { .spts = { 0, 0xffff }, .dpts = { 53, 53 },
			      .invflags = XT_UDP_INV_DSTPT };
	struct ipt_icmp icmp = { .type = 8, .code = { 0, 0xff } };
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_DESTINATION,
				      .count = 4, .ports = { 80, 443, 1000, 2000 },
				      .pflags = { 0, 0, 1, 0 } };
	struct xt_iprange_mtinfo ipr = { .flags = IPRANGE_SRC };
	struct xt_comment_info com = { .comment = "ssh" };
	struct xt_conntrack_mtinfo3 ct = { .match_flags = XT_CONNTRACK_STATE,
		.state_mask = XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED) };
	struct xt_state_info st = { .statemask = XT_STATE_BIT(IP_CT_NEW) };
	struct ipt_ip eth = { .iniface = "eth+",
			      .iniface_mask = { 0xff, 0xff, 0xff },
			      .flags = IPT_F_FRAG, .invflags = IPT_INV_FRAG };

	ipr.src_min.ip = htonl(0xc0a80001);
	ipr.src_max.ip = htonl(0xc0a800ff);
	tb_init(t);
	tb_hook(t, NF_INET_LOCAL_IN);
	tb_begin(t, &ip_tcp);
	tb_match(t, "tcp", 0, &tcp, sizeof(tcp));
	tb_match(t, "comment", 0, &com, sizeof(com));
	tb_std(t, V_ACCEPT);
	tb_begin(t, &ip_udp);
	tb_match(t, "udp", 0, &udp, sizeof(udp));
	tb_std(t, V_DROP);
	tb_begin(t, &ip_icmp);
	tb_match(t, "icmp", 0, &icmp, sizeof(icmp));
	tb_jump(t, "web", false);
	tb_begin(t, &eth);
	if (!no_ct())
		tb_match(t, "conntrack", 3, &ct, sizeof(ct));
	tb_std(t, V_ACCEPT);
	tb_policy(t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_hook(t, NF_INET_FORWARD);
	tb_begin(t, NULL);
	tb_match(t, "iprange", 1, &ipr, sizeof(ipr));
	tb_jump(t, "web", true);
	tb_policy(t, NF_INET_FORWARD, V_DROP);
	tb_hook(t, NF_INET_LOCAL_OUT);
	tb_begin(t, NULL);
	if (!no_ct())
		tb_match(t, "state", 0, &st, sizeof(st));
	tb_std(t, V_ACCEPT);
	tb_policy(t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(t, "web");
	tb_begin(t, &ip_tcp);
	tb_match(t, "multiport", 1, &mp, sizeof(mp));
	tb_std(t, V_ACCEPT);
	tb_chain_end(t);
	tb_chain(t, "unused");
	tb_chain_end(t);
	tb_finish(t);
}

/* ---- SET_REPLACE cases: a mutation of the notes' table ---- */

#define ENT(req, off)	((struct ipt_entry *)((req)->data + \
			 sizeof(struct ipt_replace) + (off)))
#define AT(req, off)	((req)->data + sizeof(struct ipt_replace) + (off))
#define VERDICT(req, off) (AT(req, off) + ENT(req, off)->target_offset + 32)

static void set_int(unsigned char *p, int v)
{
	memcpy(p, &v, sizeof(v));
}

static void m_none(struct buf *q) { (void)q; }
static void m_next_small(struct buf *q) { ENT(q, E_DROP)->next_offset = 136; }
static void m_next_zero(struct buf *q) { ENT(q, E_DROP)->next_offset = 0; }
static void m_next_unaligned(struct buf *q) { ENT(q, E_DROP)->next_offset += 4; }
static void m_next_past_end(struct buf *q) { ENT(q, E_ERR)->next_offset += 8; }
static void m_truncated_blob(struct buf *q)
{
	REPL(q)->size -= 64;
	q->len -= 64;
}
static void m_ip_flags(struct buf *q) { ENT(q, E_DROP)->ip.flags = 0x04; }
static void m_ip_invflags(struct buf *q) { ENT(q, E_DROP)->ip.invflags = 0x80; }
static void m_target_offset_small(struct buf *q) { ENT(q, E_DROP)->target_offset = 104; }
static void m_target_offset_big(struct buf *q) { ENT(q, E_DROP)->target_offset = 128; }
static void m_target_size_small(struct buf *q)
{
	((struct xt_entry_target *)AT(q, E_DROP + 112))->u.target_size = 31;
}
static void m_target_size_big(struct buf *q)
{
	((struct xt_entry_target *)AT(q, E_DROP + 112))->u.target_size = 48;
}
static void m_verdict_zero(struct buf *q) { set_int(VERDICT(q, E_DROP), 0); }
static void m_verdict_stolen(struct buf *q) { set_int(VERDICT(q, E_DROP), -3); }
static void m_verdict_intmin(struct buf *q) { set_int(VERDICT(q, E_DROP), INT_MIN); }
static void m_error_unterminated(struct buf *q)
{
	memset(AT(q, E_HEAD + 112 + 32), 'x', XT_FUNCTION_MAXNAMELEN);
}
static void m_error_size(struct buf *q)
{
	((struct xt_entry_target *)AT(q, E_HEAD + 112))->u.target_size = 56;
}
static void m_num_entries_less(struct buf *q) { REPL(q)->num_entries--; }
static void m_num_entries_more(struct buf *q) { REPL(q)->num_entries++; }
static void m_match_size_small(struct buf *q)
{
	((struct xt_entry_match *)AT(q, E_TCP + 112))->u.match_size = 24;
}
static void m_match_size_zero(struct buf *q)
{
	((struct xt_entry_match *)AT(q, E_TCP + 112))->u.match_size = 0;
}
static void m_match_size_big(struct buf *q)
{
	((struct xt_entry_match *)AT(q, E_TCP + 112))->u.match_size = 56;
}
static void m_match_unaligned(struct buf *q)
{
	((struct xt_entry_match *)AT(q, E_TCP + 112))->u.match_size = 44;
}
static void m_match_short_gap(struct buf *q)
{
	((struct xt_entry_match *)AT(q, E_TCP + 112))->u.match_size = 40;
}
static void m_match_name_unterminated(struct buf *q)
{
	memset(((struct xt_entry_match *)AT(q, E_TCP + 112))->u.user.name, 't',
	       XT_EXTENSION_MAXNAMELEN);
}
static void m_match_unknown(struct buf *q)
{
	strcpy(((struct xt_entry_match *)AT(q, E_TCP + 112))->u.user.name,
	       "nosuchmatch");
}
static void m_match_rev(struct buf *q)
{
	((struct xt_entry_match *)AT(q, E_TCP + 112))->u.user.revision = 1;
}
static void m_target_unknown(struct buf *q)
{
	strcpy(((struct xt_entry_target *)AT(q, E_DROP + 112))->u.user.name,
	       "NOSUCHTARGET");
}
static void m_target_rev(struct buf *q)
{
	((struct xt_entry_target *)AT(q, E_DROP + 112))->u.user.revision = 1;
}
static void m_tcp_proto_udp(struct buf *q) { ENT(q, E_TCP)->ip.proto = IPPROTO_UDP; }
static void m_tcp_proto_inv(struct buf *q) { ENT(q, E_TCP)->ip.invflags = IPT_INV_PROTO; }
static void m_tcp_invflags(struct buf *q)
{
	((struct xt_tcp *)(AT(q, E_TCP + 112 + 32)))->invflags = 0x10;
}
static void m_hook_not_entry(struct buf *q) { REPL(q)->hook_entry[NF_INET_LOCAL_IN] = 8; }
static void m_underflow_missing(struct buf *q) { REPL(q)->underflow[NF_INET_FORWARD] = 0xFFFFFFFF; }
static void m_underflow_conditional(struct buf *q) { REPL(q)->underflow[NF_INET_LOCAL_IN] = E_TCP; }
static void m_underflow_return(struct buf *q) { REPL(q)->underflow[NF_INET_LOCAL_OUT] = E_RET; }
static void m_underflow_error(struct buf *q) { REPL(q)->underflow[NF_INET_LOCAL_OUT] = E_HEAD; }
static void m_underflow_queue(struct buf *q) { set_int(VERDICT(q, E_OUT), V_QUEUE); }
static void m_hooks_unsorted(struct buf *q)
{
	REPL(q)->hook_entry[NF_INET_FORWARD] = E_OUT;
	REPL(q)->hook_entry[NF_INET_LOCAL_OUT] = E_FWD;
	REPL(q)->underflow[NF_INET_FORWARD] = E_OUT;
	REPL(q)->underflow[NF_INET_LOCAL_OUT] = E_FWD;
}
static void m_hooks_duplicate(struct buf *q) { REPL(q)->hook_entry[NF_INET_FORWARD] = 0; }
static void m_unused_hook_junk(struct buf *q)
{
	REPL(q)->underflow[NF_INET_PRE_ROUTING] = E_TCP;
	REPL(q)->hook_entry[NF_INET_POST_ROUTING] = 4;
}
static void m_valid_hooks_more(struct buf *q)
{
	REPL(q)->valid_hooks |= 1 << NF_INET_POST_ROUTING;
	REPL(q)->hook_entry[NF_INET_POST_ROUTING] = E_HEAD;
	REPL(q)->underflow[NF_INET_POST_ROUTING] = E_RET;
	set_int(VERDICT(q, E_RET), V_DROP);
}
static void m_valid_hooks_less(struct buf *q) { REPL(q)->valid_hooks = 1 << NF_INET_LOCAL_IN; }
static void m_jump_mid_entry(struct buf *q) { set_int(VERDICT(q, E_TCP), E_DROP + 8); }
static void m_jump_past_end(struct buf *q) { set_int(VERDICT(q, E_TCP), 100000); }
static void m_jump_self(struct buf *q)
{
	ENT(q, E_DROP)->ip.proto = IPPROTO_UDP;
	set_int(VERDICT(q, E_DROP), E_DROP);
}
static void m_jump_back(struct buf *q) { set_int(VERDICT(q, E_RET), E_DROP); }
static void m_jump_head(struct buf *q) { set_int(VERDICT(q, E_TCP), E_HEAD); }
static void m_jump_policy(struct buf *q) { set_int(VERDICT(q, E_TCP), E_OUT); }
static void m_goto(struct buf *q) { ENT(q, E_TCP)->ip.flags |= IPT_F_GOTO; }
static void m_fall_off_end(struct buf *q)
{
	/* MYCHAIN's rules become conditional and the tails go away */
	ENT(q, E_RET)->ip.proto = IPPROTO_UDP;
	REPL(q)->size = E_TAIL;
	REPL(q)->num_entries = 7;
	q->len = sizeof(struct ipt_replace) + E_TAIL;
}
static void m_loop_before_ext(struct buf *q)
{
	m_jump_mid_entry(q);
	m_match_unknown(q);
}
static void m_offsets_before_loop(struct buf *q)
{
	m_jump_mid_entry(q);
	ENT(q, E_TAIL)->ip.flags = 0x80;
}
static void m_name_junk(struct buf *q)
{
	memset(REPL(q)->name + 7, 'j', sizeof(REPL(q)->name) - 7);
}
static void m_name_unknown(struct buf *q) { strcpy(REPL(q)->name, "nosuchtable"); }
static void m_num_counters_zero(struct buf *q) { REPL(q)->num_counters = 0; }
static void m_num_counters_huge(struct buf *q) { REPL(q)->num_counters = INT_MAX / 16; }
static void m_num_counters_stale(struct buf *q) { REPL(q)->num_counters += 1; }
static void m_counters_bad_pointer(struct buf *q) { REPL(q)->counters = BAD_COUNTERS_PTR; }

/* Replace the whole request with a one-rule table: @ip, one match. */
/* The table of one INPUT rule @t began: policies, tail, the request. */
static void one_entry_table(struct tb *t, struct buf *q)
{
	tb_policy(t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(t);
	tb_replace(t, q, "filter", FILTER_HOOKS, cur_entries());
	tb_free(t);
}

static void one_rule(struct buf *q, const struct ipt_ip *ip, const char *name,
		     uint8_t rev, const void *data, unsigned int len)
{
	struct tb t;

	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin(&t, ip);
	tb_match(&t, name, rev, data, len);
	tb_std(&t, V_ACCEPT);
	one_entry_table(&t, q);
}

static const struct ipt_ip ip_any;
static const unsigned char zeros[512];

static void x_comment_rev1(struct buf *q) { one_rule(q, &ip_any, "comment", 1, zeros, 256); }
static void x_conntrack_rev0(struct buf *q) { one_rule(q, &ip_any, "conntrack", 0, zeros, 160); }
static void x_conntrack_rev4(struct buf *q) { one_rule(q, &ip_any, "conntrack", 4, zeros, 168); }
static void x_state_rev1(struct buf *q) { one_rule(q, &ip_any, "state", 1, zeros, 8); }
static void x_multiport_rev0(struct buf *q) { one_rule(q, &ip_tcp, "multiport", 0, zeros, 36); }
static void x_iprange_rev0(struct buf *q) { one_rule(q, &ip_any, "iprange", 0, zeros, 20); }
static void x_tcp_size(struct buf *q) { one_rule(q, &ip_tcp, "tcp", 0, zeros, 24); }
/* garbage in the alignment padding (struct xt_tcp is 12 bytes of 16):
 * GET_ENTRIES shows zeros there, from the helper's own normalization */
static void x_tcp_padding(struct buf *q)
{
	unsigned char d[16] = { [2] = 0xff, [3] = 0xff, [6] = 0xff, [7] = 0xff,
				[12] = 0xa5, [13] = 0xa5, [14] = 0xa5, [15] = 0xa5 };

	one_rule(q, &ip_tcp, "tcp", 0, d, sizeof(d));
}
static void x_udp_size(struct buf *q) { one_rule(q, &ip_udp, "udp", 0, zeros, 8); }
static void x_icmp_size(struct buf *q) { one_rule(q, &ip_icmp, "icmp", 0, zeros, 16); }
static void x_comment_size(struct buf *q) { one_rule(q, &ip_any, "comment", 0, zeros, 248); }
static void x_state_size(struct buf *q) { one_rule(q, &ip_any, "state", 0, zeros, 16); }
static void x_iprange_size(struct buf *q) { one_rule(q, &ip_any, "iprange", 1, zeros, 64); }
static void x_conntrack1_size(struct buf *q) { one_rule(q, &ip_any, "conntrack", 1, zeros, 160); }
static void x_conntrack3_size(struct buf *q) { one_rule(q, &ip_any, "conntrack", 3, zeros, 160); }
static void x_udp_on_tcp(struct buf *q)
{
	struct xt_udp u = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };

	one_rule(q, &ip_tcp, "udp", 0, &u, sizeof(u));
}
static void x_udp_invflags(struct buf *q)
{
	struct xt_udp u = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff },
			    .invflags = 0x04 };

	one_rule(q, &ip_udp, "udp", 0, &u, sizeof(u));
}
static void x_icmp_no_proto(struct buf *q)
{
	struct ipt_icmp i = { .type = 0xff, .code = { 0, 0xff } };

	one_rule(q, &ip_any, "icmp", 0, &i, sizeof(i));
}
static void x_icmp_invflags(struct buf *q)
{
	struct ipt_icmp i = { .type = 0xff, .code = { 0, 0xff }, .invflags = 2 };

	one_rule(q, &ip_icmp, "icmp", 0, &i, sizeof(i));
}
static void mp_rule(struct buf *q, const struct ipt_ip *ip, uint8_t flags,
		    uint8_t count, const uint16_t *ports, const uint8_t *pflags)
{
	struct xt_multiport_v1 mp = { .flags = flags, .count = count };

	memcpy(mp.ports, ports, sizeof(mp.ports));
	memcpy(mp.pflags, pflags, sizeof(mp.pflags));
	one_rule(q, ip, "multiport", 1, &mp, sizeof(mp));
}
static const uint16_t ports[15] = { 10, 20, 30 };
static const uint8_t no_ranges[15];
static const uint8_t range01[15] = { 1 };
static const uint8_t range_last[15] = { 0, 1 };
static const uint8_t range_chain[15] = { 1, 1 };
static const uint16_t ports_down[15] = { 20, 10 };
static void x_mp_ok(struct buf *q) { mp_rule(q, &ip_tcp, XT_MULTIPORT_EITHER, 15, ports, no_ranges); }
static void x_mp_count16(struct buf *q) { mp_rule(q, &ip_tcp, XT_MULTIPORT_EITHER, 16, ports, no_ranges); }
static void x_mp_flags3(struct buf *q) { mp_rule(q, &ip_tcp, 3, 2, ports, no_ranges); }
static void x_mp_no_proto(struct buf *q) { mp_rule(q, &ip_any, XT_MULTIPORT_SOURCE, 2, ports, no_ranges); }
static void x_mp_icmp(struct buf *q) { mp_rule(q, &ip_icmp, XT_MULTIPORT_SOURCE, 2, ports, no_ranges); }
static void x_mp_range_ok(struct buf *q) { mp_rule(q, &ip_udp, XT_MULTIPORT_SOURCE, 2, ports, range01); }
static void x_mp_range_last(struct buf *q) { mp_rule(q, &ip_tcp, XT_MULTIPORT_SOURCE, 2, ports, range_last); }
static void x_mp_range_chain(struct buf *q) { mp_rule(q, &ip_tcp, XT_MULTIPORT_SOURCE, 3, ports, range_chain); }
static void x_mp_range_down(struct buf *q) { mp_rule(q, &ip_tcp, XT_MULTIPORT_SOURCE, 2, ports_down, range01); }
static void x_any_iprange(struct buf *q)
{
	struct xt_iprange_mtinfo r;

	memset(&r, 0xff, sizeof(r));
	one_rule(q, &ip_any, "iprange", 1, &r, sizeof(r));
}
static void x_any_conntrack(struct buf *q)
{
	struct xt_conntrack_mtinfo2 c;

	memset(&c, 0, sizeof(c));
	c.match_flags = XT_CONNTRACK_STATE;
	c.state_mask = 0xffff;
	one_rule(q, &ip_any, "conntrack", 2, &c, sizeof(c));
}

/*
 * Payloads of extensions the kernel's own code serves (checked by
 * xt_check_match()/xt_check_target() and the extension's checkentry on
 * both backends): bad sizes and values each extension refuses.
 */
static void one_target(struct buf *q, const struct ipt_ip *ip,
		       const char *name, uint8_t rev, const void *data,
		       unsigned int len)
{
	struct tb t;

	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin(&t, ip);
	tb_target(&t, name, rev, data, len);
	one_entry_table(&t, q);
}
static void k_limit_size(struct buf *q)
{
	one_rule(q, &ip_any, "limit", 0, zeros, sizeof(struct xt_rateinfo) - 8);
}
static void k_limit_burst0(struct buf *q)
{
	struct xt_rateinfo r = { .avg = 10000, .burst = 0 };

	one_rule(q, &ip_any, "limit", 0, &r, sizeof(r));
}
static void k_limit_ok(struct buf *q)
{
	struct xt_rateinfo r = { .avg = 10000, .burst = 5 };

	one_rule(q, &ip_any, "limit", 0, &r, sizeof(r));
}
/* garbage where the kernel keeps its own state (past xt_limit's
 * usersize) and in a kernel extension's alignment padding: GET_ENTRIES
 * shows zeros in both, which only the kernel's write-back of the entry
 * gives (ebpf_ctl_install.writeback) */
static void k_limit_tail(struct buf *q)
{
	struct xt_rateinfo r = { .avg = 10000, .burst = 5, .prev = 0x0102030405060708ULL,
				 .credit = 9, .credit_cap = 9, .cost = 9,
				 .master = (void *)0x5a5a5a5a5a5a5a5aULL };

	one_rule(q, &ip_any, "limit", 0, &r, sizeof(r));
}
static void k_mark_padding(struct buf *q)
{
	/* struct xt_mark_mtinfo1 is 12 bytes (its own tail padding, after
	 * invert, is copied as given) of 16 */
	unsigned char d[16] = { [0] = 0x22, [4] = 0xff, [9] = 0xa5, [10] = 0xa5,
				[11] = 0xa5, [12] = 0xa5, [15] = 0xa5 };

	one_rule(q, &ip_any, "mark", 1, d, sizeof(d));
}
static void k_owner_in_input(struct buf *q)
{
	struct xt_owner_match_info o = { .match = XT_OWNER_UID };

	one_rule(q, &ip_any, "owner", 1, &o, sizeof(o));
}
static void k_recent_name_empty(struct buf *q)
{
	struct xt_recent_mtinfo r = { .seconds = 1, .check_set = XT_RECENT_CHECK,
				      .side = XT_RECENT_SOURCE };

	one_rule(q, &ip_any, "recent", 0, &r, sizeof(r));
}
static void k_reject_bad_with(struct buf *q)
{
	struct ipt_reject_info r = { .with = 99 };

	one_target(q, &ip_any, "REJECT", 0, &r, sizeof(r));
}
static void k_reject_reset_udp(struct buf *q)
{
	struct ipt_reject_info r = { .with = IPT_TCP_RESET };

	one_target(q, &ip_udp, "REJECT", 0, &r, sizeof(r));
}
static void k_reject_size(struct buf *q)
{
	one_target(q, &ip_any, "REJECT", 0, zeros, 8);
}
static void k_log_level8(struct buf *q)
{
	struct xt_log_info l = { .level = 8, .prefix = "x" };

	one_target(q, &ip_any, "LOG", 0, &l, sizeof(l));
}
static void k_log_prefix_unterminated(struct buf *q)
{
	struct xt_log_info l = { .level = 4 };

	memset(l.prefix, 'p', sizeof(l.prefix));
	one_target(q, &ip_any, "LOG", 0, &l, sizeof(l));
}
static void k_log_ok(struct buf *q)
{
	struct xt_log_info l = { .level = 4, .prefix = "badblob " };

	one_target(q, &ip_any, "LOG", 0, &l, sizeof(l));
}
static void k_mark_rev9(struct buf *q)
{
	one_target(q, &ip_any, "MARK", 9, zeros, 8);
}

static const struct blob_case replace_cases[] = {
#define C(n) { #n, m_##n }
	C(none), C(next_small), C(next_zero), C(next_unaligned),
	C(next_past_end), C(truncated_blob), C(ip_flags), C(ip_invflags),
	C(target_offset_small), C(target_offset_big), C(target_size_small),
	C(target_size_big), C(verdict_zero), C(verdict_stolen),
	C(verdict_intmin), C(error_unterminated),
	C(error_size), C(num_entries_less), C(num_entries_more),
	C(match_size_small), C(match_size_zero), C(match_size_big),
	C(match_unaligned), C(match_short_gap), C(match_name_unterminated),
	C(match_unknown), C(match_rev), C(target_unknown), C(target_rev),
	C(tcp_proto_udp), C(tcp_proto_inv), C(tcp_invflags),
	C(hook_not_entry), C(underflow_missing), C(underflow_conditional),
	C(underflow_return), C(underflow_error), C(underflow_queue),
	C(hooks_unsorted), C(hooks_duplicate), C(unused_hook_junk),
	C(valid_hooks_more), C(valid_hooks_less), C(jump_mid_entry),
	C(jump_past_end), C(jump_self), C(jump_back), C(jump_head),
	C(jump_policy), C(goto), C(fall_off_end), C(loop_before_ext),
	C(offsets_before_loop), C(name_junk), C(name_unknown),
	C(num_counters_zero), C(num_counters_huge), C(num_counters_stale),
	C(counters_bad_pointer),
#undef C
#define X(n) { "ext_" #n, x_##n }
	X(comment_rev1), X(conntrack_rev0), X(conntrack_rev4), X(state_rev1),
	X(multiport_rev0), X(iprange_rev0), X(tcp_size), X(udp_size),
	X(icmp_size), X(comment_size), X(state_size), X(iprange_size),
	X(conntrack1_size), X(conntrack3_size), X(udp_on_tcp),
	X(udp_invflags), X(icmp_no_proto), X(icmp_invflags), X(mp_ok),
	X(mp_count16), X(mp_flags3), X(mp_no_proto), X(mp_icmp),
	X(mp_range_ok), X(mp_range_last), X(mp_range_chain),
	X(mp_range_down), X(any_iprange), X(any_conntrack), X(tcp_padding),
#undef X
#define K(n) { "kext_" #n, k_##n }
	K(limit_size), K(limit_burst0), K(limit_ok), K(owner_in_input),
	K(recent_name_empty), K(reject_bad_with), K(reject_reset_udp),
	K(reject_size), K(log_level8), K(log_prefix_unterminated), K(log_ok),
	K(mark_rev9), K(limit_tail), K(mark_padding),
#undef K
};

static void run_replace_cases(void)
{
	run_blob_cases(replace_cases, sizeof(replace_cases) / sizeof(replace_cases[0]),
		       tb_notes, "replace_", no_ct() ? x_any_conntrack : NULL);
}

int main(int argc, char **argv)
{
	bool v6 = argc > 1 && !strcmp(argv[1], "-6");

	sock = socket(v6 ? AF_INET6 : AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (sock < 0) {
		perror("socket");
		return 1;
	}
	if (v6) {
		sol = SOL_IPV6;
		return run_ip6_cases();
	}
	/* a failure of the first is an answer to compare, of the second fatal */
	install(tb_rich, "table_rich");
	if (install(tb_notes, "table_notes"))
		return 1;
	run_get_cases();
	run_revision_cases();
	run_replace_cases();
	run_length_cases();
	run_counter_cases();
	/* leave the table empty, as found */
	{
		struct tb t;
		struct buf req = { 0 };

		tb_filter_initial(&t);
		tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
		printf("final_reset: %s\n", err_name(send_replace(&req, req.len)));
		buf_free(&req);
		tb_free(&t);
	}
	run_table_cases();
	return 0;
}
