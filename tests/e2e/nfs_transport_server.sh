#!/usr/bin/env bash
# The NFS transport's client send buffer and the server's disk on the block
# layer.  nfs.server_dev=hdd-2011: the parameter is recorded and checked, the
# server writes what the client committed and no faster than its disk, the
# result is deterministic and differs from the old slice disk (fifo, the
# default).  nfs.client_sndbuf_kb: splits queue and RTT time, nothing else.
# The 6.x client under current: nfs.write_congestion flag / skip / wait.
# nfs.server_wcache_mb: the fifo disk's write-back cache and its flush.
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch nfs-server-dev

C=nfs-1dd-4k-32p-32768M-100M:10
K=3.1.0-rc8-nfs-wq4+
D="thresh=100M/$C-$K"
"$W" sim -q -t 30 --no-trace -k "$K" --set nfs.server_dev=hdd-2011 -o "$T/h" "$C" >/dev/null 2>"$T/err"; rc=$?
check "sim with nfs.server_dev=hdd-2011 exits 0" '[ $rc -eq 0 ]'
check "params records nfs.server_dev = hdd-2011" 'grep -qx "nfs.server_dev = hdd-2011" "$T/h/$D/params"'
st() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
disk=$(st nfs_server_disk_mb "$T/h/$D/stats"); sent=$(st dirtied_mb "$T/h/$D/stats")
commits=$(st nfs_nr_commits "$T/h/$D/stats"); bw=$(st write_bw "$T/h/$D/stats")
check "the server disk wrote data ($disk MB), no more than the dd dirtied ($sent MB)" \
  'awk -v d="$disk" -v s="$sent" "BEGIN{exit !(d > 100 && d <= s)}"'
check "COMMITs were answered ($commits)" 'awk -v c="$commits" "BEGIN{exit !(c > 0)}"'
check "write_bw $bw MB/s stays below the server disk (90 MiB/s) plus the client's 100 MB of slack over 30 s" \
  'awk -v b="$bw" "BEGIN{exit !(b > 10 && b < 94.4 + 100 / 30)}"'
"$W" sim -q -t 30 --no-trace -k "$K" --set nfs.server_dev=hdd-2011 -o "$T/h2" "$C" >/dev/null 2>&1
check "same seed, same stats" 'cmp -s "$T/h/$D/stats" "$T/h2/$D/stats"'
"$W" sim -q -t 30 --no-trace -k "$K" -o "$T/f" "$C" >/dev/null 2>&1
check "the default is fifo, and its result differs" 'grep -qx "nfs.server_dev = fifo" "$T/f/$D/params" && ! cmp -s "$T/h/$D/stats" "$T/f/$D/stats"'
"$W" sim -q -t 5 --no-trace -k "$K" --set nfs.server_dev=ssd -o "$T/x" "$C" >/dev/null 2>"$T/bad"; rc=$?
check "an unknown nfs.server_dev is refused naming the key" '[ $rc -ne 0 ] && grep -q "nfs.server_dev: unknown name" "$T/bad"'

# the client send buffer only moves time from queue to RTT: with
# nfs.client_sndbuf_kb=0 every other stat is the same, queue + RTT = execute
# still, and RTT grows while queue time shrinks
"$W" sim -q -t 30 --no-trace -k 3.1.0-rc8-vanilla+ -o "$T/s4" nfs-2dd-4k-32p-32768M-100M:10 >/dev/null 2>&1
"$W" sim -q -t 30 --no-trace -k 3.1.0-rc8-vanilla+ --set nfs.client_sndbuf_kb=0 -o "$T/s0" nfs-2dd-4k-32p-32768M-100M:10 >/dev/null 2>&1
S4="$T/s4/thresh=100M/nfs-2dd-4k-32p-32768M-100M:10-3.1.0-rc8-vanilla+/stats"
S0="$T/s0/thresh=100M/nfs-2dd-4k-32p-32768M-100M:10-3.1.0-rc8-vanilla+/stats"
check "send buffer: all stats but the queue/RTT split equal" \
  'diff <(grep -vE "^nfs_(write|commit)_(queue|rtt)_time " "$S4") <(grep -vE "^nfs_(write|commit)_(queue|rtt)_time " "$S0") >&2'
q4=$(st nfs_write_queue_time "$S4"); r4=$(st nfs_write_rtt_time "$S4"); e4=$(st nfs_write_execute_time "$S4")
q0=$(st nfs_write_queue_time "$S0"); r0=$(st nfs_write_rtt_time "$S0")
check "send buffer: WRITE RTT $r0 -> $r4 ms grows, queue $q0 -> $q4 ms shrinks, queue + RTT = execute $e4" \
  'awk -v q4="$q4" -v r4="$r4" -v e4="$e4" -v q0="$q0" -v r0="$r0" "BEGIN{d=q4+r4-e4; exit !(r4 > r0 && q4 < q0 && d < 0.01 && d > -0.01)}"'

# the 6.x client under current: nfs.write_congestion=auto is the kernel's
# (wait); with the bdi flag nobody waits on (to 5.17) writeback runs up to the
# dirty limit and WRITEs queue for seconds, with skip (5.18) or wait (2024) it
# stays near nfs_congestion_kb (64 MiB on a 4 GiB client) plus the unstable pages
C6=nfs-1dd-4k-8p-4096M-1024M:10
for m in auto flag skip wait; do
  "$W" sim -q -t 60 -k current --set nfs.write_congestion=$m -o "$T/c-$m" "$C6" >/dev/null 2>&1
done
S6() { echo "$T/c-$1/thresh=1024M/$C6-current/stats"; }
check "current: write_congestion=auto is wait" 'cmp -s "$(S6 auto)" "$(S6 wait)"'
wf=$(st writeback_max_pages "$(S6 flag)"); ws=$(st writeback_max_pages "$(S6 skip)"); ww=$(st writeback_max_pages "$(S6 wait)")
check "current: writeback+unstable peak flag $wf > 1.5 x skip $ws and wait $ww pages" \
  'awk -v f="$wf" -v s="$ws" -v w="$ww" "BEGIN{exit !(f > 1.5 * s && f > 1.5 * w && s > 16384 && w > 16384)}"'
qf=$(st nfs_write_queue_time "$(S6 flag)"); qw=$(st nfs_write_queue_time "$(S6 wait)")
check "current: WRITE queue time flag $qf ms > 2 x wait $qw ms" 'awk -v f="$qf" -v w="$qw" "BEGIN{exit !(f > 2 * w)}"'
check "current: skip and wait differ" '! cmp -s "$(S6 skip)" "$(S6 wait)"'
# the server's background threshold at or above its dirty limit is half of
# it (domain_dirty_limits), so a small server does not wait for kupdate
"$W" sim -q -t 30 -k current --no-trace --set nfs.server_mem_mb=64 --set nfs.server_dirty_ratio=5 \
  --set nfs.server_bg_ratio=50 -o "$T/bgc" nfs-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
bw=$(awk '/^write_bw /{print $2}' "$T"/bgc/*/*/stats)
check "server bg_ratio above its dirty_ratio: writes flow ($bw MB/s > 40)" 'awk -v b="$bw" "BEGIN{exit !(b > 40)}"'

# nfs.server_wcache_mb: the fifo disk's write-back cache, flushed by the
# journal commit inside the fsync's i_mutex (docs/nfs-model.md, fifth pass).
# With a 100 us idle exit, the lone wq4 dd at 10M leaves the FILE_SYNC cycle
# of the fourth pass: COMMITs back to back, FILE_SYNC WRITEs a quarter; and
# the effect is the i_mutex's: without it (fsync_locks=0) the cache changes
# little.
C=nfs-1dd-4k-32p-32768M-10M:10
D="thresh=10M/$C-$K"
"$W" sim -q -t 30 --no-trace -k "$K" --set idle_exit_us=100 -o "$T/wc0" "$C" >/dev/null 2>&1
"$W" sim -q -t 30 --no-trace -k "$K" --set idle_exit_us=100 --set nfs.server_wcache_mb=16 -o "$T/wc1" "$C" >/dev/null 2>&1
a=$T/wc0/$D/stats; b=$T/wc1/$D/stats
check "params records nfs.server_wcache_mb (default 0, and as set)" \
  'grep -qx "nfs.server_wcache_mb = 0" "$T/wc0/$D/params" && grep -qx "nfs.server_wcache_mb = 16" "$T/wc1/$D/params"'
check "write cache: COMMITs 1.5x or more ($(st nfs_nr_commits "$a") -> $(st nfs_nr_commits "$b"))" \
  'awk -v x="$(st nfs_nr_commits "$a")" -v y="$(st nfs_nr_commits "$b")" "BEGIN{exit !(y >= 1.5 * x)}"'
check "write cache: FILE_SYNC WRITEs at most half ($(st nfs_file_sync_writes "$a") -> $(st nfs_file_sync_writes "$b"))" \
  'awk -v x="$(st nfs_file_sync_writes "$a")" -v y="$(st nfs_file_sync_writes "$b")" "BEGIN{exit !(2 * y <= x)}"'
check "write cache: the dd writes faster ($(st write_bw "$a") -> $(st write_bw "$b") MB/s)" \
  'awk -v x="$(st write_bw "$a")" -v y="$(st write_bw "$b")" "BEGIN{exit !(y > 1.1 * x)}"'
"$W" sim -q -t 30 --no-trace -k "$K" --set idle_exit_us=100 --set nfs.server_fsync_locks=0 --set nfs.server_wcache_mb=0 -o "$T/wl0" "$C" >/dev/null 2>&1
"$W" sim -q -t 30 --no-trace -k "$K" --set idle_exit_us=100 --set nfs.server_fsync_locks=0 --set nfs.server_wcache_mb=16 -o "$T/wl1" "$C" >/dev/null 2>&1
check "write cache without the fsync's i_mutex: write_bw within 10 % ($(st write_bw "$T/wl0/$D/stats") vs $(st write_bw "$T/wl1/$D/stats"))" \
  'awk -v x="$(st write_bw "$T/wl0/$D/stats")" -v y="$(st write_bw "$T/wl1/$D/stats")" "BEGIN{exit !(y < 1.1 * x && y > 0.9 * x)}"'
"$W" sim -q -t 1 --no-trace -k "$K" --set nfs.server_dev=hdd-2011 --set nfs.server_wcache_mb=16 -o "$T/wh" "$C" >/dev/null 2>"$T/wh.err"
check "write cache beside nfs.server_dev=hdd-2011 is warned of" 'grep -q "nfs.server_wcache_mb has no effect.*nfs.server_dev=fifo" "$T/wh.err"'
