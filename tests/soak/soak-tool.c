// SPDX-License-Identifier: GPL-2.0
/*
 * soak-tool: the guest-side programs of `make soak` (tests/soak/).
 *
 *   soak-tool fuzz SEED N     N malformed and mutated iptables sockopt
 *                             requests (case i is a function of SEED and i
 *                             alone), one line each:
 *                               <i> <table> <kind>[:detail] <errno|ok> [CHANGED]
 *                             then "summary ..." and the traffic checks.
 *   soak-tool probe STOPFILE  UDP probes over lo until STOPFILE exists:
 *                             127.0.0.1:9998 (the rules accept it) and
 *                             :9999 (the rules drop it), ~400 pairs a
 *                             second; prints the counts.  While
 *                             STOPFILE.pause exists it sends nothing and
 *                             STOPFILE.counts holds "ACCEPTED DROPPED" sent.
 *   soak-tool hash TABLE      the FNV-1a hash of TABLE's GET_ENTRIES,
 *                             counters zeroed
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
 * enforced ("traffic ok").  Run against ip_tables and then ebpfilter in
 * the same guest with the same SEED, the lines must agree
 * (tests/soak/guest/sockopt-fuzz.sh compares them).
 *
 * Built statically with tests/lib/ipt_builder.c (make -C tests tools).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "ipt_builder.h"

#define ACC_PORT 9998
#define DROP_PORT 9999

static int sock;
static const char zeros[256];

static const char *err_name(int err)
{
	const char *n;

	if (!err)
		return "ok";
	n = strerrorname_np(err);
	return n ? n : "E?";
}

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
	static const uint32_t e[] = { 0, 1, 2, 4, 8, 0x7fffffff, 0x80000000,
				      0xffffffff, 0xfffffff0, 0x10000, 112, 152 };

	switch (rn(4)) {
	case 0: return e[rn(sizeof(e) / sizeof(e[0]))];
	case 1: return v + 1 + rn(8);
	case 2: return v - 1 - rn(8);
	default: return (uint32_t)rnd();
	}
}

/* ---- tables and their committed rules ---- */
#define NAT_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_IN) | \
		   (1 << NF_INET_LOCAL_OUT) | (1 << NF_INET_POST_ROUTING))
#define ALL_HOOKS ((1 << NF_INET_NUMHOOKS) - 1)
#define RAW_HOOKS ((1 << NF_INET_PRE_ROUTING) | (1 << NF_INET_LOCAL_OUT))

static struct table {
	const char *name;
	unsigned int hooks;
	uint64_t base_hash;	/* of the committed rules */
	unsigned int base_entries;
} tables[] = {
	{ .name = "filter", .hooks = FILTER_HOOKS },
	{ .name = "nat", .hooks = NAT_HOOKS },
	{ .name = "mangle", .hooks = ALL_HOOKS },
	{ .name = "raw", .hooks = RAW_HOOKS },
	{ .name = "security", .hooks = FILTER_HOOKS },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static void rule_udp_port(struct tb *t, unsigned int port, int verdict)
{
	static struct ipt_ip lo_udp;
	struct xt_udp u = { .spts = { 0, 0xffff } };

	lo_udp = ip_udp;
	strcpy(lo_udp.outiface, "lo");
	memset(lo_udp.outiface_mask, 0xff, 3);
	u.dpts[0] = u.dpts[1] = port;
	tb_begin(t, &lo_udp);
	tb_match(t, "udp", 0, &u, sizeof(u));
	tb_std(t, verdict);
}

/*
 * @rich: the committed rules (a tcp rule, an icmp rule, a comment, a jump
 * to a user chain with a udp rule; filter's OUTPUT: the probe's rules);
 * else the empty layout (ACCEPT policies).
 */
static void build(struct tb *t, const struct table *tbl, int rich)
{
	bool nat = !strcmp(tbl->name, "nat");
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct xt_comment_info c = { .comment = "soak" };
	unsigned char icmp[4] = { 8, 0, 0xff, 0 };
	unsigned int h;

	tb_init(t);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(tbl->hooks & (1 << h)))
			continue;
		tb_hook(t, h);
		if (rich) {
			if (!strcmp(tbl->name, "filter") && h == NF_INET_LOCAL_OUT) {
				rule_udp_port(t, DROP_PORT, V_DROP);
				rule_udp_port(t, ACC_PORT, V_ACCEPT);
			}
			tb_begin(t, &ip_tcp);
			tb_match(t, "tcp", 0, &tcp, sizeof(tcp));
			tb_match(t, "comment", 0, &c, sizeof(c));
			tb_fallthrough(t);
			tb_begin(t, &ip_icmp);
			tb_match(t, "icmp", 0, icmp, sizeof(icmp));
			tb_fallthrough(t);
			if (h == NF_INET_LOCAL_OUT) {
				tb_begin(t, NULL);
				tb_jump(t, "SOAK", false);
			}
		}
		/* nat's policies: DROP is refused there */
		tb_policy(t, h, V_ACCEPT);
	}
	if (rich) {
		struct xt_udp u = { .spts = { 0, 0xffff }, .dpts = { 5000, 5100 } };

		tb_chain(t, "SOAK");
		tb_begin(t, &ip_udp);
		tb_match(t, "udp", 0, &u, sizeof(u));
		tb_std(t, nat ? V_ACCEPT : V_DROP);
		tb_chain_end(t);
	}
	tb_finish(t);
}

/* ---- requests ---- */
static int get_info(const char *name, struct ipt_getinfo *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	return getsockopt(sock, SOL_IP, IPT_SO_GET_INFO, info, &len) ? errno : 0;
}

/* @table's entries hashed, counters zeroed; 0 on error (with *err) */
static uint64_t table_hash(const char *table, int *err)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *g;
	uint64_t h = 0xcbf29ce484222325ull;
	socklen_t len;
	unsigned int off, i;

	*err = get_info(table, &info);
	if (*err)
		return 0;
	len = sizeof(*g) + info.size;
	g = calloc(1, len);
	snprintf(g->name, sizeof(g->name), "%s", table);
	g->size = info.size;
	if (getsockopt(sock, SOL_IP, IPT_SO_GET_ENTRIES, g, &len)) {
		*err = errno;
		free(g);
		return 0;
	}
	for (off = 0; off + sizeof(struct ipt_entry) <= g->size;) {
		struct ipt_entry *e = (void *)((char *)g->entrytable + off);

		memset(&e->counters, 0, sizeof(e->counters));
		if (!e->next_offset)
			break;
		off += e->next_offset;
	}
	for (i = 0; i < g->size; i++)
		h = (h ^ ((unsigned char *)g->entrytable)[i]) * 0x100000001b3ull;
	free(g);
	return h;
}

static unsigned int num_entries(const char *table)
{
	struct ipt_getinfo info;

	return get_info(table, &info) ? 0 : info.num_entries;
}

/* SET_REPLACE of @req (its counters pointer made valid) with optlen @len */
static int send_replace(struct buf *req, socklen_t len, bool bad_ptr)
{
	struct ipt_replace *r = (void *)req->data;
	struct xt_counters *old;
	int err;

	old = calloc(r->num_counters < 100000 ? r->num_counters + 1 : 1, sizeof(*old));
	r->counters = bad_ptr ? NULL : (r->num_counters < 100000 ? old : NULL);
	err = setsockopt(sock, SOL_IP, IPT_SO_SET_REPLACE, req->data, len) ? errno : 0;
	r->counters = NULL;
	free(old);
	return err;
}

/* commit @tbl's committed rules; 0 or errno */
static int commit_base(struct table *tbl)
{
	struct buf req = { 0 };
	struct tb t;
	int err;

	build(&t, tbl, 1);
	tb_replace(&t, &req, tbl->name, tbl->hooks, num_entries(tbl->name));
	err = send_replace(&req, req.len, false);
	tb_free(&t);
	buf_free(&req);
	return err;
}

/* ---- traffic: is filter's OUTPUT still enforcing the probe's rules? ---- */
static int rx[2];	/* bound to ACC_PORT, DROP_PORT */

static int bind_udp(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (s < 0 || bind(s, (void *)&a, sizeof(a))) {
		perror("bind");
		exit(2);
	}
	return s;
}

static void drain(int s)
{
	char b[64];

	while (recv(s, b, sizeof(b), 0) > 0)
		;
}

/* one probe to @port; 1 if it arrived within @ms */
static int probe_one(int tx, int idx, unsigned int port, int ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct pollfd p = { .fd = rx[idx], .events = POLLIN };
	char b[64];

	drain(rx[idx]);
	if (sendto(tx, "soak", 4, 0, (void *)&a, sizeof(a)) < 0)
		return 0;	/* EPERM: dropped on the way out */
	if (poll(&p, 1, ms) <= 0)
		return 0;
	return recv(rx[idx], b, sizeof(b), 0) > 0;
}

static int traffic_ok(int tx)
{
	int acc = probe_one(tx, 0, ACC_PORT, 500);
	int drop = probe_one(tx, 1, DROP_PORT, 100);

	return acc && !drop;
}

/* ---- the fuzzer ---- */
static const char *kinds[] = { "replace-flip", "replace-hdr", "replace-entry",
			       "replace-len", "replace-name", "counters",
			       "get-entries", "get-info", "revision" };

/* the offsets of @t's entries */
static unsigned int entry_offsets(const struct buf *b, unsigned int *off, unsigned int max)
{
	unsigned int n = 0, o = 0;

	while (n < max && o + sizeof(struct ipt_entry) <= b->len) {
		const struct ipt_entry *e = (const void *)(b->data + o);

		off[n++] = o;
		if (e->next_offset < sizeof(*e))
			break;
		o += e->next_offset;
	}
	return n;
}

static void mutate_entry(struct ipt_replace *r, struct tb *t)
{
	unsigned int off[64], n = entry_offsets(&t->b, off, 64);
	struct ipt_entry *e = (void *)((char *)r->entries + off[rn(n)]);
	unsigned char *p = (unsigned char *)e;

	switch (rn(8)) {
	case 0: e->target_offset = edge(e->target_offset); break;
	case 1: e->next_offset = edge(e->next_offset); break;
	case 2: e->ip.proto = rnd(); e->ip.invflags = rnd(); break;
	case 3: e->ip.flags = rnd(); e->ip.iniface[rn(IFNAMSIZ)] = rnd(); break;
	case 4: e->comefrom = rnd(); break;
	default:
		/* inside the matches or the target: a size, name or data byte */
		if (e->target_offset > sizeof(*e) && e->target_offset < e->next_offset) {
			struct xt_entry_match *m = (void *)e->elems;

			switch (rn(3)) {
			case 0: m->u.match_size = edge(m->u.match_size); break;
			case 1: m->u.user.name[rn(4)] ^= 1 << rn(7); break;
			default: m->u.user.revision = rn(4); break;
			}
		} else if (e->next_offset > e->target_offset + 2) {
			struct xt_entry_target *tg = (void *)(p + e->target_offset);

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

	rs = seed * 1000003ull + i;
	detail[0] = 0;
	ti = rn(NTABLES);
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
			case 0: r->num_entries = edge(r->num_entries);
				snprintf(detail, sizeof(detail), "num_entries=%#x", r->num_entries); break;
			case 1: r->size = edge(r->size);
				snprintf(detail, sizeof(detail), "size=%#x", r->size); break;
			case 2: k = rn(NF_INET_NUMHOOKS); r->hook_entry[k] = edge(0);
				snprintf(detail, sizeof(detail), "hook_entry[%u]=%#x", k, r->hook_entry[k]); break;
			case 3: k = rn(NF_INET_NUMHOOKS); r->underflow[k] = edge(0);
				snprintf(detail, sizeof(detail), "underflow[%u]=%#x", k, r->underflow[k]); break;
			case 4: r->num_counters = edge(r->num_counters);
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
		err = setsockopt(sock, SOL_IP, IPT_SO_SET_ADD_COUNTERS, req.data, len) ?
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
		err = getsockopt(sock, SOL_IP, IPT_SO_GET_ENTRIES, g, &len) ? errno : 0;
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
		err = getsockopt(sock, SOL_IP, IPT_SO_GET_INFO, info, &len) ? errno : 0;
	} else {
		static const char *names[] = { "tcp", "udp", "icmp", "comment",
					       "multiport", "mark", "MARK", "DNAT",
					       "SNAT", "MASQUERADE", "CT", "TTL", "" };
		struct xt_get_revision rv[2];
		socklen_t len = sizeof(rv[0]);

		memset(rv, 0, sizeof(rv));
		snprintf(rv[0].name, sizeof(rv[0].name), "%s",
			 names[rn(sizeof(names) / sizeof(names[0]))]);
		rv[0].revision = rn(5);
		if (!rn(4))
			len = rn(len + 8);
		err = getsockopt(sock, SOL_IP, rn(2) ? IPT_SO_GET_REVISION_TARGET :
				 IPT_SO_GET_REVISION_MATCH, rv, &len) ? errno : 0;
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

static int fuzz(uint64_t seed, unsigned int n)
{
	unsigned int i, k, traffic_bad = 0;
	int changed = 0, bad = 0, herr, tx;
	time_t t0 = time(NULL);

	for (k = 0; k < NTABLES; k++) {
		int err = commit_base(&tables[k]);

		if (err) {
			printf("cannot commit the %s rules: %s\n", tables[k].name,
			       err_name(err));
			return 2;
		}
		tables[k].base_hash = table_hash(tables[k].name, &herr);
		tables[k].base_entries = num_entries(tables[k].name);
	}
	rx[0] = bind_udp(ACC_PORT);
	rx[1] = bind_udp(DROP_PORT);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (!traffic_ok(tx)) {
		printf("traffic BROKEN before the first case\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		bad += fuzz_case(seed, i, &changed);
		if ((i + 1) % 500 == 0 || i + 1 == n) {
			int ok = traffic_ok(tx);

			printf("traffic %s after case %u\n", ok ? "ok" : "BROKEN", i);
			traffic_bad += !ok;
			fflush(stdout);
		}
	}
	/* the committed rules, byte for byte, in every table */
	for (k = 0; k < NTABLES; k++) {
		uint64_t h = table_hash(tables[k].name, &herr);

		if (herr || h != tables[k].base_hash) {
			printf("table %s not the committed rules at the end\n", tables[k].name);
			bad++;
		}
	}
	fprintf(stderr, "summary: %u cases in %ld s, %d changed a table while refused, "
		"%u traffic checks broken, %d other errors\n", n,
		(long)(time(NULL) - t0), changed, traffic_bad, bad);
	return changed || traffic_bad || bad;
}

/* ---- the traffic probe ---- */
static int probe(const char *stopfile)
{
	unsigned long acc = 0, acc_lost = 0, drop = 0, drop_leaked = 0;
	char pause[4096], counts[4096];
	struct stat st;
	int tx;

	snprintf(pause, sizeof(pause), "%s.pause", stopfile);
	snprintf(counts, sizeof(counts), "%s.counts", stopfile);

	rx[0] = bind_udp(ACC_PORT);
	rx[1] = bind_udp(DROP_PORT);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	while (stat(stopfile, &st)) {
		acc++;
		if (!probe_one(tx, 0, ACC_PORT, 1000)) {
			acc_lost++;
			fprintf(stderr, "probe: accepted packet %lu lost at %ld\n", acc,
				(long)time(NULL));
		}
		drop++;
		if (probe_one(tx, 1, DROP_PORT, 20)) {
			drop_leaked++;
			fprintf(stderr, "probe: dropped packet %lu got through at %ld\n",
				drop, (long)time(NULL));
		}
		/* paced: the probe must not starve the guest's one CPU */
		usleep(2000);
		if (!stat(pause, &st)) {
			FILE *f = fopen(counts, "w");

			/* STOPFILE.pause: stop sending, say what was sent */
			fprintf(f, "%lu %lu\n", acc, drop);
			fclose(f);
			while (!stat(pause, &st))
				usleep(20000);
			unlink(counts);
		}
	}
	printf("probe: accept %lu sent %lu lost; drop %lu sent %lu leaked\n",
	       acc, acc_lost, drop, drop_leaked);
	return 0;
}

int main(int argc, char **argv)
{
	int herr;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sock = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (sock < 0) {
		perror("socket");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[1], "fuzz"))
		return fuzz(strtoull(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "probe"))
		return probe(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "hash")) {
		uint64_t h = table_hash(argv[2], &herr);

		if (herr) {
			printf("%s\n", err_name(herr));
			return 1;
		}
		printf("%016llx\n", (unsigned long long)h);
		return 0;
	}
	fprintf(stderr, "usage: soak-tool fuzz SEED N | probe STOPFILE | hash TABLE\n");
	return 2;
}
