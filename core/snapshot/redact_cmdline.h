// The private values of kernel command-line parameters, wherever the text holds them: the
// command line itself, GRUB defaults, BLS entries, /etc/kernel/cmdline, the journal's copies of
// those files, and the JSON documents that quote them.
#pragma once

#include <string>
#include <string_view>

namespace rocmtune::snapshot {

// Each `NAME=VALUE` token whose NAME carries network configuration, disk or volume identifiers
// or a host name keeps NAME and gets the value "redacted":
//   ip= hostname= nfsroot= nfsaddrs= netroot= nameserver= rd.route= BOOTIF= ifname=
//   rd.iscsi.* iscsi_* rd.nvmf.* (initiator and target names, addresses)
//   rd.luks.uuid= rd.luks.name= rd.luks.key= luks.uuid= luks.name= luks.key= cryptdevice=
//   cryptkey= rd.md.uuid= rd.dm.uuid= rd.lvm.lv= rd.lvm.vg= (LVM names carry the host name on
//   Fedora/RHEL installs: fedora_HOST)
// root= and resume= are kept unless they name a file system by identifier: `root=UUID=…`,
// `PARTUUID=`, `LABEL=`, `PARTLABEL=`, `ID=` keep the kind (`root=UUID=redacted`); the device
// path (root=/dev/nvme0n1p2) says nothing about the owner. /dev/disk/by-uuid/X (and by-partuuid,
// by-id, which holds drive serial numbers, by-label, by-partlabel) becomes …/redacted anywhere.
// A token starts the text or follows a blank, a quote or a JSON escape (\n, \t); its value ends
// at a blank, a quote or a backslash. rocmtune reads none of these parameters.
std::string RedactKernelTokens(std::string_view content);

}  // namespace rocmtune::snapshot
