// SPDX-License-Identifier: GPL-2.0
/*
 * The state snapshot: what a restarted helper needs to serve and enforce
 * the same tables with the same counters.  vault/state_store.c keeps it
 * in the vault, which the module holds across helper restarts without
 * looking inside.
 *
 * Layout (host byte order, no padding), in two parts that can be saved
 * apart, so that ADD_COUNTERS rewrites only the second:
 *
 *   tables:   struct snap_header   magic, version, number of tables
 *             then per table (every namespace's, each namespace's of
 *             each family in the order they were made):
 *             struct snap_table    namespace, name, hooks, entry count,
 *                                  blob size, family, deflated size
 *             blob                 the entries, as GET_ENTRIES returns them,
 *                                  raw deflated (ipt/blob_z.c) when the
 *                                  deflated size is not 0
 *   counters: per table, in the same order:
 *             struct xt_counters[num_entries], the base counters
 *
 * A snapshot is the two parts one after the other.
 *
 * On restore the snapshot is untrusted input like any SET_REPLACE: it
 * goes through the same translate_table() checks before it is committed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ebpfilter/proto.h>

#include "ipt/backend.h"
#include "ipt/ipt.h"
#include "ipt/table.h"
#include "lib/bigmem.h"
#include "lib/log.h"

#define SNAP_MAGIC	0x53545049u	/* "IPTS" on little endian */
#define SNAP_VERSION	4	/* 3: the family of each table; 4: deflated */
/*
 * Blobs deflated, up to this size: the records of small tables are what
 * many namespaces hold (100 rules: ~24 KiB of entries); a bigger table's
 * every change would pay for deflating it and its every GET_ENTRIES for
 * inflating it, for memory that is not per namespace.  (At 256 KiB a
 * 1,000-rule table was deflated: iptables -A on top of it took 2.3 ms more
 * a call under TCG, bench/results-calls-6.12..., 2026-12-06.)
 */
#define SNAP_DEFLATE_MAX	(64u * 1024)

struct snap_header {
	uint32_t magic;
	uint32_t version;
	uint32_t num_tables;
	uint32_t reserved;
};

struct snap_table {
	uint64_t netns;
	char name[XT_TABLE_MAXNAMELEN];
	uint32_t valid_hooks;
	uint32_t num_entries;
	uint32_t size;
	uint32_t hook_entry[NF_INET_NUMHOOKS];
	uint32_t underflow[NF_INET_NUMHOOKS];
	uint32_t family;	/* NFPROTO_IPV4 or NFPROTO_IPV6 */
	uint32_t zsize;		/* 0: the blob as it is; else deflated, bytes */
	uint32_t reserved;
};


int ipt_state_save_table(const struct ipt_stored_table *t, struct buf *out)
{
	struct snap_table st;
	size_t at;
	int err;

	memset(&st, 0, sizeof(st));
	st.netns = t->netns;
	st.family = t->family->nfproto;
	strcpy(st.name, t->name);
	st.valid_hooks = t->valid_hooks;
	st.num_entries = t->blob.num_entries;
	st.size = t->blob.size;
	memcpy(st.hook_entry, t->blob.hook_entry, sizeof(st.hook_entry));
	memcpy(st.underflow, t->blob.underflow, sizeof(st.underflow));
	st.zsize = t->blob.zsize;	/* lent from a deflated record: as it is */
	at = out->len;
	err = buf_append(out, &st, sizeof(st));
	if (err)
		return err;
	if (t->blob.z)
		return buf_append(out, t->blob.z, t->blob.zsize);
	if (t->blob.size > 0 && t->blob.size <= SNAP_DEFLATE_MAX) {
		/* room for it shorter; ipt_deflate() says 0 if it is not */
		unsigned char *z = buf_append_zero(out, t->blob.size);
		size_t zn;

		if (!z)
			return -ENOMEM;
		zn = ipt_deflate(t->blob.entries, t->blob.size, z, t->blob.size);
		if (zn) {
			out->len -= t->blob.size - zn;
			st.zsize = (uint32_t)zn;
			memcpy(out->data + at + offsetof(struct snap_table, zsize),
			       &st.zsize, sizeof(st.zsize));
			return 0;
		}
		out->len -= t->blob.size;
	}
	return buf_append(out, t->blob.entries, t->blob.size);
}

int ipt_state_save_header(uint32_t num_tables, struct buf *out)
{
	struct snap_header h = {
		.magic = SNAP_MAGIC,
		.version = SNAP_VERSION,
		.num_tables = num_tables,
	};

	return buf_append(out, &h, sizeof(h));
}

/*
 * Every namespace's tables, each namespace's in the order they were made:
 * a restore makes them in it again, and the vault's records follow it.
 */
#define for_each_stored_table(j, ns, i, t)				\
	for ((j) = 0; ((ns) = ipt_ns_at(j)); (j)++)			\
		for ((i) = 0; ((t) = ipt_ns_table_at(ns, i)); (i)++)

int ipt_state_for_each_table(int (*fn)(const struct ipt_stored_table *t,
				       void *arg), void *arg)
{
	struct ipt_stored_table *t;
	struct ipt_ns *ns;
	unsigned int i;
	size_t j;
	int err;

	for_each_stored_table(j, ns, i, t) {
		err = fn(t, arg);
		if (err)
			return err;
	}
	return 0;
}

/* Does @rec's header describe @t's committed blob? */
static bool record_is_table(const struct ipt_stored_table *t,
			    const unsigned char *rec, size_t len)
{
	struct snap_table st;

	if (len < sizeof(st))
		return false;
	memcpy(&st, rec, sizeof(st));
	return len - sizeof(st) == (st.zsize ? st.zsize : t->blob.size) &&
	       st.size == t->blob.size && st.netns == t->netns &&
	       st.family == t->family->nfproto &&
	       !strncmp(st.name, t->name, sizeof(st.name)) &&
	       st.valid_hooks == t->valid_hooks &&
	       st.num_entries == t->blob.num_entries &&
	       !memcmp(st.hook_entry, t->blob.hook_entry, sizeof(st.hook_entry)) &&
	       !memcmp(st.underflow, t->blob.underflow, sizeof(st.underflow));
}

bool ipt_state_lends_from(const struct ipt_stored_table *t,
			  const unsigned char *rec, size_t len)
{
	const unsigned char *at = rec + sizeof(struct snap_table);

	return t->blob.lent && len >= sizeof(struct snap_table) &&
	       (t->blob.entries == at || t->blob.z == at) &&
	       record_is_table(t, rec, len);
}

/* Do the record's entries at @at (deflated: @zsize bytes) equal @t's? */
static bool record_holds(const struct ipt_stored_table *t,
			 const unsigned char *at, uint32_t zsize)
{
	size_t n = t->blob.size;
	const unsigned char *a = t->blob.entries, *b = at;
	unsigned char *mine = NULL, *theirs = NULL;
	bool same = false;

	if (!a) {	/* lent from another record */
		mine = bigmem_alloc(n ? n : 1);
		if (!mine || ipt_blob_copy(&t->blob, mine))
			goto out;
		a = mine;
	}
	if (zsize) {
		theirs = bigmem_alloc(n ? n : 1);
		if (!theirs || ipt_inflate(at, zsize, theirs, n))
			goto out;
		b = theirs;
	}
	same = !memcmp(a, b, n);
out:
	if (mine)
		bigmem_free(mine);
	if (theirs)
		bigmem_free(theirs);
	return same;
}

void ipt_state_lend_tables(const unsigned char *(*rec_of)(size_t k, size_t *len,
							 void *arg),
			   void *arg, bool verify)
{
	struct ipt_stored_table *t;
	struct ipt_ns *ns;
	unsigned int i;
	size_t k = 0, n, j;

	for_each_stored_table(j, ns, i, t) {
		const unsigned char *rec = rec_of(k++, &n, arg);
		struct snap_table st;
		unsigned char *at;

		if (!rec || !ipt_blob_present(&t->blob) || !t->committed ||
		    ipt_state_lends_from(t, rec, n) ||
		    !record_is_table(t, rec, n))
			continue;
		memcpy(&st, rec, sizeof(st));
		at = (unsigned char *)rec + sizeof(struct snap_table);
		if (verify && !record_holds(t, at, st.zsize))
			continue;
		ipt_blob_free_entries(&t->blob);
		/* read only from here on: the record is the vault's */
		if (st.zsize) {
			t->blob.z = at;
			t->blob.zsize = st.zsize;
		} else {
			t->blob.entries = at;
		}
		t->blob.lent = true;
	}
}

int ipt_state_own_tables(void)
{
	struct ipt_stored_table *t;
	struct ipt_ns *ns;
	unsigned int i;
	size_t j;

	for_each_stored_table(j, ns, i, t) {
		unsigned char *p;

		if (!t->blob.lent)
			continue;
		p = bigmem_alloc(t->blob.size ? t->blob.size : 1);
		if (!p)
			return -ENOMEM;
		if (ipt_blob_copy(&t->blob, p)) {
			bigmem_free(p);
			return -EIO;
		}
		t->blob.entries = p;
		t->blob.z = NULL;
		t->blob.zsize = 0;
		t->blob.lent = false;
	}
	return 0;
}

struct save_tables {
	struct buf *out;
	uint32_t n;
};

static int save_one(const struct ipt_stored_table *t, void *arg)
{
	struct save_tables *s = arg;

	s->n++;
	return ipt_state_save_table(t, s->out);
}

int ipt_state_save_tables(struct buf *out)
{
	struct save_tables s = { .out = out };
	size_t hdr_at = out->len;
	int err;

	err = ipt_state_save_header(0, out);
	if (!err)
		err = ipt_state_for_each_table(save_one, &s);
	if (err) {
		out->len = hdr_at;
		return err;
	}
	memcpy(out->data + hdr_at + offsetof(struct snap_header, num_tables),
	       &s.n, sizeof(s.n));
	return 0;
}

int ipt_state_save_counters(struct buf *out)
{
	const struct ipt_stored_table *t;
	struct ipt_ns *ns;
	unsigned int i;
	size_t k;

	for_each_stored_table(k, ns, i, t) {
		size_t n;

		/*
		 * Only the base counters (ADD_COUNTERS): what the BPF programs
		 * counted stays in their counter map, which outlives this
		 * helper in the vault; a restarted helper adds it back
		 * (ipt_state_restore()), so no packet counted between two
		 * snapshots is lost.
		 */
		n = t->blob.num_entries * sizeof(struct xt_counters);
		if (n && buf_append(out, t->base, n))
			return -ENOMEM;
	}
	return 0;
}

int ipt_state_save(struct buf *out)
{
	size_t at = out->len;
	int err = ipt_state_save_tables(out);

	if (!err)
		err = ipt_state_save_counters(out);
	if (err)
		out->len = at;
	return err;
}

/* Take @n bytes at *@pos of @len, or NULL when they are not there. */
static const unsigned char *take(const unsigned char *data, size_t len,
				 size_t *pos, size_t n)
{
	const unsigned char *p = data + *pos;

	if (n > len - *pos)
		return NULL;
	*pos += n;
	return p;
}

/* A table read from a snapshot and validated, not yet committed. */
struct parsed_table {
	struct ipt_stored_table *t;
	struct ipt_blob blob;
	struct xt_counters *base;
};

static void parsed_free(struct parsed_table *p)
{
	ipt_blob_free(&p->blob);
	free(p->base);
	p->base = NULL;
}

static int parse_table(const unsigned char *data, size_t len, size_t *pos,
		       struct parsed_table *out)
{
	const unsigned char *blob;
	unsigned char *raw = NULL;
	struct ipt_replace repl;
	const struct ipt_family *family;
	struct snap_table st;
	struct ipt_ns *ns;
	const void *p;
	int err;

	p = take(data, len, pos, sizeof(st));
	if (!p)
		return -EINVAL;
	memcpy(&st, p, sizeof(st));
	st.name[sizeof(st.name) - 1] = '\0';
	if (st.netns != EBPF_NETNS_INIT && !ipt_backend_namespaces())
		return -EINVAL;
	family = ipt_family_of(st.family);
	if (!family || (family != &ipt_family_ipv4 && !ipt_backend_ipv6()))
		return -EINVAL;
	ns = ipt_ns_get(st.netns, family);
	if (!ns)
		return -ENOMEM;
	out->t = ipt_ns_table_slot(ns, st.name);
	if (!out->t || st.valid_hooks != out->t->valid_hooks)
		return -EINVAL;
	/* deflate's best is ~1032:1: a larger size is a lie */
	if (st.zsize && (st.size > IPT_XT_MAX_TABLE_SIZE ||
			 st.size / 1032 > st.zsize))
		return -EINVAL;
	blob = take(data, len, pos, st.zsize ? st.zsize : st.size);
	/* its counters come later; they must be there before we translate */
	if (!blob ||
	    st.num_entries > (len - *pos) / sizeof(struct xt_counters))
		return -EINVAL;
	if (st.zsize) {
		raw = bigmem_alloc(st.size ? st.size : 1);
		if (!raw)
			return -ENOMEM;
		if (ipt_inflate(blob, st.zsize, raw, st.size)) {
			bigmem_free(raw);
			return -EINVAL;
		}
		blob = raw;
	}

	memset(&repl, 0, sizeof(repl));
	strcpy(repl.name, st.name);
	repl.valid_hooks = st.valid_hooks;
	repl.num_entries = st.num_entries;
	repl.size = st.size;
	memcpy(repl.hook_entry, st.hook_entry, sizeof(repl.hook_entry));
	memcpy(repl.underflow, st.underflow, sizeof(repl.underflow));
	err = ipt_translate_family(family, &repl, blob, &out->blob);
	if (raw)
		bigmem_free(raw);
	if (err)
		return err;
	out->base = calloc(st.num_entries ? st.num_entries : 1,
			   sizeof(*out->base));
	if (!out->base) {
		ipt_blob_free(&out->blob);
		return -ENOMEM;
	}
	return 0;
}

static int parse_counters(const unsigned char *data, size_t len, size_t *pos,
			  struct parsed_table *p)
{
	size_t n = (size_t)p->blob.num_entries * sizeof(*p->base);
	const unsigned char *c = take(data, len, pos, n);

	if (!c)
		return -EINVAL;
	memcpy(p->base, c, n);
	return 0;
}

int ipt_state_restore(const void *data, size_t len)
{
	struct parsed_table *parsed = NULL;
	const unsigned char *d = data;
	unsigned int i, n = 0;
	struct snap_header h;
	size_t pos = 0;
	int err = -EINVAL;

	if (len < sizeof(h))
		goto out;
	memcpy(&h, d, sizeof(h));
	pos = sizeof(h);
	if (h.magic != SNAP_MAGIC || h.version != SNAP_VERSION ||
	    h.num_tables > (len - pos) / sizeof(struct snap_table))
		goto out;
	parsed = calloc(h.num_tables ? h.num_tables : 1, sizeof(*parsed));
	if (!parsed) {
		err = -ENOMEM;
		goto out;
	}
	/* All of it must be valid before any of it is committed. */
	for (err = 0; !err && n < h.num_tables; n++) {
		err = parse_table(d, len, &pos, &parsed[n]);
		for (i = 0; !err && i < n; i++)
			if (parsed[i].t == parsed[n].t)
				err = -EINVAL;	/* a table twice */
	}
	for (i = 0; !err && i < n; i++)
		err = parse_counters(d, len, &pos, &parsed[i]);
	if (!err && pos != len)
		err = -EINVAL;
	for (i = 0; !err && i < n; i++) {
		/* The counts of the rules in force (adopted from the vault),
		 * unless the backend carries them over after the switch:
		 * then nothing counted meanwhile is lost.
		 */
		if (!ipt_backend_adopts())
			err = ipt_backend_read_counters(parsed[i].t,
							parsed[i].base,
							parsed[i].blob.num_entries);
		/* and what they counted until a change that was never
		 * acknowledged replaced them */
		if (!err)
			err = ipt_backend_restore_counters(parsed[i].t,
							   parsed[i].base,
							   parsed[i].blob.num_entries);
		if (!err)
			err = ipt_table_restore_commit(parsed[i].t,
						       &parsed[i].blob,
						       parsed[i].base);
		/* the namespace died while no helper ran: forget it */
		if (err == -ESRCH && parsed[i].t->netns != EBPF_NETNS_INIT) {
			uint64_t gone = parsed[i].t->netns;
			unsigned int j;

			for (j = i + 1; j < n; j++)
				if (parsed[j].t && parsed[j].t->netns == gone)
					parsed[j].t = NULL;
			ipt_netns_gone(gone);
			err = 0;
		}
		while (i + 1 < n && !parsed[i + 1].t)
			i++;
	}
out:
	for (i = 0; i < n; i++)
		parsed_free(&parsed[i]);
	free(parsed);
	if (err == -IPT_BACKEND_NEED_CONNTRACK)
		return err;	/* asked again once conntrack is on */
	if (err) {
		/*
		 * Serve and enforce what we show: the initial tables rather
		 * than whatever a previous helper left in force that we can
		 * no longer describe.
		 */
		log_err("iptables: the saved state is unusable (%d); starting from the initial tables\n",
			err);
		ipt_table_commit_pending();
		return err;
	}
	/* A snapshot with fewer tables leaves the others initial. */
	return ipt_table_commit_pending();
}
