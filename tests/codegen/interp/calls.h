/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calls: bpf-to-bpf calls, helpers, kfuncs.  Included by interp.c only (a
 * split for size: it uses interp.c's static state and checks).
 */

static __u64 scalar_arg(struct st *s, int r)
{
	const struct reg *x = rd(s, r);

	if (x->t != T_SCALAR)
		fail(s, "r%d: a pointer where a scalar is expected", r);
	return x->v;
}

static void want_ctx(struct st *s, int r, bool tc_only)
{
	const struct reg *x = rd(s, r);

	if (x->t != RG_CTX || x->v != (__u64)(unsigned long)s->ctxbuf)
		fail(s, "r%d is not the ctx", r);
	if (tc_only && s->e->ctx != IP_CTX_TC)
		fail(s, "helper needs an skb ctx (not on netfilter programs)");
}

static void ret_scalar(struct st *s, __u64 v)
{
	clobber_args(s);
	set_scalar(s, 0, v);
}

static void helper_map_lookup(struct st *s)
{
	const struct reg *m = rd(s, 1);
	struct ip_map *map;
	unsigned char *key, *v;

	if (m->t != T_MAP)
		fail(s, "map_lookup_elem: r1 is not a map");
	map = (struct ip_map *)(unsigned long)m->v;
	if (map->type == BPF_MAP_TYPE_PROG_ARRAY)
		fail(s, "map_lookup_elem on a prog array");
	key = arg_mem(s, 2, map->key_size, false);
	v = ip_map_lookup(map, key);
	ret_scalar(s, 0);
	if (v)
		s->r[0] = (struct reg){ (__u64)(unsigned long)v,
					map_value_region(s, map, v), true, ++s->null_ids };
}

static void helper_tail_call(struct st *s)
{
	const struct reg *m;
	struct ip_map *map;
	__u64 idx;

	want_ctx(s, 1, false);
	m = rd(s, 2);
	if (m->t != T_MAP)
		fail(s, "tail_call: r2 is not a map");
	map = (struct ip_map *)(unsigned long)m->v;
	if (map->type != BPF_MAP_TYPE_PROG_ARRAY)
		fail(s, "tail_call: r2 is not a prog array");
	idx = (__u32)scalar_arg(s, 3);
	if (s->nfr != 1)
		fail(s, "tail call from a subprogram (not emulated)");
	/* the kernel: out of range, empty slot or too many: fall through */
	if (idx >= map->max_entries || !map->progs[idx] ||
	    s->e->tail_calls >= TAIL_MAX) {
		clobber_args(s);
		s->r[0].init = false;	/* RET_VOID */
		s->pc++;
		return;
	}
	s->e->tail_calls++;
	enter_prog(s, map->progs[idx]);
}

static void helper_skb_load_bytes(struct st *s)
{
	__u64 off, len;
	unsigned char *to;

	want_ctx(s, 1, true);
	off = scalar_arg(s, 2);
	len = scalar_arg(s, 4);
	if (!len || len > STACK)
		fail(s, "skb_load_bytes: length %llu", (unsigned long long)len);
	to = arg_mem(s, 3, len, true);
	mark_stack(s, to, len, SB_INIT);
	if (off > 0x7fffffff || off + len > s->e->pkt_len) {
		memset(to, 0, len);
		ret_scalar(s, (__u64)-EFAULT);
		return;
	}
	memcpy(to, s->e->pkt + off, len);
	ret_scalar(s, 0);
}

static void helper_fib_lookup(struct st *s)
{
	struct bpf_fib_lookup f;
	unsigned char *p;
	__u64 plen, flags;
	int r = BPF_FIB_LKUP_RET_NOT_FWDED;

	want_ctx(s, 1, true);
	plen = scalar_arg(s, 3);
	flags = scalar_arg(s, 4);
	if (plen != sizeof(f))
		fail(s, "fib_lookup: params length %llu", (unsigned long long)plen);
	if (flags & ~(__u64)(BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_OUTPUT))
		fail(s, "fib_lookup: flags %#llx", (unsigned long long)flags);
	p = arg_mem(s, 2, sizeof(f), false);	/* read: must be set */
	arg_mem(s, 2, sizeof(f), true);
	memcpy(&f, p, sizeof(f));
	if (f.family != 2 /* AF_INET */)
		fail(s, "fib_lookup: family %u", f.family);
	if (s->e->fib_lookup)
		r = s->e->fib_lookup(s->e->fib_arg, &f);
	memcpy(p, &f, sizeof(f));
	ret_scalar(s, (__u64)(__s64)r);
}

/* bpf_probe_read_kernel(dst, size, unsafe): the source is an address; in
 * this world it must lie in a known region (stack bytes carry their
 * initialization along) */
static void helper_probe_read_kernel(struct st *s)
{
	__u64 n = scalar_arg(s, 2), a;
	unsigned char *dst;
	int src;

	if (!n || n > STACK)
		fail(s, "probe_read_kernel: size %llu", (unsigned long long)n);
	dst = arg_mem(s, 1, n, true);
	a = rd(s, 3)->v;
	src = region_at(s, a, n);
	if (src < 0)
		fail(s, "probe_read_kernel: %llu bytes at %#llx: no known object there",
		     (unsigned long long)n, (unsigned long long)a);
	if (src < FRAMES) {
		size_t o = a - (__u64)(unsigned long)s->stack[src];
		unsigned char init[STACK];

		memcpy(init, &s->sb[src][o], n);
		memmove(dst, (void *)(unsigned long)a, n);
		for (size_t k = 0; k < n; k++)
			mark_stack(s, dst + k, 1, init[k] == SB_INIT ? SB_INIT : SB_UNINIT);
	} else {
		memmove(dst, (void *)(unsigned long)a, n);
		mark_stack(s, dst, n, SB_INIT);
	}
	ret_scalar(s, 0);
}

/* ----- kfuncs ------------------------------------------------------------ */

/* the stack frame and offset of a dynptr argument (a pointer to its first
 * byte on some frame's stack) */
static unsigned char *dynptr_arg(struct st *s, int r, bool init, int *frame)
{
	const struct reg *x = rd(s, r);
	size_t o;

	if (x->t < 0 || x->t >= s->nfr)
		fail(s, "r%d: a dynptr must be on the stack", r);
	o = x->v - (__u64)(unsigned long)s->stack[x->t];
	if (o % 8 || o + 16 > STACK)
		fail(s, "r%d: misaligned or out-of-bounds dynptr", r);
	if (init && s->sb[x->t][o] != SB_DYNPTR0)
		fail(s, "r%d: not an initialized dynptr", r);
	*frame = x->t;
	return s->stack[x->t] + o;
}

static void kf_dynptr_from_skb(struct st *s)
{
	const struct reg *skb = rd(s, 1);
	unsigned char *d;
	int f;

	if (s->e->ctx == IP_CTX_NF) {
		if (skb->t < 0 || skb->v != (__u64)(unsigned long)s->e->nf_skb)
			fail(s, "bpf_dynptr_from_skb: r1 is not the skb");
	} else {
		want_ctx(s, 1, true);
	}
	if (scalar_arg(s, 2))
		fail(s, "bpf_dynptr_from_skb: flags must be 0");
	d = dynptr_arg(s, 3, false, &f);
	if (d - s->stack[f] + 16 > STACK - 0)
		fail(s, "dynptr out of the stack");
	/* the verifier lets a dynptr only be made where it can track it */
	mem(s, rd(s, 3), 0, 16, true, &f);
	memset(d, 0xdd, 16);
	s->sb[f][d - s->stack[f]] = SB_DYNPTR0;
	memset(&s->sb[f][d - s->stack[f] + 1], SB_DYNPTR, 15);
	ret_scalar(s, 0);
}

static void kf_dynptr_slice(struct st *s)
{
	struct ip_env *e = s->e;
	__u64 off = scalar_arg(s, 2), n = scalar_arg(s, 4);
	const struct reg *buf = rd(s, 3);
	unsigned char *b = NULL;
	int f;

	dynptr_arg(s, 1, true, &f);
	if (!n || n > STACK)
		fail(s, "bpf_dynptr_slice: size %llu", (unsigned long long)n);
	if (buf->t != T_SCALAR || buf->v) {
		b = arg_mem(s, 3, n, true);
	}
	if (off > e->pkt_len || off + n > e->pkt_len) {
		ret_scalar(s, 0);
		return;
	}
	if (!e->slice_copy && off + n <= e->headlen) {
		/* in the linear data: a pointer to it, the buffer untouched */
		ret_scalar(s, 0);
		s->r[0] = (struct reg){ (__u64)(unsigned long)(e->pkt + off),
			add_region(s, e->pkt + off, n, RF_R, -1, "dynptr slice"), true,
			++s->null_ids };
		return;
	}
	if (!b) {
		ret_scalar(s, 0);
		return;
	}
	memcpy(b, e->pkt + off, n);
	mark_stack(s, b, n, SB_INIT);
	ret_scalar(s, 0);
	s->r[0] = (struct reg){ (__u64)(unsigned long)b,
		add_region(s, b, n, RF_R, -1, "dynptr slice (copy)"), true, ++s->null_ids };
}

static void kf_rdonly_cast(struct st *s)
{
	__u64 a = rd(s, 1)->v, id = scalar_arg(s, 2);
	size_t size = 0;
	int k, back;

	for (k = 0; k < s->e->nbtf; k++)
		if ((__u64)s->e->btf[k].id == id)
			size = s->e->btf[k].size;
	if (!size)
		fail(s, "bpf_rdonly_cast: unknown BTF id %llu", (unsigned long long)id);
	ret_scalar(s, 0);
	if (!a) {
		s->r[0].t = T_BTFNULL;
		return;
	}
	back = region_at(s, a, 1);
	if (back < 0 || back < FRAMES || back == RG_CTX)
		fail(s, "bpf_rdonly_cast of %#llx: not a kernel object or packet data",
		     (unsigned long long)a);
	{
		const struct region *g = &s->rg[back];
		size_t left = g->size - (size_t)(a - (__u64)(unsigned long)g->base);

		s->r[0] = (struct reg){ a, add_region(s, (void *)(unsigned long)a,
			size < left ? size : left, RF_R | (g->flags & RF_KOBJ), g->kobj,
			"rdonly_cast view"), true, 0 };
	}
}

static void do_call(struct st *s, const struct bpf_insn *i)
{
	struct ip_env *e = s->e;

	if (i->dst_reg || i->off)
		fail(s, "malformed call");
	if (i->src_reg == BPF_PSEUDO_CALL) {
		long t = (long)s->pc + i->imm + 1;
		struct frame *fr;

		if (t < 0 || (size_t)t >= s->p->n || s->half[t])
			fail(s, "call target %ld out of the program", t);
		if (s->nfr == FRAMES)
			fail(s, "call depth above %d frames", FRAMES);
		fr = &s->fr[s->nfr];
		memcpy(fr->saved, &s->r[6], sizeof(fr->saved));
		fr->ret_pc = s->pc + 1;
		fr->entry = (size_t)t;
		memset(s->sb[s->nfr], SB_UNINIT, STACK);
		for (int k = 0; k < STACK / 8; k++)
			s->spill[s->nfr][k] = T_SCALAR;
		s->r[10] = (struct reg){ (__u64)(unsigned long)(s->stack[s->nfr] + STACK),
					 s->nfr, true, 0 };
		s->nfr++;
		if (s->nfr > e->max_frames)
			e->max_frames = s->nfr;
		for (int r = 6; r <= 9; r++)
			s->r[r].init = false;
		s->r[0].init = false;
		check_depth(s);
		s->pc = (size_t)t;
		return;
	}
	if (i->src_reg == BPF_PSEUDO_KFUNC_CALL) {
		if (e->ctx != IP_CTX_NF)
			fail(s, "kfunc call in a tc program (not emulated)");
		if (i->imm == e->kf_dynptr_from_skb)
			kf_dynptr_from_skb(s);
		else if (i->imm == e->kf_dynptr_slice)
			kf_dynptr_slice(s);
		else if (i->imm == e->kf_rdonly_cast)
			kf_rdonly_cast(s);
		else
			fail(s, "unknown kfunc BTF id %d", i->imm);
		s->pc++;
		return;
	}
	if (i->src_reg)
		fail(s, "unknown call kind %d", i->src_reg);
	switch (i->imm) {
	case BPF_FUNC_map_lookup_elem:
		helper_map_lookup(s);
		break;
	case BPF_FUNC_tail_call:
		helper_tail_call(s);
		return;		/* sets pc itself */
	case BPF_FUNC_skb_load_bytes:
		helper_skb_load_bytes(s);
		break;
	case BPF_FUNC_fib_lookup:
		helper_fib_lookup(s);
		break;
	case BPF_FUNC_probe_read_kernel:
		helper_probe_read_kernel(s);
		break;
	default:
		fail(s, "unknown helper %d", i->imm);
	}
	s->pc++;
}

/* 1 when the program returned (r0 in *ret) */
static int do_exit(struct st *s, __u64 *ret)
{
	struct frame *fr;

	if (!s->r[0].init)
		fail(s, "exit with r0 unset");
	if (s->r[0].t != T_SCALAR)
		fail(s, "returning a pointer");
	if (s->nfr == 1) {
		/* the verifier's return range for netfilter programs */
		if (s->e->ctx == IP_CTX_NF && !s->e->any_ret && s->r[0].v > NF_ACCEPT)
			fail(s, "netfilter program returns %llu (NF_DROP or NF_ACCEPT only)",
			     (unsigned long long)s->r[0].v);
		*ret = s->r[0].v;
		return 1;
	}
	fr = &s->fr[--s->nfr];
	memcpy(&s->r[6], fr->saved, sizeof(fr->saved));
	clobber_args(s);
	s->r[10] = (struct reg){ (__u64)(unsigned long)(s->stack[s->nfr - 1] + STACK),
				 s->nfr - 1, true, 0 };
	s->pc = fr->ret_pc;
	return 0;
}
