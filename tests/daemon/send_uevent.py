#!/usr/bin/python3
"""Sends one device event as udev (systemd-udevd) broadcasts it to libudev monitors: a
NETLINK_KOBJECT_UEVENT datagram to multicast group 2 ("udev"), with libudev's header
(systemd src/libsystemd/sd-device/device-monitor.c: struct monitor_netlink_header, magic
0xfeedcafe, subsystem hash MurmurHash2 with seed 0 for the monitor's socket filter) and the
properties as NUL-separated KEY=VALUE. Receivers accept it only from uid 0 (SCM_CREDENTIALS),
so this needs root; run it inside the receiver's network namespace so nothing else hears it.
usage: send_uevent.py ACTION DEVPATH SUBSYSTEM [KEY=VALUE...]"""
import socket
import struct
import sys

NETLINK_KOBJECT_UEVENT = 15
UDEV_GROUP = 2
MAGIC = 0xFEEDCAFE


def murmur2(data: bytes, seed: int = 0) -> int:
    m, r = 0x5BD1E995, 24
    h = (seed ^ len(data)) & 0xFFFFFFFF
    i = 0
    while len(data) - i >= 4:
        k = struct.unpack_from("<I", data, i)[0]
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
        i += 4
    rest = data[i:]
    if len(rest) >= 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if len(rest) >= 1:
        h ^= rest[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def main() -> int:
    action, devpath, subsystem, *extra = sys.argv[1:]
    props = [f"ACTION={action}", f"DEVPATH={devpath}", f"SUBSYSTEM={subsystem}", "SEQNUM=4242", *extra]
    body = b"".join(p.encode() + b"\0" for p in props)
    header_size = 40
    header = struct.pack("=8sIIIIIIII", b"libudev\0", socket.htonl(MAGIC), header_size, header_size, len(body),
                         socket.htonl(murmur2(subsystem.encode())), 0, 0, 0)
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_KOBJECT_UEVENT) as s:
        s.bind((0, 0))
        s.sendto(header + body, (0, UDEV_GROUP))
    return 0


if __name__ == "__main__":
    sys.exit(main())
