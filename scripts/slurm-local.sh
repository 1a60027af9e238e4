#!/usr/bin/env bash
# slurm-local.sh runs a one-node Slurm cluster on this machine, for trying
# `hyperctl compare --backend slurm` and for its end-to-end test.
#
#   scripts/slurm-local.sh start    write slurm.conf, start munged, slurmctld and slurmd,
#                                   wait (bounded) until sinfo shows the node idle
#   scripts/slurm-local.sh stop     cancel this cluster's jobs, stop the daemons by their pid files
#   scripts/slurm-local.sh status   the daemons' pids and sinfo
#   scripts/slurm-local.sh env      print the export line clients need (eval "$(... env)")
#
# Debian's slurm-wlm (22.05) and munge come from scripts/setup.sh's apt list;
# this script installs nothing and says so when they are missing. It needs
# root (the daemons run as root, the munge and slurm users), and no systemd.
#
# Every file lives under one scratch folder, $HYPERCTL_SLURM_DIR (default
# /tmp/hyperctl-slurm): slurm.conf, state, spool, logs, pid files, and the
# socket of the cluster's own munged (slurm.conf's AuthInfo points Slurm at
# it), so two clusters in two folders share nothing and stopping one leaves
# the other and the system's munged alone. Clients find the cluster through
# SLURM_CONF=$HYPERCTL_SLURM_DIR/slurm.conf; nothing is written to /etc/slurm.
# The munge key is Debian's /etc/munge/munge.key, created here if it is
# missing. Ports: $HYPERCTL_SLURM_CTLD_PORT (6817) and $HYPERCTL_SLURM_D_PORT
# (6818).
#
# The node's CPUs and memory come from `slurmd -C` (memory minus 5%, so a
# busy machine does not drain the node for "low RealMemory"). DefMemPerCPU
# splits that memory per CPU, so a job without --mem takes its share, not the
# whole node. Cgroup plugins and accounting (slurmdbd) are off: sacct does not
# work on this cluster; squeue and scontrol do (see
# ../shared/notes/slurm-on-this-machine.md).
#
# start and stop are idempotent: start leaves running daemons alone, stop
# does nothing when nothing runs.
set -euo pipefail

dir="${HYPERCTL_SLURM_DIR:-/tmp/hyperctl-slurm}"
ctld_port="${HYPERCTL_SLURM_CTLD_PORT:-6817}"
d_port="${HYPERCTL_SLURM_D_PORT:-6818}"
conf="$dir/slurm.conf"
msock="$dir/munge/munge.socket"
export SLURM_CONF="$conf"

log() { echo "slurm-local: $*" >&2; }
die() { echo "slurm-local: $*" >&2; exit 1; }

need_root() {
  [ "$(id -u)" -eq 0 ] || die "needs root to start the daemons (run as root, or: sudo $0 $*)"
}

need_tools() {
  local t missing=()
  for t in munged munge unmunge mungekey slurmctld slurmd sinfo scontrol squeue scancel sbatch runuser; do
    command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || missing+=("$t")
  done
  [ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]}: Debian's slurm-wlm and munge are not installed; run scripts/setup.sh (make setup)"
}

# alive PIDFILE NAME: the pid in PIDFILE runs a process called NAME.
alive() {
  local pid
  [ -s "$1" ] || return 1
  pid="$(cat "$1" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

# stop_pid PIDFILE NAME: TERM the process, wait (bounded) for it to exit.
stop_pid() {
  local pid i
  alive "$1" "$2" || { rm -f "$1"; return 0; }
  pid="$(cat "$1")"
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do
    [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || break
    sleep 0.1
  done
  if [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]; then
    log "$2 (pid $pid) did not exit within 10 s of TERM; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
  log "stopped $2 (pid $pid)"
}

munge_ok() { munge -S "$msock" -n 2>/dev/null | unmunge -S "$msock" >/dev/null 2>&1; }

write_conf() {
  local host node cpus mem line
  host="$(hostname -s)"
  line="$(slurmd -C | head -n1)"
  [[ "$line" == NodeName=* ]] || die "slurmd -C printed no node line: $line"
  node="${line%% RealMemory=*}"
  mem="$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$line")"
  cpus="$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$line")"
  [ -n "$mem" ] && [ -n "$cpus" ] || die "cannot read CPUs and RealMemory from: $line"
  mem=$((mem * 95 / 100))
  cat >"$conf.tmp" <<EOF
# Written by hyperctl's scripts/slurm-local.sh: a one-node cluster on $host.
ClusterName=hyperctl-local
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=socket=$msock
CryptoType=crypto/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
DefMemPerCPU=$((mem / cpus))
$node RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  mv "$conf.tmp" "$conf"
}

start() {
  need_root start
  need_tools
  mkdir -p "$dir" "$dir/state" "$dir/spool" "$dir/run" "$dir/log"
  chmod 755 "$dir"
  chown slurm:slurm "$dir/state" "$dir/run" "$dir/log"

  # munge: the key, then the daemon as the munge user.
  if [ ! -s /etc/munge/munge.key ]; then
    log "creating the munge key /etc/munge/munge.key"
    mkdir -p /etc/munge
    mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
  fi
  if ! alive "$dir/munge/munged.pid" munged; then
    mkdir -p "$dir/munge"
    chown munge:munge "$dir/munge"
    chmod 755 "$dir/munge"
    runuser -u munge -- /usr/sbin/munged --socket="$msock" --pid-file="$dir/munge/munged.pid" \
      --seed-file="$dir/munge/munged.seed" --log-file="$dir/munge/munged.log" ||
      die "munged failed to start; see $dir/munge/munged.log"
    log "started munged (pid $(cat "$dir/munge/munged.pid"), socket $msock)"
  fi
  local i
  for i in $(seq 1 50); do munge_ok && break; sleep 0.1; done
  munge_ok || die "munged runs but munge -n | unmunge fails on $msock; see $dir/munge/munged.log"

  if alive "$dir/run/slurmctld.pid" slurmctld && alive "$dir/run/slurmd.pid" slurmd; then
    log "slurmctld and slurmd already run (pids $(cat "$dir/run/slurmctld.pid"), $(cat "$dir/run/slurmd.pid"))"
  else
    write_conf
    if ! alive "$dir/run/slurmctld.pid" slurmctld; then
      slurmctld -f "$conf" || die "slurmctld failed to start; see $dir/log/slurmctld.log"
    fi
    if ! alive "$dir/run/slurmd.pid" slurmd; then
      slurmd -f "$conf" || die "slurmd failed to start; see $dir/log/slurmd.log"
    fi
  fi

  # Wait until the node is idle (or busy with jobs): at most 60 s.
  local host state i
  host="$(hostname -s)"
  for i in $(seq 1 120); do
    state="$(sinfo -h -N -n "$host" -o '%T' 2>/dev/null | head -n1 || true)"
    case "$state" in
      idle | mixed | allocated | completing)
        log "node $host is $state; export SLURM_CONF=$conf"
        return 0
        ;;
      drained | draining | down | "drained*" | "down*")
        # A state left over from an earlier run (e.g. the daemons were stopped
        # with jobs on the node): put the node back in service.
        scontrol update NodeName="$host" State=RESUME >/dev/null 2>&1 || true
        ;;
    esac
    sleep 0.5
  done
  die "node $host is not idle after 60 s (sinfo: ${state:-no answer}); see $dir/log/slurmctld.log and $dir/log/slurmd.log"
}

stop() {
  need_root stop
  if alive "$dir/run/slurmctld.pid" slurmctld; then
    # This cluster is private to this script: cancel what is still queued or
    # running so no job step outlives the daemons, and wait (bounded).
    if [ -n "$(squeue -h -o '%i' 2>/dev/null)" ]; then
      log "cancelling the jobs still in the queue"
      local ids i
      mapfile -t ids < <(squeue -h -o '%A' | sort -u)
      scancel --quiet "${ids[@]}" 2>/dev/null || true
      for i in $(seq 1 90); do
        [ -z "$(squeue -h -o '%i' 2>/dev/null)" ] && break
        sleep 0.5
      done
    fi
  fi
  stop_pid "$dir/run/slurmd.pid" slurmd
  stop_pid "$dir/run/slurmctld.pid" slurmctld
  stop_pid "$dir/munge/munged.pid" munged
}

status() {
  local pidfile name rc=0
  for pidfile in munge/munged.pid run/slurmctld.pid run/slurmd.pid; do
    name="$(basename "$pidfile" .pid)"
    if alive "$dir/$pidfile" "$name"; then
      echo "$name: running (pid $(cat "$dir/$pidfile"))"
    else
      echo "$name: not running"
      rc=1
    fi
  done
  if [ $rc -eq 0 ]; then
    sinfo -N -o '%N %T %c %m' || rc=1
  fi
  return $rc
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *)
    echo "usage: $0 start|stop|status|env   (scratch folder: $dir)" >&2
    exit 2
    ;;
esac
