#!/bin/bash
# With ip_tables loaded the iptables sockopts are taken: modprobe ebpfilter
# fails with -EBUSY and a dmesg line saying what to do; nothing is left.
. tests/guest/lib-ebpfilter.sh
ebpf_install
modprobe ip_tables || fail "cannot load ip_tables"
dmesg_mark
if modprobe ebpfilter 2>/tmp/err; then
	fail "loaded beside ip_tables"
fi
cat /tmp/err
grep -q "Device or resource busy" /tmp/err || fail "not EBUSY"
dmesg_has "the iptables sockopts are taken, most likely by ip_tables" ||
	fail "no explanation in dmesg"
sleep 0.5
[ "$(helper_count)" = 0 ] || fail "helper left"
modprobe -r ip_tables
modprobe ebpfilter || fail "no load after ip_tables left"
[ "$(cat /proc/net/ip_tables_names)" = filter ] || fail "no /proc/net/ip_tables_names"
# The other way round: ip_tables is refused by packaging/modprobe.d before
# it could warn about the duplicate /proc entry (the harness fails on WARN).
if modprobe ip_tables 2>/tmp/err; then
	fail "ip_tables loaded beside ebpfilter"
fi
cat /tmp/err
grep -q "ebpfilter is loaded" /tmp/err || fail "no explanation from modprobe"
request_ok || fail "ebpfilter disturbed"
modprobe -r ebpfilter
assert_nothing_left
