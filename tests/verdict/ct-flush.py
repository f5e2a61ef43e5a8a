#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flush this network namespace's conntrack table, as `conntrack -F`
(which the guest does not have): ctnetlink's IPCTNL_MSG_CT_DELETE with
no tuple, once per family.

verdict-diff.sh runs it before each run of a rule set when conntrack is
loaded: a probe with an ephemeral port could meet an entry an earlier
run left (the ports repeat from run to run in a guest), reuse it instead
of making a new connection, and count one packet less in a nat chain
than the other engine's run: the likely cause of ip6-verdict's rare
06-nat-mangle-raw failure (5.10, 2026-12-08: nat OUTPUT and POSTROUTING
policies ip6_tables 10, ebpfilter 11; the snapshots show the ip_tables
runs of 05 and 06 using the same three ephemeral ports, and entries of
one run alive at the next for up to 30 s, so whether a probe reuses one
depends on how long the runs took)."""
import os
import socket
import struct
import sys

NETLINK_NETFILTER = 12
NFNL_SUBSYS_CTNETLINK = 1
IPCTNL_MSG_CT_DELETE = 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2

s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
s.bind((0, 0))
for seq, family in enumerate((socket.AF_INET, socket.AF_INET6), 1):
    nfgen = struct.pack("=BBH", family, 0, 0)   # family, version, res_id
    hdr = struct.pack("=LHHLL", 16 + len(nfgen),
                      NFNL_SUBSYS_CTNETLINK << 8 | IPCTNL_MSG_CT_DELETE,
                      NLM_F_REQUEST | NLM_F_ACK, seq, 0)
    s.send(hdr + nfgen)
    reply = s.recv(65536)
    _, typ, _, _, _ = struct.unpack("=LHHLL", reply[:16])
    err = struct.unpack("=i", reply[16:20])[0] if typ == NLMSG_ERROR else 0
    if err:
        sys.exit("ct-flush: family %d: %s" % (family, os.strerror(-err)))
