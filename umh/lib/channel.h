/* SPDX-License-Identifier: GPL-2.0 */
/* Framed messages on the kernel channel (fd 0 in, fd 1 out). */
#ifndef UMH_CHANNEL_H
#define UMH_CHANNEL_H

#include <stdbool.h>
#include <ebpfilter/proto.h>

#include "lib/buf.h"

#define CHANNEL_IN_FD	0
#define CHANNEL_OUT_FD	1

/*
 * Read one request: header into @hdr, payload into @payload.
 * Return: 1 on a message, 0 on orderly EOF (the module let go of us),
 * -errno on a broken or malformed stream.
 */
int channel_read(struct ebpf_msg_hdr *hdr, struct buf *payload);

/* Send the reply to @req: @status, @data (may be NULL when @len is 0);
 * @flags adds EBPF_F_* flags. */
int channel_reply_flags(const struct ebpf_msg_hdr *req, int status,
			unsigned int flags, const void *data, size_t len);
int channel_reply(const struct ebpf_msg_hdr *req, int status,
		  const void *data, size_t len);

/* Is @fd an AF_UNIX socket of @type (SOCK_STREAM, SOCK_DGRAM)?  What the
 * module hands the helper is: the channel, the vault. */
bool fd_is_unix(int fd, int type);

#endif
