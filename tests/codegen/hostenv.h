/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host suite's world: generated programs with their maps made in the
 * interpreter, and packets run through them on a tc __sk_buff or a fake
 * netfilter context (struct sk_buff, nf_hook_state, net_device laid out at
 * the offsets of the test's struct cg_kernel).
 */
#ifndef CG_HOSTENV_H
#define CG_HOSTENV_H

#include "cases.h"
#include "interp/interp.h"
#include "fake_kernel.h"

/* what a suite runs on: a hook mechanism, and for NETFILTER whether the
 * headers are read in place (k.direct) or only through the dynptr.  KMOD
 * runs on a __sk_buff whose data is the IP header, the tc world's devices
 * given as ifindexes in cb[] and the conntrack state (run_opts' ct, as on
 * netfilter) in cb[EBPF_CB_CTSTATE] */
struct flavor {
	const char *name;
	enum cg_mech mech;
	bool direct;
};

/* The objects the loader would supply: made from the first program's
 * description, then shared (the same counters, ifinfo...). */
struct shared {
	struct ip_map counters, ifinfo, gen, progs, resume;
	bool have[5];
	/* kmod: the table the programs were made of (gen_hook() sets it):
	 * a program's hand-over at a rule that is no kernel rule (a
	 * classified run's hotdrop) is walked on by the reference as the
	 * module would, so a run answers what program + module answer */
	const struct ir_table *ir;
};

struct ref_pkt;
/*
 * kmod: the module's walk of the record in @sh's resume map for @rp at
 * @nfhook, if it starts at a rule that is no kernel rule (and @sh->ir):
 * what it counts added to @sh's counters, its record (if it stops at a
 * kernel rule) written back; its verdict (1, 0, 2).  Else 2, nothing done.
 */
int shared_module_walk(struct shared *sh, unsigned int nfhook, const struct ref_pkt *rp);

/* kmod: the resume record a run that returned EBPF_PROG_WALK left (this
 * one CPU's); false if there is no resume map */
struct ebpf_resume;
bool shared_resume(const struct shared *sh, struct ebpf_resume *r);

/* a generated program made runnable */
struct hprog {
	struct cg_prog cg;
	struct ip_prog ip;
	struct ip_map *own;	/* its CG_MAP_OWN maps */
	struct ip_map **mp;	/* per map of cg: own or shared */
};

/* @h->cg generated: make its maps (own ones filled, shared ones from or
 * into @sh).  0, or -1 with @err. */
int hprog_build(struct hprog *h, struct shared *sh, const char *name,
		char *err, size_t len);
void hprog_free(struct hprog *h);
void shared_free(struct shared *sh);

/* the counter of entry @idx (zero if there is no counters map yet) */
struct cg_counter shared_counter(const struct shared *sh, unsigned int idx);
void shared_zero_counters(struct shared *sh);

/* the knobs of one run */
struct run_opts {
	unsigned int headlen;	/* linear bytes; 0: all */
	int fib_ret;		/* tc ingress dispatcher: the FIB's answer */
	__u32 fib_ifindex;	/* ... and output device */
	__u32 ingress_ifindex;	/* tc egress: 0 = locally generated */
	/* netfilter: skb->_nfct = (a conntrack entry if @ct) | @ctinfo, the
	 * entry's status @ct_status (IPS_*); 0: none, as in test runs; kmod:
	 * the state xt_conntrack makes of it */
	bool ct;
	__u8 ctinfo;
	/* netfilter: the devices (NULL: none in, "lo" out, as test runs);
	 * "-" for none; bytes of an older name follow the NUL */
	const char *nf_in, *nf_out;
	__u64 ct_status;
	bool clear_cb;		/* tc: cb[] starts 0 (a dispatcher fills it),
				 * else as the ingress dispatcher leaves it */
};

/*
 * Run packet @p at @hook through @ip (on @f's context, @sh's maps).
 * 1 accept, 0 drop, 2 (kmod) walk from shared_resume()'s record, -ERANGE
 * an unexpected return value (*raw), -EFAULT the interpreter failed
 * (@err).  *iplen: the IP total length.
 */
int host_run(const struct flavor *f, struct shared *sh, const struct ip_prog *ip,
	     int hook, const struct pkt *p, const struct run_opts *ro,
	     unsigned int *iplen, __u64 *raw, char *err, size_t len);
/* what host_run()'s last program run cost: instructions, map lookups */
extern unsigned long host_last_insns, host_last_lookups;

/*
 * The reference's answer (ref.c) for the same packet in the same world as
 * host_run(): 1 ACCEPT, 0 DROP; @ctr (nrules of them) counted.  kmod: 2,
 * a kernel rule reached, where and through which jumps in host_ref_walk.
 */
extern struct ebpf_resume host_ref_walk;
int host_ref(const struct flavor *f, const struct ir_table *ir, int hook,
	     const struct pkt *p, const struct run_opts *ro, struct cg_counter *ctr);

/* the first entry whose counter differs between @sh and @ctr, or -1 */
int host_ref_counters(const struct shared *sh, const struct cg_counter *ctr,
		      unsigned int n);

#endif
