/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipt-badblob's parts (ipt-badblob.c: the filter table's cases;
 * ipt-badblob-io.c: the requests and the case runners;
 * ipt-badblob-get.c: GET, revision and counter cases;
 * ipt-badblob-tables.c: every other table's cases; ipt-badblob-ip6.c: -6).
 */
#ifndef TESTS_IPT_BADBLOB_H
#define TESTS_IPT_BADBLOB_H

#include <stdint.h>
#include <sys/socket.h>

#include "err_name.h"
#include "ipt_builder.h"

/* the raw socket the requests go through, and their sockopt level */
extern int sock;
extern int sol;

/* GET_INFO of @name with optlen @len; 0 or errno */
int get_info(const char *name, struct ipt_getinfo *info, socklen_t len);
/* Table @table's entries, counters zeroed; 0 or errno. */
int read_named(const char *table, struct buf *out);
uint64_t fnv1a(const unsigned char *p, size_t n);
/* GET_INFO's num_entries of @table (0 if it fails) */
unsigned int named_entries(const char *table);
/* SET_REPLACE of @req with optlen @len; 0 or errno */
int send_replace(struct buf *req, socklen_t len);
/* A counters pointer no process has mapped (m_counters_bad_pointer):
 * send_replace() leaves it as it is */
#define BAD_COUNTERS_PTR ((void *)16)
/* the filter table's entries (GET_INFO) */
unsigned int cur_entries(void);
/* "NAME: errno intact|CHANGED" for a case on the filter table */
void report(const char *name, int err);
/* SET_REPLACE of the filter table @build makes, which later cases'
 * "intact" compares with; 0 or errno (printed as LABEL's line) */
int install(void (*build)(struct tb *t), const char *label);
/* A SET_REPLACE case: a mutation of the request for the installed table */
struct blob_case {
	const char *name;
	void (*mutate)(struct buf *req);
};
/*
 * Each case of @cases on a request of the table @build makes (the one
 * installed), but the case whose mutation is @skip: "PREFIXNAME: errno
 * intact|CHANGED", or the table's hash when the kernel took it.
 */
void run_blob_cases(const struct blob_case *cases, unsigned int n,
		    void (*build)(struct tb *t), const char *prefix,
		    void (*skip)(struct buf *req));
/* optlen cases: SET_REPLACE of the installed table with optlen lies */
void run_length_cases(void);

/* ipt-badblob-get.c: ADD_COUNTERS of @n counters of @pcnt packets each
 * to @table with optlen @len (0 or errno); a GET_INFO answer printed */
int add_counters(const char *table, unsigned int n, socklen_t len,
		 uint64_t pcnt);
void print_info(const char *label, const struct ipt_getinfo *info);
void run_get_cases(void);
void run_revision_cases(void);
void run_counter_cases(void);

#define REPL(req)	((struct ipt_replace *)(req)->data)

/* ipt-badblob-tables.c */
void run_table_cases(void);

/* ipt-badblob-ip6.c: every case of ipt-badblob -6; the exit status */
int run_ip6_cases(void);

#endif
