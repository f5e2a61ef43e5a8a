#!/bin/bash
# Malformed-blob test: tests/guest/ipt-badblob.c sends crafted SET_REPLACE,
# ADD_COUNTERS, GET_INFO/GET_ENTRIES and revision requests to ip_tables and
# then to ebpfilter: every answer (errno), every "table still intact" and
# the GET_ENTRIES bytes of the tables it installs must be identical; no
# request may change the table when it fails.  Every table (filter, nat,
# mangle, raw, security) gets the layout, counter and GET_ENTRIES cases,
# and the tables' targets are tried where they are and are not allowed.
# The harness checks dmesg for WARN/BUG.
# IPT_FAMILY=6 (ip6-badblob.sh): ipt-badblob -6, the IPv6 cases through
# SOL_IPV6, ip6_tables against ebpfilter with ipv6=1.
# IPT_BOTH_IP_TABLES=1 (run-guest --env): the reference twice.
# run-all-tier: smoke
. tests/guest/ipt-lib.sh

bin=$IPT_BADBLOB
[ -x "$bin" ] || fail "no $bin: build it on the host (make -C tests tools)"
test_name=ipt-badblob bin_args=
if [ "$IPT_FAMILY" = 6 ]; then
	test_name=ip6-badblob bin_args=-6
	[ "${IPT_BOTH_IP_TABLES:-}" = 1 ] || ipt6_require_module
fi

# Where ebpfilter refuses state/conntrack, both backends get tables
# without them (ipt-refusals.sh tests the refusal).
ebpf_has_ct || export IPT_BADBLOB_NO_CT=1

run_badblob() {
	"$bin" $bin_args >"$IPT_OUT/badblob.$1" && return
	cat "$IPT_OUT/badblob.$1"
	fail "ipt-badblob failed on $1"
}

use_ip_tables
run_badblob ip_tables
leave_ip_tables
if [ "${IPT_BOTH_IP_TABLES:-}" = 1 ]; then
	note "IPT_BOTH_IP_TABLES=1: the second run is $IPT_CORE again, not ebpfilter"
	use_ip_tables
	run_badblob ebpfilter
	leave_ip_tables
else
	use_ebpfilter
	run_badblob ebpfilter
	modprobe -r ebpfilter || fail "cannot unload ebpfilter"
fi

# Known differences (tests/ipt6/known-badblob.txt: case names and why):
# their GET_ENTRIES hash is not compared, their errno still is.
known=tests/ipt${IPT_FAMILY#4}/known-badblob.txt
if [ -f "$known" ]; then
	for c in $(sed -n 's/^\([a-z0-9_]*\):.*/\1/p' "$known"); do
		note "known difference, entries hash not compared: $(grep "^$c:" "$known")"
		sed -i "s/^\($c: .*\), entries hash [0-9a-f]*/\1, entries hash (known difference)/" \
			"$IPT_OUT/badblob.ip_tables" "$IPT_OUT/badblob.ebpfilter"
	done
fi
echo "--- answers of $IPT_CORE (the reference)"
cat "$IPT_OUT/badblob.ip_tables"
cases=$(grep -c '' "$IPT_OUT/badblob.ip_tables")
if ! diff -u "$IPT_OUT/badblob.ip_tables" "$IPT_OUT/badblob.ebpfilter"; then
	fail "ebpfilter answers differently (diff above)"
fi
if grep -q CHANGED "$IPT_OUT/badblob.ebpfilter"; then
	fail "a failed request changed the table"
fi
echo "PASS $test_name: $cases answers identical"
