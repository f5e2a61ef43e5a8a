// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the helper's ip_tables: the sockopt handlers, the
 * translate_table() checks with the errno of each, counters and the state
 * snapshot.  The expected errnos are the kernel's (ip_tables.c and
 * x_tables.c of Linux 6.1; the source line is named where it is not
 * obvious).  Run: make -C tests/unit check
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "fake_enforce.h"
#include "ipt/ipt.h"
#include "ipt_builder.h"
#include "ipt/table.h"

static int failures;
static const char *current_test;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "  %s:%d: %s: check failed: %s\n",	\
			__FILE__, __LINE__, current_test, #cond);	\
	}								\
} while (0)

#define CHECK_ERR(expr, want) do {					\
	int got_ = (expr);						\
	if (got_ != (want)) {						\
		failures++;						\
		fprintf(stderr, "  %s:%d: %s: %s = %d (%s), want %d (%s)\n", \
			__FILE__, __LINE__, current_test, #expr, got_,	\
			strerror(-got_), (want), strerror(-(want)));	\
	}								\
} while (0)

/* ---- request helpers ---- */

static int set(unsigned int opt, const struct buf *req, struct buf *out,
	       bool *changed)
{
	struct buf tmp = { 0 };
	bool ch = false;
	int r;

	r = ipt_sockopt_set(opt, req->data, req->len, out ? out : &tmp,
			    changed ? changed : &ch);
	buf_free(&tmp);
	return r;
}

static int replace_tb(struct tb *t, const char *table, unsigned int hooks,
		      unsigned int num_counters, struct buf *old)
{
	struct buf req = { 0 };
	int r;

	tb_replace(t, &req, table, hooks, num_counters);
	r = set(IPT_SO_SET_REPLACE, &req, old, NULL);
	buf_free(&req);
	return r;
}

static int get_info(const char *name, struct ipt_getinfo *info)
{
	struct buf out = { 0 };
	char n[XT_TABLE_MAXNAMELEN] = { 0 };
	int r;

	strncpy(n, name, sizeof(n));
	r = ipt_sockopt_get(IPT_SO_GET_INFO, n, sizeof(n),
			    sizeof(struct ipt_getinfo), &out);
	if (!r && out.len == sizeof(*info))
		memcpy(info, out.data, sizeof(*info));
	else if (!r)
		r = -1000;	/* wrong reply length */
	buf_free(&out);
	return r;
}

static unsigned int cur_entries(void)
{
	struct ipt_getinfo info;

	return get_info("filter", &info) ? 0 : info.num_entries;
}

static int get_entries(const char *name, unsigned int size, struct buf *out)
{
	struct ipt_get_entries g;

	memset(&g, 0, sizeof(g));
	strncpy(g.name, name, sizeof(g.name));
	g.size = size;
	buf_reset(out);
	return ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g),
			       sizeof(g) + size, out);
}

static int revision(const char *name, uint8_t rev, bool target)
{
	struct xt_get_revision r;
	struct buf out = { 0 };
	int ret;

	memset(&r, 0, sizeof(r));
	strncpy(r.name, name, sizeof(r.name));
	r.revision = rev;
	ret = ipt_sockopt_get(target ? IPT_SO_GET_REVISION_TARGET :
			      IPT_SO_GET_REVISION_MATCH, &r, sizeof(r),
			      sizeof(r), &out);
	buf_free(&out);
	return ret;
}

/* ---- tables ---- */

static const struct ipt_ip ip_tcp = { .proto = IPPROTO_TCP };
static const struct ipt_ip ip_udp = { .proto = IPPROTO_UDP };
static const struct ipt_ip ip_icmp = { .proto = IPPROTO_ICMP };

/*
 * The blob of the ABI notes (verified against ip_tables): -N MYCHAIN;
 * -A INPUT -p tcp --dport 22 -j MYCHAIN; -A MYCHAIN -s 10/8 -j DROP;
 * -A MYCHAIN -j RETURN; -P FORWARD DROP.
 */
static void tb_notes(struct tb *t)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct ipt_ip ten = { .src.s_addr = htonl(0x0a000000),
			      .smsk.s_addr = htonl(0xff000000) };

	tb_init(t);
	tb_hook(t, NF_INET_LOCAL_IN);
	tb_begin(t, &ip_tcp);
	tb_match(t, "tcp", 0, &tcp, sizeof(tcp));
	tb_jump(t, "MYCHAIN", false);
	tb_policy(t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(t, NF_INET_FORWARD, V_DROP);
	tb_policy(t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(t, "MYCHAIN");
	tb_begin(t, &ten);
	tb_std(t, V_DROP);
	tb_begin(t, NULL);
	tb_std(t, XT_RETURN);
	tb_chain_end(t);
	tb_finish(t);
}

/* Every extension we serve, at every revision, once. */
static void tb_rich(struct tb *t)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 },
			      .flg_mask = 0x17, .flg_cmp = 0x02 };
	struct xt_udp udp = { .spts = { 0, 0xffff }, .dpts = { 53, 53 },
			      .invflags = XT_UDP_INV_DSTPT };
	struct ipt_icmp icmp = { .type = 8, .code = { 0, 0xff } };
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_DESTINATION,
				      .count = 4, .ports = { 80, 443, 1000, 2000 },
				      .pflags = { 0, 0, 1, 0 } };
	struct xt_iprange_mtinfo ipr = { .flags = IPRANGE_SRC };
	struct xt_comment_info com = { .comment = "ssh" };
	struct xt_conntrack_mtinfo1 ct1 = { .match_flags = XT_CONNTRACK_STATE,
		.state_mask = XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED) };
	struct xt_conntrack_mtinfo2 ct2 = { .match_flags = XT_CONNTRACK_STATE,
		.state_mask = XT_CONNTRACK_STATE_BIT(IP_CT_RELATED) };
	struct xt_conntrack_mtinfo3 ct3 = { .match_flags = XT_CONNTRACK_STATE,
		.state_mask = XT_CONNTRACK_STATE_INVALID };
	struct xt_state_info st = { .statemask = XT_STATE_BIT(IP_CT_NEW) };

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
	tb_begin(t, NULL);
	tb_match(t, "conntrack", 1, &ct1, sizeof(ct1));
	tb_match(t, "conntrack", 2, &ct2, sizeof(ct2));
	tb_match(t, "conntrack", 3, &ct3, sizeof(ct3));
	tb_std(t, V_ACCEPT);
	tb_policy(t, NF_INET_LOCAL_IN, V_DROP);
	tb_hook(t, NF_INET_FORWARD);
	tb_begin(t, NULL);
	tb_match(t, "iprange", 1, &ipr, sizeof(ipr));
	tb_jump(t, "web", true);
	tb_policy(t, NF_INET_FORWARD, V_DROP);
	tb_hook(t, NF_INET_LOCAL_OUT);
	tb_begin(t, NULL);
	tb_match(t, "state", 0, &st, sizeof(st));
	tb_std(t, V_QUEUE);
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

/* Expect SET_REPLACE of @t to fail with @want, and nothing to change. */
static void expect_replace(struct tb *t, int want, int line)
{
	struct ipt_getinfo before, after;
	unsigned int commits = fake.commits;
	int got;

	get_info("filter", &before);
	got = replace_tb(t, "filter", FILTER_HOOKS, before.num_entries, NULL);
	if (got != want) {
		failures++;
		fprintf(stderr, "  line %d: %s: replace = %d (%s), want %d (%s)\n",
			line, current_test, got, strerror(-got), want,
			strerror(-want));
	}
	if (want) {
		get_info("filter", &after);
		CHECK(!memcmp(&before, &after, sizeof(before)));
		CHECK(fake.commits == commits);
	}
}
#define EXPECT_REPLACE(t, want) expect_replace(t, want, __LINE__)

/* ---- tests ---- */

static void test_initial_info(void)
{
	struct ipt_getinfo info;

	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(!strcmp(info.name, "filter"));
	CHECK(info.valid_hooks == 0xe);
	CHECK(info.hook_entry[0] == 0xFFFFFFFF && info.hook_entry[4] == 0xFFFFFFFF);
	CHECK(info.underflow[0] == 0xFFFFFFFF && info.underflow[4] == 0xFFFFFFFF);
	CHECK(info.hook_entry[1] == 0 && info.hook_entry[2] == 152 &&
	      info.hook_entry[3] == 304);
	CHECK(info.underflow[1] == 0 && info.underflow[2] == 152 &&
	      info.underflow[3] == 304);
	CHECK(info.num_entries == 4);
	CHECK(info.size == 632);	/* 3 x 152 + 176, as in the ABI notes */
	CHECK(fake.commits == 1);
	CHECK(fake.size == 632 && fake.num_entries == 4);
	CHECK(!strcmp(fake.name, "filter") && fake.valid_hooks == 0xe);
}

static void test_initial_entries_bytes(void)
{
	struct buf out = { 0 };
	struct tb t;
	unsigned int off, i;
	const unsigned int comefrom[] = { 1 << NF_INET_LOCAL_IN,
		1 << NF_INET_FORWARD, 1 << NF_INET_LOCAL_OUT, 0 };

	/* What ipt_alloc_initial_table() + translate_table() make. */
	tb_filter_initial(&t);
	for (off = 0, i = 0; off < t.b.len; i++) {
		tb_entry_at(&t, off)->comefrom = comefrom[i];
		off += tb_entry_at(&t, off)->next_offset;
	}
	CHECK_ERR(get_entries("filter", 632, &out), 0);
	CHECK(out.len == 632);
	CHECK(out.len == t.b.len && !memcmp(out.data, t.b.data, t.b.len));
	/* The backend got the same bytes (counters are zero on both). */
	CHECK(fake.size == t.b.len && !memcmp(fake.entries, t.b.data, t.b.len));
	buf_free(&out);
	tb_free(&t);
}

static void test_get_info_errors(void)
{
	struct buf out = { 0 };
	char name[XT_TABLE_MAXNAMELEN];
	struct ipt_getinfo info;

	/* get_info(): *len != sizeof(struct ipt_getinfo) */
	memset(name, 0, sizeof(name));
	strcpy(name, "filter");
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_INFO, name, sizeof(name), 83, &out),
		  -EINVAL);
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_INFO, name, sizeof(name), 85, &out),
		  -EINVAL);
	/* xt_request_find_table_lock() fails: ENOENT, for every table we
	 * do not serve */
	CHECK_ERR(get_info("nat", &info), -ENOENT);
	CHECK_ERR(get_info("mangle", &info), -ENOENT);
	CHECK_ERR(get_info("raw", &info), -ENOENT);
	CHECK_ERR(get_info("security", &info), -ENOENT);
	CHECK_ERR(get_info("", &info), -ENOENT);
	CHECK_ERR(get_info("FILTER", &info), -ENOENT);
	/* name[XT_TABLE_MAXNAMELEN-1] = '\0': 31 chars + junk is a name */
	memset(name, 'f', sizeof(name));
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_INFO, name, sizeof(name),
				  sizeof(info), &out), -ENOENT);
	/* "filter" followed by junk after its NUL is "filter" */
	memset(name, 'x', sizeof(name));
	memcpy(name, "filter", 7);
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_INFO, name, sizeof(name),
				  sizeof(info), &out), 0);
	CHECK(out.len == sizeof(info));
	memcpy(&info, out.data, sizeof(info));
	/* strcpy(info.name, name) after memset: no junk comes back */
	CHECK(!memcmp(info.name, "filter\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
		      sizeof(info.name)));
	CHECK_ERR(ipt_sockopt_get(99, name, sizeof(name), sizeof(info), &out),
		  -EINVAL);
	buf_free(&out);
}

static void test_get_entries_errors(void)
{
	struct ipt_get_entries g;
	struct buf out = { 0 };

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "filter");
	g.size = 632;
	/* *len < sizeof(get) */
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g), 39, &out),
		  -EINVAL);
	/* *len != sizeof(struct ipt_get_entries) + get.size */
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g), 40 + 631,
				  &out), -EINVAL);
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g), 40 + 633,
				  &out), -EINVAL);
	/* the size of an older table: libiptc starts over */
	CHECK_ERR(get_entries("filter", 624, &out), -EAGAIN);
	CHECK_ERR(get_entries("filter", 0, &out), -EAGAIN);
	CHECK_ERR(get_entries("nat", 632, &out), -ENOENT);
	/* the module passes *len as is; compared in 64 bits, no wrap */
	g.size = 632;
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g),
				  40 + 632 + 0x100000000ull, &out), -EINVAL);
	/* the module sends the 40-byte header; less is malformed */
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, 39, 40 + 632, &out),
		  -EINVAL);
	buf_free(&out);
}

static void test_revisions(void)
{
	/* xt_find_revision(): the best revision when the asked one exists */
	CHECK_ERR(revision("tcp", 0, false), 0);
	CHECK_ERR(revision("udp", 0, false), 0);
	CHECK_ERR(revision("icmp", 0, false), 0);
	CHECK_ERR(revision("comment", 0, false), 0);
	CHECK_ERR(revision("state", 0, false), 0);
	CHECK_ERR(revision("multiport", 1, false), 1);
	CHECK_ERR(revision("iprange", 1, false), 1);
	CHECK_ERR(revision("conntrack", 1, false), 3);
	CHECK_ERR(revision("conntrack", 2, false), 3);
	CHECK_ERR(revision("conntrack", 3, false), 3);
	CHECK_ERR(revision(XT_STANDARD_TARGET, 0, true), 0);
	CHECK_ERR(revision(XT_ERROR_TARGET, 0, true), 0);
	/* known name, unknown revision */
	CHECK_ERR(revision("multiport", 0, false), -EPROTONOSUPPORT);
	CHECK_ERR(revision("iprange", 0, false), -EPROTONOSUPPORT);
	CHECK_ERR(revision("conntrack", 0, false), -EPROTONOSUPPORT);
	CHECK_ERR(revision("conntrack", 4, false), -EPROTONOSUPPORT);
	CHECK_ERR(revision("tcp", 1, false), -EPROTONOSUPPORT);
	CHECK_ERR(revision(XT_ERROR_TARGET, 1, true), -EPROTONOSUPPORT);
	/* not served at all (ip_tables would try to load a module) */
	CHECK_ERR(revision("limit", 0, false), -ENOENT);
	CHECK_ERR(revision("LOG", 0, true), -ENOENT);
	CHECK_ERR(revision("REJECT", 0, true), -ENOENT);
	CHECK_ERR(revision("standard", 0, true), -ENOENT);
	/* matches and targets are separate name spaces */
	CHECK_ERR(revision("tcp", 0, true), -ENOENT);
	CHECK_ERR(revision(XT_ERROR_TARGET, 0, false), -ENOENT);
	/* *len != sizeof(rev) */
	{
		struct xt_get_revision r = { .name = "tcp" };
		struct buf out = { 0 };

		CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_REVISION_MATCH, &r,
					  sizeof(r), 29, &out), -EINVAL);
		CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_REVISION_MATCH, &r,
					  sizeof(r), 31, &out), -EINVAL);
		/* rev.name[sizeof(rev.name)-1] = 0 */
		memset(r.name, 'a', sizeof(r.name));
		CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_REVISION_MATCH, &r,
					  sizeof(r), sizeof(r), &out), -ENOENT);
		CHECK(out.len == 0);
		buf_free(&out);
	}
}

static void test_replace_notes_blob(void)
{
	const unsigned int offsets[] = { 0, 200, 352, 504, 656, 832, 984, 1136,
					 1288 };
	struct buf old = { 0 }, out = { 0 };
	struct ipt_getinfo info;
	unsigned int off, i;
	struct tb t;
	int verdict;

	tb_notes(&t);
	CHECK(t.b.len == 1464 && t.num_entries == 9);
	for (off = 0, i = 0; off < t.b.len; i++) {
		CHECK(off == offsets[i]);
		off += tb_entry_at(&t, off)->next_offset;
	}
	memcpy(&verdict, t.b.data + 200 - 8, sizeof(verdict));
	CHECK(verdict == 832);

	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, &old), 0);
	CHECK(old.len == 4 * sizeof(struct xt_counters));
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == 9 && info.size == 1464);
	CHECK(info.hook_entry[1] == 0 && info.hook_entry[2] == 352 &&
	      info.hook_entry[3] == 504);
	CHECK(info.underflow[1] == 200 && info.underflow[2] == 352 &&
	      info.underflow[3] == 504);
	CHECK(info.hook_entry[0] == 0xFFFFFFFF && info.underflow[4] == 0xFFFFFFFF);

	/* comefrom as mark_source_chains() leaves it: the hooks an entry is
	 * reached from; chain heads and tails no walk reaches stay 0 */
	CHECK_ERR(get_entries("filter", 1464, &out), 0);
	{
		const unsigned int want[] = { 2, 2, 4, 8, 0, 2, 2, 0, 0 };

		for (off = 0, i = 0; off < out.len; i++) {
			const struct ipt_entry *e = (void *)(out.data + off);

			CHECK(e->comefrom == want[i]);
			off += e->next_offset;
		}
	}
	/* apart from comefrom, the blob comes back as sent */
	for (off = 0; off < t.b.len; off += tb_entry_at(&t, off)->next_offset)
		tb_entry_at(&t, off)->comefrom =
			((struct ipt_entry *)(out.data + off))->comefrom;
	CHECK(out.len == t.b.len && !memcmp(out.data, t.b.data, t.b.len));
	CHECK(fake.size == t.b.len && !memcmp(fake.entries, t.b.data, t.b.len));
	CHECK(fake.hook_entry[2] == 352 && fake.underflow[1] == 200);
	buf_free(&old);
	buf_free(&out);
	tb_free(&t);
}

static void test_replace_all_extensions(void)
{
	struct buf out = { 0 };
	struct tb t;
	bool changed = false;
	struct buf req = { 0 }, old = { 0 };

	tb_rich(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, 4);
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, &old, &changed), 0);
	CHECK(changed);
	CHECK(cur_entries() == t.num_entries);
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	CHECK(out.len == t.b.len);
	CHECK(fake.num_entries == t.num_entries && fake.size == t.b.len);
	CHECK(!memcmp(fake.entries, out.data, out.len));
	buf_free(&req);
	buf_free(&old);
	buf_free(&out);
	tb_free(&t);
}

static void test_replace_header(void)
{
	struct ipt_replace *r;
	struct buf req = { 0 };
	struct tb t;

	tb_filter_initial(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, 4);
	r = (void *)req.data;

	/* do_replace(): len < sizeof(tmp) */
	CHECK_ERR(ipt_sockopt_set(IPT_SO_SET_REPLACE, req.data, 95, &req,
				  &(bool){ 0 }), -EINVAL);
	/* num_counters >= INT_MAX / sizeof(struct xt_counters): ENOMEM */
	r->num_counters = INT_MAX / 16;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -ENOMEM);
	/* num_counters == 0 */
	r->num_counters = 0;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	r->num_counters = 4;
	/* len < size + sizeof(tmp) */
	r->size += 8;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	r->size = 0xFFFFFFFF;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	r->size = t.b.len;
	/* the name is NUL-terminated at 31 whatever follows */
	memset(r->name, 'q', sizeof(r->name));
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -ENOENT);
	memset(r->name, 'q', sizeof(r->name));
	memcpy(r->name, "filter", 7);
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), 0);
	/* unknown optname */
	CHECK_ERR(set(99, &req, NULL, NULL), -EINVAL);
	buf_free(&req);
	tb_free(&t);
}

static void test_translate_limits(void)
{
	struct ipt_replace r;
	struct ipt_blob b;
	static const unsigned char none[8];

	/* xt_alloc_table_info(): sizeof(info) + size >= XT_MAX_TABLE_SIZE */
	memset(&r, 0, sizeof(r));
	r.size = 512u * 1024 * 1024 - 72;
	r.num_entries = 1;
	CHECK_ERR(ipt_translate(&r, none, &b), -ENOMEM);
	/* xt_alloc_entry_offsets(): more than XT_MAX_TABLE_SIZE / 4 */
	r.size = 0;
	r.num_entries = 512u * 1024 * 1024 / 4 + 1;
	CHECK_ERR(ipt_translate(&r, none, &b), -ENOMEM);
	/* an empty blob with a lying count */
	r.num_entries = 1000000;
	CHECK_ERR(ipt_translate(&r, none, &b), -EINVAL);
	/* empty and no hooks: structurally fine... */
	r.num_entries = 0;
	CHECK_ERR(ipt_translate(&r, none, &b), 0);
	ipt_blob_free(&b);
	/* ...but __do_replace() says "You lied!" about valid_hooks */
	{
		struct tb t;

		tb_init(&t);
		CHECK_ERR(replace_tb(&t, "filter", 0, 4, NULL), -EINVAL);
		tb_free(&t);
	}
}

/* Offsets in the notes' blob. */
#define E_TCP	0
#define E_IN	200
#define E_FWD	352
#define E_OUT	504
#define E_HEAD	656
#define E_DROP	832
#define E_RET	984
#define E_TAIL	1136
#define E_ERR	1288

static void test_entry_checks(void)
{
	struct tb t;
	struct xt_entry_target *tg;

#define FRESH() do { tb_free(&t); tb_notes(&t); } while (0)
	tb_notes(&t);
	EXPECT_REPLACE(&t, 0);

	/* check_entry_size_and_hooks(): next_offset < 112 + 32 */
	FRESH();
	tb_entry_at(&t, E_DROP)->next_offset = 136;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();
	tb_entry_at(&t, E_DROP)->next_offset = 0;	/* no endless walk */
	EXPECT_REPLACE(&t, -EINVAL);
	/* the next entry would not be 8-aligned */
	FRESH();
	tb_entry_at(&t, E_DROP)->next_offset += 4;
	EXPECT_REPLACE(&t, -EINVAL);
	/* next_offset past the end */
	FRESH();
	tb_entry_at(&t, E_ERR)->next_offset += 8;
	EXPECT_REPLACE(&t, -EINVAL);
	/* an entry header that does not fit before the end */
	FRESH();
	t.b.len -= 64;
	EXPECT_REPLACE(&t, -EINVAL);
	/* ip_checkentry(): unknown flags / invflags */
	FRESH();
	tb_entry_at(&t, E_DROP)->ip.flags = 0x04;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();
	tb_entry_at(&t, E_DROP)->ip.invflags = 0x80;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();	/* every defined bit is fine */
	tb_entry_at(&t, E_DROP)->ip.flags = IPT_F_MASK;
	tb_entry_at(&t, E_DROP)->ip.invflags = IPT_INV_MASK & ~IPT_INV_PROTO;
	EXPECT_REPLACE(&t, 0);

	/* xt_check_entry_offsets(): target_offset < sizeof(ipt_entry) */
	FRESH();
	tb_entry_at(&t, E_DROP)->target_offset = 104;
	EXPECT_REPLACE(&t, -EINVAL);
	/* target_offset + sizeof(target) > next_offset */
	FRESH();
	tb_entry_at(&t, E_DROP)->target_offset = 128;
	EXPECT_REPLACE(&t, -EINVAL);
	/* target_size < sizeof(struct xt_entry_target) */
	FRESH();
	tg = (void *)(t.b.data + E_DROP + 112);
	tg->u.target_size = 31;
	EXPECT_REPLACE(&t, -EINVAL);
	/* target_offset + target_size > next_offset */
	FRESH();
	tg = (void *)(t.b.data + E_DROP + 112);
	tg->u.target_size = 48;
	EXPECT_REPLACE(&t, -EINVAL);
	/* standard target: XT_ALIGN(target_offset + 40) != next_offset */
	{
		/* a standard target with 8 spare bytes behind it */
		struct tb u;
		unsigned char pad[8] = { 0 };

		tb_init(&u);
		tb_policy(&u, NF_INET_LOCAL_IN, V_ACCEPT);
		tb_policy(&u, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&u, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_begin(&u, NULL);
		tb_std(&u, V_DROP);
		buf_append(&u.b, pad, sizeof(pad));
		tb_entry_at(&u, u.cur)->next_offset += 8;
		tb_finish(&u);
		EXPECT_REPLACE(&u, -EINVAL);
		tb_free(&u);
	}
	/* verdict_ok(): 0, STOLEN, REPEAT's neighbours, INT_MIN */
	{
		const int bad[] = { 0, -3, -6, -7, INT_MIN, -NF_MAX_VERDICT - 2 };
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			FRESH();
			memcpy(t.b.data + E_DROP + 112 + 32, &bad[i], 4);
			EXPECT_REPLACE(&t, -EINVAL);
		}
	}
	/* ERROR target: error_tg_ok(): size and terminated name */
	FRESH();
	tg = (void *)(t.b.data + E_HEAD + 112);
	memset(tg->data, 'x', XT_FUNCTION_MAXNAMELEN);
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();
	tg = (void *)(t.b.data + E_HEAD + 112);
	tg->u.target_size = 56;
	EXPECT_REPLACE(&t, -EINVAL);
	/* num_entries must match the walk */
	{
		struct buf req = { 0 };
		struct ipt_replace *r;

		FRESH();
		tb_replace(&t, &req, "filter", FILTER_HOOKS, 4);
		r = (void *)req.data;
		r->num_entries = 8;
		CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
		r->num_entries = 10;
		CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
		buf_free(&req);
	}
	tb_free(&t);
#undef FRESH
}

static void test_match_tiling(void)
{
	struct xt_entry_match *m;
	struct tb t;

#define FRESH() do { tb_free(&t); tb_notes(&t); \
	m = (void *)(t.b.data + E_TCP + 112); } while (0)
	tb_notes(&t);
	m = (void *)(t.b.data + E_TCP + 112);
	/* xt_check_entry_match(): match_size < sizeof(xt_entry_match) */
	FRESH();
	m->u.match_size = 24;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();
	m->u.match_size = 0;	/* no endless walk */
	EXPECT_REPLACE(&t, -EINVAL);
	/* match_size > what is left before the target */
	FRESH();
	m->u.match_size = 56;
	EXPECT_REPLACE(&t, -EINVAL);
	/* a match that ends unaligned: the next one is misaligned */
	FRESH();
	m->u.match_size = 44;
	EXPECT_REPLACE(&t, -EINVAL);
	/* a remainder too small for a match header */
	FRESH();
	m->u.match_size = 40;
	EXPECT_REPLACE(&t, -EINVAL);
	/* matches that end before the target are a size error of tcp:
	 * xt_check_match(), invalid size */
	FRESH();
	tb_entry_at(&t, E_TCP)->target_offset = 112 + 40;
	EXPECT_REPLACE(&t, -EINVAL);
	tb_free(&t);
#undef FRESH

	/*
	 * A match of 36 bytes puts the target at offset 148: nothing in
	 * translate_table() requires an aligned target, the structural
	 * checks and mark_source_chains() read it (a fuzzer finding: they
	 * must do so without assuming alignment), and the match's own
	 * lookup or size check is what refuses the entry.
	 */
	{
		const char *names[] = { "tcp", "nosuch" };
		const int want[] = { -EINVAL, -ENOENT };
		unsigned int i;

		for (i = 0; i < 2; i++) {
			unsigned int at;

			tb_init(&t);
			tb_hook(&t, NF_INET_LOCAL_IN);
			at = tb_begin(&t, &ip_tcp);
			buf_append_zero(&t.b, 80);
			m = (void *)(t.b.data + at + 112);
			m->u.match_size = 36;
			strcpy(m->u.user.name, names[i]);
			/* target_size 40, name "" (the standard target) */
			memcpy(t.b.data + at + 148, &(uint16_t){ 40 }, 2);
			memcpy(t.b.data + at + 180, &(int){ V_ACCEPT }, 4);
			tb_entry_at(&t, at)->target_offset = 148;
			tb_entry_at(&t, at)->next_offset = 192;
			t.num_entries++;
			tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
			tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
			tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
			tb_finish(&t);
			EXPECT_REPLACE(&t, want[i]);
			tb_free(&t);
		}
	}
}

static void test_hooks_and_underflows(void)
{
	struct buf req = { 0 };
	struct ipt_replace *r;
	struct tb t;

	tb_notes(&t);
#define REQ() do { tb_replace(&t, &req, "filter", FILTER_HOOKS, cur_entries()); \
	r = (void *)req.data; } while (0)
	/* a hook entry that is not an entry start stays unset:
	 * xt_check_table_hooks() */
	REQ();
	r->hook_entry[NF_INET_LOCAL_IN] = 8;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	REQ();
	r->underflow[NF_INET_FORWARD] = 0xFFFFFFFF;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	/* check_underflow(): a conditional rule as policy */
	REQ();
	r->underflow[NF_INET_LOCAL_IN] = E_TCP;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	/* check_underflow(): RETURN is no policy */
	REQ();
	r->underflow[NF_INET_LOCAL_OUT] = E_RET;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	/* check_underflow(): ERROR target */
	REQ();
	r->underflow[NF_INET_LOCAL_OUT] = E_HEAD;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	/* check_underflow(): QUEUE is no policy */
	REQ();
	memcpy(req.data + sizeof(*r) + E_OUT + 112 + 32, &(int){ V_QUEUE }, 4);
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	/* an underflow check is made only for valid hooks */
	REQ();
	r->underflow[NF_INET_PRE_ROUTING] = E_TCP;
	r->hook_entry[NF_INET_POST_ROUTING] = 4;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), 0);
	/* xt_check_table_hooks(): unsorted and duplicate entries/underflows */
	REQ();
	r->hook_entry[NF_INET_FORWARD] = 0;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	REQ();
	r->underflow[NF_INET_LOCAL_OUT] = E_FWD;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	REQ();
	r->hook_entry[NF_INET_FORWARD] = E_OUT;
	r->hook_entry[NF_INET_LOCAL_OUT] = E_FWD;
	r->underflow[NF_INET_FORWARD] = E_OUT;
	r->underflow[NF_INET_LOCAL_OUT] = E_FWD;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	/* valid_hooks must be the table's: "You lied!", even for a blob
	 * that is consistent with the hooks it claims (POSTROUTING entering
	 * MYCHAIN, with its RETURN rule turned into a DROP policy) */
	REQ();
	r->valid_hooks = FILTER_HOOKS | (1 << NF_INET_POST_ROUTING);
	r->hook_entry[NF_INET_POST_ROUTING] = E_HEAD;
	r->underflow[NF_INET_POST_ROUTING] = E_RET;
	memcpy(req.data + sizeof(*r) + E_RET + 112 + 32, &(int){ V_DROP }, 4);
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	{
		/* the same blob is fine as far as translate_table() goes */
		struct ipt_blob b;

		CHECK_ERR(ipt_translate(r, req.data + sizeof(*r), &b), 0);
		ipt_blob_free(&b);
	}
	REQ();
	r->valid_hooks = 1 << NF_INET_LOCAL_IN;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
	/* sanity */
	REQ();
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), 0);
	buf_free(&req);
	tb_free(&t);
#undef REQ
}

static void test_loops_and_jumps(void)
{
	struct tb t;

/* where an entry's standard verdict is (after its matches) */
#define VERDICT_AT(off) (t.b.data + (off) + tb_entry_at(&t, off)->target_offset + 32)
#define FRESH() do { tb_free(&t); tb_notes(&t); } while (0)
	tb_notes(&t);
	/* mark_source_chains(): a jump into the middle of an entry */
	FRESH();
	memcpy(VERDICT_AT(E_TCP), &(int){ E_DROP + 8 }, 4);
	EXPECT_REPLACE(&t, -ELOOP);
	/* a jump past the end */
	FRESH();
	memcpy(VERDICT_AT(E_TCP), &(int){ 100000 }, 4);
	EXPECT_REPLACE(&t, -ELOOP);
	/* a chain that jumps to itself */
	FRESH();
	tb_entry_at(&t, E_DROP)->ip.src.s_addr = 0;
	tb_entry_at(&t, E_DROP)->ip.smsk.s_addr = 0;
	tb_entry_at(&t, E_DROP)->ip.proto = IPPROTO_UDP;	/* conditional */
	memcpy(VERDICT_AT(E_DROP), &(int){ E_DROP }, 4);
	EXPECT_REPLACE(&t, -ELOOP);
	/* a jump back up the chain: MYCHAIN's RETURN jumps to its first rule */
	FRESH();
	memcpy(VERDICT_AT(E_RET), &(int){ E_DROP }, 4);
	EXPECT_REPLACE(&t, -ELOOP);
	/* a jump to offset 0 cannot be expressed: verdict_ok() refuses 0 */
	FRESH();
	memcpy(VERDICT_AT(E_RET), &(int){ 0 }, 4);
	EXPECT_REPLACE(&t, -EINVAL);
	/* falling off the end: the last entry is a conditional rule */
	{
		struct tb u;
		unsigned int at;

		tb_init(&u);
		tb_hook(&u, NF_INET_LOCAL_IN);
		tb_begin(&u, &ip_tcp);
		tb_jump(&u, "c", false);
		tb_policy(&u, NF_INET_LOCAL_IN, V_ACCEPT);
		tb_policy(&u, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&u, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_chain(&u, "c");
		at = tb_begin(&u, &ip_udp);
		tb_std(&u, V_DROP);
		tb_finish(&u);
		/* drop the ERROR tail: the chain's last rule falls through */
		u.b.len = at + tb_entry_at(&u, at)->next_offset;
		u.num_entries--;
		EXPECT_REPLACE(&u, -ELOOP);
		tb_free(&u);
	}
	/* goto (IPT_F_GOTO) is, for the checks, a jump like any other */
	FRESH();
	tb_entry_at(&t, E_TCP)->ip.flags |= IPT_F_GOTO;
	EXPECT_REPLACE(&t, 0);
	/* a jump to a chain head (the ERROR entry) is legal: it falls
	 * through into the chain */
	FRESH();
	memcpy(VERDICT_AT(E_TCP), &(int){ E_HEAD }, 4);
	EXPECT_REPLACE(&t, 0);
	/* ... and to a built-in chain's policy, too */
	FRESH();
	memcpy(VERDICT_AT(E_TCP), &(int){ E_OUT }, 4);
	EXPECT_REPLACE(&t, 0);
	/* a loop is found before a bad extension (-ELOOP, not -ENOENT) */
	FRESH();
	memcpy(VERDICT_AT(E_TCP), &(int){ E_TCP + 8 }, 4);
	strcpy(((struct xt_entry_match *)(t.b.data + E_TCP + 112))->u.user.name,
	       "nosuch");
	EXPECT_REPLACE(&t, -ELOOP);
	/* ... and an offset error before a loop */
	FRESH();
	memcpy(VERDICT_AT(E_TCP), &(int){ E_TCP + 8 }, 4);
	tb_entry_at(&t, E_TAIL)->ip.flags = 0x80;
	EXPECT_REPLACE(&t, -EINVAL);
	tb_free(&t);
#undef FRESH
#undef VERDICT_AT
}

/* Replace with a table of one INPUT rule: @ip + one match + ACCEPT. */
static int one_rule(const struct ipt_ip *ip, const char *name, uint8_t rev,
		    const void *data, unsigned int len)
{
	struct tb t;
	int r;

	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin(&t, ip);
	tb_match(&t, name, rev, data, len);
	tb_std(&t, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	r = replace_tb(&t, "filter", FILTER_HOOKS, cur_entries(), NULL);
	tb_free(&t);
	return r;
}

/* Replace with a table whose INPUT rule has target @name. */
static int one_target(const char *name, uint8_t rev, const void *data,
		      unsigned int len)
{
	struct tb t;
	int r;

	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin(&t, &ip_tcp);
	tb_target(&t, name, rev, data, len);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	r = replace_tb(&t, "filter", FILTER_HOOKS, cur_entries(), NULL);
	tb_free(&t);
	return r;
}

static void test_extension_lookup(void)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	struct xt_comment_info com = { .comment = "x" };
	struct xt_conntrack_mtinfo3 ct = { 0 };
	char longname[40];
	unsigned char limit[32] = { 0 };

	CHECK_ERR(one_rule(&ip_tcp, "tcp", 0, &tcp, sizeof(tcp)), 0);
	/* xt_request_find_match(): nothing by that name */
	CHECK_ERR(one_rule(&ip_tcp, "limit", 0, limit, sizeof(limit)), -ENOENT);
	CHECK_ERR(one_rule(&ip_tcp, "", 0, limit, 8), -ENOENT);
	/* a wrong revision of an NFPROTO_IPV4 match: ENOENT (the search
	 * falls through to the UNSPEC list, which has no "tcp") */
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 1, &tcp, sizeof(tcp)), -ENOENT);
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 0, limit, 8), -ENOENT);
	/* a wrong revision of an NFPROTO_UNSPEC match: EPROTOTYPE */
	CHECK_ERR(one_rule(&ip_tcp, "comment", 1, &com, sizeof(com)), -EPROTOTYPE);
	CHECK_ERR(one_rule(&ip_tcp, "conntrack", 0, &ct, sizeof(ct)), -EPROTOTYPE);
	CHECK_ERR(one_rule(&ip_tcp, "conntrack", 4, &ct, sizeof(ct)), -EPROTOTYPE);
	CHECK_ERR(one_rule(&ip_tcp, "state", 1, limit, 8), -EPROTOTYPE);
	/* a name without its NUL in 29 bytes: EINVAL */
	{
		struct tb t;
		struct xt_entry_match *m;

		tb_init(&t);
		tb_hook(&t, NF_INET_LOCAL_IN);
		tb_begin(&t, &ip_tcp);
		tb_match(&t, "tcp", 0, &tcp, sizeof(tcp));
		m = (void *)(t.b.data + t.cur + 112);
		memset(m->u.user.name, 't', sizeof(m->u.user.name));
		tb_std(&t, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
		tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_finish(&t);
		EXPECT_REPLACE(&t, -EINVAL);
		tb_free(&t);
	}
	memset(longname, 'a', sizeof(longname));
	longname[28] = 0;	/* 28 chars: a name, just not one we serve */
	CHECK_ERR(one_rule(&ip_tcp, longname, 0, limit, 8), -ENOENT);

	/* targets: ours are "" and "ERROR" at revision 0 */
	CHECK_ERR(one_target("LOG", 0, limit, 32), -ENOENT);
	CHECK_ERR(one_target("ACCEPT", 0, limit, 8), -ENOENT);
	CHECK_ERR(one_target(XT_STANDARD_TARGET, 1, &(int){ V_ACCEPT }, 4),
		  -ENOENT);
	/* xt_check_target(): the standard target's payload is one int */
	{
		struct tb t;
		struct xt_entry_target *tg;

		tb_init(&t);
		tb_hook(&t, NF_INET_LOCAL_IN);
		tb_begin(&t, &ip_tcp);
		tb_std(&t, V_ACCEPT);
		tg = (void *)(t.b.data + t.cur + 112);
		tg->u.target_size = 32;	/* offsets fine, size not */
		tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
		tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
		tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
		tb_finish(&t);
		EXPECT_REPLACE(&t, -EINVAL);
		tb_free(&t);
	}
	/* an ERROR target in the middle of a chain is legal (it drops) */
	{
		char ename[XT_FUNCTION_MAXNAMELEN] = "oops";

		CHECK_ERR(one_target(XT_ERROR_TARGET, 0, ename, sizeof(ename)), 0);
		CHECK_ERR(one_target(XT_ERROR_TARGET, 1, ename, sizeof(ename)),
			  -ENOENT);
	}
}

static void test_extension_payloads(void)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	struct xt_udp udp = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	struct ipt_icmp icmp = { .type = 0xff, .code = { 0, 0xff } };
	struct ipt_ip tcp_inv = { .proto = IPPROTO_TCP, .invflags = IPT_INV_PROTO };
	struct ipt_ip sctp = { .proto = IPPROTO_SCTP };
	struct ipt_ip any = { 0 };
	struct xt_multiport_v1 mp;
	struct xt_iprange_mtinfo ipr;
	struct xt_comment_info com;
	struct xt_conntrack_mtinfo1 ct1;
	struct xt_conntrack_mtinfo2 ct2;
	struct xt_conntrack_mtinfo3 ct3;
	struct xt_state_info st = { .statemask = ~0u };
	unsigned char big[512] = { 0 };

	/* xt_check_match(): protocol restriction of tcp/udp/icmp */
	CHECK_ERR(one_rule(&ip_udp, "tcp", 0, &tcp, sizeof(tcp)), -EINVAL);
	CHECK_ERR(one_rule(&any, "tcp", 0, &tcp, sizeof(tcp)), -EINVAL);
	CHECK_ERR(one_rule(&tcp_inv, "tcp", 0, &tcp, sizeof(tcp)), -EINVAL);
	CHECK_ERR(one_rule(&ip_tcp, "udp", 0, &udp, sizeof(udp)), -EINVAL);
	CHECK_ERR(one_rule(&ip_tcp, "icmp", 0, &icmp, sizeof(icmp)), -EINVAL);
	CHECK_ERR(one_rule(&ip_udp, "udp", 0, &udp, sizeof(udp)), 0);
	CHECK_ERR(one_rule(&ip_icmp, "icmp", 0, &icmp, sizeof(icmp)), 0);
	/* xt_check_match(): size != XT_ALIGN(matchsize) */
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 0, big, 8), -EINVAL);
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 0, big, 24), -EINVAL);
	CHECK_ERR(one_rule(&ip_udp, "udp", 0, big, 8), -EINVAL);
	CHECK_ERR(one_rule(&ip_icmp, "icmp", 0, big, 16), -EINVAL);
	CHECK_ERR(one_rule(&any, "comment", 0, big, 248), -EINVAL);
	CHECK_ERR(one_rule(&any, "state", 0, big, 16), -EINVAL);
	CHECK_ERR(one_rule(&any, "iprange", 1, big, 64), -EINVAL);
	CHECK_ERR(one_rule(&any, "conntrack", 1, big, sizeof(ct2)), -EINVAL);
	CHECK_ERR(one_rule(&any, "conntrack", 3, big, sizeof(ct2)), -EINVAL);
	/* checkentry: unknown inversion bits */
	tcp.invflags = XT_TCP_INV_MASK;
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 0, &tcp, sizeof(tcp)), 0);
	tcp.invflags = 0x10;
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 0, &tcp, sizeof(tcp)), -EINVAL);
	udp.invflags = 0x04;
	CHECK_ERR(one_rule(&ip_udp, "udp", 0, &udp, sizeof(udp)), -EINVAL);
	icmp.invflags = 0x02;
	CHECK_ERR(one_rule(&ip_icmp, "icmp", 0, &icmp, sizeof(icmp)), -EINVAL);

	/* multiport_mt_check() */
	memset(&mp, 0, sizeof(mp));
	mp.flags = XT_MULTIPORT_EITHER;
	mp.count = XT_MULTI_PORTS;
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), 0);
	CHECK_ERR(one_rule(&sctp, "multiport", 1, &mp, sizeof(mp)), 0);
	CHECK_ERR(one_rule(&ip_icmp, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	CHECK_ERR(one_rule(&any, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	CHECK_ERR(one_rule(&tcp_inv, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	mp.count = XT_MULTI_PORTS + 1;
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	mp.count = 2;
	mp.flags = 3;	/* SOURCE is 0, DESTINATION 1, EITHER 2 */
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	mp.flags = 4;
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	mp.flags = XT_MULTIPORT_SOURCE;
	mp.ports[0] = 10;
	mp.ports[1] = 20;
	mp.pflags[0] = 1;		/* 10:20 */
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), 0);
	mp.ports[1] = 9;		/* 10:9 */
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	mp.ports[1] = 20;
	mp.pflags[1] = 1;		/* a range whose end starts a range */
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	mp.pflags[0] = 0;		/* a range start as the last port */
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), -EINVAL);
	mp.pflags[1] = 0;
	mp.pflags[5] = 1;		/* flags past count are not looked at */
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp)), 0);
	CHECK_ERR(one_rule(&ip_tcp, "multiport", 1, &mp, sizeof(mp) - 8), -EINVAL);

	/* iprange, comment, conntrack, state: no payload check at all */
	memset(&ipr, 0xff, sizeof(ipr));
	CHECK_ERR(one_rule(&any, "iprange", 1, &ipr, sizeof(ipr)), 0);
	memset(&com, 'c', sizeof(com));	/* not even a terminated comment */
	CHECK_ERR(one_rule(&any, "comment", 0, &com, sizeof(com)), 0);
	memset(&ct1, 0xff, sizeof(ct1));
	memset(&ct2, 0xff, sizeof(ct2));
	memset(&ct3, 0xff, sizeof(ct3));
	CHECK_ERR(one_rule(&any, "conntrack", 1, &ct1, sizeof(ct1)), 0);
	CHECK_ERR(one_rule(&any, "conntrack", 2, &ct2, sizeof(ct2)), 0);
	CHECK_ERR(one_rule(&any, "conntrack", 3, &ct3, sizeof(ct3)), 0);
	CHECK_ERR(one_rule(&any, "state", 0, &st, sizeof(st)), 0);
}

static void test_normalized_output(void)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct buf out = { 0 };
	struct xt_entry_match *m;
	struct xt_entry_target *tg;
	struct tb t;
	unsigned int at;

	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	at = tb_begin(&t, &ip_tcp);
	tb_match(&t, "tcp", 0, &tcp, sizeof(tcp));
	tb_std(&t, V_ACCEPT);
	/* junk behind the names' NULs and in the payloads' padding */
	m = (void *)(t.b.data + at + 112);
	memset(m->u.user.name + 4, 0xAA, sizeof(m->u.user.name) - 4);
	memset(m->data + sizeof(tcp), 0xBB, 4);
	tg = (void *)(t.b.data + at + 112 + 48);
	memset(tg->u.user.name + 1, 0xCC, sizeof(tg->u.user.name) - 1);
	memset(tg->data + 4, 0xDD, 4);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	/* and in the ERROR tail's padding */
	memset(t.b.data + t.b.len - 2, 0xEE, 2);
	tb_entry_at(&t, at)->nfcache = 0x12345678;	/* kept as is */
	EXPECT_REPLACE(&t, 0);

	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	m = (void *)(out.data + at + 112);
	tg = (void *)(out.data + at + 112 + 48);
	CHECK(!memcmp(m->u.user.name, "tcp\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
		      sizeof(m->u.user.name)));
	CHECK(!memcmp(m->data + sizeof(tcp), "\0\0\0\0", 4));
	CHECK(!memcmp(m->data, &tcp, sizeof(tcp)));
	CHECK(tg->u.user.name[0] == 0 && tg->u.user.name[28] == 0);
	CHECK(!memcmp(tg->data + 4, "\0\0\0\0", 4));
	CHECK(out.data[out.len - 1] == 0 && out.data[out.len - 2] == 0);
	CHECK(((struct ipt_entry *)(out.data + at))->nfcache == 0x12345678);
	/* the backend sees what GET_ENTRIES shows */
	CHECK(fake.size == out.len && !memcmp(fake.entries, out.data, out.len));
	buf_free(&out);
	tb_free(&t);
}

static void test_replace_counters_and_eagain(void)
{
	struct buf old = { 0 }, out = { 0 }, req = { 0 };
	struct xt_counters c[9];
	struct tb t;
	bool changed = false;

	/* old counters: one per old entry = base + backend counts */
	fake_count(0, 3, 300);
	fake_count(2, 1, 60);
	tb_counters(&req, "filter", 4, 10, 1000);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, &changed), 0);
	CHECK(changed);

	tb_notes(&t);
	/* xt_replace_table(): num_counters != current count: EAGAIN */
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 5, NULL), -EAGAIN);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 3, NULL), -EAGAIN);
	CHECK_ERR(replace_tb(&t, "nat", FILTER_HOOKS, 4, NULL), -ENOENT);
	CHECK(cur_entries() == 4);

	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, &old), 0);
	CHECK(old.len == 4 * sizeof(struct xt_counters));
	memcpy(c, old.data, 4 * sizeof(c[0]));
	CHECK(c[0].pcnt == 13 && c[0].bcnt == 1300);
	CHECK(c[1].pcnt == 10 && c[1].bcnt == 1000);
	CHECK(c[2].pcnt == 11 && c[2].bcnt == 1060);
	CHECK(c[3].pcnt == 10 && c[3].bcnt == 1000);

	/* the new table starts at zero */
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	{
		unsigned int off, bad = 0;

		for (off = 0; off < out.len;
		     off += ((struct ipt_entry *)(out.data + off))->next_offset) {
			struct ipt_entry *e = (void *)(out.data + off);

			bad += e->counters.pcnt != 0 || e->counters.bcnt != 0;
		}
		CHECK(bad == 0);
	}
	/* GET_ENTRIES counters = base + backend */
	fake_count(5, 7, 700);
	tb_counters(&req, "filter", 9, 1, 2);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), 0);
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	{
		struct ipt_entry *e5 = (void *)(out.data + E_DROP);
		struct ipt_entry *e0 = (void *)(out.data + E_TCP);

		CHECK(e5->counters.pcnt == 8 && e5->counters.bcnt == 702);
		CHECK(e0->counters.pcnt == 1 && e0->counters.bcnt == 2);
	}
	/* a backend that cannot read counters fails the read */
	fake.fail_read = -EIO;
	CHECK_ERR(get_entries("filter", t.b.len, &out), -EIO);
	fake.fail_read = 0;
	buf_free(&old);
	buf_free(&out);
	buf_free(&req);
	tb_free(&t);
}

static void test_backend_refuses(void)
{
	struct ipt_getinfo before, after;
	struct buf out = { 0 }, old = { 0 };
	bool changed = false;
	struct buf req = { 0 };
	struct tb t;

	fake_count(1, 5, 5);
	get_info("filter", &before);
	fake.fail_commit = -EOPNOTSUPP;
	tb_rich(&t);
	tb_replace(&t, &req, "filter", FILTER_HOOKS, 4);
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, &old, &changed), -EOPNOTSUPP);
	CHECK(!changed);
	get_info("filter", &after);
	CHECK(!memcmp(&before, &after, sizeof(before)));
	/* the old table and its counts are still there */
	CHECK_ERR(get_entries("filter", 632, &out), 0);
	CHECK(((struct ipt_entry *)(out.data + 152))->counters.pcnt == 5);
	fake.fail_commit = 0;
	CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, &old, &changed), 0);
	buf_free(&req);
	buf_free(&old);
	buf_free(&out);
	tb_free(&t);
}

static void test_add_counters(void)
{
	struct buf req = { 0 }, out = { 0 };
	struct xt_counters_info *info;
	bool changed = false;

	/* xt_copy_counters(): len <= sizeof(info) */
	tb_counters(&req, "filter", 0, 0, 0);
	CHECK(req.len == 40);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, &changed), -EINVAL);
	CHECK(!changed);
	/* size != num_counters * 16 */
	tb_counters(&req, "filter", 4, 1, 1);
	info = (void *)req.data;
	info->num_counters = 5;
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), -EINVAL);
	info->num_counters = 3;
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), -EINVAL);
	info->num_counters = 0x10000004;	/* * 16 wraps to 64 in 32 bits */
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), -EINVAL);
	CHECK_ERR(ipt_sockopt_set(IPT_SO_SET_ADD_COUNTERS, req.data, 39, &out,
				  &changed), -EINVAL);
	/* xt_find_table_lock() */
	tb_counters(&req, "nat", 4, 1, 1);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), -ENOENT);
	/* do_add_counters(): private->number != num_counters */
	tb_counters(&req, "filter", 3, 1, 1);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), -EINVAL);
	tb_counters(&req, "filter", 5, 1, 1);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), -EINVAL);
	/* name terminated at 31 */
	tb_counters(&req, "filter", 4, 1, 1);
	memset(((struct xt_counters_info *)req.data)->name + 7, 'z', 25);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), 0);
	/* adds up, and wraps like the kernel's u64 */
	tb_counters(&req, "filter", 4, UINT64_MAX, 2);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, &changed), 0);
	CHECK(changed);
	CHECK_ERR(get_entries("filter", 632, &out), 0);
	{
		struct ipt_entry *e = (void *)out.data;

		CHECK(e->counters.pcnt == 0 && e->counters.bcnt == 3);
	}
	buf_free(&req);
	buf_free(&out);
}

static void test_snapshot_roundtrip(void)
{
	struct buf snap = { 0 }, a = { 0 }, b = { 0 }, req = { 0 };
	struct tb t;

	tb_rich(&t);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	tb_counters(&req, "filter", t.num_entries, 2, 200);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), 0);
	fake_count(0, 40, 4000);
	CHECK_ERR(get_entries("filter", t.b.len, &a), 0);
	CHECK_ERR(ipt_state_save(&snap), 0);

	/*
	 * A new helper: initial tables, not committed, then the restore.  The
	 * rules in force and their counter map were adopted from the vault:
	 * the 40 packets counted since the snapshot are still there.
	 */
	fake_reset();
	fake.num_entries = t.num_entries;
	fake.counts = calloc(t.num_entries, sizeof(*fake.counts));
	fake_count(0, 40, 4000);
	CHECK_ERR(ipt_init(true), 0);
	CHECK(fake.commits == 0);
	CHECK(cur_entries() == 4);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK(fake.commits == 1);
	CHECK_ERR(get_entries("filter", t.b.len, &b), 0);
	/* same rules, same counters (the adopted counts folded in) */
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
	CHECK(((struct ipt_entry *)b.data)->counters.pcnt == 42);
	CHECK(fake.size == t.b.len);
	/*
	 * A second save of the restored state holds the same table; its base
	 * counters now include the adopted counts (the new counter map
	 * starts at zero), so restoring it gives the same entries again.
	 */
	{
		struct buf snap2 = { 0 }, c = { 0 };

		CHECK_ERR(ipt_state_save(&snap2), 0);
		CHECK(snap2.len == snap.len);
		fake_reset();
		CHECK_ERR(ipt_init(true), 0);
		CHECK_ERR(ipt_state_restore(snap2.data, snap2.len), 0);
		CHECK_ERR(get_entries("filter", t.b.len, &c), 0);
		CHECK(a.len == c.len && !memcmp(a.data, c.data, a.len));
		buf_free(&c);
		buf_free(&snap2);
	}
	buf_free(&snap);
	buf_free(&a);
	buf_free(&b);
	buf_free(&req);
	tb_free(&t);
}

static void test_snapshot_untrusted(void)
{
	struct buf snap = { 0 }, mod = { 0 };
	struct tb t;
	size_t i;

	tb_notes(&t);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK_ERR(ipt_state_save(&snap), 0);

#define RESTORE_FAILS(data, len, want) do {				\
		fake_reset();						\
		CHECK_ERR(ipt_init(true), 0);				\
		CHECK_ERR(ipt_state_restore(data, len), want);		\
		/* what is served is what is enforced: the initial table */ \
		CHECK(fake.commits == 1 && fake.num_entries == 4);	\
		CHECK(cur_entries() == 4);				\
	} while (0)

	RESTORE_FAILS(snap.data, 0, -EINVAL);
	RESTORE_FAILS(snap.data, 15, -EINVAL);
	RESTORE_FAILS(snap.data, snap.len - 1, -EINVAL);
	buf_reset(&mod);
	buf_append(&mod, snap.data, snap.len);
	buf_append(&mod, "x", 1);
	RESTORE_FAILS(mod.data, mod.len, -EINVAL);
	/* bad magic, version */
	for (i = 0; i < 8; i += 4) {
		buf_reset(&mod);
		buf_append(&mod, snap.data, snap.len);
		mod.data[i] ^= 1;
		RESTORE_FAILS(mod.data, mod.len, -EINVAL);
	}
	/* a loop inside: the snapshot goes through translate_table() */
	buf_reset(&mod);
	buf_append(&mod, snap.data, snap.len);
	/* snapshot header 16 + table header 88, then the blob: entry 0's
	 * verdict is at 112 + 48 + 32 */
	memcpy(mod.data + 16 + 88 + 192, &(int){ 8 }, 4);
	RESTORE_FAILS(mod.data, mod.len, -ELOOP);
	/* the backend refuses the saved table */
	fake_reset();
	CHECK_ERR(ipt_init(true), 0);
	fake.fail_commit = -E2BIG;
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), -E2BIG);
	fake.fail_commit = 0;
	/* every truncation fails cleanly (ASan watches the reads) */
	for (i = 0; i < snap.len; i += 7) {
		fake_reset();
		ipt_init(true);
		CHECK(ipt_state_restore(snap.data, i) != 0);
	}
	/* and the real thing still works */
	fake_reset();
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK(cur_entries() == 9);
	buf_free(&snap);
	buf_free(&mod);
	tb_free(&t);
#undef RESTORE_FAILS
}

static void test_big_table(void)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff } };
	struct buf out = { 0 };
	struct tb t;
	unsigned int i;

	/* 10,000 rules as iptables-restore would send them */
	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	for (i = 0; i < 10000; i++) {
		tcp.dpts[0] = tcp.dpts[1] = i;
		tb_begin(&t, &ip_tcp);
		tb_match(&t, "tcp", 0, &tcp, sizeof(tcp));
		tb_std(&t, V_ACCEPT);
	}
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK(cur_entries() == 10004);
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	CHECK(out.len == t.b.len);
	buf_free(&out);
	tb_free(&t);
}

static void test_init_backend_fails(void)
{
	fake_reset();
	fake.fail_commit = -ENOSPC;
	CHECK_ERR(ipt_init(false), -ENOSPC);
	fake.fail_commit = 0;
	CHECK_ERR(ipt_init(false), 0);
	CHECK(fake.commits == 1);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
#define T(n) { #n, test_##n }
	T(initial_info),
	T(initial_entries_bytes),
	T(get_info_errors),
	T(get_entries_errors),
	T(revisions),
	T(replace_notes_blob),
	T(replace_all_extensions),
	T(replace_header),
	T(translate_limits),
	T(entry_checks),
	T(match_tiling),
	T(hooks_and_underflows),
	T(loops_and_jumps),
	T(extension_lookup),
	T(extension_payloads),
	T(normalized_output),
	T(replace_counters_and_eagain),
	T(backend_refuses),
	T(add_counters),
	T(snapshot_roundtrip),
	T(snapshot_untrusted),
	T(big_table),
	T(init_backend_fails),
#undef T
};

int main(void)
{
	unsigned int i, passed = 0, failed = 0;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = failures;

		current_test = tests[i].name;
		fake_reset();
		if (ipt_init(false)) {
			failures++;
			fprintf(stderr, "  ipt_init failed\n");
		} else {
			tests[i].fn();
		}
		if (failures == before) {
			passed++;
			printf("PASS %s\n", tests[i].name);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
		fflush(stdout);
	}
	fake_reset();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
