// SPDX-License-Identifier: GPL-2.0
/* Host unit tests: extension lookups, payload checks and normalized output. */
#include "unit.h"

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

/* A rule whose match @name has its name's NUL overwritten: EINVAL. */
static void expect_unterminated_name(const char *name, const void *data,
				     unsigned int len)
{
	struct xt_entry_match *m;
	struct tb t;

	tb_init(&t);
	tb_hook(&t, NF_INET_LOCAL_IN);
	tb_begin(&t, &ip_tcp);
	tb_match(&t, name, 0, data, len);
	m = (void *)(t.b.data + t.cur + sizeof(struct ipt_entry));
	memset(m->u.user.name, name[0], sizeof(m->u.user.name));
	tb_std(&t, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(&t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(&t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(&t);
	EXPECT_REPLACE(&t, -EINVAL);
	tb_free(&t);
}

void test_extension_lookup(void)
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
	expect_unterminated_name("tcp", &tcp, sizeof(tcp));
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

void test_extension_payloads(void)
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

void test_normalized_output(void)
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

/*
 * A kernel side that checks extensions itself (kmod): what we have no
 * descriptor for passes to it; what we know is still checked here with
 * ip_tables' errnos; the entries the commit wrote back are what
 * GET_ENTRIES serves.
 */
void test_kernel_checked_extensions(void)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff } };
	unsigned char limit[32] = { 0 };
	struct ipt_getinfo info;
	struct buf out = { 0 };

	fake.kernel_checks = true;
	/* the install writes back only the entries with one the kernel
	 * checks: here the rule, entry 0 (INPUT's first) */
	CHECK_ERR(one_rule(&ip_tcp, "limit", 0, limit, sizeof(limit)), 0);
	CHECK(fake.writeback_given && fake.writeback[0] == 0x01);
	CHECK_ERR(one_target("LOG", 0, limit, 32), 0);
	CHECK(fake.writeback_given && fake.writeback[0] == 0x01);
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 0, &tcp, sizeof(tcp)), 0);
	CHECK(fake.writeback_given && fake.writeback[0] == 0x00);
	/* a revision we lack: the kernel's to judge */
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 1, &tcp, sizeof(tcp)), 0);
	CHECK(fake.writeback_given && fake.writeback[0] == 0x01);
	/* ours, still checked here: payload size, protocol */
	memcpy(limit, &tcp, sizeof(tcp));
	CHECK_ERR(one_rule(&ip_tcp, "tcp", 0, limit, sizeof(tcp) + 8), -EINVAL);
	memset(limit, 0, sizeof(limit));
	CHECK_ERR(one_rule(&(struct ipt_ip){ 0 }, "tcp", 0, &tcp, sizeof(tcp)),
		  -EINVAL);
	/* a name without its NUL: EINVAL before any lookup */
	expect_unterminated_name("limit", limit, 8);
	/* the copy the commit rewrote is the one served: the limit
	 * match's first payload byte (entry 0, after its match header) */
	fake.rewrite_at = 112 + sizeof(struct xt_entry_match) + 1;
	fake.rewrite_byte = 0x5a;
	CHECK_ERR(one_rule(&ip_tcp, "limit", 0, limit, sizeof(limit)), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK_ERR(get_entries("filter", info.size, &out), 0);
	CHECK(out.len == info.size && out.len >= fake.rewrite_at &&
	      out.data[fake.rewrite_at - 1] == 0x5a);
	buf_free(&out);

	/* without it, the same table is refused as ip_tables without the
	 * module */
	fake.kernel_checks = false;
	fake.rewrite_at = 0;
	CHECK_ERR(one_rule(&ip_tcp, "limit", 0, limit, sizeof(limit)), -ENOENT);
}
