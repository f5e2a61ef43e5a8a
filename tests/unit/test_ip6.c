// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: ip6_tables' tables (issue 18).  translate_table() of
 * net/ipv6/netfilter/ip6_tables.c makes the same checks as ip_tables'
 * on struct ip6t_entry (168 bytes, ip6_checkentry()'s masks), so the
 * errnos below are ip6_tables' (Linux 6.1); the tables are separate from
 * the IPv4 ones of the same namespace, and so are their counters and
 * snapshots.
 */
#include "unit.h"

/* the smallest IPv6 entry: header plus a target */
#define E6		((unsigned int)sizeof(struct ip6t_entry))
#define STD6		(E6 + XT_ALIGN(sizeof(struct xt_standard_target)))
#define ERR6		(E6 + XT_ALIGN(sizeof(struct xt_error_target)))

/* offsets of the notes6 blob's entries (notes6()) */
struct notes6 {
	unsigned int tcp, in, fwd, out, head, drop, ret, tail, err;
};

/* tb_notes6(), and where its entries are, in blob order */
static void notes6(struct tb *t, struct notes6 *o)
{
	unsigned int *at = &o->tcp, i, off = 0;

	tb_notes6(t);
	for (i = 0; i < sizeof(*o) / sizeof(*at); i++) {
		at[i] = off;
		off += tb_entry6_at(t, off)->next_offset;
	}
	if (off != t->b.len || t->num_entries != i)
		abort();	/* not the table struct notes6 describes */
}

/* Serve IPv6 from the kmod-like fake; the current namespace's IPv6. */
static void use_ip6(uint64_t netns)
{
	fake.ipv6 = true;
	fake.kernel_checks = true;
	fake.namespaces = true;
	fake.tables = 0x1f;
	CHECK_ERR(ipt_use_netns(netns, NFPROTO_IPV6), 0);
}

void test_ip6_tables(void)
{
	struct buf out = { 0 }, req = { 0 }, old = { 0 };
	struct ipt_getinfo info;
	struct ip6t_entry *e;
	struct notes6 o;
	struct tb t;
	unsigned int i;

	/* the tc and netfilter mechanisms: no ip6_tables */
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV6), -ENOENT);
	CHECK_ERR(ipt_use_netns(1, NFPROTO_ARP), -EINVAL);
	use_ip6(1);

	/* ip6table_filter's initial table, made on first use (after the
	 * IPv4 filter table of ipt_init()) */
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(fake.family == NFPROTO_IPV6 && fake.commits == 2);
	CHECK(info.valid_hooks == FILTER_HOOKS);
	CHECK(info.num_entries == 4 && info.size == 3 * STD6 + ERR6);
	CHECK(info.hook_entry[NF_INET_LOCAL_IN] == 0 &&
	      info.hook_entry[NF_INET_FORWARD] == STD6 &&
	      info.underflow[NF_INET_LOCAL_OUT] == 2 * STD6);
	CHECK_ERR(get_entries("filter", info.size, &out), 0);
	e = (void *)out.data;
	CHECK(e->target_offset == E6 && e->next_offset == STD6 &&
	      e->comefrom == 1u << NF_INET_LOCAL_IN);
	e = (void *)(out.data + 3 * STD6);
	CHECK(!strcmp((char *)e->elems + sizeof(struct xt_entry_target),
		      "ERROR") && e->comefrom == 0);
	/* the IPv6 nat table as ip6table_nat has it */
	CHECK_ERR(get_info("nat", &info), 0);
	CHECK(info.num_entries == 5 && info.size == 4 * STD6 + ERR6);

	/* a rule set, with its old counters back */
	notes6(&t, &o);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, &old), 0);
	CHECK(old.len == 4 * sizeof(struct xt_counters));
	CHECK(fake.size == t.b.len && fake.num_entries != t.num_entries);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == t.num_entries && info.size == t.b.len);
	CHECK(info.hook_entry[NF_INET_FORWARD] == o.fwd &&
	      info.underflow[NF_INET_LOCAL_IN] == o.in);
	/* comefrom as mark_source_chains() leaves it */
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	CHECK(((struct ip6t_entry *)(out.data + o.drop))->comefrom ==
	      1u << NF_INET_LOCAL_IN);
	CHECK(((struct ip6t_entry *)(out.data + o.out))->comefrom ==
	      1u << NF_INET_LOCAL_OUT);
	CHECK(((struct ip6t_entry *)(out.data + o.head))->comefrom == 0);

	/* ADD_COUNTERS and GET_ENTRIES' counters on the IPv6 table */
	tb_counters(&req, "filter", t.num_entries, 3, 300);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), 0);
	tb_counters(&req, "filter", t.num_entries + 1, 3, 300);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), -EINVAL);
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	for (i = 0; i < out.len; i += e->next_offset) {
		e = (void *)(out.data + i);
		CHECK(e->counters.pcnt == 3 && e->counters.bcnt == 300);
	}
	CHECK_ERR(get_entries("filter", t.b.len + 8, &out), -EAGAIN);

	/* the IPv4 filter table of the namespace is another table */
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV4), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == 4 && info.size == 632);
	CHECK_ERR(get_entries("filter", 632, &out), 0);
	CHECK(((struct ipt_entry *)out.data)->counters.pcnt == 0);
	/* an IPv6 blob is no IPv4 one */
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), -EINVAL);
	CHECK(cur_entries() == 4);

	buf_free(&old);
	buf_free(&out);
	buf_free(&req);
	tb_free(&t);
}

void test_ip6_translate(void)
{
	struct notes6 o;
	struct tb t;

	use_ip6(1);
#define FRESH() do { tb_free(&t); notes6(&t, &o); } while (0)
	notes6(&t, &o);
	EXPECT_REPLACE(&t, 0);

	/* ip6_checkentry(): IP6T_F_MASK, IP6T_INV_MASK */
	FRESH();
	tb_entry6_at(&t, o.drop)->ipv6.flags = 0x08;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();	/* IP6T_F_GOTO: an IPv4 rule's 0x04 is refused */
	tb_entry6_at(&t, o.drop)->ipv6.flags = IP6T_F_GOTO;
	EXPECT_REPLACE(&t, 0);
	FRESH();
	tb_entry6_at(&t, o.drop)->ipv6.invflags = 0x80;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();
	tb_entry6_at(&t, o.drop)->ipv6.invflags = IP6T_INV_MASK;
	EXPECT_REPLACE(&t, 0);

	/* sizes by struct ip6t_entry: what IPv4 accepts is refused */
	FRESH();	/* next_offset < 168 + 32 */
	tb_entry6_at(&t, o.drop)->next_offset = E6 + 24;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();	/* target_offset < sizeof(struct ip6t_entry) */
	tb_entry6_at(&t, o.drop)->target_offset = sizeof(struct ipt_entry);
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();	/* the header must fit before the end */
	t.b.len -= ERR6 - 16;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();	/* a lying size: the walk runs past it */
	tb_entry6_at(&t, o.err)->next_offset += 8;
	EXPECT_REPLACE(&t, -EINVAL);
	{
		struct buf req = { 0 };
		struct ipt_replace *r;

		FRESH();
		tb_replace(&t, &req, "filter", FILTER_HOOKS, 4);
		r = (void *)req.data;
		r->size += 8;		/* more than was sent */
		CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
		r->size -= 16;		/* the last entry runs past it */
		CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
		r->size += 8;
		r->num_entries++;	/* a lying count */
		CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
		r->num_entries--;
		r->hook_entry[NF_INET_FORWARD] += 8;	/* not an entry */
		CHECK_ERR(set(IPT_SO_SET_REPLACE, &req, NULL, NULL), -EINVAL);
		buf_free(&req);
	}

	/* check_underflow(): an unconditional ACCEPT or DROP */
	FRESH();
	tb_entry6_at(&t, o.fwd)->ipv6.proto = IPPROTO_UDP;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();
	tb_entry6_at(&t, o.fwd)->ipv6.dst.s6_addr[15] = 1;
	EXPECT_REPLACE(&t, -EINVAL);
	FRESH();
	memcpy(t.b.data + o.fwd + E6 + sizeof(struct xt_entry_target),
	       &(int){ XT_RETURN }, sizeof(int));
	EXPECT_REPLACE(&t, -EINVAL);

	/* mark_source_chains(): a loop, a jump into an entry */
	FRESH();	/* MYCHAIN's RETURN becomes a jump to MYCHAIN */
	memcpy(t.b.data + o.ret + E6 + sizeof(struct xt_entry_target),
	       &(int){ (int)o.drop }, sizeof(int));
	EXPECT_REPLACE(&t, -ELOOP);
	FRESH();
	memcpy(t.b.data + o.tcp + tb_entry6_at(&t, o.tcp)->target_offset +
	       sizeof(struct xt_entry_target), &(int){ (int)o.drop + 8 },
	       sizeof(int));
	EXPECT_REPLACE(&t, -ELOOP);
	/* a verdict no rule may give */
	FRESH();
	memcpy(t.b.data + o.drop + E6 + sizeof(struct xt_entry_target),
	       &(int){ -NF_STOLEN - 1 }, sizeof(int));
	EXPECT_REPLACE(&t, -EINVAL);

	/* xt_check_entry_match(): a match past the target */
	FRESH();
	((struct xt_entry_match *)(t.b.data + o.tcp + E6))->u.match_size += 8;
	EXPECT_REPLACE(&t, -EINVAL);
	/* xt_request_find_match(): a name without its NUL */
	FRESH();
	memset(((struct xt_entry_match *)(t.b.data + o.tcp + E6))->u.user.name,
	       'x', XT_EXTENSION_MAXNAMELEN);
	EXPECT_REPLACE(&t, -EINVAL);
	/* error_tg_ok(): an unterminated chain name */
	FRESH();
	memset(t.b.data + o.head + E6 + sizeof(struct xt_entry_target), 'x',
	       XT_FUNCTION_MAXNAMELEN);
	EXPECT_REPLACE(&t, -EINVAL);
	tb_free(&t);
#undef FRESH
}

/* Names after their NUL are zeroed as copy_entries_to_user() shows them;
 * the payloads are the module's to write back (the fake does not). */
void test_ip6_normalized(void)
{
	struct buf out = { 0 };
	struct xt_entry_match *m;
	struct notes6 o;
	struct tb t;

	use_ip6(1);
	notes6(&t, &o);
	m = (void *)(t.b.data + o.tcp + E6);
	m->u.user.name[XT_EXTENSION_MAXNAMELEN - 2] = 'z';
	CHECK_ERR(get_info("filter", &(struct ipt_getinfo){ 0 }), 0);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	m = (void *)(out.data + o.tcp + E6);
	CHECK(!strcmp(m->u.user.name, "tcp") &&
	      m->u.user.name[XT_EXTENSION_MAXNAMELEN - 2] == 0);
	buf_free(&out);
	tb_free(&t);
}

/* A restarted helper gets both families back; a dead namespace takes
 * both with it. */
void test_ip6_state(void)
{
	struct buf snap = { 0 }, a = { 0 }, b = { 0 }, req = { 0 };
	struct ipt_getinfo info;
	struct notes6 o;
	struct tb t, t4;

	use_ip6(1);
	notes6(&t, &o);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	tb_counters(&req, "filter", t.num_entries, 5, 500);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), 0);
	CHECK_ERR(get_entries("filter", t.b.len, &a), 0);
	CHECK_ERR(get_info("mangle", &info), 0);
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV4), 0);
	tb_notes(&t4);
	CHECK_ERR(replace_tb(&t4, "filter", FILTER_HOOKS, 4, NULL), 0);
	/* namespace 2: both families */
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV4), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV6), 0);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK_ERR(ipt_state_save(&snap), 0);

	fake_reset();
	CHECK_ERR(ipt_init(true), 0);
	use_ip6(1);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	/* 1's IPv4 and IPv6 filter, 1's IPv6 mangle, 2's two filters */
	CHECK(fake.commits == 5);
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV6), 0);
	CHECK_ERR(get_entries("filter", t.b.len, &b), 0);
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
	CHECK(((struct ip6t_entry *)b.data)->counters.pcnt == 5);
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV4), 0);
	CHECK(cur_entries() == t4.num_entries);
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV6), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == t.num_entries);

	/* a dead namespace: both families forgotten, the backend told once */
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV4), 0);
	CHECK(ipt_netns_gone(2) == 1);
	CHECK(fake.forgets == 1 && fake.forgotten == 2);
	CHECK(ipt_netns_gone(2) == 0);
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV6), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == 4);	/* made anew */

	/* a helper on a mechanism without ip6_tables cannot restore them:
	 * it starts from the initial tables */
	fake_reset();
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), -EINVAL);
	CHECK(cur_entries() == 4);

	buf_free(&snap);
	buf_free(&a);
	buf_free(&b);
	buf_free(&req);
	tb_free(&t);
	tb_free(&t4);
}
