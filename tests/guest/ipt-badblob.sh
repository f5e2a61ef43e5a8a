#!/bin/bash
# Malformed-blob test: tests/guest/ipt-badblob.c sends crafted SET_REPLACE,
# ADD_COUNTERS, GET_INFO/GET_ENTRIES and revision requests to ip_tables and
# then to ebpfilter: every answer (errno), every "table still intact" and
# the GET_ENTRIES bytes of the tables it installs must be identical; no
# request may change the table when it fails.  Every table (filter, nat,
# mangle, raw, security) gets the layout, counter and GET_ENTRIES cases,
# and the tables' targets are tried where they are and are not allowed.
# The harness checks dmesg for WARN/BUG.
# run-all-tier: smoke
. tests/guest/ipt-lib.sh

bin=$IPT_BADBLOB
[ -x "$bin" ] || fail "no $bin: build it on the host (make -C tests tools)"

# Where ebpfilter refuses state/conntrack, both backends get tables
# without them (ipt-refusals.sh tests the refusal).
ebpf_has_ct || export IPT_BADBLOB_NO_CT=1

run_badblob() {
	"$bin" >"$IPT_OUT/badblob.$1" && return
	cat "$IPT_OUT/badblob.$1"
	fail "ipt-badblob failed on $1"
}

use_ip_tables
run_badblob ip_tables
leave_ip_tables
use_ebpfilter
run_badblob ebpfilter
modprobe -r ebpfilter || fail "cannot unload ebpfilter"

echo "--- answers of ip_tables (the reference)"
cat "$IPT_OUT/badblob.ip_tables"
cases=$(grep -c '' "$IPT_OUT/badblob.ip_tables")
if ! diff -u "$IPT_OUT/badblob.ip_tables" "$IPT_OUT/badblob.ebpfilter"; then
	fail "ebpfilter answers differently (diff above)"
fi
if grep -q CHANGED "$IPT_OUT/badblob.ebpfilter"; then
	fail "a failed request changed the table"
fi
echo "PASS ipt-badblob: $cases answers identical"
