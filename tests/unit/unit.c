// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the helper's ip_tables: the sockopt handlers, the
 * translate_table() checks with the errno of each, counters and the state
 * snapshot.  The expected errnos are the kernel's (ip_tables.c and
 * x_tables.c of Linux 6.1; the source line is named where it is not
 * obvious).  Run: make -C tests/unit check
 */
#include "unit.h"

int failures;
const char *current_test;

/* ---- request helpers ---- */

int set(unsigned int opt, const struct buf *req, struct buf *out,
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

int replace_tb(struct tb *t, const char *table, unsigned int hooks,
		      unsigned int num_counters, struct buf *old)
{
	struct buf req = { 0 };
	int r;

	tb_replace(t, &req, table, hooks, num_counters);
	r = set(IPT_SO_SET_REPLACE, &req, old, NULL);
	buf_free(&req);
	return r;
}

int get_info(const char *name, struct ipt_getinfo *info)
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

unsigned int cur_entries(void)
{
	struct ipt_getinfo info;

	return get_info("filter", &info) ? 0 : info.num_entries;
}

int get_entries(const char *name, unsigned int size, struct buf *out)
{
	struct ipt_get_entries g;

	memset(&g, 0, sizeof(g));
	strncpy(g.name, name, sizeof(g.name));
	g.size = size;
	buf_reset(out);
	return ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g),
			       sizeof(g) + size, out);
}

int revision(const char *name, uint8_t rev, bool target)
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

/* Every extension we serve, at every revision, once. */
void tb_rich(struct tb *t)
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
void expect_replace(struct tb *t, int want, int line)
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
	T(kernel_checked_extensions),
	T(normalized_output),
	T(replace_counters_and_eagain),
	T(backend_refuses),
	T(add_counters),
	T(snapshot_roundtrip),
	T(lent_entries),
	T(restore_parked_counters),
	T(snapshot_untrusted),
	T(big_table),
	T(deflate_threshold),
	T(init_backend_fails),
	T(tables),
	T(namespaces),
	T(ip6_tables),
	T(ip6_translate),
	T(ip6_normalized),
	T(ip6_state),
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
