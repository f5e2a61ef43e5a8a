// SPDX-License-Identifier: GPL-2.0
/*
 * udpblast: a UDP packet source and sink for bench/run (QEMU guests only).
 *
 *   udpblast send SRC:SPORT DST:DPORT SECONDS [SIZE]   as fast as sendmmsg
 *                                                      goes; prints "sent N"
 *   udpblast sink PORT                                  drains, forever
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static int addr(const char *s, struct sockaddr_in *a)
{
	char buf[64], *c;

	snprintf(buf, sizeof(buf), "%s", s);
	c = strchr(buf, ':');
	if (!c)
		return -1;
	*c = 0;
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(atoi(c + 1));
	return inet_pton(AF_INET, buf, &a->sin_addr) == 1 ? 0 : -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char buf[BATCH][2048];
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in s, d;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	if (argc >= 5 && !strcmp(argv[1], "send")) {
		int size = argc > 5 ? atoi(argv[5]) : 18;
		double end;
		long sent = 0;

		if (addr(argv[2], &s) || addr(argv[3], &d) || size > 2048)
			return 2;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&s, sizeof(s)) ||
		    connect(fd, (struct sockaddr *)&d, sizeof(d))) {
			perror("udpblast");
			return 1;
		}
		memset(m, 0, sizeof(m));
		for (int i = 0; i < BATCH; i++) {
			iov[i].iov_base = buf[i];
			iov[i].iov_len = size;
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
		}
		end = now() + atof(argv[4]);
		while (now() < end) {
			int n = sendmmsg(fd, m, BATCH, 0);

			if (n > 0)
				sent += n;
		}
		printf("sent %ld\n", sent);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "sink")) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(atoi(argv[2])) };

		if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
			perror("udpblast sink");
			return 1;
		}
		for (int i = 0; i < BATCH; i++) {
			iov[i].iov_base = buf[i];
			iov[i].iov_len = sizeof(buf[i]);
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
		}
		for (;;)
			recvmmsg(fd, m, BATCH, 0, NULL);
	}
	fprintf(stderr, "usage: udpblast send SRC:SPORT DST:DPORT SECONDS [SIZE] | sink PORT\n");
	return 2;
}
