// SPDX-License-Identifier: GPL-2.0
/*
 * Tuple-space classification of rule runs: the analysis (which rules
 * qualify, their groups, the contents of the groups' hash maps, as map
 * descriptions).  runs_classified.c emits the lookups.  See classify.h for the idea.
 *
 * Why it is exact: a rule of a run matches a packet iff every key word of
 * its group, masked, equals the rule's own (ip_packet_match compares
 * (field & mask) with the rule's value, the rule's value having no bits
 * outside the mask; names compare as (name ^ rule) & mask; an exact port
 * is equality; the tcp/udp match needs l4state 1, which CLS_PL4 carries).
 * Within a group, rules with the same key are the same test, so the first
 * one is the only one that can decide; across groups the smallest index
 * found is the first rule of the run that matches, and since every rule of
 * a run ends in ACCEPT or DROP nothing after it is evaluated; or it is a
 * kernel rule, and the kernel's walk starts at it, exactly where
 * ipt_do_table() would be after the rules before it failed.
 * Hotdrop: ip_tables drops a packet (without counting) at the first rule
 * whose ipt_ip part holds and whose tcp/udp match finds no header.  Each
 * tcp/udp rule has a second entry, keyed with l4state 2 and ports 0 (what a
 * hotdrop packet's key holds), valued with the hotdrop flag: it competes
 * for "first" like the rule itself.  On the kmod mechanism (run->hd_walk)
 * there are no such twins: a packet with l4state 2 never matches a tcp/udp
 * rule's key, and the program hands it to the module's walk at the run's
 * first rule before any lookup, which is where ipt_do_table() is then; such
 * packets (a truncated header, a tcp fragment at offset 1) are rare, and
 * the twins were half of every map of tcp/udp rules.
 * IPv6 (ip6_packet_match()): the addresses are compared as two 8-byte
 * words, ((addr ^ rule) & mask) == 0 (ipv6_masked_addr_cmp()), which is
 * addr & mask == rule & mask: a key of those words, both sides masked; "-p" is in ip.proto only with
 * IP6T_F_PROTO (ir.c) and pi.proto is ipv6_find_hdr()'s answer, the
 * packets whose search fails never reaching the rules (prologue_ip6.c),
 * so CLS_PL4 and its hotdrop twin mean what they mean for IPv4.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if.h>

#include "cgen/classify.h"
#include "ext/ext.h"
#include "lib/bigmem.h"

/* word @w of an interface name under its rule's mask */
static uint64_t masked_name_word(const char *name, const unsigned char *mask,
				 int w)
{
	return ir_name_word(name, w) & ir_name_word((const char *)mask, w);
}

/* the tcp/udp match of @r, NULL if none; false if @r has another match
 * or one a key cannot express (its extension's cls_ports() says) */
static bool rule_l4(const struct ir_rule *r, const struct ir_match **l4)
{
	const struct ext_desc *x;

	*l4 = NULL;
	if (r->nmatch == 0)
		return true;
	if (r->nmatch > 1)
		return false;
	x = ext_of_kind(r->m[0].kind);
	if (!x->cls_ports || !x->cls_ports(&r->m[0]))
		return false;
	*l4 = &r->m[0];
	return true;
}

static uint32_t ports_mask(const struct ir_match *m)
{
	uint32_t mask = 0;

	if (m->tu.spts[0] == m->tu.spts[1])
		mask |= 0xffff0000u;
	if (m->tu.dpts[0] == m->tu.dpts[1])
		mask |= 0xffffu;
	return mask;
}

static void add_word(struct cls_group *g, enum cls_field f, uint8_t size,
		     uint64_t mask)
{
	g->w[g->nwords].field = f;
	g->w[g->nwords].size = size;
	g->w[g->nwords].mask = mask;
	g->nwords++;
	g->key_size += size;
}

/*
 * Is this "-i NAME" without "+": the mask covers the name up to and
 * including its NUL, and nothing after it?
 */
static bool exact_name(const char *name, const unsigned char *mask)
{
	unsigned int len = 0, i;

	while (len < IFNAMSIZ && mask[len] == 0xff)
		len++;
	for (i = len; i < IFNAMSIZ; i++)
		if (mask[i])
			return false;
	if (len == 0 || name[len - 1] != '\0')
		return false;
	for (i = 0; i + 1 < len; i++)
		if (name[i] == '\0')
			return false;
	return true;
}

/*
 * The key words of an interface name.  A whole name (the generated code
 * zeroes a device name's bytes after its NUL) is two full words, so all
 * "-i NAME" rules share one layout whatever the lengths; a "+" prefix keeps
 * its mask.
 */
static void add_name(struct cls_group *g, enum cls_field first,
		     const char *name, const unsigned char *mask)
{
	int w;

	if (!ir_name_word((const char *)mask, 0) &&
	    !ir_name_word((const char *)mask, 1))
		return;		/* no interface: the common case, quickly */
	if (exact_name(name, mask)) {
		add_word(g, first, 8, ~0ULL);
		add_word(g, first + 1, 8, ~0ULL);
		return;
	}
	for (w = 0; w < 2; w++) {
		uint64_t m = ir_name_word((const char *)mask, w);

		if (m)
			add_word(g, first + w, 8, m);
	}
}

/* word @w (0, 1) of a 16-byte address or mask, as the program loads it */
static uint64_t addr6_word(const uint8_t *a, int w)
{
	return ir_name_word((const char *)a, w);
}

/* Is @m a prefix (ones, then zeros)? */
static bool addr6_prefix_ok(const uint8_t *m)
{
	bool zeros = false;
	int i;

	for (i = 0; i < 16; i++) {
		if (zeros && m[i])
			return false;
		if (m[i] != 0xff) {
			/* 0xff << n within the byte, or not a prefix */
			if ((uint8_t)(m[i] | (m[i] - 1)) != 0xff && m[i])
				return false;
			zeros = true;
		}
	}
	return true;
}

/*
 * The key words of an IPv6 address under a prefix: each 8-byte half the
 * prefix reaches (ipv6_masked_addr_cmp() compares the two halves masked),
 * so "/64" is one word and "/128" two; a prefix's mask is its layout.
 * Masks that are not prefixes leave the rule to linear code (false), as
 * ip6tables only writes prefixes.  Unlike ip_packet_match(), the compare
 * is (addr ^ rule) & mask: bits of the rule's address outside its mask
 * are ignored, not a rule that never matches, and its key is the address
 * masked (rule_key()).
 */
static bool add_addr6(struct cls_group *g, enum cls_field first,
		      const uint8_t *m)
{
	int w;

	if (!addr6_prefix_ok(m))
		return false;
	for (w = 0; w < 2; w++)
		if (addr6_word(m, w))
			add_word(g, first + w, 8, addr6_word(m, w));
	return true;
}

/* @r's group (its key layout); false if @r cannot be classified */
static bool rule_group(const struct ir_rule *r, struct cls_group *g)
{
	const struct ipt_ip *ip = &r->ip;
	const struct ir_match *l4;

	/* not memset(): zeroing the eight words was 60% of this function,
	 * which runs three times per rule (needs, scan, maps); only the
	 * first nwords of w[] are ever read (same_layout(), rule_key()) */
	g->nwords = 0;
	g->key_size = 0;
	g->nrules = 0;
	g->map = -1;
	if (r->always || r->kernel_match)
		return false;
	if (!r->kernel && r->verdict != IRV_ACCEPT && r->verdict != IRV_DROP)
		return false;
	if (ip->invflags || (ip->flags & IPT_F_FRAG))
		return false;
	if ((ip->src.s_addr & ~ip->smsk.s_addr) ||
	    (ip->dst.s_addr & ~ip->dmsk.s_addr))
		return false;	/* never matches: leave it to linear code */
	if (!rule_l4(r, &l4))
		return false;
	add_name(g, CLS_IN0, ip->iniface, ip->iniface_mask);
	add_name(g, CLS_OUT0, ip->outiface, ip->outiface_mask);
	if (r->ip6) {	/* ip.src and ip.dst are 0: ir_ip6 has them */
		if (!add_addr6(g, CLS_SRC6_0, r->ip6->smsk) ||
		    !add_addr6(g, CLS_DST6_0, r->ip6->dmsk))
			return false;
	}
	if (ip->smsk.s_addr)
		add_word(g, CLS_SADDR, 4, ip->smsk.s_addr);
	if (ip->dmsk.s_addr)
		add_word(g, CLS_DADDR, 4, ip->dmsk.s_addr);
	if (l4)
		add_word(g, CLS_PL4, 4, 0xffff);
	else if (ip->proto)
		add_word(g, CLS_PL4, 4, 0xff);
	if (l4 && ports_mask(l4))
		add_word(g, CLS_PORTS, 4, ports_mask(l4));
	return g->nwords > 0 && g->key_size <= CLS_KEY_MAX;
}

bool cls_rule_ok(const struct ir_rule *r)
{
	struct cls_group g;

	return rule_group(r, &g);
}

static bool same_layout(const struct cls_group *a, const struct cls_group *b)
{
	unsigned int k;

	if (a->nwords != b->nwords)
		return false;
	for (k = 0; k < a->nwords; k++)
		if (a->w[k].field != b->w[k].field ||
		    a->w[k].mask != b->w[k].mask)
			return false;
	return true;
}

/* index of @g's layout in @run, adding it if there is room; -1: full */
static int find_group(struct cls_run *run, const struct cls_group *g)
{
	unsigned int k;

	for (k = 0; k < run->ngroups; k++)
		if (same_layout(&run->g[k], g))
			return (int)k;
	if (run->ngroups == CLS_MAX_GROUPS)
		return -1;
	run->g[run->ngroups] = *g;
	return (int)run->ngroups++;
}

bool cls_run_has_l4(const struct ir_table *ir, const struct cls_run *run)
{
	unsigned int j;

	for (j = run->start; j < run->start + run->len; j++) {
		const struct ir_match *l4;

		if (rule_l4(&ir->rules[j], &l4) && l4)
			return true;
	}
	return false;
}

unsigned int cls_scan(const struct ir_table *ir, unsigned int i,
		      struct cls_run *run, unsigned char *group)
{
	unsigned int j;

	memset(run, 0, sizeof(*run));
	run->start = i;
	run->group = group;
	for (j = i; j < ir->nrules; j++) {
		struct cls_group g;
		int k;

		if (j != i && ir->rules[j].func_start)
			break;
		if (!rule_group(&ir->rules[j], &g))
			break;
		k = find_group(run, &g);
		if (k < 0)
			break;
		/* what cls_describe_maps() would otherwise work out again
		 * per rule (its group's layout, compared with each group's) */
		group[j] = (unsigned char)k;
		run->g[k].nrules++;
		run->walks |= ir->rules[j].kernel;
	}
	run->len = j - i;
	return run->len;
}

bool cls_worth(const struct cls_run *run)
{
	return run->len >= CLS_MIN_RUN && run->len >= 4 * run->ngroups;
}

struct cls_entry {
	unsigned char key[CLS_KEY_MAX];
	struct cls_value val;
};

/* A group's entries, the first per key kept (rules come in order): an
 * open-addressing set of entry numbers; no sort (a commit of 10,000 rules
 * spent 200 ms under TCG sorting and rescanning the run per group). */
struct cls_table {
	struct cls_entry *e;
	unsigned int n, cap;
	uint32_t *slot;		/* entry + 1, 0 = free */
	unsigned int mask;
	unsigned int key_size;
};

/* a key is whole 32-bit words (add_word()); a word at a time, not
 * FNV-1a's byte at a time (half of table_add()).  Only the slots depend on
 * it: the entries stay in rule order. */
static uint32_t key_hash(const unsigned char *k, unsigned int n)
{
	uint64_t h = 0;
	uint32_t w;

	for (; n >= 4; n -= 4, k += 4) {
		memcpy(&w, k, 4);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	return (uint32_t)(h >> 32);
}

static int table_init(struct cls_table *t, unsigned int cap,
		      unsigned int key_size)
{
	unsigned int size = 16;

	while (size < 2 * cap)
		size *= 2;
	t->e = bigmem_alloc((size_t)cap * sizeof(*t->e));
	t->slot = bigmem_calloc(size, sizeof(*t->slot));
	t->n = 0;
	t->cap = cap;
	t->mask = size - 1;
	t->key_size = key_size;
	return t->e && t->slot ? 0 : -ENOMEM;
}

static void table_free(struct cls_table *t)
{
	bigmem_free(t->e);
	bigmem_free(t->slot);
}

/* add @key -> @val unless the key is there already (an earlier rule) */
static void table_add(struct cls_table *t, const unsigned char *key,
		      struct cls_value val)
{
	unsigned int i = key_hash(key, t->key_size) & t->mask;

	while (t->slot[i]) {
		if (!memcmp(t->e[t->slot[i] - 1].key, key, t->key_size))
			return;
		i = (i + 1) & t->mask;
	}
	if (t->n == t->cap)
		return;		/* cannot happen: cap is 2 per rule */
	memcpy(t->e[t->n].key, key, t->key_size);
	t->e[t->n].val = val;
	t->slot[i] = ++t->n;
}

/* @r's key in group @g, @l4 its tcp/udp match (rule_l4()); @hotdrop: its
 * hotdrop twin (l4state 2, ports 0) */
static void rule_key(const struct ir_rule *r, const struct cls_group *g,
		     const struct ir_match *l4, bool hotdrop,
		     unsigned char *key)
{
	const struct ipt_ip *ip = &r->ip;
	unsigned int k, off = 0;

	memset(key, 0, CLS_KEY_MAX);
	for (k = 0; k < g->nwords; k++) {
		const struct cls_word *w = &g->w[k];
		uint64_t v = 0;
		uint32_t v32;

		switch (w->field) {
		case CLS_IN0:	/* the rule's own mask: nothing after a NUL */
		case CLS_IN1:
			v = masked_name_word(ip->iniface, ip->iniface_mask,
					     w->field - CLS_IN0);
			break;
		case CLS_OUT0:
		case CLS_OUT1:
			v = masked_name_word(ip->outiface, ip->outiface_mask,
					     w->field - CLS_OUT0);
			break;
		case CLS_SADDR:
			v = ip->src.s_addr;
			break;
		case CLS_DADDR:
			v = ip->dst.s_addr;
			break;
		case CLS_PL4:
			v = ip->proto;
			if (l4)
				v |= (hotdrop ? CLS_L4_HOTDROP : CLS_L4_OK) << 8;
			break;
		case CLS_PORTS:
			if (!hotdrop)
				v = (uint32_t)l4->tu.spts[0] << 16 |
				    l4->tu.dpts[0];
			break;
		case CLS_SRC6_0:
		case CLS_SRC6_1:
			v = addr6_word(r->ip6->src, w->field - CLS_SRC6_0);
			break;
		case CLS_DST6_0:
		case CLS_DST6_1:
			v = addr6_word(r->ip6->dst, w->field - CLS_DST6_0);
			break;
		}
		v &= w->mask;
		if (w->size == 8) {
			memcpy(key + off, &v, 8);
		} else {
			v32 = (uint32_t)v;
			memcpy(key + off, &v32, 4);
		}
		off += w->size;
	}
}

/* @t as the elements of a map description: key, then the value */
static int table_elems(const struct cls_table *t, struct cg_map *m)
{
	size_t rec = t->key_size + sizeof(struct cls_value);
	unsigned int k;

	m->elems = malloc((size_t)(t->n ? t->n : 1) * rec);
	if (!m->elems)
		return -ENOMEM;
	for (k = 0; k < t->n; k++) {
		memcpy(m->elems + k * rec, t->e[k].key, t->key_size);
		memcpy(m->elems + k * rec + t->key_size, &t->e[k].val,
		       sizeof(struct cls_value));
	}
	m->nelems = t->n;
	return 0;
}

/* @t's few entries kept for inline compares (the group gets no map) */
static void table_inline(const struct cls_table *t, struct cls_inline *in)
{
	unsigned int k;

	in->n = t->n;
	for (k = 0; k < t->n; k++) {
		memcpy(in->key[k], t->e[k].key, CLS_KEY_MAX);
		in->val[k] = t->e[k].val;
	}
}

int cls_describe_maps(const struct ir_table *ir, struct cls_run *run,
		      struct cg_prog *p, char *err, size_t err_len)
{
	struct cls_table t[CLS_MAX_GROUPS];
	unsigned char key[CLS_KEY_MAX];
	unsigned int j, k;
	int r = 0;

	memset(t, 0, sizeof(t));
	for (k = 0; k < run->ngroups; k++) {
		run->g[k].map = -1;
		if (!r)
			r = table_init(&t[k], 2 * run->g[k].nrules,
				       run->g[k].key_size);
	}
	if (r) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	/* one pass over the run, in rule order: the first rule per key wins */
	for (j = run->start; j < run->start + run->len; j++) {
		const struct ir_rule *rule = &ir->rules[j];
		const struct ir_match *l4;
		unsigned int g = run->group[j];	/* cls_scan()'s */

		rule_l4(rule, &l4);
		rule_key(rule, &run->g[g], l4, false, key);
		table_add(&t[g], key, (struct cls_value) {
			.v = rule->idx << CLS_V_SHIFT |
			     (rule->kernel ? CLS_V_WALK :
			      rule->verdict == IRV_ACCEPT ? CLS_V_ACCEPT : 0),
			.off = rule->off });
		if (l4 && !run->hd_walk) {	/* the kernel's walk would drop it there too */
			rule_key(rule, &run->g[g], l4, true, key);
			table_add(&t[g], key, (struct cls_value) {
				.v = rule->idx << CLS_V_SHIFT | CLS_V_HOTDROP,
				.off = rule->off });
		}
	}
	for (k = 0; k < run->ngroups && !r; k++) {
		struct cg_map m = { .name = "ebpf_cls",
				    .type = BPF_MAP_TYPE_HASH,
				    .key_size = run->g[k].key_size,
				    .value_size = sizeof(struct cls_value),
				    .max_entries = t[k].n,
				    .source = CG_MAP_OWN };

		if (t[k].n <= CLS_INLINE_MAX) {
			table_inline(&t[k], &run->inl[k]);
			continue;
		}
		r = table_elems(&t[k], &m);
		if (!r) {
			run->g[k].map = cg_prog_add_map(p, &m);
			if (run->g[k].map < 0)
				r = -ENOMEM;
		}
		if (r)
			snprintf(err, err_len, "out of memory");
	}
out:
	for (k = 0; k < run->ngroups; k++)
		table_free(&t[k]);
	return r;
}
