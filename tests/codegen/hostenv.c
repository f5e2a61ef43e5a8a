// SPDX-License-Identifier: GPL-2.0
/* The host suite's world (hostenv.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/pkt_cls.h>

#include <ebpfilter/ctl.h>

#include "hostenv.h"
#include "ref.h"

/* ----- maps ---------------------------------------------------------------- */

static int map_from(struct ip_map *m, const struct cg_map *d)
{
	if (ip_map_init(m, d->type, d->key_size, d->value_size, d->max_entries,
			d->map_flags))
		return -1;
	m->name = d->name;
	return 0;
}

static bool same_shape(const struct ip_map *m, const struct cg_map *d)
{
	return m->type == d->type && m->key_size == d->key_size &&
	       m->value_size == d->value_size && m->max_entries == d->max_entries;
}

int hprog_build(struct hprog *h, struct shared *sh, const char *name,
		char *err, size_t len)
{
	const struct cg_prog *p = &h->cg;
	struct ip_map *shm[5] = { &sh->counters, &sh->ifinfo, &sh->gen, &sh->progs,
				  &sh->resume };

	h->own = calloc(p->nmaps + 1, sizeof(*h->own));
	h->mp = calloc(p->nmaps + 1, sizeof(*h->mp));
	if (!h->own || !h->mp) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < p->nmaps; i++) {
		const struct cg_map *d = &p->maps[i];
		int s = (int)d->source - CG_MAP_COUNTERS;

		if (d->source == CG_MAP_OWN) {
			size_t rec = (size_t)d->key_size + d->value_size;

			if (map_from(&h->own[i], d)) {
				snprintf(err, len, "map %u (%s): bad description", i, d->name);
				return -1;
			}
			for (__u32 k = 0; k < d->nelems; k++)
				if (ip_map_update(&h->own[i], d->elems + k * rec,
						  d->elems + k * rec + d->key_size)) {
					snprintf(err, len, "map %u (%s): element %u does not fit (%u max)",
						 i, d->name, k, d->max_entries);
					return -1;
				}
			h->mp[i] = &h->own[i];
			continue;
		}
		if (s < 0 || s > 4) {
			snprintf(err, len, "map %u: unknown source %d", i, d->source);
			return -1;
		}
		if (d->nelems) {
			snprintf(err, len, "shared map %u (%s) with elements", i, d->name);
			return -1;
		}
		if (!sh->have[s]) {
			if (map_from(shm[s], d)) {
				snprintf(err, len, "shared map %u (%s): bad description", i, d->name);
				return -1;
			}
			sh->have[s] = true;
		} else if (!same_shape(shm[s], d)) {
			snprintf(err, len, "shared map %u (%s) described unlike the shared object",
				 i, d->name);
			return -1;
		}
		h->mp[i] = shm[s];
	}
	h->ip = (struct ip_prog){ name, p->insns, p->n, h->mp, p->nmaps };
	return 0;
}

void hprog_free(struct hprog *h)
{
	for (unsigned int i = 0; h->own && i < h->cg.nmaps; i++)
		ip_map_free(&h->own[i]);
	free(h->own);
	free(h->mp);
	cg_prog_free(&h->cg);
	memset(h, 0, sizeof(*h));
}

void shared_free(struct shared *sh)
{
	ip_map_free(&sh->counters);
	ip_map_free(&sh->ifinfo);
	ip_map_free(&sh->gen);
	ip_map_free(&sh->progs);
	ip_map_free(&sh->resume);
	memset(sh, 0, sizeof(*sh));
}

bool shared_resume(const struct shared *sh, struct ebpf_resume *r)
{
	if (!sh->have[4] || sh->resume.value_size != sizeof(*r))
		return false;
	memcpy(r, sh->resume.vals, sizeof(*r));
	return true;
}

struct cg_counter shared_counter(const struct shared *sh, unsigned int idx)
{
	struct cg_counter c = { 0, 0 };

	if (sh->have[0] && (idx + 1) * sizeof(c) <= sh->counters.value_size)
		memcpy(&c, sh->counters.vals + idx * sizeof(c), sizeof(c));
	return c;
}

int shared_module_walk(struct shared *sh, unsigned int nfhook, const struct ref_pkt *rp)
{
	struct ebpf_resume from, to;
	struct cg_counter *ctr;
	int v;

	if (!sh->ir || !shared_resume(sh, &from))
		return 2;
	v = ref_rule_at(sh->ir, from.entry);
	if (v < 0 || sh->ir->rules[v].kernel)
		return 2;	/* the kernel's rule, or no rule: as it is */
	ctr = calloc(sh->ir->nrules, sizeof(*ctr));
	if (!ctr)
		return -ENOMEM;
	memset(&to, 0, sizeof(to));
	v = ref_resume(sh->ir, nfhook, rp, ctr, &from, &to);
	for (unsigned int e = 0; e < sh->ir->nrules && sh->have[0]; e++) {
		struct cg_counter c = shared_counter(sh, e);

		if ((e + 1) * sizeof(c) > sh->counters.value_size)
			break;
		c.pkts += ctr[e].pkts;
		c.bytes += ctr[e].bytes;
		memcpy(sh->counters.vals + e * sizeof(c), &c, sizeof(c));
	}
	free(ctr);
	if (v == 2)
		memcpy(sh->resume.vals, &to, sizeof(to));
	return v < 0 ? -ERANGE : v;
}

void shared_zero_counters(struct shared *sh)
{
	if (sh->have[0])
		memset(sh->counters.vals, 0, sh->counters.value_size);
}

/* ----- runs --------------------------------------------------------------- */

static void set_ifname(struct shared *sh, __u32 ifindex, const char *name)
{
	struct cg_ifinfo v;

	memset(&v, 0, sizeof(v));
	strncpy(v.name, name ? name : "", sizeof(v.name) - 1);
	v.l2len = 14;
	ip_map_update(&sh->ifinfo, &ifindex, &v);
}

/* a fake net_device named @name at the pointer field @field ("-": NULL);
 * after the name's NUL, bytes of an older, longer name (strscpy() does not
 * clear them), which the prologue must not compare */
static void set_dev(unsigned char *field, unsigned char *dev, const char *name)
{
	static const char old[16] = "oldername_xyz12";
	__u64 v = 0;
	size_t n = strlen(name);

	memset(dev, 0x5a, DEV_SIZE);
	memcpy(dev + DEV_NAME, old, 16);
	if (strcmp(name, "-")) {
		memcpy(dev + DEV_NAME, name, n < 15 ? n + 1 : 16);
		v = (__u64)(unsigned long)dev;
	}
	memcpy(field, &v, 8);
}

static int fib(void *arg, struct bpf_fib_lookup *f)
{
	const struct run_opts *ro = arg;

	if (ro->fib_ret == BPF_FIB_LKUP_RET_SUCCESS ||
	    ro->fib_ret == BPF_FIB_LKUP_RET_NO_NEIGH)
		f->ifindex = ro->fib_ifindex;
	return ro->fib_ret;
}

static const unsigned int nfhook[CG_NHOOKS] = {
	NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT };

/* the conntrack state bits (IR_CT_*) of the run's packet, as xt_conntrack
 * computes them from skb->_nfct and the entry's status */
static __u32 ref_ctstate(const struct run_opts *ro)
{
	if (ro->ct)	/* XT_CONNTRACK_STATE_BIT(ctinfo), NAT bits */
		return 1u << (ro->ctinfo % 3 + 1) |
		       (ro->ct_status & (1 << 4) ? IR_CT_SNAT : 0) |
		       (ro->ct_status & (1 << 5) ? IR_CT_DNAT : 0);
	return ro->ctinfo == 7 ? IR_CT_UNTRACKED : IR_CT_INVALID;
}

static void ref_pkt_of(const struct flavor *f, int hook, const struct pkt *p,
		       const struct run_opts *ro, unsigned char *buf, struct ref_pkt *rp);

unsigned long host_last_insns, host_last_lookups;

int host_run(const struct flavor *f, struct shared *sh, const struct ip_prog *ip,
	     int hook, const struct pkt *p, const struct run_opts *ro,
	     unsigned int *iplen, __u64 *raw, char *err, size_t len)
{
	static const struct run_opts none = { 0 };
	unsigned char buf[256], skb[SKB_SIZE], state[STATE_SIZE], dev[DEV_SIZE],
		      dev_in[DEV_SIZE], ct[CT_SIZE];
	struct ip_env e;
	size_t n;
	__u64 r = 0, v;

	if (!ro)
		ro = &none;
	memset(&e, 0, sizeof(e));
	e.budget = 20000000;
	if (f->mech == CG_KMOD) {
		/* what ebpfilter.ko gives a program (ebpfilter/ctl.h): the
		 * IP header at data, devices and conntrack state in cb[];
		 * the devices as in the tc world (ifindex 1 in, 2 out) */
		n = build_pkt(p, false, buf, iplen);
		e.ctx = IP_CTX_TC;
		e.skb.protocol = htons(0x0800);
		e.skb.cb[EBPF_CB_IN_IFINDEX] = hook == CG_OUTPUT ? 0 : 1;
		e.skb.cb[EBPF_CB_OUT_IFINDEX] = hook == CG_INPUT ? 0 : 2;
		e.skb.cb[EBPF_CB_CTSTATE] = ref_ctstate(ro);
		e.skb.cb[EBPF_CB_HOOK] = nfhook[hook];
		if (sh->have[1]) {
			set_ifname(sh, 1, p->in);
			set_ifname(sh, 2, p->out);
		}
	} else if (f->mech == CG_TC) {
		n = build_pkt(p, true, buf, iplen);
		e.ctx = IP_CTX_TC;
		e.skb.protocol = htons(0x0800);
		/* as cgtest: ifindex 1 is the device, 2 the output device
		 * the dispatcher found; l2len 14 */
		e.skb.ifindex = 1;
		e.skb.ingress_ifindex = ro->ingress_ifindex;
		e.skb.cb[0] = ro->clear_cb ? 0 : 2;
		e.skb.cb[1] = ro->clear_cb ? 0 : 14;
		e.fib_lookup = fib;
		e.fib_arg = (void *)ro;
		if (sh->have[1]) {
			set_ifname(sh, 1, hook == CG_OUTPUT ? p->out : p->in);
			set_ifname(sh, 2, p->out);
		}
	} else {
		n = build_pkt(p, false, buf, iplen);
		e.ctx = IP_CTX_NF;
		memset(skb, 0xa5, sizeof(skb));	/* what no one should read */
		memset(state, 0, sizeof(state));
		memset(ct, 0, sizeof(ct));
		/* as BPF_PROG_TEST_RUN unless told: no input device,
		 * output "lo" */
		set_dev(state + STATE_IN, dev_in, ro->nf_in ? ro->nf_in : "-");
		set_dev(state + STATE_OUT, dev, ro->nf_out ? ro->nf_out : "lo");
		/* nf_ct_get(): entry pointer | ctinfo in skb->_nfct */
		v = (ro->ct ? (__u64)(unsigned long)ct : 0) | (ro->ctinfo & 7);
		memcpy(skb + SKB_NFCT, &v, 8);
		memcpy(ct + CT_STATUS, &ro->ct_status, 8);
		e.nf_state = state;
		e.nf_skb = skb;
		e.kobj[0] = (struct ip_kobj){ skb, sizeof(skb), { 0 }, 0 };
		e.kobj[1] = (struct ip_kobj){ state, sizeof(state),
					      { STATE_IN, STATE_OUT }, 2 };
		e.kobj[2] = (struct ip_kobj){ dev, sizeof(dev), { 0 }, 0 };
		e.kobj[3] = (struct ip_kobj){ ct, sizeof(ct), { 0 }, 0 };
		e.kobj[4] = (struct ip_kobj){ dev_in, sizeof(dev_in), { 0 }, 0 };
		e.nkobj = 5;
		e.kf_dynptr_from_skb = KF_FROM_SKB;
		e.kf_dynptr_slice = KF_SLICE;
		e.kf_rdonly_cast = KF_CAST;
		e.btf[0] = (struct ip_btf_type){ BTF_IPHDR, 20 };
		e.btf[1] = (struct ip_btf_type){ BTF_TCPHDR, 20 };
		e.btf[2] = (struct ip_btf_type){ BTF_STATE, STATE_SIZE };
		e.nbtf = 3;
	}
	e.pkt = buf;
	e.pkt_len = (__u32)n;
	e.headlen = ro->headlen && ro->headlen < n ? ro->headlen : (__u32)n;
	if (f->mech == CG_NETFILTER) {
		__u32 l = (__u32)n, dl = (__u32)n - e.headlen;

		memcpy(skb + SKB_LEN, &l, 4);
		memcpy(skb + SKB_DATA_LEN, &dl, 4);
		v = (__u64)(unsigned long)buf;
		memcpy(skb + SKB_DATA, &v, 8);
	}
	if (ip_run(&e, ip, &r)) {
		snprintf(err, len, "%s", e.err);
		return -EFAULT;
	}
	host_last_insns = e.insns_run;
	host_last_lookups = e.calls[BPF_FUNC_map_lookup_elem];
	*raw = r;
	if (f->mech == CG_NETFILTER)
		return r == NF_ACCEPT ? 1 : r == NF_DROP ? 0 : -ERANGE;
	if (f->mech == CG_KMOD && r == EBPF_PROG_WALK) {
		struct ref_pkt rp;

		ref_pkt_of(f, hook, p, ro, buf, &rp);
		return shared_module_walk(sh, nfhook[hook], &rp);
	}
	if (f->mech == CG_KMOD)
		return r == EBPF_PROG_ACCEPT ? 1 : r == EBPF_PROG_DROP ? 0 : -ERANGE;
	if ((int)r == TC_ACT_UNSPEC)
		return 1;
	return r == TC_ACT_SHOT ? 0 : -ERANGE;
}

/* ----- the reference, in the same world ---------------------------------- */

static void ref_name(char *dst, const char *name)
{
	memset(dst, 0, IFNAMSIZ);
	if (name && strcmp(name, "-"))
		strncpy(dst, name, IFNAMSIZ - 1);
}

/* what ip_tables sees of @p in @f's world (host_run()); @buf holds it */
static void ref_pkt_of(const struct flavor *f, int hook, const struct pkt *p,
		       const struct run_opts *ro, unsigned char *buf, struct ref_pkt *rp)
{
	static const struct run_opts none = { 0 };
	unsigned int iplen;
	size_t n = build_pkt(p, false, buf, &iplen);

	if (!ro)
		ro = &none;
	memset(rp, 0, sizeof(*rp));
	ref_pkt_from(rp, buf, (unsigned int)n);
	if (f->mech == CG_NETFILTER) {
		ref_name(rp->in, ro->nf_in);
		ref_name(rp->out, ro->nf_out ? ro->nf_out : "lo");
		rp->ctstate = ref_ctstate(ro);
	} else {	/* what the tc and kmod worlds give each hook (host_run()) */
		ref_name(rp->in, hook == CG_OUTPUT ? NULL : p->in);
		ref_name(rp->out, hook == CG_INPUT ? NULL : p->out);
		if (f->mech == CG_KMOD)
			rp->ctstate = ref_ctstate(ro);
	}
}

int host_ref(const struct flavor *f, const struct ir_table *ir, int hook,
	     const struct pkt *p, const struct run_opts *ro, struct cg_counter *ctr)
{
	unsigned char buf[256];
	struct ref_pkt rp;

	ref_pkt_of(f, hook, p, ro, buf, &rp);
	memset(&host_ref_walk, 0, sizeof(host_ref_walk));
	return ref_eval(ir, nfhook[hook], &rp, ctr,
			f->mech == CG_KMOD ? &host_ref_walk : NULL);
}

struct ebpf_resume host_ref_walk;

int host_ref_counters(const struct shared *sh, const struct cg_counter *ctr,
		      unsigned int n)
{
	for (unsigned int e = 0; e < n; e++) {
		struct cg_counter c = shared_counter(sh, e);

		if (c.pkts != ctr[e].pkts || c.bytes != ctr[e].bytes)
			return (int)e;
	}
	return -1;
}
