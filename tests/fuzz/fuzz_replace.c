// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the helper's iptables parser and validator
 * (umh/ipt/): an input is a sequence of requests, each answered as the
 * helper would answer the kernel, starting from a fresh filter table.
 *
 * Input: repeated { u8 op; u8 fix; u16 len; u8 payload[len] }.  @fix asks
 * for a few header fields to be made right so that the fuzzer gets past
 * the first checks more often (see apply_fixes()).  @op's top bit
 * (OP_IPV6) serves the request in the IPv6 tables (ip6_tables' ABI,
 * struct ip6t_entry); its other bits choose the operation, as they did
 * before there were two families (128 is a multiple of OP_MAX).
 *
 * Besides ASan/UBSan, every accepted table must satisfy the properties a
 * restarted helper relies on: the stored blob passes the same validator
 * again unchanged, and a state snapshot restores to the same GET_ENTRIES
 * bytes and the same snapshot.  A violation aborts (a finding).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter.h>

#include <ebpfilter/proto.h>

#include "fake_enforce.h"
#include "ipt/ipt.h"
#include "ipt/table.h"

enum op {
	OP_REPLACE,
	OP_ADD_COUNTERS,
	OP_GET_INFO,
	OP_GET_ENTRIES,
	OP_REVISION_MATCH,
	OP_REVISION_TARGET,
	OP_RESTORE,
	OP_COUNT_PACKETS,
	OP_MAX
};

#define OP_IPV6			0x80

#define FIX_NUM_COUNTERS	0x01	/* replace/add: the current count */
#define FIX_SIZE		0x02	/* replace: size = what follows */
#define FIX_NAME_HOOKS		0x04	/* "filter", its valid_hooks */
#define FIX_GET_SIZE		0x08	/* get entries: the current size */

static void die(const char *what)
{
	fprintf(stderr, "fuzz_replace: property violated: %s\n", what);
	abort();
}

static unsigned int current_entries(unsigned int *size)
{
	const struct ipt_stored_table *t = ipt_table_find("filter");

	if (!t)
		die("the filter table is gone");
	if (size)
		*size = t->blob.size;
	return t->blob.num_entries;
}

static void apply_fixes(uint8_t op, uint8_t fix, unsigned char *p, size_t len)
{
	if (op == OP_REPLACE && len >= sizeof(struct ipt_replace)) {
		struct ipt_replace r;

		memcpy(&r, p, sizeof(r));
		if (fix & FIX_NUM_COUNTERS)
			r.num_counters = current_entries(NULL);
		if (fix & FIX_SIZE)
			r.size = len - sizeof(r);
		if (fix & FIX_NAME_HOOKS) {
			memset(r.name, 0, sizeof(r.name));
			strcpy(r.name, "filter");
			r.valid_hooks = 0xe;
		}
		memcpy(p, &r, sizeof(r));
	} else if (op == OP_ADD_COUNTERS &&
		   len >= sizeof(struct xt_counters_info)) {
		struct xt_counters_info c;

		memcpy(&c, p, sizeof(c));
		if (fix & FIX_NUM_COUNTERS)
			c.num_counters = (len - sizeof(c)) /
					 sizeof(struct xt_counters);
		if (fix & FIX_NAME_HOOKS) {
			memset(c.name, 0, sizeof(c.name));
			strcpy(c.name, "filter");
		}
		memcpy(p, &c, sizeof(c));
	} else if (op == OP_GET_ENTRIES &&
		   len >= sizeof(struct ipt_get_entries)) {
		struct ipt_get_entries g;
		unsigned int size;

		memcpy(&g, p, sizeof(g));
		current_entries(&size);
		if (fix & FIX_GET_SIZE)
			g.size = size;
		if (fix & FIX_NAME_HOOKS) {
			memset(g.name, 0, sizeof(g.name));
			strcpy(g.name, "filter");
		}
		memcpy(p, &g, sizeof(g));
	}
}

/*
 * Serve the next requests in the initial namespace's tables of @family,
 * whose filter table is made if it was not yet (IPv6's, at its first use,
 * or after a restore of a snapshot without it), as a GET_INFO would.
 */
static void use_family(unsigned int family)
{
	struct ipt_stored_table *t;

	if (ipt_use_netns(EBPF_NETNS_INIT, family) ||
	    ipt_table_use("filter", &t))
		die("the initial namespace's filter table is not served");
}

/* Does the fake hold counts a snapshot does not (IPv4 filter's)? */
static bool backend_counted(void)
{
	unsigned int i;

	for (i = 0; fake.counts && i < fake.num_entries; i++)
		if (fake.counts[i].pcnt || fake.counts[i].bcnt)
			return true;
	return false;
}

/*
 * The properties of a committed table (see the top of the file); the
 * backend holds it if it was the last commit (@replaced: not a restore,
 * which commits every table, of both families).
 */
static void check_committed(bool replaced, unsigned int family)
{
	const struct ipt_stored_table *t = ipt_table_find("filter");
	struct buf snap = { 0 }, snap2 = { 0 }, a = { 0 }, b = { 0 };
	struct ipt_get_entries g = { .name = "filter" };
	struct ipt_replace r;
	struct ipt_blob again;
	/* what the backend counted is in the base counters once restored:
	 * the second snapshot is the same only if it counted nothing (a
	 * REPLACE of IPv6's filter leaves IPv4's counts where they are) */
	bool counted = backend_counted();

	/* The enforcement backend got exactly the stored table. */
	if (replaced &&
	    (fake.size != t->blob.size || fake.family != family ||
	     (family == NFPROTO_IPV4 &&
	      fake.num_entries != t->blob.num_entries) ||
	     memcmp(fake.entries, t->blob.entries, fake.size)))
		die("the backend's table differs from the stored one");

	memset(&r, 0, sizeof(r));
	strcpy(r.name, "filter");
	r.valid_hooks = t->valid_hooks;
	r.num_entries = t->blob.num_entries;
	r.size = t->blob.size;
	memcpy(r.hook_entry, t->blob.hook_entry, sizeof(r.hook_entry));
	memcpy(r.underflow, t->blob.underflow, sizeof(r.underflow));
	if (ipt_translate_family(t->family, &r, t->blob.entries, &again))
		die("a stored table fails validation");
	if (again.size != t->blob.size ||
	    memcmp(again.entries, t->blob.entries, again.size))
		die("validating a stored table changes it");
	ipt_blob_free(&again);

	g.size = t->blob.size;
	if (ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g),
			    sizeof(g) + g.size, &a) || a.len != g.size)
		die("GET_ENTRIES of the current table fails");
	if (ipt_state_save(&snap))
		die("state save fails");
	if (ipt_init(true) || ipt_state_restore(snap.data, snap.len))
		die("state restore fails");
	use_family(family);
	if (ipt_sockopt_get(IPT_SO_GET_ENTRIES, &g, sizeof(g),
			    sizeof(g) + g.size, &b) || a.len != b.len ||
	    memcmp(a.data, b.data, a.len))
		die("a restored table reads back differently");
	if (ipt_state_save(&snap2) || snap.len != snap2.len ||
	    (!counted && memcmp(snap.data, snap2.data, snap.len)))
		die("a restored table saves differently");
	buf_free(&snap);
	buf_free(&snap2);
	buf_free(&a);
	buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf out = { 0 };
	size_t pos = 0;

	fake_reset();
	fake.ipv6 = true;
	if (ipt_init(false))
		die("ipt_init fails");

	while (size - pos >= 4) {
		uint8_t op = (data[pos] & ~OP_IPV6) % OP_MAX, fix = data[pos + 1];
		unsigned int family = data[pos] & OP_IPV6 ? NFPROTO_IPV6 :
					 NFPROTO_IPV4;
		size_t len = data[pos + 2] | (size_t)data[pos + 3] << 8;
		unsigned char *p;
		bool changed = false;
		int r = 0;

		pos += 4;
		if (len > size - pos)
			len = size - pos;
		/* A private copy: the handlers must not rely on alignment. */
		p = malloc(len + 1);
		if (!p)
			abort();
		memcpy(p + 1, data + pos, len);
		pos += len;
		use_family(family);
		apply_fixes(op, fix, p + 1, len);
		buf_reset(&out);

		switch (op) {
		case OP_REPLACE:
			r = ipt_sockopt_set(IPT_SO_SET_REPLACE, p + 1, len, &out,
					    &changed);
			if (!r && out.len % sizeof(struct xt_counters))
				die("odd old-counters reply");
			break;
		case OP_ADD_COUNTERS:
			r = ipt_sockopt_set(IPT_SO_SET_ADD_COUNTERS, p + 1, len,
					    &out, &changed);
			break;
		case OP_GET_INFO:
			r = ipt_sockopt_get(IPT_SO_GET_INFO, p + 1, len,
					    fix & 1 ? len : sizeof(struct ipt_getinfo),
					    &out);
			if (!r && out.len != sizeof(struct ipt_getinfo))
				die("GET_INFO reply size");
			break;
		case OP_GET_ENTRIES: {
			struct ipt_get_entries g;
			size_t user_len = len;

			if (len >= sizeof(g)) {
				memcpy(&g, p + 1, sizeof(g));
				if (fix & 1)
					user_len = sizeof(g) + (size_t)g.size;
			}
			r = ipt_sockopt_get(IPT_SO_GET_ENTRIES, p + 1, len,
					    user_len, &out);
			if (!r && out.len != user_len - sizeof(g))
				die("GET_ENTRIES reply size");
			break;
		}
		case OP_REVISION_MATCH:
		case OP_REVISION_TARGET:
			r = ipt_sockopt_get(op == OP_REVISION_MATCH ?
					    IPT_SO_GET_REVISION_MATCH :
					    IPT_SO_GET_REVISION_TARGET, p + 1,
					    len, sizeof(struct xt_get_revision),
					    &out);
			if (r > 3)
				die("revision out of range");
			break;
		case OP_RESTORE: {
			unsigned int commits = fake.commits;

			if (ipt_init(true))
				die("ipt_init(true) fails");
			ipt_state_restore(p + 1, len);
			use_family(family);
			/* restored or not, what is served is committed */
			if (fake.commits == commits)
				die("nothing committed after a restore");
			changed = true;
			break;
		}
		case OP_COUNT_PACKETS:
			if (len >= 1 && fake.num_entries)
				fake_count(p[1] % fake.num_entries, len, len * 100);
			break;
		}
		if (r > 0 && op != OP_REVISION_MATCH && op != OP_REVISION_TARGET)
			die("positive status");
		if (changed && (op == OP_REPLACE || op == OP_RESTORE))
			check_committed(op == OP_REPLACE, family);
		free(p);
	}
	buf_free(&out);
	return 0;
}
