#!/bin/sh
# i386.sh -- make sure this machine can run 32-bit x86 programs, which the
# original compiler needs: Debian 12's SML/NJ 110.79 (smlnj) is an i386
# program even on amd64. Some kernels cannot run them (IA-32 emulation off
# or absent, as in some VMs: "Exec format error"); there, as root, it
# installs qemu-user-static and registers it with binfmt_misc for i386
# ELF files, so that the kernel hands them to the emulator. The original
# then runs about three times slower (its SML part; the programs it
# generates are 64-bit and run natively). doc/testing.md.
#
# Exit status 0: i386 programs run (natively or emulated); 1: they do not
# and this script could not fix it (not root, no apt-get, no binfmt_misc).
set -u
# the probe lives in the current directory (make runs this in the build
# directory, where programs are run anyway): /tmp may be mounted noexec
probe=$(mktemp ./i386-probe.XXXXXX) || exit 1
trap 'rm -f "$probe"' EXIT
# A 93-byte static i386 ELF executable: _exit(0) through int 0x80
# (ELF header, one PT_LOAD program header, then the code
#  b8 01 00 00 00  mov eax,1 / 31 db  xor ebx,ebx / cd 80  int 0x80).
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000' > "$probe"
printf '\002\000\003\000\001\000\000\000\124\200\004\010\064\000\000\000' >> "$probe"
printf '\000\000\000\000\000\000\000\000\064\000\040\000\001\000\000\000' >> "$probe"
printf '\000\000\000\000\001\000\000\000\000\000\000\000\000\200\004\010' >> "$probe"
printf '\000\200\004\010\135\000\000\000\135\000\000\000\005\000\000\000' >> "$probe"
printf '\000\020\000\000\270\001\000\000\000\061\333\315\200' >> "$probe"
chmod +x "$probe"
if "$probe" 2>/dev/null; then exit 0; fi

echo "i386.sh: this kernel cannot run 32-bit x86 programs (SML/NJ, which the original needs, is one);"
echo "i386.sh: registering qemu-i386 with binfmt_misc to run them emulated"
if [ "$(id -u)" != 0 ]; then
  echo "i386.sh: not root: cannot install qemu-user-static or register it" >&2
  exit 1
fi
if [ ! -x /usr/bin/qemu-i386-static ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static >/dev/null ||
    { echo "i386.sh: apt-get install qemu-user-static failed" >&2; exit 1; }
fi
bm=/proc/sys/fs/binfmt_misc
[ -e $bm/register ] || mount -t binfmt_misc binfmt_misc $bm 2>/dev/null
if [ ! -e $bm/register ]; then
  echo "i386.sh: no binfmt_misc (cannot mount $bm)" >&2
  exit 1
fi
# i386 ELF executables and PIEs (e_type 2 or 3, e_machine 3); F: the
# emulator is opened now, so it also serves chroots
[ -e $bm/qemu-i386 ] || printf '%s' ':qemu-i386:M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-i386-static:F' > $bm/register
if "$probe" 2>/dev/null; then
  echo "i386.sh: i386 programs now run under qemu-i386-static"
  exit 0
fi
echo "i386.sh: i386 programs still do not run" >&2
exit 1
