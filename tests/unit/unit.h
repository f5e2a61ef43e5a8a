/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host unit tests of the helper's ip_tables (see unit.c): the shared
 * checks, request helpers and tables, and the tests of each file.
 */
#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "fake_enforce.h"
#include "ipt/ipt.h"
#include "ipt_builder.h"
#include "ipt/table.h"

extern int failures;
extern const char *current_test;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "  %s:%d: %s: check failed: %s\n",	\
			__FILE__, __LINE__, current_test, #cond);	\
	}								\
} while (0)

#define CHECK_ERR(expr, want) do {					\
	int got_ = (expr);						\
	if (got_ != (want)) {						\
		failures++;						\
		fprintf(stderr, "  %s:%d: %s: %s = %d (%s), want %d (%s)\n", \
			__FILE__, __LINE__, current_test, #expr, got_,	\
			strerror(-got_), (want), strerror(-(want)));	\
	}								\
} while (0)

/* requests, as the sockopt handlers get them (unit.c) */
int set(unsigned int opt, const struct buf *req, struct buf *out,
	bool *changed);
int replace_tb(struct tb *t, const char *table, unsigned int hooks,
	       unsigned int num_counters, struct buf *old);
int get_info(const char *name, struct ipt_getinfo *info);
unsigned int cur_entries(void);
int get_entries(const char *name, unsigned int size, struct buf *out);
int revision(const char *name, uint8_t rev, bool target);

/* tables */
void tb_rich(struct tb *t);
/* Offsets in the notes' blob. */
#define E_TCP	0
#define E_IN	200
#define E_FWD	352
#define E_OUT	504
#define E_HEAD	656
#define E_DROP	832
#define E_RET	984
#define E_TAIL	1136
#define E_ERR	1288
/* a SET_REPLACE of @t that must give @want; a refused one changes nothing */
void expect_replace(struct tb *t, int want, int line);
#define EXPECT_REPLACE(t, want) expect_replace(t, want, __LINE__)

void test_initial_info(void);
void test_initial_entries_bytes(void);
void test_get_info_errors(void);
void test_get_entries_errors(void);
void test_revisions(void);
void test_replace_notes_blob(void);
void test_replace_all_extensions(void);
void test_replace_header(void);
void test_translate_limits(void);
void test_entry_checks(void);
void test_match_tiling(void);
void test_hooks_and_underflows(void);
void test_loops_and_jumps(void);
void test_extension_lookup(void);
void test_extension_payloads(void);
void test_kernel_checked_extensions(void);
void test_normalized_output(void);
void test_replace_counters_and_eagain(void);
void test_backend_refuses(void);
void test_add_counters(void);
void test_snapshot_roundtrip(void);
void test_lent_entries(void);
void test_restore_parked_counters(void);
void test_snapshot_untrusted(void);
void test_big_table(void);
void test_deflate_threshold(void);
void test_init_backend_fails(void);
void test_tables(void);
void test_namespaces(void);
void test_ip6_tables(void);
void test_ip6_translate(void);
void test_ip6_normalized(void);
void test_ip6_state(void);

#endif
