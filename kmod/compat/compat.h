/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included into every kmod/ file (Kbuild: -include).  All knowledge
 * of kernel versions lives here and in probe.sh: core files test the
 * capability macros below, never LINUX_VERSION_CODE.
 */
#ifndef EBPF_COMPAT_H
#define EBPF_COMPAT_H

#include "probe.h"

/*
 * How the helper is started.  The kernel's own usermode-driver API
 * (kernel/usermode_driver.c) is exported by no kernel we target, and where
 * it is, its pipe-based channel cannot carry the vault socket (fds 3/4) a
 * restart needs; the module therefore always uses its backported shim
 * (umd_shim.c) and names the mechanism in its "loaded" dmesg line.
 */
#ifdef EBPF_HAVE_NATIVE_UMD
#define EBPF_UMD_MECHANISM "shim (native usermode driver exported but unused)"
#else
#define EBPF_UMD_MECHANISM "shim"
#endif

/*
 * The namespace bpf_map_get() is exported in (probe.sh): imported once, in
 * xt_table.c.  MODULE_IMPORT_NS takes the bare name before v6.13 and a
 * string after (probe.sh: EBPF_HAVE_STRING_IMPORT_NS).
 */
#if defined(EBPF_HAVE_NS_BPF_INTERNAL) && defined(EBPF_HAVE_STRING_IMPORT_NS)
#define EBPF_IMPORT_BPF_NS() MODULE_IMPORT_NS("BPF_INTERNAL")
#elif defined(EBPF_HAVE_NS_BPF_INTERNAL)
#define EBPF_IMPORT_BPF_NS() MODULE_IMPORT_NS(BPF_INTERNAL)
#else
#define EBPF_IMPORT_BPF_NS()
#endif

/*
 * How the rule engine takes the helper's maps from their fds (probe.sh):
 * bpf_map_get() where the kernel exports it; else (5.10) through the used
 * maps of a program the helper loads with them (compat/map_carrier.c),
 * which the helper is told to pass by EBPF_CTL_FEAT_MAPS_PROG.
 */
struct bpf_map;
struct bpf_prog;
#if defined(EBPF_HAVE_BPF_MAP_GET)
#define EBPF_MAPS_NEED_CARRIER 0
#define ebpf_map_get(fd, carrier) bpf_map_get(fd)
#elif defined(EBPF_HAVE_MAP_CARRIER)
#define EBPF_MAPS_NEED_CARRIER 1
struct bpf_map *ebpf_map_get(int fd, struct bpf_prog *carrier);
#endif

/* Running a program (probe.sh): the macro before v5.15. */
#ifndef EBPF_HAVE_BPF_PROG_RUN_FN
#define bpf_prog_run(prog, ctx) BPF_PROG_RUN(prog, ctx)
#endif

/*
 * TEE's "this is the duplicate" flag, which picks the second half of a
 * CPU's jump stack (ipt_do_table()): a per-CPU variable before v6.14, a
 * bit of the task after (probe.sh).
 */
#ifdef EBPF_HAVE_TASK_NF_DUPLICATE
#define ebpf_nf_skb_duplicated() (current->in_nf_duplicate)
#else
#define ebpf_nf_skb_duplicated() __this_cpu_read(nf_skb_duplicated)
#endif

/* shmem_file_setup()'s flags argument: no accounting (probe.sh) */
#ifdef EBPF_HAVE_SHMEM_VMA_FLAGS
#define EBPF_SHMEM_NORESERVE mk_vma_flags(VMA_NORESERVE_BIT)
#else
#define EBPF_SHMEM_NORESERVE VM_NORESERVE
#endif

/* The unbound system workqueue (probe.sh): system_dfl_wq where it exists */
#ifdef EBPF_HAVE_SYSTEM_DFL_WQ
#define EBPF_UNBOUND_WQ system_dfl_wq
#else
#define EBPF_UNBOUND_WQ system_unbound_wq
#endif

#endif /* EBPF_COMPAT_H */
