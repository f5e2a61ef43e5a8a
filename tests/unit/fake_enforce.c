// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>

#include "fake_enforce.h"

struct fake_enforce fake;

static int fake_commit(void *ctx, const struct ipt_table_view *t, char *err,
		       size_t err_len);
static int fake_read_counters(void *ctx, uint64_t netns, unsigned int family,
			      unsigned int index, struct xt_counters *c,
			      unsigned int n);

static bool fake_kernel_checks(void *ctx)
{
	return ((struct fake_enforce *)ctx)->kernel_checks;
}

static unsigned int fake_tables(void *ctx)
{
	return ((struct fake_enforce *)ctx)->tables;
}

static bool fake_namespaces(void *ctx)
{
	return ((struct fake_enforce *)ctx)->namespaces;
}

static bool fake_ipv6(void *ctx)
{
	return ((struct fake_enforce *)ctx)->ipv6;
}

static void fake_forget(void *ctx, uint64_t netns)
{
	if (ctx != &fake || netns == 1)
		abort();	/* the initial namespace never goes */
	fake.forgotten = netns;
	fake.forgets++;
}

static int fake_restore_counters(void *ctx, uint64_t netns,
				 unsigned int family, unsigned int index,
				 struct xt_counters *c, unsigned int n)
{
	unsigned int i;

	if (ctx != &fake)
		abort();
	if (fake.parked_n > sizeof(fake.parked) / sizeof(fake.parked[0]))
		abort();
	if (netns != 1 || family != NFPROTO_IPV4 ||
	    index != fake.parked_index || !fake.parked_n ||
	    n != fake.parked_n)
		return 0;
	for (i = 0; i < n; i++) {
		c[i].pcnt += fake.parked[i].pcnt;
		c[i].bcnt += fake.parked[i].bcnt;
	}
	fake.parked_added++;
	return 0;
}

static const struct ipt_backend_ops fake_backend = {
	.commit = fake_commit,
	.read_counters = fake_read_counters,
	.restore_counters = fake_restore_counters,
	.kernel_checks = fake_kernel_checks,
	.tables = fake_tables,
	.namespaces = fake_namespaces,
	.ipv6 = fake_ipv6,
	.forget = fake_forget,
};

void fake_reset(void)
{
	free(fake.entries);
	free(fake.counts);
	memset(&fake, 0, sizeof(fake));
	ipt_set_backend(&fake_backend, &fake);
}

void fake_count(unsigned int idx, uint64_t pkts, uint64_t bytes)
{
	if (idx >= fake.num_entries)
		abort();
	fake.counts[idx].pcnt += pkts;
	fake.counts[idx].bcnt += bytes;
}

static int fake_commit(void *ctx, const struct ipt_table_view *t, char *err,
		       size_t err_len)
{
	unsigned char *copy;
	struct xt_counters *counts;

	if (ctx != &fake)
		abort();	/* ipt/ must hand back what it was given */
	if (fake.fail_commit) {
		snprintf(err, err_len, "fake backend told to fail");
		return fake.fail_commit;
	}
	if (t->index >= 5 || (t->index && !(fake.tables & (1u << t->index))))
		abort();	/* ipt/ asked for a table we do not enforce */
	if (t->netns != 1 && !fake.namespaces)
		abort();	/* ... or a namespace */
	if (t->family != NFPROTO_IPV4 && !fake.ipv6)
		abort();	/* ... or a family */
	if (t->netns == fake.gone_netns) {
		snprintf(err, err_len, "fake namespace gone");
		return -ESRCH;
	}
	fake.netns = t->netns;
	fake.family = t->family;
	if (t->netns != 1) {	/* counted nowhere */
		fake.commits++;
		return 0;
	}
	copy = malloc(t->size ? t->size : 1);
	counts = calloc(t->num_entries ? t->num_entries : 1, sizeof(*counts));
	if (!copy || !counts)
		abort();
	/* Reading all of it lets ASan catch a view that lies about sizes. */
	memcpy(copy, t->entries, t->size);
	memset(fake.writeback, 0, sizeof(fake.writeback));
	fake.writeback_given = t->writeback;
	if (t->writeback) {	/* all of it, for ASan, as the module reads it */
		const volatile unsigned char *w = t->writeback;
		size_t i, n = (t->num_entries + 7) / 8;

		for (i = 0; i < n; i++) {
			unsigned char byte = w[i];

			if (i < sizeof(fake.writeback))
				fake.writeback[i] = byte;
		}
	}
	free(fake.entries);
	if (t->index || t->family != NFPROTO_IPV4) {
		/* another table: nothing counted in it */
		if (t->family == NFPROTO_IPV4)
			fake.other_entries[t->index] = t->num_entries;
		free(counts);
		counts = fake.counts;
	} else {
		free(fake.counts);
	}
	if (fake.rewrite_at && fake.rewrite_at <= t->size)
		((unsigned char *)t->entries)[fake.rewrite_at - 1] =
			fake.rewrite_byte;
	fake.entries = copy;
	fake.counts = counts;
	fake.size = t->size;
	if (!t->index && t->family == NFPROTO_IPV4)
		fake.num_entries = t->num_entries;
	fake.valid_hooks = t->valid_hooks;
	memcpy(fake.hook_entry, t->hook_entry, sizeof(fake.hook_entry));
	memcpy(fake.underflow, t->underflow, sizeof(fake.underflow));
	snprintf(fake.name, sizeof(fake.name), "%s", t->name);
	fake.commits++;
	return 0;
}

static int fake_read_counters(void *ctx, uint64_t netns, unsigned int family,
			      unsigned int index, struct xt_counters *c,
			      unsigned int n)
{
	unsigned int i;

	if (ctx != &fake || index >= 5 || (netns != 1 && !fake.namespaces))
		abort();
	if (netns != 1 || family != NFPROTO_IPV4)
		return 0;	/* counted nowhere */
	if (fake.fail_read)
		return fake.fail_read;
	/* as load/commit.c: nothing committed or adopted, nothing counted;
	 * else the helper must ask for the committed entries */
	if (index)
		return !fake.other_entries[index] ||
		       n == fake.other_entries[index] ? 0 : -EINVAL;
	/* As load/commit.c: nothing committed or adopted yet, nothing counted. */
	if (!fake.counts)
		return 0;
	/* The helper must ask for exactly the committed table's entries. */
	if (n != fake.num_entries)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		c[i].pcnt += fake.counts[i].pcnt;
		c[i].bcnt += fake.counts[i].bcnt;
	}
	return 0;
}
