#!/usr/bin/env bash
# writer.pattern=rand (fio --rw=randwrite --bs=4k) on NFS under current: the
# parameter is recorded, refused where it is not modelled, every WRITE is about
# one page (the dirty density of a 64 GB file is tiny) where a dd sends wsize
# WRITEs, runs are deterministic, and on the public case of Jan Kara's "nfs:
# Block on write congestion" (docs/nfs-model.md, The 6.x client) the 5.18
# limit holds the client's writeback + unstable pages to a fraction of flag's
# while the server's disk stays busy (why the published regression is not
# reproduced).
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch nfs-random-writer

"$W" sim -q -t 2 --no-trace -k current --set writer.pattern=rand -o "$T/x" ext4-1dd-4k-8p-4096M-20:10 >/dev/null 2>"$T/e1"; rc=$?
check "rand on a local file system is refused naming writer.pattern" '[ $rc -ne 0 ] && grep -q "writer.pattern=rand" "$T/e1"'
"$W" sim -q -t 2 --no-trace -k current --set writer.pattern=rand --set nfs.server_dev=hdd-2011 -o "$T/x" nfs-1dd-4k-8p-4096M-20:10 >/dev/null 2>"$T/e2"; rc=$?
check "rand with the block-layer server disk is refused" '[ $rc -ne 0 ] && grep -q "nfs.server_dev=fifo" "$T/e2"'
"$W" sim -q -t 2 --no-trace -k current --set writer.pattern=bogus -o "$T/x" nfs-1dd-4k-8p-4096M-20:10 >/dev/null 2>"$T/e3"; rc=$?
check "an unknown pattern is refused naming the key" '[ $rc -ne 0 ] && grep -q "writer.pattern" "$T/e3"'
"$W" sim -q -t 2 --no-trace -k 3.2-ioless --set writer.pattern=rand -o "$T/x" nfs-1dd-4k-8p-4096M-20:10 >/dev/null 2>"$T/e4"; rc=$?
check "rand under a 3.x model is refused before anything runs (3.x counts every write())" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/e4")" -eq 1 ] && grep -q "only modelled under current" "$T/e4" && [ ! -e "$T/x" ]'
"$W" sim -q -t 2 --no-trace -k current --set writer.pattern=rand -o "$T/x" nfs-1dd-64k-8p-4096M-20:10 >/dev/null 2>"$T/e5"; rc=$?
check "rand with a 64k block size is refused" '[ $rc -eq 2 ] && grep -q "needs a 4k block size" "$T/e5"'

C=nfs-4dd-4k-8p-65536M-20:10
D="thresh=20/$C-current"
PUB="--set writer.pattern=rand --set writer.file_mb=64256 --set nfs.net_mbps=1170 --set nfs.max_slots=65536
     --set nfs.server_disk_mbps=500 --set nfs.server_seek_ms=0.014 --set nfs.server_sync_ms=2 --set nfs.server_mem_mb=65536"
st() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
for m in flag skip wait; do
	# shellcheck disable=SC2086
	"$W" sim -q -t 20 --no-trace -k current $PUB --set nfs.write_congestion=$m -o "$T/$m" "$C" >/dev/null 2>&1
done
check "params records writer.pattern = rand and the file size" \
  'grep -qx "writer.pattern = rand" "$T/skip/$D/params" && grep -qx "writer.file_mb = 64256" "$T/skip/$D/params"'
ws=$(st nfs_write_size "$T/skip/$D/stats")
check "random 4k writes go out as one-page WRITEs ($ws MB)" 'awk -v w="$ws" "BEGIN{exit !(w >= 0.0039 && w < 0.0045)}"'
# shellcheck disable=SC2086
"$W" sim -q -t 20 --no-trace -k current $PUB --set nfs.write_congestion=skip -o "$T/skip2" "$C" >/dev/null 2>&1
check "same seed, same stats" 'cmp -s "$T/skip/$D/stats" "$T/skip2/$D/stats"'
"$W" sim -q -t 20 --no-trace -k current -o "$T/seq" nfs-1dd-4k-8p-4096M-20:10 >/dev/null 2>&1
SQ="$T/seq/thresh=20/nfs-1dd-4k-8p-4096M-20:10-current"
wq=$(st nfs_write_size "$SQ/stats")
check "the default stays seq, with wsize-sized WRITEs ($wq MB)" \
  'grep -qx "writer.pattern = seq" "$SQ/params" && awk -v w="$wq" "BEGIN{exit !(w > 0.5)}"'
check "a seq run reports no server disk busy share" '! grep -q "^nfs_server_disk_busy_pct " "$SQ/stats"'

wf=$(st writeback_max_pages "$T/flag/$D/stats"); wsk=$(st writeback_max_pages "$T/skip/$D/stats"); ww=$(st writeback_max_pages "$T/wait/$D/stats")
check "skip and wait hold writeback + unstable below a quarter of flag's ($wsk, $ww vs $wf pages)" \
  'awk -v f="$wf" -v s="$wsk" -v w="$ww" "BEGIN{exit !(s < f / 4 && w < f / 4)}"'
bs=$(st nfs_server_disk_busy_pct "$T/skip/$D/stats")
check "under skip the server's disk is still busy ($bs %): the uncommitted data queued there outlasts the client's restart" \
  'awk -v b="$bs" "BEGIN{exit !(b > 90)}"'
