/* SPDX-License-Identifier: GPL-2.0 */
/* One request/reply exchange with the helper over the channel. */
#ifndef EBPF_CHANNEL_H
#define EBPF_CHANNEL_H

#include <linux/types.h>
#include <linux/uio.h>
#include <ebpfilter/proto.h>

struct socket;

/**
 * struct ebpf_exchange - a request to send and the limits of its reply
 * @type:       enum ebpf_msg_type
 * @flags:      request flags (EBPF_F_CONNTRACK_ON)
 * @id:         request id
 * @iov:        request payload pieces (up to 3)
 * @niov:       how many
 * @timeout_ms: bound on sending the request and on receiving the reply
 * @max_data:   largest reply payload the caller accepts
 *
 * Filled in by ebpf_channel_exchange():
 * @status:     the helper's status
 * @reply_flags: the reply's EBPF_F_* flags
 * @data:       kvmalloc'ed reply payload, or NULL
 * @data_len:   its length
 */
struct ebpf_exchange {
	u16 type;
	u16 flags;
	u32 id;
	const char *what;	/* the request, for dmesg (NULL: its type) */
	struct kvec iov[3];
	unsigned int niov;
	unsigned int timeout_ms;
	size_t max_data;

	s32 status;
	u16 reply_flags;
	void *data;
	size_t data_len;
};

int ebpf_channel_exchange(struct socket *sock, struct ebpf_exchange *x);
void ebpf_exchange_free(struct ebpf_exchange *x);

#endif
