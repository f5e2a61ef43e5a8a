#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential verdict suite, IPv6 (issue 18): every rule set of
# tests/verdict6/*.rules loaded with ip6tables-legacy-restore under the
# kernel's ip6_tables, the probe matrix tests/verdict6/probes.txt (TCP,
# UDP, ICMPv6 echo, fragments, hop-by-hop, destination options and
# segment routing headers; INPUT/OUTPUT between namespace c and the guest,
# FORWARD a <-> b through the guest) run, verdicts, counters and LOG lines
# recorded; then the same under ebpfilter loaded with ipv6=1, in the same
# boot; all must be identical.  verdict-diff.sh with IPT_FAMILY=6 (its
# header says what is compared); skipped when the module has no ipv6
# parameter.  --env VERDICT_BOTH_IP_TABLES=1: ip6_tables twice.
# run-all-cost: 200
# run-all-timeout: 900
IPT_FAMILY=6
. tests/guest/verdict-diff.sh
