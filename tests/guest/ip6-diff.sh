#!/bin/bash
# Differential test, IPv6 (issue 18): the ip6tables-legacy sessions in
# tests/ipt6/sessions/ (every table, the extensions IPv6 firewalls use,
# errors, save/restore, counters) run once against the kernel's ip6_tables
# and once against ebpfilter loaded with ipv6=1, in this guest; transcripts
# (commands, outputs, exit codes) must be identical.  ipt-diff.sh with
# IPT_FAMILY=6; skipped when the module has no ipv6 parameter.
# Ends with "N passed, N failed" over the sessions.
# run-all-cost: 270
# run-all-timeout: 1200
# (not in the smoke tier: ip6-badblob is the IPv6 smoke test; the reduced
# tier runs ipt-diff.sh's subset: the sessions of every table and errors)
IPT_FAMILY=6
. tests/guest/ipt-diff.sh
