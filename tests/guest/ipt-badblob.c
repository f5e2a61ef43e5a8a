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
 * their own, run last (run_table_cases()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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
#include <linux/netfilter_ipv4/ipt_TTL.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/xt_CHECKSUM.h>
#include <linux/netfilter/xt_CLASSIFY.h>
#include <linux/netfilter/xt_CONNSECMARK.h>
#include <linux/netfilter/xt_CT.h>
#include <linux/netfilter/xt_TCPMSS.h>
#include <linux/netfilter/xt_mark.h>

#include "ipt_builder.h"

static int sock;
static struct buf baseline;	/* GET_ENTRIES of the installed table */
static unsigned int base_entries;
static void (*base_build)(struct tb *t);

static const char *err_name(int err)
{
	const char *n;

	if (!err)
		return "ok";
	n = strerrorname_np(err);
	return n ? n : "E?";
}

static int get_info(const char *name, struct ipt_getinfo *info,
		    socklen_t len)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	return getsockopt(sock, SOL_IP, IPT_SO_GET_INFO, info, &len) ? errno : 0;
}

/* Table @table's entries, counters zeroed; 0 or errno. */
static int read_named(const char *table, struct buf *out)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *g;
	socklen_t len;
	unsigned int off;
	int err;

	err = get_info(table, &info, sizeof(info));
	if (err)
		return err;
	len = sizeof(*g) + info.size;
	g = calloc(1, len);	/* zeroed: the kernel leaves name tails alone */
	if (!g)
		return ENOMEM;
	snprintf(g->name, sizeof(g->name), "%s", table);
	g->size = info.size;
	if (getsockopt(sock, SOL_IP, IPT_SO_GET_ENTRIES, g, &len)) {
		err = errno;
		free(g);
		return err;
	}
	for (off = 0; off < g->size;) {
		struct ipt_entry *e = (void *)((char *)g->entrytable + off);

		memset(&e->counters, 0, sizeof(e->counters));
		if (e->next_offset == 0)
			break;
		off += e->next_offset;
	}
	buf_reset(out);
	buf_append(out, g->entrytable, g->size);
	free(g);
	return 0;
}

/* The filter table's entries, counters zeroed; 0 or errno. */
static int read_table(struct buf *out)
{
	return read_named("filter", out);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static unsigned int named_entries(const char *table)
{
	struct ipt_getinfo info;

	return get_info(table, &info, sizeof(info)) ? 0 : info.num_entries;
}

static unsigned int cur_entries(void)
{
	return named_entries("filter");
}

/* A counters pointer no process has mapped (m_counters_bad_pointer). */
#define BAD_COUNTERS_PTR ((void *)16)

/*
 * SET_REPLACE of @req (a struct ipt_replace + entries), optlen @len.  The
 * old counters go to a fresh buffer large enough for what the request
 * claims, unless the case asked for a bad pointer.
 */
static int send_replace(struct buf *req, socklen_t len)
{
	struct ipt_replace *r = (void *)req->data;
	struct xt_counters *old = NULL;
	int err;

	if (r->counters != BAD_COUNTERS_PTR) {
		old = calloc(r->num_counters < 100000 ? r->num_counters + 1 : 1,
			     sizeof(*old));
		r->counters = r->num_counters < 100000 ? old : NULL;
	}
	err = setsockopt(sock, SOL_IP, IPT_SO_SET_REPLACE, req->data, len) ?
		errno : 0;
	if (old)
		r->counters = NULL;
	free(old);
	return err;
}

static int install(void (*build)(struct tb *t), const char *label)
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	build(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
	err = send_replace(&req, req.len);
	if (!err)
		err = read_table(&baseline);
	if (!err) {
		base_entries = t.num_entries;
		base_build = build;
		printf("%s: installed, %u entries, %zu bytes, entries hash %016llx\n",
		       label, t.num_entries, baseline.len,
		       (unsigned long long)fnv1a(baseline.data, baseline.len));
	} else {
		printf("%s: install failed: %s\n", label, err_name(err));
	}
	buf_free(&req);
	tb_free(&t);
	return err;
}

/* After a case: is the table the baseline?  Put it back if not. */
static const char *check_intact(void)
{
	struct buf now = { 0 };
	const char *verdict = "intact";

	if (read_table(&now) || now.len != baseline.len ||
	    memcmp(now.data, baseline.data, now.len)) {
		verdict = "CHANGED";
		install(base_build, "  reinstall");
	}
	buf_free(&now);
	return verdict;
}

static void report(const char *name, int err)
{
	printf("%s: %s %s\n", name, err_name(err), check_intact());
	fflush(stdout);
}

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
#define REPL(req)	((struct ipt_replace *)(req)->data)

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

static const struct {
	const char *name;
	void (*mutate)(struct buf *req);
} replace_cases[] = {
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
	X(mp_range_down), X(any_iprange), X(any_conntrack),
#undef X
#define K(n) { "kext_" #n, k_##n }
	K(limit_size), K(limit_burst0), K(limit_ok), K(owner_in_input),
	K(recent_name_empty), K(reject_bad_with), K(reject_reset_udp),
	K(reject_size), K(log_level8), K(log_prefix_unterminated), K(log_ok),
	K(mark_rev9),
#undef K
};

static void run_replace_cases(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(replace_cases) / sizeof(replace_cases[0]); i++) {
		struct buf req = { 0 };
		struct tb t;
		int err;

		if (no_ct() && replace_cases[i].mutate == x_any_conntrack)
			continue;
		tb_notes(&t);
		tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
		replace_cases[i].mutate(&req);
		err = send_replace(&req, req.len);
		if (!err) {
			/* accepted: the table must now be the one sent */
			struct buf now = { 0 };

			read_table(&now);
			printf("replace_%s: ok, now %u entries", replace_cases[i].name,
			       cur_entries());
			printf(", entries hash %016llx\n", (unsigned long long)
			       fnv1a(now.data, now.len));
			buf_free(&now);
			install(base_build, "  reinstall");
		} else {
			char name[96];

			snprintf(name, sizeof(name), "replace_%s",
				 replace_cases[i].name);
			report(name, err);
		}
		buf_free(&req);
		tb_free(&t);
	}
}

/* optlen lies about the buffer */
static void run_length_cases(void)
{
	struct buf req = { 0 };
	struct tb t;

	tb_notes(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries());
	report("replace_optlen_header_short", send_replace(&req, 95));
	report("replace_optlen_zero", send_replace(&req, 0));
	report("replace_optlen_blob_short", send_replace(&req, req.len - 1));
	buf_append_zero(&req, 64);
	report("replace_optlen_long", send_replace(&req, req.len));
	buf_free(&req);
	tb_free(&t);
}

static int add_counters(const char *table, unsigned int n, socklen_t len,
			uint64_t pcnt)
{
	struct buf req = { 0 };
	int err;

	tb_counters(&req, table, n, pcnt, pcnt * 100);
	err = setsockopt(sock, SOL_IP, IPT_SO_SET_ADD_COUNTERS, req.data,
			 len ? len : req.len) ? errno : 0;
	buf_free(&req);
	return err;
}

static void run_counter_cases(void)
{
	unsigned int n = cur_entries();

	report("add_counters_len_header_only", add_counters("filter", 0, 0, 1));
	report("add_counters_len_short", add_counters("filter", n, 40 + 16 * n - 1, 1));
	report("add_counters_len_long", add_counters("filter", n, 40 + 16 * n + 16, 1));
	report("add_counters_fewer", add_counters("filter", n - 1, 0, 1));
	report("add_counters_more", add_counters("filter", n + 1, 0, 1));
	report("add_counters_unknown", add_counters("nosuchtable", n, 0, 1));
	/* accepted: counters are not part of the comparison */
	report("add_counters_ok", add_counters("filter", n, 0, 7));
}

static void print_info(const char *label, const struct ipt_getinfo *info)
{
	printf("%s: valid_hooks %#x entries %u size %u hooks %d/%d/%d/%d/%d underflows %d/%d/%d/%d/%d\n",
	       label, info->valid_hooks, info->num_entries, info->size,
	       (int)info->hook_entry[0], (int)info->hook_entry[1],
	       (int)info->hook_entry[2], (int)info->hook_entry[3],
	       (int)info->hook_entry[4], (int)info->underflow[0],
	       (int)info->underflow[1], (int)info->underflow[2],
	       (int)info->underflow[3], (int)info->underflow[4]);
}

static void run_get_cases(void)
{
	struct ipt_getinfo info;
	struct {
		struct ipt_get_entries g;
		unsigned char room[8192];
	} ge;
	socklen_t len;
	unsigned int size;

	report("get_info_len_short", get_info("filter", &info, sizeof(info) - 1));
	report("get_info_len_long", get_info("filter", &info, sizeof(info) + 1));
	report("get_info_unknown", get_info("nosuchtable", &info, sizeof(info)));
	report("get_info_empty_name", get_info("", &info, sizeof(info)));
	get_info("filter", &info, sizeof(info));
	size = info.size;
	print_info("get_info_filter", &info);

	memset(&ge, 0, sizeof(ge));
	strcpy(ge.g.name, "filter");
#define GET(label, sz, l) do {						\
		ge.g.size = (sz);					\
		len = (l);						\
		report(label, getsockopt(sock, SOL_IP, IPT_SO_GET_ENTRIES, \
					 &ge, &len) ? errno : 0);	\
	} while (0)
	GET("get_entries_ok", size, sizeof(ge.g) + size);
	GET("get_entries_len_short", size, sizeof(ge.g) + size - 1);
	GET("get_entries_len_long", size, sizeof(ge.g) + size + 1);
	GET("get_entries_len_header_short", size, sizeof(ge.g) - 1);
	GET("get_entries_size_smaller", size - 8, sizeof(ge.g) + size - 8);
	GET("get_entries_size_larger", size + 8, sizeof(ge.g) + size + 8);
	GET("get_entries_size_zero", 0, sizeof(ge.g));
	strcpy(ge.g.name, "nosuchtable");
	GET("get_entries_unknown", size, sizeof(ge.g) + size);
	memset(ge.g.name, 'f', sizeof(ge.g.name));
	GET("get_entries_name_unterminated", size, sizeof(ge.g) + size);
#undef GET
}

static void revision(const char *name, int rev, bool target)
{
	struct xt_get_revision r;
	socklen_t len = sizeof(r);
	int ret;

	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.revision = rev;
	ret = getsockopt(sock, SOL_IP, target ? IPT_SO_GET_REVISION_TARGET :
			 IPT_SO_GET_REVISION_MATCH, &r, &len);
	printf("revision_%s_%s_%d: %s\n", target ? "target" : "match",
	       name[0] ? name : "standard", rev, ret < 0 ? err_name(errno) : "ok");
}

static void run_revision_cases(void)
{
	static const struct { const char *n; int rev; } m[] = {
		{ "tcp", 0 }, { "tcp", 1 }, { "udp", 0 }, { "icmp", 0 },
		{ "icmp", 1 }, { "multiport", 0 }, { "multiport", 1 },
		{ "multiport", 2 }, { "iprange", 0 }, { "iprange", 1 },
		{ "comment", 0 }, { "comment", 1 }, { "conntrack", 0 },
		{ "conntrack", 1 }, { "conntrack", 2 }, { "conntrack", 3 },
		{ "conntrack", 4 }, { "state", 0 }, { "state", 1 },
		{ "nosuchmatch", 0 },
	};
	static const struct { const char *n; int rev; } t[] = {
		{ "", 0 }, { "", 1 }, { "ERROR", 0 }, { "ERROR", 1 },
		{ "NOSUCHTARGET", 0 },
	};
	struct xt_get_revision r = { .name = "tcp" };
	socklen_t len = sizeof(r) - 1;
	unsigned int i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		revision(m[i].n, m[i].rev, false);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		revision(t[i].n, t[i].rev, true);
	printf("revision_len_short: %s\n",
	       getsockopt(sock, SOL_IP, IPT_SO_GET_REVISION_MATCH, &r, &len) < 0 ?
	       err_name(errno) : "ok");
}

/*
 * ---- every table: nat, mangle, raw, security beside filter ----
 *
 * Each table is first used by GET_INFO (ip_tables creates it then, with
 * its built-in chains and ACCEPT policies), then replaced by its initial
 * table, the baseline its cases are compared with: layouts the table's
 * hooks refuse, counters and GET_ENTRIES lengths that do not fit, and
 * targets in tables and hooks that do or do not allow them.  Every errno
 * is compared with ip_tables' in the same guest, none is written here.
 */
#define NAT_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_IN) | \
		   (1 << NF_INET_LOCAL_OUT) | (1 << NF_INET_POST_ROUTING))
#define MANGLE_HOOKS ((1 << NF_INET_NUMHOOKS) - 1)
#define RAW_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_OUT))

struct named_table {
	const char *name;
	unsigned int hooks;
	struct buf base;	/* GET_ENTRIES of its initial table */
};

static struct named_table tables[] = {
	{ .name = "filter", .hooks = FILTER_HOOKS },
	{ .name = "nat", .hooks = NAT_HOOKS },
	{ .name = "mangle", .hooks = MANGLE_HOOKS },
	{ .name = "raw", .hooks = RAW_HOOKS },
	{ .name = "security", .hooks = FILTER_HOOKS },
};

/* One rule's target, or none. */
struct tgt {
	const char *name;
	uint8_t rev;
	const void *data;
	unsigned int len;
	const struct ipt_ip *ip;
};

/* A table of @hooks' ACCEPT policies, @g the one rule at @rule_hook. */
static void tbl_build(struct tb *t, unsigned int hooks, int rule_hook,
		      const struct tgt *g)
{
	unsigned int h;

	tb_init(t);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(hooks & (1 << h)))
			continue;
		if (g && (int)h == rule_hook) {
			tb_hook(t, h);
			tb_begin(t, g->ip);
			tb_target(t, g->name, g->rev, g->data, g->len);
		}
		tb_policy(t, h, V_ACCEPT);
	}
	tb_finish(t);
}

static int tbl_install(struct named_table *d)
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	tbl_build(&t, d->hooks, -1, NULL);
	tb_replace(&t, &req, d->name, d->hooks, named_entries(d->name));
	err = send_replace(&req, req.len);
	buf_free(&req);
	tb_free(&t);
	return err;
}

static void tbl_report(struct named_table *d, const char *what, int err)
{
	struct buf now = { 0 };
	const char *verdict = "intact";

	if (read_named(d->name, &now) || now.len != d->base.len ||
	    memcmp(now.data, d->base.data, now.len)) {
		verdict = "CHANGED";
		tbl_install(d);
	}
	printf("%s_%s: %s %s\n", d->name, what, err_name(err), verdict);
	fflush(stdout);
	buf_free(&now);
}

/* Mutations of a table's request (its hooks from valid_hooks). */
static unsigned int first_hook(struct buf *q)
{
	return __builtin_ctz(REPL(q)->valid_hooks);
}
static unsigned int last_hook(struct buf *q)
{
	return 31 - __builtin_clz(REPL(q)->valid_hooks);
}
static void t_hook_not_entry(struct buf *q) { REPL(q)->hook_entry[first_hook(q)] = 8; }
static void t_underflow_error(struct buf *q)
{
	/* the ERROR tail: ipt_entry, target header, error name */
	REPL(q)->underflow[last_hook(q)] = REPL(q)->size -
		(sizeof(struct ipt_entry) + sizeof(struct xt_entry_target) +
		 XT_FUNCTION_MAXNAMELEN);
}
static void t_underflow_next(struct buf *q)
{
	REPL(q)->underflow[first_hook(q)] += sizeof(struct ipt_entry) +
		XT_ALIGN(sizeof(struct xt_standard_target));
}
static void t_hooks_swapped(struct buf *q)
{
	struct ipt_replace *r = REPL(q);
	unsigned int a = first_hook(q), b = last_hook(q), x;

	x = r->hook_entry[a], r->hook_entry[a] = r->hook_entry[b], r->hook_entry[b] = x;
	x = r->underflow[a], r->underflow[a] = r->underflow[b], r->underflow[b] = x;
}
static void t_valid_hooks_less(struct buf *q)
{
	REPL(q)->valid_hooks &= ~(1u << first_hook(q));
}
static void t_num_counters_stale(struct buf *q) { REPL(q)->num_counters += 1; }

/*
 * SET_REPLACE of @d with a table laid out for @hooks (one rule @g at
 * @rule_hook), @mutate applied.  Accepted: the table's hash, then the
 * initial table back.
 */
static void tbl_case(struct named_table *d, const char *what,
		     unsigned int hooks, int rule_hook, const struct tgt *g,
		     void (*mutate)(struct buf *q))
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	tbl_build(&t, hooks, rule_hook, g);
	tb_replace(&t, &req, d->name, hooks, named_entries(d->name));
	if (mutate)
		mutate(&req);
	err = send_replace(&req, req.len);
	if (!err) {
		struct buf now = { 0 };

		read_named(d->name, &now);
		printf("%s_%s: ok, now %u entries, entries hash %016llx\n",
		       d->name, what, named_entries(d->name),
		       (unsigned long long)fnv1a(now.data, now.len));
		buf_free(&now);
		printf("%s_%s_reinstall: %s\n", d->name, what,
		       err_name(tbl_install(d)));
	} else {
		tbl_report(d, what, err);
	}
	buf_free(&req);
	tb_free(&t);
}

static void tbl_get_entries(struct named_table *d, const char *what,
			    int size_delta, int len_delta)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *g;
	socklen_t len;
	int err;

	get_info(d->name, &info, sizeof(info));
	len = sizeof(*g) + info.size + len_delta;
	g = calloc(1, sizeof(*g) + info.size + 64);
	if (!g)
		abort();
	snprintf(g->name, sizeof(g->name), "%s", d->name);
	g->size = info.size + size_delta;
	err = getsockopt(sock, SOL_IP, IPT_SO_GET_ENTRIES, g, &len) ? errno : 0;
	free(g);
	tbl_report(d, what, err);
}

/* Layout and counter cases, the same for every table. */
static void tbl_layout_cases(struct named_table *d)
{
	unsigned int other = d->hooks == FILTER_HOOKS ? RAW_HOOKS : FILTER_HOOKS;
	unsigned int n = named_entries(d->name);

	tbl_case(d, "initial_again", d->hooks, -1, NULL, NULL);
	tbl_case(d, "valid_hooks_other", other, -1, NULL, NULL);
	tbl_case(d, "valid_hooks_less", d->hooks, -1, NULL, t_valid_hooks_less);
	tbl_case(d, "hook_not_entry", d->hooks, -1, NULL, t_hook_not_entry);
	tbl_case(d, "underflow_error", d->hooks, -1, NULL, t_underflow_error);
	tbl_case(d, "underflow_next", d->hooks, -1, NULL, t_underflow_next);
	tbl_case(d, "hooks_swapped", d->hooks, -1, NULL, t_hooks_swapped);
	tbl_case(d, "num_counters_stale", d->hooks, -1, NULL, t_num_counters_stale);
	tbl_report(d, "add_counters_fewer", add_counters(d->name, n - 1, 0, 1));
	tbl_report(d, "add_counters_more", add_counters(d->name, n + 1, 0, 1));
	tbl_report(d, "add_counters_ok", add_counters(d->name, n, 0, 3));
	tbl_get_entries(d, "get_entries_ok", 0, 0);
	tbl_get_entries(d, "get_entries_size_smaller", -8, -8);
	tbl_get_entries(d, "get_entries_size_larger", 8, 8);
	tbl_get_entries(d, "get_entries_len_short", 0, -1);
	tbl_get_entries(d, "get_entries_len_long", 0, 1);
}

/* Target payloads as iptables-legacy 1.8.9 sends them. */
static struct nf_nat_range2 nat_to(uint32_t addr)
{
	struct nf_nat_range2 r = { .flags = NF_NAT_RANGE_MAP_IPS };

	r.min_addr.ip = r.max_addr.ip = htonl(addr);
	return r;
}

static void run_target_cases(struct named_table *filter, struct named_table *nat,
			     struct named_table *mangle, struct named_table *raw,
			     struct named_table *security)
{
	static const struct nf_nat_ipv4_multi_range_compat compat1 = { .rangesize = 1 };
	static const struct nf_nat_ipv4_multi_range_compat compat2 = { .rangesize = 2 };
	struct nf_nat_ipv4_multi_range_compat compat_ips = { .rangesize = 1 };
	struct nf_nat_ipv4_multi_range_compat redir = { .rangesize = 1 };
	struct nf_nat_range2 dnat = nat_to(0x01020304), snat = nat_to(0xc0000205);
	struct xt_ct_target_info_v1 notrack = { .flags = XT_CT_NOTRACK };
	struct xt_ct_target_info_v1 zone = { .zone = 5 };
	struct xt_ct_target_info_v1 helper = { .helper = "nosuchhelper" };
	struct xt_mark_tginfo2 mark = { .mark = 0x10, .mask = 0xffffffff };
	struct xt_classify_target_info classify = { .priority = 0x10010 };
	struct ipt_TTL_info ttl = { .mode = IPT_TTL_SET, .ttl = 64 };
	struct ipt_TTL_info ttl_mode = { .mode = 7, .ttl = 64 };
	struct xt_connsecmark_target_info csm0 = { .mode = 0 };
	struct xt_connsecmark_target_info csm = { .mode = CONNSECMARK_SAVE };
	struct xt_CHECKSUM_info csum = { .operation = XT_CHECKSUM_OP_FILL };
	struct xt_tcpmss_info mss = { .mss = XT_TCPMSS_CLAMP_PMTU };
	const struct tgt
		g_dnat = { "DNAT", 2, &dnat, sizeof(dnat), NULL },
		g_dnat_small = { "DNAT", 2, &dnat, sizeof(dnat) - 8, NULL },
		g_snat = { "SNAT", 2, &snat, sizeof(snat), NULL },
		g_snat0 = { "SNAT", 0, &compat1, sizeof(compat1), NULL },
		g_masq = { "MASQUERADE", 0, &compat1, sizeof(compat1), NULL },
		g_masq2 = { "MASQUERADE", 0, &compat2, sizeof(compat2), NULL },
		g_masq_ips = { "MASQUERADE", 0, &compat_ips, sizeof(compat_ips), NULL },
		g_redir = { "REDIRECT", 0, &redir, sizeof(redir), &ip_tcp },
		g_netmap = { "NETMAP", 0, &compat_ips, sizeof(compat_ips), NULL },
		g_notrack = { "CT", 2, &notrack, sizeof(notrack), NULL },
		g_zone = { "CT", 2, &zone, sizeof(zone), NULL },
		g_helper = { "CT", 2, &helper, sizeof(helper), &ip_tcp },
		g_NOTRACK = { "NOTRACK", 0, NULL, 0, NULL },
		g_mark = { "MARK", 2, &mark, sizeof(mark), NULL },
		g_classify = { "CLASSIFY", 0, &classify, sizeof(classify), NULL },
		g_ttl = { "TTL", 0, &ttl, sizeof(ttl), NULL },
		g_ttl_mode = { "TTL", 0, &ttl_mode, sizeof(ttl_mode), NULL },
		g_csm0 = { "CONNSECMARK", 0, &csm0, sizeof(csm0), NULL },
		g_csm = { "CONNSECMARK", 0, &csm, sizeof(csm), NULL },
		g_csum = { "CHECKSUM", 0, &csum, sizeof(csum), &ip_udp },
		g_mss_any = { "TCPMSS", 0, &mss, sizeof(mss), NULL };

	compat_ips.range[0].flags = NF_NAT_RANGE_MAP_IPS;
	compat_ips.range[0].min_ip = htonl(0x0a030000);
	compat_ips.range[0].max_ip = htonl(0x0a0300ff);
	redir.range[0].flags = NF_NAT_RANGE_PROTO_SPECIFIED;
	redir.range[0].min.tcp.port = redir.range[0].max.tcp.port = htons(3128);

	/* nat targets where ip_tables' hooks or tables refuse them */
	tbl_case(filter, "dnat_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_dnat, NULL);
	tbl_case(filter, "masquerade_in_forward", FILTER_HOOKS, NF_INET_FORWARD, &g_masq, NULL);
	tbl_case(filter, "snat_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_snat, NULL);
	tbl_case(filter, "redirect_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_redir, NULL);
	tbl_case(mangle, "dnat_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_dnat, NULL);
	tbl_case(nat, "masquerade_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_masq, NULL);
	tbl_case(nat, "redirect_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_redir, NULL);
	tbl_case(nat, "dnat_in_input", NAT_HOOKS, NF_INET_LOCAL_IN, &g_dnat, NULL);
	tbl_case(nat, "snat_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_snat, NULL);
	/* nat targets the checkentry refuses */
	tbl_case(nat, "masquerade_rangesize2", NAT_HOOKS, NF_INET_POST_ROUTING, &g_masq2, NULL);
	tbl_case(nat, "masquerade_map_ips", NAT_HOOKS, NF_INET_POST_ROUTING, &g_masq_ips, NULL);
	tbl_case(nat, "snat0_rangesize2", NAT_HOOKS, NF_INET_POST_ROUTING,
		 &(struct tgt){ "SNAT", 0, &compat2, sizeof(compat2), NULL }, NULL);
	tbl_case(nat, "dnat_size_small", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_dnat_small, NULL);
	/* nat targets where they belong */
	tbl_case(nat, "dnat_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_dnat, NULL);
	tbl_case(nat, "dnat_in_output", NAT_HOOKS, NF_INET_LOCAL_OUT, &g_dnat, NULL);
	tbl_case(nat, "snat_in_input", NAT_HOOKS, NF_INET_LOCAL_IN, &g_snat, NULL);
	tbl_case(nat, "snat0_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_snat0, NULL);
	tbl_case(nat, "masquerade_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_masq, NULL);
	tbl_case(nat, "redirect_in_prerouting", NAT_HOOKS, NF_INET_PRE_ROUTING, &g_redir, NULL);
	tbl_case(nat, "netmap_in_postrouting", NAT_HOOKS, NF_INET_POST_ROUTING, &g_netmap, NULL);
	/* raw's targets */
	tbl_case(filter, "ct_notrack_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_notrack, NULL);
	tbl_case(filter, "NOTRACK_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_NOTRACK, NULL);
	tbl_case(mangle, "ct_notrack_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_notrack, NULL);
	tbl_case(raw, "ct_notrack_in_prerouting", RAW_HOOKS, NF_INET_PRE_ROUTING, &g_notrack, NULL);
	tbl_case(raw, "ct_zone_in_output", RAW_HOOKS, NF_INET_LOCAL_OUT, &g_zone, NULL);
	tbl_case(raw, "NOTRACK_in_output", RAW_HOOKS, NF_INET_LOCAL_OUT, &g_NOTRACK, NULL);
	tbl_case(raw, "ct_no_such_helper", RAW_HOOKS, NF_INET_PRE_ROUTING, &g_helper, NULL);
	tbl_case(raw, "dnat_in_prerouting", RAW_HOOKS, NF_INET_PRE_ROUTING, &g_dnat, NULL);
	/* mangle's targets, and MARK, which every table may use */
	tbl_case(filter, "mark_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_mark, NULL);
	tbl_case(mangle, "mark_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_mark, NULL);
	tbl_case(nat, "mark_in_output", NAT_HOOKS, NF_INET_LOCAL_OUT, &g_mark, NULL);
	tbl_case(filter, "ttl_in_input", FILTER_HOOKS, NF_INET_LOCAL_IN, &g_ttl, NULL);
	tbl_case(mangle, "ttl_in_forward", MANGLE_HOOKS, NF_INET_FORWARD, &g_ttl, NULL);
	tbl_case(mangle, "ttl_bad_mode", MANGLE_HOOKS, NF_INET_FORWARD, &g_ttl_mode, NULL);
	tbl_case(filter, "checksum_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csum, NULL);
	tbl_case(mangle, "checksum_in_postrouting", MANGLE_HOOKS, NF_INET_POST_ROUTING, &g_csum, NULL);
	tbl_case(mangle, "classify_in_prerouting", MANGLE_HOOKS, NF_INET_PRE_ROUTING, &g_classify, NULL);
	tbl_case(mangle, "classify_in_postrouting", MANGLE_HOOKS, NF_INET_POST_ROUTING, &g_classify, NULL);
	tbl_case(mangle, "tcpmss_without_tcp", MANGLE_HOOKS, NF_INET_FORWARD, &g_mss_any, NULL);
	/* security's */
	tbl_case(security, "connsecmark_mode0", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csm0, NULL);
	tbl_case(security, "connsecmark_save", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csm, NULL);
	tbl_case(filter, "connsecmark_save", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_csm, NULL);
	tbl_case(security, "masquerade_in_output", FILTER_HOOKS, NF_INET_LOCAL_OUT, &g_masq, NULL);
}

static void run_table_cases(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct named_table *d = &tables[i];
		struct ipt_getinfo info;
		char label[64];
		int err;

		err = get_info(d->name, &info, sizeof(info));
		if (err) {
			printf("%s_get_info: %s\n", d->name, err_name(err));
			continue;
		}
		snprintf(label, sizeof(label), "%s_get_info", d->name);
		print_info(label, &info);
		err = tbl_install(d);
		if (!err)
			err = read_named(d->name, &d->base);
		printf("%s_initial: %s, %zu bytes, entries hash %016llx\n",
		       d->name, err_name(err), d->base.len,
		       (unsigned long long)fnv1a(d->base.data, d->base.len));
		if (!err)
			tbl_layout_cases(d);
	}
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (!tables[i].base.len)
			return;		/* reported above */
	run_target_cases(&tables[0], &tables[1], &tables[2], &tables[3],
			 &tables[4]);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		buf_free(&tables[i].base);
}

int main(void)
{
	sock = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (sock < 0) {
		perror("socket");
		return 1;
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
