// SPDX-License-Identifier: GPL-2.0
/*
 * The vault: never failing open across helper restarts.
 *
 * Fds 3 and 4 are the two ends of an AF_UNIX datagram socket pair that the
 * module keeps across helper restarts.  After every change the helper sends
 * all object fds (links included) with SCM_RIGHTS to fd 3 and then dequeues
 * the previous message from fd 4, so exactly one message is queued: the
 * in-flight skb holds the files, the links stay attached while the helper
 * is dead.  A restarted helper peeks the message (MSG_PEEK duplicates the
 * fds) and adopts them.
 *
 * The same message carries the latest two saved table states (memfds,
 * written by state_store.c), each under the id of the request that committed it:
 * the module tells a restarted helper which one it was told is committed
 * (EBPF_F_STATE in proto.h).
 *
 * It may also carry one parked counters map, with the id of the state
 * whose rules it counted (load/commit.c, "Parked counters"): what a change
 * replaced counted, for a restore when that change's caller never heard
 * of it.
 *
 * On unload the module drops the vault after EBPF_MSG_SHUTDOWN; what is
 * attached outside the vault (tc filters) is removed by load/ first.
 *
 * The message (struct vault_hdr, the fds in SCM_RIGHTS, each fd's role in
 * roles[]) is read by the next helper, possibly of another version: its
 * layout changes only with VAULT_VERSION.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "lib/channel.h"
#include "lib/log.h"
#include "vault/vault.h"

#define VAULT_SEND_FD	3
#define VAULT_RECV_FD	4
#define VAULT_MAGIC	0x544c5645u	/* "EVLT" */
#define VAULT_VERSION	5	/* 5: retired_family */
/* Messages vault_empty() dequeues at most: one is queued, a few in races. */
#define VAULT_DRAIN_MAX	8

enum vault_role {
	VR_GEN = 1, VR_PROGS, VR_IFINFO,
	VR_CTR0, VR_CTR4 = VR_CTR0 + VAULT_TABLES - 1,
	VR_DISP0, VR_DISP1, VR_DISP2,
	VR_LINK0, VR_LINK1, VR_LINK2,
	VR_RETIRED,
	VR_STATE,	/* + slot * VAULT_STATE_PARTS + part */
	VR_MAX = VR_STATE + VAULT_STATES * VAULT_STATE_PARTS
};

_Static_assert(VR_DISP2 - VR_DISP0 + 1 == VAULT_HOOKS &&
	       VR_LINK2 - VR_LINK0 + 1 == VAULT_HOOKS,
	       "a dispatcher and a link role per hook");

struct vault_hdr {
	__u32 magic, version, mech, gen, nfds, nentries[VAULT_TABLES];
	__u64 retired_netns;
	__u32 retired_state, retired_table, retired_n, retired_family;
	__u32 state_id[VAULT_STATES], state_len[VAULT_STATES][VAULT_STATE_PARTS];
	__u32 roles[VR_MAX];
};

static struct {
	bool ok, full;		/* fds 3/4 are the vault; a message is queued */
	struct vault_objs *objs;	/* load/'s, see vault_open() */
	/* saved: [0] latest, [1] the one before */
	struct vault_state state[VAULT_STATES];
} V = { .state = { { .fd = { -1, -1 } }, { .fd = { -1, -1 } } } };

bool vault_open(struct vault_objs *objs)
{
	V.objs = objs;
	V.ok = fd_is_unix(VAULT_SEND_FD, SOCK_DGRAM) &&
	       fd_is_unix(VAULT_RECV_FD, SOCK_DGRAM);
	if (!V.ok)
		log_warn("no vault on fds 3/4: the rules will not outlive this helper\n");
	return V.ok;
}

static void close_all(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
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
		close_all(fds, nf);
		return -EBADMSG;
	}
	return nf;
}

/* Dequeue one message and close its fds; what vault_recv() returns. */
static int vault_drop_one(void)
{
	struct vault_hdr h;
	int fds[VR_MAX], n = vault_recv(false, &h, fds, VR_MAX);

	if (n > 0)
		close_all(fds, n);
	return n;
}

int vault_store(void)
{
	const struct vault_objs *o = V.objs;
	struct vault_hdr h = { .magic = VAULT_MAGIC, .version = VAULT_VERSION,
			       .state_id = { V.state[0].id, V.state[1].id } };
	int fds[VR_MAX], nf = 0, i, p;
	char cbuf[CMSG_SPACE(sizeof(int) * VR_MAX)];
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = 0,
	};
	struct cmsghdr *cm;

	if (!V.ok)	/* also: no vault_open() yet, no objects */
		return -ENOTCONN;
	h.mech = o->mech;
	h.gen = o->gen;
	memcpy(h.nentries, o->nentries, sizeof(h.nentries));
	h.retired_netns = o->retired_netns;
	h.retired_state = o->retired_state;
	h.retired_table = o->retired_table;
	h.retired_family = o->retired_family;
	h.retired_n = o->retired_n;
#define PUT(fd, role) do { if ((fd) >= 0) { fds[nf] = (fd); h.roles[nf] = (role); nf++; } } while (0)
	PUT(o->gen_fd, VR_GEN);
	PUT(o->progs_fd, VR_PROGS);
	for (i = 0; i < VAULT_TABLES; i++)
		PUT(o->ctr_fd[i], VR_CTR0 + i);
	PUT(o->ifinfo_fd, VR_IFINFO);
	for (i = 0; i < VAULT_HOOKS; i++) {
		PUT(o->disp[i], VR_DISP0 + i);
		PUT(o->link[i], VR_LINK0 + i);
	}
	PUT(o->retired_fd, VR_RETIRED);
	for (i = 0; i < VAULT_STATES; i++) {
		for (p = 0; p < VAULT_STATE_PARTS; p++) {
			h.state_len[i][p] = V.state[i].len[p];
			PUT(V.state[i].fd[p], VR_STATE + i * VAULT_STATE_PARTS + p);
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
	if (V.full)	/* dequeue the previous message */
		vault_drop_one();
	V.full = true;
	return 0;
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
	int *f[VAULT_STATE_RELEASED], i, j, n = 0;

	for (i = 0; i < VAULT_STATES; i++)
		for (j = 0; j < VAULT_STATE_PARTS; j++)
			f[n++] = &V.state[i].fd[j];
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

static void clear_state(struct vault_state *st)
{
	memset(st, 0, sizeof(*st));
	memset(st->fd, -1, sizeof(st->fd));
}

static bool state_holds(const struct vault_state *st, int n, int fd)
{
	int i, p;

	for (i = 0; i < n; i++)
		for (p = 0; p < VAULT_STATE_PARTS; p++)
			if (st[i].fd[p] == fd)
				return true;
	return false;
}

/* Put each fd of @from[0..n) not held by V.state in @out, once. */
static void collect_released(const struct vault_state *from, int n,
			     int out[VAULT_STATE_RELEASED])
{
	int i, p, k = 0;

	for (i = 0; i < VAULT_STATE_RELEASED; i++)
		out[i] = -1;
	for (i = 0; i < n; i++) {
		for (p = 0; p < VAULT_STATE_PARTS; p++) {
			int fd = from[i].fd[p], j;
			bool dup = false;

			if (fd < 0 || state_holds(V.state, VAULT_STATES, fd))
				continue;
			for (j = 0; j < k; j++)
				dup |= out[j] == fd;
			if (!dup && k < VAULT_STATE_RELEASED)
				out[k++] = fd;
		}
	}
}

int vault_keep_state(const struct vault_state *st, bool only,
		     int released[VAULT_STATE_RELEASED])
{
	struct vault_state old[VAULT_STATES];
	int r;

	memcpy(old, V.state, sizeof(old));
	V.state[1] = V.state[0];
	if (only)
		clear_state(&V.state[1]);
	V.state[0] = *st;
	r = vault_store();
	if (r) {	/* not kept: back to what the vault still holds */
		memcpy(V.state, old, sizeof(old));
		collect_released(st, 1, released);
		return r;
	}
	collect_released(old, VAULT_STATES, released);
	return 0;
}

const struct vault_state *vault_kept_state(__u32 id, bool *latest)
{
	int i;

	for (i = 0; i < VAULT_STATES; i++) {
		if (V.state[i].fd[0] >= 0 && V.state[i].id == id) {
			*latest = i == 0;
			return &V.state[i];
		}
	}
	return NULL;
}

const struct vault_state *vault_state_at(int i)
{
	return i >= 0 && i < VAULT_STATES && V.state[i].fd[0] >= 0 ?
	       &V.state[i] : NULL;
}

const struct vault_state *vault_latest_state(void)
{
	return vault_state_at(0);
}

/* Close every saved state. */
static void drop_states(void)
{
	struct vault_state old[VAULT_STATES];
	int rel[VAULT_STATE_RELEASED], i;

	memcpy(old, V.state, sizeof(old));
	for (i = 0; i < VAULT_STATES; i++)
		clear_state(&V.state[i]);
	collect_released(old, VAULT_STATES, rel);
	for (i = 0; i < VAULT_STATE_RELEASED; i++)
		if (rel[i] >= 0)
			close(rel[i]);
}

void vault_empty(void)
{
	int guard = VAULT_DRAIN_MAX;

	if (V.ok) {
		while (guard-- > 0 && vault_drop_one() != -EAGAIN)
			;
		V.full = false;
	}
	drop_states();
}

/* ----- adopting ------------------------------------------------------------- */

/* Take @fd in its @role into V.objs; false: not an object role. */
static bool adopt_obj(unsigned int role, int fd)
{
	struct vault_objs *o = V.objs;

	switch (role) {
	case VR_GEN: o->gen_fd = fd; break;
	case VR_PROGS: o->progs_fd = fd; break;
	case VR_CTR0 ... VR_CTR4:
		o->ctr_fd[role - VR_CTR0] = fd; break;
	case VR_IFINFO: o->ifinfo_fd = fd; break;
	case VR_DISP0: case VR_DISP1: case VR_DISP2:
		o->disp[role - VR_DISP0] = fd; break;
	case VR_LINK0: case VR_LINK1: case VR_LINK2:
		o->link[role - VR_LINK0] = fd; break;
	case VR_RETIRED: o->retired_fd = fd; break;
	default: return false;
	}
	return true;
}

int vault_adopt(void)
{
	struct vault_hdr h;
	int fds[VR_MAX], n, i;
	bool same_mech;

	if (!V.ok)
		return 0;
	n = vault_recv(true, &h, fds, VR_MAX);
	if (n == -EAGAIN)
		return 0;
	V.full = true;	/* something is queued, valid or not */
	if (n < 0) {
		log_warn("vault: unreadable message (%s); starting afresh\n",
			 strerror(-n));
		return 0;
	}
	/* The saved tables do not depend on the mechanism: keep them. */
	same_mech = h.mech == V.objs->mech;
	if (!same_mech)
		log_warn("vault: objects of another mechanism; starting afresh\n");
	for (i = 0; i < n; i++) {
		unsigned int role = h.roles[i];

		if (role >= VR_STATE && role < VR_MAX) {
			unsigned int slot = (role - VR_STATE) / VAULT_STATE_PARTS;
			unsigned int part = (role - VR_STATE) % VAULT_STATE_PARTS;

			V.state[slot].fd[part] = fds[i];
			V.state[slot].len[part] = h.state_len[slot][part];
			V.state[slot].id = h.state_id[slot];
			continue;
		}
		if (!same_mech || !adopt_obj(role, fds[i]))
			close(fds[i]);
	}
	unify_state_fds();
	if (!same_mech)
		return 0;
	V.objs->gen = h.gen & 1;
	memcpy(V.objs->nentries, h.nentries, sizeof(h.nentries));
	V.objs->retired_netns = h.retired_netns;
	V.objs->retired_state = h.retired_state;
	V.objs->retired_table = h.retired_table;
	V.objs->retired_family = h.retired_family;
	V.objs->retired_n = h.retired_n;
	return 1;
}
