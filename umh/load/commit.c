// SPDX-License-Identifier: GPL-2.0
/*
 * The enforcement backend's driver: compile the filter table to BPF, load
 * it, and switch to it atomically at the hooks ip_tables uses.
 *
 *   ipt_table_view -> ir_build() (ir/) -> codegen_hook() (cgen/)
 *   -> enf_load_hook() (program.c) into the idle generation -> the flip
 *
 * The hook mechanism (the one the module asks for at the handshake, or
 * the first the running kernel can do, probe.c; reported in dmesg) is a
 * struct enf_mech_ops (mech.h): "kmod" (mech_kmod.c), "netfilter"
 * (mech_netfilter.c) or "tc" (mech_tc.c).  kmod has no generations: the
 * module swaps whole rule sets (commit_install()).
 *
 * Objects (created once, then re-adopted by a restarted helper):
 *   gen      array[1] of u32: the live generation (0/1)
 *   progs    prog array[2 * 3]: slot gen * 3 + hook = table program
 *   ctr      per generation: array[1] whose value is {pkts, bytes} per
 *            entry (mmap-able: read without a syscall per entry)
 *   disp[]   dispatcher programs (netfilter: one per hook; tc: ingress,
 *            egress): tail-call progs[gen * 3 + hook]; an empty slot drops
 *   links[]  netfilter links of the dispatchers
 *   ifinfo   tc: ifindex -> {name, l2len}
 *
 * Atomic replacement: a commit builds and loads all three programs of the
 * new table (the verifier runs here) into the idle generation's slots, then
 * flips `gen` with one map update: from that instant every hook runs the
 * new rules, before it every hook ran the old ones.  Any failure before the
 * flip leaves the old generation in force and returns -errno with a reason.
 *
 * Never failing open: after every change the objects go to the vault
 * (vault/vault.c), which keeps them, and so the rules, across helper
 * restarts; a restarted helper adopts them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netfilter.h>

#include <bpf/bpf.h>

#include "ir/ir.h"
#include "lib/log.h"
#include "load/bpf_enforce.h"
#include "load/enforce.h"
#include "load/mech.h"
#include "vault/vault.h"

_Static_assert(CG_NHOOKS == VAULT_HOOKS, "the vault parks a dispatcher per hook");

/* Generations of table programs: the live one and the idle one. */
#define ENF_GENS	2

/* enforce_probe()'s findings for one mechanism, kept for the handshake */
struct enf_probed {
	bool available;
	int err;		/* enf_probe()'s result, if available */
	char why[192];
	struct enf_kernel ek;
};

#define ENF_MAX_MECHS	4

static struct {
	bool probed, inited, attached;
	struct enf_probed probe[ENF_MAX_MECHS];	/* enf_mech_at() order */
	bool live_uses_ct[VAULT_TABLES];	/* rules in force use conntrack */
	struct enf_kernel ek;
	struct vault_objs o;	/* per table: o.nentries counted in o.ctr_fd */
	/* per table: the counters of the rules the last commit replaced,
	 * read once after the switch (enforce_read_retired_counters) */
	int retired_fd[VAULT_TABLES];
	unsigned int retired_n[VAULT_TABLES];
} S = { .o = VAULT_OBJS_NONE,
	.retired_fd = { [0 ... VAULT_TABLES - 1] = -1 } };

static void xclose(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_objs(struct vault_objs *o)
{
	int i;

	xclose(&o->gen_fd);
	xclose(&o->progs_fd);
	xclose(&o->ifinfo_fd);
	for (i = 0; i < VAULT_TABLES; i++)
		xclose(&o->ctr_fd[i]);
	for (i = 0; i < CG_NHOOKS; i++) {
		xclose(&o->link[i]);
		xclose(&o->disp[i]);
	}
}

/* The maps and dispatchers of a fresh start (nothing adopted). */
static int create_base(char *err, size_t len)
{
	const struct enf_mech_ops *m = S.ek.ops;
	struct vault_objs *o = &S.o;
	__u32 k = 0, zero = 0;
	int i, r;

	if (m->install)		/* no dispatcher: only the mechanism's maps */
		return m->create_maps ? m->create_maps(o, err, len) : 0;
	o->gen_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ebpf_gen",
				   sizeof(__u32), sizeof(__u32), 1, NULL);
	o->progs_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "ebpf_progs",
				     sizeof(__u32), sizeof(__u32),
				     ENF_GENS * CG_NHOOKS, NULL);
	if (o->gen_fd < 0 || o->progs_fd < 0) {
		snprintf(err, len, "creating maps: %s",
			 strerror(errno));
		return -errno;
	}
	bpf_map_update_elem(o->gen_fd, &k, &zero, BPF_ANY);
	if (m->create_maps) {
		r = m->create_maps(o, err, len);
		if (r)
			return r;
	}
	for (i = 0; i < CG_NHOOKS; i++) {
		const struct enf_maps shared = {
			.counters = -1, .ifinfo = o->ifinfo_fd,
			.gen = o->gen_fd, .progs = o->progs_fd, .resume = -1,
		};
		struct cg_prog p;

		if (!(m->dispatchers & (1u << i)))
			continue;
		r = codegen_dispatcher(m->cg, (enum cg_hook)i, &p);
		if (r) {
			snprintf(err, len, "dispatcher: %s", strerror(-r));
			return r;
		}
		r = enf_load(m->cg, &p, &shared, "ebpf_dispatch", &o->disp[i],
			     err, len);
		cg_prog_free(&p);
		if (r)
			return r;
	}
	return 0;
}

void enforce_note_fds(void)
{
	enf_kmod_note_ctl_fd();
}

void enforce_probe(void)
{
	const struct enf_mech_ops *m;
	unsigned int i;

	if (S.probed)
		return;
	S.probed = true;
	for (i = 0; i < ENF_MAX_MECHS && (m = enf_mech_at(i)); i++) {
		struct enf_probed *p = &S.probe[i];

		p->available = enf_mech_available(m);
		if (p->available)
			p->err = enf_probe(&p->ek, m->name, p->why,
					   sizeof(p->why));
	}
}

/*
 * The mechanism the module asks for (@want: a name, or "" or "auto": the
 * first available; EBPFILTER_FORCE_TC then still says "tc"), from what
 * enforce_probe() found.  0 with S.ek set, or -errno (logged).
 */
static int choose(const char *want)
{
	const struct enf_mech_ops *m;
	unsigned int i;

	if (enf_mech_is_auto(want) && getenv("EBPFILTER_FORCE_TC"))
		want = "tc";
	for (i = 0; i < ENF_MAX_MECHS && (m = enf_mech_at(i)); i++) {
		const struct enf_probed *p = &S.probe[i];

		if (enf_mech_is_auto(want) ? !p->available : strcmp(m->name, want))
			continue;
		if (!p->available) {
			log_err("enforcement: the module asked for %s, which needs %s\n",
				want, m->needs ? m->needs : "what this kernel lacks");
			return -EOPNOTSUPP;
		}
		if (p->err) {
			log_err("enforcement: %s: %s\n", m->name, p->why);
			return p->err;
		}
		S.ek = p->ek;
		return 0;
	}
	if (enf_mech_is_auto(want))
		log_err("enforcement: no hook mechanism works on this kernel\n");
	else
		log_err("enforcement: the module asked for \"%s\", a mechanism the helper does not have\n",
			want);
	return -EOPNOTSUPP;
}

int enforce_init(const char *want, char *mech, size_t mech_len)
{
	const struct enf_mech_ops *m;
	char err[256] = "";
	int r;

	if (S.inited) {
		snprintf(mech, mech_len, "%s", S.ek.ops->name);
		return 0;
	}
	enforce_probe();
	r = choose(want);
	if (r)
		return r;
	m = S.ek.ops;
	snprintf(mech, mech_len, "%s", m->name);
	S.o.mech = m->cg;
	if (vault_open(&S.o) && vault_adopt() > 0) {
		S.attached = true;
		if (m->readopt)
			m->readopt(&S.o);
		if (m->install)	/* the module kept its rule set */
			log_info("enforcement: %s hooks, adopted the counters of the rules in force\n",
				 mech);
		else
			log_info("enforcement: %s hooks, adopted the rules in force (generation %u)\n",
				 mech, S.o.gen);
		S.inited = true;
		return 0;
	}
	r = create_base(err, sizeof(err));
	if (r) {
		log_err("enforcement: %s\n", err);
		close_objs(&S.o);
		return r;
	}
	log_info("enforcement: %s hooks (%s)\n", mech, m->hooks);
	S.inited = true;
	return 0;
}

bool enforce_kernel_checks(void)
{
	return S.inited && S.ek.ops->install;
}

unsigned int enforce_tables(void)
{
	return S.inited && S.ek.ops->install ? (1u << VAULT_TABLES) - 1 : 1;
}

bool enforce_uses_conntrack(void)
{
	for (int i = 0; i < VAULT_TABLES; i++)
		if (S.live_uses_ct[i])
			return true;
	return false;
}

/* Empty the idle generation's program slots again. */
static void clear_slots(unsigned int gen)
{
	unsigned int h;
	__u32 slot;

	for (h = 0; h < CG_NHOOKS; h++) {
		slot = gen * CG_NHOOKS + h;
		bpf_map_delete_elem(S.o.progs_fd, &slot);
	}
}

/*
 * Load the table programs of @ir into generation @gen's slots, counting
 * into @ctr.  0, or -errno with @err (the slots emptied if any was set).
 */
static int load_generation(const struct ir_table *ir, unsigned int gen,
			   int ctr, char *err, size_t err_len)
{
	int fds[CG_NHOOKS] = { -1, -1, -1 };
	unsigned int h;
	__u32 slot;
	int r = 0;

	for (h = 0; h < CG_NHOOKS && !r; h++)
		r = enf_load_hook(ir, &S.ek, (enum cg_hook)h, ctr, S.o.ifinfo_fd,
				  &fds[h], err, err_len);
	for (h = 0; h < CG_NHOOKS && !r; h++) {
		slot = gen * CG_NHOOKS + h;
		if (bpf_map_update_elem(S.o.progs_fd, &slot, &fds[h], BPF_ANY)) {
			r = -errno;
			snprintf(err, err_len, "prog array update: %s",
				 strerror(errno));
			clear_slots(gen);
		}
	}
	/* the prog array holds what is in force */
	for (h = 0; h < CG_NHOOKS; h++)
		xclose(&fds[h]);
	return r;
}

/* Table @index's new counters map @ctr and @ir's facts are in force:
 * keep them. */
static void committed(unsigned int index, const struct ir_table *ir, int ctr)
{
	S.live_uses_ct[index] = ir->uses_ct;
	/* kept until ipt/ read what the replaced rules counted last */
	xclose(&S.retired_fd[index]);
	S.retired_fd[index] = S.o.ctr_fd[index];
	S.retired_n[index] = S.o.nentries[index];
	S.o.ctr_fd[index] = ctr;
	S.o.nentries[index] = ir->nrules;
	vault_store();
}

/*
 * A mechanism whose kernel side takes whole rule sets (kmod): a program
 * for each hook, handed over with the table, a new counters map and the
 * resume map in one call; its errno is the commit's.  A hook that reaches
 * a rule without an emitter is compiled too: its program stops there and
 * the module walks on (cgen/abi.h, "Kernel rules"); -1 (the module walks
 * the whole hook) only where the code generator or the verifier refuses.
 * Conntrack needs no handshake: the module's check of a state/conntrack
 * match takes the reference.
 */
static int commit_install(const struct ipt_table_view *t, char *err,
			  size_t err_len)
{
	static const unsigned int nfhook[CG_ALL_HOOKS] = {
		NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT,
		NF_INET_PRE_ROUTING, NF_INET_POST_ROUTING };
	int fds[CG_ALL_HOOKS] = { -1, -1, -1, -1, -1 };
	struct ir_table ir;
	unsigned int h, walked;
	int ctr, resume = -1, r;

	r = ir_build_ext(t, IR_KERNEL_WALKS, &ir, err, err_len);
	if (r)
		return r;
	walked = ir_kernel_hooks(&ir);
	ctr = enf_counters_create(ir.nrules);
	if (ctr < 0) {
		r = ctr;
		snprintf(err, err_len, "counters map: %s", strerror(-r));
		goto out;
	}
	/* per commit, as the counters: the module holds what it runs */
	if (walked) {
		resume = enf_resume_create();
		if (resume < 0)	/* those hooks are walked whole */
			log_warn("enforcement: resume map: %s\n",
				 strerror(-resume));
	}
	for (h = 0; h < CG_ALL_HOOKS; h++) {
		if (!(t->valid_hooks & (1u << nfhook[h])))
			continue;
		/* a hook the code generator or the verifier refuses (chains
		 * nested deeper than BPF calls go, limits) is walked: the
		 * walk is ip_tables' own, so the table is never refused for
		 * what a program cannot do */
		if (enf_load_hook_resume(&ir, &S.ek, (enum cg_hook)h, ctr,
					 S.o.ifinfo_fd, resume, &fds[h], err,
					 err_len))
			log_warn("enforcement: hook %u not compiled (%s); the module walks its rules\n",
				 nfhook[h], err);
	}
	r = 0;
	if (!S.attached) {	/* the names before the first packet */
		r = S.ek.ops->attach(&S.o, err, err_len);
		S.attached = !r;
	}
	if (!r)
		r = S.ek.ops->install(t, fds, ctr, resume, err, err_len);
	/* the module holds what it runs */
	for (h = 0; h < CG_ALL_HOOKS; h++)
		xclose(&fds[h]);
	xclose(&resume);
	if (r) {
		close(ctr);
		goto out;
	}
	committed(t->index, &ir, ctr);
out:
	ir_free(&ir);
	return r;
}

int enforce_commit(const struct ipt_table_view *t, bool conntrack_on,
		   char *err, size_t err_len)
{
	struct ir_table ir;
	unsigned int idle = S.o.gen ^ 1;
	int ctr = -1, r;
	__u32 key = 0;

	if (!S.inited)
		return -ENODEV;
	if (S.ek.ops->install)
		return commit_install(t, err, err_len);
	if (t->index) {	/* the dispatchers run the filter table's hooks */
		snprintf(err, err_len, "table %s needs the kmod mechanism",
			 t->name);
		return -EOPNOTSUPP;
	}
	r = ir_build(t, &ir, err, err_len);
	if (r)
		return r;
	if (ir.uses_ct && !conntrack_on && S.ek.ops->conntrack) {
		/* As ip_tables: conntrack on before such a rule is live. */
		ir_free(&ir);
		snprintf(err, err_len, "connection tracking is not enabled yet");
		return -ENFORCE_NEED_CONNTRACK;
	}
	ctr = enf_counters_create(ir.nrules);
	if (ctr < 0) {
		r = ctr;
		snprintf(err, err_len, "counters map: %s", strerror(-r));
		goto out;
	}
	r = load_generation(&ir, idle, ctr, err, err_len);
	if (r)
		goto fail;
	/* the switch */
	if (bpf_map_update_elem(S.o.gen_fd, &key, &idle, BPF_ANY)) {
		r = -errno;
		snprintf(err, err_len, "generation switch: %s", strerror(errno));
		goto fail_slots;
	}
	if (!S.attached) {
		r = S.ek.ops->attach(&S.o, err, err_len);
		if (r) {
			/* nothing was in force: leave nothing half-attached */
			bpf_map_update_elem(S.o.gen_fd, &key, &S.o.gen, BPF_ANY);
			goto fail_slots;
		}
		S.attached = true;
	}
	S.o.gen = idle;
	committed(0, &ir, ctr);
	ir_free(&ir);
	return 0;

fail_slots:
	clear_slots(idle);
fail:
	close(ctr);
out:
	ir_free(&ir);
	return r;
}

int enforce_read_counters(unsigned int index, struct xt_counters *c,
			  unsigned int n)
{
	if (index >= VAULT_TABLES || S.o.ctr_fd[index] < 0)
		return 0;	/* nothing committed yet: nothing counted */
	return enf_counters_add(S.o.ctr_fd[index], c,
				n < S.o.nentries[index] ? n :
				S.o.nentries[index]);
}

/*
 * What the rules that table @index's last commit replaced counted, to the
 * end: added to @c[0..n-1], and their counters map let go.  Read after the
 * switch, so that no packet counted between a read and the switch is lost
 * (the kmod mechanism's install returns after synchronize_net(): nothing
 * runs the old rules any more).  0 when nothing was replaced.
 */
int enforce_read_retired_counters(unsigned int index, struct xt_counters *c,
				  unsigned int n)
{
	int r = 0;

	if (index >= VAULT_TABLES || S.retired_fd[index] < 0)
		return 0;
	if (c && n)	/* else only let go of them */
		r = enf_counters_add(S.retired_fd[index], c,
				     n < S.retired_n[index] ? n : S.retired_n[index]);
	xclose(&S.retired_fd[index]);
	return r;
}

void enforce_shutdown(void)
{
	if (S.ek.ops && S.ek.ops->detach)
		S.ek.ops->detach(&S.o);
	for (int i = 0; i < CG_NHOOKS; i++) {
		xclose(&S.o.link[i]);
		xclose(&S.o.disp[i]);
	}
	vault_empty();
	close_objs(&S.o);
	S.attached = false;
	S.inited = false;
	log_info("enforcement: removed every program, link, filter and map\n");
}
