// SPDX-License-Identifier: GPL-2.0
/*
 * The tables the helper serves (ip_tables' five: filter, nat, mangle,
 * raw, security; each created on first use, as ip_tables creates them from
 * their iptable_<name> templates) and the iptables sockopts on them: GET_INFO, GET_ENTRIES, the revision queries, SET_REPLACE and
 * SET_ADD_COUNTERS, answered as ip_tables answers them
 * (net/ipv4/netfilter/ip_tables.c: get_info(), get_entries(),
 * do_replace(), __do_replace(), do_add_counters(), do_ipt_get_ctl()).
 *
 * Every network namespace has its own five (struct ipt_ns), made when a
 * request first comes from it (only the initial one's filter table exists
 * from the start) and forgotten when the module says it died.
 *
 * The module has already made the length checks that precede any copy
 * from user memory; they are repeated here because the request comes
 * over a channel and every field in it is checked where it is used.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <ebpfilter/proto.h>

#include "ipt/backend.h"
#include "ipt/ipt.h"
#include "ipt/table.h"
#include "lib/bigmem.h"
#include "lib/log.h"
#include "lib/vec.h"

/* iptable_<name>.c's <NAME>_VALID_HOOKS, in IPT_TABLE_NAMES order */
static const unsigned int table_hooks[IPT_NTABLES] = EBPF_CTL_TABLE_HOOKS;

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

int ipt_backend_read_counters(const struct ipt_stored_table *t,
			      struct xt_counters *c, unsigned int n)
{
	if (!backend.ops)
		return -ENODEV;
	return backend.ops->read_counters(backend.ctx, t->netns, t->index, c,
					  n);
}

int ipt_backend_restore_counters(const struct ipt_stored_table *t,
				 struct xt_counters *c, unsigned int n)
{
	if (!backend.ops || !backend.ops->restore_counters)
		return 0;
	return backend.ops->restore_counters(backend.ctx, t->netns, t->index,
					     c, n);
}

bool ipt_backend_adopts(void)
{
	return backend.ops && backend.ops->adopts &&
	       backend.ops->adopts(backend.ctx);
}

bool ipt_backend_namespaces(void)
{
	return backend.ops && backend.ops->namespaces &&
	       backend.ops->namespaces(backend.ctx);
}

/* The tables the backend can enforce (bit per index): filter at least. */
static unsigned int backend_tables(void)
{
	if (!backend.ops || !backend.ops->tables)
		return 1;
	return backend.ops->tables(backend.ctx) | 1;
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

/* The namespaces known, the initial one first (ipt_init()). */
static struct {
	struct ipt_ns **v;
	size_t n, cap;
} nss;

/* The namespace requests are served in (ipt_use_netns()). */
static struct ipt_ns *cur;

/* Changes with every change of the tables (ipt_tables_generation()). */
static unsigned long tables_generation;

struct ipt_ns *ipt_ns_at(size_t i)
{
	return i < nss.n ? nss.v[i] : NULL;
}

static size_t ns_pos(uint64_t id)
{
	size_t i;

	for (i = 0; i < nss.n; i++)
		if (nss.v[i]->id == id)
			return i;
	return SIZE_MAX;
}

struct ipt_ns *ipt_ns_get(uint64_t id)
{
	size_t i = ns_pos(id);
	struct ipt_ns *ns;

	if (i != SIZE_MAX)
		return nss.v[i];
	if (vec_reserve(&nss.v, &nss.cap, nss.n + 1))
		return NULL;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return NULL;
	ns->id = id;
	nss.v[nss.n++] = ns;
	return ns;
}

static void ns_free(struct ipt_ns *ns)
{
	unsigned int i;

	for (i = 0; i < IPT_NTABLES; i++) {
		ipt_blob_free(&ns->tables[i].blob);
		free(ns->tables[i].base);
	}
	free(ns);
}

int ipt_use_netns(uint64_t netns)
{
	struct ipt_ns *ns;

	if (netns != EBPF_NETNS_INIT && !ipt_backend_namespaces())
		return -ENOENT;	/* as ip_tables where no table was made */
	ns = ipt_ns_get(netns);
	if (!ns)
		return -ENOMEM;
	cur = ns;
	return 0;
}

int ipt_netns_gone(uint64_t netns)
{
	size_t i = ns_pos(netns);
	struct ipt_ns *ns;
	bool had;

	if (i == SIZE_MAX || netns == EBPF_NETNS_INIT)
		return 0;
	ns = nss.v[i];
	had = ns->n_made;
	nss.v[i] = nss.v[--nss.n];	/* the order of namespaces is free */
	if (cur == ns)
		cur = nss.v[0];
	ns_free(ns);
	if (backend.ops && backend.ops->forget)
		backend.ops->forget(backend.ctx, netns);
	if (had)
		tables_generation++;
	return had;
}

static void note_made(const struct ipt_stored_table *t)
{
	struct ipt_ns *ns = ipt_ns_get(t->netns);	/* exists: t is its */
	unsigned int i;

	for (i = 0; i < ns->n_made; i++)
		if (ns->made[i] == t->index)
			return;
	ns->made[ns->n_made++] = t->index;
}

struct ipt_stored_table *ipt_ns_table_slot(struct ipt_ns *ns, const char *name)
{
	static const char *const names[IPT_NTABLES] = IPT_TABLE_NAMES;
	unsigned int i;

	for (i = 0; i < IPT_NTABLES; i++) {
		struct ipt_stored_table *t = &ns->tables[i];

		if (strcmp(name, names[i]))
			continue;
		if (!t->valid_hooks) {
			strcpy(t->name, names[i]);
			t->netns = ns->id;
			t->index = i;
			t->valid_hooks = table_hooks[i];
		}
		return t;
	}
	return NULL;
}

struct ipt_stored_table *ipt_table_slot(const char *name)
{
	return ipt_ns_table_slot(cur, name);
}

struct ipt_stored_table *ipt_table_find(const char *name)
{
	struct ipt_stored_table *t = ipt_table_slot(name);

	return t && t->blob.entries ? t : NULL;
}

struct ipt_stored_table *ipt_ns_table_at(struct ipt_ns *ns, unsigned int n)
{
	return n < ns->n_made ? &ns->tables[ns->made[n]] : NULL;
}

struct ipt_stored_table *ipt_table_at(unsigned int n)
{
	return ipt_ns_table_at(cur, n);
}

static int build_initial_table(const struct ipt_stored_table *t,
			       struct ipt_blob *out);

/*
 * The table a request names, made on first use as ip_tables makes it
 * (xt_find_table_lock() runs the iptable_<name> template's table_init():
 * the built-in chains with ACCEPT policies) and put in force, in *@out;
 * -ENOENT for a name ip_tables has no table for, or one the backend
 * cannot enforce (the tc and netfilter mechanisms: filter only), as from
 * ip_tables without the iptable_<name> module; the commit's errno when the
 * backend refuses it (ENOMEM: the namespace's budget).
 */
static int table_use(const char *name, struct ipt_stored_table **out)
{
	struct ipt_stored_table *t = ipt_table_slot(name);
	struct ipt_blob initial;
	int err;

	*out = t;
	if (!t)
		return -ENOENT;
	if (t->blob.entries)
		return 0;	/* made before */
	if (!(backend_tables() & (1u << t->index)) ||
	    build_initial_table(t, &initial))
		return -ENOENT;
	err = ipt_table_commit(t, &initial, NULL, NULL);
	if (err) {
		ipt_blob_free(&initial);
		/* a conntrack request is a retry, not a refusal */
		return err == -IPT_BACKEND_NEED_CONNTRACK || err == -ENOMEM ?
		       err : -ENOENT;
	}
	/* one line per table, not one per container's */
	if (t->netns == EBPF_NETNS_INIT)
		log_info("iptables: table %s created\n", t->name);
	return 0;
}

int ipt_table_read_counters(const struct ipt_stored_table *t,
			    struct xt_counters *c)
{
	int err;

	memcpy(c, t->base, t->blob.num_entries * sizeof(*c));
	if (!t->committed)
		return 0;	/* nothing in force yet, nothing counted */
	err = ipt_backend_read_counters(t, c, t->blob.num_entries);
	if (err)
		log_err("iptables: reading the rule counters failed (%d)\n", err);
	return err;
}

static struct ipt_table_view view_of(const struct ipt_stored_table *t,
				     const struct ipt_blob *b)
{
	struct ipt_table_view v = {
		.name = t->name,
		.netns = t->netns,
		.index = t->index,
		.entries = b->entries,
		.size = b->size,
		.num_entries = b->num_entries,
		.valid_hooks = t->valid_hooks,
	};

	memcpy(v.hook_entry, b->hook_entry, sizeof(v.hook_entry));
	memcpy(v.underflow, b->underflow, sizeof(v.underflow));
	return v;
}

unsigned long ipt_tables_generation(void)
{
	return tables_generation;
}

static int table_commit(struct ipt_stored_table *t, struct ipt_blob *nb,
			const struct xt_counters *base, struct xt_counters *old,
			bool adopt)
{
	struct ipt_table_view v = view_of(t, nb);
	bool retired = backend.ops && backend.ops->read_retired_counters;
	struct xt_counters *nbase;
	char why[256] = "";
	int err;

	v.adopt = adopt;
	/* Everything that can fail comes before the switch. */
	nbase = calloc(nb->num_entries ? nb->num_entries : 1, sizeof(*nbase));
	if (!nbase)
		return -ENOMEM;
	if (base)
		memcpy(nbase, base, nb->num_entries * sizeof(*nbase));
	/* without read_retired_counters, the old counts before the switch:
	 * what the old rules count until it is lost */
	if (old && t->blob.entries && !retired) {
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

	/* the old rules' counts to the end: they run no more (without old
	 * counters wanted, the backend only lets go of them) */
	if (retired) {
		bool want = old && t->blob.entries;

		if (want)
			memcpy(old, t->base, t->blob.num_entries * sizeof(*old));
		want = want && t->committed;
		err = backend.ops->read_retired_counters(backend.ctx, t->netns,
			t->index,
			want ? old : NULL, want ? t->blob.num_entries : 0);
		/* the new rules are in: as ip_tables when it cannot copy the
		 * old counters out, the commit stands */
		if (err)
			log_err("iptables: reading the replaced rules' counters failed (%d)\n",
				err);
	}
	ipt_blob_free(&t->blob);
	free(t->base);
	t->blob = *nb;
	t->base = nbase;
	t->committed = true;
	note_made(t);
	tables_generation++;
	memset(nb, 0, sizeof(*nb));
	return 0;
fail:
	free(nbase);
	return err;
}

int ipt_table_commit(struct ipt_stored_table *t, struct ipt_blob *nb,
		     const struct xt_counters *base, struct xt_counters *old)
{
	return table_commit(t, nb, base, old, false);
}

int ipt_table_restore_commit(struct ipt_stored_table *t, struct ipt_blob *nb,
			     const struct xt_counters *base)
{
	return table_commit(t, nb, base, NULL, true);
}

/*
 * xt_alloc_initial_table() (xt_repldata.h) for iptable_<name>: one ACCEPT
 * policy per hook of the table in hook order, then the ERROR tail, laid
 * one after the other in @buf as in a replace blob; it goes through
 * translate_table() like any table, and so does ours.
 */
static int build_initial_table(const struct ipt_stored_table *t,
			       struct ipt_blob *out)
{
	struct initial_standard {
		struct ipt_entry entry;
		struct xt_standard_target target;
	};
	struct initial_error {
		struct ipt_entry entry;
		struct xt_error_target target;
	};
	union {
		unsigned char bytes[NF_INET_NUMHOOKS * sizeof(struct initial_standard) +
				    sizeof(struct initial_error)];
		struct ipt_entry align;
	} buf;
	struct initial_error *tail;
	struct ipt_replace repl;
	unsigned int hook, n = 0, bytes = 0;

	memset(&buf, 0, sizeof(buf));
	memset(&repl, 0, sizeof(repl));
	strcpy(repl.name, t->name);
	repl.valid_hooks = t->valid_hooks;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		struct initial_standard *p = (void *)(buf.bytes + bytes);

		if (!(t->valid_hooks & (1 << hook)))
			continue;
		repl.hook_entry[hook] = bytes;
		repl.underflow[hook] = bytes;
		p->entry.target_offset = sizeof(struct ipt_entry);
		p->entry.next_offset = sizeof(*p);
		p->target.target.u.user.target_size = XT_ALIGN(sizeof(p->target));
		/* XT_STANDARD_TARGET is "": the zeroed name already says so */
		p->target.verdict = -NF_ACCEPT - 1;
		bytes += sizeof(*p);
		n++;
	}
	tail = (void *)(buf.bytes + bytes);
	tail->entry.target_offset = sizeof(struct ipt_entry);
	tail->entry.next_offset = sizeof(*tail);
	tail->target.target.u.user.target_size = XT_ALIGN(sizeof(tail->target));
	strcpy(tail->target.target.u.user.name, XT_ERROR_TARGET);
	strcpy(tail->target.errorname, "ERROR");
	bytes += sizeof(*tail);

	repl.num_entries = n + 1;
	repl.size = bytes;
	return ipt_translate(&repl, buf.bytes, out);
}

/*
 * Only filter exists from the start (as on a host where iptable_filter is
 * loaded); the other tables are made on first use, or by the restore.
 */
int ipt_init(bool restore_follows)
{
	struct ipt_stored_table *filter;
	struct ipt_blob initial;
	int err;

	while (nss.n)
		ns_free(nss.v[--nss.n]);
	cur = ipt_ns_get(EBPF_NETNS_INIT);
	if (!cur)
		return -ENOMEM;
	filter = ipt_table_slot("filter");
	err = build_initial_table(filter, &initial);
	if (err) {
		log_err("iptables: the initial filter table is invalid (%d)\n",
			err);
		return err;
	}
	if (!restore_follows) {
		err = ipt_table_commit(filter, &initial, NULL, NULL);
		if (err)
			ipt_blob_free(&initial);
		return err;
	}

	/* Served as is until the restore commits the previous state. */
	filter->base = calloc(initial.num_entries, sizeof(*filter->base));
	if (!filter->base) {
		ipt_blob_free(&initial);
		return -ENOMEM;
	}
	filter->blob = initial;
	note_made(filter);
	return 0;
}

static int commit_pending(struct ipt_stored_table *t)
{
	struct ipt_blob b;
	int err;

	if (t->committed || !t->blob.entries)
		return 0;
	/* Commit a copy: ipt_table_commit() takes ownership on success. */
	b = t->blob;
	b.entries = bigmem_alloc(b.size);	/* as ipt_translate()'s */
	if (!b.entries)
		return -ENOMEM;
	memcpy(b.entries, t->blob.entries, b.size);
	err = ipt_table_commit(t, &b, t->base, NULL);
	if (err)
		bigmem_free(b.entries);
	return err;
}

int ipt_table_commit_pending(void)
{
	unsigned int i;
	size_t k;
	int err = 0;

	for (k = 0; k < nss.n; k++)
		for (i = 0; i < IPT_NTABLES && !err; i++)
			err = commit_pending(&nss.v[k]->tables[i]);
	return err;
}

/* get_info() */
static int get_info(const void *in, size_t in_len, size_t user_len,
		    struct buf *out)
{
	char name[XT_TABLE_MAXNAMELEN];
	struct ipt_stored_table *t;
	struct ipt_getinfo *info;
	int err;

	if (user_len != sizeof(struct ipt_getinfo))
		return -EINVAL;
	if (in_len < sizeof(name))
		return -EINVAL;		/* the module sends the name */
	memcpy(name, in, sizeof(name));
	name[sizeof(name) - 1] = '\0';

	err = table_use(name, &t);
	if (err)
		return err;
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
	struct ipt_stored_table *t;
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

	err = table_use(get.name, &t);
	if (err)
		return err;
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

int ipt_sockopt_get(unsigned int optname, const void *in, size_t in_len,
		    size_t user_len, struct buf *out)
{
	switch (optname) {
	case IPT_SO_GET_INFO:
		return get_info(in, in_len, user_len, out);
	case IPT_SO_GET_ENTRIES:
		return get_entries(in, in_len, user_len, out);
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

	/* __do_replace(): xt_counters_alloc() refuses more than
	 * XT_MAX_TABLE_SIZE (512 MiB) of counters, before the table is looked
	 * up and the counters' number compared (make soak's sockopt fuzzer) */
	if ((unsigned long long)repl.num_counters * sizeof(struct xt_counters) >
	    512ULL << 20) {
		err = -ENOMEM;
		goto fail;
	}
	err = table_use(repl.name, &t);
	if (err)
		goto fail;
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
	int err;

	if (in_len <= sizeof(info))
		return -EINVAL;
	memcpy(&info, in, sizeof(info));
	info.name[sizeof(info.name) - 1] = '\0';
	if ((unsigned long long)info.num_counters * sizeof(struct xt_counters) !=
	    in_len - sizeof(info))
		return -EINVAL;

	err = table_use(info.name, &t);
	if (err)
		return err;
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
