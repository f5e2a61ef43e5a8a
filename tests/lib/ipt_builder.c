// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "ipt_builder.h"

static void *grow(struct tb *t, unsigned int n)
{
	void *p = buf_append_zero(&t->b, n);

	if (!p) {
		fprintf(stderr, "tb: out of memory\n");
		abort();
	}
	return p;
}

void tb_init(struct tb *t)
{
	memset(t, 0, sizeof(*t));
	memset(t->hook_entry, 0xff, sizeof(t->hook_entry));
	memset(t->underflow, 0xff, sizeof(t->underflow));
}

void tb_init6(struct tb *t)
{
	tb_init(t);
	t->ip6 = true;
}

void tb_free(struct tb *t)
{
	buf_free(&t->b);
	free(t->fixup);
	free(t->chain);
	t->fixup = NULL;
	t->chain = NULL;
	t->nfixup = t->fixup_cap = t->nchain = t->chain_cap = 0;
}

/* Room for one more element in a growable array of @size-byte elements. */
static void *more(void *arr, unsigned int n, unsigned int *cap, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 16;
	arr = realloc(arr, *cap * size);
	if (!arr) {
		fprintf(stderr, "tb: out of memory\n");
		abort();
	}
	return arr;
}

/* The entry fields of the family being built, at the entry at @off. */
static uint16_t *field16(struct tb *t, unsigned int off, size_t v4, size_t v6)
{
	return (uint16_t *)(t->b.data + off + (t->ip6 ? v6 : v4));
}

static uint16_t *target_offset(struct tb *t, unsigned int off)
{
	return field16(t, off, offsetof(struct ipt_entry, target_offset),
		       offsetof(struct ip6t_entry, target_offset));
}

static uint16_t *next_offset(struct tb *t, unsigned int off)
{
	return field16(t, off, offsetof(struct ipt_entry, next_offset),
		       offsetof(struct ip6t_entry, next_offset));
}

static unsigned int begin(struct tb *t, const void *ip, size_t ip_size)
{
	size_t size = t->ip6 ? sizeof(struct ip6t_entry) :
			       sizeof(struct ipt_entry);
	void *e;

	t->cur = t->b.len;
	e = grow(t, size);
	if (ip)
		memcpy(e, ip, ip_size);	/* the IP part leads the entry */
	*target_offset(t, t->cur) = size;
	return t->cur;
}

unsigned int tb_begin(struct tb *t, const struct ipt_ip *ip)
{
	if (t->ip6 && ip)
		abort();	/* an IPv4 rule in an IPv6 table */
	return begin(t, ip, sizeof(*ip));
}

unsigned int tb_begin6(struct tb *t, const struct ip6t_ip6 *ip)
{
	if (!t->ip6)
		abort();
	return begin(t, ip, sizeof(*ip));
}

void tb_match(struct tb *t, const char *name, uint8_t rev, const void *data,
	      unsigned int len)
{
	struct xt_entry_match *m = grow(t, sizeof(*m) + XT_ALIGN(len));

	m->u.user.match_size = sizeof(*m) + XT_ALIGN(len);
	snprintf(m->u.user.name, sizeof(m->u.user.name), "%s", name);
	m->u.user.revision = rev;
	memcpy(m->data, data, len);
	*target_offset(t, t->cur) = t->b.len - t->cur;
}

static void end_entry(struct tb *t)
{
	*next_offset(t, t->cur) = t->b.len - t->cur;
	t->num_entries++;
}

void tb_target(struct tb *t, const char *name, uint8_t rev, const void *data,
	       unsigned int len)
{
	struct xt_entry_target *tg = grow(t, sizeof(*tg) + XT_ALIGN(len));

	tg->u.user.target_size = sizeof(*tg) + XT_ALIGN(len);
	snprintf(tg->u.user.name, sizeof(tg->u.user.name), "%s", name);
	tg->u.user.revision = rev;
	memcpy(tg->data, data, len);
	end_entry(t);
}

void tb_std(struct tb *t, int verdict)
{
	tb_target(t, XT_STANDARD_TARGET, 0, &verdict, sizeof(verdict));
}

void tb_jump(struct tb *t, const char *chain, bool is_goto)
{
	if (is_goto && t->ip6)
		tb_entry6_at(t, t->cur)->ipv6.flags |= IP6T_F_GOTO;
	else if (is_goto)
		tb_entry_at(t, t->cur)->ip.flags |= IPT_F_GOTO;
	t->fixup = more(t->fixup, t->nfixup, &t->fixup_cap, sizeof(*t->fixup));
	t->fixup[t->nfixup].verdict_at = t->cur + *target_offset(t, t->cur) +
		sizeof(struct xt_entry_target);
	snprintf(t->fixup[t->nfixup].chain, sizeof(t->fixup[0].chain), "%s",
		 chain);
	t->nfixup++;
	tb_std(t, 1);	/* resolved by tb_finish() */
}

void tb_fallthrough(struct tb *t)
{
	unsigned int at = t->cur + *target_offset(t, t->cur) +
			  sizeof(struct xt_entry_target);
	int next;

	tb_std(t, 0);
	next = (int)t->b.len;
	memcpy(t->b.data + at, &next, sizeof(next));
}

void tb_error(struct tb *t, const char *errorname)
{
	char name[XT_FUNCTION_MAXNAMELEN] = { 0 };

	snprintf(name, sizeof(name), "%s", errorname);
	tb_target(t, XT_ERROR_TARGET, 0, name, sizeof(name));
}

void tb_hook(struct tb *t, unsigned int hook)
{
	t->hook_entry[hook] = t->b.len;
}

void tb_policy(struct tb *t, unsigned int hook, int verdict)
{
	if (t->hook_entry[hook] == 0xFFFFFFFF)
		t->hook_entry[hook] = t->b.len;
	t->underflow[hook] = t->b.len;
	tb_begin(t, NULL);
	tb_std(t, verdict);
}

void tb_chain(struct tb *t, const char *name)
{
	t->chain = more(t->chain, t->nchain, &t->chain_cap, sizeof(*t->chain));
	tb_begin(t, NULL);
	tb_error(t, name);
	snprintf(t->chain[t->nchain].name, sizeof(t->chain[0].name), "%s", name);
	t->chain[t->nchain].first_rule = t->b.len;
	t->nchain++;
}

void tb_chain_end(struct tb *t)
{
	tb_begin(t, NULL);
	tb_std(t, XT_RETURN);
}

bool tb_has_chain(const struct tb *t, const char *name)
{
	unsigned int j;

	for (j = 0; j < t->nchain; j++)
		if (!strcmp(t->chain[j].name, name))
			return true;
	return false;
}

void tb_finish(struct tb *t)
{
	unsigned int i, j;

	tb_begin(t, NULL);
	tb_error(t, "ERROR");
	for (i = 0; i < t->nfixup; i++) {
		for (j = 0; j < t->nchain; j++)
			if (!strcmp(t->chain[j].name, t->fixup[i].chain))
				break;
		if (j == t->nchain) {
			fprintf(stderr, "tb: no chain %s\n", t->fixup[i].chain);
			abort();
		}
		memcpy(t->b.data + t->fixup[i].verdict_at,
		       &t->chain[j].first_rule, sizeof(int));
	}
}

static void filter_initial(struct tb *t)
{
	tb_policy(t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(t, NF_INET_FORWARD, V_ACCEPT);
	tb_policy(t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(t);
}

void tb_filter_initial(struct tb *t)
{
	tb_init(t);
	filter_initial(t);
}

void tb_filter_initial6(struct tb *t)
{
	tb_init6(t);
	filter_initial(t);
}

const struct ipt_ip ip_tcp = { .proto = IPPROTO_TCP };
const struct ipt_ip ip_udp = { .proto = IPPROTO_UDP };
const struct ipt_ip ip_icmp = { .proto = IPPROTO_ICMP };

/* tb_notes() with the rules' IP parts of @t's family */
static void notes(struct tb *t, const void *tcp_ip, const void *net_ip)
{
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	bool ip6 = t->ip6;

	tb_hook(t, NF_INET_LOCAL_IN);
	ip6 ? tb_begin6(t, tcp_ip) : tb_begin(t, tcp_ip);
	tb_match(t, "tcp", 0, &tcp, sizeof(tcp));
	tb_jump(t, "MYCHAIN", false);
	tb_policy(t, NF_INET_LOCAL_IN, V_ACCEPT);
	tb_policy(t, NF_INET_FORWARD, V_DROP);
	tb_policy(t, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_chain(t, "MYCHAIN");
	ip6 ? tb_begin6(t, net_ip) : tb_begin(t, net_ip);
	tb_std(t, V_DROP);
	tb_begin(t, NULL);
	tb_std(t, XT_RETURN);
	tb_chain_end(t);
	tb_finish(t);
}

void tb_notes(struct tb *t)
{
	struct ipt_ip ten = { .src.s_addr = htonl(0x0a000000),
			      .smsk.s_addr = htonl(0xff000000) };

	tb_init(t);
	notes(t, &ip_tcp, &ten);
}

void tb_notes6(struct tb *t)
{
	struct ip6t_ip6 tcp = { .proto = IPPROTO_TCP, .flags = IP6T_F_PROTO };
	struct ip6t_ip6 net = {
		.src.s6_addr = { 0x20, 0x01, 0x0d, 0xb8 },
		.smsk.s6_addr = { 0xff, 0xff, 0xff, 0xff },
	};

	tb_init6(t);
	notes(t, &tcp, &net);
}

void tb_replace(struct tb *t, struct buf *out, const char *table,
		unsigned int valid_hooks, unsigned int num_counters)
{
	struct ipt_replace r;

	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", table);
	r.valid_hooks = valid_hooks;
	r.num_entries = t->num_entries;
	r.size = t->b.len;
	memcpy(r.hook_entry, t->hook_entry, sizeof(r.hook_entry));
	memcpy(r.underflow, t->underflow, sizeof(r.underflow));
	r.num_counters = num_counters;
	r.counters = (void *)0x1000;	/* a user pointer: never followed */
	buf_reset(out);
	if (buf_append(out, &r, sizeof(r)) || buf_append(out, t->b.data, t->b.len))
		abort();
}

void tb_counters(struct buf *out, const char *table, unsigned int n,
		 uint64_t pcnt, uint64_t bcnt)
{
	struct xt_counters_info info;
	struct xt_counters c = { .pcnt = pcnt, .bcnt = bcnt };
	unsigned int i;

	memset(&info, 0, sizeof(info));
	snprintf(info.name, sizeof(info.name), "%s", table);
	info.num_counters = n;
	buf_reset(out);
	if (buf_append(out, &info, sizeof(info)))
		abort();
	for (i = 0; i < n; i++)
		if (buf_append(out, &c, sizeof(c)))
			abort();
}
