#!/bin/bash
# The module DKMS built (tests/host.d/dkms keeps a copy in build/dkms/KVER)
# loads, serves a request and unloads like the one `make` built.
EBPF_KO=build/dkms/$(uname -r)/ebpfilter.ko
. tests/guest/lib-ebpfilter.sh
# no DKMS build on the host for a kernel whose compiler it lacks
[ -f "$EBPF_KO" ] || skip_unless_kbuild_cc
[ -f "$EBPF_KO" ] || fail "no DKMS-built module (tests/host.d/dkms runs first)"
ebpf_install
dmesg_mark
modprobe ebpfilter || fail "DKMS-built module does not load"
[ "$(helper_count)" = 1 ] || fail "no helper"
request_ok || fail "request not served"
iptables-legacy -S >/dev/null || fail "iptables-legacy -S"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
dmesg_since_mark | grep "ebpfilter:"
