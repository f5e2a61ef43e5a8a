/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ebpfilter control file: the helper's calls into ebpfilter.ko.
 *
 * The channel (proto.h) carries the kernel's requests to the helper.  The
 * other direction, the helper handing the module what it built, needs the
 * helper's own process context: the BPF program and map fds it passes
 * resolve only in its fd table.  So the module installs one more file in
 * the helper at exec, an anonymous inode whose ioctls only ever come from
 * that process: fd EBPF_CTL_FD.
 *
 * The mechanism (docs/design.md): ebpfilter.ko registers each table's
 * netfilter hooks itself where iptable_<table> registers them (nat through
 * nf_nat, as iptable_nat), runs the helper's program for the hook, and walks the rules itself, exactly as ipt_do_table() does with
 * the kernel's own xt_* extension code, from where the program stopped (a
 * rule no emitter serves: REJECT, LOG, limit, ...; EBPF_PROG_WALK), or
 * from the hook's entry for a hook the helper did not compile.
 * Every match and target of the table is looked up and checked by the
 * module with xt_check_match()/xt_check_target() at install, as ip_tables
 * checks them at SET_REPLACE, so errnos and side effects (module loads,
 * conntrack enabled per namespace) are ip_tables' own.
 *
 * All fields in host byte order; no implicit padding.
 */
#ifndef EBPFILTER_CTL_H
#define EBPFILTER_CTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* The control file's fd in the helper at exec (kmod/umd_shim.c). */
#define EBPF_CTL_FD		5

/* The number of netfilter hooks of an IPv4 table (NF_INET_NUMHOOKS). */
#define EBPF_CTL_NF_HOOKS	5

/*
 * ip_tables' tables, in the order both sides index them, and the hooks of
 * each (iptable_<name>.c's <NAME>_VALID_HOOKS, bits 1 << NF_INET_*: 0
 * PRE_ROUTING, 1 LOCAL_IN, 2 FORWARD, 3 LOCAL_OUT, 4 POST_ROUTING): a
 * table's replace must name exactly its own.
 */
#define EBPF_CTL_NTABLES	5
#define EBPF_CTL_TABLE_NAMES	{ "filter", "nat", "mangle", "raw", "security" }
#define EBPF_CTL_HOOKS_FILTER	0x0e	/* LOCAL_IN FORWARD LOCAL_OUT */
#define EBPF_CTL_HOOKS_NAT	0x1b	/* PRE_ROUTING LOCAL_IN LOCAL_OUT POST_ROUTING */
#define EBPF_CTL_HOOKS_MANGLE	0x1f	/* every hook */
#define EBPF_CTL_HOOKS_RAW	0x09	/* PRE_ROUTING LOCAL_OUT */
#define EBPF_CTL_HOOKS_SECURITY	0x0e	/* LOCAL_IN FORWARD LOCAL_OUT */
#define EBPF_CTL_TABLE_HOOKS	{ EBPF_CTL_HOOKS_FILTER, EBPF_CTL_HOOKS_NAT,	\
				  EBPF_CTL_HOOKS_MANGLE, EBPF_CTL_HOOKS_RAW,	\
				  EBPF_CTL_HOOKS_SECURITY }

/**
 * struct ebpf_ctl_install - a new rule set for a table, made live
 * @size:        sizeof(struct ebpf_ctl_install) (the ABI's version)
 * @flags:       0
 * @name:        the table ("filter", "nat", "mangle", "raw", "security"),
 *               NUL-terminated; its first install creates it (registers
 *               its hooks; nat loads nf_nat)
 * @entries:     user pointer to the table's entries as in ipt_replace
 *               (struct ipt_entry...), already validated by the helper as
 *               translate_table() validates them (sizes, offsets, hooks,
 *               loops).  On success the module writes them back as
 *               GET_ENTRIES must show them (those @writeback names): every
 *               match and target payload's kernel-private tail zeroed
 *               (xt_match_to_user), counters zero.  The helper stores that
 *               copy.
 * @entries_size: bytes at @entries (ipt_replace.size)
 * @num_entries: ipt_replace.num_entries
 * @valid_hooks: ipt_replace.valid_hooks: the table's own (else EINVAL)
 * @hook_entry:  ipt_replace.hook_entry (offsets into @entries)
 * @underflow:   ipt_replace.underflow
 * @prog_fd:     per netfilter hook (NF_INET_*): a BPF_PROG_TYPE_SCHED_CLS
 *               program that decides the hook's packets (see "Programs"),
 *               or -1: the module walks the hook's rules itself (always
 *               -1 for a hook the table does not have)
 * @counters_fd: a BPF_MAP_TYPE_ARRAY with one element, at least
 *               @num_entries struct ebpf_counter: the rules' counters,
 *               indexed by entry ordinal, shared by the programs and the
 *               module's walk (atomic adds)
 * @resume_fd:   with EBPF_INSTALL_F_RESUME in @flags: a
 *               BPF_MAP_TYPE_PERCPU_ARRAY with one struct ebpf_resume,
 *               where a program that returns EBPF_PROG_WALK left the point
 *               the module's walk continues from; else ignored
 * @maps_prog_fd: -1, or where EBPF_IOC_FEATURES says
 *               EBPF_CTL_FEAT_MAPS_PROG: a BPF_PROG_TYPE_SCHED_CLS program
 *               (never run) that uses the maps of @counters_fd and
 *               @resume_fd: a kernel that exports no bpf_map_get() to
 *               modules (5.10) resolves their fds only through a
 *               program's used maps (kmod/compat/map_carrier.c).  The fds
 *               must still name them: the module matches each fd's map.
 * @family:      NFPROTO_IPV4: @entries are struct ipt_entry, the table
 *               is ip_tables'; NFPROTO_IPV6: struct ip6t_entry, ip6_tables'
 *               (hooked at NFPROTO_IPV6 with ip6table_<name>'s priorities;
 *               its @prog_fd must all be -1: the module walks its rules,
 *               as ip6t_do_table(), until the code generator serves IPv6)
 * @netns:       the network namespace whose table this is (proto.h's
 *               ids); ESRCH when it is gone (the helper then forgets it)
 * @parked_fd:   with EBPF_INSTALL_F_PARKED in @flags (and ADOPT): a
 *               counters map as @counters_fd's, of these very rules: the
 *               map of the rules a change replaced, parked by a helper
 *               that died before the change's caller was answered; else
 *               ignored (-1).  Where it is not the counters map of the
 *               table in force (the change went live), the module moves
 *               its counts to the new counters entry for entry (adds
 *               them, and zeroes the parked ones: a second restore of the
 *               same parked map adds nothing); where it is (the helper
 *               died before the switch), the ADOPT carry has them.
 *               Resolved as @counters_fd is (@maps_prog_fd uses it too)
 * @reserved:    0
 * @writeback:   0: every entry is written back; else a user pointer to
 *               (@num_entries + 7) / 8 bytes, bit i % 8 of byte i / 8
 *               for entry i (blob order): the entries written back.  The
 *               helper leaves out those whose every match and target it
 *               checks and normalizes itself: the kernel would write the
 *               same bytes (their payloads are not changed by their
 *               checks and have no kernel-private tail), and at 10,000
 *               rules the whole write-back was half of the install
 *               (bench/calls.md)
 *
 * EBPF_IOC_INSTALL: 0 once the new rule set is live (the previous one's
 * extension instances destroyed after no packet can still see them), or
 * -errno with nothing changed: ESRCH for a namespace that is gone; the
 * errno of the first match or target that
 * ip_tables would refuse (ENOENT for an unknown extension, the result of
 * xt_check_match()/xt_check_target() otherwise), EBADF/EINVAL for a bad
 * program or map, ENOMEM.
 */
struct ebpf_ctl_install {
	__u32 size;
	__u32 flags;
	char name[32];
	__u64 entries;
	__u32 entries_size;
	__u32 num_entries;
	__u32 valid_hooks;
	__u32 hook_entry[EBPF_CTL_NF_HOOKS];
	__u32 underflow[EBPF_CTL_NF_HOOKS];
	__s32 prog_fd[EBPF_CTL_NF_HOOKS];
	__s32 counters_fd;
	__s32 resume_fd;
	__s32 maps_prog_fd;
	__u32 family;
	__u64 netns;
	__s32 parked_fd;
	__u32 reserved;
	__u64 writeback;
};

/* struct ebpf_ctl_install.flags */
#define EBPF_INSTALL_F_RESUME	0x1
/*
 * A restarted helper's restore of the table: after the switch (no packet
 * counts into the replaced rules any more) the module adds what the rules
 * it replaces counted to the new counters, rule by rule where the two
 * tables have the same rules: the common leading and trailing rules (all
 * of them when the helper restores what a dead one put in force; all but
 * the changed ones when it died between a change going live and its
 * caller being told).  So no packet counted while no helper ran, or while
 * the restore was compiled, is lost, and none is counted twice.
 */
#define EBPF_INSTALL_F_ADOPT	0x2
/* With ADOPT: @parked_fd names the replaced rules' parked counters map. */
#define EBPF_INSTALL_F_PARKED	0x4

/* The deepest jump stack a resume record carries (BPF's call depth). */
#define EBPF_RESUME_MAX_DEPTH	8

/**
 * struct ebpf_resume - where the module's walk takes over from a program
 * @entry: offset (in the installed entries) of the rule to walk from: the
 *         program has not counted it
 * @depth: jump rules taken to get there, at most EBPF_RESUME_MAX_DEPTH
 * @stack: their offsets, outermost first: a RETURN continues after the
 *         innermost, as ipt_do_table()'s jump stack
 *
 * The module checks every offset against the installed entries before it
 * follows it; a record it cannot follow drops the packet.
 */
struct ebpf_resume {
	__u32 entry;
	__u32 depth;
	__u32 stack[EBPF_RESUME_MAX_DEPTH];
};

/* One rule's counters in the counters map. */
struct ebpf_counter {
	__u64 pkts;
	__u64 bytes;
};

/*
 * Programs.  The module runs a hook's program on the skb at the netfilter
 * hook: skb->data is the IP header (no link-layer header: l2len 0) and
 * __sk_buff.len is skb->len (what ip_tables counts).  Around the run the
 * module saves skb->cb and fills the program-visible words:
 */
enum ebpf_ctl_cb {
	EBPF_CB_OUT_IFINDEX,	/* cb[0]: output device, 0 if none */
	EBPF_CB_L2LEN,		/* cb[1]: 0; the program's scratch word */
	EBPF_CB_IN_IFINDEX,	/* cb[2]: input device, 0 if none */
	/* cb[3]: xt_conntrack's state bit of the packet (INVALID 1,
	 * ESTABLISHED 2, RELATED 4, NEW 8, SNAT 64, DNAT 128, UNTRACKED 256)
	 */
	EBPF_CB_CTSTATE,
	EBPF_CB_HOOK,		/* cb[4]: NF_INET_* */
};

/* A program's return value: the verdict, or EBPF_PROG_WALK: the rule at
 * the resume record's entry needs the kernel's extensions; the module walks
 * from there.  Anything else drops the packet (never fail open).
 */
#define EBPF_PROG_DROP		0
#define EBPF_PROG_ACCEPT	1
#define EBPF_PROG_WALK		2

#define EBPF_IOC_INSTALL	_IOW('E', 1, struct ebpf_ctl_install)


/* EBPF_IOC_FEATURES: the module writes a __u32 of EBPF_CTL_FEAT_* bits. */
#define EBPF_IOC_FEATURES	_IOR('E', 2, __u32)
/* EBPF_IOC_INSTALL needs @maps_prog_fd (see struct ebpf_ctl_install) */
#define EBPF_CTL_FEAT_MAPS_PROG	0x1
/* EBPF_IOC_INSTALL takes programs for IPv6 tables (the ipv6_bpf parameter) */
#define EBPF_CTL_FEAT_IP6_PROGS	0x2

#endif
