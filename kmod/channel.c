// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel end of the channel: send one request, receive its reply.
 *
 * The exchange runs on a workqueue, not in the caller's context: a signal
 * to the caller (iptables interrupted by ^C) must not abandon a half-sent
 * request or an unread reply, which would desynchronise the stream and
 * could lose the reply of a committed change.  The caller waits
 * uninterruptibly, but never long: every socket operation is bounded by
 * the request timeout, after which the supervisor kills the helper.
 *
 * Everything the helper sends is untrusted: magic, version, type, id and
 * every length are checked before anything is allocated or copied.
 */

#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "channel.h"

struct exchange_work {
	struct work_struct work;
	struct completion done;
	struct socket *sock;
	struct ebpf_exchange *x;
	int err;
};

/* The helper's end is closed: it died (its socket went with it). */
static bool peer_gone(const struct socket *sock)
{
	return READ_ONCE(sock->sk->sk_shutdown) == SHUTDOWN_MASK;
}

/*
 * A send stops short (or with -EAGAIN) when the timeout expires, and also
 * when the helper dies while a request bigger than the socket's buffer is
 * on its way (unix_stream_sendmsg() returns what it sent): that is a
 * death, not a timeout, and is reported so (the soak's kill -9 of a
 * helper reading a large SET_REPLACE was logged as "did not answer within
 * 60000 ms" 15 s after its start).
 */
static int send_all(struct socket *sock, struct kvec *iov, unsigned int n,
		    size_t total)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int ret;

	ret = kernel_sendmsg(sock, &msg, iov, n, total);
	if (ret == -EPIPE || ((ret == -EAGAIN || (ret >= 0 && ret < total)) &&
			      peer_gone(sock)))
		return -ECONNRESET;
	if (ret == -EAGAIN)
		return -ETIMEDOUT;
	if (ret < 0)
		return ret;
	return ret == total ? 0 : -ETIMEDOUT;
}

/* Receive exactly @len bytes; a short read means EOF or timeout. */
static int recv_all(struct socket *sock, void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = 0 };
	struct kvec iov;
	size_t done = 0;
	int ret;

	while (done < len) {
		iov.iov_base = buf + done;
		iov.iov_len = len - done;
		ret = kernel_recvmsg(sock, &msg, &iov, 1, iov.iov_len,
				     MSG_WAITALL);
		if (ret == -EAGAIN)
			return -ETIMEDOUT;
		if (ret < 0)
			return ret;
		if (ret == 0)
			return -ECONNRESET;	/* the helper is gone */
		done += ret;
	}
	return 0;
}

static int check_reply(const struct ebpf_exchange *x,
		       const struct ebpf_msg_hdr *h)
{
	if (h->magic != EBPF_PROTO_MAGIC || h->version != EBPF_PROTO_VERSION ||
	    !(h->flags & EBPF_F_REPLY) || h->type != x->type || h->id != x->id)
		return -EPROTO;
	if (h->reserved2)
		return -EPROTO;
	if (h->flags & ~(EBPF_F_REPLY | EBPF_F_STATE | EBPF_F_WANT_CONNTRACK |
			 EBPF_F_CONNTRACK_UNUSED))
		return -EPROTO;
	if (h->len > x->max_data)
		return -EMSGSIZE;
	if (h->status > 0 && h->len)
		return -EPROTO;
	if ((h->flags & EBPF_F_STATE) && h->status)
		return -EPROTO;
	return 0;
}

static int do_exchange(struct socket *sock, struct ebpf_exchange *x)
{
	struct ebpf_msg_hdr hdr = {
		.magic = EBPF_PROTO_MAGIC,
		.version = EBPF_PROTO_VERSION,
		.type = x->type,
		.flags = x->flags,
		.id = x->id,
	};
	struct kvec iov[4];
	size_t total = sizeof(hdr), len;
	long tmo = msecs_to_jiffies(x->timeout_ms);
	void *payload = NULL;
	unsigned int i;
	int err;

	iov[0].iov_base = &hdr;
	iov[0].iov_len = sizeof(hdr);
	for (i = 0; i < x->niov; i++) {
		iov[i + 1] = x->iov[i];
		hdr.len += x->iov[i].iov_len;
	}
	total += hdr.len;
	if (hdr.len > EBPF_PROTO_MAX_PAYLOAD)
		return -EMSGSIZE;

	WRITE_ONCE(sock->sk->sk_sndtimeo, tmo);
	WRITE_ONCE(sock->sk->sk_rcvtimeo, tmo);

	err = send_all(sock, iov, x->niov + 1, total);
	if (err)
		return err;
	err = recv_all(sock, &hdr, sizeof(hdr));
	if (err)
		return err;
	err = check_reply(x, &hdr);
	if (err)
		return err;

	len = hdr.len;
	if (len) {
		payload = kvmalloc(len, GFP_KERNEL);
		if (!payload)
			return -ENOMEM;
		err = recv_all(sock, payload, len);
		if (err) {
			kvfree(payload);
			return err;
		}
	}

	x->status = hdr.status;
	x->reply_flags = hdr.flags;
	x->data = payload;
	x->data_len = len;
	return 0;
}

static void exchange_workfn(struct work_struct *work)
{
	struct exchange_work *w = container_of(work, struct exchange_work, work);

	w->err = do_exchange(w->sock, w->x);
	complete(&w->done);
}

/**
 * ebpf_channel_exchange() - send @x's request on @sock and read the reply
 *
 * Return: 0 with @x's reply fields set (the helper's own status is in
 * @x->status), or a negative errno for a transport failure: -ETIMEDOUT,
 * -ECONNRESET (helper gone), -EPROTO/-EMSGSIZE (malformed reply),
 * -ENOMEM.  After a transport failure the stream is out of step and the
 * helper must be stopped.
 */
int ebpf_channel_exchange(struct socket *sock, struct ebpf_exchange *x)
{
	struct exchange_work w = { .sock = sock, .x = x };

	x->data = NULL;
	x->data_len = 0;
	x->status = 0;
	x->reply_flags = 0;

	INIT_WORK_ONSTACK(&w.work, exchange_workfn);
	init_completion(&w.done);
	queue_work(EBPF_UNBOUND_WQ, &w.work);
	wait_for_completion(&w.done);
	destroy_work_on_stack(&w.work);
	return w.err;
}

void ebpf_exchange_free(struct ebpf_exchange *x)
{
	kvfree(x->data);
	x->data = NULL;
}
