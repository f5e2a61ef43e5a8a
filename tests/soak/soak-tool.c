// SPDX-License-Identifier: GPL-2.0
/*
 * soak-tool: the guest-side programs of `make soak` (tests/soak/).
 *
 *   soak-tool fuzz SEED N [FIRST]   N malformed and mutated iptables sockopt
 *   soak-tool fuzz6 SEED N [FIRST]  requests, IPv4 (SOL_IP, IPT_SO_*, struct
 *                             ipt_entry) or IPv6 (SOL_IPV6, IP6T_SO_*,
 *                             struct ip6t_entry); case i is a function of
 *                             SEED, the family and i alone; one line each:
 *                               <i> <table> <kind>[:detail] <errno|ok> [CHANGED]
 *                             then "summary ..." and the traffic checks
 *                             (soak-fuzz.c).  FIRST (0): the first
 *                             case, to replay one that a run reported.
 *   soak-tool probe STOPFILE  UDP probes over lo until STOPFILE exists:
 *                             127.0.0.1:9998 (the rules accept it) and
 *                             :9999 (the rules drop it), ~400 pairs a
 *                             second; prints the counts.  While
 *                             STOPFILE.pause exists it sends nothing and
 *                             STOPFILE.counts holds "ACCEPTED DROPPED" sent.
 *   soak-tool hash TABLE      the FNV-1a hash of TABLE's GET_ENTRIES,
 *   soak-tool hash6 TABLE     counters zeroed (hash6: the IPv6 table)
 *
 * Built statically with tests/lib/ipt_builder.c (make -C tests tools).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "soak-tool.h"

int sock;
const struct family *fam = &fam4;

/* ---- requests ---- */
int get_info(const char *name, struct ipt_getinfo *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	return getsockopt(sock, fam->level, fam->so_info, info, &len) ? errno : 0;
}

/* @table's entries hashed, counters zeroed; 0 on error (with *err) */
uint64_t table_hash(const char *table, int *err)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *g;
	uint64_t h = 0xcbf29ce484222325ull;
	socklen_t len;
	unsigned int off, i;

	*err = get_info(table, &info);
	if (*err)
		return 0;
	len = sizeof(*g) + info.size;
	g = calloc(1, len);
	snprintf(g->name, sizeof(g->name), "%s", table);
	g->size = info.size;
	if (getsockopt(sock, fam->level, fam->so_entries, g, &len)) {
		*err = errno;
		free(g);
		return 0;
	}
	for (off = 0; off + fam->entry_size <= g->size;) {
		unsigned char *e = (unsigned char *)g->entrytable + off;

		memset(e + fam->at_counters, 0, sizeof(struct xt_counters));
		if (!*ent16(e, fam->at_next))
			break;
		off += *ent16(e, fam->at_next);
	}
	for (i = 0; i < g->size; i++)
		h = (h ^ ((unsigned char *)g->entrytable)[i]) * 0x100000001b3ull;
	free(g);
	return h;
}

unsigned int num_entries(const char *table)
{
	struct ipt_getinfo info;

	return get_info(table, &info) ? 0 : info.num_entries;
}

/* SET_REPLACE of @req (its counters pointer made valid) with optlen @len */
int send_replace(struct buf *req, socklen_t len, bool bad_ptr)
{
	struct ipt_replace *r = (void *)req->data;
	struct xt_counters *old;
	int err;

	old = calloc(r->num_counters < 100000 ? r->num_counters + 1 : 1, sizeof(*old));
	r->counters = bad_ptr ? NULL : (r->num_counters < 100000 ? old : NULL);
	err = setsockopt(sock, fam->level, fam->so_replace, req->data, len) ? errno : 0;
	r->counters = NULL;
	free(old);
	return err;
}

/* ---- traffic: is filter's OUTPUT still enforcing the probe's rules? ---- */
static int rx[2];	/* bound to ACC_PORT, DROP_PORT */

static int bind_udp(unsigned int port)
{
	struct sockaddr_storage a;
	socklen_t alen = fam->loopback(&a, port);
	int s = socket(fam->domain, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (s < 0 || bind(s, (void *)&a, alen)) {
		perror("bind");
		exit(2);
	}
	return s;
}

static void drain(int s)
{
	char b[64];

	while (recv(s, b, sizeof(b), 0) > 0)
		;
}

/* one probe to @port; 1 if it arrived within @ms */
static int probe_one(int tx, int idx, unsigned int port, int ms)
{
	struct sockaddr_storage a;
	socklen_t alen = fam->loopback(&a, port);
	struct pollfd p = { .fd = rx[idx], .events = POLLIN };
	char b[64];

	drain(rx[idx]);
	if (sendto(tx, "soak", 4, 0, (void *)&a, alen) < 0)
		return 0;	/* EPERM: dropped on the way out */
	if (poll(&p, 1, ms) <= 0)
		return 0;
	return recv(rx[idx], b, sizeof(b), 0) > 0;
}

/* the receivers of both ports bound; the sending socket */
int traffic_setup(void)
{
	rx[0] = bind_udp(ACC_PORT);
	rx[1] = bind_udp(DROP_PORT);
	return socket(fam->domain, SOCK_DGRAM, 0);
}

int traffic_ok(int tx)
{
	int acc = probe_one(tx, 0, ACC_PORT, 500);
	int drop = probe_one(tx, 1, DROP_PORT, 100);

	return acc && !drop;
}

/* ---- the traffic probe ---- */
static int probe(const char *stopfile)
{
	unsigned long acc = 0, acc_lost = 0, drop = 0, drop_leaked = 0;
	char pause[4096], counts[4096];
	struct stat st;
	int tx;

	snprintf(pause, sizeof(pause), "%s.pause", stopfile);
	snprintf(counts, sizeof(counts), "%s.counts", stopfile);

	tx = traffic_setup();
	while (stat(stopfile, &st)) {
		acc++;
		if (!probe_one(tx, 0, ACC_PORT, 1000)) {
			acc_lost++;
			fprintf(stderr, "probe: accepted packet %lu lost at %ld\n", acc,
				(long)time(NULL));
		}
		drop++;
		if (probe_one(tx, 1, DROP_PORT, 20)) {
			drop_leaked++;
			fprintf(stderr, "probe: dropped packet %lu got through at %ld\n",
				drop, (long)time(NULL));
		}
		/* paced: the probe must not starve the guest's one CPU */
		usleep(2000);
		if (!stat(pause, &st)) {
			FILE *f = fopen(counts, "w");

			/* STOPFILE.pause: stop sending, say what was sent */
			fprintf(f, "%lu %lu\n", acc, drop);
			fclose(f);
			while (!stat(pause, &st))
				usleep(20000);
			unlink(counts);
		}
	}
	printf("probe: accept %lu sent %lu lost; drop %lu sent %lu leaked\n",
	       acc, acc_lost, drop, drop_leaked);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int herr;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "fuzz6") || !strcmp(cmd, "hash6"))
		fam = &fam6;
	/* the sockopts of a family are served on its raw sockets */
	sock = socket(fam->domain, SOCK_RAW, IPPROTO_RAW);
	if (sock < 0) {
		perror("socket");
		return 2;
	}
	if ((argc == 4 || argc == 5) && (!strcmp(cmd, "fuzz") || !strcmp(cmd, "fuzz6")))
		return fuzz(strtoull(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
			    argc == 5 ? strtoul(argv[4], NULL, 0) : 0);
	if (argc == 3 && !strcmp(cmd, "probe"))
		return probe(argv[2]);
	if (argc == 3 && (!strcmp(cmd, "hash") || !strcmp(cmd, "hash6"))) {
		uint64_t h = table_hash(argv[2], &herr);

		if (herr) {
			printf("%s\n", err_name(herr));
			return 1;
		}
		printf("%016llx\n", (unsigned long long)h);
		return 0;
	}
	fprintf(stderr, "usage: soak-tool fuzz|fuzz6 SEED N [FIRST] | probe STOPFILE | "
		"hash|hash6 TABLE\n");
	return 2;
}
