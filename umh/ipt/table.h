/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the helper's ip_tables: a validated table ("blob") and the
 * checks that produce one.  ipt.h is the outside (the sockopt handlers);
 * this header ties together the files that implement it:
 *
 *   family.c    what differs between ip_tables' and ip6_tables' entries
 *   validate.c  translate_table(): the structural checks of SET_REPLACE
 *   ext.c       extension lookups and checks, by the descriptors of the
 *               extensions we serve (ext/ext.h)
 *   table.c     the stored tables and the way out to the enforcement
 *               backend (backend.h)
 *   sockopt.c   the sockopt handlers
 *   state.c     the tables serialized for helper restarts
 *               (vault/state_store.c)
 */
#ifndef UMH_IPT_TABLE_H
#define UMH_IPT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "ipt/family.h"
#include "ipt/table_view.h"

/*
 * x_tables.c: xt_alloc_table_info() refuses sizeof(struct xt_table_info)
 * + size >= XT_MAX_TABLE_SIZE, xt_alloc_entry_offsets() more than
 * XT_MAX_TABLE_SIZE / 4 entries; both with -ENOMEM.
 */
#define IPT_XT_MAX_TABLE_SIZE		(512u * 1024 * 1024)
#define IPT_XT_TABLE_INFO_SIZE		72u	/* x86-64 sizeof(xt_table_info) */

/**
 * struct ipt_blob - a table that passed translate_table()
 * @entries:     our own copy of the entries (lib/bigmem.h: freed by
 *               ipt_blob_free(), never free()), in the form GET_ENTRIES
 *               returns them: comefrom as mark_source_chains() left it,
 *               counters zero, extension names and padding zeroed where the
 *               kernel does not copy them back (see ipt_ext_check_normalize())
 * @size:        bytes in @entries
 * @num_entries: number of entries
 * @hook_entry, @underflow: per hook; 0xFFFFFFFF for hooks not in the table
 * @stacksize:   number of ERROR entries (user chains + the tail), what
 *               ip_tables sizes its jump stack with
 * @lent:        @entries are not our copy but the table's saved record in
 *               the vault (ipt_state_lend_tables()), read only: a
 *               committed table's entries are kept once in the helper,
 *               not twice (issue 17's memory per namespace)
 * @z, @zsize:   lent from a deflated record (ipt/state.c): @entries is
 *               NULL and the @zsize bytes at @z inflate to the @size
 *               bytes of entries; read them with ipt_blob_copy()
 * @writeback:   from ipt_translate() until the commit: a bitmap of the
 *               entries (bit i % 8 of byte i / 8) that have a match or
 *               target the kernel checks (ipt_ext_check_normalize()
 *               returned 1): only the kernel can show those as GET_ENTRIES
 *               does, and the kmod install writes back only them
 *               (struct ebpf_ctl_install.writeback).  NULL: every entry.
 *               Freed by the commit and by ipt_blob_free().
 */
struct ipt_blob {
	unsigned char *entries;
	const unsigned char *z;
	unsigned int zsize;
	unsigned int size;
	unsigned int num_entries;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
	unsigned int stacksize;
	bool lent;
	unsigned char *writeback;
};

/*
 * ipt_translate() - validate @repl and the @repl->size bytes at @entries
 * exactly as ip_tables' translate_table() does, in the same order, so the
 * first problem found gives the kernel's errno.  @entries is only read;
 * on success @out holds a fresh copy (free with ipt_blob_free()).
 * The table name and valid_hooks are not checked here (that is
 * __do_replace()'s business, after translation).  ipt_translate() is
 * ipt_translate_family() of IPv4; of IPv6 (ip6_tables' translate_table(),
 * the same steps), @repl is a struct ip6t_replace (the same layout) and
 * the entries are struct ip6t_entry.
 */
int ipt_translate(const struct ipt_replace *repl, const void *entries,
		  struct ipt_blob *out);
int ipt_translate_family(const struct ipt_family *f,
			 const struct ipt_replace *repl, const void *entries,
			 struct ipt_blob *out);
void ipt_blob_free(struct ipt_blob *b);
/* Does @b hold a table (own entries, or lent ones, deflated or not)? */
static inline bool ipt_blob_present(const struct ipt_blob *b)
{
	return b->entries || b->z;
}
/* @b's @size bytes of entries into @dst: 0, or -EIO (a deflated record
 * that does not inflate to exactly them) */
int ipt_blob_copy(const struct ipt_blob *b, void *dst);
/*
 * Deflate @n bytes at @src into @dst (@cap bytes): the deflated length,
 * or 0 if that is no shorter than @n or does not fit (store them as they
 * are).  ipt_inflate(): exactly @n bytes at @dst from the @zn at @src, or
 * -EIO.  zlib's raw deflate, level 1: a record per commit (ipt/state.c).
 */
size_t ipt_deflate(const void *src, size_t n, void *dst, size_t cap);
int ipt_inflate(const void *src, size_t zn, void *dst, size_t n);
/* Only @b's entries (our copy; nothing for lent ones): @b->entries NULL. */
void ipt_blob_free_entries(struct ipt_blob *b);

/*
 * Bounded comparison of an extension name field with @name: the field is
 * @name if its first strlen(@name) + 1 bytes are (the NUL inside the
 * field's XT_EXTENSION_MAXNAMELEN).  Inline, so that a literal's length is
 * a constant: translate asks it three times per entry.
 */
static inline bool ipt_ext_name_is(const char *field, const char *name)
{
	size_t n = strlen(name);

	return n < XT_EXTENSION_MAXNAMELEN && !memcmp(field, name, n + 1);
}

/*
 * find_check_entry() for one entry, after mark_source_chains(): every
 * match, then the target, are looked up (-EINVAL for an unterminated
 * name, -ENOENT or -EPROTOTYPE like xt_find_match()) and checked like
 * xt_check_match()/xt_check_target() (-EINVAL).  @hook_mask is the
 * entry's comefrom.  An extension (or revision) we have no descriptor
 * for passes when ipt_backend_kernel_checks(): the kernel checks it.
 * Each extension that passed is rewritten the way copy_entries_to_user()
 * presents it: the name NUL-padded, the payload's alignment padding
 * zeroed (of those the kernel checks, only the name: the kernel shows
 * their payloads).  0, or 1 when a match or the target is one the kernel
 * checks; -errno.  On an error the entry may be half rewritten: the
 * caller drops the blob.
 */
int ipt_ext_check_normalize(const struct ipt_family *f, void *e,
			    unsigned int hook_mask);

/**
 * struct ipt_stored_table - a table as the helper serves it
 * @name:        "filter", "nat", "mangle", "raw", "security"
 * @index:       its place in IPT_TABLE_NAMES
 * @valid_hooks: the hooks the table has (fixed, like xt_table.valid_hooks)
 * @blob:        the committed rules
 * @base:        per entry: counters the enforcement backend does not hold,
 *               i.e. what ADD_COUNTERS added and what a restored snapshot
 *               brought; the backend's own counts (since the last commit)
 *               are added on every read
 * @committed:   @blob is the one in force (false between ipt_init() with
 *               a restore to follow and that restore)
 * @netns:       the namespace it belongs to (struct ipt_ns.id)
 * @family:      ip_tables' or ip6_tables' (struct ipt_ns.family)
 */
struct ipt_stored_table {
	char name[XT_TABLE_MAXNAMELEN];
	uint64_t netns;
	const struct ipt_family *family;
	unsigned int index;
	unsigned int valid_hooks;
	struct ipt_blob blob;
	struct xt_counters *base;
	bool committed;
};

/**
 * struct ipt_ns - one network namespace's tables of one family, as
 *                 ip_tables (or ip6_tables) has them per namespace (each
 *                 made on first use)
 * @id:     the module's number for it (ebpfilter/proto.h)
 * @family: IPv4's tables or IPv6's: separate, as ip_tables' and
 *          ip6_tables' are
 * @tables: in IPT_TABLE_NAMES order; made or not
 * @made:   the tables made so far (indexes), in the order they were made:
 *          the snapshot keeps it, as the module keeps it for
 *          /proc/net/ip_tables_names
 * @n_made: how many
 */
struct ipt_ns {
	uint64_t id;
	const struct ipt_family *family;
	struct ipt_stored_table tables[IPT_NTABLES];
	unsigned int made[IPT_NTABLES], n_made;
};

/*
 * The namespace requests are served in: ipt_use_netns() (main.c, per
 * request) chooses it; the calls below that take no namespace act on it.
 */

/* The tables of @family of the namespace numbered @id, made if new (NULL:
 * out of memory). */
struct ipt_ns *ipt_ns_get(uint64_t id, const struct ipt_family *family);

/* The @i-th namespace's tables of one family known (0: the initial
 * namespace's IPv4), or NULL past the last. */
struct ipt_ns *ipt_ns_at(size_t i);

/* The family of the tables requests are served in (ipt_use_netns()). */
const struct ipt_family *ipt_current_family(void);

/* The table called @name (already NUL-terminated) if it exists, or NULL. */
struct ipt_stored_table *ipt_table_find(const char *name);

/* The place of a table ip_tables has (made or not) in @ns, or NULL.  A
 * commit into it makes it. */
struct ipt_stored_table *ipt_ns_table_slot(struct ipt_ns *ns,
					   const char *name);
struct ipt_stored_table *ipt_table_slot(const char *name);

/* The @n-th table made in @ns (0: filter), or NULL past the last. */
struct ipt_stored_table *ipt_ns_table_at(struct ipt_ns *ns, unsigned int n);
struct ipt_stored_table *ipt_table_at(unsigned int n);

/* Does the backend serve namespaces other than the initial one? */
bool ipt_backend_namespaces(void);

/* Does the backend serve ip6_tables' tables? */
bool ipt_backend_ipv6(void);

/*
 * The table a request names, made on first use as ip_tables makes it and
 * put in force, in *@out (table.c, table_use()); -ENOENT for a name
 * ip_tables has no table for or one the backend cannot enforce; the
 * commit's errno when the backend refuses it.
 */
int ipt_table_use(const char *name, struct ipt_stored_table **out);

/* ipt_backend_ops.kernel_checks: the kernel checks extensions we do not
 * know (ext.c leaves them to it) */
bool ipt_backend_kernel_checks(void);

/* Add the backend's counts of table @t since its last commit to
 * @c[0..n-1] (ipt_backend_ops.read_counters); 0 or -errno. */
int ipt_backend_read_counters(const struct ipt_stored_table *t,
			      struct xt_counters *c, unsigned int n);

/* Add what the backend kept of @t's rules' counts for a restore to
 * @c[0..n-1] (ipt_backend_ops.restore_counters); 0 or -errno. */
int ipt_backend_restore_counters(const struct ipt_stored_table *t,
				 struct xt_counters *c, unsigned int n);

/* @c[0..num_entries-1] = base + enforcement counters of @t.  0 or -errno. */
int ipt_table_read_counters(const struct ipt_stored_table *t,
			    struct xt_counters *c);

/*
 * ipt_table_commit() - put @nb in force in @t through the backend's commit
 * @base: the new table's base counters (num_entries of them), or NULL
 *        for zeroes
 * @old:  if not NULL, receives the old table's counters, read just
 *        before the switch (the backend starts the new table at zero)
 *
 * On success @t owns @nb's entries; on failure nothing changed, @nb is
 * still the caller's, and the errno is the backend's.
 */
int ipt_table_commit(struct ipt_stored_table *t, struct ipt_blob *nb,
		     const struct xt_counters *base, struct xt_counters *old);

/*
 * ipt_table_restore_commit() - ipt_table_commit() of a restored table
 * (ipt_state_restore()): @base already holds what the rules in force
 * counted, unless the backend carries that over itself
 * (ipt_backend_adopts()).
 */
int ipt_table_restore_commit(struct ipt_stored_table *t, struct ipt_blob *nb,
			     const struct xt_counters *base);

/* Does the backend carry a restored table's counts over itself? */
bool ipt_backend_adopts(void);

/* If the initial tables were built but never committed (a restore was
 * announced), commit them now.  0 or -errno. */
int ipt_table_commit_pending(void);

#endif
