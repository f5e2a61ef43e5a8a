// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: iptables-save text -> ip_tables blob, laid out by the one
 * test-blob builder (ipt_builder.c).  See iptblob.h.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include <ebpfilter/proto.h>

#include "ipt_builder.h"
#include "iptblob.h"

#define MAXR 20000
#define A8(x) (((x) + 7) & ~(size_t)7)

struct rule {
	char chain[32];
	unsigned char ent[1024];	/* ipt_entry + matches (no target) */
	size_t len;
	char target[32];
	bool go;
};

struct chain {
	char name[32];
	int policy;	/* builtin: -1 DROP... ; user: 0 */
	bool builtin;
};

static int err_at(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_cidr(const char *s, struct in_addr *a, struct in_addr *m)
{
	char buf[64], *slash;
	int bits = 32;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = 0;
		bits = atoi(slash + 1);
	}
	if (inet_pton(AF_INET, buf, a) != 1)
		return -1;
	m->s_addr = bits ? htonl(~0u << (32 - bits)) : 0;
	a->s_addr &= m->s_addr;
	return 0;
}

static void parse_iface(const char *s, char *name, unsigned char *mask)
{
	size_t n = strlen(s);

	memset(name, 0, IFNAMSIZ);
	memset(mask, 0, IFNAMSIZ);
	memcpy(name, s, n < IFNAMSIZ - 1 ? n : IFNAMSIZ - 1);
	if (n && s[n - 1] == '+') {
		name[n - 1] = 0;
		memset(mask, 0xff, n - 1);
	} else {
		memset(mask, 0xff, n + 1);
	}
}

static void parse_range(const char *s, __u16 *lo, __u16 *hi)
{
	const char *c = strchr(s, ':');

	*lo = (__u16)(*s == ':' ? 0 : atoi(s));
	*hi = c ? (__u16)(c[1] ? atoi(c + 1) : 65535) : *lo;
}

static unsigned int parse_states(const char *s)
{
	unsigned int m = 0;
	char buf[128], *t, *save;

	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "INVALID"))
			m |= XT_CONNTRACK_STATE_INVALID;
		else if (!strcmp(t, "ESTABLISHED"))
			m |= XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED);
		else if (!strcmp(t, "RELATED"))
			m |= XT_CONNTRACK_STATE_BIT(IP_CT_RELATED);
		else if (!strcmp(t, "NEW"))
			m |= XT_CONNTRACK_STATE_BIT(IP_CT_NEW);
		else if (!strcmp(t, "UNTRACKED"))
			m |= XT_CONNTRACK_STATE_UNTRACKED;
		else if (!strcmp(t, "SNAT"))
			m |= XT_CONNTRACK_STATE_SNAT;
		else if (!strcmp(t, "DNAT"))
			m |= XT_CONNTRACK_STATE_DNAT;
	}
	return m;
}

static unsigned char tcp_flag_bits(const char *s)
{
	static const struct { const char *n; unsigned char v; } f[] = {
		{ "FIN", 1 }, { "SYN", 2 }, { "RST", 4 }, { "PSH", 8 },
		{ "ACK", 16 }, { "URG", 32 }, { "ECE", 64 }, { "CWR", 128 },
		{ "ALL", 255 }, { "NONE", 0 } };
	char buf[128], *t, *save;
	unsigned char v = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (!strcmp(t, f[i].n))
				v |= f[i].v;
	return v;
}

static void *add_match(struct rule *r, const char *name, int rev, size_t dsize)
{
	struct xt_entry_match *m = (void *)(r->ent + r->len);
	size_t sz = A8(sizeof(*m) + dsize);

	memset(m, 0, sz);
	m->u.match_size = (__u16)sz;
	snprintf(m->u.user.name, sizeof(m->u.user.name), "%s", name);
	m->u.user.revision = (__u8)rev;
	r->len += sz;
	return m->data;
}

/* the last match of a given name (options apply to it) */
static void *find_match(struct rule *r, const char *name)
{
	size_t off = sizeof(struct ipt_entry);
	void *found = NULL;

	while (off < r->len) {
		struct xt_entry_match *m = (void *)(r->ent + off);

		if (!strcmp(m->u.user.name, name))
			found = m->data;
		off += m->u.match_size;
	}
	return found;
}

static void multiport_ports(struct xt_multiport_v1 *mp, const char *s)
{
	char buf[256], *t, *save;

	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		__u16 lo, hi;

		parse_range(t, &lo, &hi);
		mp->ports[mp->count] = lo;
		if (strchr(t, ':')) {
			mp->pflags[mp->count] = 1;
			mp->ports[++mp->count] = hi;
		}
		mp->count++;
	}
}

static int parse_rule(char *line, struct rule *r, char *err, size_t elen)
{
	struct ipt_entry *e = (void *)r->ent;
	char *tok[128];
	int n = 0, i;
	bool inv = false;
	const char *cur = NULL;	/* current -m */

	memset(r, 0, sizeof(*r));
	r->len = sizeof(*e);
	for (char *t = strtok(line, " \t\n"); t && n < 127; t = strtok(NULL, " \t\n"))
		tok[n++] = t;
	for (i = 0; i < n; i++) {
		const char *o = tok[i];
		const char *v = i + 1 < n ? tok[i + 1] : "";

#define NEXT do { i++; } while (0)
		if (!strcmp(o, "!")) {
			inv = true;
			continue;
		}
		if (!strcmp(o, "-A")) {
			snprintf(r->chain, sizeof(r->chain), "%s", v);
			NEXT;
		} else if (!strcmp(o, "-s") || !strcmp(o, "-d")) {
			bool s = o[1] == 's';

			if (parse_cidr(v, s ? &e->ip.src : &e->ip.dst,
				       s ? &e->ip.smsk : &e->ip.dmsk))
				return err_at(err, elen, "bad address %s", v);
			if (inv)
				e->ip.invflags |= s ? IPT_INV_SRCIP : IPT_INV_DSTIP;
			NEXT;
		} else if (!strcmp(o, "-i") || !strcmp(o, "-o")) {
			bool in = o[1] == 'i';

			parse_iface(v, in ? e->ip.iniface : e->ip.outiface,
				    in ? e->ip.iniface_mask : e->ip.outiface_mask);
			if (inv)
				e->ip.invflags |= in ? IPT_INV_VIA_IN : IPT_INV_VIA_OUT;
			NEXT;
		} else if (!strcmp(o, "-p")) {
			e->ip.proto = !strcmp(v, "tcp") ? 6 : !strcmp(v, "udp") ? 17 :
				      !strcmp(v, "icmp") ? 1 : (__u16)atoi(v);
			if (inv)
				e->ip.invflags |= IPT_INV_PROTO;
			NEXT;
		} else if (!strcmp(o, "-f")) {
			e->ip.flags |= IPT_F_FRAG;
			if (inv)
				e->ip.invflags |= IPT_INV_FRAG;
		} else if (!strcmp(o, "-m")) {
			cur = v;
			if (!strcmp(v, "tcp")) {
				struct xt_tcp *t = add_match(r, "tcp", 0, sizeof(*t));
				t->spts[1] = t->dpts[1] = 65535;
			} else if (!strcmp(v, "udp")) {
				struct xt_udp *u = add_match(r, "udp", 0, sizeof(*u));
				u->spts[1] = u->dpts[1] = 65535;
			} else if (!strcmp(v, "icmp")) {
				struct ipt_icmp *ic = add_match(r, "icmp", 0, sizeof(*ic));
				ic->type = 0xff;
				ic->code[1] = 0xff;
			} else if (!strcmp(v, "multiport")) {
				add_match(r, "multiport", 1,
					  sizeof(struct xt_multiport_v1));
			} else if (!strcmp(v, "iprange")) {
				add_match(r, "iprange", 1,
					  sizeof(struct xt_iprange_mtinfo));
			} else if (!strcmp(v, "comment")) {
				add_match(r, "comment", 0,
					  sizeof(struct xt_comment_info));
			} else if (!strcmp(v, "state")) {
				add_match(r, "state", 0, sizeof(struct xt_state_info));
			} else if (!strcmp(v, "conntrack")) {
				add_match(r, "conntrack", 3,
					  sizeof(struct xt_conntrack_mtinfo3));
			} else if (!strncmp(v, KERNEL_EXT, strlen(KERNEL_EXT))) {
				add_match(r, v + strlen(KERNEL_EXT), 0, KERNEL_EXT_SIZE);
			} else {
				return err_at(err, elen, "unknown match %s", v);
			}
			NEXT;
		} else if (!strcmp(o, "--sport") || !strcmp(o, "--dport") ||
			   !strcmp(o, "--source-port") ||
			   !strcmp(o, "--destination-port")) {
			bool s = o[2] == 's';
			void *m = cur ? find_match(r, cur) : NULL;
			__u16 *pt;
			__u8 *invf;

			if (!m || (strcmp(cur, "tcp") && strcmp(cur, "udp")))
				return err_at(err, elen, "%s without -m tcp/udp", o);
			if (!strcmp(cur, "tcp")) {
				struct xt_tcp *t = m;
				pt = s ? t->spts : t->dpts;
				invf = &t->invflags;
			} else {
				struct xt_udp *u = m;
				pt = s ? u->spts : u->dpts;
				invf = &u->invflags;
			}
			parse_range(v, &pt[0], &pt[1]);
			if (inv)
				*invf |= s ? XT_TCP_INV_SRCPT : XT_TCP_INV_DSTPT;
			NEXT;
		} else if (!strcmp(o, "--tcp-flags")) {
			struct xt_tcp *t = find_match(r, "tcp");

			if (!t || i + 2 >= n)
				return err_at(err, elen, "bad --tcp-flags");
			t->flg_mask = tcp_flag_bits(v);
			t->flg_cmp = tcp_flag_bits(tok[i + 2]);
			if (inv)
				t->invflags |= XT_TCP_INV_FLAGS;
			i += 2;
		} else if (!strcmp(o, "--syn")) {
			struct xt_tcp *t = find_match(r, "tcp");

			if (!t)
				return err_at(err, elen, "--syn without -m tcp");
			t->flg_mask = 0x17;	/* SYN,RST,ACK,FIN */
			t->flg_cmp = 0x02;
			if (inv)
				t->invflags |= XT_TCP_INV_FLAGS;
		} else if (!strcmp(o, "--tcp-option")) {
			struct xt_tcp *t = find_match(r, "tcp");

			if (!t)
				return err_at(err, elen, "--tcp-option without -m tcp");
			t->option = (__u8)atoi(v);
			if (inv)
				t->invflags |= XT_TCP_INV_OPTION;
			NEXT;
		} else if (!strcmp(o, "--icmp-type")) {
			struct ipt_icmp *ic = find_match(r, "icmp");
			const char *sl = strchr(v, '/');

			if (!ic)
				return err_at(err, elen, "--icmp-type without -m icmp");
			if (!strcmp(v, "any")) {
				ic->type = 0xff;
			} else {
				ic->type = (__u8)atoi(v);
				ic->code[0] = sl ? (__u8)atoi(sl + 1) : 0;
				ic->code[1] = sl ? ic->code[0] : 0xff;
			}
			if (inv)
				ic->invflags |= IPT_ICMP_INV;
			NEXT;
		} else if (!strcmp(o, "--sports") || !strcmp(o, "--dports") ||
			   !strcmp(o, "--ports")) {
			struct xt_multiport_v1 *mp = find_match(r, "multiport");

			if (!mp)
				return err_at(err, elen, "%s without -m multiport", o);
			mp->flags = o[2] == 's' ? XT_MULTIPORT_SOURCE :
				    o[2] == 'd' ? XT_MULTIPORT_DESTINATION :
				    XT_MULTIPORT_EITHER;
			multiport_ports(mp, v);
			mp->invert = inv;
			NEXT;
		} else if (!strcmp(o, "--src-range") || !strcmp(o, "--dst-range")) {
			struct xt_iprange_mtinfo *ir = find_match(r, "iprange");
			bool s = o[2] == 's';
			char buf[64], *dash;

			if (!ir)
				return err_at(err, elen, "%s without -m iprange", o);
			snprintf(buf, sizeof(buf), "%s", v);
			dash = strchr(buf, '-');
			if (!dash)
				return err_at(err, elen, "bad range %s", v);
			*dash = 0;
			inet_pton(AF_INET, buf, s ? &ir->src_min.in : &ir->dst_min.in);
			inet_pton(AF_INET, dash + 1, s ? &ir->src_max.in : &ir->dst_max.in);
			ir->flags |= s ? IPRANGE_SRC : IPRANGE_DST;
			if (inv)
				ir->flags |= s ? IPRANGE_SRC_INV : IPRANGE_DST_INV;
			NEXT;
		} else if (!strcmp(o, "--comment")) {
			struct xt_comment_info *c = find_match(r, "comment");

			if (c)
				snprintf(c->comment, sizeof(c->comment), "%s", v);
			NEXT;
		} else if (!strcmp(o, "--state")) {
			struct xt_state_info *s = find_match(r, "state");
			unsigned int m = parse_states(v);

			if (!s)
				return err_at(err, elen, "--state without -m state");
			/* xt_state: UNTRACKED is bit 6 */
			s->statemask = (m & 0xf) |
				       ((m & XT_CONNTRACK_STATE_UNTRACKED) ? XT_STATE_UNTRACKED : 0);
			NEXT;
		} else if (!strcmp(o, "--ctstate")) {
			struct xt_conntrack_mtinfo3 *c = find_match(r, "conntrack");

			if (!c)
				return err_at(err, elen, "--ctstate without -m conntrack");
			c->match_flags |= XT_CONNTRACK_STATE;
			c->state_mask = (__u16)parse_states(v);
			if (inv)
				c->invert_flags |= XT_CONNTRACK_STATE;
			NEXT;
		} else if (!strcmp(o, "--ctproto")) {
			/* an option only the kernel's conntrack_mt() tests */
			struct xt_conntrack_mtinfo3 *c = find_match(r, "conntrack");

			if (!c)
				return err_at(err, elen, "--ctproto without -m conntrack");
			c->match_flags |= XT_CONNTRACK_PROTO;
			c->l4proto = (__u16)atoi(v);
			NEXT;
		} else if (!strcmp(o, "-j") || !strcmp(o, "-g")) {
			snprintf(r->target, sizeof(r->target), "%s", v);
			r->go = o[1] == 'g';
			if (r->go)
				e->ip.flags |= IPT_F_GOTO;
			NEXT;
		} else {
			return err_at(err, elen, "unknown option %s", o);
		}
		inv = false;
	}
	if (!r->chain[0])
		return err_at(err, elen, "rule without -A");
	return 0;
}

/* V_KERNEL: "kernel:NAME", an extension target (iptblob.h) */
#define V_KERNEL	2

static int std_verdict(const char *t)
{
	if (!strncmp(t, KERNEL_EXT, strlen(KERNEL_EXT)))
		return V_KERNEL;
	if (!strcmp(t, "ACCEPT"))
		return V_ACCEPT;
	if (!strcmp(t, "DROP"))
		return V_DROP;
	if (!strcmp(t, "RETURN"))
		return XT_RETURN;
	return 1;	/* a chain */
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct chain *)a)->name,
		      ((const struct chain *)b)->name);
}

/* Rule @r through the builder: its entry, a copy of each match, a target. */
static void put_rule(struct tb *t, const struct rule *r)
{
	const struct ipt_entry *e = (const void *)r->ent;
	size_t off = sizeof(*e);

	tb_begin(t, &e->ip);
	while (off < r->len) {
		const struct xt_entry_match *m = (const void *)(r->ent + off);

		tb_match(t, m->u.user.name, m->u.user.revision, m->data,
			 m->u.match_size - sizeof(*m));
		off += m->u.match_size;
	}
	static const unsigned char opaque[KERNEL_EXT_SIZE];

	if (!r->target[0])
		tb_fallthrough(t);	/* no -j: a rule that only counts */
	else if (std_verdict(r->target) == V_KERNEL)
		tb_target(t, r->target + strlen(KERNEL_EXT), 0, opaque,
			  sizeof(opaque));
	else if (std_verdict(r->target) != 1)
		tb_std(t, std_verdict(r->target));
	else
		tb_jump(t, r->target, r->go);
}

int iptblob_build(const char *text, struct iptblob *b, char *err, size_t elen)
{
	static const char *const builtin[3] = { "INPUT", "FORWARD", "OUTPUT" };
	static const unsigned int hook[3] = { NF_INET_LOCAL_IN, NF_INET_FORWARD,
					      NF_INET_LOCAL_OUT };
	struct chain chains[64];
	unsigned int nch = 3, i, k;
	struct rule *rules = calloc(MAXR, sizeof(*rules));
	unsigned int nr = 0;
	char *copy = strdup(text), *line, *save;
	struct tb t;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	tb_init(&t);
	memset(chains, 0, sizeof(chains));
	for (i = 0; i < 3; i++) {
		snprintf(chains[i].name, sizeof(chains[i].name), "%s", builtin[i]);
		chains[i].builtin = true;
		chains[i].policy = V_ACCEPT;
	}
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ')
			line++;
		if (!*line || *line == '#' || *line == '*' ||
		    !strncmp(line, "COMMIT", 6))
			continue;
		if (*line == ':') {
			char name[32], pol[32];

			if (sscanf(line + 1, "%31s %31s", name, pol) != 2)
				goto bad;
			for (k = 0; k < nch && strcmp(chains[k].name, name); k++)
				;
			if (k == nch) {
				if (nch == 64)
					goto bad;
				snprintf(chains[nch].name, 32, "%s", name);
				nch++;
			} else if (chains[k].builtin) {
				chains[k].policy = std_verdict(pol);
			}
			continue;
		}
		if (nr == MAXR || parse_rule(line, &rules[nr], err, elen))
			goto out;
		nr++;
	}
	qsort(chains + 3, nch - 3, sizeof(chains[0]), cmp_name);
	/* jumps only to user chains (the builder aborts on others) */
	for (i = 0; i < nr; i++) {
		if (!rules[i].target[0] || std_verdict(rules[i].target) != 1)
			continue;	/* not a chain (V_KERNEL neither) */
		for (k = 3; k < nch && strcmp(chains[k].name, rules[i].target); k++)
			;
		if (k == nch) {
			err_at(err, elen, "no chain %s", rules[i].target);
			goto out;
		}
	}

	for (k = 0; k < nch; k++) {
		if (chains[k].builtin)
			tb_hook(&t, hook[k]);
		else
			tb_chain(&t, chains[k].name);
		snprintf(b->chain_names[k], sizeof(b->chain_names[k]), "%.31s",
			 chains[k].name);
		b->chain_first[k] = t.num_entries;
		for (i = 0; i < nr; i++)
			if (!strcmp(rules[i].chain, chains[k].name))
				put_rule(&t, &rules[i]);
		if (chains[k].builtin)
			tb_policy(&t, hook[k], chains[k].policy);
		else
			tb_chain_end(&t);
	}
	b->nchains = nch;
	tb_finish(&t);
	b->num_entries = t.num_entries;
	memcpy(b->hook_entry, t.hook_entry, sizeof(b->hook_entry));
	memcpy(b->underflow, t.underflow, sizeof(b->underflow));
	b->size = t.b.len;
	b->data = t.b.data;	/* the blob is the caller's now */
	t.b.data = NULL;
	ret = 0;
	goto out;
bad:
	err_at(err, elen, "bad line: %s", line);
out:
	tb_free(&t);
	free(rules);
	free(copy);
	if (ret)
		iptblob_free(b);
	return ret;
}

void iptblob_view(const struct iptblob *b, struct ipt_table_view *v)
{
	memset(v, 0, sizeof(*v));
	v->name = "filter";
	v->netns = EBPF_NETNS_INIT;
	v->entries = b->data;
	v->size = b->size;
	v->num_entries = b->num_entries;
	v->valid_hooks = (1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) |
			 (1 << NF_INET_LOCAL_OUT);
	for (int h = 0; h < 5; h++) {
		v->hook_entry[h] = (v->valid_hooks & (1u << h)) ? b->hook_entry[h] : ~0u;
		v->underflow[h] = (v->valid_hooks & (1u << h)) ? b->underflow[h] : ~0u;
	}
}

int iptblob_index(const struct iptblob *b, const char *chain, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < b->nchains; k++) {
		unsigned int next_first;

		if (strcmp(b->chain_names[k], chain))
			continue;
		if (n)
			return (int)(b->chain_first[k] + n - 1);
		/* the tail: the entry before the next chain's first */
		next_first = k + 1 < b->nchains ?
			     b->chain_first[k + 1] - (k + 1 >= 3 ? 1 : 0) :
			     b->num_entries - 1;
		return (int)next_first - 1;
	}
	return -1;
}

void iptblob_free(struct iptblob *b)
{
	free(b->data);
	b->data = NULL;
}
