#!/bin/bash
# A helper that fails its handshake (built with EBPF_TEST_BAD_HELLO):
# modprobe fails with the documented message and leaves nothing behind.
. tests/guest/lib-ebpfilter.sh
[ -f "$EBPF_KO_BADHELLO" ] || fail "no test module at $EBPF_KO_BADHELLO"
# insmod loads no dependencies: ebpfilter uses nf_conntrack's and
# x_tables' symbols.
modprobe nf_conntrack && modprobe x_tables || fail "cannot load nf_conntrack and x_tables"
socks0=$(unix_sockets)
dmesg_mark
if insmod "$EBPF_KO_BADHELLO" 2>/tmp/insmod.err; then
	fail "module with a bad helper loaded"
fi
cat /tmp/insmod.err
grep -q "Protocol error" /tmp/insmod.err || fail "insmod error is not EPROTO"
proto=$(sed -n 's/^#define EBPF_PROTO_VERSION[[:space:]]*\([0-9]*\).*/\1/p' include/ebpfilter/proto.h)
dmesg_has "helper handshake failed: helper speaks protocol 2989, module $proto" ||
	fail "handshake failure not reported"
dmesg_has "not loaded: the helper did not come up (-71)" || fail "no summary line"
sleep 1
assert_nothing_left
socks1=$(unix_sockets)
[ $((socks1 - socks0)) -le 2 ] || fail "sockets leaked: $socks0 -> $socks1"
dmesg_since_mark | grep ebpfilter
