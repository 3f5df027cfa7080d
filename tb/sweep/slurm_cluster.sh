#!/usr/bin/env bash
# A real one-node Slurm cluster on localhost, everything inside one directory,
# for the tests of `smshare sweep --backend slurm` (and for trying it by hand).
#
#   tb/sweep/slurm_cluster.sh start DIR   install if needed, start, wait until the node is idle
#   tb/sweep/slurm_cluster.sh env DIR     print the `export SLURM_CONF=...` the clients need
#   tb/sweep/slurm_cluster.sh stop DIR    cancel the cluster's jobs, stop its daemons by pid
#
#   eval "$(tb/sweep/slurm_cluster.sh env /tmp/x)"; sbatch --wrap hostname; squeue
#
# `start` must run as root (slurmd switches to each job's user). It installs
# Debian's slurmctld, slurmd, slurm-client and munge when one is missing
# (apt-get update, then apt-get install -y), then runs its own munged,
# slurmctld and slurmd with their key, sockets, state, spool, logs and pid
# files in DIR and a generated DIR/slurm.conf; the system's Slurm and munge
# configuration and services are neither read nor touched. The daemons listen
# on two free ports of 127.0.0.1 only (but see choose_how_daemons_listen). `stop` signals exactly the pids the daemons
# wrote into DIR (never a process found by name) and waits for them to exit;
# calling it for a cluster that is not running is harmless, so tests call it
# from a trap or a finally block.
#
# Exit status of `start`: 0 the node is idle; 77 Slurm cannot run here (not root,
# or the packages cannot be installed), so a CTest test can be
# skipped (SKIP_RETURN_CODE 77); 1 it should have started and did not (the
# daemons' log tails are printed). Messages go to stderr, prefixed
# "slurm_cluster:".
#
# DIR's path must stay under ~80 characters: munged's socket is
# DIR/munge/munge.socket, and a Unix socket's path has at most 107.
set -euo pipefail

PACKAGES=(slurmctld slurmd slurm-client munge)
START_TIMEOUT_S=${SLURM_CLUSTER_START_TIMEOUT:-60}
STOP_TIMEOUT_S=30
DAEMONS=(slurmd slurmctld munged)   # in stopping order: munged authenticates the others' last words

log() { echo "slurm_cluster: $*" >&2; }
die() { echo "slurm_cluster: error: $*" >&2; exit 1; }
skip() { echo "slurm_cluster: cannot run Slurm here: $*" >&2; exit 77; }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

# --- packages -------------------------------------------------------------------
install_missing_packages() {
  local missing=() p status
  command -v dpkg-query >/dev/null || {
    for p in slurmctld slurmd sbatch munged; do
      command -v "$p" >/dev/null || skip "no $p and no dpkg-query to install ${PACKAGES[*]}"
    done
    return
  }
  for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
  done
  ((${#missing[@]})) || return 0

  log "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2 || skip "apt-get update failed"
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || skip "apt-get install ${missing[*]} failed"
}

# --- processes --------------------------------------------------------------------
# A pid counts as running while /proc has it and it is not a zombie (a daemon
# that has exited but whose new parent has not reaped it yet).
is_running() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z ]]
}

# The pid DIR/<daemon>.pid names, if that process is still this daemon (a pid
# file left over from an earlier cluster may name a reused pid).
daemon_pid() {
  local dir=$1 name=$2 pid
  pid=$(cat "$dir/$name.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && is_running "$pid" \
    && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$name" ]] && echo "$pid"
}

free_loopback_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

log_tails() {
  local dir=$1 f
  for f in "$dir"/log/*.log; do
    [[ -f "$f" ]] || continue
    echo "---- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
}

# --- start ------------------------------------------------------------------------
# Slurm 22.05 cannot be told which address to listen on: with
# CommunicationParameters=NoCtldInAddrAny,NoInAddrAny its daemons bind to the
# address their host *name* resolves to (gethostname()), ignoring
# SlurmctldHost and NodeAddr; without them, to every interface. So the
# daemons run in a UTS namespace of their own whose host name is "localhost"
# (unshare --uts, needs CAP_SYS_ADMIN), or directly when this host's name
# already resolves to a loopback address. Otherwise (a container without
# CAP_SYS_ADMIN whose name resolves to its network address) they listen on
# every interface, still accepting only clients holding DIR's munge key.
LAUNCH=()
COMM_PARAMS=""
choose_how_daemons_listen() {
  local host_addr
  if unshare --uts sh -c 'hostname localhost' 2>/dev/null; then
    LAUNCH=(unshare --uts sh -c 'hostname localhost && exec "$@"' daemon)
    COMM_PARAMS=NoCtldInAddrAny,NoInAddrAny
    return
  fi
  host_addr=$(getent ahostsv4 "$(hostname)" | awk 'NR == 1 {print $1}') || true  # getent: 2 = unknown name
  if [[ "$host_addr" == 127.* ]]; then
    COMM_PARAMS=NoCtldInAddrAny,NoInAddrAny
  else
    log "warning: $(hostname) resolves to ${host_addr:-nothing}, not to a loopback address, and" \
      "unshare --uts is not allowed here: the daemons listen on every interface (munge-authenticated)"
  fi
}

write_slurm_conf() {
  local dir=$1 user hw ctld_port slurmd_port
  user=$(id -un)
  # The node's CPUs, sockets, cores and memory as slurmd itself detects them,
  # so slurmd registers without "reconfigured socket/core boundaries" warnings.
  hw=$(slurmd -C | sed -n '1s/^NodeName=[^ ]* //p')
  [[ -n "$hw" ]] || die "slurmd -C printed no node line"
  read -r ctld_port slurmd_port <<<"$(free_loopback_ports 2)"

  cat >"$dir/slurm.conf" <<EOF
# Generated by tb/sweep/slurm_cluster.sh: a one-node test cluster on 127.0.0.1.
ClusterName=smshare-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
${COMM_PARAMS:+CommunicationParameters=$COMM_PARAMS}
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
# Start pending array tasks as soon as CPUs free up, not up to 3 s later (the
# default batch_sched_delay, which batches submissions on busy clusters).
SchedulerParameters=batch_sched_delay=0
NodeName=localhost NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munged() {
  local dir=$1
  mkdir -p "$dir/munge"
  mungekey --create --force --keyfile="$dir/munge/munge.key" \
    || die "mungekey could not create $dir/munge/munge.key"
  # --force: munged refuses a socket below any folder that not everyone may
  # search (meant for the system-wide /run/munge; here DIR may well be a
  # private temporary folder, and every client runs as root anyway).
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/log/munged.log" --pid-file="$dir/munged.pid" \
    --seed-file="$dir/munge/munged.seed" \
    || { log_tails "$dir"; die "munged did not start"; }
}

cmd_start() {
  local dir=$1 t0 state="" waited=0
  t0=$(date +%s%N)
  for name in "${DAEMONS[@]}"; do
    if daemon_pid "$dir" "$name" >/dev/null; then
      die "a cluster is already running in $dir ($name); stop it first"
    fi
  done
  [[ $(id -u) -eq 0 ]] || skip "slurmd must run as root to start jobs (it switches to the job's user); run as root"
  install_missing_packages

  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  dir=$(cd "$dir" && pwd)
  choose_how_daemons_listen
  write_slurm_conf "$dir"
  start_munged "$dir"
  export SLURM_CONF="$dir/slurm.conf"
  "${LAUNCH[@]}" slurmctld -f "$SLURM_CONF" \
    || { log_tails "$dir"; cmd_stop "$dir"; die "slurmctld did not start"; }
  "${LAUNCH[@]}" slurmd -f "$SLURM_CONF" -N localhost \
    || { log_tails "$dir"; cmd_stop "$dir"; die "slurmd did not start"; }

  while ((waited < START_TIMEOUT_S * 10)); do
    state=$(sinfo -h -N -o %T 2>/dev/null || true)
    [[ "$state" == idle ]] && break
    for name in slurmctld slurmd; do
      # A daemon that wrote its pid file and then died (a configuration error) will not come back.
      if [[ -f "$dir/$name.pid" ]] && ! daemon_pid "$dir" "$name" >/dev/null; then
        log_tails "$dir"
        cmd_stop "$dir"
        die "$name exited while starting (its log is above)"
      fi
    done
    sleep 0.1
    waited=$((waited + 1))
  done
  if [[ "$state" != idle ]]; then
    log_tails "$dir"
    cmd_stop "$dir"
    die "the node was not idle after ${START_TIMEOUT_S}s (sinfo says '${state:-nothing}'; logs above)"
  fi
  log "cluster up in $((($(date +%s%N) - t0) / 1000000)) ms: node localhost idle, SLURM_CONF=$SLURM_CONF"
}

# --- stop -------------------------------------------------------------------------
# Cancels the cluster's jobs first, so slurmd's step daemons end them (and the
# processes they started) before slurmd goes away.
cancel_jobs() {
  local dir=$1 waited=0
  daemon_pid "$dir" slurmctld >/dev/null || return 0
  export SLURM_CONF="$dir/slurm.conf"
  [[ -n "$(squeue -h -o %i 2>/dev/null)" ]] || return 0
  log "cancelling the jobs still queued or running"
  scancel --full --user="$(id -un)" 2>/dev/null || true
  while [[ -n "$(squeue -h -o %i 2>/dev/null)" ]] && ((waited < STOP_TIMEOUT_S * 10)); do
    sleep 0.1
    waited=$((waited + 1))
  done
}

cmd_stop() {
  local dir=$1 name pid waited
  [[ -d "$dir" ]] || return 0
  cancel_jobs "$dir"
  for name in "${DAEMONS[@]}"; do
    pid=$(daemon_pid "$dir" "$name") || continue
    kill -TERM "$pid" 2>/dev/null || continue
    waited=0
    while is_running "$pid" && ((waited < STOP_TIMEOUT_S * 10)); do
      sleep 0.1
      waited=$((waited + 1))
    done
    if is_running "$pid"; then
      log "$name (pid $pid) ignored SIGTERM for ${STOP_TIMEOUT_S}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

cmd_env() {
  local dir
  dir=$(cd "$1" 2>/dev/null && pwd) || die "no directory $1"
  [[ -f "$dir/slurm.conf" ]] || die "no $dir/slurm.conf: run '$0 start $1' first"
  printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf"
}

if [[ $# -ne 2 ]]; then
  usage >&2
  exit 2
fi
case "$1" in
  start) cmd_start "$2" ;;
  stop) cmd_stop "$2" ;;
  env) cmd_env "$2" ;;
  *) usage >&2; exit 2 ;;
esac
