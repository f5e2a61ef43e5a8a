// SPDX-License-Identifier: GPL-2.0
/*
 * The tables the helper serves (ip_tables' five: filter, nat, mangle,
 * raw, security; each created on first use, as ip_tables creates them from
 * their iptable_<name> templates), and ip6_tables' five beside them; the
 * sockopts on them are sockopt.c's.
 *
 * Every network namespace has its own five of each family (struct
 * ipt_ns: one per namespace and family), made when a request first comes
 * from it (only the initial one's IPv4 filter table exists from the
 * start) and forgotten, both families', when the module says it died.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

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
	return backend.ops->read_counters(backend.ctx, t->netns,
					  t->family->nfproto, t->index, c, n);
}

int ipt_backend_restore_counters(const struct ipt_stored_table *t,
				 struct xt_counters *c, unsigned int n)
{
	if (!backend.ops || !backend.ops->restore_counters)
		return 0;
	return backend.ops->restore_counters(backend.ctx, t->netns,
					     t->family->nfproto, t->index, c,
					     n);
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

bool ipt_backend_ipv6(void)
{
	return backend.ops && backend.ops->ipv6 &&
	       backend.ops->ipv6(backend.ctx);
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

/* The namespaces' tables known, per family, the initial namespace's IPv4
 * first (ipt_init()). */
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

static size_t ns_pos(uint64_t id, const struct ipt_family *family)
{
	size_t i;

	for (i = 0; i < nss.n; i++)
		if (nss.v[i]->id == id && nss.v[i]->family == family)
			return i;
	return SIZE_MAX;
}

struct ipt_ns *ipt_ns_get(uint64_t id, const struct ipt_family *family)
{
	size_t i = ns_pos(id, family);
	struct ipt_ns *ns;

	if (i != SIZE_MAX)
		return nss.v[i];
	if (vec_reserve(&nss.v, &nss.cap, nss.n + 1))
		return NULL;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return NULL;
	ns->id = id;
	ns->family = family;
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

int ipt_use_netns(uint64_t netns, unsigned int nfproto)
{
	const struct ipt_family *family = ipt_family_of(nfproto);
	struct ipt_ns *ns;

	if (!family)
		return -EINVAL;
	/* as ip_tables (ip6_tables) where no table was made */
	if (netns != EBPF_NETNS_INIT && !ipt_backend_namespaces())
		return -ENOENT;
	if (family != &ipt_family_ipv4 && !ipt_backend_ipv6())
		return -ENOENT;
	ns = ipt_ns_get(netns, family);
	if (!ns)
		return -ENOMEM;
	cur = ns;
	return 0;
}

const struct ipt_family *ipt_current_family(void)
{
	return cur->family;
}

int ipt_netns_gone(uint64_t netns)
{
	bool known = false, had = false;
	size_t i = 0;

	if (netns == EBPF_NETNS_INIT)
		return 0;
	/* both families' tables: the namespace took both with it */
	while (i < nss.n) {
		struct ipt_ns *ns = nss.v[i];

		if (ns->id != netns) {
			i++;
			continue;
		}
		known = true;
		had |= ns->n_made;
		/* the order of namespaces is free */
		nss.v[i] = nss.v[--nss.n];
		if (cur == ns)
			cur = nss.v[0];
		ns_free(ns);
	}
	if (!known)
		return 0;
	if (backend.ops && backend.ops->forget)
		backend.ops->forget(backend.ctx, netns);
	if (had)
		tables_generation++;
	return had;
}

static void note_made(const struct ipt_stored_table *t)
{
	/* exists: t is its */
	struct ipt_ns *ns = ipt_ns_get(t->netns, t->family);
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
			t->family = ns->family;
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

	return t && ipt_blob_present(&t->blob) ? t : NULL;
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
 * ipt_table_use(): xt_find_table_lock() runs the iptable_<name> (or
 * ip6table_<name>) template's table_init(): the built-in chains with
 * ACCEPT policies.  -ENOENT too for a table the backend cannot enforce
 * (the tc and netfilter mechanisms: filter only), as from ip_tables
 * without the iptable_<name> module; ENOMEM from the commit: the
 * namespace's budget.
 */
int ipt_table_use(const char *name, struct ipt_stored_table **out)
{
	struct ipt_stored_table *t = ipt_table_slot(name);
	struct ipt_blob initial;
	int err;

	*out = t;
	if (!t)
		return -ENOENT;
	if (ipt_blob_present(&t->blob))
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
		log_info("%s: table %s created\n", t->family->tool, t->name);
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
		log_err("%s: reading the rule counters failed (%d)\n",
			t->family->tool, err);
	return err;
}

static struct ipt_table_view view_of(const struct ipt_stored_table *t,
				     const struct ipt_blob *b)
{
	struct ipt_table_view v = {
		.name = t->name,
		.netns = t->netns,
		.family = t->family->nfproto,
		.index = t->index,
		.entries = b->entries,
		.size = b->size,
		.num_entries = b->num_entries,
		.valid_hooks = t->valid_hooks,
		.writeback = b->writeback,
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
	if (old && ipt_blob_present(&t->blob) && !retired) {
		err = ipt_table_read_counters(t, old);
		if (err)
			goto fail;
	}
	err = backend_commit(&v, why, sizeof(why));
	if (err == -IPT_BACKEND_NEED_CONNTRACK)
		goto fail;	/* main.c asks the module, then we are asked again */
	if (err) {
		log_err("%s: table %s not replaced: %s (%d)\n",
			t->family->tool, t->name,
			why[0] ? why : "the enforcement backend refused it",
			err);
		goto fail;
	}

	/* the old rules' counts to the end: they run no more (without old
	 * counters wanted, the backend only lets go of them) */
	if (retired) {
		bool want = old && ipt_blob_present(&t->blob);

		if (want)
			memcpy(old, t->base, t->blob.num_entries * sizeof(*old));
		want = want && t->committed;
		err = backend.ops->read_retired_counters(backend.ctx, t->netns,
			t->family->nfproto, t->index,
			want ? old : NULL, want ? t->blob.num_entries : 0);
		/* the new rules are in: as ip_tables when it cannot copy the
		 * old counters out, the commit stands */
		if (err)
			log_err("%s: reading the replaced rules' counters failed (%d)\n",
				t->family->tool, err);
	}
	ipt_blob_free(&t->blob);
	free(t->base);
	free(nb->writeback);	/* the install's alone */
	nb->writeback = NULL;
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
 * xt_alloc_initial_table() (xt_repldata.h) for iptable_<name> (or
 * ip6table_<name>): one ACCEPT policy per hook of the table in hook
 * order, then the ERROR tail, laid one after the other in @buf as in a
 * replace blob; it goes through translate_table() like any table, and so
 * does ours.
 */
static int build_initial_table(const struct ipt_stored_table *t,
			       struct ipt_blob *out)
{
	const struct ipt_family *f = t->family;
	const unsigned int policy = f->entry_size +
		XT_ALIGN(sizeof(struct xt_standard_target));
	const unsigned int tail = f->entry_size +
		XT_ALIGN(sizeof(struct xt_error_target));
	union {	/* room for ip6_tables' larger entries */
		unsigned char bytes[NF_INET_NUMHOOKS *
			(sizeof(struct ip6t_entry) +
			 XT_ALIGN(sizeof(struct xt_standard_target))) +
			sizeof(struct ip6t_entry) +
			XT_ALIGN(sizeof(struct xt_error_target))];
		struct ip6t_entry align;
	} buf;
	struct xt_standard_target *st;
	struct xt_error_target *et;
	struct ipt_replace repl;
	unsigned int hook, n = 0, bytes = 0;

	memset(&buf, 0, sizeof(buf));
	memset(&repl, 0, sizeof(repl));
	strcpy(repl.name, t->name);
	repl.valid_hooks = t->valid_hooks;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		unsigned char *e = buf.bytes + bytes;

		if (!(t->valid_hooks & (1 << hook)))
			continue;
		repl.hook_entry[hook] = bytes;
		repl.underflow[hook] = bytes;
		ipt_e_set_offsets(f, e, f->entry_size, policy);
		st = (void *)(e + f->entry_size);
		st->target.u.user.target_size = XT_ALIGN(sizeof(*st));
		/* XT_STANDARD_TARGET is "": the zeroed name already says so */
		st->verdict = -NF_ACCEPT - 1;
		bytes += policy;
		n++;
	}
	ipt_e_set_offsets(f, buf.bytes + bytes, f->entry_size, tail);
	et = (void *)(buf.bytes + bytes + f->entry_size);
	et->target.u.user.target_size = XT_ALIGN(sizeof(*et));
	strcpy(et->target.u.user.name, XT_ERROR_TARGET);
	strcpy(et->errorname, "ERROR");
	bytes += tail;

	repl.num_entries = n + 1;
	repl.size = bytes;
	return ipt_translate_family(f, &repl, buf.bytes, out);
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
	cur = ipt_ns_get(EBPF_NETNS_INIT, &ipt_family_ipv4);
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

	if (t->committed || !ipt_blob_present(&t->blob))
		return 0;
	/* Commit a copy: ipt_table_commit() takes ownership on success. */
	b = t->blob;
	b.lent = false;
	b.z = NULL;
	b.zsize = 0;
	b.writeback = NULL;	/* t->blob's, if any: every entry written back */
	b.entries = bigmem_alloc(b.size);	/* as ipt_translate()'s */
	if (!b.entries)
		return -ENOMEM;
	err = ipt_blob_copy(&t->blob, b.entries);
	if (!err)
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
