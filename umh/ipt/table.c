// SPDX-License-Identifier: GPL-2.0
/*
 * The tables the helper serves (only "filter") and the iptables sockopts
 * on them: GET_INFO, GET_ENTRIES, the revision queries, SET_REPLACE and
 * SET_ADD_COUNTERS, answered as ip_tables answers them
 * (net/ipv4/netfilter/ip_tables.c: get_info(), get_entries(),
 * do_replace(), __do_replace(), do_add_counters(), do_ipt_get_ctl()).
 *
 * The module has already made the length checks that precede any copy
 * from user memory; they are repeated here because the request comes
 * over a channel and every field in it is checked where it is used.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ipt/backend.h"
#include "ipt/ipt.h"
#include "ipt/table.h"
#include "lib/log.h"

/* iptable_filter.c: FILTER_VALID_HOOKS */
#define FILTER_VALID_HOOKS ((1 << NF_INET_LOCAL_IN) | \
			    (1 << NF_INET_FORWARD) | \
			    (1 << NF_INET_LOCAL_OUT))

/* The enforcement backend (main.c's, or a test's fake). */
static struct {
	const struct ipt_backend_ops *ops;
	void *ctx;
} backend;

void ipt_set_backend(const struct ipt_backend_ops *ops, void *ctx)
{
	backend.ops = ops;
	backend.ctx = ctx;
}

int ipt_backend_read_counters(struct xt_counters *c, unsigned int n)
{
	if (!backend.ops)
		return -ENODEV;
	return backend.ops->read_counters(backend.ctx, c, n);
}

bool ipt_backend_kernel_checks(void)
{
	return backend.ops && backend.ops->kernel_checks &&
	       backend.ops->kernel_checks(backend.ctx);
}

static int backend_commit(const struct ipt_table_view *v, char *why,
			  size_t why_len)
{
	if (!backend.ops)
		return -ENODEV;
	return backend.ops->commit(backend.ctx, v, why, why_len);
}

static struct ipt_stored_table filter_table = {
	.name = "filter",
	.valid_hooks = FILTER_VALID_HOOKS,
};

struct ipt_stored_table *ipt_table_find(const char *name)
{
	/*
	 * ip_tables would request_module("iptable_%s") first; nat, mangle,
	 * raw and security are tables we do not serve, so for them, as for
	 * any other name, the answer is the same -ENOENT.
	 */
	if (!filter_table.blob.entries || strcmp(name, filter_table.name))
		return NULL;
	return &filter_table;
}

int ipt_table_read_counters(const struct ipt_stored_table *t,
			    struct xt_counters *c)
{
	int err;

	memcpy(c, t->base, t->blob.num_entries * sizeof(*c));
	if (!t->committed)
		return 0;	/* nothing in force yet, nothing counted */
	err = ipt_backend_read_counters(c, t->blob.num_entries);
	if (err)
		log_err("iptables: reading the rule counters failed (%d)\n", err);
	return err;
}

static struct ipt_table_view view_of(const struct ipt_stored_table *t,
				     const struct ipt_blob *b)
{
	struct ipt_table_view v = {
		.name = t->name,
		.entries = b->entries,
		.size = b->size,
		.num_entries = b->num_entries,
		.valid_hooks = t->valid_hooks,
	};

	memcpy(v.hook_entry, b->hook_entry, sizeof(v.hook_entry));
	memcpy(v.underflow, b->underflow, sizeof(v.underflow));
	return v;
}

static unsigned long tables_generation;

unsigned long ipt_tables_generation(void)
{
	return tables_generation;
}

int ipt_table_commit(struct ipt_stored_table *t, struct ipt_blob *nb,
		     const struct xt_counters *base, struct xt_counters *old)
{
	struct ipt_table_view v = view_of(t, nb);
	struct xt_counters *nbase;
	char why[256] = "";
	int err;

	/* Everything that can fail comes before the switch. */
	nbase = calloc(nb->num_entries ? nb->num_entries : 1, sizeof(*nbase));
	if (!nbase)
		return -ENOMEM;
	if (base)
		memcpy(nbase, base, nb->num_entries * sizeof(*nbase));
	if (old && t->blob.entries) {
		err = ipt_table_read_counters(t, old);
		if (err)
			goto fail;
	}
	err = backend_commit(&v, why, sizeof(why));
	if (err == -IPT_BACKEND_NEED_CONNTRACK)
		goto fail;	/* main.c asks the module, then we are asked again */
	if (err) {
		log_err("iptables: table %s not replaced: %s (%d)\n", t->name,
			why[0] ? why : "the enforcement backend refused it",
			err);
		goto fail;
	}

	ipt_blob_free(&t->blob);
	free(t->base);
	t->blob = *nb;
	t->base = nbase;
	t->committed = true;
	tables_generation++;
	memset(nb, 0, sizeof(*nb));
	return 0;
fail:
	free(nbase);
	return err;
}

/*
 * xt_alloc_initial_table() (xt_repldata.h) for iptable_filter: one
 * ACCEPT policy per hook in hook order, then the ERROR tail; it goes
 * through translate_table() like any table, and so does ours.
 */
static int build_initial_table(struct ipt_blob *out)
{
	struct initial_standard {
		struct ipt_entry entry;
		struct xt_standard_target target;
	};
	struct initial_error {
		struct ipt_entry entry;
		struct xt_error_target target;
	};
	struct {
		struct initial_standard policy[3];
		struct initial_error tail;
	} tbl;
	struct ipt_replace repl;
	unsigned int hook, i = 0, bytes = 0;

	memset(&tbl, 0, sizeof(tbl));
	memset(&repl, 0, sizeof(repl));
	strcpy(repl.name, filter_table.name);
	repl.valid_hooks = FILTER_VALID_HOOKS;
	repl.num_entries = 4;
	repl.size = sizeof(tbl);

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		struct initial_standard *p;

		if (!(FILTER_VALID_HOOKS & (1 << hook)))
			continue;
		p = &tbl.policy[i++];
		repl.hook_entry[hook] = bytes;
		repl.underflow[hook] = bytes;
		p->entry.target_offset = sizeof(struct ipt_entry);
		p->entry.next_offset = sizeof(*p);
		p->target.target.u.user.target_size = XT_ALIGN(sizeof(p->target));
		/* XT_STANDARD_TARGET is "": the zeroed name already says so */
		p->target.verdict = -NF_ACCEPT - 1;
		bytes += sizeof(*p);
	}
	tbl.tail.entry.target_offset = sizeof(struct ipt_entry);
	tbl.tail.entry.next_offset = sizeof(tbl.tail);
	tbl.tail.target.target.u.user.target_size =
		XT_ALIGN(sizeof(tbl.tail.target));
	strcpy(tbl.tail.target.target.u.user.name, XT_ERROR_TARGET);
	strcpy(tbl.tail.target.errorname, "ERROR");

	return ipt_translate(&repl, &tbl, out);
}

int ipt_init(bool restore_follows)
{
	struct ipt_blob initial;
	int err;

	err = build_initial_table(&initial);
	if (err) {
		log_err("iptables: the initial filter table is invalid (%d)\n",
			err);
		return err;
	}
	ipt_blob_free(&filter_table.blob);
	free(filter_table.base);
	filter_table.base = NULL;
	filter_table.committed = false;

	if (!restore_follows) {
		err = ipt_table_commit(&filter_table, &initial, NULL, NULL);
		if (err)
			ipt_blob_free(&initial);
		return err;
	}

	/* Served as is until the restore commits the previous state. */
	filter_table.base = calloc(initial.num_entries, sizeof(*filter_table.base));
	if (!filter_table.base) {
		ipt_blob_free(&initial);
		return -ENOMEM;
	}
	filter_table.blob = initial;
	return 0;
}

int ipt_table_commit_pending(void)
{
	struct ipt_stored_table *t = &filter_table;
	struct ipt_blob b;
	int err;

	if (t->committed || !t->blob.entries)
		return 0;
	/* Commit a copy: ipt_table_commit() takes ownership on success. */
	b = t->blob;
	b.entries = malloc(b.size);
	if (!b.entries)
		return -ENOMEM;
	memcpy(b.entries, t->blob.entries, b.size);
	err = ipt_table_commit(t, &b, t->base, NULL);
	if (err)
		free(b.entries);
	return err;
}

/* get_info() */
static int get_info(const void *in, size_t in_len, size_t user_len,
		    struct buf *out)
{
	char name[XT_TABLE_MAXNAMELEN];
	const struct ipt_stored_table *t;
	struct ipt_getinfo *info;

	if (user_len != sizeof(struct ipt_getinfo))
		return -EINVAL;
	if (in_len < sizeof(name))
		return -EINVAL;		/* the module sends the name */
	memcpy(name, in, sizeof(name));
	name[sizeof(name) - 1] = '\0';

	t = ipt_table_find(name);
	if (!t)
		return -ENOENT;
	info = buf_append_zero(out, sizeof(*info));
	if (!info)
		return -ENOMEM;
	strcpy(info->name, name);
	info->valid_hooks = t->valid_hooks;
	memcpy(info->hook_entry, t->blob.hook_entry, sizeof(info->hook_entry));
	memcpy(info->underflow, t->blob.underflow, sizeof(info->underflow));
	info->num_entries = t->blob.num_entries;
	info->size = t->blob.size;
	return 0;
}

/*
 * get_entries().  The reply is the entry table only: the module copies it
 * behind the caller's struct ipt_get_entries, which ip_tables does not
 * rewrite either.
 */
static int get_entries(const void *in, size_t in_len, size_t user_len,
		       struct buf *out)
{
	const struct ipt_stored_table *t;
	struct ipt_get_entries get;
	struct xt_counters *c;
	unsigned char *p;
	unsigned int off, i;
	int err;

	if (user_len < sizeof(get) || in_len < sizeof(get))
		return -EINVAL;
	memcpy(&get, in, sizeof(get));
	if (user_len != sizeof(get) + (unsigned long long)get.size)
		return -EINVAL;
	get.name[sizeof(get.name) - 1] = '\0';

	t = ipt_table_find(get.name);
	if (!t)
		return -ENOENT;
	if (get.size != t->blob.size)
		return -EAGAIN;

	c = calloc(t->blob.num_entries, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = ipt_table_read_counters(t, c);
	if (err)
		goto out;
	p = buf_append_zero(out, t->blob.size);
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(p, t->blob.entries, t->blob.size);
	for (off = 0, i = 0; off < t->blob.size; i++) {
		struct ipt_entry *e = (struct ipt_entry *)(p + off);

		memcpy(&e->counters, &c[i], sizeof(c[i]));
		off += e->next_offset;
	}
out:
	free(c);
	return err;
}

/* do_ipt_get_ctl(): IPT_SO_GET_REVISION_MATCH/_TARGET */
static int get_revision(const void *in, size_t in_len, size_t user_len,
			bool target)
{
	struct xt_get_revision rev;

	if (user_len != sizeof(rev) || in_len < sizeof(rev))
		return -EINVAL;
	memcpy(&rev, in, sizeof(rev));
	rev.name[sizeof(rev.name) - 1] = '\0';
	return ipt_ext_revision(rev.name, rev.revision, target);
}

int ipt_sockopt_get(unsigned int optname, const void *in, size_t in_len,
		    size_t user_len, struct buf *out)
{
	switch (optname) {
	case IPT_SO_GET_INFO:
		return get_info(in, in_len, user_len, out);
	case IPT_SO_GET_ENTRIES:
		return get_entries(in, in_len, user_len, out);
	case IPT_SO_GET_REVISION_MATCH:
		return get_revision(in, in_len, user_len, false);
	case IPT_SO_GET_REVISION_TARGET:
		return get_revision(in, in_len, user_len, true);
	default:
		return -EINVAL;
	}
}

/* do_replace() and __do_replace() */
static int replace(const void *in, size_t in_len, struct buf *out)
{
	size_t out_len = out->len;
	struct ipt_stored_table *t;
	struct ipt_replace repl;
	struct xt_counters *old;
	struct ipt_blob nb;
	int err;

	if (in_len < sizeof(repl))
		return -EINVAL;
	memcpy(&repl, in, sizeof(repl));
	if (repl.num_counters >= INT_MAX / sizeof(struct xt_counters))
		return -ENOMEM;
	if (repl.num_counters == 0)
		return -EINVAL;
	if ((unsigned long long)in_len < (unsigned long long)repl.size +
					 sizeof(repl))
		return -EINVAL;
	repl.name[sizeof(repl.name) - 1] = '\0';

	err = ipt_translate(&repl, (const unsigned char *)in + sizeof(repl),
			    &nb);
	if (err)
		return err;

	t = ipt_table_find(repl.name);
	if (!t) {
		err = -ENOENT;
		goto fail;
	}
	/* "You lied!" */
	if (repl.valid_hooks != t->valid_hooks) {
		err = -EINVAL;
		goto fail;
	}
	/* xt_replace_table(): the caller read an older table; libiptc retries. */
	if (repl.num_counters != t->blob.num_entries) {
		err = -EAGAIN;
		goto fail;
	}
	old = buf_append_zero(out, repl.num_counters * sizeof(*old));
	if (!old) {
		err = -ENOMEM;
		goto fail;
	}
	err = ipt_table_commit(t, &nb, NULL, old);
	if (err)
		goto fail;
	return 0;
fail:
	out->len = out_len;
	ipt_blob_free(&nb);
	return err;
}

/* do_add_counters() with xt_copy_counters() */
static int add_counters(const void *in, size_t in_len)
{
	const unsigned char *add = (const unsigned char *)in +
				   sizeof(struct xt_counters_info);
	struct ipt_stored_table *t;
	struct xt_counters_info info;
	unsigned int i;

	if (in_len <= sizeof(info))
		return -EINVAL;
	memcpy(&info, in, sizeof(info));
	info.name[sizeof(info.name) - 1] = '\0';
	if ((unsigned long long)info.num_counters * sizeof(struct xt_counters) !=
	    in_len - sizeof(info))
		return -EINVAL;

	t = ipt_table_find(info.name);
	if (!t)
		return -ENOENT;
	if (t->blob.num_entries != info.num_counters)
		return -EINVAL;
	for (i = 0; i < info.num_counters; i++) {
		struct xt_counters c;

		memcpy(&c, add + i * sizeof(c), sizeof(c));
		t->base[i].bcnt += c.bcnt;
		t->base[i].pcnt += c.pcnt;
	}
	return 0;
}

int ipt_sockopt_set(unsigned int optname, const void *in, size_t in_len,
		    struct buf *out, bool *changed)
{
	int err;

	switch (optname) {
	case IPT_SO_SET_REPLACE:
		err = replace(in, in_len, out);
		break;
	case IPT_SO_SET_ADD_COUNTERS:
		err = add_counters(in, in_len);
		break;
	default:
		return -EINVAL;
	}
	if (!err)
		*changed = true;
	return err;
}
