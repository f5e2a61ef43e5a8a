// SPDX-License-Identifier: GPL-2.0
/*
 * The x_tables extensions the helper serves, described the way the
 * kernel registers them (struct xt_match / xt_target: name, revision,
 * family, payload size, protocol) plus each module's checkentry, so that
 * lookups, size checks and payload checks fail exactly where and how
 * ip_tables' would (net/netfilter/x_tables.c, xt_tcpudp.c, xt_multiport.c,
 * xt_iprange.c, xt_comment.c, xt_conntrack.c, xt_state.c, and the icmp
 * match and the standard/ERROR targets in ip_tables.c, Linux 6.1/6.12).
 *
 * An extension we do not serve is, to the caller, one the kernel has no
 * module for: -ENOENT, and a line in dmesg naming it.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "ipt/table.h"
#include "lib/log.h"

struct ipt_ext {
	const char *name;
	uint8_t revision;
	bool target;
	/*
	 * Registered for NFPROTO_UNSPEC rather than NFPROTO_IPV4.  It
	 * changes one errno: xt_find_match() searches the IPv4 list, then
	 * returns whatever the UNSPEC search finds, so a wrong revision of
	 * an IPv4-only extension is -ENOENT but of an UNSPEC one -EPROTOTYPE.
	 */
	bool unspec;
	unsigned int size;	/* matchsize / targetsize */
	uint16_t proto;		/* xt_match.proto: required ipt_ip.proto */
	/* checkentry: 0 or -errno */
	int (*check)(const struct ipt_ip *ip, const void *data);
};

static int tcp_check(const struct ipt_ip *ip __attribute__((unused)),
		     const void *data)
{
	const struct xt_tcp *tcp = data;

	return (tcp->invflags & ~XT_TCP_INV_MASK) ? -EINVAL : 0;
}

static int udp_check(const struct ipt_ip *ip __attribute__((unused)),
		     const void *data)
{
	const struct xt_udp *udp = data;

	return (udp->invflags & ~XT_UDP_INV_MASK) ? -EINVAL : 0;
}

static int icmp_check(const struct ipt_ip *ip __attribute__((unused)),
		      const void *data)
{
	const struct ipt_icmp *icmp = data;

	return (icmp->invflags & ~IPT_ICMP_INV) ? -EINVAL : 0;
}

/* multiport_valid_ranges(): a range flag starts a lo:hi pair, lo <= hi. */
static bool multiport_ranges_ok(const struct xt_multiport_v1 *mp)
{
	unsigned int i;

	/* count <= XT_MULTI_PORTS was checked first. */
	for (i = 0; i < mp->count; i++) {
		if (!mp->pflags[i])
			continue;
		if (++i >= mp->count)
			return false;
		if (mp->pflags[i])
			return false;
		if (mp->ports[i - 1] > mp->ports[i])
			return false;
	}
	return true;
}

/* multiport_mt_check(): a port protocol, a known mode, at most 15 ports. */
static int multiport_check(const struct ipt_ip *ip, const void *data)
{
	const struct xt_multiport_v1 *mp = data;
	bool port_proto = ip->proto == IPPROTO_TCP || ip->proto == IPPROTO_UDP ||
			  ip->proto == IPPROTO_UDPLITE ||
			  ip->proto == IPPROTO_SCTP || ip->proto == IPPROTO_DCCP;

	if (!port_proto || (ip->invflags & XT_INV_PROTO) ||
	    (mp->flags != XT_MULTIPORT_SOURCE &&
	     mp->flags != XT_MULTIPORT_DESTINATION &&
	     mp->flags != XT_MULTIPORT_EITHER) ||
	    mp->count > XT_MULTI_PORTS)
		return -EINVAL;
	return multiport_ranges_ok(mp) ? 0 : -EINVAL;
}

/*
 * iprange, comment, conntrack and state have no payload check in the
 * kernel (conntrack and state only take a conntrack reference): any
 * payload of the right size is accepted, and so it is here.  Whether the
 * enforcement backend can express it is enforce_commit()'s answer.
 */
static const struct ipt_ext extensions[] = {
	{ "tcp", 0, false, false, sizeof(struct xt_tcp), IPPROTO_TCP, tcp_check },
	{ "udp", 0, false, false, sizeof(struct xt_udp), IPPROTO_UDP, udp_check },
	{ "icmp", 0, false, false, sizeof(struct ipt_icmp), IPPROTO_ICMP,
	  icmp_check },
	{ "multiport", 1, false, false, sizeof(struct xt_multiport_v1), 0,
	  multiport_check },
	{ "iprange", 1, false, false, sizeof(struct xt_iprange_mtinfo), 0, NULL },
	{ "comment", 0, false, true, sizeof(struct xt_comment_info), 0, NULL },
	{ "conntrack", 1, false, true, sizeof(struct xt_conntrack_mtinfo1), 0,
	  NULL },
	{ "conntrack", 2, false, true, sizeof(struct xt_conntrack_mtinfo2), 0,
	  NULL },
	{ "conntrack", 3, false, true, sizeof(struct xt_conntrack_mtinfo3), 0,
	  NULL },
	{ "state", 0, false, true, sizeof(struct xt_state_info), 0, NULL },
	{ XT_STANDARD_TARGET, 0, true, false, sizeof(int), 0, NULL },
	{ XT_ERROR_TARGET, 0, true, false, XT_FUNCTION_MAXNAMELEN, 0, NULL },
};

#define N_EXTENSIONS (sizeof(extensions) / sizeof(extensions[0]))

bool ipt_ext_name_is(const char *field, const char *name)
{
	return strnlen(field, XT_EXTENSION_MAXNAMELEN) < XT_EXTENSION_MAXNAMELEN &&
	       strcmp(field, name) == 0;
}

/*
 * xt_request_find_match()/xt_request_find_target(): 0 with *found set,
 * -EINVAL for a name without its NUL, -EPROTOTYPE or -ENOENT (see
 * struct ipt_ext.unspec).
 */
static int find_ext(const char *name, uint8_t revision, bool target,
		    const struct ipt_ext **found)
{
	/* the last hit per kind: most entries of a table repeat it (the
	 * standard target above all), and the walk was 15% of a
	 * 10,000-rule translate */
	static const struct ipt_ext *last[2];
	const struct ipt_ext *l = last[target];
	bool other_revision = false;
	unsigned int i;

	if (strnlen(name, XT_EXTENSION_MAXNAMELEN) == XT_EXTENSION_MAXNAMELEN)
		return -EINVAL;
	if (l && l->revision == revision && !strcmp(l->name, name)) {
		*found = l;
		return 0;
	}
	for (i = 0; i < N_EXTENSIONS; i++) {
		const struct ipt_ext *x = &extensions[i];

		if (x->target != target || strcmp(x->name, name))
			continue;
		if (x->revision == revision) {
			*found = last[target] = x;
			return 0;
		}
		if (x->unspec)
			other_revision = true;
	}
	log_err("iptables: %s \"%s\" revision %u is not supported by ebpfilter\n",
		target ? "target" : "match", name, revision);
	return other_revision ? -EPROTOTYPE : -ENOENT;
}

/* xt_check_match()/xt_check_target() minus the checks that cannot fail
 * for these extensions (table, family and hook restrictions: none). */
static int check_ext(const struct ipt_ext *x, const struct ipt_ip *ip,
		     unsigned int data_size, const void *data)
{
	if (XT_ALIGN(x->size) != data_size)
		return -EINVAL;
	if (x->proto && (x->proto != ip->proto || (ip->invflags & IPT_INV_PROTO)))
		return -EINVAL;
	return x->check ? x->check(ip, data) : 0;
}

int ipt_ext_check_entry(const struct ipt_entry *e, unsigned int hook_mask)
{
	const unsigned char *base = (const unsigned char *)e;
	const struct xt_entry_target *t;
	const struct ipt_ext *x;
	unsigned int pos;
	int err;

	/* No extension we serve restricts hooks: the mask is unused. */
	(void)hook_mask;

	/* The matches tile [sizeof(*e), target_offset): checked before. */
	for (pos = sizeof(*e); pos < e->target_offset;) {
		const struct xt_entry_match *m = (const void *)(base + pos);

		err = find_ext(m->u.user.name, m->u.user.revision, false, &x);
		if (err)
			return err;
		err = check_ext(x, &e->ip, m->u.match_size - sizeof(*m), m->data);
		if (err)
			return err;
		pos += m->u.match_size;
	}

	/*
	 * Every match passed its size check, so each is a multiple of 8
	 * long and the target is aligned (see any_target in ipt_validate.c).
	 */
	t = (const void *)(base + e->target_offset);
	err = find_ext(t->u.user.name, t->u.user.revision, true, &x);
	if (err)
		return err;
	return check_ext(x, &e->ip, t->u.target_size - sizeof(*t), t->data);
}

/*
 * xt_obj_to_user() writes the name only up to its NUL, xt_data_to_user()
 * the payload's real size and zeroes up to the aligned size.  What lies
 * after the NUL is whatever the reader's buffer held; we send zeroes.
 */
static void normalize_ext(void *hdr, unsigned char *data, bool target)
{
	struct xt_entry_match *m = hdr;	/* same header layout as a target */
	char *name = m->u.user.name;
	const struct ipt_ext *x;
	size_t n = strnlen(name, XT_EXTENSION_MAXNAMELEN);

	if (find_ext(name, m->u.user.revision, target, &x))
		return;		/* cannot happen: the entry was checked */
	memset(name + n, 0, XT_EXTENSION_MAXNAMELEN - n);
	memset(data + x->size, 0, XT_ALIGN(x->size) - x->size);
}

void ipt_ext_normalize(struct ipt_entry *e)
{
	unsigned char *base = (unsigned char *)e;
	struct xt_entry_target *t;
	unsigned int pos;

	for (pos = sizeof(*e); pos < e->target_offset;) {
		struct xt_entry_match *m = (void *)(base + pos);

		normalize_ext(m, m->data, false);
		pos += m->u.match_size;
	}
	t = (void *)(base + e->target_offset);
	normalize_ext(t, t->data, true);
}

int ipt_ext_revision(const char *name, uint8_t revision, bool target)
{
	bool have_rev = false;
	int best = -1;
	unsigned int i;

	for (i = 0; i < N_EXTENSIONS; i++) {
		const struct ipt_ext *x = &extensions[i];

		if (x->target != target || strcmp(x->name, name))
			continue;
		if (x->revision > best)
			best = x->revision;
		if (x->revision == revision)
			have_rev = true;
	}
	if (best < 0) {
		/* iptables asks before it uses an extension: say why it fails. */
		log_notice("iptables asked for %s \"%s\", which ebpfilter does not serve\n",
			   target ? "target" : "match", name);
		return -ENOENT;
	}
	return have_rev ? best : -EPROTONOSUPPORT;
}
