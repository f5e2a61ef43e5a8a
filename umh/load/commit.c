// SPDX-License-Identifier: GPL-2.0
/*
 * The enforcement backend's driver: compile the filter table to BPF, load
 * it, and switch to it atomically at the hooks ip_tables uses.
 *
 *   ipt_table_view -> ir_build() (ir/) -> codegen_hook() (cgen/)
 *   -> enf_load_hook() (program.c) into the idle generation -> the flip
 *
 * The hook mechanism (the one the module asks for at the handshake, or
 * the first the running kernel can do, choose.c; reported in dmesg) is a
 * struct enf_mech_ops (mech.h): "kmod" (mech_kmod.c), "netfilter"
 * (mech_netfilter.c) or "tc" (mech_tc.c).  kmod has no generations: the
 * module swaps whole rule sets (commit_install()).
 *
 * Objects (created once, then re-adopted by a restarted helper):
 *   gen      array[1] of u32: the live generation (0/1)
 *   progs    prog array[2 * 3]: slot gen * 3 + hook = table program
 *   ctr      per generation: array[1] whose value is {pkts, bytes} per
 *            entry (one value: read in one go; mmap-able when large,
 *            cg_counters_map_flags())
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
 *
 * Tables of every network namespace (kmod only): each (namespace, table)
 * has a record of its counters map (struct enf_table).  The initial
 * namespace's maps are also the vault's (vault_objs.ctr_fd mirrors them):
 * a restarted helper adopts them.  The other namespaces' tables stay in
 * the module while no helper runs; a restarted helper's restore has the
 * module carry what they counted over (ipt_table_view.adopt).
 *
 * Parked counters: what the rules a change replaced counted until the
 * switch is the "old counters" its caller gets, read after the switch
 * (enforce_read_retired_counters()).  If the helper dies after the switch
 * and before the caller is answered, the caller gets an error and a
 * restarted helper restores the last acknowledged state, whose rules are
 * the replaced ones: their counts must not die with the helper.  So a
 * sockopt's commit parks that counters map in the vault (vault_objs.
 * retired_*), tagged with the id of the saved state its rules are in (the
 * newest, when the tables in force were saved), until the next request
 * shows the caller was answered (enforce_unpark()).  A restore of that
 * very state adds the parked counts to the restored base counters
 * (enforce_read_parked_counters()); a restore of any other state (the
 * change was acknowledged, its caller has the counts) ignores them.
 * kmod parks before the module's switch (install_table(): the module
 * lets go of the replaced map in the call), so the parked map may be the
 * one in force still; its restore hands the map to the module, which
 * moves its counts only if it is not (the soak's kill-faults lost every
 * count of a table when the helper died between the switch and the
 * park, 2026-12-06).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netfilter.h>

#include <bpf/bpf.h>

#include <ebpfilter/proto.h>

#include "ir/ir.h"
#include "lib/log.h"
#include "lib/phase.h"
#include "lib/test_faults.h"
#include "load/bpf_enforce.h"
#include "load/enforce.h"
#include "load/map_keep.h"
#include "load/mech.h"
#include "lib/vec.h"
#include "vault/vault.h"

_Static_assert(CG_NHOOKS == VAULT_HOOKS, "the vault parks a dispatcher per hook");

/* Generations of table programs: the live one and the idle one. */
#define ENF_GENS	2

/**
 * struct enf_table - what is kept for one table of one namespace
 * @netns, @family, @index: which (ipt_table_view's)
 * @ctr_fd:     its counters map in force, counting @nentries rules; -1:
 *              nothing committed yet
 * @retired_fd: the counters of the rules the last commit replaced, read
 *              once after the switch (enforce_read_retired_counters), of
 *              @retired_n rules; -1: none
 * @uses_ct:    the rules in force use conntrack
 * @keep:       the own maps of the programs in force, for the next commit
 *              to reuse where it repeats them (map_keep.h)
 */
struct enf_table {
	uint64_t netns;
	unsigned int family, index;
	int ctr_fd, retired_fd;
	unsigned int nentries, retired_n;
	bool uses_ct;
	struct enf_map_keep keep;
};

static struct {
	bool inited, attached;
	bool parked_read;	/* a restore read the parked counters */
	/* kmod: the restore's install hands the parked map to the module */
	bool parked_to_module;
	struct enf_kernel ek;
	struct vault_objs o;	/* o.ctr_fd: the initial namespace's tables' */
	struct {
		struct enf_table *v;
		size_t n, cap;
	} tables;
} S = { .o = VAULT_OBJS_NONE };

/* The record of table @index of @family of @netns; made if @make (NULL:
 * no memory). */
static struct enf_table *table_rec(uint64_t netns, unsigned int family,
				   unsigned int index, bool make)
{
	struct enf_table *e;
	size_t i;

	for (i = 0; i < S.tables.n; i++)
		if (S.tables.v[i].netns == netns &&
		    S.tables.v[i].family == family &&
		    S.tables.v[i].index == index)
			return &S.tables.v[i];
	if (!make || index >= VAULT_TABLES ||
	    vec_reserve(&S.tables.v, &S.tables.cap, S.tables.n + 1))
		return NULL;
	e = &S.tables.v[S.tables.n++];
	*e = (struct enf_table){ .netns = netns, .family = family,
				 .index = index,
				 .ctr_fd = -1, .retired_fd = -1 };
	return e;
}

/* The vault keeps the initial namespace's IPv4 counters maps (the kmod
 * mechanism, the only one with IPv6 tables, carries their counts over in
 * the module: EBPF_INSTALL_F_ADOPT). */
static void mirror_to_vault(const struct enf_table *e)
{
	if (e->netns != EBPF_NETNS_INIT || e->family != NFPROTO_IPV4)
		return;
	S.o.ctr_fd[e->index] = e->ctr_fd;
	S.o.nentries[e->index] = e->nentries;
}

static void xclose(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void let_go_retired(struct enf_table *e)
{
	xclose(&e->retired_fd);
}

/* What record @e holds, let go of (the record itself is the caller's). */
static void table_rec_release(struct enf_table *e)
{
	xclose(&e->ctr_fd);
	let_go_retired(e);
	enf_keep_free(&e->keep);
}

/* The parked map is a descriptor of its own (park()): nothing else
 * closes it. */
static void drop_parked(void)
{
	xclose(&S.o.retired_fd);
	S.parked_read = false;
	S.parked_to_module = false;
}

/*
 * Park the counters map @ctr of table @e's @n rules, as the counts of
 * saved state @state's rules, and store it in the vault (see "Parked
 * counters").  Failing, nothing is parked (a death before the caller is
 * answered then loses what those rules counted, said here).
 */
static void park(const struct enf_table *e, int ctr, unsigned int n,
		 uint32_t state)
{
	int fd;

	drop_parked();
	fd = fcntl(ctr, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("enforcement: parking the replaced rules' counters: %s\n",
			 strerror(errno));
		return;
	}
	S.o.retired_fd = fd;
	S.o.retired_state = state;
	S.o.retired_netns = e->netns;
	S.o.retired_family = e->family;
	S.o.retired_table = e->index;
	S.o.retired_n = n;
	vault_store();
}

static void close_objs(struct vault_objs *o)
{
	int i;

	xclose(&o->gen_fd);
	xclose(&o->progs_fd);
	xclose(&o->ifinfo_fd);
	for (i = 0; i < VAULT_TABLES; i++)	/* the records' (table_rec) */
		o->ctr_fd[i] = -1;
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

/* The initial namespace's counters maps, adopted from the vault. */
static void adopt_counters(void)
{
	unsigned int i;

	for (i = 0; i < VAULT_TABLES; i++) {
		struct enf_table *e;

		if (S.o.ctr_fd[i] < 0)
			continue;
		e = table_rec(EBPF_NETNS_INIT, NFPROTO_IPV4, i, true);
		if (!e) {	/* counted on by the module still; not read */
			log_err("enforcement: no memory to adopt table %u's counters\n", i);
			close(S.o.ctr_fd[i]);
			S.o.ctr_fd[i] = -1;
			continue;
		}
		e->ctr_fd = S.o.ctr_fd[i];
		e->nentries = S.o.nentries[i];
	}
}

void enforce_note_fds(void)
{
	enf_kmod_note_ctl_fd();
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
	r = enf_choose(want, &S.ek);
	if (r)
		return r;
	m = S.ek.ops;
	snprintf(mech, mech_len, "%s", m->name);
	S.o.mech = m->cg;
	if (vault_open(&S.o) && vault_adopt() > 0) {
		adopt_counters();
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
	for (size_t i = 0; i < S.tables.n; i++)
		if (S.tables.v[i].uses_ct)
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
			   int ctr, struct enf_map_keep *keep, char *err,
			   size_t err_len)
{
	int fds[CG_NHOOKS] = { -1, -1, -1 };
	unsigned int h;
	__u32 slot;
	int r = 0;

	for (h = 0; h < CG_NHOOKS && !r; h++)
		r = enf_load_hook_resume(ir, &S.ek, (enum cg_hook)h, ctr,
					 S.o.ifinfo_fd, NULL, keep, &fds[h], err,
					 err_len);
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

/* Table @e's new counters map @ctr, counting @nrules rules that use
 * conntrack if @uses_ct, is in force: keep them; the replaced rules' map
 * parked under @park_state if not 0 (the generation switch: it parks
 * after the switch, which a restarted helper can tell from the vault). */
static void committed(struct enf_table *e, bool uses_ct, unsigned int nrules,
		      int ctr, uint32_t park_state)
{
	e->uses_ct = uses_ct;
	/* kept until ipt/ read what the replaced rules counted last */
	let_go_retired(e);
	e->retired_fd = e->ctr_fd;
	e->retired_n = e->nentries;
	e->ctr_fd = ctr;
	e->nentries = nrules;
	mirror_to_vault(e);
	if (park_state && e->retired_fd >= 0) {
		park(e, e->retired_fd, e->retired_n, park_state);
		return;		/* stored */
	}
	/* the other namespaces' maps are not the vault's */
	if (e->netns == EBPF_NETNS_INIT)
		vault_store();
}

/* Are counters parked for table @index of @family of @netns? */
static bool parked_for(uint64_t netns, unsigned int family,
		       unsigned int index)
{
	const struct vault_objs *o = &S.o;

	return o->retired_fd >= 0 && o->retired_netns == netns &&
	       o->retired_family == family && o->retired_table == index;
}

/*
 * Hand table @t to the mechanism's kernel side (kmod) with the programs
 * @fds, its counters map @ctr and the resume map @resume (-1: none),
 * the mechanism's names attached first if they are not yet.  0 or -errno.
 *
 * The module switches to the new rules and lets go of the replaced ones
 * in the call: a helper that dies between it and committed() takes the
 * last reference to their counters map with it.  So a sockopt's change
 * (@park_state) parks that map before the call (the module may not have
 * switched: the module tells in a restore, struct ebpf_ctl_install's
 * @parked_fd), and a restore hands the map parked for it to the module.
 */
static int install_table(struct enf_table *e, const struct ipt_table_view *t,
			 const int fds[CG_ALL_HOOKS], int ctr, int resume,
			 uint32_t park_state, char *err, size_t err_len)
{
	int parked = -1, r = 0;

	if (!S.attached) {	/* the names before the first packet */
		r = S.ek.ops->attach(&S.o, err, err_len);
		S.attached = !r;
	}
	if (!r && park_state && e->ctr_fd >= 0)
		park(e, e->ctr_fd, e->nentries, park_state);
	if (t->adopt && S.parked_to_module &&
	    parked_for(t->netns, t->family, t->index) &&
	    S.o.retired_n == t->num_entries)
		parked = S.o.retired_fd;
	phase_to(PH_INSTALL);
	if (!r)
		r = S.ek.ops->install(t, fds, ctr, resume, parked, err, err_len);
	phase_to(PH_AFTER);
	if (r)
		return r;
	if (parked >= 0) {
		S.parked_to_module = false;
		S.parked_read = true;
	}
	if (park_state)	/* switched, the replaced map parked only */
		test_fault("commit-switched");
	return 0;
}

/*
 * An IPv6 table (kmod) with no program: the module walks every hook of it
 * as ip6_tables does, counting each entry into the counters map.  Where
 * the module does not take IPv6 programs (its ipv6_bpf parameter off), or
 * the front end leaves the table to the walk (ir.c, ip6_to_ir()).
 */
static int commit_walked(struct enf_table *e, const struct ipt_table_view *t,
			 uint32_t park_state, char *err, size_t err_len)
{
	const int fds[CG_ALL_HOOKS] = { -1, -1, -1, -1, -1 };
	int ctr, r;

	phase_to(PH_MAPS);
	ctr = enf_counters_create(t->num_entries);
	if (ctr < 0) {
		snprintf(err, err_len, "counters map: %s", strerror(-ctr));
		return ctr;
	}
	r = install_table(e, t, fds, ctr, -1, park_state, err, err_len);
	if (r) {
		close(ctr);
		return r;
	}
	committed(e, false, t->num_entries, ctr, 0);
	return 0;
}

/*
 * A mechanism whose kernel side takes whole rule sets (kmod): a program
 * for each hook, handed over with the table, a new counters map and the
 * resume map in one call; its errno is the commit's.  A hook that reaches
 * a rule without an emitter is compiled too: its program stops there and
 * the module walks on (cgen/abi.h, "Kernel rules"); -1 (the module walks
 * the whole hook) where the chain is only its policy, or where the code
 * generator or the verifier refuses.
 * Conntrack needs no handshake: the module's check of a state/conntrack
 * match takes the reference.
 */
static int commit_install(const struct ipt_table_view *t, uint32_t park_state,
			  char *err, size_t err_len)
{
	static const unsigned int nfhook[CG_ALL_HOOKS] = {
		NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT,
		NF_INET_PRE_ROUTING, NF_INET_POST_ROUTING };
	int fds[CG_ALL_HOOKS] = { -1, -1, -1, -1, -1 };
	struct enf_table *e = table_rec(t->netns, t->family, t->index, true);
	struct ir_table ir;
	unsigned int h, walked;
	int ctr, resume = -1, r;

	if (!e) {
		snprintf(err, err_len, "no memory for the table's record");
		return -ENOMEM;
	}
	if (t->family != NFPROTO_IPV4 &&
	    (t->family != NFPROTO_IPV6 || !enf_kmod_ip6_progs()))
		return commit_walked(e, t, park_state, err, err_len);
	phase_to(PH_IR);
	r = ir_build_ext(t, IR_KERNEL_WALKS, &ir, err, err_len);
	if (r && t->family == NFPROTO_IPV6) {
		/* the module checked every rule: never refused for what the
		 * front end leaves out; walked as without ipv6_bpf */
		log_info("enforcement: IPv6 table %s walked by the module (%s)\n",
			 t->name, err);
		return commit_walked(e, t, park_state, err, err_len);
	}
	if (r)
		return r;
	walked = ir_kernel_hooks(&ir);
	/* an IPv6 program hands over any packet whose headers it does not
	 * follow (cgen/prologue_ip6.c) */
	if (ir.ipv6)
		walked = t->valid_hooks;
	phase_to(PH_MAPS);
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
	enf_keep_begin(&e->keep);
	for (h = 0; h < CG_ALL_HOOKS; h++) {
		if (!(t->valid_hooks & (1u << nfhook[h])))
			continue;
		/* a chain of nothing but its policy: the module's walk of
		 * one rule costs what a program would, and it saves a
		 * program per hook of every table nobody filled (every new
		 * namespace's, each made on first use) */
		if (ir.hook_entry[nfhook[h]] == ir.underflow[nfhook[h]])
			continue;
		if (ir.ipv6 && resume < 0)
			continue;	/* nowhere to hand packets over */
		/* a hook the code generator or the verifier refuses (chains
		 * nested deeper than BPF calls go, limits) is walked: the
		 * walk is ip_tables' own, so the table is never refused for
		 * what a program cannot do */
		if (enf_load_hook_resume(&ir, &S.ek, (enum cg_hook)h, ctr,
					 S.o.ifinfo_fd, &resume, &e->keep,
					 &fds[h], err, err_len))
			log_warn("enforcement: hook %u not compiled (%s); the module walks its rules\n",
				 nfhook[h], err);
	}
	r = install_table(e, t, fds, ctr, resume, park_state, err, err_len);
	enf_keep_end(&e->keep, !r);
	/* the module holds what it runs */
	for (h = 0; h < CG_ALL_HOOKS; h++)
		xclose(&fds[h]);
	xclose(&resume);
	if (r) {
		close(ctr);
		goto out;
	}
	committed(e, ir.uses_ct, ir.nrules, ctr, 0);	/* parked before */
out:
	ir_free(&ir);
	return r;
}

int enforce_commit(const struct ipt_table_view *t, bool conntrack_on,
		   uint32_t park_state, char *err, size_t err_len)
{
	struct ir_table ir;
	struct enf_table *e;
	unsigned int idle = S.o.gen ^ 1;
	int ctr = -1, r;
	__u32 key = 0;

	if (!S.inited)
		return -ENODEV;
	if (S.ek.ops->install)
		return commit_install(t, park_state, err, err_len);
	/* the dispatchers run the initial namespace's IPv4 filter table */
	if (t->index || t->netns != EBPF_NETNS_INIT ||
	    t->family != NFPROTO_IPV4) {
		snprintf(err, err_len, "table %s needs the kmod mechanism",
			 t->name);
		return -EOPNOTSUPP;
	}
	e = table_rec(t->netns, t->family, t->index, true);
	if (!e) {
		snprintf(err, err_len, "no memory for the table's record");
		return -ENOMEM;
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
	enf_keep_begin(&e->keep);
	r = load_generation(&ir, idle, ctr, &e->keep, err, err_len);
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
	enf_keep_end(&e->keep, true);
	committed(e, ir.uses_ct, ir.nrules, ctr, park_state);
	ir_free(&ir);
	return 0;

fail_slots:
	clear_slots(idle);
fail:
	enf_keep_end(&e->keep, false);
	close(ctr);
out:
	ir_free(&ir);
	return r;
}

int enforce_read_counters(uint64_t netns, unsigned int family,
			  unsigned int index, struct xt_counters *c,
			  unsigned int n)
{
	const struct enf_table *e = table_rec(netns, family, index, false);

	if (!e || e->ctr_fd < 0)
		return 0;	/* nothing committed yet: nothing counted */
	return enf_counters_add(e->ctr_fd, c,
				n < e->nentries ? n : e->nentries);
}

/*
 * What the rules that table @index's last commit replaced counted, to the
 * end: added to @c[0..n-1], and their counters map let go.  Read after the
 * switch, so that no packet counted between a read and the switch is lost
 * (the kmod mechanism's install returns once no CPU runs the old rules
 * any more: kmod/xt_table.c, wait_for_readers()).  0 when nothing was replaced.
 */
int enforce_read_retired_counters(uint64_t netns, unsigned int family,
				  unsigned int index, struct xt_counters *c,
				  unsigned int n)
{
	struct enf_table *e = table_rec(netns, family, index, false);
	int r = 0;

	if (!e || e->retired_fd < 0)
		return 0;
	if (c && n)	/* else only let go of them */
		r = enf_counters_add(e->retired_fd, c,
				     n < e->retired_n ? n : e->retired_n);
	let_go_retired(e);	/* parked still, if it is */
	return r;
}

int enforce_read_parked_counters(uint64_t netns, unsigned int family,
				 unsigned int index, uint32_t state,
				 struct xt_counters *c, unsigned int n)
{
	const struct vault_objs *o = &S.o;
	int r;

	if (!state || o->retired_state != state ||
	    !parked_for(netns, family, index))
		return 0;
	if (o->retired_n != n) {	/* not the rules it counted */
		log_warn("enforcement: the parked counters of table %u count %u rules, the restored table has %u; ignored\n",
			 index, o->retired_n, n);
		return 0;
	}
	/* kmod: parked before the switch, the map may be the one in force
	 * still; only the module can tell (install_table()) */
	if (S.ek.ops->install) {
		S.parked_to_module = true;
		return 0;
	}
	r = enf_counters_add(o->retired_fd, c, n);
	if (r)
		return r;
	S.parked_read = true;
	if (netns == EBPF_NETNS_INIT)
		log_info("enforcement: table %u: the counts of the rules a change replaced before its caller heard of it, added to the restored ones\n",
			 index);
	return 1;
}

bool enforce_unpark(bool *read)
{
	bool was = S.o.retired_fd >= 0;

	if (read)
		*read = S.parked_read;
	drop_parked();
	return was;
}

/* Namespace @netns is gone, and its tables with it in the module. */
void enforce_forget(uint64_t netns)
{
	size_t i = 0;

	while (i < S.tables.n) {
		struct enf_table *e = &S.tables.v[i];

		if (e->netns != netns) {
			i++;
			continue;
		}
		table_rec_release(e);
		S.tables.v[i] = S.tables.v[--S.tables.n];
	}
}

void enforce_shutdown(void)
{
	size_t i;

	if (S.ek.ops && S.ek.ops->detach)
		S.ek.ops->detach(&S.o);
	drop_parked();
	for (i = 0; i < S.tables.n; i++)
		table_rec_release(&S.tables.v[i]);
	S.tables.n = 0;
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
