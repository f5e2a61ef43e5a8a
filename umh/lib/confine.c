// SPDX-License-Identifier: GPL-2.0
/*
 * Confining the helper.  The module starts it as root with every
 * capability, in the initial namespaces; a bug in the parsing of what
 * iptables sends must not turn into that much power.  Two fences:
 *
 * - capabilities: every set (bounding, permitted, effective, inheritable,
 *   ambient) is cut down to keep_caps[] before the first thread exists
 *   (capabilities are per thread; threads inherit the creator's);
 *
 * - a seccomp filter (all threads, TSYNC: in case one exists) allowing
 *   only the system calls of allowed[], and a few only with the arguments
 *   the helper uses (socket, newfstatat, clone, ioctl).
 *
 * main.c does both before it reads the first request, after what needs
 * more: the log's /dev/kmsg is open and the kernel has been probed (the
 * BTF files it reads under /sys/kernel/btf; module BTF by id).  From then
 * on the helper opens no file at all.  Any other call, and any call
 * through another ABI (i386, x32), kills the whole process (SIGSYS); the
 * module reports the death, the rules in force stay (the vault), and the
 * next request starts a new helper.
 *
 * This file is the one home of the list: a new system call in the helper
 * (or in musl or libbpf under it) must be added here, or the helper dies
 * on its first use; tests/guest/umd-seccomp.sh and the guest suites on
 * both kernels are what find such a call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>

#include <ebpfilter/ctl.h>

#include "lib/confine.h"

#ifndef __x86_64__
#error "the seccomp filter lists x86_64 system calls"
#endif

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT			47
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif
#define X32_SYSCALL_BIT			0x40000000u

/*
 * What the helper's work needs (checked on 6.1 and 6.12 by the guest
 * suites):
 * - CAP_BPF: maps, programs, links, BTF (bpf_capable());
 * - CAP_PERFMON: the table programs read kernel memory (bpf_rdonly_cast(),
 *   pointer arithmetic the verifier allows only to perfmon_capable());
 *   without it the verifier refuses them: "'struct sk_buff' access is
 *   allowed only to CAP_PERFMON and CAP_SYS_ADMIN" (6.12), "pointer
 *   arithmetic with it prohibited for !root" (6.1);
 * - CAP_NET_ADMIN: netfilter and tc program types (bpf_net_capable()),
 *   tc qdiscs and filters over rtnetlink;
 * Not CAP_SYS_ADMIN: only the probe needs it (libbpf finds
 * nf_conntrack's module BTF with BPF_BTF_GET_NEXT_ID and _GET_FD_BY_ID),
 * and main.c probes before confining.
 */
static const unsigned int keep_caps[] = {
	CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN,
};

int confine_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned long long keep = 0;
	unsigned int c, i;

	for (i = 0; i < sizeof(keep_caps) / sizeof(keep_caps[0]); i++)
		keep |= 1ULL << keep_caps[i];
	/* the bounding set first: dropping from it needs CAP_SETPCAP */
	for (c = 0; c <= 63; c++) {
		if (keep & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
			return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (__u32)keep;
	d[1].effective = d[1].permitted = (__u32)(keep >> 32);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

#define LD_NR	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
			 offsetof(struct seccomp_data, nr))
#define LD_ARG(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
			   offsetof(struct seccomp_data, args[n]))
#define ALLOW	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define KILL	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)
/*
 * Development aid, never in a product build: EXTRA_CFLAGS=
 * -DEBPF_CONFINE_AUDIT only logs a call missing from allowed[]
 * ("audit: type=1326 ... syscall=N" in dmesg) and lets it run, so one run
 * of the guest suites finds every missing call, not just the first.
 */
#ifdef EBPF_CONFINE_AUDIT
#define DENY	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG)
#else
#define DENY	KILL
#endif

/* System calls allowed with any arguments. */
static const unsigned short allowed[] = {
	/* the channel, the vault, netlink, the log, memfds */
	SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64,
	SYS_pwrite64, SYS_close,
	SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg,
	SYS_bind, SYS_getsockname, SYS_setsockopt, SYS_getsockopt,
	SYS_poll, SYS_ppoll, SYS_pipe, SYS_pipe2, SYS_fcntl,
	SYS_memfd_create, SYS_ftruncate, SYS_lseek, SYS_fstat,
	/* everything else the rules become */
	SYS_bpf,
	/* memory: malloc, mmap of counters and saved states */
	SYS_brk, SYS_mmap, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_madvise,
	/* the tc mechanism's netlink thread (clone: see below) */
	SYS_futex, SYS_set_robust_list, SYS_exit,
	SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_restart_syscall,
	/* the rest of a process' life; tkill: abort() */
	SYS_getpid, SYS_gettid, SYS_clock_gettime, SYS_uname,
	SYS_exit_group, SYS_tkill,
};

#define N_ALLOWED	(sizeof(allowed) / sizeof(allowed[0]))
/* arch and ABI checks (6), three checks of an argument (5 each), the
 * ioctl's two (7), the list, its two returns */
#define PROG_MAX	(6 + 3 * 5 + 7 + N_ALLOWED + 2)
/* a jump's offset is 8 bits: over the rest of the list, at most */
_Static_assert(N_ALLOWED < 256, "allowed[] too long for one jump");

#define CLONE_NEW_ANY	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | \
			 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
			 CLONE_NEWCGROUP)

/*
 * Allow @nr only when the test @jmp (BPF_JEQ, BPF_JSET) of argument @arg's
 * low 32 bits against @k comes out @want; A holds the number and still
 * does after the block when @nr is another call.
 */
static unsigned int arg_is(struct sock_filter *f, unsigned int n,
			   unsigned int nr, unsigned int arg,
			   unsigned short jmp, unsigned int k, bool want)
{
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      nr, 0, 4);
	f[n++] = (struct sock_filter)LD_ARG(arg);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | jmp | BPF_K, k,
					      want ? 0 : 1, want ? 1 : 0);
	f[n++] = (struct sock_filter)ALLOW;
	f[n++] = (struct sock_filter)DENY;
	return n;
}

/*
 * Allow ioctl() only as fd @fd's request @req (both compared in their low
 * 32 bits, what the kernel reads of them); A holds the number and still
 * does after the block when it is another call.
 */
static unsigned int ioctl_is(struct sock_filter *f, unsigned int n,
			     unsigned int fd, unsigned int req)
{
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      SYS_ioctl, 0, 6);
	f[n++] = (struct sock_filter)LD_ARG(0);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      fd, 0, 3);
	f[n++] = (struct sock_filter)LD_ARG(1);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      req, 0, 1);
	f[n++] = (struct sock_filter)ALLOW;
	f[n++] = (struct sock_filter)DENY;
	return n;
}

int confine_syscalls(void)
{
	struct sock_filter f[PROG_MAX];
	struct sock_fprog prog = { .filter = f };
	unsigned int n = 0, i;
	long r;

	/* x86_64 only; the x32 ABI shares the arch but sets a bit in nr */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)KILL;
	f[n++] = (struct sock_filter)LD_NR;
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
					      X32_SYSCALL_BIT, 0, 1);
	f[n++] = (struct sock_filter)KILL;
	/* socket(): netlink only (the tc mechanism's rtnetlink) */
	n = arg_is(f, n, SYS_socket, 0, BPF_JEQ, AF_NETLINK, true);
	/* newfstatat(): only as musl's fstat(), on an fd (AT_EMPTY_PATH) */
	n = arg_is(f, n, SYS_newfstatat, 3, BPF_JEQ, AT_EMPTY_PATH, true);
	/* clone(): a thread (pthread_create()), never new namespaces */
	n = arg_is(f, n, SYS_clone, 0, BPF_JSET, CLONE_NEW_ANY, false);
	/* ioctl(): the kmod mechanism's one call into the module */
	n = ioctl_is(f, n, EBPF_CTL_FD, EBPF_IOC_INSTALL);
	/* each allowed number jumps over the rest of the list and the KILL */
	for (i = 0; i < N_ALLOWED; i++)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      allowed[i],
						      N_ALLOWED - i, 0);
	f[n++] = (struct sock_filter)DENY;
	f[n++] = (struct sock_filter)ALLOW;
	prog.len = (unsigned short)n;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (r < 0)
		return -errno;
	return r ? -ESRCH : 0;	/* > 0: the id of a thread that refused */
}
