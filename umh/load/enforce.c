// SPDX-License-Identifier: GPL-2.0
/*
 * Enforcement: compile the filter table to BPF, load it, and switch to it
 * atomically at the hooks ip_tables uses.
 *
 * Mechanisms (chosen by probing the running kernel, reported in dmesg):
 *  - "netfilter" (6.4+; here 6.12): BPF_PROG_TYPE_NETFILTER programs linked
 *    at NF_INET_LOCAL_IN, FORWARD and LOCAL_OUT with the filter table's
 *    priority (NF_IP_PRI_FILTER = 0): the hook points of ip_tables, after
 *    conntrack (so state/conntrack matches see real state).
 *  - "tc" (6.1): clsact ingress/egress filters on every interface of the
 *    initial netns, lo and later ones included (enforce_tc.c).  Ingress
 *    decides INPUT vs FORWARD with bpf_fib_lookup(); egress runs OUTPUT for
 *    locally generated packets (no input interface).  Conntrack state is not
 *    available there, so state/conntrack rules are refused.
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
 * Never failing open (the vault): fds 3 and 4 are the two ends of an
 * AF_UNIX datagram socket pair that the module keeps across helper
 * restarts.  After every change the helper sends all object fds (links
 * included) with SCM_RIGHTS to fd 3 and then dequeues the previous message
 * from fd 4, so exactly one message is queued: the in-flight skb holds the
 * files, the links stay attached while the helper is dead.  A restarted
 * helper peeks the message (MSG_PEEK duplicates the fds) and adopts them.
 * The same message carries the latest two saved table states (memfds,
 * state_store.c), each under the id of the request that committed it:
 * the module tells a restarted helper which one it was told is committed
 * (EBPF_F_STATE in proto.h).
 * On unload the module drops the vault after EBPF_MSG_SHUTDOWN; TC filters
 * are netlink-owned and removed by enforce_shutdown().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netfilter.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "load/bpf_enforce.h"
#include "cgen/bpf_insn.h"
#include "load/enforce.h"
#include "lib/log.h"

#define VAULT_SEND_FD	3
#define VAULT_RECV_FD	4
#define VAULT_MAGIC	0x544c5645u	/* "EVLT" */
#define VAULT_VERSION	2

enum vault_role {
	VR_GEN = 1, VR_PROGS, VR_CTR, VR_IFINFO,
	VR_DISP0, VR_DISP1, VR_DISP2,
	VR_LINK0, VR_LINK1, VR_LINK2,
	VR_STATE,	/* + slot * ENF_STATE_PARTS + part */
	VR_MAX = VR_STATE + 2 * ENF_STATE_PARTS
};

struct vault_hdr {
	__u32 magic, version, mech, gen, nfds, nentries;
	__u32 state_id[2], state_len[2][ENF_STATE_PARTS];
	__u32 roles[VR_MAX];
};

static struct {
	bool inited, attached, vault_ok, vault_full;
	struct enf_kernel ek;
	int gen_fd, progs_fd, ifinfo_fd;
	int ctr_fd;		/* live generation's counters */
	unsigned int ctr_n;
	unsigned int gen;
	int disp[CG_NHOOKS];
	int link[CG_NHOOKS];
	struct enf_state state[2];	/* saved: [0] latest, [1] the one before */
} S = { .gen_fd = -1, .progs_fd = -1, .ifinfo_fd = -1, .ctr_fd = -1,
	.disp = { -1, -1, -1 }, .link = { -1, -1, -1 },
	.state = { { .fd = { -1, -1 } }, { .fd = { -1, -1 } } } };

static void xclose(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ----- probing and BTF ---------------------------------------------------- */

/* Byte offset of member @name in struct @sname (looking through anonymous
 * struct/union members), or -1. */
static int member_off_in(const struct btf *btf, __u32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i, n;

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return -1;
	m = btf_members(t);
	n = btf_vlen(t);
	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 bit = btf_member_bit_offset(t, i);

		if (mn && !strcmp(mn, name))
			return (int)(bit / 8);
		if (!mn || !*mn) {
			int o = member_off_in(btf, m->type, name);

			if (o >= 0)
				return (int)(bit / 8) + o;
		}
	}
	return -1;
}

static int member_off(const struct btf *btf, const char *sname,
		      const char *name)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);

	return id < 0 ? -1 : member_off_in(btf, (__u32)id, name);
}

static bool probe_netfilter(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, NF_ACCEPT),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_NETFILTER);
	int fd = bpf_prog_load(BPF_PROG_TYPE_NETFILTER, "ebpf_probe", "GPL",
			       insns, 2, &o);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int enf_probe(struct enf_kernel *ek, bool force_tc, char *err, size_t len)
{
	struct btf *vm, *ctbtf = NULL;
	struct cg_kernel *k = &ek->k;

	memset(ek, 0, sizeof(*ek));
	ek->mech = (!force_tc && probe_netfilter()) ? CG_NETFILTER : CG_TC;
	k->off_skb_nfct = k->off_ct_status = -1;
	if (ek->mech == CG_TC)
		return 0;
	vm = btf__load_vmlinux_btf();
	if (!vm) {
		snprintf(err, len, "netfilter programs need the kernel's BTF: %s",
			 strerror(errno));
		return -ENOENT;
	}
	k->kf_dynptr_from_skb = btf__find_by_name_kind(vm, "bpf_dynptr_from_skb",
						       BTF_KIND_FUNC);
	k->kf_dynptr_slice = btf__find_by_name_kind(vm, "bpf_dynptr_slice",
						    BTF_KIND_FUNC);
	k->off_state_in = member_off(vm, "nf_hook_state", "in");
	k->off_state_out = member_off(vm, "nf_hook_state", "out");
	k->off_dev_name = member_off(vm, "net_device", "name");
	k->off_skb_len = member_off(vm, "sk_buff", "len");
	k->off_skb_nfct = member_off(vm, "sk_buff", "_nfct");
	k->off_ct_status = member_off(vm, "nf_conn", "status");
	if (k->off_ct_status < 0) {
		/* struct nf_conn lives in nf_conntrack.ko's BTF */
		ctbtf = btf__load_module_btf("nf_conntrack", vm);
		if (ctbtf)
			k->off_ct_status = member_off(ctbtf, "nf_conn", "status");
		btf__free(ctbtf);
	}
	/* reading the headers in place needs bpf_rdonly_cast() (6.2) */
	k->kf_rdonly_cast = btf__find_by_name_kind(vm, "bpf_rdonly_cast",
						   BTF_KIND_FUNC);
	k->off_skb_data = member_off(vm, "sk_buff", "data");
	k->off_skb_data_len = member_off(vm, "sk_buff", "data_len");
	k->btf_iphdr = btf__find_by_name_kind(vm, "iphdr", BTF_KIND_STRUCT);
	k->btf_tcphdr = btf__find_by_name_kind(vm, "tcphdr", BTF_KIND_STRUCT);
	k->btf_nf_hook_state = btf__find_by_name_kind(vm, "nf_hook_state",
						      BTF_KIND_STRUCT);
	k->direct = k->kf_rdonly_cast > 0 && k->off_skb_data >= 0 &&
		    k->off_skb_data_len >= 0 && k->btf_iphdr > 0 &&
		    k->btf_tcphdr > 0 && k->btf_nf_hook_state > 0;
	btf__free(vm);
	if (k->kf_dynptr_from_skb <= 0 || k->kf_dynptr_slice <= 0 ||
	    k->off_state_in < 0 || k->off_state_out < 0 ||
	    k->off_dev_name < 0 || k->off_skb_len < 0) {
		snprintf(err, len,
			 "kernel BTF lacks what netfilter programs need (dynptr kfuncs, nf_hook_state, sk_buff)");
		return -ENOENT;
	}
	ek->have_btf = true;
	return 0;
}

/* ----- the vault ------------------------------------------------------------ */

static bool fd_is_dgram_unix(int fd)
{
	int v;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) || v != AF_UNIX)
		return false;
	l = sizeof(v);
	return !getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) && v == SOCK_DGRAM;
}

/* Receive the vault message (peek: it stays queued; else: dequeue). */
static int vault_recv(bool peek, struct vault_hdr *h, int *fds, int maxfds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * VR_MAX)];
	struct iovec iov = { h, sizeof(*h) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;
	int nf = 0;

	memset(h, 0, sizeof(*h));
	n = recvmsg(VAULT_RECV_FD, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC |
		    (peek ? MSG_PEEK : 0));
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));

			for (int i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
				       sizeof(int));
				if (nf < maxfds)
					fds[nf++] = fd;
				else
					close(fd);
			}
		}
	}
	if (n != sizeof(*h) || h->magic != VAULT_MAGIC ||
	    h->version != VAULT_VERSION || h->nfds != (unsigned int)nf) {
		for (int i = 0; i < nf; i++)
			close(fds[i]);
		return -EBADMSG;
	}
	return nf;
}

static int vault_store(void)
{
	struct vault_hdr h = { .magic = VAULT_MAGIC, .version = VAULT_VERSION,
			       .mech = S.ek.mech, .gen = S.gen,
			       .nentries = S.ctr_n,
			       .state_id = { S.state[0].id, S.state[1].id } };
	int fds[VR_MAX], nf = 0, i, p;
	char cbuf[CMSG_SPACE(sizeof(int) * VR_MAX)];
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = 0,
	};
	struct cmsghdr *cm;

	if (!S.vault_ok)
		return -ENOTCONN;
#define PUT(fd, role) do { if ((fd) >= 0) { fds[nf] = (fd); h.roles[nf] = (role); nf++; } } while (0)
	PUT(S.gen_fd, VR_GEN);
	PUT(S.progs_fd, VR_PROGS);
	PUT(S.ctr_fd, VR_CTR);
	PUT(S.ifinfo_fd, VR_IFINFO);
	for (i = 0; i < CG_NHOOKS; i++) {
		PUT(S.disp[i], VR_DISP0 + i);
		PUT(S.link[i], VR_LINK0 + i);
	}
	for (i = 0; i < 2; i++) {
		for (p = 0; p < ENF_STATE_PARTS; p++) {
			h.state_len[i][p] = S.state[i].len[p];
			PUT(S.state[i].fd[p], VR_STATE + i * ENF_STATE_PARTS + p);
		}
	}
#undef PUT
	h.nfds = (unsigned int)nf;
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * nf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * nf);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * nf);
	if (sendmsg(VAULT_SEND_FD, &mh, MSG_DONTWAIT) < 0) {
		int e = -errno;

		log_warn("vault: storing the objects failed (%s); a helper crash would drop the rules\n",
			 strerror(-e));
		return e;
	}
	if (S.vault_full) {	/* dequeue the previous message */
		struct vault_hdr old;
		int ofds[VR_MAX], n = vault_recv(false, &old, ofds, VR_MAX);

		for (i = 0; i < n; i++)
			close(ofds[i]);
	}
	S.vault_full = true;
	return 0;
}

/* Drop whatever the vault holds (shutdown). */
static void vault_clear(void)
{
	struct vault_hdr h;
	int fds[VR_MAX], n, i, guard = 8;

	if (!S.vault_ok)
		return;
	while (guard-- > 0 && (n = vault_recv(false, &h, fds, VR_MAX)) != -EAGAIN) {
		for (i = 0; i < n; i++)
			close(fds[i]);
	}
	S.vault_full = false;
}

/* ----- saved table states (state_store.c) ----------------------------------- */

/*
 * Two states may share a part (ADD_COUNTERS keeps the tables): the vault
 * returns one fd per mention, so make them one fd again, or releasing one
 * would hand out a file the other still holds.
 */
static void unify_state_fds(void)
{
	struct stat a, b;
	int *f[2 * ENF_STATE_PARTS], i, j, n = 0;

	for (i = 0; i < 2; i++)
		for (j = 0; j < ENF_STATE_PARTS; j++)
			f[n++] = &S.state[i].fd[j];
	for (i = 0; i < n; i++) {
		if (*f[i] < 0 || fstat(*f[i], &a))
			continue;
		for (j = i + 1; j < n; j++) {
			if (*f[j] < 0 || *f[j] == *f[i] || fstat(*f[j], &b) ||
			    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
				continue;
			close(*f[j]);
			*f[j] = *f[i];
		}
	}
}

static void clear_state(struct enf_state *st)
{
	memset(st, 0, sizeof(*st));
	memset(st->fd, -1, sizeof(st->fd));
}

static bool state_holds(const struct enf_state *st, int n, int fd)
{
	int i, p;

	for (i = 0; i < n; i++)
		for (p = 0; p < ENF_STATE_PARTS; p++)
			if (st[i].fd[p] == fd)
				return true;
	return false;
}

/* Put each fd of @from[0..n) not held by S.state in @out, once. */
static void collect_released(const struct enf_state *from, int n,
			     int out[ENF_STATE_RELEASED])
{
	int i, p, k = 0;

	for (i = 0; i < ENF_STATE_RELEASED; i++)
		out[i] = -1;
	for (i = 0; i < n; i++) {
		for (p = 0; p < ENF_STATE_PARTS; p++) {
			int fd = from[i].fd[p], j;
			bool dup = false;

			if (fd < 0 || state_holds(S.state, 2, fd))
				continue;
			for (j = 0; j < k; j++)
				dup |= out[j] == fd;
			if (!dup && k < ENF_STATE_RELEASED)
				out[k++] = fd;
		}
	}
}

int enforce_keep_state(const struct enf_state *st, bool only,
		       int released[ENF_STATE_RELEASED])
{
	struct enf_state old[2];
	int r;

	memcpy(old, S.state, sizeof(old));
	S.state[1] = S.state[0];
	if (only)
		clear_state(&S.state[1]);
	S.state[0] = *st;
	r = vault_store();
	if (r) {	/* not kept: back to what the vault still holds */
		memcpy(S.state, old, sizeof(old));
		collect_released(st, 1, released);
		return r;
	}
	collect_released(old, 2, released);
	return 0;
}

const struct enf_state *enforce_kept_state(__u32 id, bool *latest)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (S.state[i].fd[0] >= 0 && S.state[i].id == id) {
			*latest = i == 0;
			return &S.state[i];
		}
	}
	return NULL;
}

/* Close every saved state (shutdown). */
static void drop_states(void)
{
	struct enf_state old[2];
	int rel[ENF_STATE_RELEASED], i;

	memcpy(old, S.state, sizeof(old));
	for (i = 0; i < 2; i++)
		clear_state(&S.state[i]);
	collect_released(old, 2, rel);
	for (i = 0; i < ENF_STATE_RELEASED; i++)
		if (rel[i] >= 0)
			close(rel[i]);
}

const struct enf_state *enforce_latest_state(void)
{
	return S.state[0].fd[0] >= 0 ? &S.state[0] : NULL;
}

static int vault_adopt(void)
{
	struct vault_hdr h;
	int fds[VR_MAX], n, i;
	bool same_mech;

	n = vault_recv(true, &h, fds, VR_MAX);
	if (n == -EAGAIN)
		return 0;
	S.vault_full = true;	/* something is queued, valid or not */
	if (n < 0) {
		log_warn("vault: unreadable message (%s); starting afresh\n",
			 strerror(-n));
		return 0;
	}
	/* The saved tables do not depend on the mechanism: keep them. */
	same_mech = h.mech == (unsigned int)S.ek.mech;
	if (!same_mech)
		log_warn("vault: objects of another mechanism; starting afresh\n");
	for (i = 0; i < n; i++) {
		unsigned int role = h.roles[i];

		if (role >= VR_STATE && role < VR_MAX) {
			unsigned int slot = (role - VR_STATE) / ENF_STATE_PARTS;
			unsigned int part = (role - VR_STATE) % ENF_STATE_PARTS;

			S.state[slot].fd[part] = fds[i];
			S.state[slot].len[part] = h.state_len[slot][part];
			S.state[slot].id = h.state_id[slot];
			continue;
		}
		if (!same_mech) {
			close(fds[i]);
			continue;
		}
		switch (role) {
		case VR_GEN: S.gen_fd = fds[i]; break;
		case VR_PROGS: S.progs_fd = fds[i]; break;
		case VR_CTR: S.ctr_fd = fds[i]; break;
		case VR_IFINFO: S.ifinfo_fd = fds[i]; break;
		case VR_DISP0: case VR_DISP1: case VR_DISP2:
			S.disp[role - VR_DISP0] = fds[i]; break;
		case VR_LINK0: case VR_LINK1: case VR_LINK2:
			S.link[role - VR_LINK0] = fds[i]; break;
		default: close(fds[i]); break;
		}
	}
	unify_state_fds();
	if (!same_mech)
		return 0;
	S.gen = h.gen & 1;
	S.ctr_n = h.nentries;
	S.attached = true;
	return 1;
}

/* ----- objects -------------------------------------------------------------- */

static int create_base(char *err, size_t len)
{
	int i, r;
	__u32 k = 0, zero = 0;

	S.gen_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ebpf_gen", 4, 4, 1, NULL);
	S.progs_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "ebpf_progs", 4, 4,
				    2 * CG_NHOOKS, NULL);
	if (S.gen_fd < 0 || S.progs_fd < 0) {
		snprintf(err, len, "creating maps: %s",
			 strerror(errno));
		return -errno;
	}
	bpf_map_update_elem(S.gen_fd, &k, &zero, BPF_ANY);
	if (S.ek.mech == CG_TC) {
		S.ifinfo_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ebpf_ifinfo", 4,
					     sizeof(struct cg_ifinfo), 4096, NULL);
		if (S.ifinfo_fd < 0) {
			snprintf(err, len, "creating maps: %s", strerror(errno));
			return -errno;
		}
	}
	for (i = 0; i < CG_NHOOKS; i++) {
		struct cg_prog p;

		if (S.ek.mech == CG_TC && i == CG_FORWARD)
			continue;	/* ingress covers INPUT and FORWARD */
		r = codegen_dispatcher(S.ek.mech, (enum cg_hook)i, &p);
		if (r) {
			snprintf(err, len, "dispatcher: %s", strerror(-r));
			return r;
		}
		r = enf_load(S.ek.mech, &p, &(struct enf_maps){ -1, S.ifinfo_fd, S.gen_fd, S.progs_fd }, "ebpf_dispatch", &S.disp[i], err, len);
		cg_prog_free(&p);
		if (r)
			return r;
	}
	return 0;
}

static int attach(char *err, size_t len)
{
	static const unsigned int nfhook[CG_NHOOKS] = {
		NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT };
	int i;

	if (S.ek.mech == CG_TC) {
		int r = enf_tc_start(S.disp[CG_INPUT], S.disp[CG_OUTPUT],
				     S.ifinfo_fd);

		if (r)
			snprintf(err, len, "attaching tc filters: %s",
				 strerror(-r));
		return r;
	}
	for (i = 0; i < CG_NHOOKS; i++) {
		LIBBPF_OPTS(bpf_link_create_opts, o);

		o.netfilter.pf = NFPROTO_IPV4;
		o.netfilter.hooknum = nfhook[i];
		o.netfilter.priority = 0;	/* NF_IP_PRI_FILTER */
		S.link[i] = bpf_link_create(S.disp[i], 0, BPF_NETFILTER, &o);
		if (S.link[i] < 0) {
			int e = -errno;

			snprintf(err, len,
				 "netfilter link at hook %u priority 0: %s%s",
				 nfhook[i], strerror(-e),
				 e == -EBUSY ? " (ip_tables' filter table or another program holds it)" : "");
			while (i-- > 0)
				xclose(&S.link[i]);
			return e;
		}
	}
	return 0;
}

int enforce_init(char *mech, size_t mech_len)
{
	char err[256] = "";
	int r, i;

	if (S.inited) {
		snprintf(mech, mech_len, "%s",
			 S.ek.mech == CG_NETFILTER ? "netfilter" : "tc");
		return 0;
	}
	r = enf_probe(&S.ek, getenv("EBPFILTER_FORCE_TC") != NULL, err,
		      sizeof(err));
	if (r) {
		log_err("enforcement: %s\n", err);
		return r;
	}
	snprintf(mech, mech_len, "%s",
		 S.ek.mech == CG_NETFILTER ? "netfilter" : "tc");
	S.vault_ok = fd_is_dgram_unix(VAULT_SEND_FD) &&
		     fd_is_dgram_unix(VAULT_RECV_FD);
	if (!S.vault_ok)
		log_warn("no vault on fds 3/4: the rules will not outlive this helper\n");
	if (S.vault_ok && vault_adopt() > 0) {
		if (S.ek.mech == CG_TC) {
			/* re-scan: attach to interfaces created meanwhile */
			r = enf_tc_start(S.disp[CG_INPUT], S.disp[CG_OUTPUT],
					 S.ifinfo_fd);
			if (r)
				log_err("tc: re-attaching failed: %s\n",
					strerror(-r));
		}
		log_info("enforcement: %s hooks, adopted the rules in force (generation %u)\n",
			 mech, S.gen);
		S.inited = true;
		return 0;
	}
	r = create_base(err, sizeof(err));
	if (r) {
		log_err("enforcement: %s\n", err);
		xclose(&S.gen_fd);
		xclose(&S.progs_fd);
		xclose(&S.ifinfo_fd);
		for (i = 0; i < CG_NHOOKS; i++)
			xclose(&S.disp[i]);
		return r;
	}
	log_info("enforcement: %s hooks (%s)\n", mech,
		 S.ek.mech == CG_NETFILTER ?
		 "BPF_PROG_TYPE_NETFILTER links at LOCAL_IN/FORWARD/LOCAL_OUT, priority 0" :
		 "no netfilter BPF programs on this kernel: tc clsact on every interface");
	S.inited = true;
	return 0;
}

bool enforce_conntrack_on;
static bool live_uses_ct;

bool enforce_uses_conntrack(void)
{
	return live_uses_ct;
}

int enforce_commit(const struct ipt_table_view *t, char *err, size_t err_len)
{
	struct ir_table ir;
	unsigned int idle = S.gen ^ 1, h;
	int fds[CG_NHOOKS] = { -1, -1, -1 };
	int ctr = -1, r;
	__u32 key = 0, slot;

	if (!S.inited)
		return -ENODEV;
	if (strcmp(t->name, "filter")) {
		snprintf(err, err_len, "table %s is not enforced", t->name);
		return -EOPNOTSUPP;
	}
	r = ir_build(t, &ir, err, err_len);
	if (r)
		return r;
	if (ir.uses_ct && !enforce_conntrack_on && S.ek.mech == CG_NETFILTER) {
		/* As ip_tables: conntrack on before such a rule is live. */
		ir_free(&ir);
		snprintf(err, err_len, "connection tracking is not enabled yet");
		return -ENFORCE_NEED_CONNTRACK;
	}
	ctr = enf_counters_create(ir.nrules);
	if (ctr < 0) {
		r = ctr;
		snprintf(err, err_len, "counters map: %s", strerror(-r));
		goto fail;
	}
	for (h = 0; h < CG_NHOOKS; h++) {
		r = enf_load_hook(&ir, &S.ek, (enum cg_hook)h, ctr, S.ifinfo_fd,
				  &fds[h], err, err_len);
		if (r)
			goto fail;
	}
	for (h = 0; h < CG_NHOOKS; h++) {
		slot = idle * CG_NHOOKS + h;
		if (bpf_map_update_elem(S.progs_fd, &slot, &fds[h], BPF_ANY)) {
			r = -errno;
			snprintf(err, err_len, "prog array update: %s",
				 strerror(errno));
			goto fail_slots;
		}
	}
	/* the switch */
	if (bpf_map_update_elem(S.gen_fd, &key, &idle, BPF_ANY)) {
		r = -errno;
		snprintf(err, err_len, "generation switch: %s", strerror(errno));
		goto fail_slots;
	}
	if (!S.attached) {
		r = attach(err, err_len);
		if (r) {
			/* nothing was in force: leave nothing half-attached */
			bpf_map_update_elem(S.gen_fd, &key, &S.gen, BPF_ANY);
			goto fail_slots;
		}
		S.attached = true;
	}
	S.gen = idle;
	live_uses_ct = ir.uses_ct;
	xclose(&S.ctr_fd);
	S.ctr_fd = ctr;
	S.ctr_n = ir.nrules;
	for (h = 0; h < CG_NHOOKS; h++)
		xclose(&fds[h]);
	vault_store();
	ir_free(&ir);
	return 0;

fail_slots:
	for (h = 0; h < CG_NHOOKS; h++) {
		slot = idle * CG_NHOOKS + h;
		bpf_map_delete_elem(S.progs_fd, &slot);
	}
fail:
	for (h = 0; h < CG_NHOOKS; h++)
		xclose(&fds[h]);
	if (ctr >= 0)
		close(ctr);
	ir_free(&ir);
	return r;
}

int enforce_read_counters(struct xt_counters *c, unsigned int n)
{
	if (S.ctr_fd < 0)
		return 0;	/* nothing committed yet: nothing counted */
	return enf_counters_add(S.ctr_fd, c, n < S.ctr_n ? n : S.ctr_n);
}

void enforce_shutdown(void)
{
	int i;

	if (S.ek.mech == CG_TC)
		enf_tc_stop(true);
	for (i = 0; i < CG_NHOOKS; i++) {
		if (S.link[i] >= 0)
			bpf_link_detach(S.link[i]);
		xclose(&S.link[i]);
		xclose(&S.disp[i]);
	}
	vault_clear();
	drop_states();
	xclose(&S.gen_fd);
	xclose(&S.progs_fd);
	xclose(&S.ifinfo_fd);
	xclose(&S.ctr_fd);
	S.attached = false;
	S.inited = false;
	log_info("enforcement: removed every program, link, filter and map\n");
}
