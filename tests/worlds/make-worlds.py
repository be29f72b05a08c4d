#!/usr/bin/python3
"""Build rocmtune test *worlds* from real sysfs/KFD captures (a local copy of the upstream snapshots).

A world is a directory that stands for `/` (see tests/worlds/README.md).  The generated
worlds are the committed artifact; this script documents and reproduces how they were made.

    /usr/bin/python3 tests/worlds/make-worlds.py --fixtures DIR [world ...]

DIR holds the snapshots by upstream project (lact/NAME, k8s-device-plugin/NAME, as each
world's PROVENANCE.md names them) and an INDEX.md; ../facts/amdgpu_params.csv beside it.

Stdlib only, deterministic and idempotent: each world directory it owns is wiped and
rewritten.  Captured files are copied byte-for-byte (NUL bytes, trailing spaces and all);
everything else is synthetic and listed as such in the world's PROVENANCE.md.
"""

import argparse
import csv
import hashlib
import io
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "fixtures"))

LACT = ("ilya-zlobintsev/LACT", "238e315b812ae1dbf1c17c1a57503a161de51500",
        "tests/snapshots/amd/{name}", "MIT")
K8S = ("ROCm/k8s-device-plugin", "ed7646843003e8f0b6a0630346f01bb4d1ecff2e",
       "testdata/{name}", "Apache-2.0")

# --------------------------------------------------------------------------------------------
# The worlds.  kernel = `uname -r`; pver = kernel version used to pick amdgpu parameter defaults
# (differs from the uname version only for vendor kernels with DRM backports / DKMS drivers).
# memkb = MemTotal in KiB (ttm pages_limit = page_pool_size = MemTotal/2 in 4 KiB pages).
# --------------------------------------------------------------------------------------------
WORLDS = [
    dict(name="rx5700xt", src="lact/rx5700xt", up=LACT, upname="rx5700xt", gpu="Radeon RX 5700 XT (Navi10)",
         gfx="gfx1010", distro="ubuntu2404", point="24.04.1", kernel="6.8.0-45-generic", boot="ubuntu-desktop",
         memkb=32795512, rocm="6.2.4-120", rocm_layout="alt",
         iommu=dict(group=15, type="DMA-FQ"),
         exercises="DRM only; RDNA1; no PCI id files except vendor; IOMMU in DMA-FQ (translated) mode"),
    dict(name="rx5500xt", src="lact/rx5500xt", up=LACT, upname="rx5500xt", gpu="Radeon RX 5500 XT (Navi14)",
         gfx="gfx1012", distro="debian12", kernel="6.1.0-26-amd64", boot="debian", memkb=16318108,
         exercises="DRM only; captured card uevent/dev; no ROCm installed"),
    dict(name="rx6900xt", src="lact/rx6900xt", up=LACT, upname="rx6900xt", gpu="Radeon RX 6900 XT (Navi21)",
         gfx="gfx1030", distro="arch", kernel="6.11.5-arch1-1", boot="arch", initramfs="mkinitcpio-amdgpu",
         memkb=32785488, rocm="6.2.4", rocm_layout="dir",
         exercises="DRM only; files NUL-padded to 4 KiB; most complete PCI attrs (has revision); Arch"),
    dict(name="rx6600", src="lact/rx6600", up=LACT, upname="rx6600", gpu="Radeon RX 6600 (Navi23)",
         gfx="gfx1032", distro="fedora41", kernel="6.11.4-301.fc41.x86_64", boot="fedora-bls",
         initramfs="dracut", memkb=32797336, rocm="6.3.1", rocm_layout="dir",
         exercises="DRM only; Fedora GRUB+BLS entries (grubby), dracut"),
    dict(name="rx7900xtx", src="lact/rx7900xtx", up=LACT, upname="rx7900xtx", gpu="Radeon RX 7900 XTX (Navi31)",
         gfx="gfx1100", distro="ubuntu2204", point="22.04.4", kernel="6.5.0-44-generic", boot="ubuntu-desktop",
         memkb=65735776, rocm="6.1.3", rocm_layout="alt",
         exercises="DRM only; RDNA3 gpu_od/fan_ctrl; Ubuntu 22.04 HWE kernel (mtype_local appears)"),
    dict(name="rx7800xt", src="lact/rx7800xt", up=LACT, upname="rx7800xt", gpu="Radeon RX 7800 XT (Navi32)",
         gfx="gfx1101", distro="debian13", kernel="6.12.48+deb13-amd64", boot="debian", memkb=32787924,
         rocm="6.4.1", rocm_layout="alt",
         exercises="DRM only; pp_od_clk_voltage with NUL runs between sections; GC 11.0.3 -> gfx1101"),
    dict(name="phoenix", src="lact/phoenix", up=LACT, upname="phoenix", gpu="Radeon 780M iGPU (Phoenix)",
         gfx="gfx1103", distro="ubuntu2404", point="24.04.1", kernel="6.8.0-50-generic", boot="ubuntu-desktop",
         memkb=61394488, rocm="6.3.0", rocm_layout="alt", kfd="kfd",
         exercises="DRM+KFD APU; ip_discovery tree without the named links; card1; KFD name 'ip discovery'; "
                   "ttm pages_limit consistent with the captured mem_info_gtt_total"),
    dict(name="strixpoint", src="lact/strixpoint", up=LACT, upname="strixpoint", gpu="Radeon 880M/890M iGPU (Strix Point)",
         gfx="gfx1150", distro="fedora42", kernel="6.14.5-300.fc42.x86_64", boot="sdboot",
         initramfs="dracut", memkb=32111336, kfd="kfd",
         exercises="DRM+KFD APU; PCI class 0x038000 (display, not VGA); systemd-boot + kernel-install (no GRUB); "
                   "ttm pages_limit consistent with the captured mem_info_gtt_total"),
    dict(name="vangogh", src="lact/vangogh", up=LACT, upname="vangogh", gpu="Steam Deck APU (Van Gogh)",
         gfx="gfx1033", distro="steamos", kernel="6.5.0-valve22-1-neptune-65", pver=(6, 5), boot="steamos",
         initramfs="mkinitcpio", memkb=15186580, kfd="kfd",
         cmd_default="log_buf_len=4M amd_iommu=off amdgpu.gttsize=8128 spi_amd.speed_dev=1 audit=0 "
                     "fbcon=vc:4-6 fbcon=rotate:1 loglevel=3 quiet splash",
         param_set={"gttsize": "8128"},
         exercises="DRM+KFD APU; KFD has no CPU node 0 (only node 1); amdgpu param set on cmdline (gttsize)"),
    dict(name="rx9070xt", src="lact/rx9070xt", up=LACT, upname="rx9070xt", gpu="Radeon RX 9070 XT (Navi48)",
         gfx="gfx1201", distro="ubuntu2404", point="24.04.3", kernel="6.14.0-24-generic", boot="ubuntu-desktop",
         memkb=65712340, rocm="6.4.1", rocm_layout="alt",
         exercises="DRM only; RDNA4; Ubuntu 24.04 HWE 6.14 (post-6.11 params)"),
    dict(name="vega56", src="lact/vega56", up=LACT, upname="vega56", gpu="Radeon RX Vega 56 (Vega10)",
         gfx="gfx900", distro="debian12", kernel="6.1.0-26-amd64", boot="debian", memkb=16294656,
         rocm="5.7.1", rocm_layout="alt",
         exercises="DRM only; GCN5 with full PCI id files incl. revision; Vega10 OD tables"),
    dict(name="rx580", src="lact/rx580", card_sub="card0", up=LACT, upname="rx580", gpu="Radeon RX 580 (Polaris20)",
         gfx="gfx803", distro="debian11", kernel="5.10.0-32-amd64", boot="debian", memkb=16276260,
         exercises="DRM only; GCN4 (no longer supported by ROCm); 5.10 kernel: no ttm parameters, decimal ppfeaturemask"),
    dict(name="r9-280", src="lact/r9-280", up=LACT, upname="r9-280", gpu="Radeon R9 280 (Tahiti, SI)",
         gfx="gfx600", distro="debian12", kernel="6.1.0-26-amd64", boot="debian", memkb=16294852,
         cmd_default="quiet radeon.si_support=0 amdgpu.si_support=1", param_set={"si_support": "1"},
         exercises="SI card bound to amdgpu (si_support=1 on cmdline); no KFD; not a ROCm target"),
    dict(name="hd7870", src="lact/hd7870", up=LACT, upname="hd7870", gpu="Radeon HD 7870 (Pitcairn, radeon driver)",
         gfx="gfx600 (none: radeon)", distro="debian12", kernel="6.1.0-26-amd64", boot="debian", memkb=8106356,
         module="radeon",
         exercises="negative: AMD GPU driven by radeon, no amdgpu module loaded"),
    dict(name="mi210x8", src="k8s-device-plugin/mi210x8-gfx90a_topo-mi210-xgmi-pcie", up=K8S,
         upname="topo-mi210-xgmi-pcie", gpu="8x Instinct MI210", gfx="gfx90a", distro="ubuntu2204",
         point="22.04.5", kernel="5.15.0-122-generic", boot="ubuntu-server", memkb=1056613704,
         rocm="6.2.0", rocm_layout="alt", kfd_nodes="nodes", cmd_linux="iommu=pt",
         iommu=dict(type="identity", gpus=8),
         exercises="KFD only (no DRM); 8 GPUs, XGMI io_links/p2p_links; no generation_id/system_properties; "
                   "iommu=pt"),
    dict(name="mi300x-cpx", src="k8s-device-plugin/mi300x-cpx-gfx942_topo-mi300-cpx", up=K8S,
         upname="topo-mi300-cpx", gpu="8x Instinct MI300X (CPX partitions)", gfx="gfx942", distro="rhel94",
         kernel="5.14.0-427.13.1.el9_4.x86_64", pver=(6, 5), boot="rhel-bls", initramfs="dracut",
         memkb=1584719124, rocm="6.3.2", rocm_layout="alt", kfd_topology="topology",
         cmd_linux="crashkernel=1G-4G:192M,4G-64G:256M,64G-:512M resume=/dev/mapper/rhel-swap "
                   "rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap pci=realloc=off iommu=pt",
         iommu=dict(type="identity", gpus=8),
         exercises="KFD only; compute partitions (one KFD node per XCD, location_id function bits 0-7; 63 GPU nodes, "
                   "the last GPU shows 7 partitions); RHEL"),
    dict(name="mi25", src="k8s-device-plugin/vega10-mi25-gfx900_topology-parsing", up=K8S,
         upname="topology-parsing", gpu="Radeon Instinct MI25 (Vega10)", gfx="gfx900", distro="ubuntu1804",
         kernel="4.15.0-213-generic", pver=(5, 4), boot="ubuntu1804-server", memkb=263862544,
         rocm="3.5.1", rocm_layout="alt", kfd_topology="topology", drop_nodes=["2"],
         exercises="KFD only; old KFD format (no gfx_target_version, num_gws, domain, hive_id ...)"),
    dict(name="no-amd", src=None, gpu="Intel UHD 770 (Raptor Lake-S, i915)", gfx="-", distro="debian12",
         kernel="6.1.0-26-amd64", boot="debian", memkb=32612420, module=None,
         exercises="negative: no AMD GPU at all (synthetic Intel i915 card0)"),
]

# --------------------------------------------------------------------------------------------
# Distribution files (synthetic; see PROVENANCE).  Debian 12's /etc/default/grub template and
# initramfs.conf are the files shipped in grub2-common 2.06-13+deb12u2 and
# initramfs-tools-core 0.142+deb12u3; the others are written after the distributions' stock files.
# --------------------------------------------------------------------------------------------
OS_RELEASE = {
    "debian11": '''PRETTY_NAME="Debian GNU/Linux 11 (bullseye)"
NAME="Debian GNU/Linux"
VERSION_ID="11"
VERSION="11 (bullseye)"
VERSION_CODENAME=bullseye
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
''',
    "debian12": '''PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
''',
    "debian13": '''PRETTY_NAME="Debian GNU/Linux 13 (trixie)"
NAME="Debian GNU/Linux"
VERSION_ID="13"
VERSION="13 (trixie)"
VERSION_CODENAME=trixie
DEBIAN_VERSION_FULL=13.1
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
''',
    "ubuntu2404": '''PRETTY_NAME="Ubuntu {point} LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="{point} LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=noble
LOGO=ubuntu-logo
''',
    "ubuntu2204": '''PRETTY_NAME="Ubuntu {point} LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="{point} LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
''',
    "ubuntu1804": '''NAME="Ubuntu"
VERSION="18.04.6 LTS (Bionic Beaver)"
ID=ubuntu
ID_LIKE=debian
PRETTY_NAME="Ubuntu 18.04.6 LTS"
VERSION_ID="18.04"
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
VERSION_CODENAME=bionic
UBUNTU_CODENAME=bionic
''',
    "arch": '''NAME="Arch Linux"
PRETTY_NAME="Arch Linux"
ID=arch
BUILD_ID=rolling
ANSI_COLOR="38;2;23;147;209"
HOME_URL="https://archlinux.org/"
DOCUMENTATION_URL="https://wiki.archlinux.org/"
SUPPORT_URL="https://bbs.archlinux.org/"
BUG_REPORT_URL="https://gitlab.archlinux.org/groups/archlinux/-/issues"
PRIVACY_POLICY_URL="https://terms.archlinux.org/docs/privacy-policy/"
LOGO=archlinux-logo
''',
    "steamos": '''NAME="SteamOS"
PRETTY_NAME="SteamOS"
VERSION_CODENAME=holo
ID=steamos
ID_LIKE=arch
ANSI_COLOR="1;35"
HOME_URL="https://www.steampowered.com/"
DOCUMENTATION_URL="https://support.steampowered.com/"
SUPPORT_URL="https://support.steampowered.com/"
BUG_REPORT_URL="https://support.steampowered.com/"
LOGO=steamos
VARIANT_ID=steamdeck
VERSION_ID=3.6.19
BUILD_ID=20241017.1
''',
    "fedora41": '''NAME="Fedora Linux"
VERSION="41 (Workstation Edition)"
RELEASE_TYPE=stable
ID=fedora
VERSION_ID=41
VERSION_CODENAME=""
PLATFORM_ID="platform:f41"
PRETTY_NAME="Fedora Linux 41 (Workstation Edition)"
ANSI_COLOR="0;38;2;60;110;180"
LOGO=fedora-logo-icon
CPE_NAME="cpe:/o:fedoraproject:fedora:41"
DEFAULT_HOSTNAME="fedora"
HOME_URL="https://fedoraproject.org/"
DOCUMENTATION_URL="https://docs.fedoraproject.org/en-US/fedora/f41/system-administrators-guide/"
SUPPORT_URL="https://ask.fedoraproject.org/"
BUG_REPORT_URL="https://bugzilla.redhat.com/"
REDHAT_BUGZILLA_PRODUCT="Fedora"
REDHAT_BUGZILLA_PRODUCT_VERSION=41
REDHAT_SUPPORT_PRODUCT="Fedora"
REDHAT_SUPPORT_PRODUCT_VERSION=41
SUPPORT_END=2025-12-15
VARIANT="Workstation Edition"
VARIANT_ID=workstation
''',
    "fedora42": '''NAME="Fedora Linux"
VERSION="42 (Workstation Edition)"
RELEASE_TYPE=stable
ID=fedora
VERSION_ID=42
VERSION_CODENAME=""
PLATFORM_ID="platform:f42"
PRETTY_NAME="Fedora Linux 42 (Workstation Edition)"
ANSI_COLOR="0;38;2;60;110;180"
LOGO=fedora-logo-icon
CPE_NAME="cpe:/o:fedoraproject:fedora:42"
DEFAULT_HOSTNAME="fedora"
HOME_URL="https://fedoraproject.org/"
DOCUMENTATION_URL="https://docs.fedoraproject.org/en-US/fedora/f42/"
SUPPORT_URL="https://ask.fedoraproject.org/"
BUG_REPORT_URL="https://bugzilla.redhat.com/"
REDHAT_BUGZILLA_PRODUCT="Fedora"
REDHAT_BUGZILLA_PRODUCT_VERSION=42
REDHAT_SUPPORT_PRODUCT="Fedora"
REDHAT_SUPPORT_PRODUCT_VERSION=42
SUPPORT_END=2026-05-13
VARIANT="Workstation Edition"
VARIANT_ID=workstation
''',
    "rhel94": '''NAME="Red Hat Enterprise Linux"
VERSION="9.4 (Plow)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="9.4"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"
ANSI_COLOR="0;31"
LOGO="fedora-logo-icon"
CPE_NAME="cpe:/o:redhat:enterprise_linux:9::baseos"
HOME_URL="https://www.redhat.com/"
DOCUMENTATION_URL="https://access.redhat.com/documentation/en-us/red_hat_enterprise_linux/9"
BUG_REPORT_URL="https://issues.redhat.com/"

REDHAT_BUGZILLA_PRODUCT="Red Hat Enterprise Linux 9"
REDHAT_BUGZILLA_PRODUCT_VERSION=9.4
REDHAT_SUPPORT_PRODUCT="Red Hat Enterprise Linux"
REDHAT_SUPPORT_PRODUCT_VERSION="9.4"
''',
}

GRUB_COMMON_TAIL = '''
# Uncomment to enable BadRAM filtering, modify to suit your needs
# This works with Linux (no patch required) and with any kernel that obtains
# the memory map information from GRUB (GNU Mach, kernel of FreeBSD ...)
#GRUB_BADRAM="0x01234567,0xfefefefe,0x89abcdef,0xefefefef"

# Uncomment to disable graphical terminal
#GRUB_TERMINAL=console

# The resolution used on graphical terminal
# note that you can use only modes which your graphic card supports via VBE
# you can see them in real GRUB with the command `vbeinfo'
#GRUB_GFXMODE=640x480

# Uncomment if you don't want GRUB to pass "root=UUID=xxx" parameter to Linux
#GRUB_DISABLE_LINUX_UUID=true

# Uncomment to disable generation of recovery mode menu entries
#GRUB_DISABLE_RECOVERY="true"

# Uncomment to get a beep at grub start
#GRUB_INIT_TUNE="480 440 1"
'''
OS_PROBER_BLOCK = '''
# If your computer has multiple operating systems installed, then you
# probably want to run os-prober. However, if your computer is a host
# for guest OSes installed via LVM or raw disk devices, running
# os-prober can cause damage to those guest OSes as it mounts
# filesystems to look for things.
'''

# Debian 12 grub2-common: /usr/share/grub/default/grub (installed as /etc/default/grub)
GRUB_DEBIAN = ('''# If you change this file, run 'update-grub' afterwards to update
# /boot/grub/grub.cfg.
# For full documentation of the options in this file, see:
#   info -f grub -n 'Simple configuration'

GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX_DEFAULT="{default}"
GRUB_CMDLINE_LINUX="{linux}"
''' + OS_PROBER_BLOCK + 'GRUB_DISABLE_OS_PROBER=true\n' + GRUB_COMMON_TAIL)

GRUB_UBUNTU2404 = ('''# If you change this file or any /etc/default/grub.d/*.cfg file,
# run 'update-grub' afterwards to update /boot/grub/grub.cfg.
# For full documentation of the options in these files, see:
#   info -f grub -n 'Simple configuration'

GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=`( . /etc/os-release; echo ${{NAME:-Ubuntu}} ) 2>/dev/null || echo Ubuntu`
GRUB_CMDLINE_LINUX_DEFAULT="{default}"
GRUB_CMDLINE_LINUX="{linux}"
''' + OS_PROBER_BLOCK + '#GRUB_DISABLE_OS_PROBER=false\n' + GRUB_COMMON_TAIL)

GRUB_UBUNTU2204 = ('''# If you change this file, run 'update-grub' afterwards to update
# /boot/grub/grub.cfg.
# For full documentation of the options in this file, see:
#   info -f grub -n 'Simple configuration'

GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX_DEFAULT="{default}"
GRUB_CMDLINE_LINUX="{linux}"
''' + OS_PROBER_BLOCK + '#GRUB_DISABLE_OS_PROBER=false\n' + GRUB_COMMON_TAIL)

GRUB_UBUNTU1804 = ('''# If you change this file, run 'update-grub' afterwards to update
# /boot/grub/grub.cfg.
# For full documentation of the options in this file, see:
#   info -f grub -n 'Simple configuration'

GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX_DEFAULT="{default}"
GRUB_CMDLINE_LINUX="{linux}"
''' + GRUB_COMMON_TAIL)

GRUB_ARCH = '''# GRUB boot loader configuration

GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_DISTRIBUTOR="{distributor}"
GRUB_CMDLINE_LINUX_DEFAULT="{default}"
GRUB_CMDLINE_LINUX="{linux}"

# Preload both GPT and MBR modules so that they are not missed
GRUB_PRELOAD_MODULES="part_gpt part_msdos"

# Uncomment to enable booting from LUKS encrypted devices
#GRUB_ENABLE_CRYPTODISK=y

# Set to 'countdown' or 'hidden' to change timeout behavior,
# press ESC key to display menu.
GRUB_TIMEOUT_STYLE=menu

# Uncomment to use basic console
GRUB_TERMINAL_INPUT=console

# Uncomment to disable graphical terminal
#GRUB_TERMINAL_OUTPUT=console

# The resolution used on graphical terminal
# note that you can use only modes which your graphic card supports via VBE
# you can see them in real GRUB with the command `videoinfo'
GRUB_GFXMODE=auto

# Uncomment to allow the kernel use the same resolution used by grub
GRUB_GFXPAYLOAD_LINUX=keep

# Uncomment if you want GRUB to pass to the Linux kernel the old parameter
# format "root=/dev/xxx" instead of "root=UUID=xxx"
#GRUB_DISABLE_LINUX_UUID=true

# Uncomment to disable generation of recovery mode menu entries
GRUB_DISABLE_RECOVERY=true

# Uncomment and set to the desired menu colors.  Used by normal and wallpaper
# modes only.  Entries specified as foreground/background.
#GRUB_COLOR_NORMAL="light-blue/black"
#GRUB_COLOR_HIGHLIGHT="light-cyan/blue"

# Uncomment one of them for the gfx desired, a image background or a gfxtheme
#GRUB_BACKGROUND="/path/to/wallpaper"
#GRUB_THEME="/path/to/gfxtheme"

# Uncomment to get a beep at GRUB start
#GRUB_INIT_TUNE="480 440 1"

# Uncomment to make GRUB remember the last selection. This requires
# setting 'GRUB_DEFAULT=saved' above.
#GRUB_SAVEDEFAULT=true

# Uncomment to disable submenus in boot menu
#GRUB_DISABLE_SUBMENU=y

# Probing for other operating systems is disabled for security reasons. Read
# documentation on GRUB_DISABLE_OS_PROBER, if still want to enable this
# functionality install os-prober and uncomment to detect and include other
# operating systems.
#GRUB_DISABLE_OS_PROBER=false
'''

GRUB_REDHAT = '''GRUB_TIMEOUT=5
GRUB_DISTRIBUTOR="$(sed 's, release .*$,,g' /etc/system-release)"
GRUB_DEFAULT=saved
GRUB_DISABLE_SUBMENU=true
GRUB_TERMINAL_OUTPUT="console"
GRUB_CMDLINE_LINUX="{linux}"
GRUB_DISABLE_RECOVERY="true"
GRUB_ENABLE_BLSCFG=true
'''

# Debian grub2-common 2.06-13+deb12u2: /etc/default/grub.d/init-select.cfg
INIT_SELECT_CFG = '''# Work around a bug in the obsolete init-select package which broke
# grub-mkconfig when init-select was removed but not purged.  This file does
# nothing and will be removed in a later release.
#
# See:
#   https://bugs.debian.org/858528
#   https://bugs.debian.org/863801
'''

UPDATE_GRUB = '#!/bin/sh\nset -e\nexec grub-mkconfig -o /boot/grub/grub.cfg "$@"\n'

# Debian initramfs-tools-core 0.142+deb12u3: /etc/initramfs-tools/initramfs.conf
INITRAMFS_CONF = '''#
# initramfs.conf
# Configuration file for mkinitramfs(8). See initramfs.conf(5).
#
# Note that configuration options from this file can be overridden
# by config files in the /etc/initramfs-tools/conf.d directory.

#
# MODULES: [ most | netboot | dep | list ]
#
# most - Add most filesystem and all harddrive drivers.
#
# dep - Try and guess which modules to load.
#
# netboot - Add the base modules, network modules, but skip block devices.
#
# list - Only include modules from the 'additional modules' list
#

MODULES=most

#
# BUSYBOX: [ y | n | auto ]
#
# Use busybox shell and utilities.  If set to n, klibc utilities will be used.
# If set to auto (or unset), busybox will be used if installed and klibc will
# be used otherwise.
#

BUSYBOX=auto

#
# KEYMAP: [ y | n ]
#
# Load a keymap during the initramfs stage.
#

KEYMAP=n

#
# COMPRESS: [ gzip | bzip2 | lz4 | lzma | lzop | xz | zstd ]
#

COMPRESS=zstd

#
# COMPRESSLEVEL: ...
#
# Set a compression level for the compressor.
# Defaults vary by compressor.
#
# Valid values are:
# 1 -  9 for gzip|bzip2|lzma|lzop
# 0 -  9 for  lz4|xz
# 0 - 19 for zstd
#
# COMPRESSLEVEL=3

#
# DEVICE: ...
#
# Specify a specific network interface, like eth0
# Overridden by optional ip= or BOOTIF= bootarg
#

DEVICE=

#
# NFSROOT: [ auto | HOST:MOUNT ]
#

NFSROOT=auto

#
# RUNSIZE: ...
#
# The size of the /run tmpfs mount point, like 256M or 10%
# Overridden by optional initramfs.runsize= bootarg
#

RUNSIZE=10%

#
# FSTYPE: ...
#
# The filesystem type(s) to support, or "auto" to use the current root
# filesystem type
#

FSTYPE=auto
'''

MKINITCPIO_CONF = '''# vim:set ft=sh
# MODULES
# The following modules are loaded before any boot hooks are
# run.  Advanced users may wish to specify all system modules
# in this array.  For instance:
#     MODULES=(usbhid xhci_hcd)
MODULES=({modules})

# BINARIES
# This setting includes any additional binaries a given user may
# wish into the CPIO image.  This is run last, so it may be used to
# override the actual binaries included by a given hook
# BINARIES are dependency parsed, so you may safely ignore libraries
BINARIES=()

# FILES
# This setting is similar to BINARIES above, however, files are added
# as-is and are not parsed in any way.  This is useful for config files.
FILES=()

# HOOKS
# This is the most important setting in this file.  The HOOKS control the
# modules and scripts added to the image, and what happens at boot time.
# Order is important, and it is recommended that you do not change the
# order in which HOOKS are added.  Run 'mkinitcpio -H <hook name>' for
# help on a given hook.
HOOKS=({hooks})

# COMPRESSION
# Use this to compress the initramfs image. By default, zstd compression
# is used for Linux >= 5.9 and gzip compression is used for Linux < 5.9.
# Use 'cat' to create an uncompressed image.
#COMPRESSION="zstd"
'''

DRACUT_CONF = '''# PUT YOUR CONFIG IN separate files
# in /etc/dracut.conf.d named "<name>.conf"
# SEE man dracut.conf(5) for options
'''


def stub(tool):
    return "#!/bin/sh\n# synthetic stub of %s for a rocmtune test world: does nothing\nexit 0\n" % tool


# --------------------------------------------------------------------------------------------
# amdgpu module parameters
# --------------------------------------------------------------------------------------------
def parse_since(s):
    s = s.strip()
    if s.startswith("<="):
        return (0, 0)
    if "2026" in s and "approx" not in s:
        return (99, 0)
    if "approx" in s:
        s = s.split("approx", 1)[1]
    tok = ""
    for ch in s.strip():
        if ch.isdigit() or ch == ".":
            tok += ch
        elif tok:
            break
    parts = tok.split(".")
    return (int(parts[0]), int(parts[1]))


def parse_until(status):
    if status.startswith("removed"):
        if "last seen drm-kmod" in status:
            v = status.split("last seen drm-kmod", 1)[1].strip(" )")
            a, b = v.split(".")[:2]
            return (int(a), int(b))
        return (98, 0)  # removed in 2026: present in every kernel modelled here
    return (99, 99)


def u32(v):
    return str(v & 0xFFFFFFFF)


def render_param(name, typ, default, ver):
    """sysfs rendering of one parameter's default value for kernel `ver` (tuple)."""
    d = default.split(" (")[0].strip()
    # version-dependent defaults (facts/amdgpu_params.csv default_history, resolved per kernel)
    if name == "vramlimit":
        return "-1" if ver >= (6, 4) else "0"
    if name == "ppfeaturemask":
        mask = 0xfff7bfff if ver >= (5, 15) else 0xffffbfff
        return "0x%08x" % mask if ver >= (5, 9) else str(mask)
    if name == "cg_mask":
        return "18446744073709551615" if ver >= (5, 19) else "4294967295"
    if name == "lockup_timeout":
        return ""  # module_param_string, empty default
    if name == "noretry":
        return "-1" if ver >= (5, 9) else "0"
    if name == "mcbp":
        return "-1" if ver >= (6, 4) else "0"
    if name == "abmlevel":
        return "-1" if ver >= (6, 9) else "0"
    if name == "tmz":
        return "-1" if ver >= (5, 14) else "0"
    if name == "hws_max_conc_proc":
        return "-1" if ver >= (5, 9) else "8"
    if name == "dcfeaturemask":
        return "2"
    if name == "mtype_local":
        return "0"  # 6.5 .. 2025: 0 (= MTYPE_RW); -1 only in 2026 kernels
    if name == "ras_mask":
        return "4294967295"
    if typ == "bool":
        return "Y" if d.lower() in ("true", "1", "y") else "N"
    if typ == "charp":
        return "(null)"
    if typ == "string":
        return d.strip('"')
    if typ == "hexint":
        return "0x%08x" % int(d, 0)
    if typ == "uint":
        return u32(int(d, 0))
    if typ == "ullong":
        return str(int(d, 0) & 0xFFFFFFFFFFFFFFFF)
    return str(int(d, 0))  # int, bint


def amdgpu_params(csv_path, ver, distro, overrides):
    out = {}
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            name = r["name"]
            if name.startswith("ttm."):
                continue
            if not (parse_since(r["kernel_since_if_known"]) <= ver <= parse_until(r["status"])):
                continue
            dep = r["config_dependency"]
            if distro == "rhel94" and dep in ("CONFIG_DRM_AMDGPU_SI", "CONFIG_DRM_AMDGPU_CIK"):
                continue
            out[name] = render_param(name, r["type"], r["default"], ver)
    out.update(overrides)
    return out


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
class World:
    def __init__(self, root):
        self.root = root
        self.synthetic = []  # (path, why)
        self.empty_dirs = []

    def p(self, rel):
        return os.path.join(self.root, rel)

    def mkdir(self, rel):
        path = self.p(rel)
        os.makedirs(path, exist_ok=True)
        # normalise every directory level we created
        r = rel
        while r and r != ".":
            os.chmod(self.p(r), 0o755)
            r = os.path.dirname(r)

    def write(self, rel, data, why=None, mode=0o644):
        self.mkdir(os.path.dirname(rel))
        if isinstance(data, str):
            data = data.encode()
        with open(self.p(rel), "wb") as f:
            f.write(data)
        os.chmod(self.p(rel), mode)
        if why:
            self.synthetic.append((rel, why))

    def link(self, rel, target, why=None):
        self.mkdir(os.path.dirname(rel))
        assert not target.startswith("/"), target
        os.symlink(target, self.p(rel))
        if why:
            self.synthetic.append((rel, why + " (symlink -> %s)" % target))

    def copytree(self, src, rel, skip=()):
        """Byte-exact copy of a captured directory; returns number of files."""
        n = 0
        self.mkdir(rel)
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames.sort()
            relsub = os.path.relpath(dirpath, src)
            if relsub == ".":
                dirnames[:] = [d for d in dirnames if d not in skip]
                filenames = [f for f in filenames if f not in skip]
            dst = os.path.normpath(os.path.join(rel, relsub))
            self.mkdir(dst)
            if not dirnames and not filenames:
                self.empty_dirs.append(dst)
            for fn in sorted(filenames):
                s = os.path.join(dirpath, fn)
                if os.path.islink(s):
                    raise SystemExit("unexpected symlink in fixture: " + s)
                with open(s, "rb") as f:
                    data = f.read()
                self.write(os.path.join(dst, fn), data)
                n += 1
        return n


def hexid(tag, n):
    return hashlib.sha256(tag.encode()).hexdigest()[:n]


def uuid_for(tag):
    h = hexid("rocmtune-world-uuid:" + tag, 32)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], "4" + h[13:16], "8" + h[17:20], h[20:32])


def read_kv(path):
    out = {}
    with open(path, "rb") as f:
        for line in f.read().replace(b"\0", b"").decode().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                out[k] = v
            elif " " in line:
                k, v = line.split(" ", 1)
                out[k] = v
    return out


def vtuple(kernel):
    a, b = kernel.split(".")[:2]
    return (int(a), int("".join(c for c in b if c.isdigit())))


# --------------------------------------------------------------------------------------------
# boot configuration
# --------------------------------------------------------------------------------------------
def boot_setup(w, spec, prov):
    name, kernel, boot = spec["name"], spec["kernel"], spec["boot"]
    root_uuid = uuid_for(name + ":root")
    mid = hexid("rocmtune-world-machine-id:" + name, 32)
    syn = "distribution stock file (see text above)"
    stubwhy = "no-op stub so the tool is found"
    debian_family = boot in ("debian", "ubuntu-desktop", "ubuntu-server", "ubuntu1804-server")
    cmdline = None

    if debian_family:
        tmpl = {"debian": GRUB_DEBIAN, "ubuntu-desktop": None, "ubuntu-server": GRUB_UBUNTU2204,
                "ubuntu1804-server": GRUB_UBUNTU1804}[boot]
        if boot == "ubuntu-desktop":
            tmpl = GRUB_UBUNTU2404 if spec["distro"] == "ubuntu2404" else GRUB_UBUNTU2204
        default = spec.get("cmd_default", {"debian": "quiet", "ubuntu-desktop": "quiet splash",
                                           "ubuntu-server": "", "ubuntu1804-server": "maybe-ubiquity"}[boot])
        linux = spec.get("cmd_linux", "")
        w.write("etc/default/grub", tmpl.format(default=default, linux=linux), syn)
        w.write("etc/default/grub.d/init-select.cfg", INIT_SELECT_CFG, syn)
        w.write("usr/sbin/update-grub", UPDATE_GRUB, "Debian's real 3-line update-grub script", mode=0o755)
        if boot == "ubuntu-server":  # LVM root, separate /boot
            root, kpath, ipath = "/dev/mapper/ubuntu--vg-ubuntu--lv", "/vmlinuz-" + kernel, "/initrd.img-" + kernel
        else:
            root, kpath, ipath = "UUID=" + root_uuid, "/boot/vmlinuz-" + kernel, "/boot/initrd.img-" + kernel
        handoff = boot == "ubuntu-desktop"
        osname = "Ubuntu" if spec["distro"].startswith("ubuntu") else "Debian GNU/Linux"
        cls = "ubuntu" if spec["distro"].startswith("ubuntu") else "debian"
        w.write("boot/grub/grub.cfg",
                "#\n# DO NOT EDIT THIS FILE\n#\n# It is automatically generated by grub-mkconfig using templates\n"
                "# from /etc/grub.d and settings from /etc/default/grub\n#\n\n"
                "### BEGIN /etc/grub.d/10_linux ###\n"
                "menuentry '%s' --class %s --class gnu-linux --class gnu --class os $menuentry_id_option "
                "'gnulinux-simple-%s' {\n\tload_video\n\tinsmod gzio\n\tinsmod part_gpt\n\tinsmod ext2\n"
                "\tlinux\t%s root=%s ro %s %s%s\n\tinitrd\t%s\n}\n### END /etc/grub.d/10_linux ###\n"
                % (osname, cls, root_uuid, kpath, root, linux, default, " $vt_handoff" if handoff else "", ipath),
                "synthetic grub.cfg stub (one menuentry as 10_linux would write it)")
        cmdline = " ".join(["BOOT_IMAGE=" + kpath, "root=" + root, "ro"] + linux.split() + default.split()
                           + (["vt.handoff=7"] if handoff else []))
        prov.append("Boot: GRUB (Debian style): etc/default/grub, etc/default/grub.d/init-select.cfg, "
                    "usr/sbin/update-grub, boot/grub/grub.cfg.")
    elif boot in ("arch", "steamos"):
        default = spec.get("cmd_default", "loglevel=3 quiet")
        w.write("etc/default/grub", GRUB_ARCH.format(
            distributor="Arch" if boot == "arch" else "SteamOS", default=default, linux=""), syn)
        kimg = "/boot/vmlinuz-linux" if boot == "arch" else "/boot/vmlinuz-linux-neptune-65"
        init = "/boot/initramfs-linux.img" if boot == "arch" else "/boot/initramfs-linux-neptune-65.img"
        w.write("boot/grub/grub.cfg",
                "#\n# DO NOT EDIT THIS FILE\n#\n# It is automatically generated by grub-mkconfig using templates\n"
                "# from /etc/grub.d and settings from /etc/default/grub\n#\n\n"
                "### BEGIN /etc/grub.d/10_linux ###\n"
                "menuentry '%s' --class arch --class gnu-linux --class gnu --class os $menuentry_id_option "
                "'gnulinux-simple-%s' {\n\tload_video\n\tset gfxpayload=keep\n\tinsmod gzio\n\tinsmod part_gpt\n"
                "\tinsmod ext2\n\tlinux\t%s root=UUID=%s rw  %s\n\tinitrd\t%s\n}\n"
                "### END /etc/grub.d/10_linux ###\n"
                % ("Arch Linux" if boot == "arch" else "SteamOS", root_uuid, kimg, root_uuid, default, init),
                "synthetic grub.cfg stub")
        cmdline = " ".join(["BOOT_IMAGE=" + kimg, "root=UUID=" + root_uuid, "rw"] + default.split())
        prov.append("Boot: GRUB (Arch style, no grub.d, no update-grub): etc/default/grub, boot/grub/grub.cfg.")
    elif boot in ("fedora-bls", "rhel-bls"):
        fedora = boot == "fedora-bls"
        if fedora:
            linux = spec.get("cmd_linux", "rhgb quiet")
            root = "UUID=" + root_uuid
            title = "Fedora Linux (%s) 41 (Workstation Edition)" % kernel
            gclass = "fedora"
        else:
            linux = spec["cmd_linux"]
            root = "/dev/mapper/rhel-root"
            title = "Red Hat Enterprise Linux (%s) 9.4 (Plow)" % kernel
            gclass = "rhel"
        w.write("etc/default/grub", GRUB_REDHAT.format(linux=linux), syn)
        w.write("etc/machine-id", mid + "\n", "synthetic machine-id (deterministic hash of the world name)")
        opts = "root=%s ro %s" % (root, linux)
        w.write("boot/loader/entries/%s-%s.conf" % (mid, kernel),
                "title %s\nversion %s\nlinux /vmlinuz-%s\ninitrd /initramfs-%s.img%s\noptions %s%s\n"
                "grub_users $grub_users\ngrub_arg --unrestricted\ngrub_class %s\n"
                % (title, kernel, kernel, kernel, "" if fedora else " $tuned_initrd", opts,
                   "" if fedora else " $tuned_params", gclass),
                "synthetic BLS entry (format as written by kernel-install/grubby)")
        w.write("boot/grub2/grub.cfg",
                "#\n# DO NOT EDIT THIS FILE\n#\n# It is automatically generated by grub2-mkconfig using templates\n"
                "# from /etc/grub.d and settings from /etc/default/grub\n#\n\n"
                "### BEGIN /etc/grub.d/10_linux ###\ninsmod part_gpt\ninsmod xfs\n"
                "insmod blscfg\nblscfg\n### END /etc/grub.d/10_linux ###\n",
                "synthetic grub.cfg stub (BLS: entries come from boot/loader/entries)")
        if not fedora:
            env = ("# GRUB Environment Block\n# WARNING: Do not edit this file by tools other than "
                   "grub-editenv!!!\nsaved_entry=%s-%s\nmenu_auto_hide=1\nboot_success=0\n"
                   "tuned_params=\ntuned_initrd=\n" % (mid, kernel))
            env += "#" * (1024 - len(env))
            w.write("boot/grub2/grubenv", env, "synthetic grubenv (1024-byte block; empty tuned_params)")
        w.write("usr/sbin/grubby", stub("grubby"), stubwhy, mode=0o755)
        cmdline = " ".join(["BOOT_IMAGE=(hd0,gpt2)/vmlinuz-" + kernel] + opts.split())
        prov.append("Boot: GRUB with BLS (GRUB_ENABLE_BLSCFG=true): etc/default/grub, boot/loader/entries/, "
                    "boot/grub2/grub.cfg%s, usr/sbin/grubby." % ("" if fedora else ", boot/grub2/grubenv"))
    elif boot == "sdboot":
        opts = "root=UUID=%s ro rhgb quiet" % root_uuid
        w.write("etc/kernel/cmdline", opts + "\n", syn)
        w.write("etc/kernel/install.conf", "layout=bls\n", syn)
        w.write("etc/machine-id", mid + "\n", "synthetic machine-id (deterministic hash of the world name)")
        w.write("efi/loader/loader.conf", "#timeout 3\n#console-mode keep\n", "as written by bootctl install")
        w.write("efi/loader/entries.srel", "type1\n", "as written by bootctl install")
        w.write("efi/loader/entries/%s-%s.conf" % (mid, kernel),
                "# Boot Loader Specification type#1 entry\n"
                "# File created by /usr/lib/kernel/install.d/90-loaderentry.install (systemd 257)\n"
                "title      Fedora Linux 42 (Workstation Edition)\nversion    %s\nmachine-id %s\n"
                "sort-key   fedora\noptions    %s\nlinux      /%s/%s/linux\ninitrd     /%s/%s/initrd\n"
                % (kernel, mid, opts, mid, kernel, mid, kernel),
                "synthetic type#1 entry as kernel-install would write it")
        # systemd-boot passes the initrd path on the command line for type#1 entries
        cmdline = "initrd=\\%s\\%s\\initrd %s" % (mid, kernel, opts)
        prov.append("Boot: systemd-boot + kernel-install (layout=bls), no GRUB: etc/kernel/cmdline, "
                    "etc/kernel/install.conf, efi/loader/{loader.conf,entries.srel,entries/}.")
    else:
        raise SystemExit("unknown boot style " + boot)

    w.write("proc/cmdline", cmdline + "\n", "synthetic, consistent with the boot configuration")

    initramfs = spec.get("initramfs", "initramfs-tools")
    if initramfs == "initramfs-tools":
        w.write("etc/initramfs-tools/initramfs.conf", INITRAMFS_CONF, syn)
        w.write("usr/sbin/update-initramfs", stub("update-initramfs"), stubwhy, mode=0o755)
        prov.append("Initramfs: initramfs-tools (etc/initramfs-tools/initramfs.conf, usr/sbin/update-initramfs stub).")
    elif initramfs.startswith("mkinitcpio"):
        mods = "amdgpu" if initramfs == "mkinitcpio-amdgpu" else ""
        hooks = ("base udev autodetect microcode modconf kms keyboard keymap consolefont block filesystems fsck"
                 if boot == "arch" else "base udev modconf block keyboard keymap consolefont filesystems fsck")
        w.write("etc/mkinitcpio.conf", MKINITCPIO_CONF.format(modules=mods, hooks=hooks), syn)
        prov.append("Initramfs: mkinitcpio (etc/mkinitcpio.conf, MODULES=(%s)); no mkinitcpio binary stub." % mods)
    elif initramfs == "dracut":
        w.write("etc/dracut.conf", DRACUT_CONF, syn)
        w.write("etc/dracut.conf.d/00-local.conf", "# no local dracut settings on this machine\n", syn)
        w.write("usr/bin/dracut", stub("dracut"), stubwhy, mode=0o755)
        prov.append("Initramfs: dracut (etc/dracut.conf, etc/dracut.conf.d/00-local.conf, usr/bin/dracut stub).")
    return cmdline


# --------------------------------------------------------------------------------------------
# GPU parts
# --------------------------------------------------------------------------------------------
def drm_from_lact(w, spec, fixtures, render_minor, prov, facts):
    src = os.path.join(fixtures, spec["src"])
    cards = sorted(d for d in os.listdir(src) if d.startswith("card") and os.path.isdir(os.path.join(src, d)))
    card = spec.get("card_sub") or cards[0]
    cdir = os.path.join(src, card)
    ue = read_kv(os.path.join(cdir, "device", "uevent"))
    slot = ue["PCI_SLOT_NAME"]
    drv = ue["DRIVER"]
    dev = "sys/devices/pci0000:00/" + slot
    nfiles = w.copytree(os.path.join(cdir, "device"), dev)
    mapping = ["`%s/%s/device/**` -> `%s/**` (%d files)" % (spec["src"], card, dev, nfiles)]
    cn = int(card[4:])
    crel = dev + "/drm/" + card
    w.mkdir(crel)
    extra = [f for f in sorted(os.listdir(cdir)) if f != "device"]
    for f in extra:
        w.write(crel + "/" + f, open(os.path.join(cdir, f), "rb").read())
    if extra:
        mapping.append("`%s/%s/{%s}` -> `%s/`" % (spec["src"], card, ",".join(extra), crel))
    if "uevent" not in extra:
        w.write(crel + "/uevent", "MAJOR=226\nMINOR=%d\nDEVNAME=dri/%s\nDEVTYPE=drm_minor\n" % (cn, card),
                "not captured: written as the kernel renders a DRM card minor")
    if "dev" not in extra:
        w.write(crel + "/dev", "226:%d\n" % cn, "not captured: major:minor of the card node")
    add_drm_links(w, slot, card, render_minor, drv)
    facts.update(slot=slot, card=card, driver=drv)
    prov.extend("- " + m for m in mapping)
    missing = [f for f in ("vendor", "device", "subsystem_vendor", "subsystem_device", "class", "revision")
               if not os.path.exists(os.path.join(cdir, "device", f))]
    facts["missing_ids"] = missing
    return slot, drv


def add_drm_links(w, slot, card, render_minor, drv):
    dev = "sys/devices/pci0000:00/" + slot
    crel = dev + "/drm/" + card
    w.link(crel + "/device", "../../../" + slot, "kernel-created link")
    w.link(crel + "/subsystem", "../../../../../class/drm", "kernel-created link")
    r = "renderD%d" % render_minor
    rrel = dev + "/drm/" + r
    w.write(rrel + "/uevent", "MAJOR=226\nMINOR=%d\nDEVNAME=dri/%s\nDEVTYPE=drm_minor\n" % (render_minor, r),
            "render node not captured: synthesised (minor from KFD drm_render_minor when KFD exists)")
    w.write(rrel + "/dev", "226:%d\n" % render_minor, "render node not captured: synthesised")
    w.link(rrel + "/device", "../../../" + slot, "kernel-created link")
    w.link(rrel + "/subsystem", "../../../../../class/drm", "kernel-created link")
    w.link("sys/class/drm/" + card, "../../devices/pci0000:00/%s/drm/%s" % (slot, card), "class link")
    w.link("sys/class/drm/" + r, "../../devices/pci0000:00/%s/drm/%s" % (slot, r), "class link")
    if not os.path.exists(w.p("sys/class/drm/version")):
        w.write("sys/class/drm/version", "drm 1.1.0 20060810\n", "constant file every kernel has in /sys/class/drm")
    w.link("sys/bus/pci/devices/" + slot, "../../../devices/pci0000:00/" + slot, "bus link")
    w.link(dev + "/driver", "../../../bus/pci/drivers/" + drv, "driver link (from uevent DRIVER=)")
    w.link(dev + "/subsystem", "../../../bus/pci", "subsystem link")
    w.link("sys/bus/pci/drivers/%s/%s" % (drv, slot), "../../../../devices/pci0000:00/" + slot, "driver back-link")
    hw = w.p(dev + "/hwmon")
    if os.path.isdir(hw):
        for h in sorted(os.listdir(hw)):
            w.link("%s/hwmon/%s/device" % (dev, h), "../../../" + slot, "kernel-created link")
            w.link("sys/class/hwmon/" + h, "../../devices/pci0000:00/%s/hwmon/%s" % (slot, h), "class link")


def kfd_tree(w, spec, fixtures, prov):
    """Copy a KFD capture to sys/devices/virtual/kfd/kfd and link sys/class/kfd/kfd to it."""
    base = "sys/devices/virtual/kfd/kfd"
    src = os.path.join(fixtures, spec["src"])
    drop = spec.get("drop_nodes", [])
    if spec.get("kfd"):  # LACT: kfd/{uevent,dev,power,topology}
        n = w.copytree(os.path.join(src, spec["kfd"]), base)
        prov.append("- `%s/kfd/**` -> `%s/**` (%d files)" % (spec["src"], base, n))
        topo = base + "/topology"
    elif spec.get("kfd_nodes"):  # k8s tree without topology/ prefix
        n = w.copytree(os.path.join(src, spec["kfd_nodes"]), base + "/topology/nodes")
        prov.append("- `%s/nodes/**` -> `%s/topology/nodes/**` (%d files)" % (spec["src"], base, n))
        topo = base + "/topology"
    else:
        tsrc = os.path.join(src, spec["kfd_topology"])
        topo = base + "/topology"
        n = w.copytree(tsrc, topo, skip=())
        for d in drop:
            shutil.rmtree(w.p(topo + "/nodes/" + d))
        if drop:
            nd = sum(len(fs) for _, _, fs in os.walk(os.path.join(tsrc, "nodes", drop[0])))
            n -= nd * len(drop)
        prov.append("- `%s/topology/**` -> `%s/**` (%d files%s)" % (
            spec["src"], topo, n, "; node(s) %s dropped" % ",".join(drop) if drop else ""))
    w.link("sys/class/kfd/kfd", "../../devices/virtual/kfd/kfd", "class link, as on a real system")
    nodes = []
    ndir = w.p(topo + "/nodes")
    for nd in sorted(os.listdir(ndir), key=int):
        props = read_kv(os.path.join(ndir, nd, "properties"))
        nodes.append((int(nd), props))
    return nodes


def iommu_setup(w, spec, slot, prov):
    io = spec.get("iommu")
    if not io:
        return
    ivhd = "sys/devices/pci0000:00/0000:00:00.2/iommu/ivhd0"
    w.write(ivhd + "/uevent", "", "AMD IOMMU class device (uevent is empty on real systems)")
    w.link("sys/class/iommu/ivhd0", "../../devices/pci0000:00/0000:00:00.2/iommu/ivhd0", "class link")
    rr = "0x00000000fee00000 0x00000000feefffff msi\n0x000000fd00000000 0x000000ffffffffff reserved\n"
    if slot:
        g = "sys/kernel/iommu_groups/%d" % io["group"]
        w.write(g + "/type", io["type"] + "\n", "synthetic IOMMU group of the GPU")
        w.write(g + "/reserved_regions", rr, "synthetic")
        w.link(g + "/devices/" + slot, "../../../../devices/pci0000:00/" + slot, "group member link")
        w.link("sys/devices/pci0000:00/%s/iommu_group" % slot, "../../../kernel/iommu_groups/%d" % io["group"],
               "device -> group link")
        w.link("sys/devices/pci0000:00/%s/iommu" % slot, "../0000:00:00.2/iommu/ivhd0", "device -> iommu link")
        prov.append("IOMMU: enabled, GPU in group %d with type %s (synthetic)." % (io["group"], io["type"]))
    else:
        for i in range(io["gpus"]):
            g = "sys/kernel/iommu_groups/%d" % (40 + i)
            w.write(g + "/type", io["type"] + "\n", "synthetic IOMMU group (one per physical GPU)")
            w.write(g + "/reserved_regions", rr, "synthetic")
        prov.append("IOMMU: iommu=pt, groups 40..%d with type %s (synthetic; no PCI device dirs exist in "
                    "this KFD-only world, so the groups have no devices/ entries)." % (39 + io["gpus"], io["type"]))


def no_amd(w, prov, facts):
    slot = "0000:00:02.0"
    dev = "sys/devices/pci0000:00/" + slot
    why = "synthetic Intel iGPU (no AMD GPU in this world)"
    w.write(dev + "/uevent", "DRIVER=i915\nPCI_CLASS=30000\nPCI_ID=8086:A780\nPCI_SUBSYS_ID=1043:8882\n"
            "PCI_SLOT_NAME=0000:00:02.0\nMODALIAS=pci:v00008086d0000A780sv00001043sd00008882bc03sc00i00\n", why)
    for f, v in (("vendor", "0x8086"), ("device", "0xa780"), ("subsystem_vendor", "0x1043"),
                 ("subsystem_device", "0x8882"), ("class", "0x030000"), ("revision", "0x04"),
                 ("boot_vga", "1"), ("numa_node", "-1")):
        w.write("%s/%s" % (dev, f), v + "\n", why)
    w.write(dev + "/drm/card0/uevent", "MAJOR=226\nMINOR=0\nDEVNAME=dri/card0\nDEVTYPE=drm_minor\n", why)
    w.write(dev + "/drm/card0/dev", "226:0\n", why)
    add_drm_links(w, slot, "card0", 128, "i915")
    facts.update(slot=slot, card="card0", driver="i915", missing_ids=[])
    prov.append("- nothing copied: the whole GPU is synthetic (Intel UHD 770, 8086:A780, driver i915).")


# --------------------------------------------------------------------------------------------
def build(spec, fixtures, csv_path, outdir):
    name = spec["name"]
    root = os.path.join(outdir, name)
    if os.path.lexists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    os.chmod(root, 0o755)
    w = World(root)
    copied = []
    bootprov = []
    facts = {}
    slot = None
    nodes = []
    render_minor = 128

    if spec.get("kfd") or spec.get("kfd_nodes") or spec.get("kfd_topology"):
        nodes = kfd_tree(w, spec, fixtures, copied)
        gpus = [(n, p) for n, p in nodes if p.get("simd_count", "0") != "0"]
        if spec.get("kfd") and gpus:
            render_minor = int(gpus[0][1]["drm_render_minor"])
        facts["kfd_nodes"] = "%d (%d GPU)" % (len(nodes), len(gpus))
        facts["kfd_loc"] = sorted({(int(p.get("domain", "0")), int(p["location_id"])) for _, p in gpus})
        facts["render_kfd"] = sorted(int(p["drm_render_minor"]) for _, p in gpus)
    if spec["src"] and spec["src"].startswith("lact/"):
        slot, drv = drm_from_lact(w, spec, fixtures, render_minor, copied, facts)
    elif spec["src"] is None:
        no_amd(w, copied, facts)

    # kernel / distro
    kernel = spec["kernel"]
    ver = spec.get("pver") or vtuple(kernel)
    w.write("proc/sys/kernel/osrelease", kernel + "\n", "synthetic (uname -r of the chosen distro kernel)")
    w.write("etc/os-release", OS_RELEASE[spec["distro"]].format(point=spec.get("point", "")),
            "synthetic (the distribution's os-release content)")
    cmdline = boot_setup(w, spec, bootprov)

    # modules
    module = spec.get("module", "amdgpu")
    if module == "amdgpu":
        w.write("sys/module/amdgpu/initstate", "live\n", "module state")
        params = amdgpu_params(csv_path, ver, spec["distro"], spec.get("param_set", {}))
        for k in sorted(params):
            w.write("sys/module/amdgpu/parameters/" + k, params[k] + "\n")
        w.synthetic.append(("sys/module/amdgpu/parameters/* (%d files)" % len(params),
                            "defaults for kernel %d.%d from facts/amdgpu_params.csv%s" % (
                                ver[0], ver[1], "; set on cmdline: " + ", ".join(
                                    "%s=%s" % kv for kv in sorted(spec.get("param_set", {}).items()))
                                if spec.get("param_set") else "")))
    elif module == "radeon":
        w.write("sys/module/radeon/initstate", "live\n", "module state (radeon world: no amdgpu module)")
    ttm = None
    if spec.get("memkb") and ver >= (5, 13):
        pages = spec["memkb"] // 8  # MemTotal/2 in 4 KiB pages
        ttm = pages
        for k, v in (("pages_limit", pages), ("page_pool_size", pages), ("dma32_pages_limit", 524288)):
            w.write("sys/module/ttm/parameters/" + k, "%d\n" % v)
        w.synthetic.append(("sys/module/ttm/parameters/{pages_limit,page_pool_size,dma32_pages_limit}",
                            "defaults for MemTotal %d kB: pages_limit = page_pool_size = MemTotal/2/4 KiB = %d, "
                            "dma32_pages_limit = 524288" % (spec["memkb"], pages)))

    # ROCm
    rocm = spec.get("rocm")
    if rocm:
        short = rocm.split("-")[0]
        if spec.get("rocm_layout") == "alt":
            w.write("opt/rocm-%s/.info/version" % short, rocm + "\n", "synthetic ROCm install marker")
            w.link("opt/rocm", "rocm-" + short, "repo.radeon.com installs make /opt/rocm point at "
                   "/opt/rocm-X.Y.Z (there via /etc/alternatives, here directly and relative)")
        else:
            w.write("opt/rocm/.info/version", rocm + "\n", "synthetic ROCm install marker (distro package layout)")

    iommu_setup(w, spec, slot, bootprov)

    # EMPTY_DIRS (git cannot store empty directories)
    w.empty_dirs.sort()
    with open(w.p("EMPTY_DIRS"), "w") as f:
        f.write("".join(d + "\n" for d in w.empty_dirs))
    os.chmod(w.p("EMPTY_DIRS"), 0o644)

    write_provenance(w, spec, copied, bootprov, cmdline, facts, ttm, ver)
    facts.update(render=render_minor if slot or spec["src"] is None else None, cmdline=cmdline)
    return facts, w.empty_dirs


def write_provenance(w, spec, copied, bootprov, cmdline, facts, ttm, ver):
    out = io.StringIO()
    p = lambda *a: print(*a, file=out)
    p("# World `%s`: %s (%s)" % (spec["name"], spec["gpu"], spec["gfx"]))
    p()
    p("Generated by `tests/worlds/make-worlds.py` (do not edit by hand; rerun the script). Exercises: %s." %
      spec["exercises"])
    p()
    p("## Source of the real data")
    if spec["src"]:
        repo, commit, path, lic = spec["up"]
        p("- Repository: https://github.com/%s" % repo)
        p("- Commit: %s" % commit)
        p("- Path: `%s`" % path.format(name=spec["upname"]))
        p("- License: %s" % lic)
        p()
        p("## Copied byte-for-byte (path mapping; file modes normalised to 0644, dirs 0755)")
        for line in copied:
            p(line)
    else:
        p("None: this world contains no captured data.")
        for line in copied:
            p(line)
    notes = []
    if spec["name"] == "rx580":
        notes.append("The fixture also holds a legacy flat copy of the device directory at its root; only "
                     "`card0/` was used.")
    if spec["name"] == "mi25":
        notes.append("Dropped `topology/nodes/2`: the upstream README says node 2 is an artificial copy of node 1 "
                     "(\"cp of 1 to simulate a multi GPU system\"; it differs only in drm_render_minor and "
                     "unique_id). Nothing else was adjusted (node 0 io_links only point at node 1 anyway).")
    if spec["name"] == "r9-280":
        notes.append("The captured uevent says DRIVER=amdgpu for this SI (Tahiti) card; kept as captured. The "
                     "synthetic cmdline sets radeon.si_support=0 amdgpu.si_support=1 to make that consistent.")
    if spec["src"] and spec["src"].startswith("lact/"):
        notes.append("Skipped LACT-only files (config*.yaml, clinfo.json): not sysfs.")
    if facts.get("missing_ids"):
        notes.append("Not captured and deliberately NOT invented: `%s` (ids are only in the uevent)." %
                     "`, `".join(facts["missing_ids"]))
    if spec.get("kfd_nodes"):
        notes.append("Source has no `generation_id` / `system_properties`; none written.")
    if spec["name"] in ("mi210x8", "mi300x-cpx"):
        notes.append("Partial capture, kept as is: node `properties` announce mem_banks/caches%s counts, but only "
                     "%s were captured; no per-node `gpu_id` or `name` files." % (
                         "/p2p_links" if spec["name"] == "mi300x-cpx" else "",
                         "`io_links/`" if spec["name"] == "mi300x-cpx" else "`io_links/` and `p2p_links/`"))
    if spec["name"] == "mi300x-cpx":
        notes.append("The capture has 65 nodes = 2 CPU + 63 GPU nodes, not 64: the eighth MI300X (bus 0xe5, "
                     "location_id 58624-58630, nodes 58-64) shows only 7 of its 8 CPX partitions.")
    if notes:
        p()
        p("## Dropped / not present")
        for n in notes:
            p("- " + n)
    p()
    p("## Synthetic (written by the generator, not captured)")
    p("The machine around the GPU is plausible but invented: kernel `%s`, distro `%s`, boot and initramfs "
      "setup as below, ROCm %s. Distro files follow the distributions' stock contents (Debian's "
      "/etc/default/grub, grub.d/init-select.cfg and initramfs.conf are copied from Debian 12's grub2-common "
      "2.06-13+deb12u2 / initramfs-tools-core 0.142+deb12u3 and reused for the other Debian-family worlds; "
      "the rest is written from the distributions' documented defaults). Root UUIDs and machine-ids are "
      "deterministic hashes of the world name." % (spec["kernel"], spec["distro"], spec.get("rocm") or "not installed"))
    p()
    for b in bootprov:
        p("- " + b)
    p("- proc/cmdline: `%s`" % cmdline)
    if spec.get("module", "amdgpu") == "amdgpu":
        p("- amdgpu parameters rendered for kernel %d.%d%s." % (
            ver[0], ver[1], "" if ver == vtuple(spec["kernel"]) else
            " (not the uname version: %s)" % {
                "mi25": "ROCm 3.5 on 4.15 needs the rock-dkms driver, modelled as 5.4-era amdgpu",
                "mi300x-cpx": "RHEL 9.4 backports DRM; modelled as 6.5",
                "vangogh": "Valve's 6.5 kernel"}.get(spec["name"], "")))
    if ttm is None:
        p("- No sys/module/ttm/parameters: pages_limit/dma32_pages_limit only exist from 5.13 and "
          "page_pool_size from 5.11.")
    p()
    p("| path | why |")
    p("|---|---|")
    for path, why in sorted(w.synthetic):
        p("| `%s` | %s |" % (path, why))
    p()
    p("## EMPTY_DIRS")
    p("`EMPTY_DIRS` lists captured directories that were empty (git cannot store them); recreate them "
      "before use. %s" % ("Entries: " + ", ".join("`%s`" % d for d in w.empty_dirs) if w.empty_dirs
                          else "This world has none (the file is empty)."))
    w.write("PROVENANCE.md", out.getvalue())


README = '''# Test worlds

A **world** is a directory that stands for `/` on a machine: `sys/` (devices, class links, KFD topology,
module parameters), `proc/cmdline`, `proc/sys/kernel/osrelease`, `etc/os-release`, boot-loader and
initramfs configuration, `opt/rocm/.info/version`. rocmtune code and tests take a world as their root directory or see it through a mount namespace.

The worlds are generated from real sysfs/KFD captures (each world's `PROVENANCE.md` names the
upstream repository, commit, path and license, and says exactly what was copied and what is synthetic)
and are committed, so the project builds and tests without the captures. Regenerate from a local copy
of those snapshots (deterministic, wipes and rewrites only the world directories listed below):

    /usr/bin/python3 tests/worlds/make-worlds.py --fixtures DIR

## Layout rules

* PCI device `SLOT` lives at `sys/devices/pci0000:00/SLOT/` (captured files, byte-exact incl. NUL padding
  and trailing spaces); `sys/class/drm/cardN`, `sys/class/drm/renderD<minor>`, `sys/bus/pci/devices/SLOT`,
  `sys/class/hwmon/hwmonN`, `SLOT/driver`, `drm/cardN/device` are **relative** symlinks, as on a real system.
  When binding a world into a mount namespace, overlay `sys/devices` too (or the whole `sys/`): the class
  links point into it.
* KFD lives at `sys/devices/virtual/kfd/kfd/` with `sys/class/kfd/kfd -> ../../devices/virtual/kfd/kfd`
  (the real layout), so `sys/class/kfd/kfd/topology/nodes/N/...` resolves.
* Files that were not captured are not invented: several worlds lack `device`, `revision`, `class`,
  `subsystem_*` in the PCI directory (the ids are then only in `uevent`). Detection must cope.
* `EMPTY_DIRS` (in each world root) lists directories that must exist but are empty (git cannot store
  them); every world has the file (possibly empty).
* Stubs for `update-grub`, `update-initramfs`, `grubby`, `dracut` are executable no-op shell scripts
  (update-grub has Debian's real 1-line content).

## Worlds

| world | GPU | gfx | slot / card / render | KFD | distro, kernel | exercises |
|---|---|---|---|---|---|---|
{rows}
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fixtures", default=DEFAULT_FIXTURES)
    ap.add_argument("--out", default=HERE)
    ap.add_argument("worlds", nargs="*")
    a = ap.parse_args()
    fixtures = os.path.abspath(a.fixtures)
    csv_path = os.path.join(os.path.dirname(fixtures), "facts", "amdgpu_params.csv")
    if not os.path.isfile(os.path.join(fixtures, "INDEX.md")) or not os.path.isfile(csv_path):
        raise SystemExit("fixtures not found (need %s/INDEX.md and ../facts/amdgpu_params.csv)" % fixtures)
    os.umask(0o022)
    selected = [s for s in WORLDS if not a.worlds or s["name"] in a.worlds]
    rows = []
    for spec in WORLDS:
        if spec in selected:
            facts, empty = build(spec, fixtures, csv_path, a.out)
            print("%-11s slot=%-13s card=%-6s render=%-4s kfd=%-12s empty_dirs=%d" % (
                spec["name"], facts.get("slot", "-"), facts.get("card", "-"), facts.get("render") or "-",
                facts.get("kfd_nodes", "-"), len(empty)))
            if facts.get("kfd_loc") and facts.get("slot"):
                locs = ["%04x:%02x:%02x.%x" % (d, l >> 8, (l & 0xff) >> 3, l & 7) for d, l in facts["kfd_loc"]]
                print("            KFD location(s) %s vs DRM slot %s" % (", ".join(locs), facts["slot"]))
        if spec["src"] and spec["src"].startswith("lact/"):
            sc = "%s / %s / %s" % (
                read_kv(os.path.join(fixtures, spec["src"], spec.get("card_sub") or sorted(
                    d for d in os.listdir(os.path.join(fixtures, spec["src"])) if d.startswith("card"))[0],
                    "device", "uevent"))["PCI_SLOT_NAME"],
                spec.get("card_sub") or sorted(d for d in os.listdir(os.path.join(fixtures, spec["src"]))
                                               if d.startswith("card"))[0], "renderD128")
        elif spec["src"] is None:
            sc = "0000:00:02.0 / card0 / renderD128"
        else:
            sc = "- (no DRM)"
        kfd = ("DRM+KFD" if spec.get("kfd") else "KFD only" if (spec.get("kfd_nodes") or spec.get("kfd_topology"))
               else "none")
        rows.append("| `%s` | %s | %s | %s | %s | %s %s | %s |" % (
            spec["name"], spec["gpu"], spec["gfx"], sc, kfd, spec["distro"], spec["kernel"], spec["exercises"]))
    if not a.worlds:
        with open(os.path.join(a.out, "README.md"), "w") as f:
            f.write(README.replace("{rows}", "\n".join(rows)))
        os.chmod(os.path.join(a.out, "README.md"), 0o644)


if __name__ == "__main__":
    main()
