#!/usr/bin/env bash
# Matrices and scale-out: CASE brace lists and ranges expanded by wblab, -k all,
# --cases-from, the job list of 'wblab jobs' (golden), its execution through GNU
# parallel merged and compared byte-identically with a local run, --shard
# coverage, and 'wblab rerun' catching a changed result.
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
RUNJOB=$(cd "$(dirname "$0")/../.." && pwd)/scripts/run-job.sh
e2e_scratch matrix
cd "$T" || exit 1
mkdir bin && ln -s "$W" bin/wblab
export PATH="$T/bin:$PATH"
M='{ext4,xfs}-{1,2}dd-4k-8p-4096M-{1M,10M}:10'

wblab jobs -t 5 -k 3.2-ioless,current -o results "$M" >jobs.txt 2>err; rc=$?
check "jobs exits 0 and prints 16 commands for a 2x2x2 matrix x 2 models" '[ $rc = 0 ] && [ "$(wc -l <jobs.txt)" = 16 ] && [ ! -s err ]'
cat >golden <<'G'
wblab sim -k 3.2-ioless -t 5 --seed 1 -o results thresh=1M/ext4-1dd-4k-8p-4096M-1M:10
wblab sim -k current -t 5 --seed 1 -o results thresh=1M/ext4-1dd-4k-8p-4096M-1M:10
wblab sim -k 3.2-ioless -t 5 --seed 1 -o results thresh=10M/ext4-1dd-4k-8p-4096M-10M:10
wblab sim -k current -t 5 --seed 1 -o results thresh=10M/ext4-1dd-4k-8p-4096M-10M:10
wblab sim -k 3.2-ioless -t 5 --seed 1 -o results thresh=1M/ext4-2dd-4k-8p-4096M-1M:10
G
check "the job list is in matrix order, one self-contained command a line (golden)" 'head -5 jobs.txt | cmp -s - golden'
check "the last job is xfs 2dd 10M under current" '[ "$(tail -1 jobs.txt)" = "wblab sim -k current -t 5 --seed 1 -o results thresh=10M/xfs-2dd-4k-8p-4096M-10M:10" ]'
wblab jobs -t 5 --set disk.bw_mbps=40 --no-trace -k 3.2-ioless -o 'r s' 'ext4-1dd-4k-8p-4096M-1M:10' >j2.txt
check "--set, --no-trace and a quoted -o are carried into each job" \
	'[ "$(cat j2.txt)" = "wblab sim -k 3.2-ioless -t 5 --seed 1 --set disk.bw_mbps=40 --no-trace -o '"'"'r s'"'"' thresh=1M/ext4-1dd-4k-8p-4096M-1M:10" ]'

for i in 1 2 3; do wblab jobs -t 5 -k 3.2-ioless,current -o results --shard $i/3 "$M"; done >shards.txt
check "three shards hold every job exactly once" 'sort shards.txt | cmp -s - <(sort jobs.txt) && [ "$(sort shards.txt | uniq -d | wc -l)" = 0 ]'
wblab jobs --shard 4/3 "$M" >o 2>&1; rc=$?
check "--shard 4/3 is refused" '[ $rc = 2 ] && grep -q "shard" o'
wblab jobs -k all -t 5 'ext4-1dd-4k-8p-4096M-1M:10' >all.txt
check "-k all gives one job per model of 'wblab sim --help' (aliases aside)" \
	'[ "$(wc -l <all.txt)" = "$(wblab sim --help | sed -n "/^models:/,/^$/p" | grep "^  " | grep -vc "alias of")" ] && [ "$(wc -l <all.txt)" -ge 4 ]'

mkdir local par
(cd local && wblab sim -q -j2 -t 5 -k 3.2-ioless,current -o results "$M" >/dev/null 2>../local.err)
check "a local -j2 run of the matrix exits 0 with nothing on stderr (not a terminal)" '[ ! -s local.err ] && [ "$(ls local/results/*/ | grep -c 3.2-ioless)" = 8 ]'
if command -v parallel >/dev/null; then
	(cd par && parallel -j2 --joblog ../jobs.log <../jobs.txt >/dev/null 2>&1)
	check "GNU parallel ran all 16 jobs" '[ "$(awk "NR > 1 && \$7 == 0" jobs.log | wc -l)" = 16 ]'
	check "parallel's merged tree is byte-identical to the local run (cmdline too)" 'diff -r local/results par/results >/dev/null'
	wblab compare local/results >c1 2>&1; wblab compare par/results >c2 2>&1
	check "compare over the merged tree prints the local table" 'cmp -s c1 c2 && [ -s c1 ]'
else
	skip "GNU parallel runs" "parallel not installed"
fi

printf '# two cases\next4-{1,2}dd-4k-8p-4096M-1M:10   # braces work here too\n\nxfs-1dd-4k-8p-4096M-1M:10\n' >cases.txt
wblab jobs -k 3.2-ioless -t 5 --cases-from cases.txt >cf.txt
check "--cases-from reads cases, comments and braces" '[ "$(wc -l <cf.txt)" = 3 ] && grep -q "xfs-1dd" cf.txt'
printf 'ext4-1dd-4k-8p-4096M-1M:10\n{broken\n' >bad.txt
wblab jobs --cases-from bad.txt >o 2>&1; rc=$?
check "a bad line in --cases-from is named file:line" '[ $rc = 2 ] && grep -q "bad.txt:2:" o'
# not a file: /dev/zero grew the line until the machine ran out of memory
timeout 20 wblab jobs --cases-from /dev/zero >o 2>&1; rc=$?
check "--cases-from /dev/zero: exit 2, not a regular file" '[ $rc = 2 ] && grep -q "/dev/zero: not a regular file" o'
mkdir -p casedir
wblab jobs --cases-from casedir >o 2>&1; rc=$?
check "--cases-from a directory says so" '[ $rc = 2 ] && grep -q "casedir: not a regular file" o'
printf 'ext4-1dd-4k-8p-4096M-1M:10\n\n# c\next4-1dd-4k-8p-9999999999M-1M:10\n' >bad.txt
wblab jobs --cases-from bad.txt >o 2>&1; rc=$?
check "a bad field of a --cases-from case is named file:line too" \
	'[ $rc = 2 ] && [ "$(wc -l <o)" = 1 ] && grep -q "^wblab jobs: --cases-from: bad.txt:4: case .*bad memory" o'
printf 'ext4-1dd-4k-8p-4096M-1M:10\nzfs-1dd-4k-8p-4096M-1M:10\n' >bad.txt
wblab jobs --cases-from bad.txt >o 2>&1; rc=$?
check "... and so is an unknown file system" '[ $rc = 2 ] && grep -q "bad.txt:2: .*unknown file system" o'
# the same job twice would run twice into one result directory
wblab jobs -k current,current 'ext4-1dd-4k-8p-4096M-1M:10' >o 2>&1; rc=$?
check "a model listed twice is refused" '[ $rc = 2 ] && [ "$(wc -l <o)" = 1 ] && grep -q "'"'"'current'"'"' is listed twice" o'
printf 'ext4-1dd-4k-8p-4096M-1M:10\n' >one.txt
wblab jobs -k current --cases-from one.txt 'ext4-{2,1}dd-4k-8p-4096M-1M:10' >o 2>&1; rc=$?
check "a case listed twice is refused, naming both places" \
	'[ $rc = 2 ] && [ "$(wc -l <o)" = 1 ] && grep -q "is listed twice, as .*(one.txt:1) and .*(the command line)" o'
wblab sim -t 5 -o x '{ext4' >o 2>&1; rc=$?
check "an unbalanced brace is a usage error" '[ $rc = 2 ] && grep -q "without" o'

R=local/results/thresh=1M/ext4-1dd-4k-8p-4096M-1M:10-3.2-ioless
wblab rerun "$R" >o 2>&1; rc=$?
check "rerun of a simulated result: identical" '[ $rc = 0 ] && grep -q "identical to its rerun" o'
sed -i 's/^write_bw .*/write_bw 1.0000/' "$R/stats"
wblab rerun "$R" >o 2>&1; rc=$?
check "rerun catches a changed stats file" '[ $rc = 1 ] && grep -q "stats differs" o'
R2=local/results/thresh=10M/xfs-2dd-4k-8p-4096M-10M:10-current
check "a traced result has its saved graph series" '[ -s "$R2/plot-series" ]'
printf '# damaged\n' >>"$R2/plot-series"
wblab rerun "$R2" >o 2>&1; rc=$?
check "rerun catches a changed plot-series file" '[ $rc = 1 ] && grep -q "plot-series differs" o'
# a FIFO for a cmdline blocked rerun in its open
cp -r "$R2" fifo-res && rm fifo-res/cmdline && mkfifo fifo-res/cmdline
timeout 20 wblab rerun fifo-res >o 2>&1; rc=$?
check "rerun of a result whose cmdline is a FIFO: exit 1 at once (rc $rc)" '[ $rc = 1 ] && grep -q "cmdline: not a regular file" o'
rm -rf fifo-res
# a cmdline is data: only the exact form wblab writes reruns
good=$(cat "$R2/cmdline")
for bad in "--pol $T/evil.so" "--p=$T/evil.so" "--ou=$T/victim" "-o $T/victim" "-o$T/victim" "--out=$T/victim"; do
	echo "${good% *} $bad ${good##* }" >"$R2/cmdline"
	wblab rerun "$R2" >o 2>&1; rc=$?
	check "rerun refuses a cmdline with '${bad%% *}' added" '[ $rc = 1 ] && grep -q "only the cmdline" o && [ ! -e "$T/victim" ]'
done
for bad in "-k current,3.2-ioless" "-k all"; do
	echo "${good/-k current/$bad}" >"$R2/cmdline"
	wblab rerun "$R2" >o 2>&1; rc=$?
	check "rerun refuses '$bad' before running anything (it would make many results)" '[ $rc = 1 ] && grep -q "more than one model" o'
done
echo "${good% *} 'thresh=10M/xfs-{1..3}dd-4k-8p-4096M-10M:10'" >"$R2/cmdline"
wblab rerun "$R2" >o 2>&1; rc=$?
check "rerun refuses a CASE matrix before running anything" '[ $rc = 1 ] && grep -q "is a matrix" o'
echo "$good" >"$R2/cmdline"
# a meta group that leads from the rerun's root back to DIR itself
mkdir "$T/t" && cp -r "$R2" "$T/t/x" && sed -i 's/^write_bw .*/write_bw 99999/' "$T/t/x/stats" &&
	sed -i "s|^group .*|group ../..$T/t|" "$T/t/x/meta"
wblab rerun "$T/t/x" >o 2>&1; rc=$?
check "rerun compares with what it made, not with a place a tampered meta names" '[ $rc = 1 ] && grep -q "stats differs" o'
echo 'wblab sim $(reboot)' >"$R/cmdline"
wblab rerun "$R" >o 2>&1; rc=$?
check "rerun refuses a cmdline with shell constructs" '[ $rc = 1 ] && grep -q "cmdline: .* a shell construct" o'

# --set KEY=V1,V2: a sweep, one GROUP/KEY=V part per swept key
wblab jobs -t 5 -k 3.2-ioless --set disk.bw_mbps=40,80 --set hz=250 --set dev.model=fifo,ssd -o S 'ext4-1dd-4k-8p-4096M-1M:10' >sw.txt
cat >golden <<'G'
wblab sim -k 3.2-ioless -t 5 --seed 1 --set disk.bw_mbps=40 --set hz=250 --set dev.model=fifo -o S thresh=1M/disk.bw_mbps=40/dev.model=fifo/ext4-1dd-4k-8p-4096M-1M:10
wblab sim -k 3.2-ioless -t 5 --seed 1 --set disk.bw_mbps=40 --set hz=250 --set dev.model=ssd -o S thresh=1M/disk.bw_mbps=40/dev.model=ssd/ext4-1dd-4k-8p-4096M-1M:10
wblab sim -k 3.2-ioless -t 5 --seed 1 --set disk.bw_mbps=80 --set hz=250 --set dev.model=fifo -o S thresh=1M/disk.bw_mbps=80/dev.model=fifo/ext4-1dd-4k-8p-4096M-1M:10
wblab sim -k 3.2-ioless -t 5 --seed 1 --set disk.bw_mbps=80 --set hz=250 --set dev.model=ssd -o S thresh=1M/disk.bw_mbps=80/dev.model=ssd/ext4-1dd-4k-8p-4096M-1M:10
G
check "two sweeps of two values give four jobs, the first sweep slowest (golden)" 'cmp -s sw.txt golden'
for bad in 'disk.bw_mbps=40,,80:empty value' 'disk.bw_mbps=40,40:listed twice' 'disk.bw_mbps=40,40.0:listed twice (as' \
	'hz=1e3,1000:listed twice (as' 'hz=100,0x3e8:bad value' 'disk.bw_mbps=40,-1:out of range' 'nosuch.key=1,2:unknown parameter'; do
	wblab sim -t 5 --set "${bad%%:*}" 'ext4-1dd-4k-8p-4096M-1M:10' >o 2>&1; rc=$?
	check "a sweep --set ${bad%%:*} is refused ($(echo "${bad#*:}"))" '[ $rc = 2 ] && grep -q "${bad#*:}" o && [ "$(wc -l <o)" = 1 ]'
done
wblab sim -t 5 --set disk.bw_mbps=1,2 --set disk.bw_mbps=3,4 'ext4-1dd-4k-8p-4096M-1M:10' >o 2>&1; rc=$?
check "a key swept twice is refused" '[ $rc = 2 ] && grep -q "swept twice" o'
wblab sim -t 5 --set hz=100,1000 --set hz=250 'ext4-1dd-4k-8p-4096M-1M:10' >o 2>&1; rc=$?
check "a plain --set of a key swept before it is refused (it would mislabel the sweep)" '[ $rc = 2 ] && grep -q "swept by an earlier" o'
wblab jobs -t 5 --set hz=250 --set hz=100,1000 'ext4-1dd-4k-8p-4096M-1M:10' >o 2>&1; rc=$?
check "... while a sweep after a plain --set of its key names the values it runs" \
	'[ $rc = 0 ] && grep -q -- "--set hz=250 --set hz=100 .*/hz=100/ext4" o && grep -q -- "--set hz=1000 .*/hz=1000/ext4" o'
wblab sim -q -t 10 --no-trace -k 3.2-ioless --set disk.bw_mbps=40,80 -o sweep 'ext4-{1,2}dd-4k-8p-4096M-10M:10' >o 2>&1; rc=$?
check "a sweep run writes GROUP/KEY=V/CASE-KERNEL results" '[ $rc = 0 ] && [ "$(ls -d sweep/thresh=10M/disk.bw_mbps=*/*-3.2-ioless | wc -l)" = 4 ]'
wblab compare -c disk.bw_mbps sweep >c 2>&1; rc=$?
check "compare -c KEY puts the swept values side by side, one row per case" \
	'[ $rc = 0 ] && grep -q "disk.bw_mbps=X/ext4-1dd" c && grep -q "disk.bw_mbps=X/ext4-2dd" c && [ "$(grep -c "disk.bw_mbps=X" c)" = 2 ]'
check "... and the 80 MB/s column writes about twice the 40 MB/s one" \
	'awk "/TOTAL write_bw/ { r = \$3 / \$1; exit !(r > 1.8 && r < 2.2) }" c'
wblab compare sweep >o 2>&1; rc=$?
check "the default -c kernel on a one-kernel sweep suggests -c KEY" '[ $rc = 1 ] && grep -q "try -c disk.bw_mbps" o'
wblab rerun "sweep/thresh=10M/disk.bw_mbps=80/ext4-2dd-4k-8p-4096M-10M:10-3.2-ioless" >o 2>&1; rc=$?
check "rerun of a swept result finds its GROUP/KEY=V dir: identical" '[ $rc = 0 ] && grep -q "identical to its rerun" o'
wblab sim -q -t 5 --no-trace --set hz=100,1000 -o nometa 'ext4-1dd-4k-8p-4096M-1M:10' >/dev/null
rm nometa/*/*/*/meta
wblab compare nometa >c 2>o; rc=$?
check "without meta files a sweep's values stay apart (the group is every dir below DIR)" \
	'[ $rc = 0 ] && grep -q "thresh=1M/hz=100/ext4" c && grep -q "thresh=1M/hz=1000/ext4" c && grep -q "no meta file" o'

# HTCondor: the help's recipe, with $(Process) 0, runs the first job
wblab jobs -t 5 --no-trace -k current -o condor 'ext4-{1,2}dd-4k-8p-4096M-1M:10' >cj.txt
args=$(wblab jobs --help | sed -n 's/^ *arguments *= *//p')
check "jobs --help's HTCondor arguments pass --zero (as docs/scale-out.md)" '[ "$args" = "--zero \$(Process) jobs.txt" ]'
args=${args//\$(Process)/0}
bash "$RUNJOB" ${args/jobs.txt/cj.txt} >/dev/null 2>o; rc=$?
check "... and with Process 0 run line 1" '[ $rc = 0 ] && [ -d "condor/thresh=1M/ext4-1dd-4k-8p-4096M-1M:10-current" ] && [ ! -e "condor/thresh=1M/ext4-2dd-4k-8p-4096M-1M:10-current" ]'
bash "$RUNJOB" 0 cj.txt >/dev/null 2>o; rc=$?
check "run-job.sh N 0 without --zero says to pass it" '[ $rc = 2 ] && grep -q -- "--zero" o'
# slurm-array.sh as sbatch runs it: a copy in a spool dir, started in the
# submit directory (here not the checkout): it finds run-job.sh beside the
# wblab in PATH, and the relative -o lands in the submit directory
mkdir -p spool sub
cp "$(dirname "$RUNJOB")/slurm-array.sh" spool/slurm_script
(cd sub && env -u WBLAB_HOME SLURM_ARRAY_TASK_ID=2 SLURM_SUBMIT_DIR="$T/sub" bash ../spool/slurm_script ../jobs.txt) >o 2>&1; rc=$?
check "slurm-array.sh from a spool copy runs its line in the submit directory (rc $rc)" \
  '[ $rc = 0 ] && [ -s "sub/results/thresh=1M/ext4-1dd-4k-8p-4096M-1M:10-current/stats" ]'
(cd sub && env -u WBLAB_HOME PATH=/usr/bin:/bin SLURM_ARRAY_TASK_ID=2 SLURM_SUBMIT_DIR="$T/sub" bash ../spool/slurm_script ../jobs.txt) >o 2>&1; rc=$?
check "slurm-array.sh that cannot find run-job.sh says to set WBLAB_HOME (rc $rc)" '[ $rc = 2 ] && grep -q WBLAB_HOME o'
# a name run-job.sh would refuse is refused by jobs itself, before any line
for g in "it's" 'a$b' 'a;b' 'a(b'; do
  wblab jobs -t 5 -k current -o jr "$g/ext4-1dd-4k-8p-4096M-1M:10" >jr.txt 2>o; rc=$?
  check "jobs refuses group '$g' (run-job.sh could not run its line): exit 2, nothing printed, one line" \
    '[ $rc = 2 ] && [ ! -s jr.txt ] && [ "$(wc -l <o)" = 1 ] && grep -q "run-job.sh refuses" o'
done
wblab jobs -t 5 -k current -o $'x\ny' ext4-1dd-4k-8p-4096M-1M:10 >jr.txt 2>o; rc=$?
check "jobs refuses an -o with a newline (one job would take two lines)" \
  '[ $rc = 2 ] && [ ! -s jr.txt ] && grep -q "control character" o'
wblab jobs -t 5 -k current -o 'j r' 'a b/ext4-1dd-4k-8p-4096M-1M:10' >jr.txt 2>o
bash "$RUNJOB" 1 jr.txt >/dev/null 2>o; rc=$?
check "a name with a space is quoted, and run-job.sh runs it" '[ $rc = 0 ] && [ -d "j r/a b/ext4-1dd-4k-8p-4096M-1M:10-current" ]'
