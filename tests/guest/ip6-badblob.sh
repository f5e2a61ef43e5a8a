#!/bin/bash
# Malformed-blob test, IPv6 (issue 18): tests/guest/ipt-badblob-ip6.c
# (ipt-badblob -6) sends crafted IP6T_SO_SET_REPLACE, ADD_COUNTERS,
# GET_INFO/GET_ENTRIES and revision requests through SOL_IPV6 to
# ip6_tables and then to ebpfilter loaded with ipv6=1: every errno, every
# "table still intact" and the GET_ENTRIES bytes of the tables installed
# must be identical; no failed request may change the table.
# ipt-badblob.sh with IPT_FAMILY=6; skipped when the module has no ipv6
# parameter.  The harness checks dmesg for WARN/BUG.
# run-all-tier: smoke
IPT_FAMILY=6
. tests/guest/ipt-badblob.sh
