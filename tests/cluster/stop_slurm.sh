#!/usr/bin/env bash
# Stop the SLURM started by start_slurm.sh DIR: cancel its jobs still running, stop slurmd,
# slurmctld and munged, each by the PID in its pid file under DIR (never by process name: other
# SLURMs on the machine are not ours), and remove its /etc/slurm/slurm.conf link. Usage:
# stop_slurm.sh DIR. Safe to call twice or after a partial start; exit status 1 if a daemon had
# to be killed with SIGKILL.
set -uo pipefail

DIR=$(realpath -m "${1:?usage: stop_slurm.sh DIR}")
status=0
declare -A running  # pid -> daemon name

# Jobs still running (a test that timed out) would outlive slurmd in their slurmstepd: cancel
# this cluster's jobs first and give them 10 s to end.
if [[ -s $DIR/slurmctld.pid && -f $DIR/slurm.conf ]]; then
    export SLURM_CONF=$DIR/slurm.conf
    jobs=$(squeue -h -o %i -t PENDING,RUNNING,CONFIGURING,COMPLETING 2>/dev/null)
    if [[ -n $jobs ]]; then
        scancel $jobs
        for _ in $(seq 50); do
            [[ -z $(squeue -h -o %i -t PENDING,RUNNING,CONFIGURING,COMPLETING 2>/dev/null) ]] && break
            sleep 0.2
        done
    fi
fi

for entry in slurmd:slurmd.pid slurmctld:slurmctld.pid munged:munge/munged.pid; do
    name=${entry%%:*} pidfile=$DIR/${entry#*:}
    [[ -s $pidfile ]] || continue
    pid=$(<"$pidfile")
    # A pid file outlives its process; only signal a live process that really is this daemon.
    if [[ -r /proc/$pid/comm && $(</proc/$pid/comm) == "$name" ]]; then
        kill -TERM "$pid" && running[$pid]=$name
    fi
    rm -f "$pidfile"
done

for _ in $(seq 100); do
    for pid in "${!running[@]}"; do
        [[ -d /proc/$pid ]] || unset "running[$pid]"
    done
    ((${#running[@]})) || break
    sleep 0.1
done
for pid in "${!running[@]}"; do
    echo "stop_slurm.sh: ${running[$pid]} (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL" >&2
    kill -KILL "$pid"
    status=1
done

# task/cgroup leaves its (empty) memory cgroup of the node behind; slurmd is stopped: remove it.
if [[ $(cat "$DIR/memory_enforcement" 2>/dev/null) == cgroup ]]; then
    find "/sys/fs/cgroup/memory/slurm_$(hostname -s)" -depth -type d -exec rmdir {} + 2>/dev/null
fi

if [[ $(readlink /etc/slurm/slurm.conf) == "$DIR/slurm.conf" ]]; then
    rm /etc/slurm/slurm.conf
fi
exit $status
