// SPDX-License-Identifier: GPL-2.0
/*
 * The kmod mechanism: ebpfilter.ko registers every table's netfilter
 * hooks itself, where iptable_<table> registers them (filter: LOCAL_IN,
 * FORWARD, LOCAL_OUT at NF_IP_PRI_FILTER; nat through nf_nat), and runs,
 * per hook, the SCHED_CLS program the helper gave it (cgen's CG_KMOD
 * flavor), which stops at a rule without an emitter (ir_kernel_hooks())
 * and hands the packet to the module's walk from there (EBPF_PROG_WALK,
 * the resume map), or walks the hook's rules itself as ipt_do_table()
 * does, with the kernel's own extensions, where the helper gave no
 * program (the code generator or the verifier refused the hook).  Everything goes through one ioctl on the
 * control file the module installs at EBPF_CTL_FD (include/ebpfilter/
 * ctl.h): EBPF_IOC_INSTALL makes a whole rule set live at once, so there
 * is no dispatcher, program array or generation here.  The module checks
 * every match and target with xt_check_match()/xt_check_target(), which
 * also takes the conntrack reference a state/conntrack rule needs.
 *
 * What the helper keeps: the counters map (shared with the module's walk)
 * and the ifinfo map the programs read interface names from, kept by
 * mech_tc.c's rtnetlink thread; both go to the vault like any object.
 * The module keeps the last installed set while no helper runs; a
 * restarted helper re-installs the saved table it restores, identical.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/netfilter.h>

#include <bpf/bpf.h>

#include <ebpfilter/ctl.h>

#include "cgen/bpf_insn.h"
#include "lib/log.h"
#include "load/mech.h"

_Static_assert(EBPF_CTL_NF_HOOKS == NF_INET_NUMHOOKS, "hook_entry[] sizes");
_Static_assert(sizeof(struct ebpf_counter) == sizeof(struct cg_counter),
	       "the programs' counters are the module's");

/* the module gave this helper its control file (enf_kmod_note_ctl_fd()) */
static bool ctl_given;
/* its EBPF_IOC_FEATURES, asked before the seccomp filter allows only
 * EBPF_IOC_INSTALL (and before the log is open: said by kmod_available())
 */
static __u32 ctl_features;
static int ctl_features_err;

void enf_kmod_note_ctl_fd(void)
{
	ctl_given = fcntl(EBPF_CTL_FD, F_GETFD) >= 0;
	if (ctl_given && ioctl(EBPF_CTL_FD, EBPF_IOC_FEATURES, &ctl_features))
		ctl_features_err = errno;
}

/*
 * The program that carries the maps to a module that cannot take them
 * from fds (EBPF_CTL_FEAT_MAPS_PROG): loads each map's address, returns 0.
 * Never attached nor run; the module drops it after EBPF_IOC_INSTALL.
 */
static int load_map_carrier(int counters_fd, int resume_fd, int parked_fd)
{
	/* a map missing is the counters map again: one used map */
	struct bpf_insn insns[] = {
		BPF_LD_MAP_FD(BPF_REG_1, counters_fd),
		BPF_LD_MAP_FD(BPF_REG_1, resume_fd >= 0 ? resume_fd : counters_fd),
		BPF_LD_MAP_FD(BPF_REG_1, parked_fd >= 0 ? parked_fd : counters_fd),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};

	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "ebpf_maps", "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), NULL);
}

bool enf_kmod_ip6_progs(void)
{
	return ctl_given && !ctl_features_err &&
	       (ctl_features & EBPF_CTL_FEAT_IP6_PROGS);
}

static bool kmod_available(void)
{
	static bool said;

	if (said)
		return ctl_given && !ctl_features_err;
	said = true;
	if (ctl_given && ctl_features_err) {
		log_err("kmod: the module's control file answers no EBPF_IOC_FEATURES: %s\n",
			strerror(ctl_features_err));
		return false;
	}
	if (ctl_given && (ctl_features & EBPF_CTL_FEAT_MAPS_PROG))
		log_info("kmod: this kernel exports no bpf_map_get(): the maps go to the module as a carrier program's used maps\n");
	return ctl_given;
}

static int kmod_attach(struct vault_objs *o, char *err, size_t len)
{
	int r = enf_ifinfo_watch(o->ifinfo_fd);

	if (r)
		snprintf(err, len, "watching the interfaces' names: %s",
			 strerror(-r));
	return r;
}

static void kmod_readopt(struct vault_objs *o)
{
	int r = enf_ifinfo_watch(o->ifinfo_fd);

	if (r)
		log_err("kmod: watching the interfaces' names failed: %s\n",
			strerror(-r));
}

/* The module's hooks go with the module; nothing of ours is attached. */
static void kmod_detach(struct vault_objs *o)
{
	(void)o;
	enf_ifinfo_unwatch();
}

static int kmod_install(const struct ipt_table_view *t,
			const int prog_fd[CG_ALL_HOOKS], int counters_fd,
			int resume_fd, int parked_fd, char *err, size_t len)
{
	struct ebpf_ctl_install in;
	unsigned int h;
	int r;

	memset(&in, 0, sizeof(in));
	in.size = sizeof(in);
	if (strlen(t->name) >= sizeof(in.name))
		return -EINVAL;
	memcpy(in.name, t->name, strlen(t->name));
	/* the module writes the entries back in place (GET_ENTRIES' form) */
	in.entries = (__u64)(uintptr_t)t->entries;
	in.entries_size = (__u32)t->size;
	in.num_entries = t->num_entries;
	/* only the entries whose extensions the kernel checks */
	in.writeback = (__u64)(uintptr_t)t->writeback;
	in.valid_hooks = t->valid_hooks;
	for (h = 0; h < EBPF_CTL_NF_HOOKS; h++) {
		in.hook_entry[h] = t->hook_entry[h];
		in.underflow[h] = t->underflow[h];
	}
	in.prog_fd[NF_INET_PRE_ROUTING] = prog_fd[CG_PREROUTING];
	in.prog_fd[NF_INET_LOCAL_IN] = prog_fd[CG_INPUT];
	in.prog_fd[NF_INET_FORWARD] = prog_fd[CG_FORWARD];
	in.prog_fd[NF_INET_LOCAL_OUT] = prog_fd[CG_OUTPUT];
	in.prog_fd[NF_INET_POST_ROUTING] = prog_fd[CG_POSTROUTING];
	in.counters_fd = counters_fd;
	in.resume_fd = -1;
	if (resume_fd >= 0) {	/* programs may stop at a kernel rule */
		in.flags |= EBPF_INSTALL_F_RESUME;
		in.resume_fd = resume_fd;
	}
	in.netns = t->netns;
	in.family = t->family;	/* NFPROTO_IPV6: every prog_fd is -1 */
	in.parked_fd = -1;
	if (t->adopt) {	/* the module carries what they counted over */
		in.flags |= EBPF_INSTALL_F_ADOPT;
		if (parked_fd >= 0) {
			in.flags |= EBPF_INSTALL_F_PARKED;
			in.parked_fd = parked_fd;
		}
	}
	in.maps_prog_fd = -1;
	if (ctl_features & EBPF_CTL_FEAT_MAPS_PROG) {
		in.maps_prog_fd = load_map_carrier(counters_fd, in.resume_fd,
						   in.parked_fd);
		if (in.maps_prog_fd < 0) {
			int e = -errno;

			snprintf(err, len, "loading the maps' carrier program: %s",
				 strerror(-e));
			return e;
		}
	}
	r = ioctl(EBPF_CTL_FD, EBPF_IOC_INSTALL, &in) ? -errno : 0;
	if (in.maps_prog_fd >= 0)	/* the module took what it needs */
		close(in.maps_prog_fd);
	if (r)
		snprintf(err, len, "the module refused the rule set: %s",
			 strerror(-r));
	return r;
}

const struct enf_mech_ops enf_mech_kmod = {
	.name = "kmod",
	.hooks = "ebpfilter.ko's own netfilter hooks, where ip_tables' tables have theirs",
	.cg = CG_KMOD,
	.conntrack = true,
	.dispatchers = 0,
	.available = kmod_available,
	.needs = "ebpfilter.ko's control file on fd 5 (ebpfilter/ctl.h)",
	.create_maps = enf_ifinfo_create,
	.attach = kmod_attach,
	.readopt = kmod_readopt,
	.detach = kmod_detach,
	.install = kmod_install,
};
