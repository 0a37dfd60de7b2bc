#!/bin/bash
# tests/slurm.sh — `make check-slurm` (root): a real single-node Slurm from
# Debian's packages (munged, slurmctld, slurmd on this host, with a
# configuration of this test's own), a 2-shard sweep through
# tools/slurm-sweep as a job array plus a merge job, and the same sweep with
# GNU parallel.  Both merged databases must hold the rows of one unsharded
# run (apart from wall times).
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=${DLSIM_SRCDIR:-.}
for p in slurmctld slurmd munged sbatch sinfo parallel; do
  command -v $p >/dev/null || { echo "SKIP: $p missing (apt install slurm-wlm munge parallel)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }

d=$tmp/slurm
mkdir -p "$d/spool" "$d/state"
H=$(hostname -s)
port=$((20000 + $$ % 10000))
cat > "$d/slurm.conf" <<CONF
ClusterName=dlsimtest
SlurmctldHost=$H
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmdSpoolDir=$d/spool
StateSaveLocation=$d/state
SlurmUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ReturnToService=2
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
NodeName=$H CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$d/slurm.conf
started_munge=""
if ! pgrep -x munged >/dev/null; then
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null
  [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
  munged --force 2>/dev/null && started_munge=1
fi
stop () {
  for f in "$d/slurmd.pid" "$d/slurmctld.pid"; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  [ -n "$started_munge" ] && pkill -x munged
  sleep 0.5
  rm -rf "$tmp"
}
trap stop EXIT
slurmctld -i && slurmd
for i in $(seq 1 50); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 0.2; done
sinfo -h -o %T | grep -q idle && ok "single-node Slurm up" || { ko "Slurm did not come up"; tail -5 "$d/slurmctld.log" "$d/slurmd.log"; finish; exit 1; }

F=$(cd "$SRC" && pwd)/scenarios/examples/convergence-vs-churn.ini
"$DLSIM" run "$F" -o "$tmp/full.db" -q >/dev/null 2>&1

# 1. a Slurm job array of 2 shards and a merge job after it
expect 0 "array job [0-9]* (2 shards), merge job [0-9]*" -- \
  "$SRC/tools/slurm-sweep" --shards 2 --jobs 1 --out "$tmp/sweep.db" --dlsim "$DLSIM" --wait "$F"
sed 's/^/  slurm-sweep: /' "$out"
for f in "$tmp/sweep.db.logs/"*.out; do sed "s|^|  $(basename "$f"): |" "$f"; done
[ -f "$tmp/sweep.db.part-0.db" ] && [ -f "$tmp/sweep.db.part-1.db" ] && ok "both shards ran" || ko "a shard's database is missing"
[ "$(rowdump "$tmp/sweep.db")" = "$(rowdump "$tmp/full.db")" ] && ok "Slurm sweep = unsharded run" \
  || { ko "the merged Slurm sweep differs from the unsharded run"; cat "$tmp/sweep.db.logs/"*.out | head; }
expect 2 "expected scenario FILE" -- "$SRC/tools/slurm-sweep" --shards 2

# 2. the same with GNU parallel
parallel --will-cite "$DLSIM" run "$F" --shard {}/2 -q -o "$tmp/par-{}.db" ::: 0 1
expect 0 "20 runs merged" -- "$DLSIM" merge "$tmp/par.db" "$tmp/par-0.db" "$tmp/par-1.db"
[ "$(rowdump "$tmp/par.db")" = "$(rowdump "$tmp/full.db")" ] && ok "parallel sweep = unsharded run" \
  || ko "the merged GNU parallel sweep differs from the unsharded run"
finish
