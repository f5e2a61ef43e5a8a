/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program's context: a tc struct __sk_buff (emulated fields) or a
 * netfilter struct bpf_nf_ctx.  Included by interp.c only (a split for
 * size: it uses interp.c's static state and checks).
 */

/* ----- ctx ---------------------------------------------------------------- */

#define SKB_OFF(f) offsetof(struct __sk_buff, f)

static bool skb_readable(size_t o)
{
	static const size_t ok[] = {
		SKB_OFF(len), SKB_OFF(pkt_type), SKB_OFF(mark), SKB_OFF(protocol),
		SKB_OFF(priority), SKB_OFF(ingress_ifindex), SKB_OFF(ifindex),
		SKB_OFF(tc_index), SKB_OFF(hash), SKB_OFF(cb[0]), SKB_OFF(cb[1]),
		SKB_OFF(cb[2]), SKB_OFF(cb[3]), SKB_OFF(cb[4]),
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (o / 4 * 4 == ok[i])
			return true;
	return false;
}

static bool skb_writable(size_t o)
{
	return (o >= SKB_OFF(cb[0]) && o < SKB_OFF(cb[4]) + 4) ||
	       o / 4 * 4 == SKB_OFF(mark) || o / 4 * 4 == SKB_OFF(priority) ||
	       o / 4 * 4 == SKB_OFF(tc_index);
}

static void ctx_load(struct st *s, int dst, const struct reg *base, int off, size_t n)
{
	struct ip_env *e = s->e;

	if (base->v != (__u64)(unsigned long)s->ctxbuf)
		fail(s, "ctx access through a modified ctx pointer");
	if (off < 0 || off % (int)n)
		fail(s, "misaligned or negative ctx offset %d", off);
	if (e->ctx == IP_CTX_NF) {
		/* struct bpf_nf_ctx { state; skb; } */
		if (n != 8 || (off != 0 && off != 8))
			fail(s, "netfilter ctx: only state (0) and skb (8) as u64");
		s->r[dst] = (struct reg){ (__u64)(unsigned long)(off ? e->nf_skb : e->nf_state),
					  T_SCALAR, true, 0 };
		s->r[dst].t = region_at(s, s->r[dst].v, 1);
		if (s->r[dst].t < RG_KOBJ || !(s->rg[s->r[dst].t].flags & RF_KOBJ))
			fail(s, "netfilter ctx: %s is not a fake kernel object",
			     off ? "skb" : "state");
		return;
	}
	if (off == (int)SKB_OFF(data) || off == (int)SKB_OFF(data_end)) {
		if (n != 4)
			fail(s, "__sk_buff data/data_end: 4-byte loads only");
		if (off == (int)SKB_OFF(data))
			s->r[dst] = (struct reg){ (__u64)(unsigned long)e->pkt, RG_PKT, true, 0 };
		else
			s->r[dst] = (struct reg){ (__u64)(unsigned long)(e->pkt + e->headlen),
						  T_PKTEND, true, 0 };
		return;
	}
	if ((size_t)off + n > sizeof(struct __sk_buff) || n == 8 ||
	    !skb_readable((size_t)off))
		fail(s, "__sk_buff field at offset %d (%zu bytes) not emulated", off, n);
	e->skb.len = e->pkt_len;
	set_scalar(s, dst, load_n((unsigned char *)&e->skb + off, n));
}

static void ctx_store(struct st *s, const struct reg *base, int off, size_t n,
		      const struct reg *val)
{
	if (base->v != (__u64)(unsigned long)s->ctxbuf)
		fail(s, "ctx access through a modified ctx pointer");
	if (s->e->ctx == IP_CTX_NF)
		fail(s, "the netfilter ctx is read-only");
	if (val->t != T_SCALAR)
		fail(s, "storing a pointer into the ctx");
	if (off < 0 || off % (int)n || n == 8 || (size_t)off + n > sizeof(struct __sk_buff) ||
	    !skb_writable((size_t)off))
		fail(s, "__sk_buff field at offset %d (%zu bytes) is not writable", off, n);
	store_n((unsigned char *)&s->e->skb + off, n, val->v);
}
