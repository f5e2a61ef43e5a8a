// SPDX-License-Identifier: GPL-2.0
/*
 * soak-tool fuzz / fuzz6: the sockopt fuzzer, one code for ip_tables and
 * ip6_tables, written against a family descriptor (soak-family.c) rather
 * than struct ipt_entry or ip6t_entry.
 *
 * The fuzzer first commits the "committed rules" of every table (the
 * baseline: a few rules with tcp/udp/icmp/comment matches, a user chain;
 * filter's OUTPUT also the probe's two rules), then each case takes one
 * of them (or the table's empty layout) as its corpus seed and mutates it:
 * byte flips, a header or entry field set to an edge value, a lying
 * optlen, num_counters or size, an unknown table or extension name; or it
 * sends ADD_COUNTERS, GET_ENTRIES, GET_INFO or a revision query with
 * lying lengths and names.  After a refused change the table must read
 * back as the baseline (else "CHANGED"); an accepted change is replaced
 * by the baseline again, so every case starts from the same state.
 * Every 500 cases and at the end the probe's two rules must still be
 * enforced ("traffic ok": UDP over the family's loopback).  Run against
 * ip_tables (ip6_tables) and then ebpfilter in the same guest with the
 * same SEED, the lines must agree (tests/soak/guest/sockopt-fuzz.sh
 * compares them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "soak-tool.h"

static const char zeros[256];

/* what a case's mutation did, printed after its kind ("kind:detail") */
static char detail[64];

/* ---- random numbers: splitmix64, one stream per case ---- */
static uint64_t rs;

static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

/* an edge value for a 32-bit field whose right value is @v */
static uint32_t edge(uint32_t v)
{
	/* the family's entry sizes last: the sizes a lying field most
	 * plausibly takes */
	const uint32_t e[] = { 0, 1, 2, 4, 8, 0x7fffffff, 0x80000000,
			       0xffffffff, 0xfffffff0, 0x10000,
			       fam->sizes[0], fam->sizes[1] };

	switch (rn(4)) {
	case 0: return e[rn(sizeof(e) / sizeof(e[0]))];
	case 1: return v + 1 + rn(8);
	case 2: return v - 1 - rn(8);
	default: return (uint32_t)rnd();
	}
}

/*
 * ip_tables allocates size bytes and num_counters * 16 (kvmalloc(),
 * vzalloc()) before it checks either against the table; it refuses
 * without allocating only above XT_MAX_TABLE_SIZE (512 MB).  In the
 * soak's 512 MB guest a lie in between had the OOM killer kill the
 * fuzzer on the reference side (6.1, full scale, 2026-12-07: a random
 * num_counters).  Such a value becomes the first past that limit, a lie
 * both engines must refuse without allocating; up to 32 MB the reference
 * may allocate.  num_entries too (its offsets, 4 bytes each, before any
 * check): 6.12's full IPv6 run, case 67917, 0x689dcaf entries, 440 MB
 * zeroed under TCG, soft lockups for minutes, then the OOM killer took
 * the fuzzer on the ip6_tables side (2026-12-07).
 */
#define FUZZ_ALLOC_MAX		(32u << 20)
#define FUZZ_XT_MAX_TABLE	(512u << 20)

static uint32_t spare_the_guest(uint32_t v, uint32_t unit)
{
	uint64_t bytes = (uint64_t)v * unit;

	if (bytes <= FUZZ_ALLOC_MAX || bytes > FUZZ_XT_MAX_TABLE)
		return v;
	return FUZZ_XT_MAX_TABLE / unit + 1;
}

static const char *kinds[] = { "replace-flip", "replace-hdr", "replace-entry",
			       "replace-len", "replace-name", "counters",
			       "get-entries", "get-info", "revision" };

/* the offsets of the entries in @b */
static unsigned int entry_offsets(const struct buf *b, unsigned int *off, unsigned int max)
{
	unsigned int n = 0, o = 0;

	while (n < max && o + fam->entry_size <= b->len) {
		uint16_t next = *ent16(b->data + o, fam->at_next);

		off[n++] = o;
		if (next < fam->entry_size)
			break;
		o += next;
	}
	return n;
}

/* one field of one entry of @r (built as @t) */
static void mutate_entry(struct ipt_replace *r, struct tb *t)
{
	unsigned int off[64], n = entry_offsets(&t->b, off, 64);
	unsigned char *e = (unsigned char *)r->entries + off[rn(n)];
	uint16_t *target_offset = ent16(e, fam->at_target);
	uint16_t *next_offset = ent16(e, fam->at_next);
	unsigned char v;

	switch (rn(8)) {
	case 0: *target_offset = edge(*target_offset); break;
	case 1: *next_offset = edge(*next_offset); break;
	case 2:
		*ent16(e, fam->at_proto) = rnd();
		e[fam->at_invflags] = rnd();
		break;
	case 3:
		e[fam->at_flags] = rnd();
		/* the value first: the order the IPv4 fuzzer's cases had */
		v = rnd();
		e[fam->at_iniface + rn(IFNAMSIZ)] = v;
		break;
	case 4: {
		unsigned int comefrom = rnd();

		memcpy(e + fam->at_comefrom, &comefrom, sizeof(comefrom));
		break;
	}
	default:
		/* inside the matches or the target: a size, name or data byte */
		if (*target_offset > fam->entry_size && *target_offset < *next_offset) {
			struct xt_entry_match *m = (void *)(e + fam->entry_size);

			switch (rn(3)) {
			case 0: m->u.match_size = edge(m->u.match_size); break;
			case 1: m->u.user.name[rn(4)] ^= 1 << rn(7); break;
			default: m->u.user.revision = rn(4); break;
			}
		} else if (*next_offset > *target_offset + 2) {
			struct xt_entry_target *tg = (void *)(e + *target_offset);

			if (rn(2))
				tg->u.target_size = edge(tg->u.target_size);
			else
				*(int32_t *)tg->data = (int32_t)edge(*(uint32_t *)tg->data);
		}
	}
}

/* one case: "<i> <table> <kind> <errno> [CHANGED]"; 1 if CHANGED */
static int fuzz_case(uint64_t seed, unsigned int i, int *changed_total)
{
	struct table *tbl;
	unsigned int kind, ti;
	struct buf req = { 0 };
	struct tb t;
	int err = 0, herr, changed = 0;
	bool applied = false;

	rs = (seed ^ fam->salt) * 1000003ull + i;
	detail[0] = 0;
	ti = rn(ntables);
	tbl = &tables[ti];
	kind = rn(sizeof(kinds) / sizeof(kinds[0]));

	if (kind <= 4) {
		struct ipt_replace *r;
		socklen_t len;
		unsigned int k, nflip;

		build(&t, tbl, rn(3) != 0);
		tb_replace(&t, &req, tbl->name, tbl->hooks, num_entries(tbl->name));
		/* room for a longer optlen than the blob */
		buf_append(&req, zeros, sizeof(zeros));
		req.len -= sizeof(zeros);
		r = (void *)req.data;
		len = req.len;
		switch (kind) {
		case 0:
			nflip = 1 + rn(8);
			for (k = 0; k < nflip; k++)
				((unsigned char *)r->entries)[rn(r->size)] ^= 1 << rn(8);
			break;
		case 1:
			switch (rn(7)) {
			case 0: r->num_entries = spare_the_guest(edge(r->num_entries),
								 sizeof(unsigned int));
				snprintf(detail, sizeof(detail), "num_entries=%#x", r->num_entries); break;
			case 1: r->size = spare_the_guest(edge(r->size), 1);
				snprintf(detail, sizeof(detail), "size=%#x", r->size); break;
			case 2: k = rn(NF_INET_NUMHOOKS); r->hook_entry[k] = edge(0);
				snprintf(detail, sizeof(detail), "hook_entry[%u]=%#x", k, r->hook_entry[k]); break;
			case 3: k = rn(NF_INET_NUMHOOKS); r->underflow[k] = edge(0);
				snprintf(detail, sizeof(detail), "underflow[%u]=%#x", k, r->underflow[k]); break;
			case 4: r->num_counters = spare_the_guest(edge(r->num_counters),
								  sizeof(struct xt_counters));
				snprintf(detail, sizeof(detail), "num_counters=%#x", r->num_counters); break;
			case 5: r->valid_hooks = rnd() & ALL_HOOKS;
				snprintf(detail, sizeof(detail), "valid_hooks=%#x", r->valid_hooks); break;
			default: r->valid_hooks = edge(r->valid_hooks);
				snprintf(detail, sizeof(detail), "valid_hooks=%#x", r->valid_hooks); break;
			}
			break;
		case 2:
			mutate_entry(r, &t);
			break;
		case 3:
			switch (rn(3)) {
			case 0: len = rn(sizeof(*r) + 8); break;
			case 1: len -= 1 + rn(r->size); break;
			default: len += 1 + rn(255); break;
			}
			snprintf(detail, sizeof(detail), "optlen=%u/%zu", len, req.len);
			break;
		default:
			if (rn(2))
				r->name[rn(8)] ^= 1 << rn(7);
			else
				memset(r->name, 'x', sizeof(r->name));	/* no NUL */
			break;
		}
		err = send_replace(&req, len, kind == 1 && !rn(8));
		applied = !err;
		tb_free(&t);
	} else if (kind == 5) {
		unsigned int n = num_entries(tbl->name);
		socklen_t len;
		struct xt_counters_info *c;

		switch (rn(4)) {
		case 0: n = edge(n) % 100000; break;
		case 1: break;
		default: n = rn(n + 2); break;
		}
		tb_counters(&req, tbl->name, n, 1, 100);
		buf_append(&req, zeros, sizeof(zeros));
		req.len -= sizeof(zeros);
		c = (void *)req.data;
		len = req.len;
		if (!rn(3))
			len = rn(2) ? rn(len + 1) : len + 1 + rn(200);
		if (!rn(5))
			c->name[rn(8)] ^= 1 << rn(7);
		if (!rn(5))
			c->num_counters = edge(c->num_counters);
		err = setsockopt(sock, fam->level, fam->so_add_counters, req.data, len) ?
			errno : 0;
		/* accepted counters change only counters: nothing to restore */
	} else if (kind == 6) {
		struct ipt_getinfo info;
		struct ipt_get_entries *g;
		unsigned int size;
		socklen_t len;

		get_info(tbl->name, &info);
		size = info.size;
		switch (rn(4)) {
		case 0: size = edge(size) & 0xfffff; break;
		case 1: break;
		default: size = rn(size + 64); break;
		}
		len = sizeof(*g) + size;
		if (!rn(3))
			len = rn(2) ? rn(len + 1) : len + 1 + rn(300);
		g = calloc(1, sizeof(*g) + (size > len ? size : len) + 4096);
		snprintf(g->name, sizeof(g->name), "%s", tbl->name);
		if (!rn(6))
			g->name[rn(8)] ^= 1 << rn(7);
		g->size = size;
		err = getsockopt(sock, fam->level, fam->so_entries, g, &len) ? errno : 0;
		free(g);
	} else if (kind == 7) {
		struct ipt_getinfo info[2];
		socklen_t len = sizeof(info[0]);

		memset(info, 0, sizeof(info));
		snprintf(info[0].name, sizeof(info[0].name), "%s", tbl->name);
		if (rn(2))
			len = rn(2) ? rn(len) : len + 1 + rn(sizeof(info[0]) - 1);
		if (!rn(3))
			info[0].name[rn(8)] ^= 1 << rn(7);
		err = getsockopt(sock, fam->level, fam->so_info, info, &len) ? errno : 0;
	} else {
		struct xt_get_revision rv[2];
		socklen_t len = sizeof(rv[0]);

		memset(rv, 0, sizeof(rv));
		snprintf(rv[0].name, sizeof(rv[0].name), "%s",
			 fam->rev_names[rn(fam->nrev_names)]);
		rv[0].revision = rn(5);
		if (!rn(4))
			len = rn(len + 8);
		err = getsockopt(sock, fam->level, rn(2) ? fam->so_rev_target :
				 fam->so_rev_match, rv, &len) ? errno : 0;
	}
	buf_free(&req);

	if (applied) {
		/* back to the committed rules for the next case */
		int e2 = commit_base(tbl);

		if (e2) {
			printf("%u %s %s ok RESTORE-FAILED %s\n", i, tbl->name,
			       kinds[kind], err_name(e2));
			return 1;
		}
	} else if (kind <= 4) {
		uint64_t h = table_hash(tbl->name, &herr);

		if (herr || h != tbl->base_hash)
			changed = 1;
	}
	printf("%u %s %s%s%s %s%s\n", i, tbl->name, kinds[kind], detail[0] ? ":" : "",
	       detail, err_name(err), changed ? " CHANGED" : "");
	*changed_total += changed;
	return 0;
}

int fuzz(uint64_t seed, unsigned int n, unsigned int first)
{
	unsigned int i, k, traffic_bad = 0;
	int changed = 0, bad = 0, herr, tx;
	time_t t0 = time(NULL);

	for (k = 0; k < ntables; k++) {
		int err = commit_base(&tables[k]);

		if (err) {
			printf("cannot commit the %s rules: %s\n", tables[k].name,
			       err_name(err));
			return 2;
		}
		tables[k].base_hash = table_hash(tables[k].name, &herr);
		tables[k].base_entries = num_entries(tables[k].name);
	}
	tx = traffic_setup();
	if (!traffic_ok(tx)) {
		printf("traffic BROKEN before the first case\n");
		return 2;
	}
	for (i = first; i < first + n; i++) {
		bad += fuzz_case(seed, i, &changed);
		if ((i + 1) % 500 == 0 || i + 1 == first + n) {
			int ok = traffic_ok(tx);

			printf("traffic %s after case %u\n", ok ? "ok" : "BROKEN", i);
			traffic_bad += !ok;
			fflush(stdout);
		}
	}
	/* the committed rules, byte for byte, in every table */
	for (k = 0; k < ntables; k++) {
		uint64_t h = table_hash(tables[k].name, &herr);

		if (herr || h != tables[k].base_hash) {
			printf("table %s not the committed rules at the end\n", tables[k].name);
			bad++;
		}
	}
	fprintf(stderr, "summary (%s): %u cases in %ld s, %d changed a table while "
		"refused, %u traffic checks broken, %d other errors\n", fam->name, n,
		(long)(time(NULL) - t0), changed, traffic_bad, bad);
	return changed || traffic_bad || bad;
}

