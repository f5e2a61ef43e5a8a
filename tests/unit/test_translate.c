// SPDX-License-Identifier: GPL-2.0
/* Host unit tests: translate_table()'s entry, match, hook and loop checks. */
#include "unit.h"

void test_entry_checks(void)
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

void test_match_tiling(void)
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

void test_hooks_and_underflows(void)
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

void test_loops_and_jumps(void)
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
