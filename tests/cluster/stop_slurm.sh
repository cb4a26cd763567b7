#!/usr/bin/env bash
# Stop the SLURM started by start_slurm.sh DIR: slurmd, slurmctld and munged, each by the PID in
# its pid file under DIR (never by process name: other SLURMs on the machine are not ours), and
# remove its /etc/slurm/slurm.conf link. Usage: stop_slurm.sh DIR. Safe to call twice or after a
# partial start; exit status 1 if a daemon had to be killed with SIGKILL.
set -uo pipefail

DIR=$(realpath -m "${1:?usage: stop_slurm.sh DIR}")
status=0
declare -A running  # pid -> daemon name

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

if [[ $(readlink /etc/slurm/slurm.conf) == "$DIR/slurm.conf" ]]; then
    rm /etc/slurm/slurm.conf
fi
exit $status
