// SPDX-License-Identifier: GPL-2.0
/*
 * ebpfilter-umh: the user-space half of ebpfilter.ko.
 *
 * The module starts this program from a private copy of the image embedded
 * in the .ko, with the request channel on fds 0/1 (an AF_UNIX stream
 * socket), the "vault" socket pair on fds 3/4 (see vault/vault.c) and, for
 * the kmod mechanism, its control file on fd 5 (ebpfilter/ctl.h), and
 * then talks to it with the protocol in include/ebpfilter/proto.h: a HELLO
 * handshake first, then one request at a time.
 *
 * This file puts the stages together: requests go to ipt/ (the iptables
 * ABI), whose enforcement backend is load/ (wired in serve()), and saved
 * states to vault/.  No stage calls a later one on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include <ebpfilter/proto.h>

#include "ipt/backend.h"
#include "ipt/ipt.h"
#include "lib/buf.h"
#include "lib/channel.h"
#include "lib/confine.h"
#include "lib/log.h"
#include "lib/phase.h"
#include "lib/test_faults.h"
#include "load/enforce.h"
#include "vault/state_store.h"

#ifndef EBPFILTER_VERSION
#error "EBPFILTER_VERSION: umh/Makefile passes it from the top-level VERSION file"
#endif

/* The parent of every usermode helper is kthreadd, pid 2. */
#define KTHREADD_PID 2

/*
 * A copy started by hand (it can only be extracted from the .ko, or read
 * through /proc/PID/exe) must not pretend to be the module's helper: the
 * module's helper is a child of kthreadd with the channel on fds 0 and 1.
 */
static bool started_by_module(void)
{
	return getppid() == KTHREADD_PID &&
	       fd_is_unix(CHANNEL_IN_FD, SOCK_STREAM) &&
	       fd_is_unix(CHANNEL_OUT_FD, SOCK_STREAM);
}

static char mechanism[32];

static int handle_hello(const struct ebpf_msg_hdr *hdr, const struct buf *in)
{
	const struct ebpf_hello *k = (const void *)in->data;
	char want[sizeof(k->mechanism) + 1];
	struct ebpf_hello h;
	int err;

	if (in->len != sizeof(*k) || k->proto_version != EBPF_PROTO_VERSION) {
		log_err("handshake: module speaks protocol %u, helper %u\n",
			in->len == sizeof(*k) ? k->proto_version : 0,
			EBPF_PROTO_VERSION);
		channel_reply(hdr, -EPROTO, NULL, 0);
		return -EPROTO;
	}

	/* the module names the mechanism it wants ("" or "auto": ours) */
	phase_on = k->features & EBPF_HELLO_PHASE_TIMING;
	memcpy(want, k->mechanism, sizeof(want) - 1);
	want[sizeof(want) - 1] = 0;
	err = enforce_init(want, mechanism, sizeof(mechanism));
	if (!err)
		err = ipt_init(k->features & EBPF_HELLO_RESTORE_FOLLOWS);
	if (err) {
		log_err("initialisation failed: %s\n", strerror(-err));
		channel_reply(hdr, err, NULL, 0);
		return err;
	}

	memset(&h, 0, sizeof(h));
	h.proto_version = EBPF_PROTO_VERSION;
#ifdef EBPF_TEST_BAD_HELLO
	/* Test-only build knob: answer with a protocol nobody speaks. */
	h.proto_version = 0xbad;
#endif
	h.features = EBPF_FEAT_IPT_FILTER | EBPF_FEAT_BPF_ENFORCE;
	/* ip6_tables' tables: where the module walks them (kmod) */
	if (enforce_kernel_checks())
		h.features |= EBPF_FEAT_IP6T;
	h.pid = getpid();
	snprintf(h.version, sizeof(h.version), "%s", EBPFILTER_VERSION);
	snprintf(h.mechanism, sizeof(h.mechanism), "%s", mechanism);
	return channel_reply(hdr, 0, &h, sizeof(h));
}

/* What the request being served says that a commit must know. */
struct request_ctx {
	bool conntrack_on;	/* EBPF_F_CONNTRACK_ON: the module has it */
	bool sockopt;		/* a sockopt request, not a RESTORE */
	uint32_t restore_id;	/* a RESTORE's state */
};

/* ipt/'s backend: load/, told about conntrack by the request. */
static int backend_commit(void *ctx, const struct ipt_table_view *t,
			  char *err, size_t err_len)
{
	const struct request_ctx *req = ctx;
	int r;

	if (req->sockopt)
		test_fault("commit");
	/*
	 * A sockopt's change: if its caller is never answered, a restarted
	 * helper goes back to the newest saved state, whose rules the
	 * change replaces; their last counts are parked for it.
	 */
	r = enforce_commit(t, req->conntrack_on,
			   req->sockopt ? state_latest() : 0, err, err_len);
	if (!r && req->sockopt)
		test_fault("commit-live");
	return r;
}

static int backend_read_counters(void *ctx, uint64_t netns,
				 unsigned int family, unsigned int index,
				 struct xt_counters *c, unsigned int n)
{
	(void)ctx;
	return enforce_read_counters(netns, family, index, c, n);
}

static int backend_read_retired_counters(void *ctx, uint64_t netns,
					 unsigned int family,
					 unsigned int index,
					 struct xt_counters *c, unsigned int n)
{
	(void)ctx;
	return enforce_read_retired_counters(netns, family, index, c, n);
}

static int backend_restore_counters(void *ctx, uint64_t netns,
				    unsigned int family, unsigned int index,
				    struct xt_counters *c, unsigned int n)
{
	const struct request_ctx *req = ctx;
	int r = enforce_read_parked_counters(netns, family, index,
					     req->restore_id, c, n);

	return r < 0 ? r : 0;
}

static void backend_forget(void *ctx, uint64_t netns)
{
	(void)ctx;
	enforce_forget(netns);
}

static bool backend_kernel_checks(void *ctx)
{
	(void)ctx;
	return enforce_kernel_checks();
}

static unsigned int backend_tables(void *ctx)
{
	(void)ctx;
	return enforce_tables();
}

static const struct ipt_backend_ops enforce_backend = {
	.commit = backend_commit,
	.read_counters = backend_read_counters,
	.read_retired_counters = backend_read_retired_counters,
	.restore_counters = backend_restore_counters,
	.kernel_checks = backend_kernel_checks,
	/* the module walks what it checks: ip6_tables' tables too */
	.ipv6 = backend_kernel_checks,
	.tables = backend_tables,
	/* the kmod mechanism: the module's hooks are per namespace */
	.namespaces = backend_kernel_checks,
	.adopts = backend_kernel_checks,
	.forget = backend_forget,
};

static struct buf reply;

/* Conntrack bookkeeping for the module (see EBPF_F_CONNTRACK_ON). */
static unsigned int conntrack_flags(const struct request_ctx *req)
{
	/* kmod: the module's own checks of the rules hold conntrack */
	if (enforce_kernel_checks())
		return 0;
	if (req->conntrack_on && !enforce_uses_conntrack())
		return EBPF_F_CONNTRACK_UNUSED;
	return 0;
}

/* A commit that needs conntrack first: ask the module, change nothing. */
static int ask_for_conntrack(const struct ebpf_msg_hdr *hdr)
{
	return channel_reply_flags(hdr, -EAGAIN, EBPF_F_WANT_CONNTRACK,
				   NULL, 0);
}

/* Answer one sockopt request; a change is saved for restarts first. */
static int handle_sockopt(const struct ebpf_msg_hdr *hdr, const struct buf *in,
			  const struct request_ctx *req)
{
	const struct ebpf_sockopt *so = (const void *)in->data;
	unsigned int flags = 0;
	const void *data;
	bool changed = false;
	int status;

	if (in->len < sizeof(*so) || so->in_len != in->len - sizeof(*so))
		return channel_reply(hdr, -EINVAL, NULL, 0);
	data = in->data + sizeof(*so);
	buf_reset(&reply);
	phase_to(hdr->type == EBPF_MSG_SOCKOPT_GET ? PH_GET :
		 so->optname == IPT_SO_SET_ADD_COUNTERS ? PH_ADDCTR :
		 PH_VALIDATE);

	/* -EINVAL for a family neither ip_tables' nor ip6_tables' */
	status = ipt_use_netns(so->netns, so->family);
	if (status)
		return channel_reply(hdr, status, NULL, 0);
	if (hdr->type == EBPF_MSG_SOCKOPT_GET) {
		status = ipt_sockopt_get(so->optname, data, so->in_len,
					 so->user_len, &reply);
	} else {
		if (so->optname == IPT_SO_SET_ADD_COUNTERS)
			test_fault("add-counters");
		status = ipt_sockopt_set(so->optname, data, so->in_len,
					 &reply, &changed);
	}
	if (status == -IPT_BACKEND_NEED_CONNTRACK)
		return ask_for_conntrack(hdr);
	if (status) {
		buf_reset(&reply);
		return channel_reply(hdr, status, NULL, 0);
	}
	if (changed) {
		int err;

		phase_to(PH_VAULT);
		err = state_store(hdr->id);

		/*
		 * The change is live but could not be saved: a restart would
		 * go back to the last saved state.  Say so; the next change
		 * retries.
		 */
		if (err)
			log_warn("could not save the tables for a restart: %s\n",
				 strerror(-err));
		else
			flags |= EBPF_F_STATE;
	}
	/* after the change: it may have dropped the last conntrack rule */
	flags |= conntrack_flags(req);
	if (changed)
		test_fault("reply");
	phase_to(PH_REPLY);
	status = channel_reply_flags(hdr, 0, flags, reply.data, reply.len);
	phase_to(PH_NONE);
	if (changed && phase_on)
		phase_report();
	return status;
}

/* EBPF_MSG_NETNS_GONE: forget those namespaces; save if that changed. */
static int handle_netns_gone(const struct ebpf_msg_hdr *hdr,
			     const struct buf *in)
{
	unsigned int flags = 0;
	bool changed = false;
	size_t i;

	if (in->len % sizeof(uint64_t) ||
	    in->len / sizeof(uint64_t) > EBPF_NETNS_GONE_MAX)
		return channel_reply(hdr, -EINVAL, NULL, 0);
	for (i = 0; i < in->len / sizeof(uint64_t); i++) {
		uint64_t id;

		memcpy(&id, in->data + i * sizeof(id), sizeof(id));
		changed |= ipt_netns_gone(id) > 0;
	}
	if (changed && !state_store(hdr->id))
		flags |= EBPF_F_STATE;
	return channel_reply_flags(hdr, 0, flags, NULL, 0);
}

/* EBPF_MSG_RESTORE: the state the module was told is committed. */
static int restore(const struct buf *in, struct request_ctx *req)
{
	struct ebpf_restore r;
	bool read;
	int err;

	if (in->len != sizeof(r))
		return -EINVAL;
	memcpy(&r, in->data, sizeof(r));
	if (!r.state_id || r.reserved)
		return -EINVAL;
	test_fault("restore");
	req->restore_id = r.state_id;
	err = state_restore(r.state_id);
	req->restore_id = 0;
	if (err)
		return err;
	/*
	 * Counts parked by the predecessor are in the restored base counters
	 * now if they were this state's: save that base under the same id,
	 * in the vault message that no longer holds them (until then a
	 * restart adds them to the saved base again, never twice).  Parked
	 * counts of another state are dropped the same way.
	 */
	if (enforce_unpark(&read)) {
		err = state_resave(r.state_id);
		if (err)
			log_warn("could not save the restored tables%s: %s\n",
				 read ? " with the replaced rules' counts" : "",
				 strerror(-err));
	}
	return 0;
}

static int serve(void)
{
	struct request_ctx req = { 0 };
	struct ebpf_msg_hdr hdr;
	struct buf in = { 0 };
	bool greeted = false;
	int r;

	ipt_set_backend(&enforce_backend, &req);
	for (;;) {
		phase_to(PH_NONE);	/* waiting is no phase's */
		r = channel_read(&hdr, &in);
		if (r <= 0)
			break;
		if (!greeted && hdr.type != EBPF_MSG_HELLO) {
			r = -EPROTO;
			break;
		}
		req.conntrack_on = hdr.flags & EBPF_F_CONNTRACK_ON;
		/*
		 * A request after a change means its caller was answered:
		 * counts parked for a restore of the state before it are the
		 * caller's now (a RESTORE uses what its predecessor parked).
		 */
		if (hdr.type != EBPF_MSG_HELLO && hdr.type != EBPF_MSG_RESTORE)
			enforce_unpark(NULL);
		switch (hdr.type) {
		case EBPF_MSG_HELLO:
			r = handle_hello(&hdr, &in);
			if (r)
				goto out;
			greeted = true;
			log_info("ready (protocol %d, mechanism %s)\n",
				 EBPF_PROTO_VERSION, mechanism);
			break;
		case EBPF_MSG_SOCKOPT_GET:
		case EBPF_MSG_SOCKOPT_SET:
			req.sockopt = true;
			r = handle_sockopt(&hdr, &in, &req);
			req.sockopt = false;
			break;
		case EBPF_MSG_RESTORE:
			r = restore(&in, &req);
			if (r == -IPT_BACKEND_NEED_CONNTRACK) {
				r = ask_for_conntrack(&hdr);
				break;
			}
			if (r)
				log_err("restoring the previous state failed: %s\n",
					strerror(-r));
			r = channel_reply_flags(&hdr, r, r ? 0 : conntrack_flags(&req),
						NULL, 0);
			break;
		case EBPF_MSG_PING:
			r = channel_reply(&hdr, 0, NULL, 0);
			break;
		case EBPF_MSG_NETNS_GONE:
			r = handle_netns_gone(&hdr, &in);
			break;
		case EBPF_MSG_SHUTDOWN:
			enforce_shutdown();
			log_close();	/* the module stops us at the reply */
			channel_reply(&hdr, 0, NULL, 0);
			r = 0;
			goto out;
		default:
			r = channel_reply(&hdr, -EOPNOTSUPP, NULL, 0);
			break;
		}
		if (r < 0)
			break;
	}
out:
	buf_free(&in);
	if (r < 0)
		log_err("channel error: %s; exiting\n", strerror(-r));
	return r < 0 ? 1 : 0;
}

#ifdef EBPF_TEST_SIGSYS
#include <sys/syscall.h>

static void test_forbidden_call(int sig)
{
	char cwd[64];

	(void)sig;
	syscall(SYS_getcwd, cwd, sizeof(cwd));
}
#endif

/*
 * Each table in force keeps a few fds here (its program, its counters
 * map); the helper starts with the init task's limit, 1024, which 500
 * namespaces with a filter table used up ("No file descriptors
 * available": bench/netns.sh's churn of 1,000).  While it may
 * (CAP_SYS_RESOURCE, dropped by confine_caps()), it raises its limit to
 * what the kernel allows (fs.nr_open, 1,048,576 by default); the memory
 * budgets (max_netns_bytes, max_total_bytes) bound the tables, not this.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl = { .rlim_cur = 1u << 20, .rlim_max = 1u << 20 };

	if (setrlimit(RLIMIT_NOFILE, &rl) && !getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;	/* a smaller nr_open: the hard limit */
		if (setrlimit(RLIMIT_NOFILE, &rl))
			log_warn("cannot raise the open files limit: %s\n",
				 strerror(errno));
	}
}

int main(void)
{
	int r;

	if (!started_by_module()) {
		fprintf(stderr,
			"ebpfilter-umh: this program is the helper of the ebpfilter kernel module\n"
			"and runs only when the module starts it (modprobe ebpfilter); refusing to run.\n");
		return 2;
	}
	/* before any open() could take the number of a file the module
	 * gives only to some helpers (the kmod control file) */
	enforce_note_fds();
	prctl(PR_SET_NAME, "ebpfilter-umh");
	/* fd 2 (the image) was closed at exec: keep it from being reused. */
	if (fcntl(2, F_GETFD) < 0 && open("/dev/null", O_RDWR) != 2)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	log_open();
	/*
	 * What needs more than the confined helper may do comes first: the
	 * log's /dev/kmsg and the probe (the kernel's BTF files, module BTF by
	 * id).  A failed probe is reported at the handshake.  Then the helper
	 * confines itself before it reads any request (lib/confine.c).
	 */
	enforce_probe();
	raise_fd_limit();
	test_faults_arm();	/* test builds only (lib/test_faults.h) */
#ifdef EBPF_TEST_SIGSYS
	/*
	 * Test-only build knob: SIGUSR1 makes a call the filter forbids
	 * (set up before the filter, which forbids rt_sigaction too).
	 */
	signal(SIGUSR1, test_forbidden_call);
#endif
	r = confine_caps();
	if (r) {
		log_err("cannot drop capabilities: %s\n", strerror(-r));
		log_close();
		return 1;
	}
	r = confine_syscalls();
	if (r) {
		log_err("cannot install the seccomp filter: %s\n", strerror(-r));
		log_close();
		return 1;
	}
	r = serve();
	log_close();
	return r;
}
