// SPDX-License-Identifier: GPL-2.0
/* Host unit tests: GET_INFO, GET_ENTRIES, revisions, the SET_REPLACE header and limits. */
#include "unit.h"

void test_initial_info(void)
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

void test_initial_entries_bytes(void)
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

void test_get_info_errors(void)
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

void test_get_entries_errors(void)
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

void test_revisions(void)
{
	/*
	 * Revision queries are answered by the module from x_tables (as
	 * do_ipt_get_ctl() answers them: tests/guest/ipt-diff.sh compares
	 * with ip_tables); one reaching the helper is malformed.
	 */
	struct xt_get_revision r = { .name = "tcp" };
	struct buf out = { 0 };

	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_REVISION_MATCH, &r, sizeof(r),
				  sizeof(r), &out), -EINVAL);
	CHECK_ERR(ipt_sockopt_get(IPT_SO_GET_REVISION_TARGET, &r, sizeof(r),
				  sizeof(r), &out), -EINVAL);
	buf_free(&out);
}

void test_replace_notes_blob(void)
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

void test_replace_all_extensions(void)
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

void test_replace_header(void)
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

void test_translate_limits(void)
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
