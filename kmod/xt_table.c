// SPDX-License-Identifier: GPL-2.0
/*
 * Installing a table: the helper's EBPF_IOC_INSTALL (ctl.c).
 *
 * The helper validated the blob as translate_table() does and compiled
 * what it could; the module does not trust it any more than it trusts
 * iptables: the entries are checked again here with ip_tables' own steps
 * (net/ipv4/netfilter/ip_tables.c: check_entry_size_and_hooks,
 * mark_source_chains, find_check_entry), since the walk follows their
 * offsets.  Every match and target, compiled or not, is looked up and
 * checked by x_tables (xt_request_find_*, xt_check_*) as ip_tables checks
 * it, so a rule set ip_tables refuses is refused with its errno, and an
 * extension's side effects at check time (its module loaded, conntrack
 * enabled in the namespace, a hashlimit or recent table created) happen
 * as they would under ip_tables.
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
#include <net/net_namespace.h>
#include <net/netfilter/nf_nat.h>

#include "ebpfilter.h"
#include "xt_engine.h"

EBPF_IMPORT_BPF_NS();


static bool unconditional(const struct ipt_entry *e)
{
	static const struct ipt_ip uncond;

	return e->target_offset == sizeof(struct ipt_entry) &&
	       memcmp(&e->ip, &uncond, sizeof(uncond)) == 0;
}

static bool ip_checkentry(const struct ipt_ip *ip)
{
	return !(ip->flags & ~IPT_F_MASK) && !(ip->invflags & ~IPT_INV_MASK);
}

static bool check_underflow(const struct ipt_entry *e)
{
	const struct xt_entry_target *t;
	unsigned int verdict;

	if (!unconditional(e))
		return false;
	t = ipt_get_target_c(e);
	if (strcmp(t->u.user.name, XT_STANDARD_TARGET) != 0)
		return false;
	verdict = ((struct xt_standard_target *)t)->verdict;
	verdict = -verdict - 1;
	return verdict == NF_DROP || verdict == NF_ACCEPT;
}

static int check_entry_size_and_hooks(struct ipt_entry *e,
				      struct ebpf_xt_table *t,
				      const unsigned char *base,
				      const unsigned char *limit,
				      const struct ebpf_ctl_install *req)
{
	unsigned int h;
	int err;

	if ((unsigned long)e % __alignof__(struct ipt_entry) != 0 ||
	    (unsigned char *)e + sizeof(struct ipt_entry) >= limit ||
	    (unsigned char *)e + e->next_offset > limit)
		return -EINVAL;
	if (e->next_offset <
	    sizeof(struct ipt_entry) + sizeof(struct xt_entry_target))
		return -EINVAL;
	if (!ip_checkentry(&e->ip))
		return -EINVAL;
	err = xt_check_entry_offsets(e, e->elems, e->target_offset,
				     e->next_offset);
	if (err)
		return err;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(req->valid_hooks & (1 << h)))
			continue;
		if ((unsigned char *)e - base == req->hook_entry[h])
			t->hook_entry[h] = req->hook_entry[h];
		if ((unsigned char *)e - base == req->underflow[h]) {
			if (!check_underflow(e))
				return -EINVAL;
			t->underflow[h] = req->underflow[h];
		}
	}
	e->counters = ((struct xt_counters) { 0, 0 });
	e->comefrom = 0;
	return 0;
}

/* ip_tables' mark_source_chains(): the hooks each rule is reached from
 * (comefrom), 0 if there are loops
 */
static int mark_source_chains(struct ebpf_xt_table *t, void *entry0,
			      unsigned int *offsets)
{
	unsigned int hook;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		unsigned int pos = t->hook_entry[hook];
		struct ipt_entry *e = entry0 + pos;

		if (!(t->valid_hooks & (1 << hook)))
			continue;
		e->counters.pcnt = pos;
		for (;;) {
			const struct xt_standard_target *st =
				(void *)ipt_get_target_c(e);
			int visited = e->comefrom & (1 << hook);

			if (e->comefrom & (1 << NF_INET_NUMHOOKS))
				return 0;
			e->comefrom |= (1 << hook) | (1 << NF_INET_NUMHOOKS);
			if ((unconditional(e) &&
			     strcmp(st->target.u.user.name,
				    XT_STANDARD_TARGET) == 0 &&
			     st->verdict < 0) || visited) {
				unsigned int oldpos, size;

				do {
					e->comefrom ^= (1 << NF_INET_NUMHOOKS);
					oldpos = pos;
					pos = e->counters.pcnt;
					e->counters.pcnt = 0;
					if (pos == oldpos)
						goto next;
					e = entry0 + pos;
				} while (oldpos == pos + e->next_offset);
				size = e->next_offset;
				e = entry0 + pos + size;
				if (pos + size >= t->size)
					return 0;
				e->counters.pcnt = pos;
				pos += size;
			} else {
				int newpos = st->verdict;

				if (strcmp(st->target.u.user.name,
					   XT_STANDARD_TARGET) == 0 &&
				    newpos >= 0) {
					if (!xt_find_jump_offset(offsets, newpos,
								 t->number))
						return 0;
				} else {
					newpos = pos + e->next_offset;
					if (newpos >= t->size)
						return 0;
				}
				e = entry0 + newpos;
				e->counters.pcnt = pos;
				pos = newpos;
			}
		}
next:
		continue;
	}
	return 1;
}

static void cleanup_match(struct xt_entry_match *m, struct net *net)
{
	struct xt_mtdtor_param par = {
		.net = net,
		.match = m->u.kernel.match,
		.matchinfo = m->data,
		.family = NFPROTO_IPV4,
	};

	if (par.match->destroy)
		par.match->destroy(&par);
	module_put(par.match->me);
}

static void cleanup_entry(struct ipt_entry *e, struct net *net,
			  unsigned int nmatches, bool target)
{
	struct xt_entry_match *ematch;
	struct xt_tgdtor_param par;
	struct xt_entry_target *t;

	xt_ematch_foreach(ematch, e) {
		if (nmatches-- == 0)
			break;
		cleanup_match(ematch, net);
	}
	if (!target)
		return;
	t = ipt_get_target(e);
	par.net = net;
	par.target = t->u.kernel.target;
	par.targinfo = t->data;
	par.family = NFPROTO_IPV4;
	if (par.target->destroy)
		par.target->destroy(&par);
	module_put(par.target->me);
}

static int find_check_entry(struct ipt_entry *e, struct net *net,
			    const char *name)
{
	struct xt_mtchk_param mtpar = {
		.net = net,
		.table = name,
		.entryinfo = &e->ip,
		.hook_mask = e->comefrom,
		.family = NFPROTO_IPV4,
	};
	struct xt_tgchk_param tgpar = {
		.net = net,
		.table = name,
		.entryinfo = e,
		.hook_mask = e->comefrom,
		.family = NFPROTO_IPV4,
	};
	struct xt_entry_match *ematch;
	struct xt_entry_target *t;
	struct xt_target *target;
	unsigned int j = 0;
	int ret;

	xt_ematch_foreach(ematch, e) {
		struct xt_match *match;

		match = xt_request_find_match(NFPROTO_IPV4, ematch->u.user.name,
					      ematch->u.user.revision);
		if (IS_ERR(match)) {
			ret = PTR_ERR(match);
			goto cleanup;
		}
		ematch->u.kernel.match = match;
		mtpar.match = match;
		mtpar.matchinfo = ematch->data;
		ret = xt_check_match(&mtpar,
				     ematch->u.match_size - sizeof(*ematch),
				     e->ip.proto,
				     e->ip.invflags & IPT_INV_PROTO);
		if (ret) {
			module_put(match->me);
			goto cleanup;
		}
		j++;
	}
	t = ipt_get_target(e);
	target = xt_request_find_target(NFPROTO_IPV4, t->u.user.name,
					t->u.user.revision);
	if (IS_ERR(target)) {
		ret = PTR_ERR(target);
		goto cleanup;
	}
	t->u.kernel.target = target;
	tgpar.target = target;
	tgpar.targinfo = t->data;
	ret = xt_check_target(&tgpar, t->u.target_size - sizeof(*t),
			      e->ip.proto, e->ip.invflags & IPT_INV_PROTO);
	if (ret) {
		module_put(target->me);
		goto cleanup;
	}
	return 0;
cleanup:
	cleanup_entry(e, net, j, false);
	return ret;
}

/* translate_table(): the checks, then every extension found and checked.
 * On failure nothing is held.
 */
static int translate(struct ebpf_xt_table *t, const struct ebpf_ctl_install *req,
		     const char *name)
{
	struct ipt_entry *iter;
	unsigned int *offsets;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < NF_INET_NUMHOOKS; i++) {
		t->hook_entry[i] = 0xFFFFFFFF;
		t->underflow[i] = 0xFFFFFFFF;
	}
	offsets = xt_alloc_entry_offsets(t->number);
	if (!offsets)
		return -ENOMEM;
	i = 0;
	xt_entry_foreach(iter, t->entries, t->size) {
		ret = check_entry_size_and_hooks(iter, t, t->entries,
						 t->entries + t->size, req);
		if (ret)
			goto out_free;
		if (i < t->number)
			offsets[i] = (void *)iter - t->entries;
		++i;
		if (strcmp(ipt_get_target(iter)->u.user.name,
			   XT_ERROR_TARGET) == 0)
			++t->stacksize;
	}
	ret = -EINVAL;
	if (i != t->number)
		goto out_free;
	{
		struct xt_table_info info = { .size = t->size,
					      .number = t->number };

		memcpy(info.hook_entry, t->hook_entry, sizeof(info.hook_entry));
		memcpy(info.underflow, t->underflow, sizeof(info.underflow));
		ret = xt_check_table_hooks(&info, t->valid_hooks);
		if (ret)
			goto out_free;
	}
	if (!mark_source_chains(t, t->entries, offsets)) {
		ret = -ELOOP;
		goto out_free;
	}
	t->offsets = offsets;	/* kept: resume records are checked on it */

	i = 0;
	xt_entry_foreach(iter, t->entries, t->size) {
		ret = find_check_entry(iter, t->net, name);
		if (ret)
			break;
		++i;
	}
	if (ret) {
		xt_entry_foreach(iter, t->entries, t->size) {
			if (i-- == 0)
				break;
			cleanup_entry(iter, t->net, UINT_MAX, true);
		}
		return ret;
	}
	/* the ordinal is the counter slot (the walk's and the programs') */
	i = 0;
	xt_entry_foreach(iter, t->entries, t->size)
		iter->counters.pcnt = i++;
	return 0;
out_free:
	kvfree(offsets);
	return ret;
}

/*
 * The entries written back as GET_ENTRIES shows them: ip_tables'
 * copy_entries_to_user(), with x_tables' own xt_match_to_user() and
 * xt_target_to_user() (each payload past its extension's usersize zeroed),
 * counters zero.  A failure leaves the helper's buffer half written; it
 * discards it with the refused install.
 */
static int copy_entries_to_user(const struct ebpf_xt_table *t,
				void __user *userptr)
{
	static const struct xt_counters zero;
	const struct ipt_entry *e;
	unsigned int off, i;

	for (off = 0; off < t->size; off += e->next_offset) {
		const struct xt_entry_match *m;

		e = t->entries + off;
		if (copy_to_user(userptr + off, e, sizeof(*e)) ||
		    copy_to_user(userptr + off +
				 offsetof(struct ipt_entry, counters),
				 &zero, sizeof(zero)))
			return -EFAULT;
		for (i = sizeof(*e); i < e->target_offset;
		     i += m->u.match_size) {
			m = (const void *)e + i;
			if (xt_match_to_user(m, userptr + off + i))
				return -EFAULT;
		}
		if (xt_target_to_user(ipt_get_target_c(e),
				      userptr + off + e->target_offset))
			return -EFAULT;
	}
	return 0;
}

static void table_free(struct ebpf_xt_table *t, bool checked)
{
	struct ipt_entry *iter;
	int h;

	if (!t)
		return;
	if (checked)
		xt_entry_foreach(iter, t->entries, t->size)
			cleanup_entry(iter, t->net, UINT_MAX, true);
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

/*
 * The programs and the counters map, from the helper's fds; the maps
 * through the helper's carrier program where the kernel needs one
 * (compat.h's ebpf_map_get()).
 */
static int take_bpf_objects_via(struct ebpf_xt_table *t,
				const struct ebpf_ctl_install *req,
				struct bpf_prog *carrier)
{
	struct bpf_map *map;
	u32 zero = 0;
	void *value;
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
	map = ebpf_map_get(req->counters_fd, carrier);
	if (IS_ERR(map))
		return PTR_ERR(map);
	t->counters_map = map;
	if (map->map_type != BPF_MAP_TYPE_ARRAY || map->key_size != 4 ||
	    map->max_entries < 1 ||
	    map->value_size / sizeof(struct ebpf_counter) < t->number)
		return -EINVAL;
	rcu_read_lock();
	value = map->ops->map_lookup_elem(map, &zero);
	rcu_read_unlock();
	if (!value)
		return -EINVAL;
	t->counters = value;	/* array values stay put while the map lives */
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
			    const struct ebpf_ctl_install *req)
{
	struct bpf_prog *carrier = NULL;
	int ret;

	if (req->family != NFPROTO_IPV4)
		return -EINVAL;
	if (req->maps_prog_fd >= 0) {
		carrier = bpf_prog_get_type_dev(req->maps_prog_fd,
						BPF_PROG_TYPE_SCHED_CLS, false);
		if (IS_ERR(carrier))
			return PTR_ERR(carrier);
	}
	ret = take_bpf_objects_via(t, req, carrier);
	if (carrier)
		bpf_prog_put(carrier);
	return ret;
}

/* Is @m's user-visible payload the same in @a and @b (checked entries)? */
static bool same_ext(const struct xt_entry_match *a,
		     const struct xt_entry_match *b, const void *ext,
		     unsigned int usersize)
{
	unsigned int len = a->u.match_size - sizeof(*a);

	if (a->u.match_size != b->u.match_size || a->u.kernel.match != ext)
		return false;
	/* past usersize: the kernel's own state (a limit's master, ...) */
	if (usersize && usersize < len)
		len = usersize;
	return !memcmp(a->data, b->data, len);
}

/* The same rule: same header, matches and target (as the user gave them). */
static bool same_rule(const struct ipt_entry *a, const struct ipt_entry *b)
{
	const struct xt_entry_target *ta, *tb;
	unsigned int off;

	if (a->target_offset != b->target_offset ||
	    a->next_offset != b->next_offset ||
	    memcmp(&a->ip, &b->ip, sizeof(a->ip)))
		return false;
	for (off = sizeof(*a); off < a->target_offset;) {
		const struct xt_entry_match *ma = (const void *)a + off;
		const struct xt_entry_match *mb = (const void *)b + off;

		if (!same_ext(ma, mb, mb->u.kernel.match,
			      mb->u.kernel.match->usersize))
			return false;
		off += ma->u.match_size;
	}
	ta = ipt_get_target_c(a);
	tb = ipt_get_target_c(b);
	/* the target's header has the match's layout */
	return same_ext((const void *)ta, (const void *)tb,
			tb->u.kernel.target, tb->u.kernel.target->usersize);
}

static void carry(const struct ebpf_xt_table *from, unsigned int i,
		  const struct ebpf_xt_table *to, unsigned int j)
{
	atomic64_add(atomic64_read((atomic64_t *)&from->counters[i].pkts),
		     (atomic64_t *)&to->counters[j].pkts);
	atomic64_add(atomic64_read((atomic64_t *)&from->counters[i].bytes),
		     (atomic64_t *)&to->counters[j].bytes);
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
	       same_rule(old->entries + old->offsets[head],
			 new->entries + new->offsets[head])) {
		carry(old, head, new, head);
		head++;
	}
	while (tail < n - head &&
	       same_rule(old->entries + old->offsets[old->number - 1 - tail],
			 new->entries + new->offsets[new->number - 1 - tail])) {
		carry(old, old->number - 1 - tail, new, new->number - 1 - tail);
		tail++;
	}
	if (head + tail < old->number && slot->en->id == EBPF_NETNS_INIT)
		pr_info("%s table: the restored rules differ from those in force: the counters of %u of their %u rules carried over\n",
			slot->def->name, head + tail, old->number);
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
	reg = symbol_request(nf_nat_ipv4_register_fn);
	if (reg)
		symbol_put(nf_nat_ipv4_register_fn);
}

int ebpf_xt_install(const struct ebpf_ctl_install *req)
{
	struct ebpf_xt_table *t, *old;
	struct ebpf_xt_slot *slot;
	struct ebpf_net *en;
	struct net *net;
	bool checked = false;
	int ret, idx;

	if (req->size != sizeof(*req) ||
	    (req->flags & ~(EBPF_INSTALL_F_RESUME | EBPF_INSTALL_F_ADOPT)))
		return -EINVAL;
	idx = table_named(req->name);
	if (idx < 0)
		return idx;
	/* __do_replace()'s "You lied!" */
	if (req->valid_hooks != ebpf_xt_defs[idx].valid_hooks)
		return -EINVAL;
	if (!req->entries_size || req->entries_size > max_table_bytes ||
	    !req->num_entries ||
	    req->num_entries > req->entries_size / sizeof(struct ipt_entry))
		return -EINVAL;
	net = ebpf_net_get_by_id(req->netns);
	if (!net)
		return -ESRCH;
	en = ebpf_net(net);
	slot = &en->slots[idx];
	ret = ebpf_net_budget_check(en, idx, req->entries_size);
	if (ret)
		goto put_net;

	ret = -ENOMEM;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		goto put_net;
	t->net = net;
	t->size = req->entries_size;
	t->number = req->num_entries;
	t->valid_hooks = req->valid_hooks;
	t->entries = kvmalloc(t->size, GFP_KERNEL);
	if (!t->entries)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(t->entries, u64_to_user_ptr(req->entries), t->size))
		goto out;
	ret = take_bpf_objects(t, req);
	if (ret)
		goto out;
	ret = translate(t, req, slot->def->name);
	if (ret)
		goto out;
	checked = true;
	ret = -ENOMEM;
	t->jumpstack = kvcalloc(nr_cpu_ids * 2 * max(t->stacksize, 1u),
				sizeof(*t->jumpstack), GFP_KERNEL);
	if (!t->jumpstack)
		goto out;
	ret = copy_entries_to_user(t, u64_to_user_ptr(req->entries));
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
		slot->age = ++en->tables_made;
	old = rcu_replace_pointer(slot->live, t, lockdep_is_held(&en->lock));
	ebpf_net_budget_charge(en, idx, t->size);
	mutex_unlock(&en->lock);
	ret = 0;
	wait_for_readers();
	if (old && (req->flags & EBPF_INSTALL_F_ADOPT))
		adopt_counters(old, t, slot);
	t = NULL;
	table_free(old, true);
out:
	table_free(t, checked);
put_net:
	put_net(net);
	return ret;
}

/*
 * The name of the table of @en installed @n-th most recently for the
 * first time (0: the newest), or NULL: /proc/net/ip_tables_names lists
 * them so, as x_tables lists its tables (xt_register_table() adds at the
 * head).
 */
const char *ebpf_xt_table_by_age(struct ebpf_net *en, unsigned int n)
{
	const char *name = NULL;
	unsigned int i;

	mutex_lock(&en->lock);
	for (i = 0; i < EBPF_XT_NTABLES; i++)
		if (en->slots[i].age && en->slots[i].age == en->tables_made - n)
			name = en->slots[i].def->name;
	mutex_unlock(&en->lock);
	return name;
}

void ebpf_xt_net_init(struct ebpf_net *en)
{
	unsigned int i;

	mutex_init(&en->lock);
	for (i = 0; i < EBPF_XT_NTABLES; i++) {
		en->slots[i].def = &ebpf_xt_defs[i];
		en->slots[i].en = en;
	}
}

/* The namespace is going: no packet reaches its tables after this. */
void ebpf_xt_net_unhook(struct ebpf_net *en)
{
	unsigned int i;

	mutex_lock(&en->lock);
	for (i = 0; i < EBPF_XT_NTABLES; i++)
		ebpf_xt_hooks_unregister(&en->slots[i]);	/* waits for packets */
	mutex_unlock(&en->lock);
}

/* ... and its tables are freed, their extensions destroyed in it. */
void ebpf_xt_net_free(struct ebpf_net *en)
{
	struct ebpf_xt_table *old[EBPF_XT_NTABLES];
	unsigned int i;

	mutex_lock(&en->lock);
	for (i = 0; i < EBPF_XT_NTABLES; i++) {
		struct ebpf_xt_slot *s = &en->slots[i];

		ebpf_xt_hooks_unregister(s);	/* unhooked already, normally */
		old[i] = rcu_replace_pointer(s->live, NULL,
					     lockdep_is_held(&en->lock));
		s->age = 0;
	}
	en->tables_made = 0;
	mutex_unlock(&en->lock);
	/* no synchronize_net(): the pernet core synchronized RCU between the
	 * pre_exit that unhooked them and this exit
	 */
	for (i = 0; i < EBPF_XT_NTABLES; i++)
		table_free(old[i], true);
}

int __init ebpf_xt_init(void)
{
	return ebpf_xt_builtin_register();
}

void ebpf_xt_exit(void)
{
	ebpf_xt_builtin_unregister();
}
