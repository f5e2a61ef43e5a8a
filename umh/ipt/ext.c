// SPDX-License-Identifier: GPL-2.0
/*
 * Extension lookups, size checks and payload checks as ip_tables does
 * them (net/netfilter/x_tables.c: xt_find_match(), xt_check_match(), ...),
 * failing exactly where and how it would, with the descriptors of the
 * extensions the helper serves (ext/ext.h: name, revisions, family,
 * payload size, protocol and each module's checkentry, Linux 6.1/6.12).
 *
 * An extension we do not serve is, to the caller, one the kernel has no
 * module for: -ENOENT, and a line in dmesg naming it; unless the
 * enforcing kernel side checks extensions itself (kmod,
 * ipt_backend_kernel_checks()): then it passes here and the commit gets
 * the kernel's errno for it.  ip6_tables' extensions are all the
 * kernel's (the registry describes the IPv4 code generator's): only
 * their names are checked and normalized here.
 */
#include <errno.h>
#include <string.h>

#include "ext/ext.h"
#include "ipt/table.h"
#include "lib/log.h"

/* An extension at one of its revisions. */
struct ipt_ext {
	const struct ext_desc *x;
	const struct ext_rev *rev;
};

/* find_ext(): no descriptor, but the kernel checks it (kmod) */
#define EXT_KERNEL_CHECKS	1

/*
 * xt_request_find_match()/xt_request_find_target() for @name, @n bytes
 * before its NUL (its strnlen() within XT_EXTENSION_MAXNAMELEN, which the
 * caller needs again): 0 with *found set, -EINVAL for a name without its
 * NUL, -EPROTOTYPE or -ENOENT (see struct ext_desc.unspec);
 * EXT_KERNEL_CHECKS instead of the last two when the backend's kernel
 * checks what we do not know.
 */
static int find_ext(const struct ipt_family *f, const char *name, size_t n,
		    uint8_t revision, bool target, struct ipt_ext *found)
{
	/* the last hits per kind, by the name's first two letters: most
	 * entries repeat a few extensions (the standard target above all;
	 * tcp and udp in turn), and the registry's walk was a quarter of a
	 * 10,000-rule translate */
	static struct ipt_ext last[2][8];
	static size_t last_len[2][8];
	unsigned int slot = (unsigned char)(name[0] + (n ? name[1] : 0)) & 7;
	const struct ipt_ext *l = &last[target][slot];
	const struct ext_desc *x;

	if (n == XT_EXTENSION_MAXNAMELEN)
		return -EINVAL;
	/* the registry describes what the IPv4 code generator compiles:
	 * ip6_tables' extensions are all the kernel's to check */
	if (f != &ipt_family_ipv4)
		return EXT_KERNEL_CHECKS;
	if (l->x && l->rev->revision == revision &&
	    last_len[target][slot] == n && !memcmp(l->x->name, name, n)) {
		*found = *l;
		return 0;
	}
	x = ext_find(name, target);
	found->x = x;
	found->rev = x ? ext_rev(x, revision) : NULL;
	if (found->rev) {
		last[target][slot] = *found;
		last_len[target][slot] = n;
		return 0;
	}
	if (ipt_backend_kernel_checks())
		return EXT_KERNEL_CHECKS;
	log_err("iptables: %s \"%s\" revision %u is not supported by ebpfilter\n",
		target ? "target" : "match", name, revision);
	return x && x->unspec ? -EPROTOTYPE : -ENOENT;
}

/* xt_check_match()/xt_check_target() minus the checks that cannot fail
 * for these extensions (table, family and hook restrictions: none). */
static int check_ext(const struct ipt_ext *e, const struct ipt_ip *ip,
		     unsigned int data_size, const void *data)
{
	const struct ext_desc *x = e->x;
	int r;

	if (XT_ALIGN(e->rev->size) != data_size)
		return -EINVAL;
	if (x->proto && (x->proto != ip->proto || (ip->invflags & IPT_INV_PROTO)))
		return -EINVAL;
	if (!x->check)
		return 0;
	r = x->check(ip, data, e->rev->revision);
	if (r == EXT_KERNEL_DECIDES)
		return ipt_backend_kernel_checks() ? 0 : -EINVAL;
	return r;
}

/*
 * xt_obj_to_user() writes the name only up to its NUL, xt_data_to_user()
 * the payload's real size and zeroes up to the aligned size.  What lies
 * after the NUL is whatever the reader's buffer held; we send zeroes.
 * @name_len is the name's strnlen(); @found, find_ext()'s answer for it.
 */
static void normalize_ext(struct xt_entry_match *hdr, unsigned char *data,
			  size_t name_len, int found, const struct ipt_ext *x)
{
	memset(hdr->u.user.name + name_len, 0,
	       XT_EXTENSION_MAXNAMELEN - name_len);
	/* the payload of one the kernel checks: its commit zeroes the
	 * kernel-private tail (ipt_backend_ops.commit) */
	if (!found)
		memset(data + x->rev->size, 0,
		       XT_ALIGN(x->rev->size) - x->rev->size);
}

/*
 * One lookup per extension for both jobs: checking and then normalizing
 * looked every name up twice (strnlen() and the cache each time), a fifth
 * of a 10,000-rule translate.  Normalizing an entry changes nothing a
 * later entry's check reads, and a refused blob is thrown away whole.
 */
int ipt_ext_check_normalize(const struct ipt_family *f, void *entry,
			    unsigned int hook_mask)
{
	const struct ipt_entry *e = entry;	/* its ip: IPv4's alone */
	unsigned char *base = entry;
	struct xt_entry_target *t;
	struct ipt_ext x;
	unsigned int pos;
	size_t n;
	int found, err, kernel = 0;

	/* No extension we serve restricts hooks: the mask is unused. */
	(void)hook_mask;

	/* The matches tile [sizeof(*e), target_offset): checked before. */
	for (pos = f->entry_size; pos < ipt_e_target_offset(f, entry);) {
		struct xt_entry_match *m = (void *)(base + pos);

		n = strnlen(m->u.user.name, XT_EXTENSION_MAXNAMELEN);
		found = find_ext(f, m->u.user.name, n, m->u.user.revision,
				 false, &x);
		if (found < 0)
			return found;
		if (!found) {
			err = check_ext(&x, &e->ip,
					m->u.match_size - sizeof(*m), m->data);
			if (err < 0)
				return err;
		}
		normalize_ext(m, m->data, n, found, &x);
		kernel |= found;
		pos += m->u.match_size;
	}

	/*
	 * Every match passed its size check, so each is a multiple of 8
	 * long and the target is aligned (see any_target in ipt_validate.c).
	 */
	t = (void *)(base + ipt_e_target_offset(f, entry));
	n = strnlen(t->u.user.name, XT_EXTENSION_MAXNAMELEN);
	found = find_ext(f, t->u.user.name, n, t->u.user.revision, true, &x);
	if (found < 0)
		return found;
	if (!found) {
		err = check_ext(&x, &e->ip, t->u.target_size - sizeof(*t),
				t->data);
		if (err)	/* as before: the commit's answer */
			return err;
	}
	/* the same header layout as a match's */
	normalize_ext((struct xt_entry_match *)t, t->data, n, found, &x);
	return kernel | found;
}
