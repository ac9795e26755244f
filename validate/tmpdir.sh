# Sourced by measure-here.sh and run-scaling.sh: use_shm_tmpdir MAXTASKS.
# The file benchmarks (page_fault2-4, mmap2) map a file in $TMPDIR.  The 4 KiB-folio variants model
# a file cached in 4 KiB folios, which tmpfs gives on any kernel (ext4 6.16+ and xfs 5.18+ cache
# large folios, which the _ext4 variants model: run those with TMPDIR=/tmp); as mmsim validate does,
# use /dev/shm when TMPDIR is unset and it has room: a 128 MiB file per task, MAXTASKS tasks, and a
# quarter more.
use_shm_tmpdir() {
	if [ -z "${TMPDIR:-}" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ] &&
		[ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -ge $((160 * 1024 * $1)) ]; then
		TMPDIR=/dev/shm
		export TMPDIR
	fi
}
