// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/channel.h"
#include "lib/test_faults.h"

bool fd_is_unix(int fd, int type)
{
	int v;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) || v != AF_UNIX)
		return false;
	l = sizeof(v);
	return !getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) && v == type;
}

static int read_full(int fd, void *p, size_t n)
{
	unsigned char *c = p;
	size_t done = 0;

	while (done < n) {
		ssize_t r = read(fd, c + done, n - done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return done ? -EPIPE : 0;
		done += r;
	}
	return 1;
}

int channel_read(struct ebpf_msg_hdr *hdr, struct buf *payload)
{
	int r;

	r = read_full(CHANNEL_IN_FD, hdr, sizeof(*hdr));
	if (r <= 0)
		return r;
	if (hdr->magic != EBPF_PROTO_MAGIC || hdr->len > EBPF_PROTO_MAX_PAYLOAD)
		return -EPROTO;
	/* test builds: die with a request larger than the module's socket
	 * buffer half read, its sender still sending (lib/test_faults.h) */
	if (hdr->len > 64 * 1024)
		test_fault("big-request");
	buf_reset(payload);
	if (buf_reserve(payload, hdr->len))
		return -ENOMEM;
	if (hdr->len) {
		r = read_full(CHANNEL_IN_FD, payload->data, hdr->len);
		if (r <= 0)
			return r ? r : -EPIPE;
	}
	payload->len = hdr->len;
	return 1;
}

static int write_all(struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t w = writev(CHANNEL_OUT_FD, iov, cnt);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (cnt && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

int channel_reply(const struct ebpf_msg_hdr *req, int status,
		  const void *data, size_t len)
{
	return channel_reply_flags(req, status, 0, data, len);
}

int channel_reply_flags(const struct ebpf_msg_hdr *req, int status,
			unsigned int flags, const void *data, size_t len)
{
	struct ebpf_msg_hdr hdr;
	struct iovec iov[2];

	if (len > EBPF_PROTO_MAX_PAYLOAD)
		return -E2BIG;
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = EBPF_PROTO_MAGIC;
	hdr.version = EBPF_PROTO_VERSION;
	hdr.type = req->type;
	hdr.flags = EBPF_F_REPLY | flags;
	hdr.id = req->id;
	hdr.status = status;
	hdr.len = len;
	iov[0].iov_base = &hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = (void *)data;
	iov[1].iov_len = len;
	return write_all(iov, 2);
}
