// SPDX-License-Identifier: GPL-2.0
/*
 * Installing a table: the helper's EBPF_IOC_INSTALL (ctl.c).
 *
 * The helper validated the blob as translate_table() does and compiled
 * what it could; the entries are checked again here (xt_translate.c),
 * every extension looked up and checked by x_tables as ip_tables does.
 *
 * The switch is one pointer (the table's ebpf_xt_slot.live) under RCU: no
 * packet sees a mix of the old and new rule sets.  The old one's extension
 * instances, programs and counters are let go of only once no CPU runs it
 * any more, found as xt_replace_table() finds it (wait_for_readers()):
 * not a whole grace period (synchronize_net(), 8-20 ms of every call in
 * the benchmark's guest, bench/README.md), which ip_tables gave up for the
 * same reason.
 *
 * Network namespaces: the install names its namespace by the module's id
 * (netns.c) and holds a reference on it throughout, so the namespace's
 * exit never runs beside it.  The extensions are looked up and checked
 * with no lock held, as ip_tables' translate_table() runs: a check may
 * load a module, whose init may register pernet operations, which waits
 * for every namespace exit in progress, which may wait for a lock here.
 */

#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter/x_tables.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <net/netfilter/nf_nat.h>

#include "ebpfilter.h"
#include "xt_engine.h"

EBPF_IMPORT_BPF_NS();

/*
 * The entries' copy.  kvmalloc() takes a block of a power of two pages
 * for anything up to what kmalloc() gives (a 21 KB table of 100 rules:
 * 32 KiB, as ip_tables' xt_alloc_table_info()); vmalloc() takes the pages
 * the size needs.  Where kmalloc() would leave a page or more unused,
 * vmalloc() it is: every network namespace's tables have one such copy
 * (issue 17's memory per namespace).  kvfree() frees either.
 */
static void *entries_alloc(unsigned int size)
{
	size_t block = PAGE_SIZE << get_order(size);

	if (size > PAGE_SIZE && block - PAGE_ALIGN(size) >= PAGE_SIZE)
		return vmalloc(size);
	return kvmalloc(size, GFP_KERNEL);
}

static void table_free(struct ebpf_xt_table *t, bool checked)
{
	int h;

	if (!t)
		return;
	if (checked)
		t->fam->cleanup(t);
	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		if (t->prog[h])
			bpf_prog_put(t->prog[h]);
	if (t->counters_map)
		bpf_map_put(t->counters_map);
	if (t->resume_map)
		bpf_map_put(t->resume_map);
	kvfree(t->offsets);
	kvfree(t->jumpstack);
	kvfree(t->entries);
	kfree(t);
}

/* EBPF_INSTALL_F_PARKED's map, held for the install's duration */
struct ebpf_xt_parked {
	struct bpf_map *map;
	struct ebpf_counter *counters;
};

/*
 * A counters map from the helper's fd: an array of one value with room
 * for @number struct ebpf_counter; its value's address in *@counters
 * (array values stay put while the map lives).
 */
static struct bpf_map *counters_map_get(int fd, struct bpf_prog *carrier,
					unsigned int number,
					struct ebpf_counter **counters)
{
	struct bpf_map *map = ebpf_map_get(fd, carrier);
	u32 zero = 0;
	void *value;

	if (IS_ERR(map))
		return map;
	if (map->map_type != BPF_MAP_TYPE_ARRAY || map->key_size != 4 ||
	    map->max_entries < 1 ||
	    map->value_size / sizeof(struct ebpf_counter) < number)
		goto bad;
	rcu_read_lock();
	value = map->ops->map_lookup_elem(map, &zero);
	rcu_read_unlock();
	if (!value)
		goto bad;
	*counters = value;
	return map;
bad:
	bpf_map_put(map);
	return ERR_PTR(-EINVAL);
}

/*
 * The programs, the counters map and the parked one (EBPF_INSTALL_F_PARKED:
 * into *@parked), from the helper's fds; the maps through the helper's
 * carrier program where the kernel needs one (compat.h's ebpf_map_get()).
 */
static int take_bpf_objects_via(struct ebpf_xt_table *t,
				const struct ebpf_ctl_install *req,
				struct bpf_prog *carrier,
				struct ebpf_xt_parked *parked)
{
	struct bpf_map *map;
	int h;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		struct bpf_prog *p;

		if (req->prog_fd[h] < 0)
			continue;
		if (!(t->valid_hooks & (1 << h)))
			return -EINVAL;
		p = bpf_prog_get_type_dev(req->prog_fd[h],
					  BPF_PROG_TYPE_SCHED_CLS, false);
		if (IS_ERR(p))
			return PTR_ERR(p);
		t->prog[h] = p;
	}
	map = counters_map_get(req->counters_fd, carrier, t->number,
			       &t->counters);
	if (IS_ERR(map))
		return PTR_ERR(map);
	t->counters_map = map;
	if (req->flags & EBPF_INSTALL_F_PARKED) {
		map = counters_map_get(req->parked_fd, carrier, t->number,
				       &parked->counters);
		if (IS_ERR(map))
			return PTR_ERR(map);
		parked->map = map;
	}
	if (!(req->flags & EBPF_INSTALL_F_RESUME))
		return 0;
	map = ebpf_map_get(req->resume_fd, carrier);
	if (IS_ERR(map))
		return PTR_ERR(map);
	t->resume_map = map;
	if (map->map_type != BPF_MAP_TYPE_PERCPU_ARRAY || map->key_size != 4 ||
	    map->max_entries < 1 ||
	    map->value_size < sizeof(struct ebpf_resume))
		return -EINVAL;
	return 0;
}

static int take_bpf_objects(struct ebpf_xt_table *t,
			    const struct ebpf_ctl_install *req,
			    struct ebpf_xt_parked *parked)
{
	struct bpf_prog *carrier = NULL;
	int ret;

	if (req->maps_prog_fd >= 0) {
		carrier = bpf_prog_get_type_dev(req->maps_prog_fd,
						BPF_PROG_TYPE_SCHED_CLS, false);
		if (IS_ERR(carrier))
			return PTR_ERR(carrier);
	}
	ret = take_bpf_objects_via(t, req, carrier, parked);
	if (carrier)
		bpf_prog_put(carrier);
	return ret;
}

static void carry(const struct ebpf_xt_table *from, unsigned int i,
		  const struct ebpf_xt_table *to, unsigned int j)
{
	ebpf_counter_add(&to->counters[j],
			 atomic64_read((atomic64_t *)&from->counters[i].pkts),
			 atomic64_read((atomic64_t *)&from->counters[i].bytes));
}

/*
 * EBPF_INSTALL_F_ADOPT: what @old's rules counted, added to @new's, for
 * the rules both have at the same place from the start or from the end.
 * @old counts no more (after wait_for_readers()).
 */
static void adopt_counters(const struct ebpf_xt_table *old,
			   const struct ebpf_xt_table *new,
			   const struct ebpf_xt_slot *slot)
{
	unsigned int head = 0, tail = 0, n = min(old->number, new->number);

	while (head < n &&
	       new->fam->same_rule(old->entries + old->offsets[head],
				   new->entries + new->offsets[head])) {
		carry(old, head, new, head);
		head++;
	}
	while (tail < n - head &&
	       new->fam->same_rule(old->entries +
				   old->offsets[old->number - 1 - tail],
				   new->entries +
				   new->offsets[new->number - 1 - tail])) {
		carry(old, old->number - 1 - tail, new, new->number - 1 - tail);
		tail++;
	}
	if (head + tail < old->number && slot->en->id == EBPF_NETNS_INIT)
		pr_info("%s table: the restored rules differ from those in force: the counters of %u of their %u rules carried over\n",
			slot->def->name, head + tail, old->number);
}

/*
 * EBPF_INSTALL_F_PARKED: the counts of the rules a change replaced, which
 * a helper that died before the change's caller was answered parked (the
 * helper's commit.c, "Parked counters").  Where the change went live,
 * only that map has them: moved to @new's counters rule for rule (the
 * restored rules are the replaced ones), the parked slots zeroed, so
 * that a restore repeated with the same parked map (its helper died too)
 * adds nothing twice.  Where it did not, the map is @old's, counting
 * still: adopt_counters() carries it.
 */
static void move_parked(const struct ebpf_xt_parked *parked,
			const struct ebpf_xt_table *old,
			const struct ebpf_xt_table *new,
			const struct ebpf_xt_slot *slot)
{
	unsigned int i;

	if (!parked->map || (old && parked->map == old->counters_map))
		return;
	for (i = 0; i < new->number; i++) {
		struct ebpf_counter *from = &parked->counters[i];

		ebpf_counter_add(&new->counters[i],
				 atomic64_xchg((atomic64_t *)&from->pkts, 0),
				 atomic64_xchg((atomic64_t *)&from->bytes, 0));
	}
	if (slot->en->id == EBPF_NETNS_INIT)
		pr_info("%s table: the counts of the rules a change replaced before its caller was answered, moved to the restored rules\n",
			slot->def->name);
}

/*
 * xt_replace_table()'s wait: every table run brackets itself with the
 * CPU's xt_recseq (ebpf_table_hook()), odd while it runs, as
 * ipt_do_table() does; a CPU whose count is odd now may still run the
 * table just replaced, and has left it once the count changes.  The
 * caller published the new table before (rcu_replace_pointer()).
 */
static void wait_for_readers(void)
{
	unsigned int cpu;

	/* the new pointer is seen before any count is read */
	smp_mb();
	for_each_possible_cpu(cpu) {
		seqcount_t *s = &per_cpu(xt_recseq, cpu);
		u32 seq = raw_read_seqcount(s);

		if (seq & 1) {
			do {
				cond_resched();
				cpu_relax();
			} while (seq == raw_read_seqcount(s));
		}
	}
}

/* The index of the table a request's name field names, or -ENOENT. */
static int table_named(const char name[32])
{
	int idx = -ENOENT;

	if (strnlen(name, 32) < 32)
		idx = ebpf_xt_table_index(name);
	return idx < 0 ? -ENOENT : idx;
}

/* nf_nat loaded before a nat table's hooks go through it (xt_hook.c):
 * with no lock held, as above
 */
static void nat_request(const struct ebpf_xt_slot *slot)
{
	void *reg;

	if (!slot->def->nat || slot->ops)
		return;
	if (slot->def->fam->nfproto == NFPROTO_IPV6)
		reg = symbol_request(nf_nat_ipv6_register_fn);
	else
		reg = symbol_request(nf_nat_ipv4_register_fn);
	if (reg)
		symbol_put_addr(reg);
}

/*
 * The family an install's entries are of, or NULL: IPv6 only while the
 * module serves it (the ipv6 parameter), with programs only where the
 * ipv6_bpf parameter lets them decide (said to the helper by
 * EBPF_CTL_FEAT_IP6_PROGS).
 */
static const struct ebpf_xt_family *
install_family(const struct ebpf_ctl_install *req)
{
	unsigned int h;

	if (req->family == NFPROTO_IPV4)
		return &ebpf_xt_ipv4;
	if (req->family != NFPROTO_IPV6 || !serve_ipv6)
		return NULL;
	for (h = 0; h < NF_INET_NUMHOOKS && !compile_ipv6; h++)
		if (req->prog_fd[h] >= 0)
			return NULL;
	return &ebpf_xt_ipv6;
}

/*
 * The entries @req->writeback names (all without one) written back to the
 * helper's buffer as GET_ENTRIES shows them.
 */
static int write_back(const struct ebpf_xt_table *t,
		      const struct ebpf_ctl_install *req)
{
	unsigned int bytes = DIV_ROUND_UP(t->number, 8);
	u8 *which;
	int ret;

	if (!req->writeback)
		return t->fam->copy_entries_to_user(t,
				u64_to_user_ptr(req->entries), NULL);
	which = kvmalloc(bytes, GFP_KERNEL);
	if (!which)
		return -ENOMEM;
	ret = -EFAULT;
	if (!copy_from_user(which, u64_to_user_ptr(req->writeback), bytes))
		ret = t->fam->copy_entries_to_user(t,
				u64_to_user_ptr(req->entries), which);
	kvfree(which);
	return ret;
}

int ebpf_xt_install(const struct ebpf_ctl_install *req)
{
	struct ebpf_xt_parked parked = { NULL, NULL };
	const struct ebpf_xt_family *fam;
	struct ebpf_xt_table *t, *old;
	struct ebpf_xt_slot *slot;
	struct ebpf_net *en;
	struct net *net;
	bool checked = false;
	int ret, idx;

	if (req->size != sizeof(*req) || req->reserved ||
	    (req->flags & ~(EBPF_INSTALL_F_RESUME | EBPF_INSTALL_F_ADOPT |
			    EBPF_INSTALL_F_PARKED)) ||
	    ((req->flags & EBPF_INSTALL_F_PARKED) &&
	     !(req->flags & EBPF_INSTALL_F_ADOPT)))
		return -EINVAL;
	fam = install_family(req);
	if (!fam)
		return -EINVAL;
	idx = table_named(req->name);
	if (idx < 0)
		return idx;
	/* __do_replace()'s "You lied!" */
	if (req->valid_hooks != ebpf_xt_defs[fam->index][idx].valid_hooks)
		return -EINVAL;
	if (!req->entries_size || req->entries_size > max_table_bytes ||
	    !req->num_entries ||
	    req->num_entries > req->entries_size / fam->entry_size)
		return -EINVAL;
	net = ebpf_net_get_by_id(req->netns);
	if (!net)
		return -ESRCH;
	en = ebpf_net(net);
	slot = &en->slots[fam->index][idx];
	ret = ebpf_net_budget_check(en, fam->index, idx, req->entries_size);
	if (ret)
		goto put_net;

	ret = -ENOMEM;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		goto put_net;
	t->fam = fam;
	t->net = net;
	t->size = req->entries_size;
	t->number = req->num_entries;
	t->valid_hooks = req->valid_hooks;
	t->entries = entries_alloc(t->size);
	if (!t->entries)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(t->entries, u64_to_user_ptr(req->entries), t->size))
		goto out;
	ret = take_bpf_objects(t, req, &parked);
	if (ret)
		goto out;
	ret = fam->translate(t, req, slot->def->name);
	if (ret)
		goto out;
	checked = true;
	ret = -ENOMEM;
	t->jumpstack = kvcalloc(nr_cpu_ids * 2 * max(t->stacksize, 1u),
				sizeof(*t->jumpstack), GFP_KERNEL);
	if (!t->jumpstack)
		goto out;
	ret = write_back(t, req);
	if (ret)
		goto out;
	nat_request(slot);

	mutex_lock(&en->lock);
	if (!slot->ops) {
		ret = ebpf_xt_hooks_register(slot);
		if (ret) {
			mutex_unlock(&en->lock);
			goto out;
		}
	}
	if (!slot->age)
		slot->age = ++en->tables_made[fam->index];
	old = rcu_replace_pointer(slot->live, t, lockdep_is_held(&en->lock));
	ebpf_net_budget_charge(en, fam->index, idx, t->size);
	mutex_unlock(&en->lock);
	ret = 0;
	wait_for_readers();
	if (old && (req->flags & EBPF_INSTALL_F_ADOPT))
		adopt_counters(old, t, slot);
	move_parked(&parked, old, t, slot);
	t = NULL;
	table_free(old, true);
out:
	table_free(t, checked);
	if (parked.map)
		bpf_map_put(parked.map);
put_net:
	put_net(net);
	return ret;
}

/**
 * ebpf_xt_add_counters() - IPT_SO_SET_ADD_COUNTERS on a table this module
 *                          holds, as ip_tables' do_add_counters()
 * @en:   the caller's namespace
 * @fam:  the family's index
 * @info: the request's header, its name NUL-terminated
 * @add:  @info->num_counters counters, one per entry in order
 *
 * Added here, into the table in force, with or without a helper running:
 * the caller holds the counts its SET_REPLACE returned until this call
 * adds them back, and a helper that died serving it lost them (issue 21's
 * kill-faults, 2026-12-06).  The helper reads the table's counters map,
 * which these are added to, with what its programs counted.
 *
 * Return: 0 once added; -ENOENT when no table of that name and size is
 * in force here (the helper answers the request then, as before).
 */
int ebpf_xt_add_counters(struct ebpf_net *en, enum ebpf_xt_fam fam,
			 const struct xt_counters_info *info,
			 const struct xt_counters *add)
{
	struct ebpf_xt_table *t;
	unsigned int i;
	int idx, ret = -ENOENT;

	idx = table_named(info->name);
	if (idx < 0)
		return -ENOENT;
	mutex_lock(&en->lock);
	t = rcu_dereference_protected(en->slots[fam][idx].live,
				      lockdep_is_held(&en->lock));
	if (t && t->number == info->num_counters) {
		for (i = 0; i < t->number; i++)
			ebpf_counter_add(&t->counters[i], add[i].pcnt,
					 add[i].bcnt);
		ret = 0;
	}
	mutex_unlock(&en->lock);
	return ret;
}

/*
 * The name of the table of @en and family @fam installed @n-th most
 * recently for the first time (0: the newest), or NULL:
 * /proc/net/ip_tables_names (ip6_tables_names) lists them so, as x_tables
 * lists its tables (xt_register_table() adds at the head).
 */
const char *ebpf_xt_table_by_age(struct ebpf_net *en, enum ebpf_xt_fam fam,
				 unsigned int n)
{
	const struct ebpf_xt_slot *slots = en->slots[fam];
	const char *name = NULL;
	unsigned int i;

	mutex_lock(&en->lock);
	for (i = 0; i < EBPF_XT_NTABLES; i++)
		if (slots[i].age && slots[i].age == en->tables_made[fam] - n)
			name = slots[i].def->name;
	mutex_unlock(&en->lock);
	return name;
}

void ebpf_xt_net_init(struct ebpf_net *en)
{
	unsigned int f, i;

	mutex_init(&en->lock);
	for (f = 0; f < EBPF_XT_NFAMILIES; f++) {
		for (i = 0; i < EBPF_XT_NTABLES; i++) {
			en->slots[f][i].def = &ebpf_xt_defs[f][i];
			en->slots[f][i].en = en;
		}
	}
}

/* The namespace is going: no packet reaches its tables after this. */
void ebpf_xt_net_unhook(struct ebpf_net *en)
{
	unsigned int f, i;

	mutex_lock(&en->lock);
	for (f = 0; f < EBPF_XT_NFAMILIES; f++)
		for (i = 0; i < EBPF_XT_NTABLES; i++)	/* waits for packets */
			ebpf_xt_hooks_unregister(&en->slots[f][i]);
	mutex_unlock(&en->lock);
}

/* ... and its tables are freed, their extensions destroyed in it. */
void ebpf_xt_net_free(struct ebpf_net *en)
{
	struct ebpf_xt_table *old[EBPF_XT_NFAMILIES][EBPF_XT_NTABLES];
	unsigned int f, i;

	mutex_lock(&en->lock);
	for (f = 0; f < EBPF_XT_NFAMILIES; f++) {
		for (i = 0; i < EBPF_XT_NTABLES; i++) {
			struct ebpf_xt_slot *s = &en->slots[f][i];

			ebpf_xt_hooks_unregister(s);	/* done, normally */
			old[f][i] = rcu_replace_pointer(s->live, NULL,
							lockdep_is_held(&en->lock));
			s->age = 0;
		}
		en->tables_made[f] = 0;
	}
	mutex_unlock(&en->lock);
	/* no synchronize_net(): the pernet core synchronized RCU between the
	 * pre_exit that unhooked them and this exit
	 */
	for (f = 0; f < EBPF_XT_NFAMILIES; f++)
		for (i = 0; i < EBPF_XT_NTABLES; i++)
			table_free(old[f][i], true);
}

int __init ebpf_xt_init(void)
{
	return ebpf_xt_builtin_register();
}

void ebpf_xt_exit(void)
{
	ebpf_xt_builtin_unregister();
}

/* IPv6 not served after all (the helper's handshake): its extensions go */
void ebpf_xt_drop_ipv6(void)
{
	ebpf_xt_builtin_unregister_ipv6();
}
