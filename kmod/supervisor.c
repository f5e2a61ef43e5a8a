// SPDX-License-Identifier: GPL-2.0
/*
 * Supervision of the helper: exactly one instance, started synchronously
 * (handshake before anyone is told it is ready), one request at a time,
 * restarted on the next request after it died, throttled when it keeps
 * dying, and killed when it stops answering.
 *
 * Locking: sup.lock serialises everything that touches the helper: starts,
 * stops, requests and death handling.  The channel's sk_state_change
 * callback only queues death_work, which takes the lock.
 */

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/sock.h>

#include "channel.h"
#include "ebpfilter.h"
#include "umd_shim.h"

/* A helper that dies this soon after its start counts as a quick death. */
#define QUICK_DEATH_WINDOW	(10 * HZ)
/*
 * Quick deaths in a row before restarts are delayed; the first delay,
 * doubled with every further quick death, and its cap.
 */
#define QUICK_DEATHS_ALLOWED	3
#define THROTTLE_FIRST		(5 * HZ)
#define THROTTLE_MAX		(60 * HZ)
/* How long the helper gets to clean up on unload. */
#define SHUTDOWN_TIMEOUT_MS	5000

static struct {
	struct mutex lock;		/* everything that touches the helper */
	struct ebpf_umd umd;
	pid_t pid;			/* of the running helper, for messages */
	u32 next_id;
	unsigned int starts;
	unsigned long started_at;
	unsigned int quick_deaths;
	unsigned long throttle_until;
	u32 state_id;			/* see EBPF_F_STATE; 0: none yet */
	const char *serving;		/* the request in flight, or NULL */
	void (*orig_state_change)(struct sock *sk);
	struct work_struct death_work;
	bool conntrack_held;		/* init_net's nf_ct_netns_get() */
	/* namespaces gone that the helper has not heard of (gone_work) */
	spinlock_t gone_lock;
	u64 *gone;
	unsigned int ngone, gone_cap;
	bool stopped;
	struct work_struct gone_work;
	wait_queue_head_t turn;		/* requests waiting for sup.lock */
	char helper_version[32];
	char mechanism[32];
} sup = {
	.lock = __MUTEX_INITIALIZER(sup.lock),
	.gone_lock = __SPIN_LOCK_UNLOCKED(sup.gone_lock),
	.turn = __WAIT_QUEUE_HEAD_INITIALIZER(sup.turn),
	.umd.name = "ebpfilter-umh",
};

/*
 * Every unlock wakes the requests waiting for their turn (ebpf_sup_call():
 * each waits at most request_timeout_ms, so one namespace's slow or
 * flooding requests cannot hold another's longer than that).
 */
static void sup_unlock(void)
{
	mutex_unlock(&sup.lock);
	wake_up(&sup.turn);
}

static void chan_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = READ_ONCE(sup.orig_state_change);

	if (orig)
		orig(sk);
	/* The helper's end was closed: it exited (or is exiting). */
	schedule_work(&sup.death_work);
}

static void watch_channel(struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(sup.orig_state_change, sk->sk_state_change);
	sk->sk_state_change = chan_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void unwatch_channel(struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_state_change = sup.orig_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void describe_exit(int code, char *buf, size_t len)
{
	if (code & 0x7f)
		snprintf(buf, len, "killed by signal %d%s", code & 0x7f,
			 code & 0x80 ? " (core dumped)" : "");
	else
		snprintf(buf, len, "exited with status %d", (code >> 8) & 0xff);
}

/*
 * Stop the helper (killing it if it still runs) and account for its death.
 * @why: NULL when it died by itself, else why we killed it.
 */
static void helper_gone_locked(const char *why)
{
	char how[80];	/* "exited with status N while serving IP6T_..." */
	int code = 0, err;

	if (!sup.umd.tgid && !sup.umd.chan)
		return;
	if (sup.umd.chan)
		unwatch_channel(sup.umd.chan);
	err = ebpf_umd_stop(&sup.umd, &code);
	if (err) {
		pr_err("helper (pid %d) could not be reaped (%d); will retry\n",
		       sup.pid, err);
		return;
	}
	describe_exit(code, how, sizeof(how));
	/* what it was serving: a request it died in failed with EIO */
	if (sup.serving) {
		size_t n = strlen(how);

		scnprintf(how + n, sizeof(how) - n, " while serving %s",
			  sup.serving);
	}
	if (why)
		pr_err("helper (pid %d) %s; killed (%s)\n", sup.pid, why, how);
	else
		pr_err("helper (pid %d) died: %s\n", sup.pid, how);

	if (time_before(jiffies, sup.started_at + QUICK_DEATH_WINDOW))
		sup.quick_deaths++;
	else
		sup.quick_deaths = 0;
	if (sup.quick_deaths >= QUICK_DEATHS_ALLOWED) {
		unsigned long delay = min_t(unsigned long, THROTTLE_MAX,
			THROTTLE_FIRST << min(sup.quick_deaths - QUICK_DEATHS_ALLOWED, 4u));

		sup.throttle_until = jiffies + delay;
		pr_warn("helper keeps dying (%u times within %u s of a start): restarts throttled for %u s\n",
			sup.quick_deaths, QUICK_DEATH_WINDOW / HZ, (unsigned int)(delay / HZ));
	}
	sup.pid = 0;
}

static void death_workfn(struct work_struct *work)
{
	mutex_lock(&sup.lock);
	/* A request may already have noticed and handled it. */
	if (sup.umd.chan &&
	    READ_ONCE(sup.umd.chan->sk->sk_shutdown) == SHUTDOWN_MASK)
		helper_gone_locked(NULL);
	sup_unlock();
}

/*
 * Enable connection tracking in the initial namespace, as ip_tables does
 * when a rule needing it is checked: before the rule is live.
 */
static int conntrack_get_locked(void)
{
	int err;

	if (sup.conntrack_held)
		return 0;
	err = nf_ct_netns_get(&init_net, NFPROTO_IPV4);
	if (err) {
		pr_err("cannot enable connection tracking (%d)\n", err);
		return err;
	}
	sup.conntrack_held = true;
	pr_info("connection tracking enabled for state/conntrack rules\n");
	return 0;
}

static void conntrack_put_locked(void)
{
	if (!sup.conntrack_held)
		return;
	nf_ct_netns_put(&init_net, NFPROTO_IPV4);
	sup.conntrack_held = false;
	pr_info("connection tracking no longer needed by the rules\n");
}

/* Request ids are never 0: sup.state_id 0 means "no state committed". */
static u32 next_id_locked(void)
{
	if (!++sup.next_id)
		++sup.next_id;
	return sup.next_id;
}

/* One exchange; a reply asking for conntrack makes it a second one. */
static int exchange_ct_locked(struct ebpf_exchange *x)
{
	int err;

	x->flags = sup.conntrack_held ? EBPF_F_CONNTRACK_ON : 0;
	err = ebpf_channel_exchange(sup.umd.chan, x);
	if (!err && (x->reply_flags & EBPF_F_WANT_CONNTRACK) &&
	    !sup.conntrack_held) {
		ebpf_exchange_free(x);
		err = conntrack_get_locked();
		if (err)
			return err;
		x->id = next_id_locked();
		x->flags = EBPF_F_CONNTRACK_ON;
		err = ebpf_channel_exchange(sup.umd.chan, x);
	}
	if (!err && (x->reply_flags & EBPF_F_CONNTRACK_UNUSED))
		conntrack_put_locked();
	return err;
}

/*
 * One exchange with the running helper; transport failures stop it.  A
 * reply that committed a new state (EBPF_F_STATE) makes it the one a
 * restarted helper restores.
 */
static int exchange_locked(struct ebpf_exchange *x)
{
	char why[64];
	int err;

	x->id = next_id_locked();
	sup.serving = x->what;
	err = exchange_ct_locked(x);
	if (!err && (x->reply_flags & EBPF_F_STATE))
		sup.state_id = x->id;
	switch (err) {
	case 0:
		break;
	case -ETIMEDOUT:
		snprintf(why, sizeof(why), "did not answer within %u ms",
			 x->timeout_ms);
		helper_gone_locked(why);
		break;
	case -ECONNRESET:
	case -EPIPE:
		helper_gone_locked(NULL);
		err = -ECONNRESET;
		break;
	default:
		snprintf(why, sizeof(why), "sent a malformed reply (%d)", err);
		helper_gone_locked(why);
		break;
	}
	sup.serving = NULL;
	return err;
}

static int handshake_locked(void)
{
	struct ebpf_hello hello = {
		.proto_version = EBPF_PROTO_VERSION,
		.features = (sup.state_id ? EBPF_HELLO_RESTORE_FOLLOWS : 0) |
			    (phase_timing ? EBPF_HELLO_PHASE_TIMING : 0),
	};
	struct ebpf_exchange x = {
		.type = EBPF_MSG_HELLO,
		.iov[0] = { .iov_base = &hello, .iov_len = sizeof(hello) },
		.niov = 1,
		.timeout_ms = handshake_timeout_ms,
		.max_data = sizeof(struct ebpf_hello),
	};
	const struct ebpf_hello *h;
	int err;

	strscpy(hello.version, EBPFILTER_VERSION, sizeof(hello.version));
	strscpy(hello.mechanism, mechanism, sizeof(hello.mechanism));
	err = ebpf_channel_exchange(sup.umd.chan, &x);
	if (err == -ETIMEDOUT) {
		pr_err("helper handshake failed: no answer within %u ms\n",
		       handshake_timeout_ms);
		return err;
	}
	if (err == -ECONNRESET) {
		pr_err("helper handshake failed: the helper exited\n");
		return -ECHILD;
	}
	if (err) {
		pr_err("helper handshake failed: malformed reply (%d)\n", err);
		return -EPROTO;
	}
	err = -EPROTO;
	h = x.data;	/* read only once its size is checked */
	if (x.status) {
		pr_err("helper handshake failed: helper reports error %d\n",
		       x.status);
		err = x.status < 0 ? x.status : -EPROTO;
	} else if (x.data_len != sizeof(*h)) {
		pr_err("helper handshake failed: reply of %zu bytes\n",
		       x.data_len);
	} else if (h->proto_version != EBPF_PROTO_VERSION) {
		pr_err("helper handshake failed: helper speaks protocol %u, module %u\n",
		       h->proto_version, EBPF_PROTO_VERSION);
	} else if (serve_ipv6 && !(h->features & EBPF_FEAT_IP6T) &&
		   ipv6_given) {
		/* the tc and netfilter mechanisms have no IPv6 tables */
		pr_err("ipv6=Y, but the helper does not serve IPv6 with mechanism %s: load with mechanism=kmod (or auto) or with ipv6=0\n",
		       mechanism);
		err = -EOPNOTSUPP;
	} else {
		/* the default: IPv6 where the helper serves it (decided at
		 * the first handshake, before the sockopts are registered)
		 */
		if (serve_ipv6 && !(h->features & EBPF_FEAT_IP6T)) {
			serve_ipv6 = false;
			ebpf_xt_drop_ipv6();
		}
		memcpy(sup.helper_version, h->version, sizeof(h->version));
		sup.helper_version[sizeof(sup.helper_version) - 1] = '\0';
		memcpy(sup.mechanism, h->mechanism, sizeof(h->mechanism));
		sup.mechanism[sizeof(sup.mechanism) - 1] = '\0';
		err = 0;
	}
	ebpf_exchange_free(&x);
	return err;
}

/* Have a restarted helper restore the state its predecessor committed. */
static int restore_locked(void)
{
	struct ebpf_restore r = { .state_id = sup.state_id };
	struct ebpf_exchange x = {
		.type = EBPF_MSG_RESTORE,
		.iov[0] = { .iov_base = &r, .iov_len = sizeof(r) },
		.niov = 1,
		.timeout_ms = request_timeout_ms,
	};
	int err;

	x.id = next_id_locked();
	err = exchange_ct_locked(&x);
	if (!err && x.status)
		err = x.status < 0 ? x.status : -EPROTO;
	ebpf_exchange_free(&x);
	if (err)
		pr_err("restoring the tables into the new helper failed (%d)\n",
		       err);
	return err;
}

static const char *start_error_hint(int err)
{
	switch (err) {
	case -ENOENT:
		return ": exec of /proc/self/fd/2 failed; is /proc mounted?";
	case -EBUSY:
		return ": usermode helpers are disabled (suspend or shutdown)";
	case -EBADF:
		return ": unexpected fd table in the new task";
	default:
		return "";
	}
}

static int start_locked(void)
{
	ktime_t t0 = ktime_get();
	int err;

	err = ebpf_umd_start(&sup.umd);
	if (err) {
		pr_err("cannot start the helper (%d)%s\n", err,
		       start_error_hint(err));
		sup.started_at = jiffies;
		return err;
	}
	sup.pid = pid_nr(sup.umd.tgid);
	sup.started_at = jiffies;
	if (sup.starts++)
		pr_info("helper restarted (pid %d, restart %u)\n", sup.pid,
			sup.starts - 1);
	else
		pr_info("helper started (pid %d)\n", sup.pid);
	watch_channel(sup.umd.chan);

	err = handshake_locked();
	if (!err && sup.state_id)
		err = restore_locked();
	if (err) {
		unwatch_channel(sup.umd.chan);
		helper_gone_locked("failed to start");
		return err;
	}
	pr_info("helper ready (pid %d, helper %s, enforcement %s) after %lld ms\n",
		sup.pid, sup.helper_version, sup.mechanism,
		ktime_ms_delta(ktime_get(), t0));
	return 0;
}

static int ensure_running_locked(void)
{
	if (sup.umd.chan && ebpf_umd_running(&sup.umd))
		return 0;
	if (sup.umd.tgid || sup.umd.chan)
		helper_gone_locked(NULL);	/* died, not yet noticed */
	if (sup.throttle_until && time_before(jiffies, sup.throttle_until)) {
		unsigned int left_s = jiffies_to_msecs(sup.throttle_until -
						       jiffies) / MSEC_PER_SEC + 1;

		pr_warn_ratelimited("helper restart throttled for %u more s; request refused\n",
				    left_s);
		return -EIO;
	}
	return start_locked() ? -EIO : 0;
}

/**
 * ebpf_sup_call() - run one request against the helper
 * @x: the request; on return its reply (free with ebpf_exchange_free())
 *
 * Starts the helper first if it is not running.  A reply that committed a
 * new state (EBPF_F_STATE) makes it the one a restarted helper restores.
 *
 * Return: 0 with @x->status the helper's answer, or a negative errno when
 * no answer could be had (the helper is then stopped): -EAGAIN when the
 * helper stayed busy with other requests for request_timeout_ms, -EINTR
 * when the caller was killed while it waited.
 */
int ebpf_sup_call(struct ebpf_exchange *x)
{
	int err;
	long left;

	x->data = NULL;
	/* our turn, within the bound of one request (or EAGAIN: retried by
	 * iptables, as when another writer changed the table first)
	 */
	left = wait_event_killable_timeout(sup.turn, mutex_trylock(&sup.lock),
					   msecs_to_jiffies(READ_ONCE(request_timeout_ms)));
	if (left < 0)
		return -EINTR;
	if (!left) {
		pr_notice_ratelimited("request (pid %d) waited %u ms for the helper, busy with others: refused with EAGAIN\n",
				      task_pid_nr(current),
				      READ_ONCE(request_timeout_ms));
		return -EAGAIN;
	}
	err = ensure_running_locked();
	if (!err)
		err = exchange_locked(x);
	sup_unlock();
	return err;
}

int ebpf_sup_helper_pid(void)
{
	return READ_ONCE(sup.pid);
}

/*
 * Tell the helper which namespaces died, in batches.  A helper that is
 * not running is not started for it: a restarted one restores only the
 * namespaces the module still has (the others' installs get ESRCH).
 */
static void gone_workfn(struct work_struct *work)
{
	struct ebpf_exchange x = {
		.type = EBPF_MSG_NETNS_GONE,
		.niov = 1,
	};
	u64 *ids;
	unsigned int n;

	for (;;) {
		spin_lock(&sup.gone_lock);
		ids = sup.gone;
		n = sup.ngone;
		sup.gone = NULL;
		sup.ngone = 0;
		sup.gone_cap = 0;
		spin_unlock(&sup.gone_lock);
		if (!n)
			break;
		mutex_lock(&sup.lock);
		if (sup.umd.chan && ebpf_umd_running(&sup.umd)) {
			unsigned int i, k;

			for (i = 0; i < n; i += k) {
				k = min(n - i, (unsigned int)EBPF_NETNS_GONE_MAX);
				x.iov[0].iov_base = ids + i;
				x.iov[0].iov_len = k * sizeof(*ids);
				x.timeout_ms = request_timeout_ms;
				if (exchange_locked(&x))
					break;	/* it died: restores skip them */
				ebpf_exchange_free(&x);
			}
		}
		sup_unlock();
		kvfree(ids);
	}
}

/**
 * ebpf_sup_netns_gone() - the namespace numbered @id died (netns.c)
 * @id: its number
 *
 * Does not wait (called from the namespace's exit).  If memory is short
 * the helper keeps that namespace's state until its next restart.
 */
void ebpf_sup_netns_gone(u64 id)
{
	u64 *grown = NULL;
	unsigned int cap;

	spin_lock(&sup.gone_lock);
	while (!sup.stopped && sup.ngone == sup.gone_cap) {
		cap = max(16u, 2 * sup.gone_cap);
		spin_unlock(&sup.gone_lock);
		kvfree(grown);
		grown = kvmalloc_array(cap, sizeof(*grown), GFP_KERNEL);
		if (!grown)
			return;
		spin_lock(&sup.gone_lock);
		if (sup.gone_cap < cap) {
			if (sup.ngone)
				memcpy(grown, sup.gone,
				       sup.ngone * sizeof(*grown));
			swap(grown, sup.gone);
			sup.gone_cap = cap;
		}
	}
	if (!sup.stopped) {
		sup.gone[sup.ngone++] = id;
		schedule_work(&sup.gone_work);
	}
	spin_unlock(&sup.gone_lock);
	kvfree(grown);
}

/**
 * ebpf_sup_init() - load the embedded image and start the helper
 *
 * Return: 0 once the helper answered the handshake; else a negative errno
 * with nothing left behind (no process, file or socket).
 */
int __init ebpf_sup_init(void)
{
	size_t len = ebpf_helper_image_end - ebpf_helper_image_start;
	int err;

	INIT_WORK(&sup.death_work, death_workfn);
	INIT_WORK(&sup.gone_work, gone_workfn);
	err = ebpf_umd_load_blob(&sup.umd, ebpf_helper_image_start, len);
	if (err) {
		pr_err("cannot copy the helper image (%zu bytes): %d\n", len, err);
		return err;
	}
	sup.umd.make_ctl = ebpf_ctl_file_create;
	mutex_lock(&sup.lock);
	err = start_locked();
	sup_unlock();
	if (err) {
		cancel_work_sync(&sup.death_work);
		ebpf_umd_unload_blob(&sup.umd);
	}
	return err;
}

/* Ask the helper to release what it built, then stop it and free all. */
void ebpf_sup_exit(void)
{
	struct ebpf_exchange x = {
		.type = EBPF_MSG_SHUTDOWN,
		.timeout_ms = SHUTDOWN_TIMEOUT_MS,
	};
	int code;

	spin_lock(&sup.gone_lock);
	sup.stopped = true;	/* the helper goes with all it holds */
	spin_unlock(&sup.gone_lock);
	cancel_work_sync(&sup.gone_work);
	kvfree(sup.gone);
	sup.gone = NULL;
	sup.ngone = 0;
	sup.gone_cap = 0;

	mutex_lock(&sup.lock);
	/*
	 * tc filters belong to the interfaces, not to the vault: only a
	 * helper can remove them.  If it is dead, start one just for that.
	 */
	if (!(sup.umd.chan && ebpf_umd_running(&sup.umd)) &&
	    !strcmp(sup.mechanism, "tc")) {
		helper_gone_locked(NULL);
		pr_info("starting a helper to remove the tc filters of the dead one\n");
		if (start_locked())
			pr_err("tc filters left in place: no helper could remove them\n");
	}
	if (sup.umd.chan && ebpf_umd_running(&sup.umd)) {
		x.id = next_id_locked();
		if (ebpf_channel_exchange(sup.umd.chan, &x))
			pr_warn("helper (pid %d) did not acknowledge shutdown\n",
				sup.pid);
		ebpf_exchange_free(&x);
	}
	if (sup.umd.chan)
		unwatch_channel(sup.umd.chan);
	if (ebpf_umd_stop(&sup.umd, &code))
		pr_err("helper (pid %d) could not be reaped\n", sup.pid);
	sup_unlock();
	cancel_work_sync(&sup.death_work);
	/* The vault goes, and with it every program that read conntrack. */
	ebpf_umd_unload_blob(&sup.umd);
	conntrack_put_locked();
	sup.state_id = 0;
}
