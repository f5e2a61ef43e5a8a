// SPDX-License-Identifier: GPL-2.0
/* Host unit tests: counters, the backend, snapshots and large tables. */
#include "unit.h"

void test_replace_counters_and_eagain(void)
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

void test_backend_refuses(void)
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

void test_add_counters(void)
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

/*
 * A helper died after a change went live and before its caller was
 * answered: the restored state's rules get what the backend kept of their
 * counts (load/'s parked counters) on top of the saved base counters, on
 * the table they belong to only, and once.
 */
void test_restore_parked_counters(void)
{
	struct buf snap = { 0 }, a = { 0 }, req = { 0 };
	const struct ipt_entry *e;
	struct tb t;

	tb_rich(&t);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	tb_counters(&req, "filter", t.num_entries, 2, 200);
	CHECK_ERR(set(IPT_SO_SET_ADD_COUNTERS, &req, NULL, NULL), 0);
	CHECK_ERR(ipt_state_save(&snap), 0);

	fake_reset();
	fake.parked_n = t.num_entries;
	fake.parked[0] = (struct xt_counters){ .pcnt = 5, .bcnt = 500 };
	fake.parked[t.num_entries - 1] =
		(struct xt_counters){ .pcnt = 1, .bcnt = 100 };
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK(fake.parked_added == 1);
	CHECK_ERR(get_entries("filter", t.b.len, &a), 0);
	e = (const struct ipt_entry *)a.data;
	CHECK(e->counters.pcnt == 7 && e->counters.bcnt == 700);
	e = (const void *)((const unsigned char *)a.data + a.len -
			   sizeof(struct ipt_entry) -
			   XT_ALIGN(sizeof(struct xt_error_target)));
	CHECK(e->counters.pcnt == 3 && e->counters.bcnt == 300);
	buf_free(&a);

	/* counts of another number of rules are not these rules' */
	fake_reset();
	fake.parked_n = t.num_entries + 1;
	fake.parked[0] = (struct xt_counters){ .pcnt = 5, .bcnt = 500 };
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK(fake.parked_added == 0);
	CHECK_ERR(get_entries("filter", t.b.len, &a), 0);
	CHECK(((const struct ipt_entry *)a.data)->counters.pcnt == 2);
	buf_free(&a);
	buf_free(&snap);
	buf_free(&req);
	tb_free(&t);
}

void test_snapshot_roundtrip(void)
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

/* ipt/state.c's record layout: struct snap_table (104 bytes: the blob's
 * size at 48, its deflated size at 96), then the blob */
#define ST_LEN		104
#define ST_SIZE_AT	48
#define ST_ZSIZE_AT	96

/* The record at @rec (@len bytes) into @out with its blob as it is (zsize
 * 0), as a table too big to deflate is stored; its length in @rec */
static size_t rec_raw(const unsigned char *rec, size_t len, struct buf *out)
{
	uint32_t size, zsize;
	unsigned char *p;

	CHECK(len >= ST_LEN);
	memcpy(&size, rec + ST_SIZE_AT, 4);
	memcpy(&zsize, rec + ST_ZSIZE_AT, 4);
	buf_append(out, rec, ST_LEN);
	memset(out->data + out->len - ST_LEN + ST_ZSIZE_AT, 0, 4);
	if (!zsize) {
		buf_append(out, rec + ST_LEN, size);
		return ST_LEN + size;
	}
	p = buf_append_zero(out, size);
	CHECK(p && !ipt_inflate(rec + ST_LEN, zsize, p, size));
	return ST_LEN + zsize;
}

/* a one-table snapshot with its blob as it is */
static void snap_raw(const struct buf *snap, struct buf *out)
{
	size_t n;

	buf_reset(out);
	buf_append(out, snap->data, 16);
	n = rec_raw(snap->data + 16, snap->len - 16, out);
	buf_append(out, snap->data + 16 + n, snap->len - 16 - n);
}

void test_snapshot_untrusted(void)
{
	struct buf snap = { 0 }, mod = { 0 }, z = { 0 };
	uint32_t zsize, size;
	struct tb t;
	size_t i;

	tb_notes(&t);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK_ERR(ipt_state_save(&snap), 0);
	/* saved deflated (shorter); the checks below read the raw form,
	 * which a restore takes too */
	memcpy(&zsize, snap.data + 16 + ST_ZSIZE_AT, 4);
	memcpy(&size, snap.data + 16 + ST_SIZE_AT, 4);
	CHECK(zsize > 0 && zsize < size);
	buf_append(&z, snap.data, snap.len);
	snap_raw(&z, &snap);
	CHECK(snap.len == z.len + size - zsize);

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
	/* snapshot header 16 + table header 104, then the blob: entry 0's
	 * verdict is at 120 + 48 + 32 */
	memcpy(mod.data + 16 + ST_LEN + 192, &(int){ 8 }, 4);
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
	/* deflated: a payload that does not inflate to the blob's size, a
	 * size deflate cannot reach, a flipped payload byte, truncations */
	for (i = 0; i < 4; i++) {
		uint32_t v = i == 0 ? size + 1 : i == 1 ? size - 1 :
			     i == 2 ? zsize * 1033 : zsize - 1;

		buf_reset(&mod);
		buf_append(&mod, z.data, z.len);
		memcpy(mod.data + 16 + (i < 3 ? ST_SIZE_AT : ST_ZSIZE_AT), &v, 4);
		fake_reset();
		ipt_init(true);
		CHECK(ipt_state_restore(mod.data, mod.len) != 0);
		CHECK(fake.commits == 1 && fake.num_entries == 4);
	}
	for (i = 0; i < zsize; i += 5) {
		buf_reset(&mod);
		buf_append(&mod, z.data, z.len);
		mod.data[16 + ST_LEN + i] ^= 0xa5;
		fake_reset();
		ipt_init(true);
		/* refused, or (a flip deflate cannot see) checked as any blob */
		if (ipt_state_restore(mod.data, mod.len))
			CHECK(fake.commits == 1 && fake.num_entries == 4);
	}
	for (i = 0; i < z.len; i += 7) {
		fake_reset();
		ipt_init(true);
		CHECK(ipt_state_restore(z.data, i) != 0);
	}
	/* and the real thing still works, both forms */
	fake_reset();
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK(cur_entries() == 9);
	fake_reset();
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(z.data, z.len), 0);
	CHECK(cur_entries() == 9);
	buf_free(&snap);
	buf_free(&mod);
	buf_free(&z);
	tb_free(&t);
#undef RESTORE_FAILS
}

/* @n tcp rules in INPUT (one port each), as iptables-restore sends them */
static void tb_tcp_rules(struct tb *t, unsigned int n)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff } };
	unsigned int i;

	tb_init(t);
	tb_hook(t, NF_INET_LOCAL_IN);
	for (i = 0; i < n; i++) {
		tcp.dpts[0] = tcp.dpts[1] = i;
		tb_begin(t, &ip_tcp);
		tb_match(t, "tcp", 0, &tcp, sizeof(tcp));
		tb_std(t, V_ACCEPT);
	}
	tb_policy(t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(t);
}

void test_big_table(void)
{
	struct buf out = { 0 };
	struct tb t;

	tb_tcp_rules(&t, 10000);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK(cur_entries() == 10004);
	CHECK_ERR(get_entries("filter", t.b.len, &out), 0);
	CHECK(out.len == t.b.len);
	buf_free(&out);
	tb_free(&t);
}

/* the deflated size in a table's saved record (0: saved raw) */
static uint32_t saved_zsize(const char *name)
{
	const struct ipt_stored_table *st = ipt_table_find(name);
	struct buf rec = { 0 };
	uint32_t zsize = 0;

	CHECK(st != NULL);
	if (st) {
		CHECK_ERR(ipt_state_save_table(st, &rec), 0);
		CHECK(rec.len >= ST_LEN);
		if (rec.len >= ST_LEN)
			memcpy(&zsize, rec.data + ST_ZSIZE_AT, 4);
	}
	buf_free(&rec);
	return zsize;
}

/*
 * Which records are deflated (issue 17 against issue 20): a namespace's
 * 100-rule table (~20 KiB of entries) is, a 1,000-rule one (~200 KiB) is
 * not: its every change and GET_ENTRIES would pay for it.
 */
void test_deflate_threshold(void)
{
	struct tb t;
	uint32_t z;

	tb_tcp_rules(&t, 100);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	z = saved_zsize("filter");
	CHECK(z > 0 && z < t.b.len / 4);
	tb_free(&t);
	tb_tcp_rules(&t, 1000);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 104, NULL), 0);
	CHECK(saved_zsize("filter") == 0);
	tb_free(&t);
}

void test_init_backend_fails(void)
{
	fake_reset();
	fake.fail_commit = -ENOSPC;
	CHECK_ERR(ipt_init(false), -ENOSPC);
	fake.fail_commit = 0;
	CHECK_ERR(ipt_init(false), 0);
	CHECK(fake.commits == 1);
}

/*
 * Every table ip_tables has, made on first use when the backend enforces
 * it (kmod), with iptable_<name>'s hooks and initial table (an ACCEPT
 * policy per hook, the ERROR tail); ENOENT otherwise, and for any other
 * name; the snapshot keeps them in the order they were made.
 */
void test_tables(void)
{
	static const struct {
		const char *name;
		unsigned int hooks, entries;
	} tt[] = {
		{ "raw", 1 << NF_INET_PRE_ROUTING | 1 << NF_INET_LOCAL_OUT, 3 },
		{ "nat", 1 << NF_INET_PRE_ROUTING | 1 << NF_INET_LOCAL_IN |
			 1 << NF_INET_LOCAL_OUT | 1 << NF_INET_POST_ROUTING, 5 },
		{ "security", FILTER_HOOKS, 4 },
		{ "mangle", (1 << NF_INET_NUMHOOKS) - 1, 6 },
	};
	struct ipt_getinfo info;
	struct buf snap = { 0 }, out = { 0 };
	unsigned int i, h, commits;
	struct tb t;

	CHECK_ERR(get_info("nat", &info), -ENOENT);	/* filter only */
	CHECK(!ipt_table_at(1));
	fake.tables = 0x1f;
	CHECK_ERR(get_info("broute", &info), -ENOENT);
	for (i = 0; i < sizeof(tt) / sizeof(tt[0]); i++) {
		unsigned int off = 0;

		CHECK_ERR(get_info(tt[i].name, &info), 0);
		CHECK(!strcmp(fake.name, tt[i].name));
		CHECK(info.valid_hooks == tt[i].hooks);
		CHECK(info.num_entries == tt[i].entries);
		for (h = 0; h < NF_INET_NUMHOOKS; h++) {
			if (!(tt[i].hooks & (1 << h)))
				continue;
			/* xt_alloc_initial_table(): the policies in hook order */
			CHECK(info.hook_entry[h] == off && info.underflow[h] == off);
			off += sizeof(struct ipt_entry) +
			       XT_ALIGN(sizeof(struct xt_standard_target));
		}
		CHECK(info.size == off + sizeof(struct ipt_entry) +
				   XT_ALIGN(sizeof(struct xt_error_target)));
		CHECK_ERR(get_entries(tt[i].name, info.size, &out), 0);
		CHECK(out.len == info.size);
	}
	commits = fake.commits;
	CHECK_ERR(get_info("nat", &info), 0);	/* made once */
	CHECK(fake.commits == commits);
	/* "You lied!": a table's own hooks only */
	tb_notes(&t);
	CHECK_ERR(replace_tb(&t, "nat", FILTER_HOOKS, 5, NULL), -EINVAL);
	CHECK_ERR(replace_tb(&t, "security", FILTER_HOOKS, 4, NULL), 0);
	CHECK(!strcmp(fake.name, "security"));

	/* a restarted helper makes them again, in the same order */
	CHECK_ERR(ipt_state_save(&snap), 0);
	fake_reset();
	fake.tables = 0x1f;
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK(ipt_table_at(0) && !strcmp(ipt_table_at(0)->name, "filter"));
	for (i = 0; i < sizeof(tt) / sizeof(tt[0]); i++)
		CHECK(ipt_table_at(i + 1) &&
		      !strcmp(ipt_table_at(i + 1)->name, tt[i].name));
	CHECK(!ipt_table_at(i + 1));
	CHECK_ERR(get_info("security", &info), 0);
	CHECK(info.num_entries == t.num_entries);
	buf_free(&snap);
	buf_free(&out);
	tb_free(&t);
}

/*
 * Network namespaces (kmod): each has its own tables, made on first use;
 * requests in one never see another's; the snapshot keeps them all; a
 * namespace gone is forgotten (the backend told), also when a restore
 * finds it gone (ESRCH); other backends serve the initial one only.
 */
void test_namespaces(void)
{
	struct buf snap = { 0 }, out = { 0 };
	struct ipt_getinfo info;
	struct tb t;

	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV4), -ENOENT);	/* tc, netfilter */
	fake.namespaces = true;
	fake.tables = 0x1f;
	tb_notes(&t);
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV4), 0);
	CHECK(!ipt_table_at(0));		/* nothing made yet */
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(fake.netns == 2 && info.num_entries == 4);
	CHECK_ERR(replace_tb(&t, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK(fake.netns == 2);
	CHECK_ERR(get_info("nat", &info), 0);
	CHECK(ipt_table_at(1) && !strcmp(ipt_table_at(1)->name, "nat"));
	CHECK_ERR(ipt_use_netns(3, NFPROTO_IPV4), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == 4 && !ipt_table_at(1));
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV4), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == 4 && !ipt_table_at(1));
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV4), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == t.num_entries);

	/* a restarted helper restores every namespace's tables */
	CHECK_ERR(ipt_state_save(&snap), 0);
	fake_reset();
	fake.namespaces = true;
	fake.tables = 0x1f;
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV4), 0);
	CHECK_ERR(get_info("filter", &info), 0);
	CHECK(info.num_entries == t.num_entries);
	CHECK(ipt_table_at(1) && !strcmp(ipt_table_at(1)->name, "nat"));

	/* gone: forgotten, and the backend told; a new id starts empty */
	{
		unsigned long gen = ipt_tables_generation();

		CHECK(ipt_netns_gone(2) == 1);
		CHECK(fake.forgotten == 2 && ipt_tables_generation() != gen);
		CHECK(ipt_netns_gone(2) == 0);
		CHECK(ipt_netns_gone(1) == 0);	/* never */
	}
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV4), 0);
	CHECK(!ipt_table_at(0));

	/* a namespace that died while no helper ran: the restore skips it */
	fake_reset();
	fake.namespaces = true;
	fake.tables = 0x1f;
	fake.gone_netns = 2;
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), 0);
	CHECK(fake.forgotten == 2);
	CHECK_ERR(ipt_use_netns(3, NFPROTO_IPV4), 0);
	CHECK(ipt_table_at(0) && !ipt_table_at(1));
	CHECK_ERR(ipt_use_netns(2, NFPROTO_IPV4), 0);
	CHECK(!ipt_table_at(0));
	CHECK_ERR(ipt_use_netns(1, NFPROTO_IPV4), 0);
	CHECK(ipt_table_at(0) && !strcmp(ipt_table_at(0)->name, "filter"));

	/* a table the backend will not make (the namespace's budget): its
	 * errno, nothing made */
	fake.fail_commit = -ENOMEM;
	CHECK_ERR(ipt_use_netns(4, NFPROTO_IPV4), 0);
	CHECK_ERR(get_info("filter", &info), -ENOMEM);
	CHECK(!ipt_table_at(0));
	fake.fail_commit = 0;
	CHECK_ERR(get_info("filter", &info), 0);

	/* the snapshot of a namespace-serving helper is no use to another */
	fake_reset();
	CHECK_ERR(ipt_init(true), 0);
	CHECK_ERR(ipt_state_restore(snap.data, snap.len), -EINVAL);
	buf_free(&snap);
	buf_free(&out);
	tb_free(&t);
}

/* ipt_state_lend_tables()'s records: one buffer per table, by index */
struct lend_recs {
	struct buf rec[2];
	size_t n;
};

static const unsigned char *lend_rec_of(size_t k, size_t *len, void *arg)
{
	struct lend_recs *r = arg;

	if (k >= r->n)
		return NULL;
	*len = r->rec[k].len;
	return r->rec[k].data;
}

static int lend_save_one(const struct ipt_stored_table *t, void *arg)
{
	struct lend_recs *r = arg;

	return r->n < 2 ? ipt_state_save_table(t, &r->rec[r->n++]) : -E2BIG;
}

/* lent from @rec: its entries or its deflated payload lie inside it */
static bool lent_inside(const struct ipt_stored_table *t, const struct buf *rec)
{
	const unsigned char *p = t->blob.entries ? t->blob.entries : t->blob.z;

	return p > rec->data && p < rec->data + rec->len;
}

static void lent_entries(bool raw)
{
	struct buf a = { 0 }, b = { 0 };
	struct lend_recs r = { 0 };
	const struct ipt_stored_table *t;
	struct tb tab;

	tb_rich(&tab);
	CHECK_ERR(replace_tb(&tab, "filter", FILTER_HOOKS, 4, NULL), 0);
	CHECK_ERR(get_entries("filter", tab.b.len, &a), 0);
	CHECK_ERR(ipt_state_for_each_table(lend_save_one, &r), 0);
	CHECK(r.n == 1);
	if (raw) {
		buf_append(&b, r.rec[0].data, r.rec[0].len);
		buf_reset(&r.rec[0]);
		rec_raw(b.data, b.len, &r.rec[0]);
		buf_reset(&b);
	}
	t = ipt_table_find("filter");
	CHECK(t && !t->blob.lent);

	/* a record of another size or namespace is not the table's */
	r.rec[0].len--;
	ipt_state_lend_tables(lend_rec_of, &r, false);
	CHECK(!t->blob.lent);
	r.rec[0].len++;
	r.rec[0].data[0] ^= 1;	/* struct snap_table's netns comes first */
	ipt_state_lend_tables(lend_rec_of, &r, false);
	CHECK(!t->blob.lent);
	r.rec[0].data[0] ^= 1;
	/* verified: one entry byte changed is not the table */
	r.rec[0].data[r.rec[0].len - 1] ^= 0x55;
	ipt_state_lend_tables(lend_rec_of, &r, true);
	CHECK(!t->blob.lent);
	r.rec[0].data[r.rec[0].len - 1] ^= 0x55;

	ipt_state_lend_tables(lend_rec_of, &r, true);
	CHECK(t->blob.lent);
	CHECK(ipt_state_lends_from(t, r.rec[0].data, r.rec[0].len));
	CHECK(lent_inside(t, &r.rec[0]));
	CHECK(raw ? t->blob.entries && !t->blob.z : !t->blob.entries && t->blob.z);
	/* saved again from the lent table: the record, byte for byte (a
	 * raw one only where deflating does not help: not this table) */
	buf_reset(&b);
	CHECK_ERR(ipt_state_save_table(t, &b), 0);
	CHECK(raw || (b.len == r.rec[0].len && !memcmp(b.data, r.rec[0].data, b.len)));
	buf_reset(&b);
	CHECK_ERR(get_entries("filter", tab.b.len, &b), 0);
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));

	/* owned again: a copy, the same bytes */
	CHECK_ERR(ipt_state_own_tables(), 0);
	CHECK(!t->blob.lent && !ipt_state_lends_from(t, r.rec[0].data, r.rec[0].len));
	CHECK_ERR(get_entries("filter", tab.b.len, &b), 0);
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));

	/* lent again, then replaced: the record is left alone */
	ipt_state_lend_tables(lend_rec_of, &r, false);
	CHECK(t->blob.lent);
	CHECK_ERR(replace_tb(&tab, "filter", FILTER_HOOKS, tab.num_entries, NULL), 0);
	CHECK(!t->blob.lent);
	CHECK_ERR(get_entries("filter", tab.b.len, &b), 0);
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));

	buf_free(&a);
	buf_free(&b);
	buf_free(&r.rec[0]);
	buf_free(&r.rec[1]);
	tb_free(&tab);
}

/*
 * A committed table served from its saved record (issue 17): lent only
 * from a record whose header is the table's (and, verified, whose bytes
 * are), GET_ENTRIES the same bytes, owned again on request, and a commit
 * over a lent table frees nothing of the record (ASan would say); from a
 * deflated record (the table's entries inflated where they are read) and
 * from a raw one (a table too big to deflate).
 */
void test_lent_entries(void)
{
	lent_entries(false);
	fake_reset();
	CHECK_ERR(ipt_init(false), 0);
	lent_entries(true);
}
