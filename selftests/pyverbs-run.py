#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own Python test suite (python3-pyverbs), from a copy of its
# tests in DIR, as run_tests.py runs it, with one adaptation: rxe on a
# dummy netdev has no device link in sysfs, so where
# /sys/class/infiniband/DEV/device/net is missing, the netdev of a GID is
# read from its ndevs entry (else the suite skips every rdmacm test).
# Prints unittest's verbose lines ("test (module.Class) ... ok").
#
# usage: pyverbs-run.py DIR [unittest arguments]
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader

test_dir = sys.argv.pop(1)
sys.path.insert(0, test_dir)
sys.argv[1:1] = ['-v']
from args_parser import parser  # noqa: E402 (the suite's, from test_dir)
parser.parse_args()
tests = SourceFileLoader('tests',
                         os.path.join(test_dir, '__init__.py')).load_module()
base = sys.modules['tests.base']
get_ip_mac_of_device = base.RDMATestCase._get_ip_mac


def get_ip_mac_of_gid(self, dev, port, idx):
    ndev = '/sys/class/infiniband/{}/ports/{}/gid_attrs/ndevs/{}'.format(
        dev, port, idx if idx is not None else 0)
    if os.path.exists('/sys/class/infiniband/{}/device/net/'.format(dev)) \
            or not os.path.exists(ndev):
        return get_ip_mac_of_device(self, dev, port, idx)
    with open(ndev) as f:
        name = f.read().strip()
    try:
        ip_addr, mac_addr = self.get_ip_mac_address(name)
    except (KeyError, IndexError):
        self.args.append([dev, port, idx, None, None])
    else:
        self.args.append([dev, port, idx, ip_addr, mac_addr])


base.RDMATestCase._get_ip_mac = get_ip_mac_of_gid
unittest.main(module=tests)
